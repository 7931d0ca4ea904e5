package tests

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/stacks"
)

// devTree returns the dev stack's config with the structured values decoded,
// so that a case can change one key.
func devTree(t *testing.T) map[string]any {
	t.Helper()
	raw, err := synth.ReadStackConfig(projectDir, "dev")
	require.NoError(t, err)
	tree := map[string]any{}
	for k, v := range raw {
		var decoded any
		if json.Unmarshal([]byte(v), &decoded) == nil {
			if _, structured := decoded.(map[string]any); structured {
				tree[k] = decoded
				continue
			}
			if _, structured := decoded.([]any); structured {
				tree[k] = decoded
				continue
			}
		}
		tree[k] = v
	}
	return tree
}

// encode renders a config tree the way the Pulumi CLI passes it.
func encode(t *testing.T, tree map[string]any) map[string]string {
	t.Helper()
	raw := map[string]string{}
	for k, v := range tree {
		if s, ok := v.(string); ok {
			raw[k] = s
			continue
		}
		b, err := json.Marshal(v)
		require.NoError(t, err)
		raw[k] = string(b)
	}
	return raw
}

func team(tree map[string]any, i int) map[string]any {
	return tree["aksml:teams"].([]any)[i].(map[string]any)
}

func scheduler(tree map[string]any) map[string]any {
	return tree["aksml:scheduler"].(map[string]any)
}

func workload(tree map[string]any, i int) map[string]any {
	return tree["aksml:workloads"].([]any)[i].(map[string]any)
}

// TestKueuePolicyKeys covers every Kueue policy key (preemption, priorities,
// lending-only members, cpu and memory limits, fair sharing, workload
// priority): a valid setting deploys, and each invalid one is rejected at
// preview naming its key, with no resource registered.
func TestKueuePolicyKeys(t *testing.T) {
	cases := []struct {
		name    string
		mutate  func(map[string]any)
		wantErr []string // nil: valid
	}{
		{name: "every key set validly", mutate: func(m map[string]any) {
			team(m, 0)["preemption"] = map[string]any{"withinClusterQueue": "LowerOrNewerEqualPriority", "reclaimWithinCohort": "LowerPriority",
				"borrowWithinCohort": map[string]any{"policy": "LowerPriority", "maxPriorityThreshold": 10000}}
			team(m, 0)["cpuBorrowingLimit"], team(m, 0)["cpuLendingLimit"] = "8", "16"
			team(m, 0)["memoryBorrowingLimit"], team(m, 0)["memoryLendingLimit"] = "32Gi", "64Gi"
			scheduler(m)["fairSharing"] = false
			delete(team(m, 0), "weight") // Kueue reads the weight only under fair sharing
			scheduler(m)["priorities"] = []any{
				map[string]any{"name": "training-batch", "value": 10000, "preemptionPolicy": "Never"},
				map[string]any{"name": "research-high", "value": 50000},
			}
			scheduler(m)["lenders"] = []any{map[string]any{"name": "shared", "gpuQuota": map[string]any{"t4spot": 0}, "cpu": "8", "memory": "32Gi"}}
			workload(m, 0)["priority"] = "research-high"
		}},
		{name: "preemption", mutate: func(m map[string]any) {
			team(m, 0)["preemption"] = map[string]any{"withinClusterQueue": "Any", "reclaimWithinCohort": "Sometimes"}
			team(m, 1)["preemption"] = map[string]any{"borrowWithinCohort": map[string]any{"policy": "LowerPriority"}}
		}, wantErr: []string{
			`aksml:teams[0].preemption.withinClusterQueue: "Any" is not supported`,
			`aksml:teams[0].preemption.reclaimWithinCohort: "Sometimes" is not supported`,
			"aksml:teams[1].preemption.borrowWithinCohort.policy: Kueue ignores borrowWithinCohort under fair sharing",
		}},
		{name: "maxPriorityThreshold", mutate: func(m map[string]any) {
			team(m, 0)["preemption"] = map[string]any{"borrowWithinCohort": map[string]any{"maxPriorityThreshold": 100}}
		}, wantErr: []string{"aksml:teams[0].preemption.borrowWithinCohort.maxPriorityThreshold: only applies with policy LowerPriority"}},
		{name: "preemption typo", mutate: func(m map[string]any) {
			team(m, 0)["preemption"] = map[string]any{"reclaimWithinCohorts": "Any"}
		}, wantErr: []string{`aksml:teams[0].preemption.reclaimWithinCohorts: unknown field (did you mean "reclaimWithinCohort"?)`}},
		{name: "cpu and memory limits", mutate: func(m map[string]any) {
			team(m, 1)["cpuBorrowingLimit"], team(m, 1)["cpuLendingLimit"] = "many", "17"
			team(m, 1)["memoryBorrowingLimit"], team(m, 1)["memoryLendingLimit"] = "1m", "65Gi"
		}, wantErr: []string{
			`aksml:teams[1].cpuBorrowingLimit: "many" is not a Kubernetes quantity`,
			"aksml:teams[1].cpuLendingLimit: 17 exceeds the team's nominal cpu quota (16)",
			`aksml:teams[1].memoryBorrowingLimit: "1m" is in millibytes`,
			"aksml:teams[1].memoryLendingLimit: 65Gi exceeds the team's nominal memory quota (64Gi)",
		}},
		{name: "fairSharing not a boolean", mutate: func(m map[string]any) { scheduler(m)["fairSharing"] = "yes" }, wantErr: []string{
			`aksml:scheduler.fairSharing: must be true or false`,
		}},
		{name: "priorities", mutate: func(m map[string]any) {
			scheduler(m)["priorities"] = []any{
				map[string]any{"name": "training-batch", "value": 10000, "preemptionPolicy": "Sometimes"},
				map[string]any{"name": "training-batch", "value": 2000000000},
			}
		}, wantErr: []string{
			`aksml:scheduler.priorities[0].preemptionPolicy: "Sometimes" is not supported`,
			`aksml:scheduler.priorities[1].name: "training-batch" is already defined at aksml:scheduler.priorities[0]`,
			"aksml:scheduler.priorities[1].value: 2000000000 is out of range",
		}},
		{name: "workload names an unknown priority", mutate: func(m map[string]any) {
			workload(m, 0)["priority"] = "urgent"
		}, wantErr: []string{
			`aksml:workloads[0].priority: "urgent" is not a level of aksml:scheduler.priorities; use one of training-batch, inference-critical`,
		}},
		{name: "priority on a FineTuningWorkspace", mutate: func(m map[string]any) {
			// A FineTuningWorkspace after the shipped workloads.
			m["aksml:workloads"] = append(m["aksml:workloads"].([]any), map[string]any{
				"kind": "FineTuningWorkspace", "name": "qlora", "team": "team-a", "priority": "inference-critical",
				"instanceType": "Standard_NC24ads_A100_v4", "preset": "phi-3-mini-4k-instruct",
				"inputURLs":   []any{"https://huggingface.co/datasets/yahma/alpaca-cleaned/resolve/main/alpaca_data_cleaned.json"},
				"outputImage": "myregistry.azurecr.io/adapters/phi-3-mini-qlora:v1", "outputImagePushSecret": "acr-push",
			})
		}, wantErr: []string{
			"].priority: not a field of kind FineTuningWorkspace; remove it",
		}},
		{name: "default priority not defined", mutate: func(m map[string]any) {
			scheduler(m)["priorities"] = []any{map[string]any{"name": "low", "value": 1}}
		}, wantErr: []string{`aksml:workloads[0].priority: is required: a priority level: the default "training-batch" is not in aksml:scheduler.priorities; use one of low`}},
		{name: "lenders", mutate: func(m map[string]any) {
			scheduler(m)["lenders"] = []any{
				map[string]any{"name": "team-a", "gpuQuota": map[string]any{"t4": 1}},
				map[string]any{"name": "pool", "gpuQuota": map[string]any{"h100": 1}},
				map[string]any{"name": "empty"},
			}
		}, wantErr: []string{
			`aksml:scheduler.lenders[0].name: "team-a" is the name of team aksml:teams[0]`,
			`aksml:scheduler.lenders[1].gpuQuota["h100"]: pool "h100" is not in aksml:gpuPools`,
			"aksml:scheduler.lenders[2]: is required: capacity to lend",
			`aksml:teams: nominal nvidia.com/gpu quota on pool "t4" is 3 (team-a 1, team-b 1, lender team-a 1) but the pool holds 2 GPUs`,
		}},
		{name: "kueue policy keys under volcano", mutate: func(m map[string]any) {
			scheduler(m)["system"] = "volcano"
			scheduler(m)["fairSharing"] = true
			scheduler(m)["lenders"] = []any{map[string]any{"name": "shared", "cpu": "1"}}
			team(m, 0)["preemption"] = map[string]any{"reclaimWithinCohort": "Never"}
			team(m, 0)["cpuBorrowingLimit"] = "1"
		}, wantErr: []string{
			"aksml:scheduler.fairSharing: is a kueue setting",
			"aksml:scheduler.lenders: is a kueue setting",
			"aksml:teams[0].preemption: is a kueue setting",
			"aksml:teams[0].cpuBorrowingLimit: is a kueue setting",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tree := devTree(t)
			tc.mutate(tree)
			st, err := synth.Run("dev", "dev", encode(t, tree), stacks.Program)
			if tc.wantErr == nil {
				require.NoError(t, err)
				assert.NotEmpty(t, st.Resources)
				return
			}
			require.Error(t, err)
			for _, want := range tc.wantErr {
				assert.Contains(t, err.Error(), want)
			}
			assert.Empty(t, st.Resources, "a rejected config registers no resources")
		})
	}
}

