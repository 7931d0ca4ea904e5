package queues

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
)

// Paths names where each part of the configuration lives, so that every
// error names the key a user edits.
type Paths struct {
	// Teams is the team list (the aksml program: `aksml:teams`).
	Teams field.Path
	// Pools is the GPU pool list (the aksml program: `aksml:gpuPools`).
	Pools field.Path
	// Scheduler is the scheduler object (the aksml program: `aksml:scheduler`).
	Scheduler field.Path
}

// DefaultPaths are the error-path roots when the caller gives none: teams,
// gpuPools and scheduler. They carry no program's config namespace: the
// aksml program passes aksml:teams, aksml:gpuPools and aksml:scheduler.
func DefaultPaths() Paths {
	return Paths{
		Teams:     field.NewPath("teams"),
		Pools:     field.NewPath("gpuPools"),
		Scheduler: field.NewPath("scheduler"),
	}
}

// orDefault fills each empty root of p from DefaultPaths.
func (p Paths) orDefault() Paths {
	d := DefaultPaths()
	if p.Teams == "" {
		p.Teams = d.Teams
	}
	if p.Pools == "" {
		p.Pools = d.Pools
	}
	if p.Scheduler == "" {
		p.Scheduler = d.Scheduler
	}
	return p
}

// ValidateTeams checks the teams against the GPU pools and the scheduler
// settings and returns every problem at once, each naming its config key:
// Resolve's errors, for callers that only check. Raw config can be passed.
// The pools' own problems are gpupool.Resolve's to report and are not
// repeated; pools whose VM size is not in the catalogue are left out of the
// capacity check.
func ValidateTeams(teams []Team, pools []gpupool.Spec, sched SchedulerSpec, paths Paths) field.ErrorList {
	resolved, _ := gpupool.Resolve(pools, paths.Pools)
	_, errs := Resolve(teams, resolved, sched, paths)
	return errs
}

// validate checks the defaulted teams and scheduler against the pools.
func (r *Resolved) validate() field.ErrorList {
	teams, pools, sched, paths := r.Teams, r.Pools, r.Scheduler, r.Paths
	errs := sched.Validate(paths.Scheduler)

	poolNames := make([]string, len(pools))
	for i, p := range pools {
		poolNames[i] = p.Name
	}
	seen := map[string]int{}
	for i, t := range teams {
		path := paths.Teams.Index(i)
		errs = append(errs, validateTeam(t, poolNames, sched, paths, path)...)
		errs = append(errs, t.Preemption.validate(sched, paths, path.Child("preemption"))...)
		if j, dup := seen[t.Name]; dup && t.Name != "" {
			errs = append(errs, field.Duplicate(path.Child("name"), "team %q is already defined at %s; team names must be unique", t.Name, paths.Teams.Index(j)))
		} else {
			seen[t.Name] = i
		}
	}
	errs = append(errs, validateLenders(sched.Lenders, teams, poolNames, sched, paths)...)
	errs = append(errs, validateCohortPeers(teams, sched, paths)...)
	errs = append(errs, validateProvisioning(sched, pools, paths)...)
	ratio := sched.OvercommitRatio
	if !validRatio(ratio) {
		ratio = DefaultOvercommitRatio
	}
	return append(errs, CheckCapacity(teams, r.lenders(), pools, ratio, paths)...)
}

// validateCohortPeers refuses Kueue settings that act only between cohort
// members when a team has none: a ClusterQueue borrows the unused nominal
// quota of the other ClusterQueues in its cohort and lends to them
// ("Cohort", https://kueue.sigs.k8s.io/docs/concepts/cohort/), and
// fairSharing.weight only weighs teams under fair sharing ("Fair Sharing",
// https://kueue.sigs.k8s.io/docs/concepts/fair_sharing/).
func validateCohortPeers(teams []Team, sched SchedulerSpec, paths Paths) field.ErrorList {
	if !sched.Kueue() {
		return nil
	}
	var errs field.ErrorList
	alone := len(teams) == 1 && len(sched.Lenders) == 0
	for i, t := range teams {
		path := paths.Teams.Index(i)
		if alone && t.BorrowingLimit != nil && *t.BorrowingLimit > 0 {
			errs = append(errs, field.Invalid(path.Child("borrowingLimit"), "has no one to borrow from: team %q is the only member of the cohort (no other team, no %s); remove it, or add a team or lender", t.Name, paths.Scheduler.Child("lenders")))
		}
		if alone && t.LendingLimit != nil && *t.LendingLimit > 0 {
			errs = append(errs, field.Invalid(path.Child("lendingLimit"), "has no one to lend to: team %q is the only member of the cohort; remove it, or add a team", t.Name))
		}
		if t.Weight != DefaultWeight && sched.FairSharing != nil && !*sched.FairSharing {
			errs = append(errs, field.Invalid(path.Child("weight"), "%d weighs nothing: %s is false, and Kueue reads the weight only under fair sharing; remove weight, or turn fairSharing on", t.Weight, paths.Scheduler.Child("fairSharing")))
		}
	}
	return errs
}

