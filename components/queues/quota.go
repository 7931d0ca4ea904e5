package queues

import (
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/aksml/aksml/components/gpupool"
)

// unlimited stands for an unset borrowing limit in the arithmetic below.
const unlimited = math.MaxInt32

// teamPools returns the pools the team lists in gpuQuota, in the order
// Kueue tries their flavors: FlavorOrder first, then on-demand pools, then
// spot pools, each in pool order.
func teamPools(t Team, pools []gpupool.Spec) []gpupool.Spec {
	var out []gpupool.Spec
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

func poolIndex(pools []gpupool.Spec, name string) int {
	return slices.IndexFunc(pools, func(p gpupool.Spec) bool { return p.Name == name })
}

func containsPool(pools []gpupool.Spec, name string) bool { return poolIndex(pools, name) >= 0 }

// gpuResources returns the distinct GPU resource names of the pools,
// nvidia.com/gpu first, then MIG resources sorted.
func gpuResources(pools []gpupool.Spec) []string {
	seen := map[string]bool{gpupool.GPUResource: true}
	out := []string{gpupool.GPUResource}
	var mig []string
	for _, p := range pools {
		r := GPUResourceName(p)
		if !seen[r] {
			seen[r] = true
			mig = append(mig, r)
		}
	}
	sort.Strings(mig)
	return append(out, mig...)
}

// lendable is what the team lends on a pool: its nominal quota, capped by
// LendingLimit (Kueue requires lendingLimit <= nominalQuota).
func lendable(t Team, pool string) int {
	n := t.GPUQuota[pool]
	if t.LendingLimit != nil && *t.LendingLimit < n {
		return *t.LendingLimit
	}
	return n
}

// borrowLimit is the team's borrowing limit, or unlimited.
func borrowLimit(t Team) int {
	if t.BorrowingLimit == nil {
		return unlimited
	}
	return *t.BorrowingLimit
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
func AdmissibleGPUs(t Team, teams []Team, lenders []Lender, pools []gpupool.Spec, system System) map[string]int {
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
			out[GPUResourceName(p)] += t.GPUQuota[p.Name] + min(borrowLimit(t), others)
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
			out[r] = own[r] + min(borrowLimit(t), others[r])
		}
	default:
		for r, n := range nominalByResource(t, pools) {
			out[r] = n
		}
	}
	return out
}

// nominalByResource sums the team's nominal quota per GPU resource name.
func nominalByResource(t Team, pools []gpupool.Spec) map[string]int {
	out := map[string]int{}
	for _, p := range pools {
		if n, ok := t.GPUQuota[p.Name]; ok {
			out[GPUResourceName(p)] += n
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
func resourceQuotaHard(t Team, teams []Team, lenders []Lender, pools []gpupool.Spec, system System) map[string]string {
	hard := map[string]string{}
	for r, n := range AdmissibleGPUs(t, teams, lenders, pools, system) {
		hard["requests."+r] = strconv.Itoa(n)
	}
	return hard
}
