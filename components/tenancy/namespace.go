package tenancy

import (
	corev1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/core/v1"
	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/vocab"
)

// namespaceLabels are a team namespace's labels: the team, Pod Security
// enforcement at the team's level, and warnings and audit at restricted
// ("Pod Security Admission",
// https://kubernetes.io/docs/concepts/security/pod-security-admission/).
func namespaceLabels(t Team) map[string]string {
	l := teamLabels(t)
	l[PodSecurityEnforceLabel] = string(t.PodSecurity)
	l[PodSecurityWarnLabel] = string(PodSecurityRestricted)
	l[PodSecurityAuditLabel] = string(PodSecurityRestricted)
	return l
}

// movedFromQueues are the aliases of a team object that components/queues
// registered before it moved here: its old name `<queuesName>-<role>-<team>`
// under the Queues component queuesName, registered at the stack's root.
// With them the engine takes the object in the state for this one ("Resource
// option: aliases", https://www.pulumi.com/docs/iac/concepts/options/aliases/)
// instead of deleting the old one and creating this one: deleting a team
// namespace deletes the claims (checkpoints) in it. None without
// queuesName.
func movedFromQueues(ctx *pulumi.Context, queuesName, role, team string) pulumi.ResourceOption {
	if queuesName == "" {
		return pulumi.Aliases(nil)
	}
	parent := pulumi.CreateURN(pulumi.String(queuesName), pulumi.String(vocab.QueuesComponentType), nil,
		pulumi.String(ctx.Project()), pulumi.String(ctx.Stack()))
	return pulumi.Aliases([]pulumi.Alias{{Name: pulumi.String(queuesName + "-" + role + "-" + team), ParentURN: parent}})
}

// registerNamespace registers team t's namespace, its TeamQuotaName and
// LimitRange when t has a NamespaceQuota (registerTeamQuota) and its
// ResourceQuotaName when t has a Quota. It returns the namespace and what
// it registered.
func registerNamespace(ctx *pulumi.Context, name string, t Team, a *TenancyArgs, opts []pulumi.ResourceOption) (*corev1.Namespace, []pulumi.Resource, error) {
	nsOpts := append(append([]pulumi.ResourceOption{}, opts...),
		pulumi.RetainOnDelete(a.RetainNamespaces), movedFromQueues(ctx, a.QueuesName, "ns", t.Name))
	ns, err := corev1.NewNamespace(ctx, name+"-namespace", &corev1.NamespaceArgs{
		Metadata: &metav1.ObjectMetaArgs{Name: pulumi.String(t.Name), Labels: pulumi.ToStringMap(namespaceLabels(t))},
	}, nsOpts...)
	if err != nil {
		return nil, nil, err
	}
	out := []pulumi.Resource{ns}
	teamQuota, err := registerTeamQuota(ctx, name, t, ns.Metadata.Name().Elem(), opts)
	if err != nil {
		return nil, nil, err
	}
	out = append(out, teamQuota...)
	if len(t.Quota) == 0 {
		return ns, out, nil
	}
	quota, err := corev1.NewResourceQuota(ctx, name+"-quota", &corev1.ResourceQuotaArgs{
		Metadata: &metav1.ObjectMetaArgs{Name: pulumi.String(ResourceQuotaName), Namespace: ns.Metadata.Name(), Labels: pulumi.ToStringMap(teamLabels(t))},
		Spec:     &corev1.ResourceQuotaSpecArgs{Hard: pulumi.ToStringMap(t.Quota)},
	}, append(append([]pulumi.ResourceOption{}, opts...), movedFromQueues(ctx, a.QueuesName, "quota", t.Name))...)
	if err != nil {
		return nil, nil, err
	}
	return ns, append(out, quota), nil
}
