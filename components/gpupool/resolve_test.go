package gpupool

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/field"
)

func TestResolve(t *testing.T) {
	specs := []Spec{
		{Name: "t4", VMSize: "Standard_NC4as_T4_v3", Workload: WorkloadTraining, MaxCount: 2},
		{Name: "mig", VMSize: "Standard_NC24ads_A100_v4", Workload: WorkloadTraining, MaxCount: 1, MIG: &MIGSpec{Strategy: MIGStrategyMixed, Profile: MIG1g}},
		{Name: "t4", VMSize: "Standard_NV6", Workload: WorkloadTraining, MaxCount: 1},
	}
	pools, errs := Resolve(specs, field.NewPath("aksml:gpuPools"))
	require.Len(t, pools, 3)
	require.Len(t, errs, 2)
	assert.Equal(t, field.Path("aksml:gpuPools[2].vmSize"), errs[0].Path)
	assert.Equal(t, field.Path("aksml:gpuPools[2].name"), errs[1].Path)

	t4, mig := pools[0], pools[1]
	assert.True(t, t4.OK())
	assert.Equal(t, field.Path("aksml:gpuPools[0]"), t4.Path)
	assert.Equal(t, 2, t4.Capacity)
	assert.Equal(t, GPUResource, t4.GPUResource)
	assert.Equal(t, "training", t4.Labels()[WorkloadLabel])
	assert.Equal(t, GPUTaintKey, t4.Taints()[0].Key)
	assert.Equal(t, [2]int{0, 2}, [2]int{t4.MinNodes, t4.MaxNodes}, "minCount defaults to 0; the ceiling is maxCount")
	assert.Equal(t, field.Path("aksml:gpuPools[0].maxCount"), t4.NodeCeilingPath())
	assert.Equal(t, int64(3860), t4.Allocatable.CPUMilli)
	assert.Equal(t, 7, mig.Capacity, "MIG capacity counts instances")
	assert.Equal(t, "nvidia.com/mig-1g.10gb", mig.GPUResource)
	assert.False(t, pools[2].OK())
	assert.False(t, pools[2].Sized)
	assert.Zero(t, pools[2].Capacity)

	// Defaults go to copies: the caller's specs keep their unset fields.
	assert.Nil(t, specs[0].MinCount)
	assert.Equal(t, Priority(""), specs[0].Priority)
	assert.Equal(t, DefaultPriority, t4.Priority)
	mig.MIG.Strategy = MIGStrategySingle
	assert.Equal(t, MIGStrategyMixed, specs[1].MIG.Strategy, "the resolved MIG spec shares no pointer with the caller's")

	// A Managed pool runs count nodes, no more and no fewer: both bounds
	// are count, and count is the key that raises its capacity.
	three := 3
	mgd, errs := ResolveOne(Spec{Name: "mgd", VMSize: "Standard_NC4as_T4_v3", Workload: WorkloadTraining, GPUStack: GPUStackManaged, Count: &three}, field.NewPath("aksml:gpuPools").Index(3))
	require.Empty(t, errs)
	assert.Equal(t, [2]int{3, 3}, [2]int{mgd.MinNodes, mgd.MaxNodes})
	assert.Equal(t, 3, mgd.Capacity, "count × 1 GPU")
	n, k := mgd.NodeCeiling()
	assert.Equal(t, 3, n)
	assert.Equal(t, field.Path("aksml:gpuPools[3].count"), mgd.Path.Child(k))

	var zero Resolved
	assert.False(t, zero.IsResolved(), "only Resolve makes a resolved pool")
	assert.Same(t, &pools[1], Lookup(pools, "mig"))
	assert.Nil(t, Lookup(pools, "nope"))
}

// TestResolvedCapacityAndResource: capacity is counted in the unit quota
// is handed out in (GPUs, or MIG instances), requested by the pool's GPU
// resource; with the Single MIG strategy instances are nvidia.com/gpu.
func TestResolvedCapacityAndResource(t *testing.T) {
	a100 := Spec{Name: "a100", VMSize: "Standard_NC24ads_A100_v4", Workload: WorkloadTraining, MaxCount: 8}
	mig := Spec{Name: "mig", VMSize: "Standard_NC24ads_A100_v4", Workload: WorkloadTraining, MaxCount: 2, MIG: &MIGSpec{Strategy: MIGStrategyMixed, Profile: MIG1g}}
	single := mig
	single.MIG = &MIGSpec{Strategy: MIGStrategySingle, Profile: MIG3g}
	pools, errs := Resolve([]Spec{a100, mig}, field.NewPath("aksml:gpuPools"))
	require.Empty(t, errs)
	assert.Equal(t, 8, pools[0].Capacity)
	assert.Equal(t, "nvidia.com/gpu", pools[0].GPUResource)
	assert.Equal(t, 14, pools[1].Capacity)
	assert.Equal(t, "nvidia.com/mig-1g.10gb", pools[1].GPUResource)
	s, errs := ResolveOne(single, field.NewPath("aksml:gpuPools").Index(1))
	require.Empty(t, errs)
	assert.Equal(t, "nvidia.com/gpu", s.GPUResource, "the single strategy exposes MIG instances as nvidia.com/gpu")
	assert.Equal(t, 4, s.Capacity)
}
