package storage

import (
	"strings"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/vocab"
)

// DefaultConfigPath is the error-path root of the storage components when
// the caller gives no ConfigPath; errors name the key below it to change.
// It carries no program's config namespace: the aksml program passes
// `aksml:storage` (C9).
const DefaultConfigPath = "storage"

// DefaultNetworkConfigPath is the error-path root of the network section
// that route problems point to when the caller gives no
// StorageAccountsArgs.NetworkConfigPath (the aksml program passes
// `aksml:network`).
const DefaultNetworkConfigPath = "network"

// configPath is the caller's ConfigPath, or DefaultConfigPath.
func configPath(p field.Path) field.Path { return orPath(p, DefaultConfigPath) }

// orPath is p, or the root def when p is empty.
func orPath(p field.Path, def string) field.Path {
	if p == "" {
		return field.NewPath(def)
	}
	return p
}

// StorageClass names, provisioners and SKU from AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) "Store datasets and checkpoints".
const (
	// AzureFilePremiumClass is the RWX Azure Files premium class for shared
	// training data (AKS MLOps best practices `ml-azurefile-premium`), reclaim Delete.
	AzureFilePremiumClass = "ml-azurefile-premium"
	// CheckpointsClass is the Azure Files premium class for model checkpoints
	// (AKS MLOps best practices `ml-checkpoints-azurefile`), reclaim Retain so that deleting
	// a claim never deletes the only recovery point.
	CheckpointsClass = "ml-checkpoints-azurefile"
	// BlobNFSClass is the premium Blob class mounted over NFS 3.0 for large
	// object datasets (AKS MLOps best practices `ml-azureblob-nfs`), reclaim Delete.
	BlobNFSClass = "ml-azureblob-nfs"
	// BlobBlockCacheClass is a premium Blob class mounted with BlobFuse2 in
	// block-cache mode, for read-mostly datasets read in large sequential
	// blocks (e.g. shards, tokenised corpora), reclaim Delete. It is not in
	// AKS MLOps best practices; teams asked for a FUSE class that needs no NFS network
	// setup. The Blob CSI driver creates (or reuses) its own account for it.
	BlobBlockCacheClass = "ml-azureblob-blockcache"

	// FileCSIDriver is the Azure Files CSI provisioner.
	FileCSIDriver = "file.csi.azure.com"
	// BlobCSIDriver is the Azure Blob CSI provisioner; on AKS it needs the
	// blob driver add-on (AKS MLOps best practices `--enable-blob-driver`, C1.6).
	BlobCSIDriver = "blob.csi.azure.com"
	// PremiumLRS is the SKU every aksml class and account uses (AKS MLOps best practices
	// `skuName: Premium_LRS`).
	PremiumLRS = "Premium_LRS"

	// ReclaimDelete and ReclaimRetain are the StorageClass reclaim policies.
	ReclaimDelete = "Delete"
	ReclaimRetain = "Retain"
	// VolumeBindingImmediate is the AKS MLOps best practices' volumeBindingMode for every
	// Azure Files and Blob class.
	VolumeBindingImmediate = "Immediate"
	// VolumeBindingWaitForFirstConsumer delays disk creation until a pod
	// using the claim is scheduled, so the Azure Disk is created in the
	// zone of that pod's node (Azure Disk CSI example StorageClass,
	// kubernetes-sigs/azuredisk-csi-driver
	// deploy/example/storageclass-azuredisk-csi.yaml).
	VolumeBindingWaitForFirstConsumer = "WaitForFirstConsumer"

	// ScratchDiskClass is the ReadWriteOnce Azure Disk class for per-job
	// scratch space (checkpoint staging, unpacked shards): one disk per
	// claim, attached to one node, deleted with the claim.
	ScratchDiskClass = "ml-scratch-azuredisk"
	// DiskCSIDriver is the Azure Disk CSI provisioner, enabled on AKS by
	// default ("Use the Azure Disk CSI driver in AKS",
	// https://learn.microsoft.com/azure/aks/azure-disk-csi).
	DiskCSIDriver = "disk.csi.azure.com"
	// DefaultScratchDiskSKU is Premium SSD (Premium_LRS), the SKU of the
	// AKS built-in managed-csi-premium class.
	DefaultScratchDiskSKU = PremiumLRS
	// PremiumV2LRS is Premium SSD v2, which supports only cachingMode None
	// ("Use the Azure Disk CSI driver in AKS").
	PremiumV2LRS = "PremiumV2_LRS"
	// ParamCachingMode is the Azure Disk CSI host caching parameter.
	ParamCachingMode = "cachingMode"
	// CachingNone is the only cachingMode PremiumV2_LRS supports.
	CachingNone = "None"
)

// ScratchDiskSKUs are the Azure Disk skuName values accepted for the scratch
// class: the SSD SKUs the Azure Disk CSI driver lists (driver parameters
// doc, kubernetes-sigs/azuredisk-csi-driver docs/driver-parameters.md;
// "Use the Azure Disk CSI driver in AKS" for Premium SSD v2 and ZRS).
// Standard HDD and Ultra Disk are left out: HDD is too slow for scratch and
// Ultra Disk needs ultraSSDEnabled on the pool.
var ScratchDiskSKUs = []string{PremiumLRS, PremiumV2LRS, "Premium_ZRS", "StandardSSD_LRS", "StandardSSD_ZRS"}

