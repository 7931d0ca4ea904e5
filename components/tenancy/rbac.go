package tenancy

import (
	"slices"
	"strings"

	rbacv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/rbac/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Rule is one Kubernetes RBAC policy rule of the team member Role.
type Rule struct {
	APIGroups []string
	Resources []string
	Verbs     []string
}

var (
	readVerbs  = []string{"get", "list", "watch"}
	writeVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete"}
)

// MemberRules are the rules of the team member Role: run and remove
// training work (Jobs, CronJobs, Kubeflow PyTorchJobs and TFJobs, KAITO
// Workspaces) and read what it produces (pods, logs, events, claims, the
// team's queue, quota and network policies). The Role grants nothing on
// LocalQueues, ResourceQuotas, NetworkPolicies, Roles or RoleBindings
// beyond reading, and a namespaced Role cannot grant anything on
// cluster-scoped objects (ClusterQueues, ResourceFlavors, Cohorts,
// PriorityClasses). Kueue suspends and admits Jobs through its own
// controller, so members need no Kueue write verbs.
func MemberRules() []Rule {
	return []Rule{
		{APIGroups: []string{"batch"}, Resources: []string{"jobs", "cronjobs"}, Verbs: writeVerbs},
		{APIGroups: []string{"kubeflow.org"}, Resources: []string{"pytorchjobs", "tfjobs"}, Verbs: writeVerbs},
		{APIGroups: []string{"kaito.sh"}, Resources: []string{"workspaces"}, Verbs: writeVerbs},
		{APIGroups: []string{""}, Resources: []string{"pods", "pods/log", "events", "persistentvolumeclaims", "resourcequotas", "serviceaccounts"}, Verbs: readVerbs},
		{APIGroups: []string{"kueue.x-k8s.io"}, Resources: []string{"localqueues", "workloads"}, Verbs: readVerbs},
		{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"networkpolicies"}, Verbs: readVerbs},
	}
}

// roleArgs is the team member Role in namespace ns; the annotation records
// the configured groups for guardrail AKSML-TEN-002.
func roleArgs(t Team, ns pulumi.StringInput) *rbacv1.RoleArgs {
	var rules rbacv1.PolicyRuleArray
	for _, r := range MemberRules() {
		rules = append(rules, rbacv1.PolicyRuleArgs{
			ApiGroups: pulumi.ToStringArray(r.APIGroups),
			Resources: pulumi.ToStringArray(r.Resources),
			Verbs:     pulumi.ToStringArray(r.Verbs),
		})
	}
	return &rbacv1.RoleArgs{
		Metadata: objectMeta(MemberRoleName, ns, t, map[string]string{GroupsAnnotation: strings.Join(sortedGroups(t), ",")}),
		Rules:    rules,
	}
}

// roleBindingArgs binds the team member Role to each group. With Microsoft
// Entra ID on AKS a group subject is named by its object ID ("Control
// access to cluster resources using Kubernetes RBAC and Microsoft Entra
// identities", https://learn.microsoft.com/azure/aks/azure-ad-rbac).
func roleBindingArgs(t Team, ns pulumi.StringInput) *rbacv1.RoleBindingArgs {
	var subjects rbacv1.SubjectArray
	for _, g := range sortedGroups(t) {
		subjects = append(subjects, rbacv1.SubjectArgs{
			ApiGroup: pulumi.String("rbac.authorization.k8s.io"),
			Kind:     pulumi.String("Group"),
			Name:     pulumi.String(g),
		})
	}
	return &rbacv1.RoleBindingArgs{
		Metadata: objectMeta(MemberBindingName, ns, t, nil),
		RoleRef: rbacv1.RoleRefArgs{
			ApiGroup: pulumi.String("rbac.authorization.k8s.io"),
			Kind:     pulumi.String("Role"),
			Name:     pulumi.String(MemberRoleName),
		},
		Subjects: subjects,
	}
}

// sortedGroups returns the team's group IDs, lower case and sorted.
func sortedGroups(t Team) []string {
	out := make([]string, 0, len(t.Groups))
	for _, g := range t.Groups {
		out = append(out, normalGUID(g))
	}
	slices.Sort(out)
	return out
}
