package teams

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/tenancy"
)

// TestTenancy: each resolved team becomes one tenancy team, defaulted,
// with the GPU ResourceQuota and priorities its queue implies and a
// namespace quota over its queue bound and the classes, where the team's
// own namespaceQuota entries win.
func TestTenancy(t *testing.T) {
	paths := queues.DefaultPaths()
	pools, errs := gpupool.Resolve([]gpupool.Spec{{Name: "t4", VMSize: "Standard_NC4as_T4_v3", Workload: gpupool.WorkloadTraining, MaxCount: 4}}, paths.Pools)
	require.Empty(t, errs)
	r, errs := queues.Resolve([]queues.Team{
		{Name: "team-a", CPU: "16", Memory: "64Gi", GPUQuota: map[string]int{"t4": 3}, Groups: []string{"0a0a0a0a-1111-4111-8111-000000000001"}},
		{Name: "team-b", CPU: "8", Memory: "32Gi", GPUQuota: map[string]int{"t4": 1}, BorrowingLimit: new(int), Egress: string(tenancy.EgressUnrestricted),
			NamespaceQuota: map[string]string{"count/pods": "7"}},
	}, pools, queues.SchedulerSpec{}, paths)
	require.Empty(t, errs)

	got := Tenancy(r, []string{"premium"}, []tenancy.Claim{{Class: "premium", Size: "1Gi"}})
	require.Len(t, got, 2)
	a, b := got[0], got[1]
	assert.Equal(t, "team-a", a.Name)
	assert.Equal(t, []string{"0a0a0a0a-1111-4111-8111-000000000001"}, a.Groups)
	assert.Equal(t, tenancy.EgressRestricted, a.Egress, "defaulted")
	assert.Equal(t, tenancy.DefaultPodSecurity, a.PodSecurity, "defaulted")
	assert.Equal(t, r.ResourceQuotaHard("team-a"), a.Quota)
	assert.Equal(t, map[string]string{"requests.nvidia.com/gpu": "1"}, b.Quota, "team-b may not borrow: its nominal quota only")
	assert.Equal(t, r.TeamPriorities("team-b"), b.Priorities)
	assert.Equal(t, tenancy.EgressUnrestricted, b.Egress)
	assert.Equal(t, "7", b.NamespaceQuota["count/pods"], "the team's override wins")
	assert.NotEmpty(t, a.NamespaceQuota["premium.storageclass.storage.k8s.io/requests.storage"], "a storage quota per class")
}
