package gpupool

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKubeReservedCPUMilliDocumentedPoints(t *testing.T) {
	// The table of https://learn.microsoft.com/en-us/azure/aks/node-resource-reservations.
	for cores, want := range map[int]int64{1: 60, 2: 100, 4: 140, 8: 180, 16: 260, 32: 420, 64: 740} {
		assert.Equal(t, want, KubeReservedCPUMilli(cores), "%d cores", cores)
	}
	// Between and above the documented points: on the curve through them.
	assert.Equal(t, int64(120), KubeReservedCPUMilli(3))
	assert.Equal(t, int64(340), KubeReservedCPUMilli(24))
	assert.Equal(t, int64(500), KubeReservedCPUMilli(40))
	assert.Equal(t, int64(1060), KubeReservedCPUMilli(96))
	assert.Equal(t, int64(0), KubeReservedCPUMilli(0))
}

func TestKubeReservedMemoryMiB(t *testing.T) {
	// The page's examples: 8 GB with 30 pods reserves 20×30+50 = 650;
	// 4 GB with 70 pods reserves 25% (1000 of the page's MB) since 1450 is more.
	assert.Equal(t, int64(650), KubeReservedMemoryMiB(8*1024, 30))
	assert.Equal(t, int64(1024), KubeReservedMemoryMiB(4*1024, 70))
}

func TestLookupVMShape(t *testing.T) {
	s, ok := LookupVMShape("Standard_NC24ads_A100_v4")
	require.True(t, ok)
	assert.Equal(t, VMShape{VCPUs: 24, MemoryGiB: 220, GPUs: 1}, s)
	s, ok = LookupVMShape("standard_d8ds_v5")
	require.True(t, ok)
	assert.Equal(t, VMShape{VCPUs: 8, MemoryGiB: 32}, s)
	for _, bad := range []string{"Standard_D8lds_v5", "Standard_E8ds_v5", "Standard_NV6", "", "Standard_D0s_v5"} {
		_, ok := LookupVMShape(bad)
		assert.False(t, ok, bad)
	}
}

func TestNodeAllocatable(t *testing.T) {
	// Standard_D4ds_v5: 4 vCPU, 16 GiB; 250 pods → min(5050, 4096) = 4096 MiB.
	a, err := NodeAllocatable("Standard_D4ds_v5", 0)
	require.NoError(t, err)
	assert.Equal(t, Allocatable{CPUMilli: 3860, MemoryMiB: 16384 - 4096 - 100, Pods: 250}, a)
	// Standard_NC4as_T4_v3: 4 vCPU, 28 GiB; 250 pods → 5050 MiB < 7168 MiB.
	a, err = NodeAllocatable("Standard_NC4as_T4_v3", 0)
	require.NoError(t, err)
	assert.Equal(t, Allocatable{CPUMilli: 3860, MemoryMiB: 28672 - 5050 - 100, Pods: 250}, a)
	// 30 pods: the page's per-pod rule.
	a, err = NodeAllocatable("Standard_D8ds_v5", 30)
	require.NoError(t, err)
	assert.Equal(t, int64(32768-650-100), a.MemoryMiB)
	_, err = NodeAllocatable("Standard_E8ds_v5", 0)
	assert.ErrorContains(t, err, "Standard_E8ds_v5")
}