// validRatio reports whether an overcommit ratio is a finite number >= 1.
func validRatio(r float64) bool { return !math.IsNaN(r) && !math.IsInf(r, 0) && r >= 1 }

// Validate checks a defaulted SchedulerSpec. Settings that belong to a
// system other than the selected one are errors: one primary queueing
// system runs at a time (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops)).
func (s SchedulerSpec) Validate(path field.Path) field.ErrorList {
	var errs field.ErrorList
	if !slices.Contains(Systems, s.System) {
		errs = append(errs, field.NotSupported(path.Child("system"), s.System, Systems))
	}
	if !validRatio(s.OvercommitRatio) {
		errs = append(errs, field.Invalid(path.Child("overcommitRatio"), "%v is not a factor >= 1; use 1.0 for no overcommit, or a larger factor to hand out more GPU quota than the pools hold", s.OvercommitRatio))
	}

	other := func(key string, owner System) *field.Error {
		return field.Forbidden(path.Child(key), "is a %s setting but system is %q; run one primary queueing system (AKS MLOps best practices): remove %s, or set system %s", owner, s.System, key, owner)
	}
	if !s.Kueue() {
		if s.InstallKueue != nil {
			errs = append(errs, other("installKueue", SystemKueue))
		}
		if s.Cohort != "" {
			errs = append(errs, other("cohort", SystemKueue))
		}
		if len(s.KueueIntegrations) > 0 {
			errs = append(errs, other("kueueIntegrations", SystemKueue))
		}
		if len(s.KueueChartValues) > 0 {
			errs = append(errs, other("kueueChartValues", SystemKueue))
		}
		if s.FairSharing != nil {
			errs = append(errs, other("fairSharing", SystemKueue))
		}
	}
	errs = append(errs, validatePriorities(s.Priorities, path.Child("priorities"))...)
	if !s.Volcano() {
		if s.InstallVolcano != nil {
			errs = append(errs, other("installVolcano", SystemVolcano))
		}
		if len(s.VolcanoChartValues) > 0 {
			errs = append(errs, other("volcanoChartValues", SystemVolcano))
		}
	}

	if s.Kueue() {
		if !field.IsDNSSubdomain(s.Cohort) {
			errs = append(errs, field.Invalid(path.Child("cohort"), "%q is not a valid cohort name: use lowercase letters, digits, '-' and '.', at most 253 characters", s.Cohort))
		}
		errs = append(errs, field.Unique(path.Child("kueueIntegrations"), s.KueueIntegrations, "%q", field.OneOf(KnownKueueIntegrations))...)
	}
	return errs
}

// kueueOnly is the error for a Kueue setting (key, at p) while the
// scheduler runs another system; it names the system key below the
// caller's scheduler root.
func kueueOnly(p field.Path, key string, sched SchedulerSpec, paths Paths) *field.Error {
	return field.Forbidden(p, "is a kueue setting but %s is %q; run one primary queueing system (AKS MLOps best practices): remove %s, or set system kueue", paths.Scheduler.Child("system"), sched.System, key)
}

