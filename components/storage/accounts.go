package storage

import (
	"errors"
	"slices"
	"strings"

	azstorage "github.com/pulumi/pulumi-azure-native-sdk/storage/v2"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/internal/azarm"
)

// StorageAccountsArgs configures NewStorageAccounts.
type StorageAccountsArgs struct {
	// ConfigPath is the root of validation error paths (`<ConfigPath>.accounts`).
	// Default DefaultConfigPath (`storage`).
	ConfigPath field.Path
	// NetworkConfigPath names the network section that route errors point
	// to (give the cluster a VNet). Default DefaultNetworkConfigPath
	// (`network`).
	NetworkConfigPath field.Path
	// ResourceGroupName is the resource group the accounts are created in.
	// Required.
	ResourceGroupName pulumi.StringInput
	// Location is the Azure region. Default: the resource group's region.
	Location pulumi.StringPtrInput
	// Spec is the accounts configuration (`aksml:storage.accounts`).
	Spec AccountsSpec
	// Protect sets pulumi.Protect on the Azure Files account, which holds
	// the checkpoints and datasets, and on the Blob NFS account, which holds
	// the teams' containers, so `pulumi destroy` cannot delete them (C3.4).
	// Default false; prod stacks set it (C9).
	Protect bool
	// Tags are set on every account.
	Tags map[string]string
	// CSIPrincipalID is the object ID of the identity the Azure Files and
	// Blob CSI drivers provision volumes with: on AKS the cluster's
	// system-assigned identity (cluster.Cluster.IdentityPrincipalID). AKS
	// grants it rights on the node resource group only, so with it set each
	// account gets a Storage Account Contributor role assignment for it;
	// without one, provisioning on these accounts fails. Default nil: no
	// role assignment (grant it yourself).
	CSIPrincipalID pulumi.StringInput
	// NodeSubnetID is the AKS node subnet. With Spec.NodeAccess
	// ServiceEndpoint every account denying public networks gets a VNet
	// rule for it. Default nil.
	NodeSubnetID pulumi.StringInput
	// PrivateEndpoints says the caller creates file and blob private
	// endpoints for the accounts (network.Network.PrivateEndpoints), the
	// route of Spec.NodeAccess PrivateEndpoint. Default false: a spec whose
	// accounts deny public networks with that route is rejected, because
	// the nodes would have no way in.
	PrivateEndpoints bool
}

// StorageAccounts is the premium Azure Files account (datasets and
// checkpoints) and, with Spec.BlobNFS, the premium Blob NFS account.
type StorageAccounts struct {
	pulumi.ResourceState

	// FilesAccountName is the name of the Azure Files premium account.
	FilesAccountName pulumi.StringOutput
	// FilesAccountResourceID is the ARM ID of the Azure Files premium account.
	FilesAccountResourceID pulumi.StringOutput
	// BlobAccountName is the name of the Blob NFS account, "" without BlobNFS.
	BlobAccountName pulumi.StringOutput
	// BlobAccountResourceID is the ARM ID of the Blob NFS account, "" without
	// BlobNFS.
	BlobAccountResourceID pulumi.StringOutput

	resourceGroupName pulumi.StringInput
	blobNFS           bool
	// csiGrants are the CSI identity's role assignments on the accounts
	// (grantCSI): claims wait for them (TeamVolumesArgs.Accounts).
	csiGrants []pulumi.Resource
}

