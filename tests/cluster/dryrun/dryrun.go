// Package dryrun is the floor `make bench` compares the engine with (issue 32): a
// server-side apply dry run (dryRun=All, force, one field manager) of a set of objects
// from a client without client-side throttling (no QPS limit) and with several requests
// in flight, so the figure is the API server's own speed for admitting, defaulting and
// validating those objects, not a client's rate limiter. kubectl's `apply --server-side
// --dry-run=server`, the bench's other anchor, sends one object after another through
// kubectl's client-side limit. cmd/dryrun runs it on a file.
package dryrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// FieldManager is the field manager of the dry-run applies.
const FieldManager = "aksml-bench"

// Apply sends every object as a server-side apply with dryRun=All from workers requests
// in flight, with cfg's client-side rate limiter turned off, and returns how long the
// requests took (discovery and encoding excluded). The error names the first object the
// API server refused; the others are still sent.
func Apply(ctx context.Context, cfg *rest.Config, objs []*unstructured.Unstructured, workers int) (time.Duration, error) {
	if workers < 1 {
		return 0, fmt.Errorf("workers %d: want at least 1", workers)
	}
	cfg = rest.CopyConfig(cfg)
	// "Setting this to a negative value will disable client-side ratelimiting"
	// (rest.Config.QPS, client-go v0.36.3 rest/config.go).
	cfg.QPS = -1
	cfg.RateLimiter = nil
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return 0, err
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return 0, err
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))
	type request struct {
		obj  *unstructured.Unstructured
		body []byte
		res  dynamic.ResourceInterface
	}
	reqs := make([]request, 0, len(objs))
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return 0, fmt.Errorf("%s %s: %w", gvk, o.GetName(), err)
		}
		var res dynamic.ResourceInterface = dyn.Resource(m.Resource)
		if m.Scope.Name() == "namespace" {
			res = dyn.Resource(m.Resource).Namespace(o.GetNamespace())
		}
		body, err := o.MarshalJSON()
		if err != nil {
			return 0, err
		}
		reqs = append(reqs, request{obj: o, body: body, res: res})
	}

	force := true
	opts := metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: FieldManager, Force: &force}
	work := make(chan request)
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range work {
				if _, err := r.res.Patch(ctx, r.obj.GetName(), types.ApplyPatchType, r.body, opts); err != nil {
					mu.Lock()
					if first == nil {
						first = fmt.Errorf("%s %s/%s: %w", r.obj.GetKind(), r.obj.GetNamespace(), r.obj.GetName(), err)
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, r := range reqs {
		work <- r
	}
	close(work)
	wg.Wait()
	return time.Since(start), first
}

// ReadObjects reads the objects of a multi-document YAML (or JSON) file, skipping empty
// documents; a document without kind or name, or a file without objects, is an error.
func ReadObjects(file string) ([]*unstructured.Unstructured, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	var objs []*unstructured.Unstructured
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if len(m) == 0 {
			continue
		}
		o := &unstructured.Unstructured{Object: m}
		if o.GetKind() == "" || o.GetName() == "" {
			return nil, fmt.Errorf("%s: document %d has no kind or name", file, len(objs)+1)
		}
		objs = append(objs, o)
	}
	if len(objs) == 0 {
		return nil, fmt.Errorf("%s: no objects", file)
	}
	return objs, nil
}
