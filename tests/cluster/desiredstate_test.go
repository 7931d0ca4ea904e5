package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aksml/aksml/components/workloads"
	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/policy/rules"
)

// skippedTypes are the Kubernetes-provider resources of a stack that are not objects of
// the stack itself: a Helm chart or kustomize directory stands for the objects of a
// third-party install (the Kueue, Volcano and Training Operator releases), and a provider
// is not an object at all.
var skippedTypes = map[string]bool{
	"kubernetes:helm.sh/v4:Chart":       true,
	"kubernetes:kustomize/v2:Directory": true,
	"pulumi:providers:kubernetes":       true,
}

// computedValue is how synth records an input whose value is unknown at preview.
const computedValue = "<computed>"

// workloadComponentPrefix is the type prefix of the workload components; their children
// are the example workloads of a stack.
const workloadComponentPrefix = "aksml:workloads:"

var (
	desiredMu sync.Mutex
	desired   = map[string]*rules.Stack{}
)

// desiredState returns the desired state of stack synthesized under mocks from
// <repo>/Pulumi.<stack>.yaml, synthesizing each stack once per process.
func desiredState(t *testing.T, stack string) *rules.Stack {
	t.Helper()
	desiredMu.Lock()
	defer desiredMu.Unlock()
	if s, ok := desired[stack]; ok {
		return s
	}
	root, err := RepoRoot()
	require.NoError(t, err)
	s, err := synth.Synth(root, stack)
	require.NoError(t, err, "synthesize stack %s", stack)
	desired[stack] = s
	return s
}

// stackObject is one Kubernetes object of a desired state with the resource it comes from.
type stackObject struct {
	res rules.Resource
	obj *unstructured.Unstructured
	// install marks a Namespace that no object of the stack creates but a skipped
	// third-party install does (installNamespaces); it is not an object of the stack.
	install bool
	// patch marks a server-side apply patch of an object the stack does not
	// create (a NamespacePatch of kube-system): applied like any object,
	// never deleted, as deleting the patch only gives its fields up.
	patch bool
}

// String names the object for messages: kind, namespace/name and Pulumi name.
func (o stackObject) String() string {
	name := o.obj.GetName()
	if ns := o.obj.GetNamespace(); ns != "" {
		name = ns + "/" + name
	}
	return fmt.Sprintf("%s %s (%s)", o.obj.GetKind(), name, o.res.Name)
}

// isKubernetes reports whether r is a resource of the Kubernetes provider.
func isKubernetes(r rules.Resource) bool {
	return strings.HasPrefix(r.Type, "kubernetes:") || r.Type == "pulumi:providers:kubernetes"
}

// stackObjects returns the Kubernetes objects of s and counts the skipped resources by
// type. A Kubernetes resource whose inputs are not a complete object, or hold a value
// unknown under synth, is an error.
func stackObjects(s *rules.Stack) ([]stackObject, map[string]int, error) {
	var (
		objs    []stackObject
		errs    []error
		skipped = map[string]int{}
	)
	for _, r := range s.Resources {
		if !isKubernetes(r) {
			continue
		}
		if skippedTypes[r.Type] || r.Read {
			skipped[r.Type]++
			continue
		}
		obj, err := toObject(r)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", r.URN, err))
			continue
		}
		objs = append(objs, stackObject{res: r, obj: obj, patch: strings.HasSuffix(r.Type, "Patch")})
	}
	return append(installNamespaces(objs), objs...), skipped, errors.Join(errs...)
}

// installNamespaces returns a Namespace object (marked install) for each namespace the
// stack's objects live in that no object of the stack creates: those of the third-party
// installs stackObjects skips (the training operator's kustomize directory creates
// kubeflow; Kueue's chart creates kueue-system). On a cluster the install creates them
// before the stack's own objects in them (the platform NetworkPolicies); here they are
// applied first and never deleted, as an install's namespace outlives the stack's objects.
func installNamespaces(objs []stackObject) []stackObject {
	created := map[string]bool{"default": true, "kube-system": true, "kube-public": true}
	for _, o := range objs {
		if o.obj.GetKind() == "Namespace" {
			created[o.obj.GetName()] = true
		}
	}
	var names []string
	for _, o := range objs {
		if ns := o.obj.GetNamespace(); ns != "" && !created[ns] {
			created[ns] = true
			names = append(names, ns)
		}
	}
	sort.Strings(names)
	out := make([]stackObject, len(names))
	for i, ns := range names {
		obj := &unstructured.Unstructured{}
		obj.SetAPIVersion("v1")
		obj.SetKind("Namespace")
		obj.SetName(ns)
		out[i] = stackObject{res: rules.Resource{URN: "install-namespace::" + ns, Type: "kubernetes:core/v1:Namespace", Name: ns}, obj: obj, install: true}
	}
	return out
}

