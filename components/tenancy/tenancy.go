package tenancy

import (
	"errors"
	"maps"
	"regexp"
	"slices"
	"strings"

	azstorage "github.com/pulumi/pulumi-azure-native-sdk/storage/v2"
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	corev1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/core/v1"
	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
	networkingv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/networking/v1"
	rbacv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/rbac/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/armdeploy"
	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/internal/azarm"
)

// ComponentType is the Pulumi type token of the component.
const ComponentType = "aksml:tenancy:Tenancy"

// DefaultConfigPath is the error-path root of the teams when the caller
// gives none.
const DefaultConfigPath = "teams"

// DefaultExcludedCIDRs are the AKS default pod (overlay) and service
// ranges, never reachable through the external HTTPS allowance.
var DefaultExcludedCIDRs = []string{"10.244.0.0/16", "10.0.0.0/16"}

// TenancyArgs configures NewTenancy.
type TenancyArgs struct {
	// Provider is the Kubernetes provider of the cluster. nil: the ambient
	// default provider.
	Provider *kubernetes.Provider
	// Teams are the tenants: a namespace each, with its ResourceQuota,
	// access and isolation. Default none.
	Teams []Team
	// ConfigPath is the config key of Teams in error messages. Default
	// "teams"; the aksml stacks pass `aksml:teams`.
	ConfigPath field.Path
	// ExcludedCIDRs are the cluster's pod and service ranges, excluded from
	// the external HTTPS egress allowance so it never opens another
	// namespace. Default DefaultExcludedCIDRs.
	ExcludedCIDRs []string
	// Azure adds the Azure side (identities, role assignments, data
	// containers). nil: Kubernetes objects only (existing clusters), or
	// the identities another stack created (IdentityClientIDs).
	Azure *AzureArgs
	// IdentityClientIDs are the client IDs, by team name, of team
	// identities another stack created with NewTeamIdentities (the aksml
	// Kubernetes-layer stack reads them from its Azure-layer stack's
	// `teamIdentities` output): each team gets the training ServiceAccount
	// annotated with its client ID, as with Azure. Every team needs one.
	// Default none. Not with Azure.
	IdentityClientIDs map[string]string
	// RetainNamespaces keeps the team namespaces in the cluster when they
	// are removed from the stack or the stack is destroyed
	// (RetainOnDelete), so that the checkpoint claims inside them survive:
	// deleting a namespace deletes its claims. Default false; set it
	// wherever checkpoints must survive a destroy (prod).
	RetainNamespaces bool
	// QueuesName is, for a stack that components/queues' Queues component
	// served before the team namespaces and ResourceQuotas moved here, the
	// name that stack gave NewQueues (the aksml stacks: "queues"). Each
	// namespace and quota then carries an alias to its old name
	// (`<QueuesName>-ns-<team>`, `<QueuesName>-quota-<team>`) under that
	// Queues component, registered at the stack's root, so the engine keeps
	// the objects instead of deleting and recreating them (deleting a
	// namespace deletes the claims in it). Default "": no aliases, for
	// stacks that never ran the old layout.
	QueuesName string
	// ElsewhereTeams are names of Teams whose Kubernetes objects another
	// stack registers (an aksml team stack, `aksml:teamStacks`): with Azure
	// they get their Azure side here (identity, federated credential, group
	// roles, data container), and nothing in the cluster; they are not in
	// Namespaces, TeamNamespaces or ServiceAccounts. Without Azure they are
	// skipped. Default none.
	ElsewhereTeams []string
}