// TestWorkloadPriorityReachesPodsAndQueue: a workload's priority level is its
// pods' PriorityClass and its Workload's WorkloadPriorityClass, and each
// level exists as both.
func TestWorkloadPriorityReachesPodsAndQueue(t *testing.T) {
	tree := devTree(t)
	scheduler(tree)["priorities"] = []any{
		map[string]any{"name": "training-batch", "value": 10000, "preemptionPolicy": "Never"},
		map[string]any{"name": "research-high", "value": 50000},
	}
	workload(tree, 0)["priority"] = "research-high"
	st, err := synth.Run("dev", "dev", encode(t, tree), stacks.Program)
	require.NoError(t, err)

	var job map[string]any
	for _, r := range byType(st, "batch/v1:Job") {
		if r.Get("metadata.name") == "resnet-finetune" {
			job = r.Inputs
		}
	}
	require.NotNil(t, job, "no Job resnet-finetune")
	labels := job["metadata"].(map[string]any)["labels"].(map[string]any)
	assert.Equal(t, "research-high", labels["kueue.x-k8s.io/priority-class"])
	podSpec := job["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	assert.Equal(t, "research-high", podSpec["priorityClassName"])

	for _, kind := range []string{"scheduling.k8s.io/v1:PriorityClass", "kueue.x-k8s.io/v1beta2:WorkloadPriorityClass"} {
		var names []any
		for _, r := range byType(st, kind) {
			names = append(names, r.Get("metadata.name"))
		}
		assert.ElementsMatch(t, []any{"training-batch", "research-high"}, names, kind)
	}
}
