package cluster

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/stacks"
)

// TestKueuePolicyKeysAcceptedByKueue renders the dev stack with every Kueue policy key
// set (fair sharing off, each preemption field including borrowWithinCohort's
// maxPriorityThreshold, cpu and memory borrowing and lending limits, a lending-only
// member, custom priority levels, ProvisioningRequest admission checks on two pools) and has the real API server with Kueue's webhooks and
// CRD validation accept the cluster-scoped queueing objects (server-side apply, dry run).
// Two objects that aksml's validation rejects at preview are shown to be rejected by
// Kueue too, so that the preview check is what keeps them from failing mid-update.
func TestKueuePolicyKeysAcceptedByKueue(t *testing.T) {
	env := testEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	root, err := RepoRoot()
	require.NoError(t, err)
	raw, err := synth.ReadStackConfig(root, scenarioStack)
	require.NoError(t, err)
	var teams []map[string]any
	var sched map[string]any
	require.NoError(t, json.Unmarshal([]byte(raw["aksml:teams"]), &teams))
	require.NoError(t, json.Unmarshal([]byte(raw["aksml:scheduler"]), &sched))
	teams[0]["preemption"] = map[string]any{"withinClusterQueue": "LowerOrNewerEqualPriority", "reclaimWithinCohort": "LowerPriority",
		"borrowWithinCohort": map[string]any{"policy": "LowerPriority", "maxPriorityThreshold": 10000}}
	teams[0]["cpuBorrowingLimit"], teams[0]["cpuLendingLimit"] = "8", "16"
	teams[0]["memoryBorrowingLimit"], teams[0]["memoryLendingLimit"] = "32Gi", "64Gi"
	teams[1]["preemption"] = map[string]any{"withinClusterQueue": "Never", "reclaimWithinCohort": "Never"}
	sched["fairSharing"] = false
	for _, tm := range teams {
		delete(tm, "weight") // Kueue reads the weight only under fair sharing (aksml refuses it without)
	}
	sched["cohort"] = "keys"
	sched["priorities"] = []any{
		map[string]any{"name": "keys-batch", "value": 10, "preemptionPolicy": "Never"},
		map[string]any{"name": "training-batch", "value": 10000, "preemptionPolicy": "Never"},
		map[string]any{"name": "keys-urgent", "value": 900000, "description": "Urgent."},
	}
	sched["lenders"] = []any{map[string]any{"name": "keys-shared", "gpuQuota": map[string]any{"t4spot": 0}, "cpu": "8", "memory": "32Gi"}}
	sched["provisioning"] = []any{map[string]any{"pool": "t4"}, map[string]any{"pool": "a100mig", "class": "best-effort-atomic-scale-up.autoscaling.x-k8s.io"}}
	for key, v := range map[string]any{"aksml:teams": teams, "aksml:scheduler": sched} {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		raw[key] = string(b)
	}
	_, err = stacks.Parse("keys", raw)
	require.NoError(t, err)
	s, err := synth.Run("keys", "dev", raw, stacks.Program)
	require.NoError(t, err)
	objs, _, err := stackObjects(s)
	require.NoError(t, err)

	dryRun := func(obj *unstructured.Unstructured) error {
		return env.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj.DeepCopy()),
			client.FieldOwner(FieldManager), client.ForceOwnership, client.DryRunAll)
	}
	kinds := map[string]int{}
	var team0 *unstructured.Unstructured
	for _, o := range objs {
		switch o.obj.GetKind() {
		case "ClusterQueue", "Cohort", "ResourceFlavor", "PriorityClass", "WorkloadPriorityClass", "AdmissionCheck", "ProvisioningRequestConfig":
		default:
			continue
		}
		assert.NoError(t, dryRun(o.obj), "Kueue / the API server rejected %s", o)
		kinds[o.obj.GetKind()]++
		if o.obj.GetKind() == "ClusterQueue" && o.obj.GetName() == "team-a-gpu" {
			team0 = o.obj
		}
	}
	assert.Equal(t, 3, kinds["ClusterQueue"], "two teams and the lending-only member")
	assert.Equal(t, 3, kinds["WorkloadPriorityClass"])
	assert.Equal(t, 3, kinds["PriorityClass"])
	assert.Equal(t, 1, kinds["AdmissionCheck"], "one ProvisioningRequest check for the atomic class")
	assert.Equal(t, 1, kinds["ProvisioningRequestConfig"])
	t.Logf("accepted (dry run): %s", formatCounts(kinds))
	require.NotNil(t, team0)

	// What aksml rejects at preview, Kueue rejects at apply.
	over := team0.DeepCopy()
	groups, _, err := unstructured.NestedSlice(over.Object, "spec", "resourceGroups")
	require.NoError(t, err)
	cpuGroup := groups[len(groups)-1].(map[string]any)
	cpu := cpuGroup["flavors"].([]any)[0].(map[string]any)["resources"].([]any)[0].(map[string]any)
	require.Equal(t, "cpu", cpu["name"])
	cpu["lendingLimit"] = "64"
	cpu["nominalQuota"] = "32"
	require.NoError(t, unstructured.SetNestedSlice(over.Object, groups, "spec", "resourceGroups"))
	err = dryRun(over)
	require.Error(t, err, "lendingLimit above nominalQuota")
	t.Logf("cpu lendingLimit 64 > nominalQuota 32: %v", err)

	never := team0.DeepCopy()
	require.NoError(t, unstructured.SetNestedField(never.Object, "Never", "spec", "preemption", "reclaimWithinCohort"))
	err = dryRun(never)
	require.Error(t, err, "reclaimWithinCohort Never with borrowWithinCohort LowerPriority")
	t.Logf("reclaimWithinCohort Never with borrowWithinCohort LowerPriority: %v", err)
}
