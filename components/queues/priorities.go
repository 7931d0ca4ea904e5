package queues

import (
	"slices"
	"strings"

	"github.com/aksml/aksml/components/field"
)

// PreemptionPolicy is a PriorityClass's preemptionPolicy: whether pods of
// the class evict lower-priority pods to be scheduled ("PriorityClass",
// https://kubernetes.io/docs/concepts/scheduling-eviction/pod-priority-preemption/#non-preempting-priority-class).
type PreemptionPolicy string

// Valid PriorityClass preemption policies.
const (
	// PreemptLowerPriority lets pods of the class evict lower-priority pods
	// (Kubernetes' default).
	PreemptLowerPriority PreemptionPolicy = "PreemptLowerPriority"
	// PreemptNever: pods of the class wait for room, they never evict.
	PreemptNever PreemptionPolicy = "Never"
)

// PreemptionPolicies lists the valid PriorityClass preemption policies.
var PreemptionPolicies = []PreemptionPolicy{PreemptLowerPriority, PreemptNever}

// Priority value bounds: Kubernetes reserves values above one billion for
// system-critical classes ("PriorityClass", link above), and Kueue's
// WorkloadPriorityClass value is an int32.
const (
	// MaxPriorityValue is the highest value a user PriorityClass may take.
	MaxPriorityValue = 1_000_000_000
	// MinPriorityValue is the lowest int32.
	MinPriorityValue = -2_147_483_648
)

// PriorityLevel is one business priority. Each level creates a
// PriorityClass (pod priority, C5.2) and, with Kueue, a
// WorkloadPriorityClass (queue priority, C5.3) of the same name, value and
// description, so that the queue and the pods express the same priority
// (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops): coordinate Kueue workload priority with Kubernetes pod
// priority). It is an entry of `aksml:scheduler.priorities`.
type PriorityLevel struct {
	// Name is the PriorityClass and WorkloadPriorityClass name, and what
	// workloads name in `priority`: a DNS subdomain, not starting with
	// `system-`. Required.
	Name string `json:"name" pulumi:"name"`
	// Value is the priority: higher runs first and, where preemption allows,
	// evicts lower. -2147483648..1000000000. Required.
	Value int `json:"value" pulumi:"value"`
	// PreemptionPolicy is the PriorityClass's preemptionPolicy:
	// PreemptLowerPriority (default, Kubernetes' default) or Never. It acts
	// on the kube-scheduler; Kueue's admission-time preemption follows the
	// ClusterQueue's preemption settings (Team.Preemption) and the value.
	PreemptionPolicy PreemptionPolicy `json:"preemptionPolicy,omitempty" pulumi:"preemptionPolicy,optional"`
	// Description says when to use the level. Default none.
	Description string `json:"description,omitempty" pulumi:"description,optional"`
}

// DefaultPriorities are the AKS MLOps best practices' two levels (C5.2): training-batch
// (10000, Never) and inference-critical (100000, PreemptLowerPriority).
func DefaultPriorities() []PriorityLevel {
	return []PriorityLevel{
		{Name: PriorityClassTrainingBatch, Value: TrainingBatchValue, PreemptionPolicy: TrainingBatchPreemptionPolicy, Description: TrainingBatchDescription},
		{Name: PriorityClassInferenceCritical, Value: InferenceCriticalValue, PreemptionPolicy: InferenceCriticalPreemptionPolicy, Description: InferenceCriticalDescription},
	}
}

// PriorityNames returns the names of the levels, in order.
func PriorityNames(levels []PriorityLevel) []string {
	out := make([]string, len(levels))
	for i, l := range levels {
		out[i] = l.Name
	}
	return out
}

// ServingOnly reports whether a defaulted level is reserved for teams
// declared Serving: its PriorityClass preempts (PreemptLowerPriority), so
// the kube-scheduler evicts lower-priority pods of any namespace to place
// its pods ("Pod Priority and Preemption",
// https://kubernetes.io/docs/concepts/scheduling-eviction/pod-priority-preemption/).
// Of the default levels that is inference-critical (AKS MLOps best
// practices: latency-sensitive inference may preempt batch training);
// training-batch (Never) is for every team.
func ServingOnly(l PriorityLevel) bool { return l.PreemptionPolicy == PreemptLowerPriority }

// TeamPriorities returns the names of the levels team may use, in order:
// every level of the scheduler, less the ServingOnly ones unless the team
// is Serving. components/tenancy's admission policy allows exactly these
// as priorityClassName and Kueue priority label in the team's namespace;
// nil for a team that is not declared.
func (r *Resolved) TeamPriorities(team string) []string {
	t, ok := r.team(team)
	if !ok {
		return nil
	}
	out := []string{}
	for _, l := range r.Scheduler.Priorities {
		if t.Serving || !ServingOnly(l) {
			out = append(out, l.Name)
		}
	}
	return out
}

// validatePriorities checks defaulted priority levels.
func validatePriorities(levels []PriorityLevel, path field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]int{}
	for i, l := range levels {
		p := path.Index(i)
		switch {
		case l.Name == "":
			errs = append(errs, field.Required(p.Child("name"), "the PriorityClass name workloads refer to, e.g. training-batch"))
		case !field.IsDNSSubdomain(l.Name):
			errs = append(errs, field.Invalid(p.Child("name"), "%q is not a valid PriorityClass name: use lowercase letters, digits, '-' and '.', at most 253 characters", l.Name))
		case strings.HasPrefix(l.Name, "system-"):
			errs = append(errs, field.Forbidden(p.Child("name"), "%q: the system- prefix is reserved by Kubernetes; choose another name", l.Name))
		}
		if j, dup := seen[l.Name]; dup && l.Name != "" {
			errs = append(errs, field.Duplicate(p.Child("name"), "%q is already defined at %s; priority names must be unique", l.Name, path.Index(j)))
		} else {
			seen[l.Name] = i
		}
		if l.Value < MinPriorityValue || l.Value > MaxPriorityValue {
			errs = append(errs, field.Invalid(p.Child("value"), "%d is out of range; use %d to %d (higher values are reserved for system-critical pods)", l.Value, MinPriorityValue, MaxPriorityValue))
		}
		if !slices.Contains(PreemptionPolicies, l.PreemptionPolicy) {
			errs = append(errs, field.NotSupported(p.Child("preemptionPolicy"), l.PreemptionPolicy, PreemptionPolicies))
		}
	}
	// The two levels aksml names keep their documented order: serving
	// (inference-critical) above batch training (training-batch), which it
	// preempts (AKS MLOps best practices, "Configure training and
	// inference priorities", https://learn.microsoft.com/azure/aks/best-practices-ml-ops;
	// Kubernetes "Pod Priority and Preemption": a higher value is the
	// higher priority).
	ic, icOK := seen[PriorityClassInferenceCritical]
	tb, tbOK := seen[PriorityClassTrainingBatch]
	if icOK && tbOK && levels[ic].Value <= levels[tb].Value {
		errs = append(errs, field.Invalid(path.Index(ic).Child("value"), "%d is not above %s's %d: %s would not preempt batch training, against its name and the README (Queues); give it the higher value, or rename the levels", levels[ic].Value, PriorityClassTrainingBatch, levels[tb].Value, PriorityClassInferenceCritical))
	}
	return errs
}
