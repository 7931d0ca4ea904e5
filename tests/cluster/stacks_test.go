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

	"github.com/aksml/aksml/internal/synth"
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
			kinds := map[string]int{}
			for _, o := range objs {
				if err := env.Apply(ctx, o.obj.DeepCopy()); err != nil {
					t.Errorf("%s: the API server rejected %s: %v", stack, o, err)
					continue
				}
				applied = append(applied, o)
				if !o.install {
					kinds[o.obj.GetKind()]++
				}
			}
			want := goldenObjectCount(t, stack)
			assert.Equal(t, want, total(kinds), "objects applied for stack %s vs Kubernetes objects in tests/golden/%s.yaml", stack, stack)
			t.Logf("%s: applied %d objects (golden file: %d): %s", stack, total(kinds), want, formatCounts(kinds))
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