// validateTeam checks one defaulted team at path; paths name the other
// sections its messages point to.
func validateTeam(t Team, poolNames []string, sched SchedulerSpec, paths Paths, path field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateQueueName(t.Name, "team", path.Child("name"))...)
	errs = append(errs, validateGPUQuota(t.GPUQuota, poolNames, paths.Pools, path.Child("gpuQuota"))...)
	errs = append(errs, validateQuantity(t.CPU, "cpu", `"64" or "500m"`, path.Child("cpu"))...)
	errs = append(errs, validateMemory(t.Memory, path.Child("memory"))...)
	errs = append(errs, validateResourceLimits(t, sched, paths, path)...)

	if t.BorrowingLimit != nil {
		p := path.Child("borrowingLimit")
		switch {
		case *t.BorrowingLimit < 0:
			errs = append(errs, field.Invalid(p, "%d is negative; use 0 to turn borrowing off, or remove it for no limit", *t.BorrowingLimit))
		case sched.System == SystemNone:
			errs = append(errs, field.Invalid(p, "needs a queueing system to borrow through; set %s to kueue or volcano, or remove borrowingLimit", paths.Scheduler.Child("system")))
		case sched.Kueue() && len(t.GPUQuota) == 0:
			errs = append(errs, field.Invalid(p, "the team lists no pools in gpuQuota, so it has no flavor to borrow on; list the pools it may borrow on (0 to borrow only)"))
		}
	}
	if t.LendingLimit != nil {
		p := path.Child("lendingLimit")
		switch {
		case *t.LendingLimit < 0:
			errs = append(errs, field.Invalid(p, "%d is negative; use 0 to lend nothing, or remove it to lend all unused quota", *t.LendingLimit))
		case !sched.Kueue():
			errs = append(errs, kueueOnly(p, "lendingLimit", sched, paths))
		case *t.LendingLimit > totalQuota(t.GPUQuota):
			errs = append(errs, field.Invalid(p, "%d exceeds the team's nominal GPU quota (%d); a team cannot lend more than it holds: lower lendingLimit or raise gpuQuota", *t.LendingLimit, totalQuota(t.GPUQuota)))
		}
	}

	if t.Weight < 1 || t.Weight > MaxWeight {
		errs = append(errs, field.Invalid(path.Child("weight"), "%d is out of range; use 1 to %d (default %d)", t.Weight, MaxWeight, DefaultWeight))
	}

	if len(t.FlavorOrder) > 0 && !sched.Kueue() {
		errs = append(errs, kueueOnly(path.Child("flavorOrder"), "flavorOrder", sched, paths))
	}
	errs = append(errs, field.Unique(path.Child("flavorOrder"), t.FlavorOrder, "pool %q", func(p field.Path, pool string) *field.Error {
		if _, ok := t.GPUQuota[pool]; !ok {
			return field.Invalid(p, "pool %q has no entry in gpuQuota; order only pools the team has quota on: %s", pool, listOrNone(sortedKeys(t.GPUQuota)))
		}
		return nil
	})...)
	return errs
}

// validateQueueName checks that name is a usable team or lender name (kind
// "team" or "lender"); both name a ClusterQueue `<name>-gpu`. A team name
// is also its namespace: components/tenancy, which creates it, rejects the
// names the platform reserves.
func validateQueueName(name, kind string, path field.Path) field.ErrorList {
	switch {
	case name == "" && kind == "team":
		return field.ErrorList{field.Required(path, "a team name; it is also the namespace name (lowercase letters, digits and '-', at most 30 characters)")}
	case name == "":
		return field.ErrorList{field.Required(path, fmt.Sprintf("a %s name; it names the ClusterQueue <name>-gpu (lowercase letters, digits and '-', at most 30 characters)", kind))}
	case len(name) > MaxTeamNameLength || !field.IsDNSLabel(name):
		return field.ErrorList{field.Invalid(path, "%q is not a valid %s name: use lowercase letters, digits and '-', start and end with a letter or digit, at most %d characters", name, kind, MaxTeamNameLength)}
	}
	return nil
}

// validateGPUQuota checks a gpuQuota map against the pool names (the
// pools at poolsPath).
func validateGPUQuota(quota map[string]int, poolNames []string, poolsPath, path field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, pool := range sortedKeys(quota) {
		p := path.Key(pool)
		if !slices.Contains(poolNames, pool) {
			errs = append(errs, field.Invalid(p, "pool %q is not in %s; use one of %s", pool, poolsPath, listOrNone(poolNames)))
		}
		if n := quota[pool]; n < 0 {
			errs = append(errs, field.Invalid(p, "%d is negative; use 0 or more GPUs", n))
		}
	}
	return errs
}

// validateQuantity checks a required, non-negative Kubernetes quantity.
func validateQuantity(q, what, example string, path field.Path) field.ErrorList {
	if q == "" {
		return field.ErrorList{field.Required(path, fmt.Sprintf("the %s quota as a Kubernetes quantity, e.g. %s", what, example))}
	}
	if _, ok := field.ParseQuantity(q); !ok {
		return field.ErrorList{field.Invalid(path, "%q is not a Kubernetes quantity; write e.g. %s", q, example)}
	}
	return nil
}

// validateMemory checks a required memory quantity.
func validateMemory(q string, path field.Path) field.ErrorList {
	errs := validateQuantity(q, "memory", `"256Gi"`, path)
	if strings.HasSuffix(q, "m") {
		errs = append(errs, field.Invalid(path, "%q is in millibytes; use a binary suffix such as Mi or Gi", q))
	} else if v, ok := field.ParseQuantity(q); ok && v < field.MinContainerMemory {
		errs = append(errs, field.Invalid(path, "%q bytes holds no container (each needs at least %s to start), so the team could run nothing; did you leave off the unit? write e.g. \"256Gi\"", q, field.MinContainerMemoryText))
	}
	return errs
}

