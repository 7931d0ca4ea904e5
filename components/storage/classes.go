package storage

import (
	"errors"

	"github.com/aksml/aksml/components/field"
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
	storagev1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/storage/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// ClassAccounts points the StorageClasses at storage accounts aksml manages
// (StorageAccounts.ClassAccounts). The CSI drivers then create shares and
// containers in those accounts instead of accounts of their own, which
// needs the cluster identity to hold "Storage Account Contributor" on
// ResourceGroupName.
type ClassAccounts struct {
	// ResourceGroupName is the resource group of the accounts. Required.
	ResourceGroupName pulumi.StringInput
	// FilesAccountName is the Azure Files premium account behind
	// ml-azurefile-premium and ml-checkpoints-azurefile; nil leaves the
	// driver's own account choice.
	FilesAccountName pulumi.StringInput
	// BlobAccountName is the Blob NFS account behind ml-azureblob-nfs; nil
	// leaves the driver's own account choice.
	BlobAccountName pulumi.StringInput
}

// StorageClassesArgs configures NewStorageClasses.
type StorageClassesArgs struct {
	// ConfigPath is the root of validation error paths (`<ConfigPath>.scratchDiskSku`).
	// Default DefaultConfigPath (`storage`).
	ConfigPath field.Path
	// Provider is the Kubernetes provider; nil uses the ambient default.
	Provider *kubernetes.Provider
	// Accounts adds the `storageAccount` and `resourceGroup` CSI parameters
	// that pin the classes to aksml's accounts. Default nil: the classes are
	// exactly the AKS MLOps best practices' (existing-cluster mode).
	Accounts *ClassAccounts
	// ScratchDiskSKU is the skuName of the ml-scratch-azuredisk class, one
	// of ScratchDiskSKUs. Default Premium_LRS (DefaultScratchDiskSKU).
	ScratchDiskSKU string
	// PinnedBlobOnly leaves out the Blob classes whose storage account the
	// Blob CSI driver would choose or create itself: ml-azureblob-nfs
	// without Accounts.BlobAccountName, and ml-azureblob-blockcache. Without
	// a storageAccount parameter the driver looks for a suitable account or
	// creates one; for NFS it adds the Microsoft.Storage service endpoint
	// and a VNet rule for the node subnet, and an account it creates for
	// blobfuse is reachable from public networks unless networkEndpointType
	// says otherwise (kubernetes-sigs/blob-csi-driver docs/driver-parameters.md,
	// storageAccount, vnetResourceGroup/vnetName/subnetName,
	// networkEndpointType). Set it where the driver must not create storage:
	// a VNet aksml owns (the next `pulumi up` would remove the service
	// endpoint the driver added) and prod, whose storage is private.
	// Default false: the AKS MLOps best practices classes as they are.
	PinnedBlobOnly bool
}

// StorageClasses is the three ML StorageClasses of AKS MLOps best
// practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops),
// the BlobFuse2 block-cache class and the Azure Disk scratch class.
type StorageClasses struct {
	pulumi.ResourceState

	// AzureFilePremiumClass is the name of the ml-azurefile-premium class.
	AzureFilePremiumClass pulumi.StringOutput `pulumi:"azureFilePremiumClass"`
	// CheckpointsClass is the name of the ml-checkpoints-azurefile class.
	CheckpointsClass pulumi.StringOutput `pulumi:"checkpointsClass"`
	// BlobNFSClass is the name of the ml-azureblob-nfs class, "" when
	// PinnedBlobOnly left it out.
	BlobNFSClass pulumi.StringOutput `pulumi:"blobNFSClass"`
	// BlobBlockCacheClass is the name of the ml-azureblob-blockcache class,
	// "" when PinnedBlobOnly left it out.
	BlobBlockCacheClass pulumi.StringOutput `pulumi:"blobBlockCacheClass"`
	// ScratchDiskClass is the name of the ml-scratch-azuredisk class.
	ScratchDiskClass pulumi.StringOutput `pulumi:"scratchDiskClass"`

	// classes are the StorageClass resources, for claims to depend on.
	classes []pulumi.Resource
}

// classSpec is one AKS MLOps best practices StorageClass.
type classSpec struct {
	role, name, provisioner, reclaimPolicy string
	parameters                             map[string]string
	mountOptions                           []string
	onBlob                                 bool
	// driverAccount leaves the account to the CSI driver even when aksml
	// manages accounts (aksml's Blob account is NFS-only).
	driverAccount bool
	// bindingMode is the volumeBindingMode; "" is VolumeBindingImmediate.
	bindingMode string
}

// ClassNames are the names of the StorageClasses NewStorageClasses
// creates, in order (a team's namespace quota bounds claims per class).
func ClassNames() []string {
	var out []string
	for _, c := range bestPracticeClasses(DefaultScratchDiskSKU) {
		out = append(out, c.name)
	}
	return out
}

// bestPracticeClasses returns the AKS MLOps best practices StorageClasses, Azure
// Files first, then the Azure Disk scratch class with skuName scratchSKU.
func bestPracticeClasses(scratchSKU string) []classSpec {
	return []classSpec{
		{
			role: "files-premium", name: AzureFilePremiumClass, provisioner: FileCSIDriver, reclaimPolicy: ReclaimDelete,
			parameters:   azureFileParameters(),
			mountOptions: azureFileMountOptions(),
		},
		{
			role: "checkpoints", name: CheckpointsClass, provisioner: FileCSIDriver, reclaimPolicy: ReclaimRetain,
			parameters:   azureFileParameters(),
			mountOptions: azureFileMountOptions(),
		},
		{
			role: "blob-nfs", name: BlobNFSClass, provisioner: BlobCSIDriver, reclaimPolicy: ReclaimDelete,
			parameters:   map[string]string{ParamProtocol: ProtocolNFS, ParamSKUName: PremiumLRS},
			mountOptions: blobNFSMountOptions(),
			onBlob:       true,
		},
		{
			role: "blob-blockcache", name: BlobBlockCacheClass, provisioner: BlobCSIDriver, reclaimPolicy: ReclaimDelete,
			parameters:    map[string]string{ParamProtocol: ProtocolFuse2, ParamSKUName: PremiumLRS},
			mountOptions:  blobBlockCacheMountOptions(),
			driverAccount: true,
		},
		scratchDiskClass(scratchSKU),
	}
}

// azureFileParameters are the CSI parameters of both Azure Files classes:
// the best practices' premium SKU, and the account-key Secret kept in
// KeySecretNamespace instead of the claim's (team) namespace.
func azureFileParameters() map[string]string {
	return map[string]string{ParamSKUName: PremiumLRS, ParamSecretNamespace: KeySecretNamespace}
}

// scratchDiskClass is the ReadWriteOnce Azure Disk class for per-job
// scratch: the Azure Disk CSI driver's example class
// (kubernetes-sigs/azuredisk-csi-driver
// deploy/example/storageclass-azuredisk-csi.yaml: skuName, reclaimPolicy
// Delete, volumeBindingMode WaitForFirstConsumer, allowVolumeExpansion) with
// a premium SKU, plus cachingMode None on PremiumV2_LRS, the only caching
// mode Premium SSD v2 supports ("Use the Azure Disk CSI driver in AKS",
// https://learn.microsoft.com/azure/aks/azure-disk-csi). Disks are managed
// disks in the node resource group, so no account parameters apply.
func scratchDiskClass(sku string) classSpec {
	params := map[string]string{ParamSKUName: sku}
	if sku == PremiumV2LRS {
		params[ParamCachingMode] = CachingNone
	}
	return classSpec{
		role: "scratch-disk", name: ScratchDiskClass, provisioner: DiskCSIDriver, reclaimPolicy: ReclaimDelete,
		parameters: params, driverAccount: true, bindingMode: VolumeBindingWaitForFirstConsumer,
	}
}

// storageClassArgs maps a AKS MLOps best practices class to provider arguments, adding the
// account parameters when aksml manages the account behind it.
func storageClassArgs(c classSpec, accounts *ClassAccounts) *storagev1.StorageClassArgs {
	params := pulumi.StringMap{}
	for k, v := range c.parameters {
		params[k] = pulumi.String(v)
	}
	if accounts != nil && !c.driverAccount {
		account := accounts.FilesAccountName
		if c.onBlob {
			account = accounts.BlobAccountName
		}
		if account != nil {
			params[ParamStorageAccount] = account
			params[ParamResourceGroup] = accounts.ResourceGroupName
		}
	}
	binding := c.bindingMode
	if binding == "" {
		binding = VolumeBindingImmediate
	}
	args := &storagev1.StorageClassArgs{
		Metadata:             &metav1.ObjectMetaArgs{Name: pulumi.String(c.name)},
		Provisioner:          pulumi.String(c.provisioner),
		Parameters:           params,
		ReclaimPolicy:        pulumi.String(c.reclaimPolicy),
		AllowVolumeExpansion: pulumi.Bool(true),
		VolumeBindingMode:    pulumi.String(binding),
	}
	// A class without mount options (the Azure Disk class) sends none: the API server
	// drops an empty list, so the live object would lack the field the program sent.
	if len(c.mountOptions) > 0 {
		args.MountOptions = pulumi.ToStringArray(c.mountOptions)
	}
	return args
}

// pinnedBlob reports whether class c is not a Blob class or is pinned to
// an account aksml manages.
func pinnedBlob(c classSpec, accounts *ClassAccounts) bool {
	if c.provisioner != BlobCSIDriver {
		return true
	}
	return c.onBlob && !c.driverAccount && accounts != nil && accounts.BlobAccountName != nil
}

// NewStorageClasses creates ml-azurefile-premium, ml-checkpoints-azurefile
// (reclaim Retain) and ml-azureblob-nfs as AKS MLOps best practices writes them (the NFS
// class with NFS mount options only, see blobNFSMountOptions), and the
// BlobFuse2 block-cache class ml-azureblob-blockcache and the Azure Disk
// scratch class ml-scratch-azuredisk. With PinnedBlobOnly the Blob classes
// the driver would back with an account of its own are left out (their
// outputs are ""). An invalid ScratchDiskSKU registers nothing.
func NewStorageClasses(ctx *pulumi.Context, name string, args *StorageClassesArgs, opts ...pulumi.ResourceOption) (*StorageClasses, error) {
	if args == nil {
		args = &StorageClassesArgs{}
	}
	if args.Accounts != nil && args.Accounts.ResourceGroupName == nil {
		return nil, errors.New("storage: StorageClassesArgs.Accounts needs ResourceGroupName")
	}
	scratchSKU := args.ScratchDiskSKU
	if scratchSKU == "" {
		scratchSKU = DefaultScratchDiskSKU
	}
	if err := ValidateScratchDiskSKU(scratchSKU, configPath(args.ConfigPath).Child("scratchDiskSku")).ToAggregate(); err != nil {
		return nil, err
	}
	if args.Provider != nil {
		opts = append(opts, pulumi.Providers(args.Provider))
	}
	c := &StorageClasses{}
	if err := ctx.RegisterComponentResource(StorageClassesType, name, c, opts...); err != nil {
		return nil, err
	}

	names := map[string]pulumi.StringOutput{}
	for _, spec := range bestPracticeClasses(scratchSKU) {
		if args.PinnedBlobOnly && !pinnedBlob(spec, args.Accounts) {
			names[spec.name] = pulumi.String("").ToStringOutput()
			continue
		}
		// A class's parameters are immutable, so a change replaces it; the
		// name is fixed, so the old class goes first. Deleting a class
		// leaves its volumes and claims as they are ("Storage Classes",
		// https://kubernetes.io/docs/concepts/storage/storage-classes/:
		// parameters apply when a volume is provisioned).
		sc, err := storagev1.NewStorageClass(ctx, name+"-"+spec.role, storageClassArgs(spec, args.Accounts),
			pulumi.Parent(c), pulumi.DeleteBeforeReplace(true))
		if err != nil {
			return nil, err
		}
		names[spec.name] = sc.Metadata.Name().Elem()
		c.classes = append(c.classes, sc)
	}
	c.AzureFilePremiumClass = names[AzureFilePremiumClass]
	c.CheckpointsClass = names[CheckpointsClass]
	c.BlobNFSClass = names[BlobNFSClass]
	c.BlobBlockCacheClass = names[BlobBlockCacheClass]
	c.ScratchDiskClass = names[ScratchDiskClass]

	if err := ctx.RegisterResourceOutputs(c, pulumi.Map{
		"azureFilePremiumClass": c.AzureFilePremiumClass,
		"checkpointsClass":      c.CheckpointsClass,
		"blobNfsClass":          c.BlobNFSClass,
		"blobBlockCacheClass":   c.BlobBlockCacheClass,
		"scratchDiskClass":      c.ScratchDiskClass,
	}); err != nil {
		return nil, err
	}
	return c, nil
}
