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
			[]string{"aksml:workloads[0].pool: not a field of kind ScheduledScoring; remove it, or use a kind that takes it (CheckpointedJob, IndexedJob, PyTorchJob, TFJob, MIGTrial, InferenceServer)"}},
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
// once and builds.
func TestEveryKindRegistered(t *testing.T) {
	seen := map[WorkloadKind]bool{}
	for _, k := range workloadKinds {
		assert.False(t, seen[k.kind], "%s registered twice", k.kind)
		seen[k.kind] = true
		assert.NotNil(t, k.config())
		assert.NotNil(t, k.build)
		assert.NotNil(t, k.register)
	}
	for _, k := range []WorkloadKind{KindCheckpointedJob, KindIndexedJob, KindScheduledScoring, KindPyTorchJob, KindTFJob, KindFineTuningWorkspace, KindMIGTrial, KindInferenceServer} {
		assert.True(t, seen[k], "%s is not registered", k)
	}
}
