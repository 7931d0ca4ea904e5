package queues

import (
	"slices"

	"github.com/aksml/aksml/components/field"
)

// KueuePolicy is a Kueue ClusterQueue preemption policy ("Preemption",
// https://kueue.sigs.k8s.io/docs/concepts/preemption/ and the
// ClusterQueuePreemption type of kueue.x-k8s.io/v1beta2).
type KueuePolicy string

// Kueue preemption policies.
const (
	// PolicyNever never preempts.
	PolicyNever KueuePolicy = "Never"
	// PolicyLowerPriority preempts workloads of lower priority only.
	PolicyLowerPriority KueuePolicy = "LowerPriority"
	// PolicyLowerOrNewerEqualPriority also preempts workloads of equal
	// priority admitted later (withinClusterQueue only).
	PolicyLowerOrNewerEqualPriority KueuePolicy = "LowerOrNewerEqualPriority"
	// PolicyAny preempts any workload regardless of priority
	// (reclaimWithinCohort only).
	PolicyAny KueuePolicy = "Any"
)

// Valid values per field, as Kueue's API enumerates them.
var (
	// WithinClusterQueuePolicies are the valid Preemption.WithinClusterQueue values.
	WithinClusterQueuePolicies = []KueuePolicy{PolicyNever, PolicyLowerPriority, PolicyLowerOrNewerEqualPriority}
	// ReclaimWithinCohortPolicies are the valid Preemption.ReclaimWithinCohort values.
	ReclaimWithinCohortPolicies = []KueuePolicy{PolicyNever, PolicyLowerPriority, PolicyAny}
	// BorrowWithinCohortPolicies are the valid BorrowWithinCohort.Policy values.
	BorrowWithinCohortPolicies = []KueuePolicy{PolicyNever, PolicyLowerPriority}
)

// Preemption defaults: a team gets its quota back from borrowers whatever
// their priority, higher priority displaces lower inside a team, and (read
// only without fair sharing) a workload that must borrow preempts nothing in
// other teams. Under fair sharing (the default) a workload that borrows may
// still preempt a team that borrows more: see Preemption.
const (
	// DefaultWithinClusterQueue is LowerPriority: inside a team,
	// inference-critical displaces training-batch.
	DefaultWithinClusterQueue = PolicyLowerPriority
	// DefaultReclaimWithinCohort is Any: a team's nominal quota is a
	// guarantee, so the team takes it back from borrowers whatever their
	// priority.
	DefaultReclaimWithinCohort = PolicyAny
	// DefaultBorrowWithinCohort is Never: without fair sharing, a workload
	// that has to borrow to fit never evicts another team's workloads.
	DefaultBorrowWithinCohort = PolicyNever
)

// Preemption is a team's Kueue preemption policy (ClusterQueue
// spec.preemption), `aksml:teams[i].preemption`. Kueue only.
//
// Under fair sharing (aksml:scheduler.fairSharing, default on) Kueue
// decides preemptions across teams by share: a team below its fair share
// may preempt, from teams that borrow, the workloads reclaimWithinCohort
// allows, and borrowWithinCohort is not consulted (Kueue v0.17.0
// pkg/scheduler/preemption/preemption.go: getTargets takes fairPreemptions,
// whose candidates come from findCandidates with withinClusterQueue and
// reclaimWithinCohort only; tests/cluster/kueue_policy_test.go shows it). Without fair sharing
// Kueue only reclaims for a team that stays within its nominal quota, and
// borrowWithinCohort says what a borrowing workload may preempt.
type Preemption struct {
	// WithinClusterQueue says which of the team's own workloads a pending
	// workload of the team may preempt: Never, LowerPriority (default) or
	// LowerOrNewerEqualPriority.
	WithinClusterQueue KueuePolicy `json:"withinClusterQueue,omitempty" pulumi:"withinClusterQueue,optional"`
	// ReclaimWithinCohort says which workloads of borrowing teams a pending
	// workload of this team may preempt to get quota back: Never,
	// LowerPriority or Any (default).
	ReclaimWithinCohort KueuePolicy `json:"reclaimWithinCohort,omitempty" pulumi:"reclaimWithinCohort,optional"`
	// BorrowWithinCohort says whether a workload that must borrow may
	// preempt other teams' lower-priority workloads. Default policy Never.
	BorrowWithinCohort BorrowWithinCohort `json:"borrowWithinCohort,omitempty" pulumi:"borrowWithinCohort,optional"`
}

