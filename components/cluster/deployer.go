package cluster

import (
	"fmt"
	"slices"
	"time"

	containerservice "github.com/pulumi/pulumi-azure-native-sdk/containerservice/v2/v20241001"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/armdeploy"
	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/internal/azarm"
)

// The deploying principal's access to the Kubernetes API of an Entra ID
// cluster with Azure RBAC for Kubernetes authorization.
//
// With Azure RBAC, data-plane access comes from the AKS RBAC roles (their
// dataActions) or from the admin groups; Contributor and User Access
// Administrator carry no dataActions, so a CI principal holding only those
// gets 403 on every Kubernetes call ("Use Azure RBAC for Kubernetes
// Authorization", https://learn.microsoft.com/azure/aks/manage-azure-rbac).
const (
	// RBACClusterAdminRoleID is the built-in role "Azure Kubernetes Service
	// RBAC Cluster Admin" ("Azure built-in roles for Containers",
	// https://learn.microsoft.com/azure/role-based-access-control/built-in-roles/containers#azure-kubernetes-service-rbac-cluster-admin:
	// b1ff04bb-8a4e-4dc4-8eb5-8693973ce19b, "Lets you manage all resources
	// in the cluster").
	RBACClusterAdminRoleID = "b1ff04bb-8a4e-4dc4-8eb5-8693973ce19b"
	// RolePropagationWait is how long after a new role assignment the
	// Kubernetes provider waits before its first call: "New role assignments
	// can take up to five minutes to propagate and be updated by the
	// authorization server" ("Use Azure RBAC for Kubernetes Authorization",
	// https://learn.microsoft.com/azure/aks/manage-azure-rbac, Before you
	// begin). Not measured here: only a real subscription shows the delay.
	RolePropagationWait = 5 * time.Minute
)

// DeployerAccess is how the deploying principal is authorised on the
// cluster's Kubernetes API.
type DeployerAccess string

// Valid DeployerAccess values.
const (
	// DeployerRoleAssignment assigns the deploying principal (the
	// azure-native client config's object ID) "Azure Kubernetes Service
	// RBAC Cluster Admin" on the cluster.
	DeployerRoleAssignment DeployerAccess = "RoleAssignment"
	// DeployerAdminGroup assigns nothing: the deploying principal is a
	// member of Deployer.AdminGroupObjectID, one of the admin groups, which
	// AKS binds to cluster-admin.
	DeployerAdminGroup DeployerAccess = "AdminGroup"
)

// DeployerAccesses lists the valid DeployerAccess values.
var DeployerAccesses = []DeployerAccess{DeployerRoleAssignment, DeployerAdminGroup}

// Principal types of the deploying principal, as role assignments take
// them (principalType: User, Group or ServicePrincipal, Azure/azure-cli#11594).
// A type that does not match the principal fails the assignment at
// `pulumi up` with UnmatchedPrincipalType ("The PrincipalId ... has type
// 'ServicePrincipal', which is different from specified PrincipalType
// 'User'", Azure/modern-web-app-pattern-dotnet#129); and an assigner whose
// role-assignment rights carry an ABAC condition must send it
// (hashicorp/terraform-provider-azurerm#25175).
const (
	// PrincipalServicePrincipal is an app registration's or managed
	// identity's service principal: CI logging in with OIDC.
	PrincipalServicePrincipal = "ServicePrincipal"
	// PrincipalUser is a human running `pulumi up` with `az login`.
	PrincipalUser = "User"
)

// DeployerPrincipalTypes lists the valid Deployer.PrincipalType values.
var DeployerPrincipalTypes = []string{PrincipalServicePrincipal, PrincipalUser}

// Defaults of Deployer.
const (
	// DefaultDeployerAccess is RoleAssignment: the program grants what it
	// needs, so a new cluster works from the first `pulumi up`.
	DefaultDeployerAccess = DeployerRoleAssignment
	// DefaultDeployerPrincipalType is ServicePrincipal: the shipped path is
	// CI (README "CI and workflows").
	DefaultDeployerPrincipalType = PrincipalServicePrincipal
)

// Deployer is `entraID.deployer`: how the principal that runs `pulumi up`
// (the one the azure-native provider logs in as) may create the
// Kubernetes-layer objects of an Entra ID cluster.
type Deployer struct {
	// Access is RoleAssignment (default) or AdminGroup.
	Access DeployerAccess `json:"access,omitempty" pulumi:"access,optional"`
	// PrincipalType is the type of the deploying principal, with
	// RoleAssignment: ServicePrincipal (default; CI) or User (a person).
	PrincipalType string `json:"principalType,omitempty" pulumi:"principalType,optional"`
	// AdminGroupObjectID is, with AdminGroup, the admin group the deploying
	// principal is a member of; it must be one of
	// entraID.adminGroupObjectIDs. Membership itself is in Microsoft Entra
	// ID and is not checked at preview.
	AdminGroupObjectID string `json:"adminGroupObjectID,omitempty" pulumi:"adminGroupObjectID,optional"`
}

