package cluster

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/stacks"
)

// TestNonePoolsStackAccepted applies, on a cluster without the dev stack's objects, every
// object of the dev stack with all GPU pools switched to gpuStack None (bring your own GPU
// stack): nothing then creates the gpustack namespace, and the API server must accept
// every object (issue 17: the DCGM PodMonitor used to be sent to that namespace).
func TestNonePoolsStackAccepted(t *testing.T) {
	env := testEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// Start from a clean state, as TestStackObjectsAccepted does between stacks: the
	// dev stack's objects (applied by the Kueue scenarios) share names with these.
	dev := desiredState(t, scenarioStack)
	devObjs, _, err := stackObjects(dev)
	require.NoError(t, err)
	require.NoError(t, deleteObjects(ctx, env.Client, devObjs), "remove the dev stack's objects")

	root, err := RepoRoot()
	require.NoError(t, err)
	raw, err := synth.ReadStackConfig(root, scenarioStack)
	require.NoError(t, err)
	// Every pool None; MIG pools (whose layouts gpustack still publishes, creating its
	// namespace) and the work on them are left out, so that nothing creates the
	// namespace.
	var pools, teams, workloadList []map[string]any
	require.NoError(t, json.Unmarshal([]byte(raw["aksml:gpuPools"]), &pools))
	require.NoError(t, json.Unmarshal([]byte(raw["aksml:teams"]), &teams))
	require.NoError(t, json.Unmarshal([]byte(raw["aksml:workloads"]), &workloadList))
	var kept []map[string]any
	for _, p := range pools {
		if p["mig"] != nil {
			for _, team := range teams {
				delete(team["gpuQuota"].(map[string]any), p["name"].(string))
			}
			workloadList = slices.DeleteFunc(workloadList, func(w map[string]any) bool { return w["pool"] == p["name"] })
			continue
		}
		p["gpuStack"] = string(gpupool.GPUStackNone)
		if count, ok := p["count"].(float64); ok {
			// A Managed pool's fixed count becomes the autoscaler's ceiling.
			delete(p, "count")
			p["maxCount"] = max(count, 1)
		}
		kept = append(kept, p)
	}
	require.NotEmpty(t, kept)
	for key, v := range map[string]any{"aksml:gpuPools": kept, "aksml:teams": teams, "aksml:workloads": workloadList} {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		raw[key] = string(b)
	}
	cfg, err := stacks.Parse("none-pools", raw)
	require.NoError(t, err)
	s, err := synth.Run("none-pools", "dev", raw, stacks.Program)
	require.NoError(t, err)

	err = env.Client.Get(ctx, client.ObjectKey{Name: cfg.GPUStack.Namespace}, &corev1.Namespace{})
	require.True(t, apierrors.IsNotFound(err), "namespace %s must not exist for this test (err=%v)", cfg.GPUStack.Namespace, err)

	objs, _, err := stackObjects(s)
	require.NoError(t, err)
	objs, err = applyOrder(s, objs, env.Client.RESTMapper())
	require.NoError(t, err)
	var applied []stackObject
	defer func() {
		dctx, dcancel := context.WithTimeout(context.Background(), time.Minute)
		defer dcancel()
		require.NoError(t, deleteObjects(dctx, env.Client, applied), "clean up")
	}()
	t.Cleanup(func() {
		// Nothing else created it either.
		err := env.Client.Get(context.Background(), client.ObjectKey{Name: cfg.GPUStack.Namespace}, &corev1.Namespace{})
		assert.True(t, apierrors.IsNotFound(err), "namespace %s exists (err=%v)", cfg.GPUStack.Namespace, err)
	})
	kinds := map[string]int{}
	for _, o := range objs {
		if err := env.Apply(ctx, o.obj.DeepCopy()); err != nil {
			t.Errorf("the API server rejected %s: %v", o, err)
			continue
		}
		applied = append(applied, o)
		kinds[o.obj.GetKind()]++
		assert.NotEqual(t, cfg.GPUStack.Namespace, o.obj.GetNamespace(), "%s: nothing creates namespace %s with only None pools", o, cfg.GPUStack.Namespace)
	}
	assert.Equal(t, len(objs), len(applied))
	assert.Zero(t, kinds["DaemonSet"], "None pools get no device plugin or exporter from aksml")
	t.Logf("stack with only None pools: applied %d objects: %s", len(applied), formatCounts(kinds))
}
