package queues

import (
	"slices"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
)

// Resolved is the queueing layer decided once (Resolve): the defaulted
// teams and scheduler and the resolved GPU pools, with what the workload
// side asks of each team (CheckAdmission, ResourceQuotaHard,
// TeamPriorities). NewQueues given a Resolved does not default or validate
// again.
type Resolved struct {
	// Teams are the defaulted teams, in config order.
	Teams []Team
	// Pools are the resolved GPU pools.
	Pools []gpupool.Resolved
	// Scheduler is the defaulted scheduler.
	Scheduler SchedulerSpec
	// Paths are the config keys errors are reported under.
	Paths Paths
	// Problems are the errors Resolve returned plus the pools' own
	// problems; NewQueues registers nothing while there are any.
	Problems field.ErrorList
}

// Resolve defaults copies of the teams and the scheduler and checks them
// against the resolved pools once: every team and scheduler setting, the
// lenders, and the capacity check (CheckCapacity). The pools' own problems
// are gpupool.Resolve's to report: they are kept in Problems but not
// returned again. An unset root of paths takes its DefaultPaths value.
func Resolve(teams []Team, pools []gpupool.Resolved, sched SchedulerSpec, paths Paths) (*Resolved, field.ErrorList) {
	ts := make([]Team, len(teams))
	for i, t := range teams {
		t.Default()
		ts[i] = t
	}
	sched.Default()
	paths = paths.orDefault()
	r := &Resolved{Teams: ts, Pools: pools, Scheduler: sched, Paths: paths}
	errs := r.validate()
	r.Problems = append(gpupool.Problems(pools), errs...)
	return r, errs
}

// team returns the defaulted team named name.
func (r *Resolved) team(name string) (Team, bool) {
	for _, t := range r.Teams {
		if t.Name == name {
			return t, true
		}
	}
	return Team{}, false
}

// ResourceQuotaHard is the `hard` of team's namespace ResourceQuota, the
// second guard for pods that bypass the queue (C5.6):
// `requests.<gpu resource>` = AdmissibleGPUs, so it never blocks what the
// queueing system admits. Every GPU resource of the pools has an entry, 0
// where the team can hold none. components/tenancy creates the quota with
// it (tenancy.Team.Quota); nil for a team that is not declared.
func (r *Resolved) ResourceQuotaHard(team string) map[string]string {
	t, ok := r.team(team)
	if !ok {
		return nil
	}
	return resourceQuotaHard(t, r.Teams, r.lenders(), r.Pools, r.Scheduler.System)
}

// QueueName is the queue a workload of team names with system: the Kueue
// LocalQueue (LocalQueueName), the team's Volcano Queue
// (ClusterQueueName), or "" with system none.
func QueueName(system System, team string) string {
	switch system {
	case SystemKueue:
		return LocalQueueName
	case SystemVolcano:
		return ClusterQueueName(team)
	}
	return ""
}

// lenders are the lending-only members that count: Kueue only.
func (r *Resolved) lenders() []Lender {
	if !r.Scheduler.Kueue() {
		return nil
	}
	return r.Scheduler.Lenders
}

// CheckAdmission checks that a workload of team needing units GPU units of
// pool at once can ever be admitted (path names the workload's config key):
// with Kueue the team's ClusterQueue must list the pool's flavor (a gpuQuota
// entry, 0 to only borrow), and units must be at most its nominal quota
// there plus what it may borrow (its borrowingLimit, capped by what the
// other cohort members lend on the pool); with Volcano or none, at most
// what the team may hold of the pool's GPU resource (AdmissibleGPUs, the
// ResourceQuota). Kueue admits a workload all or nothing, so a larger one
// waits forever.
func (r *Resolved) CheckAdmission(team, pool string, units int, path field.Path) field.ErrorList {
	t, ok := r.team(team)
	p := gpupool.Lookup(r.Pools, pool)
	if !ok || p == nil || units <= 0 {
		return nil
	}
	teamPath := r.Paths.Teams.Index(slices.IndexFunc(r.Teams, func(u Team) bool { return u.Name == team }))
	if r.Scheduler.Kueue() {
		nominal, listed := t.GPUQuota[pool]
		if !listed {
			return field.ErrorList{field.Invalid(path.Child("pool"), "team %q has no quota on pool %q, so its ClusterQueue has no flavor %s and Kueue never admits the workload; add %s.gpuQuota.%s (0 to only borrow), or choose a pool the team lists (%s)", team, pool, FlavorName(pool), teamPath, pool, listOrNone(sortedKeys(t.GPUQuota)))}
		}
		others := lenderQuota(r.lenders(), pool)
		for _, u := range r.Teams {
			if _, ok := u.GPUQuota[pool]; ok && u.Name != team {
				others += lendable(u, pool)
			}
		}
		borrow := Borrowable(others, t.BorrowingLimit)
		if most := nominal + borrow; units > most {
			return field.ErrorList{field.Invalid(path, "needs %d %s at once on pool %q, but team %q can be admitted at most %d there (nominal %d + borrowing %d); lower the replicas or GPUs, or raise %s.gpuQuota.%s or its borrowingLimit", units, p.GPUResource, pool, team, most, nominal, borrow, teamPath, pool)}
		}
		return nil
	}
	most := AdmissibleGPUs(t, r.Teams, nil, r.Pools, r.Scheduler.System)[p.GPUResource]
	if units > most {
		return field.ErrorList{field.Invalid(path, "needs %d %s at once, but team %q may hold at most %d (its ResourceQuota); lower the replicas or GPUs, or raise %s.gpuQuota", units, p.GPUResource, team, most, teamPath)}
	}
	return nil
}