// toObject turns the inputs of a Kubernetes resource (the object in Pulumi's JSON form)
// into an unstructured object.
func toObject(r rules.Resource) (*unstructured.Unstructured, error) {
	if path, ok := findComputed(r.Inputs, "inputs"); ok {
		return nil, fmt.Errorf("%s is %s under synth; every value must be known", path, computedValue)
	}
	b, err := json.Marshal(r.Inputs)
	if err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(b); err != nil {
		return nil, fmt.Errorf("inputs are not a Kubernetes object (add %s to skippedTypes if it stands for a third-party install): %w", r.Type, err)
	}
	if obj.GetName() == "" {
		return nil, errors.New("inputs have no metadata.name")
	}
	return obj, nil
}

// findComputed returns the path of the first value in v that synth recorded as unknown.
func findComputed(v any, path string) (string, bool) {
	switch val := v.(type) {
	case string:
		return path, val == computedValue
	case map[string]any:
		keys := make([]string, 0, len(val))
		for k := range val {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if p, ok := findComputed(val[k], path+"."+k); ok {
				return p, true
			}
		}
	case []any:
		for i, e := range val {
			if p, ok := findComputed(e, fmt.Sprintf("%s[%d]", path, i)); ok {
				return p, true
			}
		}
	}
	return "", false
}

// applyRank orders objects that do not depend on each other: Namespaces, then
// CustomResourceDefinitions, then the other cluster-scoped kinds (PriorityClass,
// StorageClass, ResourceFlavor, Cohort, ClusterQueue, WorkloadPriorityClass, ...), then
// namespaced objects. Kinds the server does not know rank last, so that their
// rejection names them.
func applyRank(mapper meta.RESTMapper, obj *unstructured.Unstructured) int {
	gvk := obj.GroupVersionKind()
	switch {
	case gvk.Group == "" && gvk.Kind == "Namespace":
		return 0
	case gvk.Group == "apiextensions.k8s.io" && gvk.Kind == "CustomResourceDefinition":
		return 1
	}
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return 4
	}
	if m.Scope.Name() == meta.RESTScopeNameRoot {
		return 2
	}
	return 3
}

// applyOrder sorts objs in dependency order: an object comes after every object it
// depends on (DependsOn, where a component stands for all the objects below it), and
// among objects whose dependencies are applied, by applyRank and then URN.
func applyOrder(s *rules.Stack, objs []stackObject, mapper meta.RESTMapper) ([]stackObject, error) {
	children := map[string][]string{}
	for _, r := range s.Resources {
		if r.Parent != "" {
			children[r.Parent] = append(children[r.Parent], r.URN)
		}
	}
	index := map[string]int{}
	for i, o := range objs {
		index[o.res.URN] = i
	}
	// objectsOf returns the objects urn stands for: itself, or those below a component.
	var objectsOf func(urn string, out map[int]bool)
	objectsOf = func(urn string, out map[int]bool) {
		if i, ok := index[urn]; ok {
			out[i] = true
			return
		}
		for _, c := range children[urn] {
			objectsOf(c, out)
		}
	}

	rank := make([]int, len(objs))
	blockers := make([]int, len(objs))
	dependents := make([][]int, len(objs))
	for i, o := range objs {
		rank[i] = applyRank(mapper, o.obj)
		deps := map[int]bool{}
		for _, d := range o.res.DependsOn {
			objectsOf(d, deps)
		}
		delete(deps, i)
		blockers[i] = len(deps)
		for d := range deps {
			dependents[d] = append(dependents[d], i)
		}
	}
	less := func(a, b int) bool {
		if rank[a] != rank[b] {
			return rank[a] < rank[b]
		}
		return objs[a].res.URN < objs[b].res.URN
	}
	var ready []int
	for i := range objs {
		if blockers[i] == 0 {
			ready = append(ready, i)
		}
	}
	out := make([]stackObject, 0, len(objs))
	for len(ready) > 0 {
		sort.Slice(ready, func(a, b int) bool { return less(ready[a], ready[b]) })
		next := ready[0]
		ready = ready[1:]
		out = append(out, objs[next])
		for _, d := range dependents[next] {
			if blockers[d]--; blockers[d] == 0 {
				ready = append(ready, d)
			}
		}
	}
	if len(out) != len(objs) {
		return nil, fmt.Errorf("dependency cycle among %d of the stack's objects", len(objs)-len(out))
	}
	return out, nil
}