// NewStorageAccounts creates the storage accounts with secure defaults:
// HTTPS only (except where NFS 3.0 forbids it), TLS 1.2, no public blob
// access, no cross-tenant replication, shared-key access off where the CSI
// mode allows it, and a firewall that denies by default when private.
func NewStorageAccounts(ctx *pulumi.Context, name string, args *StorageAccountsArgs, opts ...pulumi.ResourceOption) (*StorageAccounts, error) {
	if args == nil {
		return nil, errors.New("storage: NewStorageAccounts needs args")
	}
	if args.ResourceGroupName == nil {
		return nil, errors.New("storage: NewStorageAccounts needs ResourceGroupName")
	}
	path := configPath(args.ConfigPath).Child("accounts")
	errs := args.Spec.Validate(path)
	errs = append(errs, args.Spec.ValidateRoute(path, orPath(args.NetworkConfigPath, DefaultNetworkConfigPath), args.NodeSubnetID != nil, args.PrivateEndpoints)...)
	if err := errs.ToAggregate(); err != nil {
		return nil, err
	}
	var nodeSubnet pulumi.StringInput
	if args.Spec.Route() == NodeAccessServiceEndpoint {
		nodeSubnet = args.NodeSubnetID
	}

	c := &StorageAccounts{resourceGroupName: args.ResourceGroupName, blobNFS: args.Spec.BlobNFS}
	if err := ctx.RegisterComponentResource(StorageAccountsType, name, c, opts...); err != nil {
		return nil, err
	}

	files, err := azstorage.NewStorageAccount(ctx, name+"-files",
		filesAccountArgs(args.Spec, nodeSubnet, args.ResourceGroupName, args.Location, args.Tags),
		pulumi.Parent(c), pulumi.Protect(args.Protect))
	if err != nil {
		return nil, err
	}
	c.FilesAccountName = files.Name
	c.FilesAccountResourceID = files.ID().ToStringOutput()
	if err := c.grantCSI(ctx, name+"-files-csi", files, args.CSIPrincipalID); err != nil {
		return nil, err
	}
	c.BlobAccountName = pulumi.String("").ToStringOutput()
	c.BlobAccountResourceID = pulumi.String("").ToStringOutput()

	if args.Spec.BlobNFS {
		blob, err := azstorage.NewStorageAccount(ctx, name+"-blob",
			blobAccountArgs(args.Spec, nodeSubnet, args.ResourceGroupName, args.Location, args.Tags),
			pulumi.Parent(c), pulumi.Protect(args.Protect))
		if err != nil {
			return nil, err
		}
		c.BlobAccountName = blob.Name
		c.BlobAccountResourceID = blob.ID().ToStringOutput()
		if err := c.grantCSI(ctx, name+"-blob-csi", blob, args.CSIPrincipalID); err != nil {
			return nil, err
		}
	}

	if err := ctx.RegisterResourceOutputs(c, pulumi.Map{
		"filesAccountName":       c.FilesAccountName,
		"filesAccountResourceId": c.FilesAccountResourceID,
		"blobAccountName":        c.BlobAccountName,
		"blobAccountResourceId":  c.BlobAccountResourceID,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// grantCSI assigns Storage Account Contributor on account to the CSI
// identity, when one is given, and keeps the assignment in c.csiGrants. The
// role definition ID is built from the account's own subscription.
func (c *StorageAccounts) grantCSI(ctx *pulumi.Context, name string, account *azstorage.StorageAccount, principal pulumi.StringInput) error {
	if principal == nil {
		return nil
	}
	roleID := account.ID().ToStringOutput().ApplyT(func(id string) string {
		sub := strings.SplitN(strings.TrimPrefix(id, "/subscriptions/"), "/", 2)[0]
		return "/subscriptions/" + sub + "/providers/Microsoft.Authorization/roleDefinitions/" + StorageAccountContributorRoleID
	}).(pulumi.StringOutput)
	ra, err := azarm.NewRoleAssignment(ctx, name, &azarm.RoleAssignmentArgs{
		PrincipalID:      principal,
		PrincipalType:    pulumi.String("ServicePrincipal"),
		RoleDefinitionID: roleID,
		Scope:            account.ID().ToStringOutput(),
		Description:      pulumi.String("aksml: the AKS CSI drivers provision volumes on this account"),
	}, pulumi.Parent(c))
	if err != nil {
		return err
	}
	c.csiGrants = append(c.csiGrants, ra)
	return nil
}

// ClassAccounts returns the references that point the StorageClasses at
// these accounts (StorageClassesArgs.Accounts).
func (c *StorageAccounts) ClassAccounts() *ClassAccounts {
	a := &ClassAccounts{ResourceGroupName: c.resourceGroupName, FilesAccountName: c.FilesAccountName}
	if c.blobNFS {
		a.BlobAccountName = c.BlobAccountName
	}
	return a
}

// filesAccountArgs maps the spec to the premium Azure Files account. The
// Azure Files CSI driver mounts SMB shares with the account key, so shared
// key access stays on; everything else is locked down.
func filesAccountArgs(a AccountsSpec, nodeSubnet pulumi.StringInput, rg pulumi.StringInput, location pulumi.StringPtrInput, tags map[string]string) *azstorage.StorageAccountArgs {
	defaultAction := azstorage.DefaultActionAllow
	if a.PrivateNetwork {
		defaultAction = azstorage.DefaultActionDeny
	}
	return &azstorage.StorageAccountArgs{
		AccountName:                  pulumi.StringPtr(a.FilesName()),
		ResourceGroupName:            rg,
		Location:                     location,
		Kind:                         pulumi.String(KindFileStorage),
		Sku:                          azstorage.SkuArgs{Name: pulumi.String(PremiumLRS)},
		EnableHttpsTrafficOnly:       pulumi.BoolPtr(true),
		MinimumTlsVersion:            pulumi.StringPtr(MinimumTLSVersion),
		AllowBlobPublicAccess:        pulumi.BoolPtr(false),
		AllowSharedKeyAccess:         pulumi.BoolPtr(true),
		AllowCrossTenantReplication:  pulumi.BoolPtr(false),
		DefaultToOAuthAuthentication: pulumi.BoolPtr(true),
		NetworkRuleSet:               networkRuleSet(defaultAction, nodeSubnet, a.AllowedSubnetIDs, a.AllowedIPRanges),
		Tags:                         pulumi.ToStringMap(tags),
	}
}

// blobAccountArgs maps the spec to the premium Blob NFS 3.0 account. NFS 3.0
// needs a hierarchical namespace, carries no TLS (so HTTPS-only must be off,
// as the Blob CSI driver does for the accounts it creates) and no
// credentials (so shared key access is off and the firewall denies every
// network but the allowed subnets).
func blobAccountArgs(a AccountsSpec, nodeSubnet pulumi.StringInput, rg pulumi.StringInput, location pulumi.StringPtrInput, tags map[string]string) *azstorage.StorageAccountArgs {
	return &azstorage.StorageAccountArgs{
		AccountName:                  pulumi.StringPtr(a.BlobName()),
		ResourceGroupName:            rg,
		Location:                     location,
		Kind:                         pulumi.String(KindBlockBlobStorage),
		Sku:                          azstorage.SkuArgs{Name: pulumi.String(PremiumLRS)},
		IsHnsEnabled:                 pulumi.BoolPtr(true),
		EnableNfsV3:                  pulumi.BoolPtr(true),
		EnableHttpsTrafficOnly:       pulumi.BoolPtr(false),
		MinimumTlsVersion:            pulumi.StringPtr(MinimumTLSVersion),
		AllowBlobPublicAccess:        pulumi.BoolPtr(false),
		AllowSharedKeyAccess:         pulumi.BoolPtr(false),
		AllowCrossTenantReplication:  pulumi.BoolPtr(false),
		DefaultToOAuthAuthentication: pulumi.BoolPtr(true),
		NetworkRuleSet:               networkRuleSet(azstorage.DefaultActionDeny, nodeSubnet, a.AllowedSubnetIDs, nil),
		Tags:                         pulumi.ToStringMap(tags),
	}
}

// networkRuleSet builds the account firewall: the default action, trusted
// Azure services through, and allow rules for the node subnet (when
// given), each further subnet and IP range. The node subnet rule is only
// set on an account that denies by default.
func networkRuleSet(defaultAction azstorage.DefaultAction, nodeSubnet pulumi.StringInput, subnetIDs, ipRanges []string) *azstorage.NetworkRuleSetArgs {
	var vnetRules azstorage.VirtualNetworkRuleArray
	if nodeSubnet != nil && defaultAction == azstorage.DefaultActionDeny {
		vnetRules = append(vnetRules, azstorage.VirtualNetworkRuleArgs{
			VirtualNetworkResourceId: nodeSubnet,
			Action:                   azstorage.ActionAllow,
		})
	}
	for _, id := range slices.Sorted(slices.Values(subnetIDs)) {
		vnetRules = append(vnetRules, azstorage.VirtualNetworkRuleArgs{
			VirtualNetworkResourceId: pulumi.String(id),
			Action:                   azstorage.ActionAllow,
		})
	}
	var ipRules azstorage.IPRuleArray
	for _, r := range slices.Sorted(slices.Values(ipRanges)) {
		ipRules = append(ipRules, azstorage.IPRuleArgs{
			IPAddressOrRange: pulumi.String(r),
			Action:           azstorage.ActionAllow,
		})
	}
	return &azstorage.NetworkRuleSetArgs{
		DefaultAction:       defaultAction,
		Bypass:              pulumi.StringPtr(BypassAzureServices),
		VirtualNetworkRules: vnetRules,
		IpRules:             ipRules,
	}
}
