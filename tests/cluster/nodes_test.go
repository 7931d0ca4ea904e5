package cluster

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/aksml/aksml/stacks"
)

// parsedConfig returns the parsed, defaulted config of a shipped stack.
func parsedConfig(t *testing.T, stack string) *stacks.Config {
	t.Helper()
	root, err := RepoRoot()
	require.NoError(t, err)
	cfg, err := StackConfig(root, stack, t.TempDir())
	require.NoError(t, err)
	return cfg
}

func poolsByName(pools []NodePool) map[string]NodePool {
	m := map[string]NodePool{}
	for _, p := range pools {
		m[p.Name] = p
	}
	return m
}

// TestStackNodePools checks the simulated pools of the dev, prod and local stacks against
// what AKS documents for their nodes. It needs no cluster.
func TestStackNodePools(t *testing.T) {
	dev, err := StackNodePools(desiredState(t, "dev"), parsedConfig(t, "dev"))
	require.NoError(t, err)
	pools := poolsByName(dev)
	require.ElementsMatch(t, []string{"system", "cpu", "t4", "t4spot", "a100mig", "t4mgd", "t4serve"}, keys(pools))
	assert.Equal(t, 0, pools["t4mgd"].Count, "an AKS-managed pool runs exactly its count (dev: 0), it has no autoscaler ceiling")

	system := pools["system"]
	assert.Equal(t, "system", system.Labels[ModeLabel])
	assert.Equal(t, "Standard_D4ds_v5", system.Labels[InstanceTypeLabel])
	assert.Equal(t, []corev1.Taint{{Key: "CriticalAddonsOnly", Value: "true", Effect: corev1.TaintEffectNoSchedule}}, system.Taints)
	assert.Equal(t, 3, system.Count, "the system pool's maxCount")
	// 4 vCPU - 140m; 16 GiB - min(20×250+50, 25%) - 100 MiB.
	assertQuantity(t, "3860m", system.Allocatable[corev1.ResourceCPU])
	assertQuantity(t, "12188Mi", system.Allocatable[corev1.ResourceMemory])
	assert.NotContains(t, system.Allocatable, corev1.ResourceName("nvidia.com/gpu"))
	assert.False(t, system.GPU)

	cpu := pools["cpu"]
	assert.Equal(t, "cpu", cpu.Labels["workload"])
	assert.Equal(t, "user", cpu.Labels[ModeLabel])
	assert.Empty(t, cpu.Taints)

	t4 := pools["t4"]
	assert.Equal(t, "t4", t4.Labels[AgentPoolLabel])
	assert.Equal(t, "t4", t4.Labels[LegacyAgentPoolLabel])
	assert.Equal(t, "nvidia", t4.Labels[AcceleratorLabel])
	assert.NotContains(t, t4.Labels, ScaleSetPriorityKey)
	// The dev stack time-slices every GPU twice.
	assertQuantity(t, "2", t4.Allocatable["nvidia.com/gpu"])
	assert.Equal(t, "0", t4.Zone(0), "a regional pool's nodes are in zone 0")

	spot := pools["t4spot"]
	assert.True(t, spot.Spot)
	assert.Equal(t, "spot", spot.Labels[ScaleSetPriorityKey])
	assert.Contains(t, spot.Taints, corev1.Taint{Key: ScaleSetPriorityKey, Value: "spot", Effect: corev1.TaintEffectNoSchedule})
	assert.Equal(t, 4, spot.Count)
	assert.Len(t, spot.Taints, 2, "the spot taint once, next to sku=gpu: %v", spot.Taints)

	mig := pools["a100mig"]
	assert.NotContains(t, mig.Allocatable, corev1.ResourceName("nvidia.com/mig-1g.10gb"), "MIG devices only once the MIG Manager applied the layout (requireMIGManager)")
	assert.NotContains(t, mig.Allocatable, corev1.ResourceName("nvidia.com/gpu"))
	assert.Equal(t, "hptuning-1g10gb", mig.Labels["nvidia.com/mig.config"], "the layout the MIG Manager applies")

	prod, err := StackNodePools(desiredState(t, "prod"), parsedConfig(t, "prod"))
	require.NoError(t, err)
	ppools := poolsByName(prod)
	h100 := ppools["h100"]
	assertQuantity(t, "8", h100.Allocatable["nvidia.com/gpu"], "8 H100, no time-slicing in prod")
	// 96 vCPU: 740m + 10m × 32 reserved.
	assertQuantity(t, "94940m", h100.Allocatable[corev1.ResourceCPU])
	a100 := ppools["a100"]
	assert.Equal(t, []string{"1", "2", "3"}, a100.Zones)
	assert.Equal(t, "westeurope-2", a100.Zone(1))

	local, err := StackNodePools(desiredState(t, "local"), parsedConfig(t, "local"))
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"system", "cpu", "t4", "t4spot"}, keys(poolsByName(local)))

	nodes := pools["t4spot"].Nodes()
	require.Len(t, nodes, 4)
	assert.Equal(t, "aks-t4spot-00000000-vmss000003", nodes[3].Name)
	assert.Equal(t, nodes[3].Name, nodes[3].Labels[HostnameLabel])
	assert.Equal(t, kwokNodeValue, nodes[3].Annotations[KWOKNodeAnnotation])
}

// TestStackNodePoolsRejects checks that a stack whose pools cannot be simulated is
// rejected with every problem: a GPU pool of the config that the stack does not register,
// and a VM size without a known shape.
func TestStackNodePoolsRejects(t *testing.T) {
	s := desiredState(t, "dev")
	cfg := parsedConfig(t, "dev")
	cfg.GPUPools = append(cfg.GPUPools, cfg.GPUPools[0])
	cfg.GPUPools[len(cfg.GPUPools)-1].Name = "ghost"
	_, err := StackNodePools(s, cfg)
	require.ErrorContains(t, err, "GPU pool ghost of the config has no agent pool")

	local := parsedConfig(t, "local")
	local.GPUPools[0].VMSize = "Standard_E8ds_v5"
	_, err = StackNodePools(desiredState(t, "local"), local)
	require.ErrorContains(t, err, `VM size "Standard_E8ds_v5"`)
}

// assertQuantity asserts that q equals the quantity want.
func assertQuantity(t *testing.T, want string, q resource.Quantity, msgAndArgs ...any) {
	t.Helper()
	w := resource.MustParse(want)
	assert.Zero(t, w.Cmp(q), append([]any{"want %s, got %s", want, q.String()}, msgAndArgs...)...)
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
