package teams

import (
	"encoding/json"
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
	ts := []Team{
		{Team: queues.Team{Name: "team-a", CPU: "16", Memory: "64Gi", GPUQuota: map[string]int{"t4": 3}}, Namespace: Namespace{Groups: []string{"0a0a0a0a-1111-4111-8111-000000000001"}}},
		{Team: queues.Team{Name: "team-b", CPU: "8", Memory: "32Gi", GPUQuota: map[string]int{"t4": 1}, BorrowingLimit: new(int)},
			Namespace: Namespace{Egress: string(tenancy.EgressUnrestricted), NamespaceQuota: map[string]string{"count/pods": "7"}}},
	}
	r, errs := queues.Resolve(Queues(ts), pools, queues.SchedulerSpec{}, paths)
	require.Empty(t, errs)

	got := Tenancy(ts, r, []string{"premium"}, []tenancy.Claim{{Class: "premium", Size: "1Gi"}})
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

// TestTeamComposesBothSides: one aksml:teams object decodes into the queue
// side and the namespace side, Default fills both, and Queues hands
// queues.Resolve the queue side only.
func TestTeamComposesBothSides(t *testing.T) {
	var team Team
	require.NoError(t, json.Unmarshal([]byte(`{"name":"team-a","cpu":"16","memory":"64Gi","gpuQuota":{"t4":2},"serving":true,"groups":["g"],"egress":"Unrestricted","namespaceQuota":{"pods":"9"}}`), &team))
	assert.Equal(t, queues.Team{Name: "team-a", CPU: "16", Memory: "64Gi", GPUQuota: map[string]int{"t4": 2}, Serving: true}, team.Team)
	assert.Equal(t, Namespace{Groups: []string{"g"}, Egress: "Unrestricted", NamespaceQuota: map[string]string{"pods": "9"}}, team.Namespace)

	team.Default()
	assert.Equal(t, 1, team.Weight, "the queue side's default")
	assert.Equal(t, tenancy.DefaultPodSecurity, team.PodSecurity, "the namespace side's default")
	assert.Equal(t, []queues.Team{team.Team}, Queues([]Team{team}))
}