// AzureArgs is the Azure side of tenancy on an AKS cluster aksml creates.
type AzureArgs struct {
	// Authorization is AzureRBAC (Entra ID + Azure RBAC on the cluster) or
	// KubernetesRBAC. Required.
	Authorization Authorization
	// ClusterResourceID is the AKS cluster's ARM ID: the scope of the
	// Cluster User role and the parent of the namespace scopes. Required.
	ClusterResourceID pulumi.StringInput
	// ResourceGroupName is where the identities stack deploys. Required.
	ResourceGroupName pulumi.StringInput
	// Location is the region of the identities. Required.
	Location string
	// OIDCIssuerURL is the cluster's OIDC issuer, trusted by every
	// federated credential. Required.
	OIDCIssuerURL pulumi.StringInput
	// IdentityNamePrefix names the identities `<prefix>-<team>`. Required:
	// letters, digits, '-' and '_', starting with a letter or digit.
	IdentityNamePrefix string
	// BlobAccountName and BlobAccountResourceID are an optional Blob
	// account (components/storage with blobNfs): each team gets a container
	// named after it and Storage Blob Data Contributor on that container
	// only. Default nil: no container, no data role.
	BlobAccountName       pulumi.StringInput
	BlobAccountResourceID pulumi.StringInput
	// RetainContainers registers each team's Blob container with
	// pulumi.RetainOnDelete, so removing (or renaming) a team or
	// `pulumi destroy` leaves the container and its data in the account.
	// Default false; the aksml stacks set it from `aksml:retainTeamData`
	// (default: protect).
	RetainContainers bool
	// Tags are put on the identities and the deployment stack.
	Tags map[string]string
}

// Tenancy is each team's slice of the cluster: its namespace and
// ResourceQuota, access, network isolation and workload identity.
type Tenancy struct {
	pulumi.ResourceState

	// Namespaces maps each team name to its namespace name. Workloads,
	// claims, queues and jobs of a team go there; an object that takes its
	// namespace from this map waits for the namespace.
	Namespaces pulumi.StringMapOutput `pulumi:"namespaces"`

	// TeamNamespaces maps each team name to its namespace name as the output
	// of that team's Namespace alone. Pass it, not Namespaces, to objects of a
	// team in Go (QueuesArgs.Namespaces, TeamVolumesArgs.Namespace): an input
	// taken from Namespaces depends on every team's namespace, so each team
	// object would wait for, and record in the stack's state, all of them
	// (state and checkpoint time growing with the square of the teams; issue
	// 32).
	TeamNamespaces pulumi.StringMap

	// IdentityClientIDs are the client IDs of the teams' managed identities
	// by team name; empty without Azure.
	IdentityClientIDs pulumi.StringMapOutput `pulumi:"identityClientIds"`
	// ServiceAccounts are the workload identity service account name by
	// team name (TrainingServiceAccount); empty without Azure.
	ServiceAccounts map[string]string

	resources []pulumi.Resource
}

// Resources returns the team namespaces and ResourceQuotas. Give these,
// not the component, to pulumi.DependsOn of what must wait for the
// namespaces: the Go SDK expands a component dependency to the children
// whose registration has reached the engine so far, which races with the
// children's own registration (sdk/v3 context.go, getOpts/addChild).
func (c *Tenancy) Resources() []pulumi.Resource { return c.resources }

var identityPrefixRE = regexp.MustCompile(`^[A-Za-z0-9][-\w]{0,90}$`)

// Validate checks defaulted args; every problem is returned at once.
func (a *TenancyArgs) Validate() field.ErrorList {
	errs := append(ValidateNames(a.Teams, a.ConfigPath), ValidateTeams(a.Teams, a.ConfigPath)...)
	for i, n := range a.ElsewhereTeams {
		if !slices.ContainsFunc(a.Teams, func(t Team) bool { return t.Name == n }) {
			errs = append(errs, field.Invalid(field.NewPath("tenancy.elsewhereTeams").Index(i), "%q is not one of the teams; name a team in teams", n))
		}
	}
	if a.IdentityClientIDs != nil {
		if a.Azure != nil {
			errs = append(errs, field.Forbidden(field.NewPath("tenancy.identityClientIds"), "and azure are mutually exclusive: the identities are created here (azure) or by another stack (identityClientIds); remove one"))
		}
		for i, t := range a.Teams {
			if a.IdentityClientIDs[t.Name] == "" && !slices.Contains(a.ElsewhereTeams, t.Name) {
				errs = append(errs, field.Invalid(a.ConfigPath.Index(i).Child("name"), "team %q has no identity client ID in identityClientIds; create its identity with NewTeamIdentities first", t.Name))
			}
		}
	}
	if a.Azure == nil {
		return errs
	}
	return append(errs, a.Azure.validate(field.NewPath("tenancy.azure"))...)
}