// goldenObjectCount counts the Kubernetes objects in tests/golden/<stack>.yaml: the
// resources of the Kubernetes provider other than skippedTypes and reads.
func goldenObjectCount(t *testing.T, stack string) int {
	t.Helper()
	root, err := RepoRoot()
	require.NoError(t, err)
	f, err := os.Open(filepath.Join(root, "tests", "golden", stack+".yaml"))
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	n := 0
	for {
		var doc struct {
			Type string `json:"type"`
			Read bool   `json:"read"`
		}
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return n
		}
		require.NoError(t, err, "golden file of stack %s", stack)
		r := rules.Resource{Type: doc.Type}
		if isKubernetes(r) && !skippedTypes[r.Type] && !doc.Read {
			n++
		}
	}
}

// urnType returns the type token of the resource a URN names (the last type of its
// qualified type).
func urnType(urn string) string {
	parts := strings.Split(urn, "::")
	if len(parts) < 4 {
		return ""
	}
	qualified := parts[2]
	return qualified[strings.LastIndex(qualified, "$")+1:]
}

// operatorComponents are the components of workloadComponentPrefix that install an
// operator (KAITO's namespace is a child of its component) rather than run a workload.
var operatorComponents = map[string]bool{workloads.KAITOType: true, workloads.TrainingOperatorType: true}

// isExampleWorkload reports whether o belongs to an example workload of the stack (a
// child of a workload component that is not an operator install): a Job or training job
// that Kueue admits against the teams' quota, a serving Deployment, a KAITO Workspace.
func isExampleWorkload(o stackObject) bool {
	t := urnType(o.res.Parent)
	return strings.HasPrefix(t, workloadComponentPrefix) && !operatorComponents[t]
}

// deleteObjects deletes objs in reverse order (dependents in the background), ignoring
// those already gone, and waits until none of them exists any more: finalizers (Kueue's
// on ClusterQueues and flavors, PVC protection, namespace finalization) have run.
// Namespaces are deleted last, once their objects are gone, so that the namespace
// controller (which looks at a terminating namespace 5 s after its deletion) finds them
// empty rather than waiting again for content that is still finalizing.
func deleteObjects(ctx context.Context, c client.Client, objs []stackObject) error {
	var namespaces, others []stackObject
	for _, o := range objs {
		if o.obj.GroupVersionKind().Group == "" && o.obj.GetKind() == "Namespace" {
			namespaces = append(namespaces, o)
		} else {
			others = append(others, o)
		}
	}
	for _, wave := range [][]stackObject{others, namespaces} {
		if err := deleteAndWait(ctx, c, wave); err != nil {
			return err
		}
	}
	return nil
}

// deleteAndWait deletes objs in reverse order and waits until they are gone. The
// namespaces of third-party installs (install) and patched objects (patch) are left
// in place.
func deleteAndWait(ctx context.Context, c client.Client, objs []stackObject) error {
	objs = slices.DeleteFunc(slices.Clone(objs), func(o stackObject) bool { return o.install || o.patch })
	var errs []error
	for i := len(objs) - 1; i >= 0; i-- {
		err := c.Delete(ctx, objs[i].obj.DeepCopy(), client.PropagationPolicy(metav1.DeletePropagationBackground))
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete %s: %w", objs[i], err))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	remaining := objs
	for {
		var still []stackObject
		for _, o := range remaining {
			err := c.Get(ctx, client.ObjectKeyFromObject(o.obj), o.obj.DeepCopy())
			switch {
			case apierrors.IsNotFound(err):
			case err != nil:
				return fmt.Errorf("get %s: %w", o, err)
			default:
				still = append(still, o)
			}
		}
		if len(still) == 0 {
			return nil
		}
		remaining = still
		select {
		case <-ctx.Done():
			names := make([]string, len(still))
			for i, o := range still {
				names[i] = o.String()
			}
			return fmt.Errorf("still present after delete: %s: %w", strings.Join(names, ", "), ctx.Err())
		case <-time.After(pollEvery):
		}
	}
}