// Default fills unset fields.
func (d *Deployer) Default() {
	if d.Access == "" {
		d.Access = DefaultDeployerAccess
	}
	if d.Access == DeployerRoleAssignment && d.PrincipalType == "" {
		d.PrincipalType = DefaultDeployerPrincipalType
	}
}

// Validate checks a defaulted Deployer below path against the admin
// groups of its EntraID.
func (d Deployer) Validate(adminGroups []string, path field.Path) field.ErrorList {
	var errs field.ErrorList
	switch d.Access {
	case DeployerRoleAssignment:
		if !slices.Contains(DeployerPrincipalTypes, d.PrincipalType) {
			errs = append(errs, field.NotSupported(path.Child("principalType"), d.PrincipalType, DeployerPrincipalTypes))
		}
		if d.AdminGroupObjectID != "" {
			errs = append(errs, field.Forbidden(path.Child("adminGroupObjectID"), "applies to access AdminGroup; with RoleAssignment the deployer is granted the role directly, so remove it"))
		}
	case DeployerAdminGroup:
		if d.PrincipalType != "" {
			errs = append(errs, field.Forbidden(path.Child("principalType"), "applies to access RoleAssignment; with AdminGroup nothing is assigned, so remove it"))
		}
		switch {
		case d.AdminGroupObjectID == "":
			errs = append(errs, field.Required(path.Child("adminGroupObjectID"), "the admin group the deploying principal is a member of, one of entraID.adminGroupObjectIDs"))
		case !slices.Contains(adminGroups, d.AdminGroupObjectID):
			errs = append(errs, field.Invalid(path.Child("adminGroupObjectID"), "%q is not one of entraID.adminGroupObjectIDs %v: the deployer would have no cluster-admin binding and every Kubernetes call returns 403; add it there or use access RoleAssignment", d.AdminGroupObjectID, adminGroups))
		}
	default:
		errs = append(errs, field.NotSupported(path.Child("access"), d.Access, DeployerAccesses))
	}
	return errs
}

// deployerAccess registers the deploying principal's role assignment on the
// cluster when the spec asks for one, and returns it (nil otherwise).
func deployerAccess(ctx *pulumi.Context, name string, spec Spec, mc *containerservice.ManagedCluster, opts []pulumi.ResourceOption) (*azarm.RoleAssignment, error) {
	if spec.EntraID == nil || spec.EntraID.deployer().Access != DeployerRoleAssignment {
		return nil, nil
	}
	d := spec.EntraID.deployer()
	client := azarm.GetClientConfig(ctx)
	clusterID := mc.ID().ToStringOutput()
	return azarm.NewRoleAssignment(ctx, name+"-deployer-admin", &azarm.RoleAssignmentArgs{
		PrincipalID:      client.ObjectID(),
		PrincipalType:    pulumi.String(d.PrincipalType),
		RoleDefinitionID: clusterID.ApplyT(func(id string) string { return armdeploy.RoleDefinitionID(id, RBACClusterAdminRoleID) }).(pulumi.StringOutput),
		Scope:            clusterID,
		Description:      pulumi.String("aksml: the principal that runs pulumi up creates the Kubernetes-layer objects (Azure RBAC for Kubernetes authorization)"),
	}, opts...)
}

// afterPropagation returns kubeconfig once a role assignment created at
// createdOn (RFC 3339, as ARM reports it) has had RolePropagationWait to
// propagate: an update that just created the assignment sleeps for the
// rest of the window before the Kubernetes provider uses the kubeconfig; a
// later update (an old createdOn), a preview and an unknown createdOn do not
// wait.
func afterPropagation(ctx *pulumi.Context, kubeconfig pulumi.StringOutput, ra *azarm.RoleAssignment) pulumi.StringOutput {
	return pulumi.All(kubeconfig, ra.CreatedOn).ApplyT(func(v []any) string {
		if wait := propagationWait(v[1].(string), time.Now(), RolePropagationWait); wait > 0 && !ctx.DryRun() {
			_ = ctx.Log.Info(fmt.Sprintf("waiting %s for the deployer's new AKS RBAC Cluster Admin assignment to propagate (up to %s, https://learn.microsoft.com/azure/aks/manage-azure-rbac)", wait.Round(time.Second), RolePropagationWait), &pulumi.LogArgs{Resource: ra})
			time.Sleep(wait)
		}
		return v[0].(string)
	}).(pulumi.StringOutput)
}

// propagationWait is how much of window is left at now for an assignment
// created at createdOn; 0 when createdOn is empty or not a time.
func propagationWait(createdOn string, now time.Time, window time.Duration) time.Duration {
	created, err := time.Parse(time.RFC3339, createdOn)
	if err != nil {
		return 0
	}
	return max(0, created.Add(window).Sub(now))
}

// deployer returns the defaulted Deployer (the zero value defaults to
// RoleAssignment by a ServicePrincipal).
func (e EntraID) deployer() Deployer {
	d := Deployer{}
	if e.Deployer != nil {
		d = *e.Deployer
	}
	d.Default()
	return d
}