// validate checks the Azure side's args under path.
func (az *AzureArgs) validate(p field.Path) field.ErrorList {
	var errs field.ErrorList
	if !slices.Contains([]Authorization{AuthorizationAzureRBAC, AuthorizationKubernetesRBAC}, az.Authorization) {
		errs = append(errs, field.NotSupported(p.Child("authorization"), az.Authorization, []Authorization{AuthorizationAzureRBAC, AuthorizationKubernetesRBAC}))
	}
	for name, v := range map[string]pulumi.StringInput{"clusterResourceId": az.ClusterResourceID, "resourceGroupName": az.ResourceGroupName, "oidcIssuerUrl": az.OIDCIssuerURL} {
		if v == nil {
			errs = append(errs, field.Required(p.Child(name), "set it from the cluster component's outputs"))
		}
	}
	if az.Location == "" {
		errs = append(errs, field.Required(p.Child("location"), "the Azure region of the team identities"))
	}
	if !identityPrefixRE.MatchString(az.IdentityNamePrefix) {
		errs = append(errs, field.Invalid(p.Child("identityNamePrefix"), "%q is not a valid managed identity name prefix: use letters, digits, '-' and '_', starting with a letter or digit", az.IdentityNamePrefix))
	}
	if (az.BlobAccountName == nil) != (az.BlobAccountResourceID == nil) {
		errs = append(errs, field.Invalid(p.Child("blobAccountName"), "set both blobAccountName and blobAccountResourceId, or neither"))
	}
	return errs
}

// Default fills the documented defaults on a copy of the teams.
func (a *TenancyArgs) Default() {
	if a.ConfigPath == "" {
		a.ConfigPath = field.NewPath(DefaultConfigPath)
	}
	if a.ExcludedCIDRs == nil {
		a.ExcludedCIDRs = DefaultExcludedCIDRs
	}
	teams := make([]Team, len(a.Teams))
	for i, t := range a.Teams {
		t.Groups = slices.Clone(t.Groups)
		t.Quota = maps.Clone(t.Quota)
		t.NamespaceQuota = maps.Clone(t.NamespaceQuota)
		t.Priorities = slices.Clone(t.Priorities)
		t.Default()
		teams[i] = t
	}
	a.Teams = teams
}

// NewTenancy registers, per team: its namespace and ResourceQuota, the team
// member Role and its RoleBinding to the team's Entra groups, the default-deny NetworkPolicy
// with the platform's allowances and, with Azure, the team's managed
// identity, federated credential, training ServiceAccount and role
// assignments. Invalid args return an error before anything is registered.
func NewTenancy(ctx *pulumi.Context, name string, args *TenancyArgs, opts ...pulumi.ResourceOption) (*Tenancy, error) {
	if args == nil {
		return nil, errors.New("tenancy: NewTenancy needs args")
	}
	a := *args
	a.Default()
	if err := a.Validate().ToAggregate(); err != nil {
		return nil, err
	}
	c := &Tenancy{ServiceAccounts: map[string]string{}}
	if err := ctx.RegisterComponentResource(ComponentType, name, c, opts...); err != nil {
		return nil, err
	}
	kopts := []pulumi.ResourceOption{pulumi.Parent(c)}
	if a.Provider != nil {
		kopts = append(kopts, pulumi.Provider(a.Provider))
	}
	names := pulumi.StringMap{}
	namespaces := map[string]pulumi.StringInput{}
	for _, t := range a.Teams {
		if slices.Contains(a.ElsewhereTeams, t.Name) {
			continue
		}
		ns, res, err := registerNamespace(ctx, name+"-"+t.Name, t, &a, kopts)
		if err != nil {
			return nil, err
		}
		c.resources = append(c.resources, res...)
		namespaces[t.Name] = ns.Metadata.Name().Elem()
		names[t.Name] = namespaces[t.Name]
		if err := registerTeam(ctx, name+"-"+t.Name, t, namespaces[t.Name], a.ExcludedCIDRs, kopts); err != nil {
			return nil, err
		}
	}
	clientIDs := pulumi.StringMap{}
	switch {
	case a.Azure != nil:
		var err error
		if clientIDs, err = registerIdentities(ctx, name, a.Teams, a.Azure, c); err != nil {
			return nil, err
		}
	case a.IdentityClientIDs != nil:
		for _, t := range a.Teams {
			if !slices.Contains(a.ElsewhereTeams, t.Name) {
				clientIDs[t.Name] = pulumi.String(a.IdentityClientIDs[t.Name])
			}
		}
	}
	for _, t := range a.Teams {
		id, ok := clientIDs[t.Name]
		if !ok || slices.Contains(a.ElsewhereTeams, t.Name) {
			continue
		}
		if _, err := corev1.NewServiceAccount(ctx, name+"-"+t.Name+"-sa", &corev1.ServiceAccountArgs{
			Metadata: metav1.ObjectMetaArgs{
				Name:        pulumi.String(TrainingServiceAccount),
				Namespace:   namespaces[t.Name],
				Labels:      pulumi.ToStringMap(teamLabels(t)),
				Annotations: pulumi.StringMap{ClientIDAnnotation: id},
			},
		}, kopts...); err != nil {
			return nil, err
		}
		c.ServiceAccounts[t.Name] = TrainingServiceAccount
	}
	c.IdentityClientIDs = clientIDs.ToStringMapOutput()
	c.TeamNamespaces = names
	c.Namespaces = names.ToStringMapOutput()
	if err := ctx.RegisterResourceOutputs(c, pulumi.Map{"identityClientIds": c.IdentityClientIDs, "namespaces": c.Namespaces}); err != nil {
		return nil, err
	}
	return c, nil
}

