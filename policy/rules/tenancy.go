package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aksml/aksml/components/tenancy"
)

// isTeamNamespace reports whether r is a Namespace that holds a team.
func isTeamNamespace(r Resource) bool {
	return isKind(r, "", "Namespace") && labels(r)[TeamLabel] != ""
}

// isDefaultDenyIngress reports whether np selects every pod of its
// namespace and allows no ingress: policyTypes lists Ingress and there is
// no ingress rule ("Network Policies", default deny all ingress traffic,
// https://kubernetes.io/docs/concepts/services-networking/network-policies/#default-deny-all-ingress-traffic).
func isDefaultDenyIngress(np Resource) bool {
	if !isKind(np, "networking.k8s.io", "NetworkPolicy") {
		return false
	}
	sel := mapOf(np.Get("spec.podSelector"))
	if len(mapOf(sel["matchLabels"])) > 0 || len(listOf(sel["matchExpressions"])) > 0 {
		return false
	}
	return slices.Contains(listOf(np.Get("spec.policyTypes")), any("Ingress")) && len(listOf(np.Get("spec.ingress"))) == 0
}

var ruleTenancyDefaultDeny = Rule{
	ID:       "AKSML-TEN-001",
	Title:    "Every team namespace has a default-deny ingress NetworkPolicy",
	Severity: Mandatory,
	Source:   "SPEC C5.1 (a namespace per team), issue 16 network isolation; Kubernetes \"Network Policies\" default deny",
	Stack: func(s *Stack) []Finding {
		var out []Finding
		for _, ns := range s.Resources {
			if !isTeamNamespace(ns) {
				continue
			}
			name := objName(ns)
			found := slices.ContainsFunc(s.Resources, func(np Resource) bool {
				return objNamespace(np) == name && isDefaultDenyIngress(np)
			})
			if !found {
				out = append(out, Finding{URN: resourceRef(ns), Message: fmt.Sprintf(
					"%s holds team %q but no NetworkPolicy in it selects every pod and denies ingress, so any pod of the cluster can reach its pods; register components/tenancy for the team (policy %s: podSelector {}, policyTypes [Ingress, Egress], no rules)",
					describe(ns), labels(ns)[TeamLabel], tenancy.DefaultDenyPolicy)})
			}
		}
		return out
	},
}

var ruleTenancyGroupBinding = Rule{
	ID:       "AKSML-TEN-002",
	Title:    "A team whose Entra groups are configured has them bound to its member Role",
	Severity: Mandatory,
	Source:   "SPEC C5.1, issue 16 per-team access; AKS \"Control access to cluster resources using Kubernetes RBAC and Microsoft Entra identities\"",
	Stack: func(s *Stack) []Finding {
		var out []Finding
		for _, role := range s.Resources {
			if !isKind(role, "rbac.authorization.k8s.io", "Role") {
				continue
			}
			groups := splitGroups(annotations(role)[tenancy.GroupsAnnotation])
			if len(groups) == 0 {
				continue
			}
			bound := map[string]bool{}
			for _, rb := range s.Resources {
				if !isKind(rb, "rbac.authorization.k8s.io", "RoleBinding") || objNamespace(rb) != objNamespace(role) {
					continue
				}
				ref := mapOf(rb.Get("roleRef"))
				if str(ref["kind"]) != "Role" || str(ref["name"]) != objName(role) {
					continue
				}
				for _, sub := range listOf(rb.Get("subjects")) {
					if m := mapOf(sub); str(m["kind"]) == "Group" {
						bound[strings.ToLower(str(m["name"]))] = true
					}
				}
			}
			var missing []string
			for _, g := range groups {
				if !bound[g] {
					missing = append(missing, g)
				}
			}
			if len(missing) > 0 {
				out = append(out, Finding{URN: resourceRef(role), Message: fmt.Sprintf(
					"%s is the member role of Entra groups %s, but no RoleBinding in %s binds it to %s, so those members cannot work in their namespace; add them as Group subjects of a RoleBinding to Role %s (components/tenancy does)",
					describe(role), strings.Join(groups, ", "), objNamespace(role), strings.Join(missing, ", "), objName(role))})
			}
		}
		return out
	},
}

// splitGroups parses the comma-separated group list of the Role annotation.
func splitGroups(v string) []string {
	var out []string
	for _, g := range strings.Split(v, ",") {
		if g = strings.ToLower(strings.TrimSpace(g)); g != "" {
			out = append(out, g)
		}
	}
	return out
}

