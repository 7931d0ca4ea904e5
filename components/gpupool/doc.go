// Package gpupool describes and builds AKS node pools of NVIDIA GPU VMs
// (SPEC C2; seed 000 "Criar um pool de nós de GPU no AKS", seed 002 managed
// GPU pools, seed 004 GPU node pools and spot).
//
// Spec is the config-facing description of one pool (decoded from stack
// config `aksml:gpuPools`); Default fills it, Validate checks it against the
// SKU catalogue (NV-series rejected, MIG only on A100/H100, spot never for
// inference) and returns every problem with its config path.
//
// NewGPUNodePool builds the pool. Every pool is a User pool with the
// cluster autoscaler on, minCount 0 by default, an explicit maxCount, an
// initial count of minCount (seed 000 `--node-count 0`), the taint
// `sku=gpu:NoSchedule` (plus the AKS spot taint on spot pools), the labels
// `accelerator=nvidia` and `workload=<class>` (`workload=gpu-spot` on spot),
// and spot pools get eviction Delete and max price -1 (seed 004). Two routes
// reach Azure, chosen by Spec.GPUStack:
//
//   - DriverOnly (default): a typed containerservice AgentPool at API
//     2024-10-01, the newest GA version in azure-native SDK v2.88.0. AKS
//     installs the driver; components/gpustack installs the device plugin
//     and DCGM exporter. `count` is ignored after creation (the autoscaler
//     owns it). vmSize, gpuInstanceProfile (MIG), priority, zones and OS
//     disk are in ReplaceOnChanges with DeleteBeforeReplace, so a preview
//     shows "replace" for them and the old pool is deleted before the new
//     one (same name) is created.
//   - Managed and None: no typed SDK version has gpuProfile.nvidia (Managed)
//     or gpuProfile.driver (None), so the pool is an ARM template at API
//     2026-01-02-preview (AgentPoolAPIVersion, the version the Azure Verified
//     Module uses) deployed by a deployment stack (components/armdeploy).
//     The template sets the same properties as the typed route plus
//     gpuProfile {driver: Install, nvidia: {managementMode: Managed,
//     migStrategy}} or {driver: None}. A preview shows the stack and a
//     property-level diff of its template, e.g.
//     `~ template.resources[0].properties.gpuProfile.nvidia.migStrategy`.
//
// Limits of the template route, from how azure-native v2.88.0 deletes
// deployment stacks (see components/armdeploy):
//
//   - `pulumi destroy` of the whole platform removes the pool, because it
//     deletes the AKS cluster, which deletes its pools; the stack itself is
//     deleted with Azure's default action, detach.
//   - Removing one Managed or None pool from config while the cluster stays
//     leaves the pool in the cluster (detached from the deleted stack).
//     Delete it with `az aks nodepool delete` in the same change.
//   - gpuStack, MIG, vmSize, priority, zones and OS disk are fixed at
//     creation (seed 002). Changing them on a template-route pool shows as an
//     update in the preview and Azure refuses it, leaving the pool as it
//     was; the stack is deliberately not replaced, because a replacement
//     would detach the old pool and then fail to create the new one under
//     the same name. To change them, give the pool a new name (a new pool is
//     created), and delete the old one as above. The same holds for moving a
//     pool between DriverOnly and Managed or None.
//   - The template sets count to minCount on every update of the stack; AKS
//     may refuse such an update while the autoscaler has scaled the pool
//     above minCount. Apply template changes when the pool is idle.
//
// Outputs are flat and always set: Name, ResourceID, VMSize, GPUStack,
// MaxGPUs (maxCount × GPUs per node), IdleCostPerHour (0 at minCount 0),
// MaxCostPerHour (maxCount × the catalogue price, spot-discounted) and
// SpotDiscount. Prices are indicative (PriceDate), for sizing, not billing.
package gpupool