// BorrowWithinCohort is Preemption.BorrowWithinCohort.
type BorrowWithinCohort struct {
	// Policy is Never (default) or LowerPriority. LowerPriority needs
	// reclaimWithinCohort other than Never and aksml:scheduler.fairSharing
	// false (Kueue ignores it under fair sharing).
	Policy KueuePolicy `json:"policy,omitempty" pulumi:"policy,optional"`
	// MaxPriorityThreshold limits LowerPriority to workloads whose priority
	// is at most this value. Default unset: any lower priority. Only with
	// policy LowerPriority.
	MaxPriorityThreshold *int `json:"maxPriorityThreshold,omitempty" pulumi:"maxPriorityThreshold,optional"`
}

// Default fills unset fields with their documented defaults.
func (p *Preemption) Default() {
	if p.WithinClusterQueue == "" {
		p.WithinClusterQueue = DefaultWithinClusterQueue
	}
	if p.ReclaimWithinCohort == "" {
		p.ReclaimWithinCohort = DefaultReclaimWithinCohort
	}
	if p.BorrowWithinCohort.Policy == "" {
		p.BorrowWithinCohort.Policy = DefaultBorrowWithinCohort
	}
}

// isDefault reports whether a defaulted Preemption equals the defaults.
func (p Preemption) isDefault() bool {
	d := Preemption{}
	d.Default()
	return p.WithinClusterQueue == d.WithinClusterQueue && p.ReclaimWithinCohort == d.ReclaimWithinCohort &&
		p.BorrowWithinCohort.Policy == d.BorrowWithinCohort.Policy && p.BorrowWithinCohort.MaxPriorityThreshold == nil
}

// validate checks a defaulted Preemption at path; paths name the
// scheduler keys its messages point to.
func (p Preemption) validate(sched SchedulerSpec, paths Paths, path field.Path) field.ErrorList {
	var errs field.ErrorList
	if !p.isDefault() && !sched.Kueue() {
		return field.ErrorList{kueueOnly(path, "preemption", sched, paths)}
	}
	if !slices.Contains(WithinClusterQueuePolicies, p.WithinClusterQueue) {
		errs = append(errs, field.NotSupported(path.Child("withinClusterQueue"), p.WithinClusterQueue, WithinClusterQueuePolicies))
	}
	if !slices.Contains(ReclaimWithinCohortPolicies, p.ReclaimWithinCohort) {
		errs = append(errs, field.NotSupported(path.Child("reclaimWithinCohort"), p.ReclaimWithinCohort, ReclaimWithinCohortPolicies))
	}
	bp := path.Child("borrowWithinCohort")
	b := p.BorrowWithinCohort
	switch {
	case !slices.Contains(BorrowWithinCohortPolicies, b.Policy):
		errs = append(errs, field.NotSupported(bp.Child("policy"), b.Policy, BorrowWithinCohortPolicies))
	case b.Policy == PolicyLowerPriority && p.ReclaimWithinCohort == PolicyNever:
		errs = append(errs, field.Invalid(bp.Child("policy"), "LowerPriority needs reclaimWithinCohort LowerPriority or Any (Kueue rejects reclaimWithinCohort Never with borrowWithinCohort other than Never)"))
	case b.Policy == PolicyLowerPriority && sched.FairSharingEnabled():
		errs = append(errs, field.Invalid(bp.Child("policy"), "Kueue ignores borrowWithinCohort under fair sharing, where preemption across teams follows their shares; set %s false to use it, or remove it", paths.Scheduler.Child("fairSharing")))
	}
	if b.MaxPriorityThreshold != nil {
		switch {
		case b.Policy != PolicyLowerPriority:
			errs = append(errs, field.Invalid(bp.Child("maxPriorityThreshold"), "only applies with policy LowerPriority; set policy LowerPriority or remove maxPriorityThreshold"))
		case *b.MaxPriorityThreshold < MinPriorityValue || *b.MaxPriorityThreshold > MaxPriorityValue:
			errs = append(errs, field.Invalid(bp.Child("maxPriorityThreshold"), "%d is out of range; use a priority value %d to %d", *b.MaxPriorityThreshold, MinPriorityValue, MaxPriorityValue))
		}
	}
	return errs
}

// spec renders the ClusterQueue spec.preemption of a defaulted Preemption.
func (p Preemption) spec() map[string]any {
	borrow := map[string]any{"policy": string(p.BorrowWithinCohort.Policy)}
	if t := p.BorrowWithinCohort.MaxPriorityThreshold; t != nil {
		borrow["maxPriorityThreshold"] = *t
	}
	return map[string]any{
		"withinClusterQueue":  string(p.WithinClusterQueue),
		"reclaimWithinCohort": string(p.ReclaimWithinCohort),
		"borrowWithinCohort":  borrow,
	}
}
