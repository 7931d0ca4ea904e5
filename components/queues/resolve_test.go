package queues

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
)

// TestNewQueuesLeavesCallerSpecs proves that NewQueues and ValidateTeams
// default copies: the caller's MIG spec (a pointer inside gpupool.Spec)
// keeps its unset strategy. Before gpupool.Resolve, queues copied Spec
// shallowly and wrote the default strategy into the caller's MIGSpec.
func TestNewQueuesLeavesCallerSpecs(t *testing.T) {
	pools := testPools()
	pools = append(pools, gpupool.Spec{Name: "nomig", VMSize: "Standard_NC24ads_A100_v4", Workload: gpupool.WorkloadTraining, MaxCount: 1, MIG: &gpupool.MIGSpec{}})
	mig := pools[len(pools)-1].MIG
	_, _, err := run(t, &rawQueues{Teams: testTeams(), Pools: pools})
	require.NoError(t, err)
	assert.Equal(t, gpupool.MIGStrategy(""), mig.Strategy, "NewQueues wrote into the caller's MIG spec")
	assert.Nil(t, pools[0].MinCount, "NewQueues wrote into the caller's spec")

	require.Empty(t, ValidateTeams(testTeams(), pools, SchedulerSpec{}, aksmlPaths()))
	assert.Equal(t, gpupool.MIGStrategy(""), mig.Strategy, "ValidateTeams wrote into the caller's MIG spec")
}

// TestNewQueuesTakesResolved checks that a resolved layer is used as it is:
// its problems stop NewQueues before anything is registered, and a clean one
// builds the same objects as raw config.
func TestNewQueuesTakesResolved(t *testing.T) {
	paths := aksmlPaths()
	pools, perrs := gpupool.Resolve(testPools(), paths.Pools)
	require.Empty(t, perrs)
	r, errs := Resolve(testTeams(), pools, SchedulerSpec{}, paths)
	require.Empty(t, errs)
	m, _, err := runArgs(t, &QueuesArgs{Resolved: r})
	require.NoError(t, err)
	raw, _, err := run(t, kueueArgs())
	require.NoError(t, err)
	assert.Equal(t, len(raw.All()), len(m.All()))

	bad := *r
	bad.Problems = field.ErrorList{field.Invalid(paths.Teams.Index(0), "broken")}
	m, _, err = runArgs(t, &QueuesArgs{Resolved: &bad, Namespaces: plainNamespaces(bad.Teams)})
	require.ErrorContains(t, err, "aksml:teams[0]: broken")
	assert.Empty(t, m.All())
}

// TestQueueName: a workload names the team's LocalQueue with Kueue, the
// team's own Queue with Volcano, and no queue without a queueing system.
func TestQueueName(t *testing.T) {
	assert.Equal(t, LocalQueueName, QueueName(SystemKueue, "team-b"))
	assert.Equal(t, ClusterQueueName("team-a"), QueueName(SystemVolcano, "team-a"))
	assert.Empty(t, QueueName(SystemNone, "team-a"))
}

// TestLentAndBorrowable: a cohort member lends its nominal quota, capped by
// its lendingLimit; a ClusterQueue borrows what the others lend, capped by
// its borrowingLimit; no limit means no cap. The guardrail AKSML-QUE-005
// runs the same functions over ClusterQueue objects.
func TestLentAndBorrowable(t *testing.T) {
	assert.Equal(t, 4, Lent(4, nil))
	assert.Equal(t, 3, Lent(4, ptr(3)))
	assert.Equal(t, 4, Lent(4, ptr(6)), "Kueue requires lendingLimit <= nominalQuota")
	assert.Equal(t, 5.0, Borrowable(5.0, nil))
	assert.Equal(t, 2.0, Borrowable(5.0, ptr(2.0)))
	assert.Equal(t, 0, Borrowable(5, ptr(0)), "borrowingLimit 0 turns borrowing off")
}