// registerTeam registers the Kubernetes objects every team namespace gets.
func registerTeam(ctx *pulumi.Context, name string, t Team, ns pulumi.StringInput, excluded []string, opts []pulumi.ResourceOption) error {
	if _, err := rbacv1.NewRole(ctx, name+"-role", roleArgs(t, ns), opts...); err != nil {
		return err
	}
	if _, err := registerAdmission(ctx, name, t, opts); err != nil {
		return err
	}
	if len(t.Groups) > 0 {
		if _, err := rbacv1.NewRoleBinding(ctx, name+"-members", roleBindingArgs(t, ns), opts...); err != nil {
			return err
		}
	}
	policies := policyArgs(t, ns, excluded)
	names := make([]string, 0, len(policies))
	for n := range policies {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if _, err := networkingv1.NewNetworkPolicy(ctx, name+"-"+strings.TrimPrefix(n, "aksml-"), policies[n], opts...); err != nil {
			return err
		}
	}
	return nil
}

// registerIdentities deploys, under parent, the identities stack and, per
// team, the group role assignments (Azure RBAC) and the data container and
// role; it returns the identities' client IDs by team name.
func registerIdentities(ctx *pulumi.Context, name string, teams []Team, az *AzureArgs, parent pulumi.Resource) (pulumi.StringMap, error) {
	stack, err := armdeploy.NewTemplateStack(ctx, name+"-identities", &armdeploy.Args{
		ResourceGroupName: az.ResourceGroupName,
		StackName:         az.IdentityNamePrefix + "-team-identities",
		Template:          IdentitiesTemplate(az.IdentityNamePrefix, teams, az.Tags),
		Parameters:        map[string]any{IssuerParameter: az.OIDCIssuerURL, LocationParameter: az.Location},
		Description:       "aksml: team managed identities and their federated credentials for workload identity",
		Tags:              az.Tags,
	}, pulumi.Parent(parent))
	if err != nil {
		return nil, err
	}
	clusterID := az.ClusterResourceID.ToStringOutput()
	roleDef := func(roleID string) pulumi.StringOutput {
		return clusterID.ApplyT(func(id string) string { return RoleDefinitionID(id, roleID) }).(pulumi.StringOutput)
	}
	clientIDs := pulumi.StringMap{}
	for i, t := range teams {
		tn := name + "-" + t.Name
		principalID := armdeploy.OutputString(stack, principalIDOutput(i))
		clientIDs[t.Name] = armdeploy.OutputString(stack, clientIDOutput(i))
		if az.Authorization == AuthorizationAzureRBAC {
			for _, g := range sortedGroups(t) {
				if _, err := azarm.NewRoleAssignment(ctx, tn+"-"+g+"-cluster-user", groupAssignment(g, roleDef(ClusterUserRoleID), clusterID,
					"aksml: team "+t.Name+" members download the cluster user kubeconfig"), pulumi.Parent(parent)); err != nil {
					return nil, err
				}
				nsScope := clusterID.ApplyT(func(id string) string { return NamespaceScope(id, t.Name) }).(pulumi.StringOutput)
				if _, err := azarm.NewRoleAssignment(ctx, tn+"-"+g+"-namespace-reader", groupAssignment(g, roleDef(NamespaceRoleID), nsScope,
					"aksml: team "+t.Name+" members read their namespace through Azure RBAC"), pulumi.Parent(parent)); err != nil {
					return nil, err
				}
			}
		}
		if az.BlobAccountName == nil {
			continue
		}
		container, err := azstorage.NewBlobContainer(ctx, tn+"-data", &azstorage.BlobContainerArgs{
			AccountName:       az.BlobAccountName,
			ResourceGroupName: az.ResourceGroupName,
			ContainerName:     pulumi.String(t.Name),
			PublicAccess:      azstorage.PublicAccessNone,
		}, pulumi.Parent(parent), pulumi.RetainOnDelete(az.RetainContainers))
		if err != nil {
			return nil, err
		}
		scope := container.ID().ToStringOutput()
		if _, err := azarm.NewRoleAssignment(ctx, tn+"-blob-data", &azarm.RoleAssignmentArgs{
			PrincipalID:      principalID,
			PrincipalType:    pulumi.String("ServicePrincipal"),
			RoleDefinitionID: roleDef(StorageBlobDataContributorRoleID),
			Scope:            scope,
			Description:      pulumi.String("aksml: team " + t.Name + " workloads read and write their own container with workload identity"),
		}, pulumi.Parent(parent)); err != nil {
			return nil, err
		}
	}
	return clientIDs, nil
}

