package stacks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// indexedWorkload is a valid IndexedJob on the base config's t4 pool.
func indexedWorkload() map[string]any {
	return map[string]any{"kind": "IndexedJob", "name": "shards", "team": "team-a", "pool": "t4", "image": "busybox:1.36",
		"resources": map[string]any{"cpu": "3", "memory": "16Gi", "gpus": 1}, "completions": 4, "parallelism": 1}
}

// TestWorkloadKindsOwnTheirSchema checks that each kind decodes its own
// fields and that a field of another kind is an error naming its key path,
// not a field silently dropped.
func TestWorkloadKindsOwnTheirSchema(t *testing.T) {
	tree := baseTree(t)
	tree["workloads"] = []any{indexedWorkload()}
	c, err := Parse("dev", rawConfig(t, tree))
	require.NoError(t, err)
	cfg, ok := c.Workloads[0].Config.(*indexedJobConfig)
	require.True(t, ok)
	assert.Equal(t, 1, cfg.Parallelism, "parallelism reaches the IndexedJob")
	assert.Equal(t, 4, cfg.Completions)

	tests := []struct {
		name   string
		mutate func(w map[string]any)
		want   []string
	}{
		{"field of another kind", func(w map[string]any) { w["kind"], w["replicas"] = "PyTorchJob", 2 },
			[]string{"aksml:workloads[0].parallelism: not a field of kind PyTorchJob; remove it, or use a kind that takes it (IndexedJob). Fields of PyTorchJob are", "aksml:workloads[0].completions: not a field of kind PyTorchJob"}},
		{"pool on a CPU kind", func(w map[string]any) {
			w["kind"] = "ScheduledScoring"
			delete(w, "completions")
			delete(w, "parallelism")
		},
			[]string{"aksml:workloads[0].pool: not a field of kind ScheduledScoring; remove it, or use a kind that takes it (CheckpointedJob, IndexedJob, InferenceServer, MIGTrial, PyTorchJob, TFJob)"}},
		{"typo in a field of the kind", func(w map[string]any) { w["completion"] = 4; delete(w, "completions") },
			[]string{`aksml:workloads[0].completion: unknown field (did you mean "completions"?); valid fields of IndexedJob are`}},
		{"container field on KAITO", func(w map[string]any) {
			for k, v := range kaitoWorkload() {
				w[k] = v
			}
			delete(w, "completions")
			delete(w, "parallelism")
			delete(w, "pool")
		}, []string{"aksml:workloads[0].image: not a field of kind FineTuningWorkspace", "aksml:workloads[0].resources: not a field of kind FineTuningWorkspace"}},
		{"no kind", func(w map[string]any) { delete(w, "kind") }, []string{"aksml:workloads[0].kind: is required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree := baseTree(t)
			w := indexedWorkload()
			tt.mutate(w)
			tree["workloads"] = []any{w}
			_, err := Parse("dev", rawConfig(t, tree))
			require.Error(t, err)
			for _, want := range tt.want {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}

// TestEveryKindRegistered checks that every kind constant is registered
// once and builds, and that a second registration of a kind is refused.
func TestEveryKindRegistered(t *testing.T) {
	seen := map[WorkloadKind]bool{}
	for _, k := range workloadKinds {
		assert.False(t, seen[k.kind], "%s registered twice", k.kind)
		seen[k.kind] = true
		assert.NotNil(t, k.config())
		assert.NotNil(t, k.build)
		assert.NotNil(t, k.register)
	}
	for _, k := range []WorkloadKind{KindCheckpointedJob, KindIndexedJob, KindScheduledScoring, KindPyTorchJob, KindTFJob, KindFineTuningWorkspace, KindInferenceWorkspace, KindMIGTrial, KindInferenceServer} {
		assert.True(t, seen[k], "%s is not registered", k)
	}
	assert.PanicsWithValue(t, "stacks: workload kind IndexedJob registered twice", func() { registerKind(&workloadKind{kind: KindIndexedJob}) })
	assert.Len(t, workloadKinds, len(seen), "the refused registration is not added")
}

// TestKindZeroDefaults: a zero written at a key is refused where the kind's
// registration says its component replaces it (the container keys for
// every container kind), and left to the kind's own checks elsewhere.
func TestKindZeroDefaults(t *testing.T) {
	const honour = "which aksml does not honour"
	tests := []struct {
		name     string
		workload map[string]any
		want     string // the path of the refused zero, or "" for none
	}{
		{"MIGTrial defaults its resources", map[string]any{"kind": "MIGTrial", "resources": map[string]any{"cpu": ""}}, "aksml:workloads[0].resources.cpu"},
		{"IndexedJob requires its resources", map[string]any{"kind": "IndexedJob", "resources": map[string]any{"cpu": ""}, "completions": 2}, ""},
		{"a Training Operator kind's replica count", map[string]any{"kind": "PyTorchJob", "replicas": 0}, "aksml:workloads[0].replicas"},
		{"a Training Operator kind's NCCL", map[string]any{"kind": "TFJob", "nccl": map[string]any{"debug": ""}}, "aksml:workloads[0].nccl.debug"},
		{"a container kind's priority", map[string]any{"kind": "ScheduledScoring", "priority": ""}, "aksml:workloads[0].priority"},
		{"the kind's own key", map[string]any{"kind": "ScheduledScoring", "schedule": ""}, "aksml:workloads[0].schedule"},
		{"another kind's key", map[string]any{"kind": "ScheduledScoring", "parallelism": 0}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := map[string]any{"name": "w", "team": "team-a", "image": "busybox:1.36", "resources": map[string]any{"cpu": "1", "memory": "2Gi"}}
			for k, v := range tt.workload {
				w[k] = v
			}
			tree := baseTree(t)
			tree["workloads"] = []any{w}
			_, err := Parse("dev", rawConfig(t, tree))
			require.Error(t, err)
			if tt.want == "" {
				assert.NotContains(t, err.Error(), honour)
				return
			}
			assert.Contains(t, err.Error(), tt.want+": is written as")
			assert.Contains(t, err.Error(), honour)
		})
	}
}
