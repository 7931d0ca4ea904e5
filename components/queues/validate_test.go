package queues

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/gpupool"

	"github.com/aksml/aksml/components/field"

	"github.com/aksml/aksml/components/field/fieldtest"
)

// aksmlPaths are the roots the aksml program passes; the tests read like
// the errors a user of the program sees.
func aksmlPaths() Paths {
	return Paths{Teams: field.NewPath("aksml:teams"), Pools: field.NewPath("aksml:gpuPools"), Scheduler: field.NewPath("aksml:scheduler")}
}

// testPools are an on-demand A100 pool (8 GPUs), a spot A100 pool (4 GPUs)
// and a MIG pool (2 GPUs × 7 × 1g.10gb = 14 instances).
func testPools() []gpupool.Spec {
	return []gpupool.Spec{
		{Name: "a100", VMSize: "Standard_NC24ads_A100_v4", Workload: gpupool.WorkloadTraining, MaxCount: 8},
		{Name: "a100spot", VMSize: "Standard_NC24ads_A100_v4", Workload: gpupool.WorkloadTraining, Priority: gpupool.PrioritySpot, MaxCount: 4},
		{Name: "mig", VMSize: "Standard_NC24ads_A100_v4", Workload: gpupool.WorkloadTraining, MaxCount: 2,
			MIG: &gpupool.MIGSpec{Strategy: gpupool.MIGStrategyMixed, Profile: gpupool.MIG1g}},
	}
}

// testTeams are team-a (quota on every pool, limits, weight 2) and team-b
// (on-demand only, no limits), like the AKS MLOps best practices' two teams.
func testTeams() []Team {
	return []Team{
		{Name: "team-a", GPUQuota: map[string]int{"a100": 4, "a100spot": 2, "mig": 7}, CPU: "64", Memory: "256Gi",
			BorrowingLimit: ptr(2), LendingLimit: ptr(3), Weight: 2},
		{Name: "team-b", GPUQuota: map[string]int{"a100": 2}, CPU: "32", Memory: "128Gi"},
	}
}

// volcanoTeams are testTeams without the Kueue-only lending limit.
func volcanoTeams() []Team {
	teams := testTeams()
	teams[0].LendingLimit = nil
	return teams
}

