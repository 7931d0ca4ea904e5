package stacks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/workloads"
)

// TestKAITOInstallRunsWorkspaceOnItsPool is the compliant case of the
// aksml:kaito.install checks (the violating ones are in TestParseInvalid):
// a Workspace whose instanceType is a regular pool's size is accepted, and
// its labelSelector selects that pool's nodes, not labels only KAITO's
// node provisioner would put on nodes it creates.
func TestKAITOInstallRunsWorkspaceOnItsPool(t *testing.T) {
	tree := baseTree(t)
	tree["kaito"] = map[string]any{"install": true}
	w := kaitoWorkload()
	w["instanceType"] = "Standard_NC4as_T4_v3"
	tree["workloads"] = []any{w}
	at(tree, "teams", 0)["podSecurity"] = "baseline"
	c, err := Parse("dev", rawConfig(t, tree))
	require.NoError(t, err)
	a, ok := c.buildWorkload(c.Workloads[0], nil, nil).(*workloads.FineTuningWorkspaceArgs)
	require.True(t, ok)
	assert.Equal(t, map[string]string{gpupool.AgentPoolLabel: "t4"}, a.NodeLabels)
}

// TestKAITOWithoutInstallKeepsDefaultSelector: without aksml:kaito.install
// (an existing cluster running KAITO) the Workspace keeps the component's
// default selector, as before.
func TestKAITOWithoutInstallKeepsDefaultSelector(t *testing.T) {
	tree := baseTree(t)
	delete(tree, "cluster")
	tree["existingCluster"] = map[string]any{"context": "kind", "installed": []any{"kaito"}}
	tree["workloads"] = []any{kaitoWorkload()}
	at(tree, "teams", 0)["podSecurity"] = "baseline"
	c, err := Parse("dev", rawConfig(t, tree))
	require.NoError(t, err)
	a := c.buildWorkload(c.Workloads[0], nil, nil).(*workloads.FineTuningWorkspaceArgs)
	assert.Equal(t, map[string]string{workloads.WorkspaceSelectorLabel: "phi"}, a.NodeLabels)
}

func inferenceWorkspaceWorkload() map[string]any {
	return map[string]any{"kind": "InferenceWorkspace", "name": "phi-serve", "team": "team-a", "instanceType": "Standard_NC4as_T4_v3", "preset": "phi-3-mini-4k-instruct"}
}

// kaitoTree is the base config with aksml:kaito.install, a serving T4
// pool and a MIG pool team-a lists, an H100 pool only team-b lists, and
// the workloads ws.
func kaitoTree(t *testing.T, ws ...map[string]any) map[string]any {
	tree := baseTree(t)
	tree["kaito"] = map[string]any{"install": true}
	tree["gpuPools"] = append(tree["gpuPools"].([]any),
		map[string]any{"name": "t4serve", "vmSize": "Standard_NC4as_T4_v3", "workload": "inference", "maxCount": 2},
		map[string]any{"name": "a100mig", "vmSize": "Standard_NC24ads_A100_v4", "workload": "training", "maxCount": 1, "mig": map[string]any{"strategy": "Mixed", "profile": "MIG1g"}},
		map[string]any{"name": "h100", "vmSize": "Standard_NC40ads_H100_v5", "workload": "inference", "maxCount": 1})
	at(tree, "teams", 0)["gpuQuota"] = map[string]any{"t4": 1, "a100spot": 2, "t4serve": 2, "a100mig": 2}
	at(tree, "teams", 0)["podSecurity"] = "baseline"
	at(tree, "teams", 1)["gpuQuota"] = map[string]any{"t4": 1, "a100spot": 2, "h100": 1}
	var list []any
	for _, w := range ws {
		list = append(list, w)
	}
	tree["workloads"] = list
	return tree
}

// TestInferenceWorkspaceOnItsServingPool: an InferenceWorkspace of a T4
// size runs on the team's regular inference pool of that size (t4serve,
// preferred over the training pool t4), selected by its agentpool label,
// with the count asked for; a FineTuningWorkspace of the same size keeps
// the first pool (t4).
func TestInferenceWorkspaceOnItsServingPool(t *testing.T) {
	w := inferenceWorkspaceWorkload()
	w["count"] = 2
	c, err := Parse("dev", rawConfig(t, kaitoTree(t, w, kaitoWorkloadOn("Standard_NC4as_T4_v3"))))
	require.NoError(t, err)
	a, ok := c.buildWorkload(c.Workloads[0], nil, nil).(*workloads.InferenceWorkspaceArgs)
	require.True(t, ok)
	assert.Equal(t, map[string]string{gpupool.AgentPoolLabel: "t4serve"}, a.NodeLabels)
	assert.Equal(t, 2, a.Count)
	assert.Equal(t, "phi-3-mini-4k-instruct", a.Preset)
	ft := c.buildWorkload(c.Workloads[1], nil, nil).(*workloads.FineTuningWorkspaceArgs)
	assert.Equal(t, map[string]string{gpupool.AgentPoolLabel: "t4"}, ft.NodeLabels)
}

