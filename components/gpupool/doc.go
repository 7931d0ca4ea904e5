// Package gpupool describes and builds AKS node pools of NVIDIA GPU VMs
// (SPEC C2; AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) "Create a GPU node pool in AKS", AKS-managed GPU nodes (https://learn.microsoft.com/azure/aks/aks-managed-gpu-nodes),
// and the GPU node pools and spot guidance of SPEC C2.2 and C2.5).
//
// Spec is the config-facing description of one pool (decoded from stack
// config `aksml:gpuPools`); Default fills it, Validate checks it against the
// SKU catalogue (NV-series rejected, MIG only on A100/H100, spot never for
// inference) and returns every problem with its config path; ValidatePools
// also checks that names are unique.
//
// NewGPUNodePools builds all the GPU pools of one cluster. Every DriverOnly
// and None pool is a User pool with the cluster autoscaler on, minCount 0 by
// default (1 for a Regular inference pool of a production stack, see
// "Serving pools keep a warm node" below) and an explicit maxCount; a Managed pool runs an explicit Count
// with the autoscaler off (below). Every pool carries
// the taint `sku=gpu:NoSchedule` (plus the AKS spot taint
// on spot pools), the labels `accelerator=nvidia` and `workload=<class>`
// (`workload=gpu-spot` on spot), and spot pools get eviction Delete and max
// price -1 (SPEC C2). Two routes reach Azure, chosen by Spec.GPUStack:
//
//   - DriverOnly (default): one typed containerservice AgentPool per pool at
//     API 2024-10-01, the newest GA version in azure-native SDK v2.88.0. AKS
//     installs the driver; components/gpustack installs the device plugin
//     and DCGM exporter. The initial count is minCount (AKS MLOps best practices
//     `--node-count 0`) and is ignored after creation (the autoscaler owns
//     it). vmSize, gpuInstanceProfile (MIG), priority, zones, osSKU and OS
//     disk are in ReplaceOnChanges with DeleteBeforeReplace, so a preview
//     shows "replace" for them and the old pool is deleted before the new
//     one (same name) is created.
//   - Managed and None: no typed SDK version has gpuProfile.nvidia (Managed)
//     or gpuProfile.driver (None), so these pools are agentPools resources
//     at API 2026-02-02-preview (AgentPoolAPIVersion) in ONE ARM template
//     per cluster (PoolsTemplate), deployed by one deployment stack,
//     `<name>-stack` (components/armdeploy). 2026-02-02-preview is the
//     version whose published spec carries gpuProfile.nvidia in every
//     revision (Azure/azure-rest-api-specs, aks/preview/2026-02-02-preview/
//     managedClusters.json: GPUProfile, NvidiaGPUProfile, ManagementMode
//     enum Unmanaged|Managed, MigStrategy enum None|Single|Mixed); one
//     revision of 2026-01-02-preview lacks it. Each resource sets the same
//     properties as the typed route plus gpuProfile {driver: Install,
//     nvidia: {managementMode: Managed, migStrategy}} for Managed or
//     {driver: None, nvidia: {managementMode: Unmanaged}} for None (stated,
//     not left to the API default); resources are sorted by pool name and
//     each pool's resource ID is the template output `<pool>Id`.
//
// # Managed pools: explicit count, no autoscaler
//
// "Create a fully managed GPU node pool on AKS (preview)"
// (https://learn.microsoft.com/azure/aks/aks-managed-gpu-nodes) requires the
// subscription feature Microsoft.ContainerService/ManagedGPUExperiencePreview
// (ManagedGPUFeature; `az feature register --namespace
// Microsoft.ContainerService --name ManagedGPUExperiencePreview`) and does
// not support the cluster autoscaler on managed GPU pools while they are in
// preview. A Managed pool therefore sends enableAutoScaling false and
// count = Spec.Count, which config owns: validation requires `count` on
// Managed pools and rejects minCount/maxCount there (and rejects `count` on
// DriverOnly and None pools, whose count the autoscaler owns). Scale a
// Managed pool by changing count; 0 keeps it with no nodes. The validation
// messages and a preview-time info message name the feature registration.
//
// # Serving pools keep a warm node
//
// Scale to zero suits interruptible training pools, but a request that
// arrives while an inference pool has no node waits for a GPU VM to be
// provisioned, the image to be pulled and the model to be loaded. "Machine
// learning operations (MLOps) best practices in Azure Kubernetes Service
// (AKS)" (https://learn.microsoft.com/azure/aks/best-practices-ml-ops)
// advises a non-zero minimum where start-up latency matters to the service
// objectives, while the cost guidance ("Configure multiple nodes and enable
// scale-to-zero by using AKS", https://learn.microsoft.com/training/modules/aks-optimize-compute-costs/2-node-pools;
// SPEC C2.2) scales idle GPU pools to zero. aksml follows both by environment:
// Spec.DefaultForEnvironment gives a Regular DriverOnly or None pool with
// workload inference minCount DefaultProdInferenceMinCount (1) in a
// production stack when minCount is unset, and 0 everywhere else
// (intermittent stacks must scale to zero, guardrail AKSML-GPU-002). An
// explicit minCount 0 stays valid; the advisory guardrail AKSML-GPU-012
// reports it in production. A Managed pool has no minCount: its count is
// required config, so no default applies, and AKSML-GPU-012 reports count 0
// on a production inference pool the same way.
//
// # Node OS (osSku)
//
// Spec.OSSKU is Ubuntu (default) or AzureLinux, the Linux values of the
// OSSKU enum that both API versions accept: 2024-10-01 (typed DriverOnly
// pools: Ubuntu, CBLMariner, AzureLinux, Windows2019, Windows2022) and
// 2026-02-02-preview (template pools: adds AzureLinux3, Ubuntu2204,
// Ubuntu2404, Flatcar, ...) in Azure/azure-rest-api-specs
// aks/{stable/2024-10-01,preview/2026-02-02-preview}/managedClusters.json,
// definition OSSKU. AzureLinux3 is only in the preview enum, so it is not
// offered; the unversioned AzureLinux follows the cluster's Kubernetes
// version ("Upgrade the OS version in AKS",
// https://learn.microsoft.com/azure/aks/upgrade-os-version, recommends the
// unversioned SKUs; Azure Linux 2.0 is out of support since 2025-11-30, and
// AzureLinux picks the supported version for the Kubernetes version).
// Ubuntu stays the default: it is AKS's default for Linux pools ("The
// default is Ubuntu if OSType is Linux", OSSKU in the spec) and the OS of
// every example of the MLOps best-practice article. Ubuntu is not sent, so
// pools created before the setting existed see no change; AzureLinux is
// sent as osSKU, which is in ReplaceOnChanges (a DriverOnly pool is
// replaced, a template pool is renamed like any immutable change).
//
// Which GPU stack modes accept AzureLinux (validateOSSKU, with sources):
// DriverOnly yes ("Use GPUs for compute-intensive workloads on AKS",
// https://learn.microsoft.com/azure/aks/use-nvidia-gpu, documents Azure
// Linux GPU pools; automatic security patches are not applied to them);
// None no (the NVIDIA GPU Operator "isn't compatible with multiple OS
// versions on the same AKS cluster", https://learn.microsoft.com/azure/aks/nvidia-gpu-operator,
// and aksml's system and CPU pools run Ubuntu); Managed yes ("Create a
// fully managed GPU node pool on AKS (preview)",
// https://learn.microsoft.com/azure/aks/aks-managed-gpu-nodes, has an Azure
// Linux node pool tab beside the Ubuntu default, and 2026-02-02-preview, the
// version Managed pools are sent with, has AzureLinux in its OSSKU enum;
// where the source documents and that page disagree, the page of the API
// version aksml sends wins, README "From the documents to aksml"). No document found
// restricts Azure Linux to particular GPU VM sizes, so no size is refused
// for it; this is a gap in what could be pinned down, not a confirmation.
//
// # Serial pool writes
//
// AKS refuses a second agent-pool operation on a cluster while one runs
// (409 OperationNotAllowed; Azure/AKS#1913, cilium/cilium#25944; the Azure
// Verified Module for AKS serialises its pool writes). So: the typed
// AgentPools are registered in config order, each with DependsOn on the one
// before; the deployment stack depends on the last typed pool; and inside
// the template each pool has dependsOn on the previous pool's resourceId,
// so ARM writes them one at a time. No two pool writes of one update
// overlap. On destroy the order reverses (the stack first, then the typed
// pools from last to first).
//
// # Why one shared stack, registered even when empty
//
// azure-native v2.88.0 deletes a deployment stack with a plain DELETE, and
// Azure then detaches (does not delete) what the stack manages. A stack per
// pool therefore left the GPU pool running, unmanaged and billed, when the
// pool was removed from config. What Azure does delete is a resource that
// leaves the template during a stack update (actionOnUnmanage delete). So
// the shared stack is never deleted while the cluster lives:
//
//   - removing a Managed or None pool from config updates the stack with a
//     template without it, and Azure deletes the pool in that update;
//   - the stack is registered on every run, even when no pool uses the
//     template route (an empty template deploys nothing and costs nothing),
//     so adding the first such pool and removing the last one are stack
//     updates too, never a stack create or delete. This is unconditional
//     rather than an option, so there is no setting to get wrong;
//   - `pulumi destroy` deletes the stack first (it depends on the cluster
//     through its clusterName parameter), which detaches the pools, then
//     deletes the cluster, which deletes every pool it has.
//
// The caller's side of this contract: register exactly one GPUNodePools per
// cluster, under the same name, on every run for as long as the cluster
// exists, even with an empty pool list. To stop managing the pools of a
// cluster that stays (e.g. when moving the program to an existing cluster),
// first run `pulumi up` with no Managed or None pools, then remove the
// component.
//
// # What a preview shows
//
// The stack is one azure-native:resources/v20240301:DeploymentStackAtResourceGroup
// whose template the provider diffs key by key. Changing a pool shows as an
// update of the stack with the pool's property, e.g.
// `~ template.resources[1].properties.vmSize` or
// `~ template.resources[0].properties.gpuProfile.nvidia.migStrategy`
// (resources are in pool-name order, so reordering the config list changes
// nothing). Adding a pool shows a new element of template.resources and a
// new output; removing one shows the array shrinking — Pulumi diffs arrays
// by index, so the pools sorted after the removed one show as their
// predecessors' properties changing to theirs, although they are deployed
// unchanged.
//
// # Changing an immutable property of a Managed or None pool
//
// gpuStack, MIG strategy and profile, vmSize, priority, zones, OS SKU and OS disk
// are fixed at creation (AKS-managed GPU nodes). The stack is deliberately never
// replaced (a replacement would detach every pool it holds), so changing
// one of them in place shows as an update of the stack, and AKS refuses it
// during `pulumi up`, leaving the pool as it was. To change one, rename the
// pool in config (e.g. `gpumgd` to `gpumgd2`) together with the change: in
// the same `pulumi up` the stack creates the new pool and Azure deletes the
// old one, which left the template. Kueue flavors and the device-plugin
// affinity select pools by Spec.Name (label kubernetes.azure.com/agentpool),
// so they follow the new name in the same run; drain the old pool first if
// jobs run on it. Moving a pool between DriverOnly and Managed or None is
// done the same way, by renaming: under one name the typed pool's deletion
// (at the end of the update) would race the stack's write of the same pool.
//
// # Node count
//
// Every update of the stack (a change to any Managed or None pool of the
// cluster) PUTs every pool of the template. An autoscaled (None) pool sends
// no count, so such a write never resets the node count the autoscaler
// chose (the Azure Verified Module sends no count when min/max are set); a
// Managed pool sends its configured count, which is the count it should
// have.
//
// # Network and InfiniBand
//
// GPUNodePoolsArgs.NodeSubnetID puts every pool in the cluster's node subnet:
// vnetSubnetID on each typed AgentPool, and `[parameters('nodeSubnetId')]`
// on each template pool with the subnet passed as the stack parameter
// nodeSubnetId (AgentPool model, azure-rest-api-specs 2024-10-01 and
// 2026-01-02-preview: without vnetSubnetID "a VNET and subnet will be
// generated and used"; see components/network). AKS sets the subnet at
// creation only, so vnetSubnetID is in ReplaceOnChanges of the typed pools;
// a template pool moves subnet by renaming, like any immutable change.
//
// Pools on RDMA (InfiniBand) sizes of the catalogue are kept in one zone or
// none: RDMA-capable VMs in a scale set reach each other over InfiniBand
// only inside one placement group ("High performance compute VM sizes",
// cluster configuration options: "In a VM scale set, ensure that you limit
// the deployment to a single placement group",
// https://learn.microsoft.com/azure/virtual-machines/sizes-hpc), and a scale
// set spread over zones places its VMs in a placement group per zone, so
// NCCL falls back to TCP between zones. Validate rejects such a pool.
//
// # Outputs
//
// Per pool (GPUNodePools.Pools, by name), flat and always set: Name,
// ResourceID (from the stack's outputs on the template route), VMSize,
// GPUStack, MaxGPUs (maxCount, or count on a Managed pool, × GPUs per
// node), IdleCostPerHour (0 at minCount 0; count × price on a Managed
// pool), MaxCostPerHour (maxCount or count × the catalogue price,
// spot-discounted) and SpotDiscount; and the stack's StackName and
// StackResourceID. Prices are indicative (PriceDate), for sizing, not
// billing.
package gpupool
