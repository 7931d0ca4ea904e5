package tenancy

import (
	"errors"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
)

// TeamIdentitiesType is the Pulumi type token of TeamIdentities.
const TeamIdentitiesType = "aksml:tenancy:TeamIdentities"

// TeamIdentitiesArgs configures NewTeamIdentities: the Azure side of
// tenancy without the Kubernetes side, for a stack that creates the cluster
// but leaves the Kubernetes objects to another stack (the aksml Azure-layer
// stack of the private two-stack shape, README "Network").
type TeamIdentitiesArgs struct {
	// Teams are the tenants. Only Name and Groups are read: the identity
	// `<IdentityNamePrefix>-<team>`, its federated credential for the
	// training ServiceAccount of namespace <team>, and the groups' role
	// assignments. Default none.
	Teams []Team
	// ConfigPath is the config key of Teams in error messages. Default
	// "teams".
	ConfigPath field.Path
	// Azure is the cluster and where the identities go. Required.
	Azure *AzureArgs
}

// TeamIdentities is the Azure side of each team: its managed identity with
// the federated credential for namespace <team>'s TrainingServiceAccount,
// the Cluster User and namespace roles of its groups (Azure RBAC) and,
// with a Blob account, its container and data role.
type TeamIdentities struct {
	pulumi.ResourceState

	// ClientIDs are the identities' client IDs by team name: what
	// TenancyArgs.IdentityClientIDs takes in the stack that creates the
	// namespaces.
	ClientIDs pulumi.StringMapOutput `pulumi:"clientIds"`
}

// NewTeamIdentities registers the Azure side of tenancy for args.Teams, the
// same resources NewTenancy registers with TenancyArgs.Azure. Invalid args
// return an error before anything is registered.
func NewTeamIdentities(ctx *pulumi.Context, name string, args *TeamIdentitiesArgs, opts ...pulumi.ResourceOption) (*TeamIdentities, error) {
	if args == nil || args.Azure == nil {
		return nil, errors.New("tenancy: NewTeamIdentities needs args with Azure")
	}
	a := *args
	if a.ConfigPath == "" {
		a.ConfigPath = field.NewPath(DefaultConfigPath)
	}
	errs := append(ValidateNames(a.Teams, a.ConfigPath), ValidateIdentityTeams(a.Teams, a.ConfigPath)...)
	errs = append(errs, a.Azure.validate(field.NewPath("tenancy.azure"))...)
	if err := errs.ToAggregate(); err != nil {
		return nil, err
	}
	c := &TeamIdentities{}
	if err := ctx.RegisterComponentResource(TeamIdentitiesType, name, c, opts...); err != nil {
		return nil, err
	}
	ids, err := registerIdentities(ctx, name, a.Teams, a.Azure, c)
	if err != nil {
		return nil, err
	}
	c.ClientIDs = ids.ToStringMapOutput()
	if err := ctx.RegisterResourceOutputs(c, pulumi.Map{"clientIds": c.ClientIDs}); err != nil {
		return nil, err
	}
	return c, nil
}
