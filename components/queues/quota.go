package queues

import (
	"slices"
	"sort"
	"strconv"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
)

// teamPools returns the pools the team lists in gpuQuota, in the order
// Kueue tries their flavors: FlavorOrder first, then on-demand pools, then
// spot pools, each in pool order.
func teamPools(t Team, pools []gpupool.Resolved) []gpupool.Resolved {
	var out []gpupool.Resolved
	listed := func(name string) bool {
		_, ok := t.GPUQuota[name]
		return ok
	}
	for _, name := range t.FlavorOrder {
		if i := poolIndex(pools, name); i >= 0 && listed(name) && !containsPool(out, name) {
			out = append(out, pools[i])
		}
	}
	for _, spot := range []bool{false, true} {
		for _, p := range pools {
			if p.IsSpot() == spot && listed(p.Name) && !containsPool(out, p.Name) {
				out = append(out, p)
			}
		}
	}
	return out
}

func poolIndex(pools []gpupool.Resolved, name string) int {
	return slices.IndexFunc(pools, func(p gpupool.Resolved) bool { return p.Name == name })
}

func containsPool(pools []gpupool.Resolved, name string) bool { return poolIndex(pools, name) >= 0 }

// gpuResources returns the distinct GPU resource names of the pools,
// nvidia.com/gpu first, then MIG resources sorted.
func gpuResources(pools []gpupool.Resolved) []string {
	seen := map[string]bool{gpupool.GPUResource: true}
	out := []string{gpupool.GPUResource}
	var mig []string
	for _, p := range pools {
		r := p.GPUResource
		if !seen[r] {
			seen[r] = true
			mig = append(mig, r)
		}
	}
	sort.Strings(mig)
	return append(out, mig...)
}

// lendable is what the team lends on a pool (Lent of its nominal quota
// there and its LendingLimit).
func lendable(t Team, pool string) int { return Lent(t.GPUQuota[pool], t.LendingLimit) }

// Lent is what one member of a Kueue cohort lends on a flavor: its nominal
// quota, capped by its lendingLimit when set (Kueue requires lendingLimit
// <= nominalQuota). What a ClusterQueue may borrow there is the sum of
// what the other members lend, capped by its borrowingLimit (Borrowable)
// ("Cluster Queue", borrowingLimit and lendingLimit,
// https://kueue.sigs.k8s.io/docs/concepts/cluster_queue/). The teams'
// admission here and the guardrail over ClusterQueue objects
// (policy/rules, AKSML-JOB-004) share this arithmetic.
func Lent[N int | float64](nominal N, lendingLimit *N) N {
	if lendingLimit != nil && *lendingLimit < nominal {
		return *lendingLimit
	}
	return nominal
}

// Borrowable is what a ClusterQueue may borrow on a flavor: lent, what the
// other members of its cohort lend there (Lent, summed), capped by its
// borrowingLimit when set (nil: no limit).
func Borrowable[N int | float64](lent N, borrowingLimit *N) N {
	if borrowingLimit != nil && *borrowingLimit < lent {
		return *borrowingLimit
	}
	return lent
}