// validateResourceLimits checks the team's cpu and memory borrowing and
// lending limits: Kueue only, quantities, and a lending limit at most the
// nominal quota (Kueue rejects a ClusterQueue whose lendingLimit exceeds
// its nominalQuota, so this must fail at preview, not during the update).
func validateResourceLimits(t Team, sched SchedulerSpec, paths Paths, path field.Path) field.ErrorList {
	var errs field.ErrorList
	limits := []struct {
		key, value, nominal, what string
		lending                   bool
	}{
		{"cpuBorrowingLimit", t.CPUBorrowingLimit, t.CPU, "cpu", false},
		{"cpuLendingLimit", t.CPULendingLimit, t.CPU, "cpu", true},
		{"memoryBorrowingLimit", t.MemoryBorrowingLimit, t.Memory, "memory", false},
		{"memoryLendingLimit", t.MemoryLendingLimit, t.Memory, "memory", true},
	}
	for _, l := range limits {
		if l.value == "" {
			continue
		}
		p := path.Child(l.key)
		v, ok := field.ParseQuantity(l.value)
		nominal, nominalOK := field.ParseQuantity(l.nominal)
		switch {
		case !sched.Kueue():
			errs = append(errs, kueueOnly(p, l.key, sched, paths))
		case !ok:
			errs = append(errs, field.Invalid(p, "%q is not a Kubernetes quantity; write e.g. \"8\" for cpu or \"32Gi\" for memory", l.value))
		case l.what == "memory" && strings.HasSuffix(l.value, "m"):
			errs = append(errs, field.Invalid(p, "%q is in millibytes; use a binary suffix such as Mi or Gi", l.value))
		case l.lending && nominalOK && v > nominal:
			errs = append(errs, field.Invalid(p, "%s exceeds the team's nominal %s quota (%s); a team cannot lend more than it holds: lower %s or raise %s", l.value, l.what, l.nominal, l.key, l.what))
		}
	}
	return errs
}

// CheckCapacity is the capacity check (C5.4): on every GPU pool the teams'
// nominal quota must fit what the pool holds at its node ceiling
// (gpupool.Resolved.Capacity: GPUs, or MIG instances on MIG pools) times
// overcommitRatio. Kueue quota is
// a scheduling quota, not an Azure one (AKS MLOps best practices): quota the pools cannot
// provide leaves admitted work pending. Borrowing only redistributes
// nominal quota, so nominal quota is what must fit. Pools with a VM size
// outside the catalogue or an unknown MIG profile (not Sized) are skipped
// (gpupool validation reports them).
// Teams must be defaulted.
func CheckCapacity(teams []Team, lenders []Lender, pools []gpupool.Resolved, overcommitRatio float64, paths Paths) field.ErrorList {
	var errs field.ErrorList
	for _, p := range pools {
		if !p.Sized {
			continue
		}
		total := 0
		var parts []string
		for _, t := range teams {
			if n := t.GPUQuota[p.Name]; n > 0 {
				total += n
				parts = append(parts, fmt.Sprintf("%s %d", t.Name, n))
			}
		}
		for _, l := range lenders {
			if n := l.GPUQuota[p.Name]; n > 0 {
				total += n
				parts = append(parts, fmt.Sprintf("lender %s %d", l.Name, n))
			}
		}
		capacity := p.Capacity
		allowed := int(math.Floor(float64(capacity)*overcommitRatio + 1e-9))
		if total <= allowed {
			continue
		}
		holds := describeCapacity(&p)
		fix := "or set"
		if overcommitRatio > 1 {
			holds += fmt.Sprintf(" and overcommitRatio %v allows %d", overcommitRatio, allowed)
			fix = "or raise"
		}
		errs = append(errs, field.Invalid(paths.Teams,
			"nominal %s quota on pool %q is %d (%s) but the pool holds %s; lower the quotas, raise %s, %s %s",
			p.GPUResource, p.Name, total, strings.Join(parts, ", "), holds,
			p.NodeCeilingPath(), fix, paths.Scheduler.Child("overcommitRatio")))
	}
	return errs
}

// describeCapacity explains p.Capacity, e.g. "8 GPUs (maxCount 8 × 1)".
// A Managed pool holds count nodes (no autoscaler): "8 GPUs (count 8 × 1)".
func describeCapacity(p *gpupool.Resolved) string {
	sku, _ := p.SKU()
	n, k := p.NodeCeiling()
	nodes := fmt.Sprintf("%s %d", k, n)
	if p.MIGEnabled() {
		device, perGPU := p.MIGDevicesPerGPU()
		return fmt.Sprintf("%d MIG instances (%s × %d GPUs × %d %s)", p.Capacity, nodes, sku.GPUsPerNode, perGPU, device)
	}
	return fmt.Sprintf("%d GPUs (%s × %d)", p.Capacity, nodes, sku.GPUsPerNode)
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}
