package cluster

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/aksml/aksml/tests/cluster/dryrun"
)

// TestDryRunFloor: the bench's unthrottled floor (package dryrun) sends every object as a
// server-side apply dry run: accepted objects are validated and nothing is created, and
// an object the API server refuses fails the run, named.
func TestDryRunFloor(t *testing.T) {
	env := testEnv(t)
	ctx := t.Context()
	const ns = "dryrun-floor"
	require.NoError(t, env.Apply(ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns},
	}}))
	var objs []*unstructured.Unstructured
	for i := range 20 {
		objs = append(objs, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": fmt.Sprintf("cm-%d", i), "namespace": ns},
			"data":     map[string]any{"k": "v"},
		}})
	}
	objs = append(objs, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ResourceQuota",
		"metadata": map[string]any{"name": "quota", "namespace": ns},
		"spec":     map[string]any{"hard": map[string]any{"cpu": "4"}},
	}})
	took, err := dryrun.Apply(ctx, env.Config, objs, 4)
	require.NoError(t, err)
	assert.Positive(t, took)
	for _, o := range objs {
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(o.GroupVersionKind())
		err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: o.GetName()}, live)
		assert.True(t, apierrors.IsNotFound(err), "%s %s was created by a dry run: %v", o.GetKind(), o.GetName(), err)
	}

	// Refused by validation (a quantity that does not parse) and by admission (a
	// namespace that does not exist): each fails the run, the first one named.
	bad := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ResourceQuota",
		"metadata": map[string]any{"name": "bad", "namespace": ns},
		"spec":     map[string]any{"hard": map[string]any{"cpu": "lots"}},
	}}
	_, err = dryrun.Apply(ctx, env.Config, append(objs[:3:3], bad), 2)
	require.ErrorContains(t, err, "ResourceQuota "+ns+"/bad")
	missing := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "x", "namespace": "dryrun-floor-missing"},
	}}
	_, err = dryrun.Apply(ctx, env.Config, []*unstructured.Unstructured{missing}, 1)
	require.ErrorContains(t, err, "ConfigMap dryrun-floor-missing/x")
	// A kind the API server does not serve is refused before any request.
	_, err = dryrun.Apply(ctx, env.Config, []*unstructured.Unstructured{{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Nothing", "metadata": map[string]any{"name": "n"},
	}}}, 1)
	require.ErrorContains(t, err, "Nothing")
}