func TestValidateTeams(t *testing.T) {
	volcano := SchedulerSpec{System: SystemVolcano}
	none := SchedulerSpec{System: SystemNone}
	tests := []struct {
		name    string
		teams   func([]Team) []Team
		sched   SchedulerSpec
		wantErr []fieldtest.Want // nil means valid
	}{
		{name: "valid kueue", teams: func(ts []Team) []Team { return ts }},
		{name: "valid volcano", teams: func([]Team) []Team { return volcanoTeams() }, sched: volcano},
		{name: "valid none", teams: func(ts []Team) []Team { ts[0].BorrowingLimit, ts[0].LendingLimit = nil, nil; return ts }, sched: none},
		{name: "no teams", teams: func([]Team) []Team { return nil }},
		{name: "millicpu is a valid quantity", teams: func(ts []Team) []Team { ts[1].CPU = "500m"; ts[1].Memory = "1.5Gi"; return ts }},

		{name: "unknown system", teams: func([]Team) []Team { return volcanoTeams() }, sched: SchedulerSpec{System: "slurm"},
			wantErr: []fieldtest.Want{fieldtest.NotSupported("aksml:scheduler.system")}},
		{name: "overcommit below 1", teams: func(ts []Team) []Team { return ts }, sched: SchedulerSpec{OvercommitRatio: 0.5},
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:scheduler.overcommitRatio")}},
		{name: "installKueue with volcano", teams: func([]Team) []Team { return volcanoTeams() }, sched: SchedulerSpec{System: SystemVolcano, InstallKueue: ptr(true)},
			wantErr: []fieldtest.Want{fieldtest.Forbidden("aksml:scheduler.installKueue")}},
		{name: "cohort with volcano", teams: func([]Team) []Team { return volcanoTeams() }, sched: SchedulerSpec{System: SystemVolcano, Cohort: "shared"},
			wantErr: []fieldtest.Want{fieldtest.Forbidden("aksml:scheduler.cohort")}},
		{name: "kueueIntegrations with none", teams: func([]Team) []Team { return nil }, sched: SchedulerSpec{System: SystemNone, KueueIntegrations: []string{"batch/job"}},
			wantErr: []fieldtest.Want{fieldtest.Forbidden("aksml:scheduler.kueueIntegrations")}},
		{name: "kueueChartValues with volcano", teams: func([]Team) []Team { return nil }, sched: SchedulerSpec{System: SystemVolcano, KueueChartValues: map[string]any{"a": 1}},
			wantErr: []fieldtest.Want{fieldtest.Forbidden("aksml:scheduler.kueueChartValues")}},
		{name: "installVolcano with kueue", teams: func(ts []Team) []Team { return ts }, sched: SchedulerSpec{InstallVolcano: ptr(true)},
			wantErr: []fieldtest.Want{fieldtest.Forbidden("aksml:scheduler.installVolcano")}},
		{name: "volcanoChartValues with kueue", teams: func(ts []Team) []Team { return ts }, sched: SchedulerSpec{VolcanoChartValues: map[string]any{"a": 1}},
			wantErr: []fieldtest.Want{fieldtest.Forbidden("aksml:scheduler.volcanoChartValues")}},
		{name: "bad cohort name", teams: func(ts []Team) []Team { return ts }, sched: SchedulerSpec{Cohort: "Shared_Pool"},
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:scheduler.cohort")}},
		{name: "unknown and duplicate integrations", teams: func(ts []Team) []Team { return ts }, sched: SchedulerSpec{KueueIntegrations: []string{"batch/job", "slurm/job", "batch/job"}},
			wantErr: []fieldtest.Want{fieldtest.NotSupported("aksml:scheduler.kueueIntegrations[1]"), fieldtest.Duplicate("aksml:scheduler.kueueIntegrations[2]")}},

		{name: "missing name", teams: func(ts []Team) []Team { ts[0].Name = ""; return ts },
			wantErr: []fieldtest.Want{fieldtest.Required("aksml:teams[0].name")}},
		{name: "name not a DNS label", teams: func(ts []Team) []Team { ts[0].Name = "Team_A"; return ts },
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:teams[0].name")}},
		{name: "name too long", teams: func(ts []Team) []Team { ts[0].Name = strings.Repeat("a", 31); return ts },
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:teams[0].name")}},
		{name: "duplicate team", teams: func(ts []Team) []Team { ts[1].Name = "team-a"; return ts },
			wantErr: []fieldtest.Want{fieldtest.Duplicate("aksml:teams[1].name")}},
		{name: "quota on unknown pool", teams: func(ts []Team) []Team { ts[1].GPUQuota["foo"] = 1; return ts },
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:teams[1].gpuQuota[\"foo\"]")}},
		{name: "negative quota", teams: func(ts []Team) []Team { ts[1].GPUQuota["a100"] = -1; return ts },
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:teams[1].gpuQuota[\"a100\"]")}},
		{name: "missing cpu and memory", teams: func(ts []Team) []Team { ts[0].CPU, ts[0].Memory = "", ""; return ts },
			wantErr: []fieldtest.Want{fieldtest.Required("aksml:teams[0].cpu"), fieldtest.Required("aksml:teams[0].memory")}},
		{name: "invalid quantities", teams: func(ts []Team) []Team { ts[0].CPU, ts[0].Memory = "64 cores", "-1Gi"; return ts },
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:teams[0].cpu"), fieldtest.Invalid("aksml:teams[0].memory")}},
		{name: "memory in millibytes", teams: func(ts []Team) []Team { ts[0].Memory = "256m"; return ts },
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:teams[0].memory")}},
		{name: "negative borrowing limit", teams: func(ts []Team) []Team { ts[0].BorrowingLimit = ptr(-1); return ts },
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:teams[0].borrowingLimit")}},
		{name: "borrowing without a queueing system", teams: func(ts []Team) []Team { ts[0].LendingLimit = nil; return ts }, sched: none,
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:teams[0].borrowingLimit")}},
		{name: "borrowing without pools", teams: func(ts []Team) []Team { ts[1].GPUQuota = nil; ts[1].BorrowingLimit = ptr(1); return ts },
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:teams[1].borrowingLimit")}},
		{name: "negative lending limit", teams: func(ts []Team) []Team { ts[0].LendingLimit = ptr(-2); return ts },
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:teams[0].lendingLimit")}},
		{name: "lending limit with volcano", teams: func(ts []Team) []Team { return ts }, sched: volcano,
			wantErr: []fieldtest.Want{fieldtest.Forbidden("aksml:teams[0].lendingLimit")}},
		{name: "lending more than the team holds", teams: func(ts []Team) []Team { ts[1].LendingLimit = ptr(5); return ts },
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:teams[1].lendingLimit")}},
		{name: "weight out of range", teams: func(ts []Team) []Team { ts[0].Weight = 70000; ts[1].Weight = -1; return ts },
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:teams[0].weight"), fieldtest.Invalid("aksml:teams[1].weight")}},
		{name: "flavor order on unlisted and duplicate pools", teams: func(ts []Team) []Team { ts[1].FlavorOrder = []string{"a100spot", "a100", "a100"}; return ts },
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:teams[1].flavorOrder[0]"), fieldtest.Duplicate("aksml:teams[1].flavorOrder[2]")}},
		{name: "flavor order with volcano", teams: func([]Team) []Team { ts := volcanoTeams(); ts[1].FlavorOrder = []string{"a100"}; return ts }, sched: volcano,
			wantErr: []fieldtest.Want{fieldtest.Forbidden("aksml:teams[1].flavorOrder")}},
		{name: "quota beyond capacity", teams: func(ts []Team) []Team { ts[1].GPUQuota["a100"] = 8; return ts },
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:teams")}},

		{name: "fairSharing with volcano", teams: func([]Team) []Team { return volcanoTeams() }, sched: SchedulerSpec{System: SystemVolcano, FairSharing: ptr(true)},
			wantErr: []fieldtest.Want{fieldtest.Forbidden("aksml:scheduler.fairSharing")}},
		{name: "weight without fair sharing", teams: func(ts []Team) []Team { return ts }, sched: SchedulerSpec{FairSharing: ptr(false)},
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:teams[0].weight")}},
		{name: "one team borrowing and lending", teams: func(ts []Team) []Team { return ts[:1] },
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:teams[0].borrowingLimit"), fieldtest.Invalid("aksml:teams[0].lendingLimit")}},
		{name: "serving below batch training", teams: func(ts []Team) []Team { return ts }, sched: SchedulerSpec{Priorities: []PriorityLevel{
			{Name: PriorityClassTrainingBatch, Value: 1000}, {Name: PriorityClassInferenceCritical, Value: 1000}}},
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:scheduler.priorities[1].value")}},
		{name: "custom priorities", teams: func(ts []Team) []Team { return ts }, sched: SchedulerSpec{Priorities: []PriorityLevel{{Name: "high", Value: 1000}, {Name: "low", Value: 10, PreemptionPolicy: PreemptNever}}}},
		{name: "invalid priorities", teams: func(ts []Team) []Team { return ts }, sched: SchedulerSpec{Priorities: []PriorityLevel{
			{Value: 1}, {Name: "High_Prio", Value: 2}, {Name: "system-top", Value: 3}, {Name: "low", Value: 2_000_000_000}, {Name: "low", Value: 5, PreemptionPolicy: "Always"}}},
			wantErr: []fieldtest.Want{fieldtest.Required("aksml:scheduler.priorities[0].name"), fieldtest.Invalid("aksml:scheduler.priorities[1].name"), fieldtest.Forbidden("aksml:scheduler.priorities[2].name"), fieldtest.Invalid("aksml:scheduler.priorities[3].value"), fieldtest.Duplicate("aksml:scheduler.priorities[4].name"), fieldtest.NotSupported("aksml:scheduler.priorities[4].preemptionPolicy")}},
		{name: "custom preemption", teams: func(ts []Team) []Team {
			ts[0].Preemption = Preemption{WithinClusterQueue: PolicyLowerOrNewerEqualPriority, ReclaimWithinCohort: PolicyLowerPriority,
				BorrowWithinCohort: BorrowWithinCohort{Policy: PolicyLowerPriority, MaxPriorityThreshold: ptr(100)}}
			ts[0].Weight = DefaultWeight // read only under fair sharing
			return ts
		}, sched: SchedulerSpec{FairSharing: ptr(false)}},
		{name: "unknown preemption policies", teams: func(ts []Team) []Team {
			ts[0].Preemption = Preemption{WithinClusterQueue: PolicyAny, ReclaimWithinCohort: PolicyLowerOrNewerEqualPriority, BorrowWithinCohort: BorrowWithinCohort{Policy: PolicyAny}}
			return ts
		}, wantErr: []fieldtest.Want{fieldtest.NotSupported("aksml:teams[0].preemption.withinClusterQueue"), fieldtest.NotSupported("aksml:teams[0].preemption.reclaimWithinCohort"), fieldtest.NotSupported("aksml:teams[0].preemption.borrowWithinCohort.policy")}},
		{name: "borrowWithinCohort under fair sharing", teams: func(ts []Team) []Team {
			ts[1].Preemption.BorrowWithinCohort.Policy = PolicyLowerPriority
			return ts
		}, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:teams[1].preemption.borrowWithinCohort.policy")}},
		{name: "borrowWithinCohort without reclaim", teams: func(ts []Team) []Team {
			ts[1].Preemption = Preemption{ReclaimWithinCohort: PolicyNever, BorrowWithinCohort: BorrowWithinCohort{Policy: PolicyLowerPriority}}
			ts[0].Weight = DefaultWeight // read only under fair sharing
			return ts
		}, sched: SchedulerSpec{FairSharing: ptr(false)}, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:teams[1].preemption.borrowWithinCohort.policy")}},
		{name: "maxPriorityThreshold without LowerPriority and out of range", teams: func(ts []Team) []Team {
			ts[0].Preemption.BorrowWithinCohort.MaxPriorityThreshold = ptr(5)
			ts[1].Preemption.BorrowWithinCohort = BorrowWithinCohort{Policy: PolicyLowerPriority, MaxPriorityThreshold: ptr(2_000_000_000)}
			ts[0].Weight = DefaultWeight // read only under fair sharing
			return ts
		}, sched: SchedulerSpec{FairSharing: ptr(false)}, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:teams[0].preemption.borrowWithinCohort.maxPriorityThreshold"), fieldtest.Invalid("aksml:teams[1].preemption.borrowWithinCohort.maxPriorityThreshold")}},
		{name: "preemption with volcano", teams: func([]Team) []Team {
			ts := volcanoTeams()
			ts[0].Preemption.ReclaimWithinCohort = PolicyNever
			return ts
		}, sched: volcano,
			wantErr: []fieldtest.Want{fieldtest.Forbidden("aksml:teams[0].preemption")}},
		{name: "cpu and memory limits", teams: func(ts []Team) []Team {
			ts[0].CPUBorrowingLimit, ts[0].CPULendingLimit, ts[0].MemoryBorrowingLimit, ts[0].MemoryLendingLimit = "8", "64", "32Gi", "128Gi"
			return ts
		}},
		{name: "invalid cpu and memory limits", teams: func(ts []Team) []Team {
			ts[0].CPUBorrowingLimit, ts[0].CPULendingLimit, ts[0].MemoryBorrowingLimit, ts[0].MemoryLendingLimit = "eight", "65", "32m", "512Gi"
			return ts
		}, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:teams[0].cpuBorrowingLimit"), fieldtest.Invalid("aksml:teams[0].cpuLendingLimit"), fieldtest.Invalid("aksml:teams[0].memoryBorrowingLimit"), fieldtest.Invalid("aksml:teams[0].memoryLendingLimit")}},
		{name: "cpu limit with volcano", teams: func([]Team) []Team { ts := volcanoTeams(); ts[1].CPUBorrowingLimit = "4"; return ts }, sched: volcano,
			wantErr: []fieldtest.Want{fieldtest.Forbidden("aksml:teams[1].cpuBorrowingLimit")}},
		{name: "lenders", teams: func(ts []Team) []Team { return ts }, sched: SchedulerSpec{Lenders: []Lender{{Name: "shared", GPUQuota: map[string]int{"a100": 2}, CPU: "16", Memory: "64Gi"}}}},
		{name: "invalid lenders", teams: func(ts []Team) []Team { return ts }, sched: SchedulerSpec{Lenders: []Lender{
			{Name: "team-a", GPUQuota: map[string]int{"a100": 1}},
			{Name: "Shared", GPUQuota: map[string]int{"nope": 1, "a100spot": -1}},
			{Name: "idle"},
			{Name: "idle", CPU: "lots", Memory: "1m"},
			{GPUQuota: map[string]int{"a100": 1}},
		}}, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:scheduler.lenders[0].name"), fieldtest.Invalid("aksml:scheduler.lenders[1].name"), fieldtest.Invalid("aksml:scheduler.lenders[1].gpuQuota[\"a100spot\"]"), fieldtest.Invalid("aksml:scheduler.lenders[1].gpuQuota[\"nope\"]"), fieldtest.Required("aksml:scheduler.lenders[2]"), fieldtest.Duplicate("aksml:scheduler.lenders[3].name"), fieldtest.Invalid("aksml:scheduler.lenders[3].cpu"), fieldtest.Invalid("aksml:scheduler.lenders[3].memory"), fieldtest.Required("aksml:scheduler.lenders[4].name")}},
		{name: "lender whose ClusterQueue would take a team's Pulumi name", teams: func(ts []Team) []Team { ts[1].Name = "lender-shared"; return ts },
			sched:   SchedulerSpec{Lenders: []Lender{{Name: "shared", GPUQuota: map[string]int{"a100": 1}}}},
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:scheduler.lenders[0].name")}},
		{name: "lenders with volcano", teams: func([]Team) []Team { return volcanoTeams() }, sched: SchedulerSpec{System: SystemVolcano, Lenders: []Lender{{Name: "shared", GPUQuota: map[string]int{"a100": 1}}}},
			wantErr: []fieldtest.Want{fieldtest.Forbidden("aksml:scheduler.lenders")}},
		{name: "lender quota counts in the capacity check", teams: func(ts []Team) []Team { return ts }, sched: SchedulerSpec{Lenders: []Lender{{Name: "shared", GPUQuota: map[string]int{"a100": 3}}}},
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:teams")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fieldtest.ListEqual(t, ValidateTeams(tc.teams(testTeams()), testPools(), tc.sched, aksmlPaths()), tc.wantErr...)
		})
	}
}

func TestValidateTeamsReportsEveryProblemAtOnce(t *testing.T) {
	teams := testTeams()
	teams[0].Name = "Bad"
	teams[0].Weight = -5
	teams[1].GPUQuota["nope"] = 1
	errs := ValidateTeams(teams, testPools(), SchedulerSpec{System: "both"}, aksmlPaths())
	err := errs.ToAggregate()
	require.Error(t, err)
	for _, want := range []string{"aksml:scheduler.system", "aksml:teams[0].name", "aksml:teams[0].weight", `aksml:teams[1].gpuQuota["nope"]`} {
		assert.ErrorContains(t, err, want)
	}
}

func TestCheckCapacity(t *testing.T) {
	tests := []struct {
		name       string
		quota      map[string][2]int // pool -> quota of team-a, team-b
		pools      func([]gpupool.Spec) []gpupool.Spec
		overcommit float64
		wantErr    string
	}{
		{name: "fits exactly", quota: map[string][2]int{"a100": {6, 2}, "a100spot": {4, 0}, "mig": {7, 7}}, overcommit: 1},
		{name: "on-demand pool over capacity", quota: map[string][2]int{"a100": {8, 4}}, overcommit: 1,
			wantErr: `aksml:teams: nominal nvidia.com/gpu quota on pool "a100" is 12 (team-a 8, team-b 4) but the pool holds 8 GPUs (maxCount 8 × 1); lower the quotas, raise aksml:gpuPools[0].maxCount, or set aksml:scheduler.overcommitRatio`},
		{name: "spot pool counted on its own", quota: map[string][2]int{"a100": {4, 4}, "a100spot": {3, 2}}, overcommit: 1,
			wantErr: `nominal nvidia.com/gpu quota on pool "a100spot" is 5 (team-a 3, team-b 2) but the pool holds 4 GPUs (maxCount 4 × 1); lower the quotas, raise aksml:gpuPools[1].maxCount`},
		{name: "deliberate overcommit allows it", quota: map[string][2]int{"a100": {8, 4}}, overcommit: 1.5},
		{name: "overcommit too small", quota: map[string][2]int{"a100": {8, 4}}, overcommit: 1.25,
			wantErr: `the pool holds 8 GPUs (maxCount 8 × 1) and overcommitRatio 1.25 allows 10; lower the quotas, raise aksml:gpuPools[0].maxCount, or raise aksml:scheduler.overcommitRatio`},
		{name: "MIG pool counts instances", quota: map[string][2]int{"mig": {10, 5}}, overcommit: 1,
			wantErr: `nominal nvidia.com/mig-1g.10gb quota on pool "mig" is 15 (team-a 10, team-b 5) but the pool holds 14 MIG instances (maxCount 2 × 1 GPUs × 7 1g.10gb)`},
		{name: "multi-GPU nodes", quota: map[string][2]int{"a100": {8, 8}}, overcommit: 1,
			pools: func(ps []gpupool.Spec) []gpupool.Spec {
				ps[0].VMSize = "Standard_NC96ads_A100_v4"
				ps[0].MaxCount = 4
				return ps
			}},
		{name: "Managed pool holds its count", quota: map[string][2]int{"a100": {2, 1}}, overcommit: 1,
			pools: func(ps []gpupool.Spec) []gpupool.Spec {
				ps[0].GPUStack, ps[0].MaxCount, ps[0].Count = gpupool.GPUStackManaged, 0, ptr(2)
				return ps
			},
			wantErr: `nominal nvidia.com/gpu quota on pool "a100" is 3 (team-a 2, team-b 1) but the pool holds 2 GPUs (count 2 × 1); lower the quotas, raise aksml:gpuPools[0].count`},
		{name: "unknown SKU is left to pool validation", quota: map[string][2]int{"a100": {80, 0}}, overcommit: 1,
			pools: func(ps []gpupool.Spec) []gpupool.Spec { ps[0].VMSize = "Standard_X"; return ps }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := Team{Name: "team-a", GPUQuota: map[string]int{}}
			b := Team{Name: "team-b", GPUQuota: map[string]int{}}
			for pool, q := range tc.quota {
				a.GPUQuota[pool], b.GPUQuota[pool] = q[0], q[1]
			}
			specs := testPools()
			if tc.pools != nil {
				specs = tc.pools(specs)
			}
			pools, _ := gpupool.Resolve(specs, aksmlPaths().Pools)
			errs := CheckCapacity([]Team{a, b}, nil, pools, tc.overcommit, aksmlPaths())
			if tc.wantErr == "" {
				require.Empty(t, errs)
				return
			}
			require.Len(t, errs, 1)
			assert.Contains(t, errs[0].Error(), tc.wantErr)
		})
	}
}

func TestSchedulerDefaults(t *testing.T) {
	var k SchedulerSpec
	k.Default()
	assert.Equal(t, SystemKueue, k.System)
	assert.True(t, *k.InstallKueue)
	assert.Equal(t, "aksml", k.Cohort)
	assert.Equal(t, 1.0, k.OvercommitRatio)
	assert.Equal(t, DefaultKueueIntegrations, k.KueueIntegrations)
	assert.Nil(t, k.InstallVolcano, "Volcano settings stay unset under Kueue")

	v := SchedulerSpec{System: SystemVolcano}
	v.Default()
	assert.True(t, *v.InstallVolcano)
	assert.Nil(t, v.InstallKueue, "Kueue settings stay unset under Volcano")
	assert.Empty(t, v.Cohort)
	assert.Empty(t, v.KueueIntegrations)

	off := SchedulerSpec{InstallKueue: ptr(false)}
	off.Default()
	assert.False(t, *off.InstallKueue)

	var team Team
	team.Default()
	assert.Equal(t, 1, team.Weight)
}

// TestMessagesNameTheCallersRoot: the messages that point at another key
// (the scheduler's system or fairSharing, the pool list) name it below the
// roots the caller gives, not the aksml program's config namespace.
func TestMessagesNameTheCallersRoot(t *testing.T) {
	paths := Paths{Teams: field.NewPath("platform:teams"), Pools: field.NewPath("platform:gpuPools"), Scheduler: field.NewPath("platform:scheduler")}
	lowerPriority := func(ts []Team) []Team {
		ts[1].Preemption = Preemption{BorrowWithinCohort: BorrowWithinCohort{Policy: PolicyLowerPriority}}
		return ts
	}
	tests := []struct {
		name  string
		teams func([]Team) []Team
		sched SchedulerSpec
		want  string
	}{
		{"lendingLimit under volcano", func(ts []Team) []Team { return ts }, SchedulerSpec{System: SystemVolcano}, "platform:scheduler.system"},
		{"borrowingLimit without a system", volcanoTeamsOf, SchedulerSpec{System: SystemNone}, "platform:scheduler.system"},
		{"preemption under volcano", func(ts []Team) []Team { return lowerPriority(volcanoTeamsOf(ts)) }, SchedulerSpec{System: SystemVolcano}, "platform:scheduler.system"},
		{"borrowWithinCohort under fair sharing", lowerPriority, SchedulerSpec{}, "platform:scheduler.fairSharing"},
		{"unknown pool", func(ts []Team) []Team { ts[1].GPUQuota["nope"] = 1; return ts }, SchedulerSpec{}, "platform:gpuPools"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateTeams(tc.teams(testTeams()), testPools(), tc.sched, paths).ToAggregate()
			require.Error(t, err)
			assert.ErrorContains(t, err, tc.want)
			assert.NotContains(t, err.Error(), "aksml:")
		})
	}
}

// volcanoTeamsOf drops the Kueue-only lending limit from ts.
func volcanoTeamsOf(ts []Team) []Team {
	ts[0].LendingLimit = nil
	return ts
}
