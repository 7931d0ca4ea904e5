// Package gpupool describes and builds AKS node pools of NVIDIA GPU VMs
// (SPEC C2; seed 000 "Criar um pool de nós de GPU no AKS", seed 002 managed
// GPU pools, seed 004 GPU node pools and spot).
//
// Spec is the config-facing description of one pool (decoded from stack
// config `aksml:gpuPools`); Default fills it, Validate checks it against the
// SKU catalogue (NV-series rejected, MIG only on A100/H100, spot never for
// inference) and returns every problem with its config path; ValidatePools
// also checks that names are unique.
//
// NewGPUNodePools builds all the GPU pools of one cluster. Every pool is a
// User pool with the cluster autoscaler on, minCount 0 by default, an
// explicit maxCount, an initial count of minCount (seed 000
// `--node-count 0`), the taint `sku=gpu:NoSchedule` (plus the AKS spot taint
// on spot pools), the labels `accelerator=nvidia` and `workload=<class>`
// (`workload=gpu-spot` on spot), and spot pools get eviction Delete and max
// price -1 (seed 004). Two routes reach Azure, chosen by Spec.GPUStack:
//
//   - DriverOnly (default): one typed containerservice AgentPool per pool at
//     API 2024-10-01, the newest GA version in azure-native SDK v2.88.0. AKS
//     installs the driver; components/gpustack installs the device plugin
//     and DCGM exporter. `count` is ignored after creation (the autoscaler
//     owns it). vmSize, gpuInstanceProfile (MIG), priority, zones and OS
//     disk are in ReplaceOnChanges with DeleteBeforeReplace, so a preview
//     shows "replace" for them and the old pool is deleted before the new
//     one (same name) is created.
//   - Managed and None: no typed SDK version has gpuProfile.nvidia (Managed)
//     or gpuProfile.driver (None), so these pools are agentPools resources
//     at API 2026-01-02-preview (AgentPoolAPIVersion, the version the Azure
//     Verified Module uses) in ONE ARM template per cluster (PoolsTemplate),
//     deployed by one deployment stack, `<name>-stack` (components/armdeploy).
//     Each resource sets the same properties as the typed route plus
//     gpuProfile {driver: Install, nvidia: {managementMode: Managed,
//     migStrategy}} or {driver: None}; resources are sorted by pool name and
//     each pool's resource ID is the template output `<pool>Id`.
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
// gpuStack, MIG strategy and profile, vmSize, priority, zones and OS disk
// are fixed at creation (seed 002). The stack is deliberately never
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
// The template sets count to minCount, and every update of the stack (a
// change to any Managed or None pool of the cluster) writes every pool of
// the template. AKS may refuse such a write for a pool the autoscaler has
// scaled above minCount. Apply changes to Managed and None pools when those
// pools are idle.
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
// GPUStack, MaxGPUs (maxCount × GPUs per node), IdleCostPerHour (0 at
// minCount 0), MaxCostPerHour (maxCount × the catalogue price,
// spot-discounted) and SpotDiscount; and the stack's StackName and
// StackResourceID. Prices are indicative (PriceDate), for sizing, not
// billing.
package gpupool