// CSI StorageClass parameter keys.
const (
	// ParamSKUName selects the account SKU (both drivers).
	ParamSKUName = "skuName"
	// ParamProtocol selects the Blob driver's mount protocol.
	ParamProtocol = "protocol"
	// ParamStorageAccount pins a class to an existing account. aksml sets it
	// only when it manages the account (StorageClassesArgs.Accounts).
	ParamStorageAccount = "storageAccount"
	// ParamResourceGroup is the resource group of ParamStorageAccount.
	ParamResourceGroup = "resourceGroup"
	// ParamSecretNamespace is the namespace the Azure Files CSI driver
	// stores an SMB share's account-key Secret in ("secretNamespace",
	// kubernetes-sigs/azurefile-csi-driver docs/driver-parameters.md: default
	// the claim's namespace, `csi.storage.k8s.io/pvc/namespace`).
	ParamSecretNamespace = "secretNamespace"
	// ParamStoreAccountKey says whether the Azure Files CSI driver stores
	// the account key as a Secret at all ("storeAccountKey", same document:
	// default "true"; "false" makes the node fetch the key with the kubelet
	// identity at every mount).
	ParamStoreAccountKey = "storeAccountKey"
	// ParamFileProtocol is the Azure Files CSI share protocol parameter
	// ("protocol": smb, the default, or nfs; NFS mounts need no key).
	ParamFileProtocol = "protocol"
	// ProtocolNFS is the Blob driver's NFS 3.0 protocol value.
	ProtocolNFS = "nfs"
	// ProtocolFuse2 is the Blob driver's BlobFuse2 protocol value.
	ProtocolFuse2 = "fuse2"
)

// KeySecretNamespace is where both Azure Files classes keep the account-key
// Secret the CSI driver writes per share: kube-system, which no team Role
// reaches, instead of the driver's default, the claim's namespace, where
// any Job of the team could mount the Secret and, with the key of the one
// shared account, open every team's shares over HTTPS (issue 25). Sources:
// kubernetes-sigs/azurefile-csi-driver docs/driver-parameters.md
// ("secretNamespace": the namespace of the Secret that stores the account
// key; the volume handle carries it, `{rg}#{account}#{share}#...#{secret-namespace}`,
// so the node plugin reads it from there at mount time).
//
// Not keyless: SMB mounts with the account key (driver README: "This driver
// only permits the mounting of SMB file shares using key-based (NTLM v2)
// authentication"). The driver's managed-identity mount
// (docs "Mount Azure SMB file share with managed identity") is preview,
// needs driver v1.34.0 and authenticates as the node's kubelet identity,
// the same for every team; its workload-identity mount
// (docs/workload-identity-static-pv-mount.md) is for static volumes only.
// storeAccountKey "false" is not used either: the node would then fetch the
// key with the kubelet identity, which every pod that reaches IMDS can act
// as, and that identity would need listKeys on the account.
const KeySecretNamespace = "kube-system"

// KeySecretNamespaceFor is the namespace the CSI driver of a StorageClass
// with provisioner and parameters writes a claim's storage-account-key
// Secret to, for a claim in claimNamespace, or "" when it writes none: only
// the Azure Files CSI driver over SMB stores keys; protocol nfs and
// storeAccountKey "false" store none; secretNamespace overrides the default,
// the claim's namespace (kubernetes-sigs/azurefile-csi-driver
// docs/driver-parameters.md; parameter names are case-insensitive there).
// Guardrail AKSML-STO-002 and the tests call it, so they cannot disagree
// with the classes.
func KeySecretNamespaceFor(provisioner string, parameters map[string]string, claimNamespace string) string {
	if provisioner != FileCSIDriver {
		return ""
	}
	param := func(name string) string {
		for k, v := range parameters {
			if strings.EqualFold(k, name) {
				return v
			}
		}
		return ""
	}
	if strings.EqualFold(param(ParamFileProtocol), ProtocolNFS) || strings.EqualFold(param(ParamStoreAccountKey), "false") {
		return ""
	}
	if ns := param(ParamSecretNamespace); ns != "" {
		return ns
	}
	return claimNamespace
}

// azureFileMountOptions are the SMB mount options of both Azure Files classes,
// in the AKS MLOps best practices' order: group-writable files for uid/gid 1000 (the workloads'
// runAsUser/runAsGroup), symlinks, strict caching, 30 s attribute cache and a
// socket per share.
func azureFileMountOptions() []string {
	return []string{
		"dir_mode=0770",
		"file_mode=0660",
		"uid=1000",
		"gid=1000",
		"mfsymlinks",
		"cache=strict",
		"actimeo=30",
		"nosharesock",
	}
}