// admittedBy reports whether a ValidatingAdmissionPolicyBinding of s
// denies, through a policy the stack defines, the requests in namespace ns:
// validationActions lists Deny and its namespaceSelector's matchLabels all
// hold on ns (a selector with expressions is not evaluated and does not
// count).
func admittedBy(s *Stack, ns Resource) bool {
	nsLabels := labels(ns)
	for _, b := range s.Resources {
		if !isKind(b, "admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding") {
			continue
		}
		if !slices.Contains(listOf(b.Get("spec.validationActions")), any("Deny")) {
			continue
		}
		policy := str(b.Get("spec.policyName"))
		if !slices.ContainsFunc(s.Resources, func(p Resource) bool {
			return isKind(p, "admissionregistration.k8s.io", "ValidatingAdmissionPolicy") && objName(p) == policy
		}) {
			continue
		}
		sel := mapOf(b.Get("spec.matchResources.namespaceSelector"))
		want := mapOf(sel["matchLabels"])
		if len(want) == 0 || len(listOf(sel["matchExpressions"])) > 0 {
			continue
		}
		matches := true
		for k, v := range want {
			matches = matches && nsLabels[k] == str(v)
		}
		if matches {
			return true
		}
	}
	return false
}

var ruleTenancyAdmission = Rule{
	ID:       "AKSML-TEN-004",
	Title:    "Every team namespace is covered by a Deny binding of an aksml admission policy",
	Severity: Mandatory,
	Source:   "issue 25 (admission enforces the tenancy model); Kubernetes \"Validating Admission Policy\" (admissionregistration.k8s.io/v1, https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/)",
	Stack: func(s *Stack) []Finding {
		var out []Finding
		for _, ns := range s.Resources {
			if isTeamNamespace(ns) && !admittedBy(s, ns) {
				out = append(out, Finding{URN: resourceRef(ns), Message: fmt.Sprintf(
					"%s holds team %q but no ValidatingAdmissionPolicyBinding with validationActions [Deny] of a policy in the stack selects it (namespaceSelector matchLabels), so its members may set nodeName, system priority classes or system-pool tolerations; register components/tenancy for the team (policy and binding %s)",
					describe(ns), labels(ns)[TeamLabel], tenancy.AdmissionPolicyName(labels(ns)[TeamLabel]))})
			}
		}
		return out
	},
}

// quotaBounds are the resources a team namespace's quota must bound, each
// with the name that means the same ("Resource Quotas": cpu is
// requests.cpu, memory is requests.memory).
var quotaBounds = [][]string{{"requests.cpu", "cpu"}, {"requests.memory", "memory"}, {"pods"}}

var ruleTenancyQuota = Rule{
	ID:       "AKSML-TEN-005",
	Title:    "Every team namespace has a ResourceQuota bounding cpu, memory and pods",
	Severity: Mandatory,
	Source:   "issue 25 (a team cannot exhaust the cluster); Kubernetes \"Resource Quotas\" (https://kubernetes.io/docs/concepts/policy/resource-quotas/)",
	Stack: func(s *Stack) []Finding {
		var out []Finding
		for _, ns := range s.Resources {
			if !isTeamNamespace(ns) {
				continue
			}
			bounded := map[string]bool{}
			for _, q := range s.Resources {
				if isKind(q, "", "ResourceQuota") && objNamespace(q) == objName(ns) && len(mapOf(q.Get("spec.scopeSelector"))) == 0 && len(listOf(q.Get("spec.scopes"))) == 0 {
					for k := range mapOf(q.Get("spec.hard")) {
						bounded[k] = true
					}
				}
			}
			var missing []string
			for _, names := range quotaBounds {
				if !slices.ContainsFunc(names, func(n string) bool { return bounded[n] }) {
					missing = append(missing, names[0])
				}
			}
			if len(missing) > 0 {
				out = append(out, Finding{URN: resourceRef(ns), Message: fmt.Sprintf(
					"%s holds team %q but no unscoped ResourceQuota in it bounds %s, so a pod that bypasses the queue can take the cluster's capacity; register components/tenancy with the team's namespace quota (%s)",
					describe(ns), labels(ns)[TeamLabel], strings.Join(missing, ", "), tenancy.TeamQuotaName)})
			}
		}
		return out
	},
}