// groupAssignment is a role assignment of roleDef to an Entra group at scope.
func groupAssignment(group string, roleDef, scope pulumi.StringOutput, description string) *azarm.RoleAssignmentArgs {
	return &azarm.RoleAssignmentArgs{
		PrincipalID:      pulumi.String(group),
		PrincipalType:    pulumi.String("Group"),
		RoleDefinitionID: roleDef,
		Scope:            scope,
		Description:      pulumi.String(description),
	}
}

// RoleDefinitionID is the subscription-scoped ID of a built-in role, for
// the subscription of resourceID.
func RoleDefinitionID(resourceID, roleID string) string {
	sub := strings.SplitN(strings.TrimPrefix(resourceID, "/subscriptions/"), "/", 2)[0]
	return "/subscriptions/" + sub + "/providers/Microsoft.Authorization/roleDefinitions/" + roleID
}

// NamespaceScope is the Azure RBAC scope of one namespace of an AKS
// cluster: `<clusterId>/namespaces/<namespace>` ("Use Azure RBAC for
// Kubernetes authorization", https://learn.microsoft.com/azure/aks/manage-azure-rbac).
func NamespaceScope(clusterID, namespace string) string {
	return clusterID + "/namespaces/" + namespace
}

// teamLabels are the labels of every object tenancy creates for a team.
func teamLabels(t Team) map[string]string {
	return map[string]string{TeamLabel: t.Name, PartOfLabel: PartOfValue}
}

// objectMeta names a namespaced object of team t.
func objectMeta(name string, ns pulumi.StringInput, t Team, annotations map[string]string) metav1.ObjectMetaArgs {
	m := metav1.ObjectMetaArgs{Name: pulumi.String(name), Namespace: ns, Labels: pulumi.ToStringMap(teamLabels(t))}
	if len(annotations) > 0 {
		m.Annotations = pulumi.ToStringMap(annotations)
	}
	return m
}
