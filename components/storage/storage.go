package storage

// Spec is the plain-data storage configuration held in stack config under
// `aksml:storage`. Call Default, then Validate(field.NewPath("aksml:storage")).
type Spec struct {
	// Accounts configures the Azure storage accounts aksml creates. Default
	// nil: no accounts; the CSI drivers create and manage their own accounts
	// in the node resource group (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) behaviour, and the only choice for
	// an existing cluster aksml has no Azure access to).
	Accounts *AccountsSpec `json:"accounts,omitempty" pulumi:"accounts,optional"`
	// Volumes configures the per-team claims (TeamVolumes).
	Volumes VolumesSpec `json:"volumes" pulumi:"volumes"`
	// ScratchDiskSKU is the Azure Disk skuName of the ml-scratch-azuredisk
	// class (ReadWriteOnce, per-job scratch): one of ScratchDiskSKUs.
	// Default Premium_LRS.
	ScratchDiskSKU string `json:"scratchDiskSku,omitempty" pulumi:"scratchDiskSku,optional"`
}

// AccountsSpec describes the storage accounts aksml creates: always a
// premium Azure Files account (FileStorage, Premium_LRS) for datasets and
// checkpoints, and optionally a premium Blob account with NFS 3.0 for large
// object datasets.
type AccountsSpec struct {
	// NamePrefix derives account names: <prefix>files and <prefix>blob.
	// 1-19 lowercase letters and digits. Storage account names are global
	// across Azure, so include something unique (org, env, region). Required
	// unless FilesAccountName (and BlobAccountName with BlobNFS) are set.
	NamePrefix string `json:"namePrefix,omitempty" pulumi:"namePrefix,optional"`
	// FilesAccountName overrides the Azure Files account name: 3-24
	// lowercase letters and digits. Default <namePrefix>files.
	FilesAccountName string `json:"filesAccountName,omitempty" pulumi:"filesAccountName,optional"`
	// BlobNFS creates the premium Blob NFS 3.0 account (BlockBlobStorage,
	// hierarchical namespace, NFS v3) that the ml-azureblob-nfs class then
	// uses. Default false (opt-in). NFS 3.0 has no authentication, so the
	// account only accepts traffic from AllowedSubnetIDs, which must be set.
	BlobNFS bool `json:"blobNfs,omitempty" pulumi:"blobNfs,optional"`
	// BlobAccountName overrides the Blob NFS account name: 3-24 lowercase
	// letters and digits. Default <namePrefix>blob. Only with BlobNFS.
	BlobAccountName string `json:"blobAccountName,omitempty" pulumi:"blobAccountName,optional"`
	// PrivateNetwork sets the Azure Files account firewall to deny all
	// traffic except AllowedSubnetIDs and AllowedIPRanges (and trusted Azure
	// services). Default false (allow all networks, for dev); prod stacks set
	// it (C3.1). The Blob NFS account always denies by default.
	PrivateNetwork bool `json:"privateNetwork,omitempty" pulumi:"privateNetwork,optional"`
	// AllowedSubnetIDs are further virtual network subnets (ARM IDs)
	// allowed through the firewall; each needs the Microsoft.Storage
	// service endpoint. The node subnet's rule comes from NodeAccess
	// ServiceEndpoint and NodeSubnetID; the stack config rejects subnets
	// the nodes are not in. Default none.
	AllowedSubnetIDs []string `json:"allowedSubnetIds,omitempty" pulumi:"allowedSubnetIds,optional"`
	// NodeAccess is how the AKS nodes reach an account that denies public
	// networks (PrivateNetwork, and always the Blob NFS account):
	// PrivateEndpoint (default) — file and blob private endpoints in the
	// cluster VNet, created by the network layer (network.Network
	// PrivateEndpoints); or ServiceEndpoint — a VNet rule for the node
	// subnet (StorageAccountsArgs.NodeSubnetID), which needs the
	// Microsoft.Storage service endpoint on that subnet. IP rules are never
	// a route for the nodes: Azure Storage ignores them for traffic from the
	// account's own region.
	NodeAccess NodeAccess `json:"nodeAccess,omitempty" pulumi:"nodeAccess,optional"`
	// AllowedIPRanges are public IPv4 addresses or CIDR ranges (prefix /30 or
	// wider; Azure rejects /31 and /32 ranges and private ranges) allowed
	// through the Azure Files firewall, e.g. an operator's egress IP.
	AllowedIPRanges []string `json:"allowedIpRanges,omitempty" pulumi:"allowedIpRanges,optional"`
}

