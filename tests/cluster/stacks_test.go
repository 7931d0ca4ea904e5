package cluster

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/aksml/aksml/tests/synth"
)

// TestStackObjectsAccepted synthesizes every shipped stack under mocks and server-side
// applies each of its Kubernetes objects, in dependency order, to the real API server
// with its admission chain (Kueue's webhooks included). Every object must be accepted,
// and the number applied must equal the Kubernetes objects of the stack's golden file.
//
// Each stack is applied to a clean state: its objects are deleted again (and waited for)
// before the next stack, because the stacks share cluster-scoped names (PriorityClasses,
// StorageClasses with stack-specific, immutable parameters, flavors) and namespaces.
func TestStackObjectsAccepted(t *testing.T) {
	env := testEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	root, err := RepoRoot()
	require.NoError(t, err)
	names, err := synth.Stacks(root)
	require.NoError(t, err)
	require.NotEmpty(t, names, "no Pulumi.<stack>.yaml in %s", root)

	for _, stack := range names {
		t.Run(stack, func(t *testing.T) {
			s := desiredState(t, stack)
			objs, skipped, err := stackObjects(s)
			require.NoError(t, err)
			objs, err = applyOrder(s, objs, env.Client.RESTMapper())
			require.NoError(t, err)
			t.Logf("%s: skipped %d resources that are not objects of the stack (third-party installs and the provider): %s", stack, total(skipped), formatCounts(skipped))

			var applied []stackObject
			defer func() {
				// The next stack starts from a clean state: its cluster-scoped objects
				// (StorageClasses with stack-specific parameters, which are immutable)
				// and namespaces share names with this one's.
				start := time.Now()
				dctx, dcancel := context.WithTimeout(context.Background(), time.Minute)
				defer dcancel()
				require.NoError(t, deleteObjects(dctx, env.Client, applied), "clean up stack %s", stack)
				t.Logf("%s: deleted the %d objects again in %s", stack, len(applied), time.Since(start).Round(time.Millisecond))
			}()
			// Namespaces that only a skipped third-party install creates (the
			// training operator's kustomize directory creates kubeflow) are
			// created here, outside the count, so the stack's own objects in
			// them (the platform NetworkPolicies) can be applied.
			for _, ns := range thirdPartyNamespaces(objs) {
				nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
				err := env.Client.Create(ctx, nsObj)
				if apierrors.IsAlreadyExists(err) {
					continue // the test environment has it (kueue-system)
				}
				require.NoError(t, err, "namespace %s of a skipped install", ns)
				defer func() { _ = env.Client.Delete(context.Background(), nsObj) }()
			}
			kinds := map[string]int{}
			for _, o := range objs {
				if err := env.Apply(ctx, o.obj.DeepCopy()); err != nil {
					t.Errorf("%s: the API server rejected %s: %v", stack, o, err)
					continue
				}
				applied = append(applied, o)
				kinds[o.obj.GetKind()]++
			}
			want := goldenObjectCount(t, stack)
			assert.Equal(t, want, len(applied), "objects applied for stack %s vs Kubernetes objects in tests/golden/%s.yaml", stack, stack)
			t.Logf("%s: applied %d objects (golden file: %d): %s", stack, len(applied), want, formatCounts(kinds))
		})
	}
}

// total sums counts.
func total(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// formatCounts renders counts as "key×n, ..." sorted by key.
func formatCounts(counts map[string]int) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s×%d", k, counts[k])
	}
	return strings.Join(parts, ", ")
}

// thirdPartyNamespaces lists the namespaces the stack's objects live in that
// no object of the stack creates: those of the third-party installs
// stackObjects skips (Helm charts, kustomize directories).
func thirdPartyNamespaces(objs []stackObject) []string {
	created := map[string]bool{"default": true, "kube-system": true, "kube-public": true}
	for _, o := range objs {
		if o.obj.GetKind() == "Namespace" {
			created[o.obj.GetName()] = true
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, o := range objs {
		ns := o.obj.GetNamespace()
		if ns != "" && !created[ns] && !seen[ns] {
			seen[ns] = true
			out = append(out, ns)
		}
	}
	sort.Strings(out)
	return out
}
