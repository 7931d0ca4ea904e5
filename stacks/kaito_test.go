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
	c, err := Parse("dev", rawConfig(t, tree))
	require.NoError(t, err)
	a := c.buildWorkload(c.Workloads[0], nil, nil).(*workloads.FineTuningWorkspaceArgs)
	assert.Equal(t, map[string]string{workloads.WorkspaceSelectorLabel: "phi"}, a.NodeLabels)
}
