// Package storage builds where ML datasets and checkpoints live (SPEC C3),
// following AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) "Store datasets and checkpoints":
// keep datasets and checkpoints off the node so training survives eviction
// and preemption.
//
// Three components, usable separately:
//
//   - NewStorageAccounts (Azure layer, `aksml:storage:StorageAccounts`): a
//     premium Azure Files account (kind FileStorage, Premium_LRS) for RWX
//     datasets and checkpoints, and, opt-in with Spec.BlobNFS, a premium Blob
//     account (BlockBlobStorage, hierarchical namespace, NFS 3.0) for large
//     object datasets. Secure defaults: TLS 1.2 minimum, no public blob
//     access, no cross-tenant replication, OAuth by default in the portal,
//     trusted Azure services through the firewall, and a deny-by-default
//     firewall with PrivateNetwork. Two settings follow the CSI mode rather
//     than the general rule:
//     shared-key access stays on for the Azure Files account, because the
//     Azure Files CSI driver mounts SMB shares with the account key; it is
//     off on the Blob NFS account, because NFS 3.0 mounts use no key. HTTPS
//     only is on for Azure Files (SMB 3 encrypts in transit) and off on the
//     Blob NFS account, because NFS 3.0 traffic is not TLS and Azure requires
//     secure transfer off for it; that account therefore always denies
//     public networks. Args.Protect (prod) protects the Azure Files account,
//     which holds the checkpoints.
//
//     Accounts that deny public networks need a route for the nodes
//     (Spec.NodeAccess, checked by ValidateRoute before anything is
//     registered): PrivateEndpoint (default), where the caller adds file and
//     blob private endpoints in the cluster VNet (components/network); or
//     ServiceEndpoint, where each such account gets a VNet rule for
//     Args.NodeSubnetID, which needs the Microsoft.Storage service endpoint
//     on that subnet. IP rules are never a route for the nodes: "IP network
//     rules have no effect on requests that originate from the same Azure
//     region as the storage account" ("Azure Storage firewall rules",
//     https://learn.microsoft.com/azure/storage/common/storage-network-security-ip-address-range).
//
//   - NewStorageClasses (Kubernetes layer, `aksml:storage:StorageClasses`):
//     ml-azurefile-premium, ml-checkpoints-azurefile (reclaim Retain) and
//     ml-azureblob-nfs with the AKS MLOps best practices' provisioner, parameters, mount
//     options, reclaim policy, allowVolumeExpansion true and
//     volumeBindingMode Immediate. ml-azureblob-nfs takes NFS mount options
//     only (actimeo=120, noresvport, nconnect=4): the Blob CSI driver passes
//     mountOptions unchanged to the NFS mount, and the AKS MLOps best practices' blobfuse-only
//     `-o attr_timeout/entry_timeout/negative_timeout` made every mount
//     fail (see blobNFSMountOptions). ml-azureblob-blockcache (not in the
//     AKS MLOps best practices) mounts premium Blob with BlobFuse2 in block-cache mode for
//     read-mostly datasets; the driver picks or creates its account (aksml's
//     Blob account is NFS-only), so in prod restrict that account's network
//     yourself or use the NFS class. With Args.Accounts (aksml manages the
//     accounts) each class also gets the CSI parameters `storageAccount` and
//     `resourceGroup` pointing at the account behind it; the AKS MLOps best practices'
//     parameters are unchanged. The cluster identity then needs "Storage
//     Account Contributor" on that resource group, which the stack grants.
//     Without Args.Accounts (existing-cluster mode) the classes are exactly
//     the AKS MLOps best practices' and the drivers create their own accounts.
//     ml-scratch-azuredisk is the ReadWriteOnce Azure Disk class for per-job
//     scratch (the documents' "Azure Disk for per-job scratch" option): one
//     managed disk per claim, attached to the node of the one pod that uses
//     it. It follows the Azure Disk CSI driver's example class
//     (kubernetes-sigs/azuredisk-csi-driver
//     deploy/example/storageclass-azuredisk-csi.yaml): provisioner
//     disk.csi.azure.com, skuName, reclaimPolicy Delete (scratch does not
//     outlive its claim), volumeBindingMode WaitForFirstConsumer (the disk is
//     created in the zone of the node the pod is scheduled on, so zonal GPU
//     pools work) and allowVolumeExpansion true. skuName is
//     Args.ScratchDiskSKU (config `aksml:storage.scratchDiskSku`, default
//     Premium_LRS), validated against ScratchDiskSKUs (Premium_LRS,
//     PremiumV2_LRS, Premium_ZRS, StandardSSD_LRS, StandardSSD_ZRS, the SSD
//     skuName values of the driver's parameters, docs/driver-parameters.md);
//     PremiumV2_LRS adds cachingMode None, the only caching mode Premium SSD
//     v2 supports ("Use the Azure Disk CSI driver in AKS",
//     https://learn.microsoft.com/azure/aks/azure-disk-csi). The AKS
//     Azure Disk CSI driver is on by default, and disks live in the node
//     resource group, so the class takes no account parameters. An invalid
//     SKU makes NewStorageClasses return the error (naming
//     aksml:storage.scratchDiskSku) before it registers anything.
//
//   - NewTeamVolumes (Kubernetes layer, `aksml:storage:TeamVolumes`): in a
//     team namespace, the RWX datasets claim DatasetsPVCName on
//     ml-azurefile-premium, ml-azureblob-nfs or ml-azureblob-blockcache and
//     the RWX checkpoints claim
//     CheckpointsPVCName on ml-checkpoints-azurefile, 100Gi each by default
//     (AKS MLOps best practices). Workload components mount these names.
//
// Checkpoints are never deleted by a `pulumi destroy` (C3.4): the checkpoint
// class reclaims with Retain, so the Azure file share outlives its claim and
// even its namespace; in prod Args.RetainCheckpoints registers the claim
// with RetainOnDelete and StorageAccountsArgs.Protect protects the accounts.
// Args.RetainDatasets does the same for the datasets claim, so removing or
// renaming a team keeps its data.
//
// No storage key reaches a team namespace: both Azure Files classes set
// secretNamespace kube-system (KeySecretNamespace), and
// KeySecretNamespaceFor states the CSI driver's rule that guardrail
// AKSML-STO-002 and the tests apply.
//
// The Spec (`aksml:storage`) is plain data: Default fills the documented
// defaults and Validate returns every problem with its config key. Pulumi
// transforms passed in a component's options apply to its children, which
// is the escape hatch for any provider argument not exposed here.
package storage
