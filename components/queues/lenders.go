package queues

import (
	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
)

// LenderLabel carries a lending-only member's name on its ClusterQueue.
const LenderLabel = "aksml.io/lender"

// Lender is lending-only capacity, `aksml:scheduler.lenders[i]`: a
// ClusterQueue `<name>-gpu` in the cohort that holds nominal quota and lends
// all of it to the teams, and has no namespace, LocalQueue, claims or
// workloads of its own (its namespaceSelector is unset, which selects no
// namespace, and its borrowingLimit is 0). Teams borrow from it on the pools
// they list in gpuQuota (0 to borrow only), within their borrowing limits.
// Kueue only.
type Lender struct {
	// Name names the ClusterQueue (`<name>-gpu`): a DNS label, at most 30
	// characters, different from every team. Required.
	Name string `json:"name" pulumi:"name"`
	// GPUQuota is the GPU quota it lends per GPU pool name (MIG instances
	// on MIG pools). It counts in the pool capacity check like a team's.
	// Default none.
	GPUQuota map[string]int `json:"gpuQuota,omitempty" pulumi:"gpuQuota,optional"`
	// CPU is the cpu quota it lends, a Kubernetes quantity. Default none.
	CPU string `json:"cpu,omitempty" pulumi:"cpu,optional"`
	// Memory is the memory quota it lends, a Kubernetes quantity. Default
	// none.
	Memory string `json:"memory,omitempty" pulumi:"memory,optional"`
}

// validateLenders checks the lenders (at paths.Scheduler's lenders) against
// the pools, the teams and the selected system.
func validateLenders(lenders []Lender, teams []Team, poolNames []string, sched SchedulerSpec, paths Paths) field.ErrorList {
	path, teamsPath := paths.Scheduler.Child("lenders"), paths.Teams
	if len(lenders) == 0 {
		return nil
	}
	if !sched.Kueue() {
		return field.ErrorList{field.Forbidden(path, "is a kueue setting but system is %q; run one primary queueing system (AKS MLOps best practices): remove lenders, or set system kueue", sched.System)}
	}
	var errs field.ErrorList
	teamIndex := map[string]int{}
	for i, t := range teams {
		teamIndex[t.Name] = i
	}
	seen := map[string]int{}
	for i, l := range lenders {
		p := path.Index(i)
		errs = append(errs, validateQueueName(l.Name, "lender", p.Child("name"))...)
		if j, ok := teamIndex[l.Name]; ok && l.Name != "" {
			errs = append(errs, field.Invalid(p.Child("name"), "%q is the name of team %s; both would own ClusterQueue %s: choose another name", l.Name, teamsPath.Index(j), ClusterQueueName(l.Name)))
		}
		// The lender's ClusterQueue is registered as "cq-lender-<name>", a
		// team's as "cq-<team>": team "lender-<name>" would take the same
		// Pulumi name (a duplicate URN fails the whole preview).
		if j, ok := teamIndex["lender-"+l.Name]; ok && l.Name != "" {
			errs = append(errs, field.Invalid(p.Child("name"), "%q: team %s is named %q, and the lender's ClusterQueue and that team's would both be registered as Pulumi resource cq-lender-%s; rename the lender (or the team)", l.Name, teamsPath.Index(j), "lender-"+l.Name, l.Name))
		}
		if j, dup := seen[l.Name]; dup && l.Name != "" {
			errs = append(errs, field.Duplicate(p.Child("name"), "%q is already defined at %s; lender names must be unique", l.Name, path.Index(j)))
		} else {
			seen[l.Name] = i
		}
		errs = append(errs, validateGPUQuota(l.GPUQuota, poolNames, paths.Pools, p.Child("gpuQuota"))...)
		if l.CPU != "" {
			errs = append(errs, validateQuantity(l.CPU, "cpu", `"64" or "500m"`, p.Child("cpu"))...)
		}
		if l.Memory != "" {
			errs = append(errs, validateMemory(l.Memory, p.Child("memory"))...)
		}
		if !anyPositive(l.GPUQuota) && isZero(l.CPU) && isZero(l.Memory) {
			errs = append(errs, field.Required(p, "capacity to lend: gpuQuota on at least one pool, cpu or memory"))
		}
	}
	return errs
}

// anyPositive reports whether a gpuQuota lends anything.
func anyPositive(quota map[string]int) bool {
	for _, n := range quota {
		if n > 0 {
			return true
		}
	}
	return false
}

// isZero reports whether a quantity is unset or zero.
func isZero(q string) bool {
	v, ok := field.ParseQuantity(q)
	return q == "" || (ok && v == 0)
}

// lenderPools returns the pools the lender lends on, in pool order.
func lenderPools(l Lender, pools []gpupool.Resolved) []gpupool.Resolved {
	var out []gpupool.Resolved
	for _, p := range pools {
		if _, ok := l.GPUQuota[p.Name]; ok {
			out = append(out, p)
		}
	}
	return out
}

// lenderClusterQueueSpec is the spec of a lending-only ClusterQueue: its
// quota in the same resource groups as the teams' (GPU resources per pool,
// cpu and memory on the CPU flavor), borrowingLimit 0, no lendingLimit (all
// of it lends), no namespaceSelector (no namespace may submit to it) and no
// preemption (it has no workloads).
func lenderClusterQueueSpec(l Lender, pools []gpupool.Resolved, cohort string) map[string]any {
	groups := gpuGroups(lenderPools(l, pools), pools, func(p gpupool.Resolved, r string) map[string]any {
		return map[string]any{"name": r, "nominalQuota": itoa(l.GPUQuota[p.Name]), "borrowingLimit": "0"}
	})
	if !isZero(l.CPU) || !isZero(l.Memory) {
		groups = append(groups, cpuGroup(
			map[string]any{"name": CPUResource, "nominalQuota": orZero(l.CPU), "borrowingLimit": "0"},
			map[string]any{"name": MemoryResource, "nominalQuota": orZero(l.Memory), "borrowingLimit": "0"},
		))
	}
	return map[string]any{
		"queueingStrategy": QueueingStrategy,
		"cohortName":       cohort,
		"resourceGroups":   groups,
	}
}

func orZero(q string) string {
	if q == "" {
		return "0"
	}
	return q
}

// lenderQuota is what the lenders lend on a pool.
func lenderQuota(lenders []Lender, pool string) int {
	n := 0
	for _, l := range lenders {
		n += l.GPUQuota[pool]
	}
	return n
}