// AdmissibleGPUs is, per GPU resource name, the most GPU units the team can
// hold at once through the queueing system: its nominal quota plus what it
// can borrow. It is the hard limit of the namespace ResourceQuota (C5.6), so
// that the second guard never blocks what the queueing system admits, and
// the capability of the team's Volcano Queue.
//
//   - kueue: per pool the team lists, nominal + min(borrowingLimit, what the
//     other teams listing that pool and the lenders lend on it);
//   - volcano: per resource, nominal + min(borrowingLimit, the other teams'
//     nominal quota) (Volcano queues are reclaimable, so all idle quota lends);
//   - none: nominal quota only.
//
// Every GPU resource of the pools has an entry, 0 where the team has none.
// Teams and pools must be defaulted.
func AdmissibleGPUs(t Team, teams []Team, lenders []Lender, pools []gpupool.Resolved, system System) map[string]int {
	out := map[string]int{}
	for _, r := range gpuResources(pools) {
		out[r] = 0
	}
	switch system {
	case SystemKueue:
		for _, p := range teamPools(t, pools) {
			others := lenderQuota(lenders, p.Name)
			for _, u := range teams {
				if _, ok := u.GPUQuota[p.Name]; ok && u.Name != t.Name {
					others += lendable(u, p.Name)
				}
			}
			out[p.GPUResource] += t.GPUQuota[p.Name] + Borrowable(others, t.BorrowingLimit)
		}
	case SystemVolcano:
		own := nominalByResource(t, pools)
		others := map[string]int{}
		for _, u := range teams {
			if u.Name != t.Name {
				for r, n := range nominalByResource(u, pools) {
					others[r] += n
				}
			}
		}
		for r := range out {
			out[r] = own[r] + Borrowable(others[r], t.BorrowingLimit)
		}
	default:
		for r, n := range nominalByResource(t, pools) {
			out[r] = n
		}
	}
	return out
}

// nominalByResource sums the team's nominal quota per GPU resource name.
func nominalByResource(t Team, pools []gpupool.Resolved) map[string]int {
	out := map[string]int{}
	for _, p := range pools {
		if n, ok := t.GPUQuota[p.Name]; ok {
			out[p.GPUResource] += n
		}
	}
	return out
}

// totalQuota is a gpuQuota's sum over all pools.
func totalQuota(quota map[string]int) int {
	total := 0
	for _, n := range quota {
		total += n
	}
	return total
}

// resourceQuotaHard is the `hard` of the team namespace's ResourceQuota:
// `requests.<gpu resource>` = AdmissibleGPUs. Extended resources can only be
// limited on requests (their requests always equal their limits).
func resourceQuotaHard(t Team, teams []Team, lenders []Lender, pools []gpupool.Resolved, system System) map[string]string {
	hard := map[string]string{}
	for r, n := range AdmissibleGPUs(t, teams, lenders, pools, system) {
		hard["requests."+r] = strconv.Itoa(n)
	}
	return hard
}

// CPUMemoryBound is the most cpu (cores) and memory (bytes) the team's
// workloads can hold at once through the queueing system: its nominal
// quota plus what it may borrow, that is its cpuBorrowingLimit and
// memoryBorrowingLimit or, without a limit, every other team's and
// lender's nominal quota (with system none, the nominal quota only).
// Kueue charges the cpu and memory of GPU pods and CPU-only pods alike to
// the team's cpu flavor (clusterQueueSpec), so the bound covers both.
// components/tenancy sizes the namespace's `requests.cpu` and
// `requests.memory` quota with it, which therefore never blocks what the
// queue admits. ok is false for a team that is not declared.
func (r *Resolved) CPUMemoryBound(team string) (cpu, memory float64, ok bool) {
	t, ok := r.team(team)
	if !ok {
		return 0, 0, false
	}
	cpu, _ = field.ParseQuantity(t.CPU)
	memory, _ = field.ParseQuantity(t.Memory)
	if r.Scheduler.System == SystemNone {
		return cpu, memory, true
	}
	var otherCPU, otherMemory float64
	for _, u := range r.Teams {
		if u.Name != t.Name {
			c, _ := field.ParseQuantity(u.CPU)
			m, _ := field.ParseQuantity(u.Memory)
			otherCPU, otherMemory = otherCPU+c, otherMemory+m
		}
	}
	for _, l := range r.lenders() {
		c, _ := field.ParseQuantity(l.CPU)
		m, _ := field.ParseQuantity(l.Memory)
		otherCPU, otherMemory = otherCPU+c, otherMemory+m
	}
	return cpu + borrowable(t.CPUBorrowingLimit, otherCPU), memory + borrowable(t.MemoryBorrowingLimit, otherMemory), true
}

// borrowable is what a team may borrow of others: its limit (a quantity)
// capped by others, or others without a limit.
func borrowable(limit string, others float64) float64 {
	if limit == "" {
		return others
	}
	l, _ := field.ParseQuantity(limit)
	return min(l, others)
}