// blobNFSMountOptions are the NFS mount options of the Blob NFS class. The
// Blob CSI driver hands a StorageClass's mountOptions unchanged to the NFS
// mount (kubernetes-sigs/blob-csi-driver, docs/driver-parameters.md and
// pkg/blob/nodeserver.go: for protocol nfs the options go to `mount -t nfs
// -o`), so only NFS options are valid there. AKS MLOps best practices lists six options in
// blobfuse's "-o name=value" form; attr_timeout, entry_timeout and
// negative_timeout are FUSE options that the NFS client rejects, so every
// mount failed. What AKS MLOps best practices meant survives as the NFS equivalents: a
// 120 s attribute cache (actimeo=120, which also covers the entry and
// negative caching the FUSE options set), noresvport (reconnect from a new
// source port after a network fault) and nconnect=4 (four TCP connections;
// "Create and use a volume with Azure Blob storage in AKS",
// https://learn.microsoft.com/azure/aks/azure-csi-blob-storage-provision,
// uses nconnect=4 on its NFS class).
func blobNFSMountOptions() []string {
	return []string{
		"actimeo=120",
		"noresvport",
		"nconnect=4",
	}
}

// blobBlockCacheMountOptions are the BlobFuse2 mount options of the
// block-cache class: BlobFuse2's block cache (read-ahead of fixed-size
// blocks held in memory) instead of the default whole-file cache, which
// suits large read-mostly files that do not fit a node's disk. Options as
// the Blob CSI driver's fuse2 example class and the BlobFuse2 README list
// them (kubernetes-sigs/blob-csi-driver deploy/example/storageclass-blobfuse2.yaml;
// Azure/azure-storage-fuse README "Block-Cache options"): other users may
// read the mount (pods run as non-root), a 120 s attribute and entry cache,
// no container listing at mount (billing), warnings-only logs, and the
// block cache with 16 MiB blocks.
func blobBlockCacheMountOptions() []string {
	return []string{
		"-o allow_other",
		"--use-attr-cache=true",
		"--cancel-list-on-mount-seconds=10",
		"-o attr_timeout=120",
		"-o entry_timeout=120",
		"-o negative_timeout=120",
		"--log-level=LOG_WARNING",
		"--block-cache",
		"--block-cache-block-size=16",
	}
}

// Per-team claims (C3.3). Workload components mount these names.
const (
	// DatasetsPVCName is the shared RWX datasets claim in every team
	// namespace (AKS MLOps best practices `shared-training-data`).
	DatasetsPVCName = "shared-training-data"
	// CheckpointsPVCName is the RWX checkpoints claim in every team namespace
	// (AKS MLOps best practices `model-checkpoints`), on the Retain class.
	CheckpointsPVCName = vocab.CheckpointsPVCName
	// AccessModeRWX is the access mode of both claims: workers on different
	// nodes mount the same share (AKS MLOps best practices).
	AccessModeRWX = "ReadWriteMany"
)

// Defaults applied by (*Spec).Default.
const (
	// DefaultDatasetsClass is Azure Files premium (AKS MLOps best practices shared-training-data).
	DefaultDatasetsClass = AzureFilePremiumClass
	// DefaultDatasetsSize is the AKS MLOps best practices' shared-training-data request.
	DefaultDatasetsSize = "100Gi"
	// DefaultCheckpointsSize is the AKS MLOps best practices' model-checkpoints request.
	DefaultCheckpointsSize = "100Gi"
	// DefaultFilesAccountSuffix is appended to Accounts.NamePrefix to derive
	// the Azure Files premium account name.
	DefaultFilesAccountSuffix = "files"
	// DefaultBlobAccountSuffix is appended to Accounts.NamePrefix to derive
	// the Blob NFS account name.
	DefaultBlobAccountSuffix = "blob"
)

// Limits checked by validation.
const (
	// MinAccountNameLen and MaxAccountNameLen bound an Azure storage account
	// name (3-24 lowercase letters and digits).
	MinAccountNameLen = 3
	MaxAccountNameLen = 24
	// MinPremiumFileShareGiB is the smallest Azure Files premium share; the
	// CSI driver rounds smaller claims up and the share is billed at this
	// size, so aksml asks for it explicitly.
	MinPremiumFileShareGiB = 100
	// MaxPremiumFileShareGiB is the largest Azure Files premium share (100 TiB).
	MaxPremiumFileShareGiB = 102400
)

// Azure storage account settings aksml always applies (C3.1).
const (
	// KindFileStorage and KindBlockBlobStorage are the premium account kinds.
	KindFileStorage      = "FileStorage"
	KindBlockBlobStorage = "BlockBlobStorage"
	// MinimumTLSVersion is the lowest TLS version the accounts accept.
	MinimumTLSVersion = "TLS1_2"
	// BypassAzureServices lets trusted Azure services (backup, monitoring)
	// through the firewall.
	BypassAzureServices = "AzureServices"
)

// StorageAccountContributorRoleID is the built-in Azure role "Storage
// Account Contributor", which the Azure Files and Blob CSI drivers need on
// an account to create shares and containers in it.
const StorageAccountContributorRoleID = "17d1049b-9a84-46fb-8f53-869881c3d3ab"