func kaitoWorkloadOn(vmSize string) map[string]any {
	w := kaitoWorkload()
	w["instanceType"] = vmSize
	return w
}

// TestInferenceWorkspaceRefusedWherePoolsDoNot: every way the pools refuse
// a Workspace is an error naming the workload's key, all of them at once.
func TestInferenceWorkspaceRefusedWherePoolsDoNot(t *testing.T) {
	on := func(vmSize string, edit func(map[string]any)) map[string]any {
		w := inferenceWorkspaceWorkload()
		w["instanceType"] = vmSize
		if edit != nil {
			edit(w)
		}
		return w
	}
	tests := []struct {
		name    string
		w       map[string]any
		wantErr string
	}{
		{"size only on a MIG pool and a spot pool", on("Standard_NC24ads_A100_v4", nil), "aksml:workloads[0].instanceType: Standard_NC24ads_A100_v4 is the VM size of MIG pool(s) [a100mig] only"},
		{"size in no pool", on("Standard_NC8as_T4_v3", nil), "aksml:workloads[0].instanceType: Standard_NC8as_T4_v3 is not the VM size of any pool in aksml:gpuPools"},
		{"pool the team does not list", on("Standard_NC40ads_H100_v5", nil), `aksml:workloads[0].instanceType: Standard_NC40ads_H100_v5 is the VM size of pool(s) [h100], which team "team-a" does not list in its gpuQuota`},
		{"more nodes than the pool has", on("Standard_NC4as_T4_v3", func(w map[string]any) { w["count"] = 3 }), `aksml:workloads[0].count: 3 node(s), but pool "t4serve" has at most 2 (aksml:gpuPools[2].maxCount)`},
		{"malformed preset", on("Standard_NC4as_T4_v3", func(w map[string]any) { w["preset"] = "Phi 3" }), `aksml:workloads[0].preset: "Phi 3" is not a KAITO preset name`},
		{"field of another kind", on("Standard_NC4as_T4_v3", func(w map[string]any) { w["image"] = "busybox:1.36" }), "aksml:workloads[0].image: not a field of kind InferenceWorkspace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("dev", rawConfig(t, kaitoTree(t, tt.w)))
			require.Error(t, err)
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
	t.Run("every problem at once", func(t *testing.T) {
		tree := kaitoTree(t, on("Standard_NC40ads_H100_v5", func(w map[string]any) { w["preset"] = "org/-bad" }), on("Standard_NC4as_T4_v3", func(w map[string]any) { w["count"], w["name"] = 5, "big" }))
		_, err := Parse("dev", rawConfig(t, tree))
		require.Error(t, err)
		for _, want := range []string{"aksml:workloads[0].instanceType: Standard_NC40ads_H100_v5", "aksml:workloads[0].preset:", "aksml:workloads[1].count: 5 node(s)"} {
			assert.ErrorContains(t, err, want)
		}
	})
	t.Run("spot only", func(t *testing.T) {
		tree := kaitoTree(t, on("Standard_NC24ads_A100_v4", nil))
		tree["gpuPools"] = tree["gpuPools"].([]any)[:3]
		delete(at(tree, "teams", 0)["gpuQuota"].(map[string]any), "a100mig")
		_, err := Parse("dev", rawConfig(t, tree))
		assert.ErrorContains(t, err, "aksml:workloads[0].instanceType: Standard_NC24ads_A100_v4 is the VM size of spot pool(s) [a100spot] only")
	})
	t.Run("team at Pod Security restricted", func(t *testing.T) {
		tree := kaitoTree(t, inferenceWorkspaceWorkload())
		delete(at(tree, "teams", 0), "podSecurity")
		_, err := Parse("dev", rawConfig(t, tree))
		assert.ErrorContains(t, err, `aksml:workloads[0].team: team "team-a" enforces Pod Security restricted, which refuses every pod KAITO creates (KAITO sets no securityContext); set aksml:teams[0].podSecurity: baseline`)
	})
	t.Run("without KAITO", func(t *testing.T) {
		tree := kaitoTree(t, inferenceWorkspaceWorkload())
		delete(tree, "kaito")
		_, err := Parse("dev", rawConfig(t, tree))
		assert.ErrorContains(t, err, "aksml:workloads[0].kind: InferenceWorkspace needs the KAITO operator (kaito.sh Workspace CRD), which nothing in this stack provides")
	})
}
