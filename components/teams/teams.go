// Package teams is a team of the stack (an `aksml:teams` entry, decoded
// into Team: a queue side, queues.Team, and a namespace side, Namespace)
// and maps it onto the components that serve it, once, for both
// composition roots: the aksml stacks and the component provider call
// Queues and Tenancy. components/queues holds the team's
// quota and queue; components/tenancy its namespace, access and guards.
// Neither imports the other (queues' objects live inside tenancy's
// namespaces, so tenancy must not sit above queues); this package is the
// one place that knows both.
package teams

import (
	"slices"

	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/tenancy"
	"github.com/aksml/aksml/components/vocab"
)

// Team is one tenant as the platform declares it: its queue side
// (queues.Team: quota, borrowing, preemption, fair share, flavor order,
// serving) and its namespace side (Namespace: Pod Security level, member
// groups, egress, namespace quota overrides). Both decode from the same
// object (`aksml:teams[i]`); each component sees only its part.
type Team struct {
	queues.Team
	Namespace
}

// Namespace is the namespace side of a team, which components/tenancy
// builds and checks (tenancy.Team); queues never sees it.
type Namespace struct {
	// PodSecurity is the Pod Security level enforced on the namespace:
	// restricted (default) or baseline. Warnings and audit always use
	// restricted, so a baseline team sees what would break. Queues does not
	// use it; components/tenancy labels the namespace and validates it.
	PodSecurity vocab.PodSecurityLevel `json:"podSecurity,omitempty" pulumi:"podSecurity,optional"`
	// Groups are the object IDs (GUIDs) of the Microsoft Entra groups whose
	// members work in the team's namespace. Queues does not use them;
	// components/tenancy binds them and validates them. Default none: no
	// team member gets access (platform admins keep theirs).
	Groups []string `json:"groups,omitempty" pulumi:"groups,optional"`
	// Egress is the team namespace's outbound traffic policy, used by
	// components/tenancy: Restricted (default: DNS, the namespace itself and
	// HTTPS outside the cluster) or Unrestricted.
	Egress string `json:"egress,omitempty" pulumi:"egress,optional"`
	// NamespaceQuota overrides entries of the team namespace's ResourceQuota
	// `team-quota` (components/tenancy), by Kubernetes quota resource name:
	// `requests.cpu`, `requests.memory`, `pods`, `count/jobs.batch`,
	// `services`, `configmaps`, `secrets`, `persistentvolumeclaims`,
	// `requests.storage`, `<class>.storageclass.storage.k8s.io/requests.storage`
	// and so on ("Resource Quotas",
	// https://kubernetes.io/docs/concepts/policy/resource-quotas/). Values
	// are Kubernetes quantities. Queues does not use it; components/tenancy
	// documents the defaults (tenancy.NamespaceQuotaHard). Default none.
	NamespaceQuota map[string]string `json:"namespaceQuota,omitempty" pulumi:"namespaceQuota,optional"`
}

// Default fills both sides' unset fields with their documented defaults
// (queues.Team.Default, and tenancy's Pod Security level).
func (t *Team) Default() {
	t.Team.Default()
	if t.PodSecurity == "" {
		t.PodSecurity = tenancy.DefaultPodSecurity
	}
}

// Queues are the queue sides of ts, for queues.Resolve.
func Queues(ts []Team) []queues.Team {
	out := make([]queues.Team, len(ts))
	for i, t := range ts {
		out[i] = t.Team
	}
	return out
}

// Tenancy maps the teams whose queue sides r resolved (queues.Resolve of
// Queues(ts)) to tenancy's, defaulted: the namespace side (name, groups,
// egress, Pod Security level), the GPU ResourceQuota
// (queues.Resolved.ResourceQuotaHard), the priorities the team may use
// (queues.Resolved.TeamPriorities) and the namespace quota
// (tenancy.NamespaceQuotaHard over the team's queue bound, classes, the
// stack's own claims and the team's namespaceQuota overrides).
func Tenancy(ts []Team, r *queues.Resolved, classes []string, claims []tenancy.Claim) []tenancy.Team {
	out := make([]tenancy.Team, 0, len(r.Teams))
	for _, t := range r.Teams {
		var ns Namespace
		if i := slices.IndexFunc(ts, func(x Team) bool { return x.Name == t.Name }); i >= 0 {
			ns = ts[i].Namespace
		}
		cpu, memory, _ := r.CPUMemoryBound(t.Name)
		tt := tenancy.Team{
			Name: t.Name, Groups: ns.Groups, Egress: tenancy.Egress(ns.Egress), PodSecurity: ns.PodSecurity,
			Quota:          r.ResourceQuotaHard(t.Name),
			Priorities:     r.TeamPriorities(t.Name),
			NamespaceQuota: tenancy.NamespaceQuotaHard(tenancy.QuotaBasis{CPU: cpu, Memory: memory, Classes: classes, Claims: claims}, ns.NamespaceQuota),
		}
		tt.Default()
		out = append(out, tt)
	}
	return out
}
