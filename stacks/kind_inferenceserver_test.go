package stacks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/workloads"
)

// servingTree is the base config with a Regular inference pool, team-a
// declared serving with quota on it, and a vLLM InferenceServer there.
func servingTree(t *testing.T) map[string]any {
	tree := baseTree(t)
	tree["gpuPools"] = append(tree["gpuPools"].([]any), map[string]any{"name": "serve", "vmSize": "Standard_NC4as_T4_v3", "workload": "inference", "maxCount": 2})
	teamA := at(tree, "teams", 0)
	teamA["serving"] = true
	teamA["gpuQuota"].(map[string]any)["serve"] = 2
	tree["workloads"] = []any{map[string]any{
		"kind": "InferenceServer", "name": "chat", "team": "team-a", "pool": "serve", "image": "vllm/vllm-openai:v0.8.5",
		"args": []any{"--model", "/models/qwen2.5-1.5b-instruct"}, "resources": map[string]any{"cpu": "3", "memory": "16Gi", "gpus": 1},
	}}
	return tree
}

func TestInferenceServerKind(t *testing.T) {
	c, err := Parse("dev", rawConfig(t, servingTree(t)))
	require.NoError(t, err)
	assert.True(t, c.Teams[0].Serving, "aksml:teams[].serving decodes")
	a := c.buildWorkload(c.Workloads[0], nil, nil).(*workloads.InferenceServerArgs)
	assert.Equal(t, workloads.SchedulerNone, a.Scheduler, "the stack's Kueue does not queue a serving Deployment")
	assert.Empty(t, a.QueueName)
	assert.True(t, a.Serving)
	assert.Equal(t, "inference-critical", a.PriorityClass, "a serving team's server gets inference-critical")
	assert.Equal(t, 1, a.MinReplicas, "a dev pool at zero still runs one replica")
	assert.Equal(t, 2, a.MaxReplicas, "two T4 nodes at maxCount")
	assert.Equal(t, workloads.ScalerKEDA, a.Autoscaling.Scaler, "KEDA by default: the cluster runs the add-on and managed Prometheus")
	require.NotNil(t, a.KEDA, "the stack supplies KEDA's source")
	assert.Equal(t, workloads.DefaultKEDATriggerAuthentication, a.KEDA.TriggerAuthentication)

	tests := []struct {
		name   string
		mutate func(tree map[string]any)
		want   []string
	}{
		{"spot pool", func(tree map[string]any) { at(tree, "workloads", 0)["pool"] = "a100spot" },
			[]string{`aksml:workloads[0].pool: pool "a100spot" is a spot pool`}},
		{"training pool", func(tree map[string]any) { at(tree, "workloads", 0)["pool"] = "t4" },
			[]string{`aksml:workloads[0].pool.workload: pool "t4" is for training`}},
		{"inference-critical for a team not serving", func(tree map[string]any) {
			delete(at(tree, "teams", 0), "serving")
			at(tree, "workloads", 0)["priority"] = "inference-critical"
		}, []string{"aksml:workloads[0].priorityClass: inference-critical preempts batch training and is reserved for teams declared serving; declare the team serving (aksml:teams[].serving: true)"}},
		{"more replicas than the namespace quota", func(tree map[string]any) {
			teamA := at(tree, "teams", 0)
			teamA["gpuQuota"], teamA["borrowingLimit"] = map[string]any{"serve": 1}, 0
		}, []string{`aksml:workloads[0].maxReplicas: at most 2 nvidia.com/gpu at once (maxReplicas, plus the replica a rolling update starts`, `but team "team-a"'s namespace ResourceQuota allows 1`}},
		{"the quota holds maxReplicas but not the rollout's surge replica", func(tree map[string]any) {
			teamA := at(tree, "teams", 0)
			teamA["gpuQuota"], teamA["borrowingLimit"] = map[string]any{"serve": 1}, 0
			at(tree, "workloads", 0)["maxReplicas"] = 1
		}, []string{`aksml:workloads[0].maxReplicas: at most 2 nvidia.com/gpu at once (maxReplicas, plus the replica a rolling update starts before stopping an old one while the pool has room for it)`, "lower maxReplicas, or raise aksml:teams[0].gpuQuota.serve"}},
		{"zero replicas written", func(tree map[string]any) { at(tree, "workloads", 0)["minReplicas"] = 0 },
			[]string{"aksml:workloads[0].minReplicas: is written as", "which aksml does not honour"}},
		{"a field of another kind", func(tree map[string]any) { at(tree, "workloads", 0)["completions"] = 2 },
			[]string{"aksml:workloads[0].completions: not a field of kind InferenceServer"}},
		// The scaling signal: KEDA needs the stack's workspace and KEDA
		// identity, which exist only on a cluster aksml creates with
		// observability on.
		{"keda with observability off", func(tree map[string]any) { tree["observability"] = map[string]any{"enabled": false} },
			[]string{"aksml:workloads[0].autoscaling.scaler: keda (the default) reads vllm:num_requests_waiting from the stack's Azure Monitor workspace, and aksml:observability.enabled is false", "autoscaling.scaler: metricsAdapter"}},
		{"keda on an existing cluster", func(tree map[string]any) {
			delete(tree, "cluster")
			tree["existingCluster"] = map[string]any{"context": "kind"}
		}, []string{"aksml:workloads[0].autoscaling.scaler: keda (the default) reads vllm:num_requests_waiting from the Azure Monitor workspace through the AKS KEDA add-on and an identity aksml registers only on a cluster it creates", "set autoscaling.scaler: metricsAdapter"}},
		{"an unknown scaler", func(tree map[string]any) {
			at(tree, "workloads", 0)["autoscaling"] = map[string]any{"scaler": "hpa"}
		}, []string{`aksml:workloads[0].autoscaling.scaler: "hpa" is not supported; use one of "keda", "metricsAdapter"`}},
		{"the scaler written empty", func(tree map[string]any) {
			at(tree, "workloads", 0)["autoscaling"] = map[string]any{"scaler": ""}
		}, []string{"aksml:workloads[0].autoscaling.scaler: is written as", "keda"}},
		{"a quantity as KEDA's threshold, and a metric with a selector", func(tree map[string]any) {
			at(tree, "workloads", 0)["autoscaling"] = map[string]any{"target": "500m", "metric": `up{namespace="team-b"}`}
		}, []string{"aksml:workloads[0].autoscaling.target: \"500m\": KEDA's threshold is a positive decimal number", "aksml:workloads[0].autoscaling.metric"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree := servingTree(t)
			tt.mutate(tree)
			_, err := Parse("dev", rawConfig(t, tree))
			require.Error(t, err)
			for _, want := range tt.want {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}

// TestInferenceServerMetricsAdapter: the explicit metricsAdapter scaler
// needs no workspace, so it is the choice on an existing cluster and with
// observability off, and the server is built without a KEDA source.
func TestInferenceServerMetricsAdapterScaler(t *testing.T) {
	for name, mutate := range map[string]func(map[string]any){
		"observability off": func(tree map[string]any) { tree["observability"] = map[string]any{"enabled": false} },
		"existing cluster": func(tree map[string]any) {
			delete(tree, "cluster")
			tree["existingCluster"] = map[string]any{"context": "kind"}
		},
	} {
		t.Run(name, func(t *testing.T) {
			tree := servingTree(t)
			mutate(tree)
			at(tree, "workloads", 0)["autoscaling"] = map[string]any{"scaler": "metricsAdapter"}
			c, err := Parse("dev", rawConfig(t, tree))
			require.NoError(t, err)
			a := c.buildWorkload(c.Workloads[0], nil, nil).(*workloads.InferenceServerArgs)
			assert.Equal(t, workloads.ScalerMetricsAdapter, a.Autoscaling.Scaler)
			assert.False(t, c.usesKEDA(), "no KEDA identity or ClusterTriggerAuthentication is registered")
		})
	}
}
