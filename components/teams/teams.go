// Package teams maps a team of the stack (an `aksml:teams` entry, decoded
// into queues.Team and resolved by queues.Resolve) onto the components
// that serve it, once, for both composition roots: the aksml stacks and
// the component provider call Tenancy. components/queues holds the team's
// quota and queue; components/tenancy its namespace, access and guards.
// Neither imports the other (queues' objects live inside tenancy's
// namespaces, so tenancy must not sit above queues); this package is the
// one place that knows both.
package teams

import (
	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/tenancy"
)

// Tenancy maps the resolved teams of r to tenancy's, defaulted: the
// namespace fields (name, groups, egress, Pod Security level), the GPU
// ResourceQuota (queues.Resolved.ResourceQuotaHard), the priorities the
// team may use (queues.Resolved.TeamPriorities) and the namespace quota
// (tenancy.NamespaceQuotaHard over the team's queue bound, classes, the
// stack's own claims and the team's namespaceQuota overrides).
func Tenancy(r *queues.Resolved, classes []string, claims []tenancy.Claim) []tenancy.Team {
	out := make([]tenancy.Team, 0, len(r.Teams))
	for _, t := range r.Teams {
		cpu, memory, _ := r.CPUMemoryBound(t.Name)
		tt := tenancy.Team{
			Name: t.Name, Groups: t.Groups, Egress: tenancy.Egress(t.Egress), PodSecurity: t.PodSecurity,
			Quota:          r.ResourceQuotaHard(t.Name),
			Priorities:     r.TeamPriorities(t.Name),
			NamespaceQuota: tenancy.NamespaceQuotaHard(tenancy.QuotaBasis{CPU: cpu, Memory: memory, Classes: classes, Claims: claims}, t.NamespaceQuota),
		}
		tt.Default()
		out = append(out, tt)
	}
	return out
}