// NodeAccess is how the nodes reach a private storage account.
type NodeAccess string

// Node access routes.
const (
	// NodeAccessPrivateEndpoint reaches the account through private
	// endpoints in the cluster VNet.
	NodeAccessPrivateEndpoint NodeAccess = "PrivateEndpoint"
	// NodeAccessServiceEndpoint reaches the account through the node
	// subnet's Microsoft.Storage service endpoint and a VNet rule.
	NodeAccessServiceEndpoint NodeAccess = "ServiceEndpoint"
)

// NodeAccesses lists the valid node access routes.
var NodeAccesses = []NodeAccess{NodeAccessPrivateEndpoint, NodeAccessServiceEndpoint}

// NeedsRoute reports whether some account denies public networks, so the
// nodes need a private route to it.
func (a AccountsSpec) NeedsRoute() bool { return a.PrivateNetwork || a.BlobNFS }

// Route returns the effective node access: "" when no account needs a
// route, NodeAccess when set, else NodeAccessPrivateEndpoint.
func (a AccountsSpec) Route() NodeAccess {
	switch {
	case !a.NeedsRoute():
		return ""
	case a.NodeAccess == "":
		return NodeAccessPrivateEndpoint
	}
	return a.NodeAccess
}

// FilesName is the Azure Files account name: FilesAccountName, or
// NamePrefix + "files".
func (a AccountsSpec) FilesName() string {
	if a.FilesAccountName != "" {
		return a.FilesAccountName
	}
	if a.NamePrefix == "" {
		return ""
	}
	return a.NamePrefix + DefaultFilesAccountSuffix
}

// BlobName is the Blob NFS account name: BlobAccountName, or NamePrefix +
// "blob"; "" without BlobNFS.
func (a AccountsSpec) BlobName() string {
	if !a.BlobNFS {
		return ""
	}
	if a.BlobAccountName != "" {
		return a.BlobAccountName
	}
	if a.NamePrefix == "" {
		return ""
	}
	return a.NamePrefix + DefaultBlobAccountSuffix
}

// VolumesSpec describes the claims TeamVolumes creates in each team namespace.
type VolumesSpec struct {
	// DatasetsClass is the class of the datasets claim: ml-azurefile-premium
	// (default) or ml-azureblob-nfs.
	DatasetsClass string `json:"datasetsClass,omitempty" pulumi:"datasetsClass,optional"`
	// DatasetsSize is the datasets claim request, a Kubernetes quantity.
	// Default 100Gi (AKS MLOps best practices). At least 100Gi and at most 100Ti on Azure
	// Files premium.
	DatasetsSize string `json:"datasetsSize,omitempty" pulumi:"datasetsSize,optional"`
	// CheckpointsSize is the checkpoints claim request on the Retain class.
	// Default 100Gi (AKS MLOps best practices); 100Gi to 100Ti (Azure Files premium).
	CheckpointsSize string `json:"checkpointsSize,omitempty" pulumi:"checkpointsSize,optional"`
}

// Default fills unset fields with their documented defaults.
func (s *Spec) Default() {
	if s.ScratchDiskSKU == "" {
		s.ScratchDiskSKU = DefaultScratchDiskSKU
	}
	s.Volumes.Default()
}

// Default fills unset fields with their documented defaults.
func (v *VolumesSpec) Default() {
	if v.DatasetsClass == "" {
		v.DatasetsClass = DefaultDatasetsClass
	}
	if v.DatasetsSize == "" {
		v.DatasetsSize = DefaultDatasetsSize
	}
	if v.CheckpointsSize == "" {
		v.CheckpointsSize = DefaultCheckpointsSize
	}
}

// DatasetsClasses lists the classes a datasets claim may use.
var DatasetsClasses = []string{AzureFilePremiumClass, BlobNFSClass, BlobBlockCacheClass}
