// Package preflight tells before `pulumi up` whether an Azure subscription
// can take a stack: it reads the stack's config the way the program does
// (stacks.ReadConfigFile, stacks.Parse), derives what the stack asks of
// Azure (PlanOf) and asks Azure, read-only, with the Azure SDK for Go (Run):
//
//   - quota: per VM family the on-demand vCPUs, the Total Regional vCPUs and
//     the regional low-priority vCPUs spot pools count against, used and
//     limit (Usage_List) against the pools' vCPUs at every pool's minimum
//     and maximum, system and CPU pools included; vCPUs and families come
//     from ResourceSkus_List;
//   - every pool's size in the region and its zones, restrictions for this
//     subscription, spot capability (ResourceSkus_List);
//   - the resource providers the stack creates resources in (Providers_Get)
//     and the subscription features its config needs (Features_Get):
//     Microsoft.ContainerService/ManagedGPUExperiencePreview for
//     gpuStack Managed pools, Microsoft.ContainerService/AKSInfinibandSupport
//     for pools on InfiniBand sizes;
//   - the global names it creates: storage accounts and the registry
//     (CheckNameAvailability; a taken name that exists in the stack's
//     resource group is the stack's own); Grafana cannot be told;
//   - a pinned Kubernetes version is offered in the region
//     (ManagedClusters_ListKubernetesVersions);
//   - brought Log Analytics and Azure Monitor workspaces are in a region
//     the stack can use;
//   - the deployer's rights on the stack's resource group
//     (Permissions_ListForResourceGroup): create role assignments, read
//     the kubeconfig, and, on Entra ID clusters with Azure RBAC, write to the
//     Kubernetes API;
//   - when the stack turns on the cluster's Defender profile, the
//     subscription's Defender for Containers plan is Standard (the generic
//     read of Microsoft.Security/pricings/Containers, Pricings 2024-01-01),
//     with the vCores it bills.
//
// Each check answers ok, will fail (with the fix: the quota request, the
// `az feature register` line, other zones) or cannot tell (403, throttling,
// a provider not registered, or a question Azure's served APIs cannot
// answer). Report.ExitCode maps the worst answer to the command's exit
// status. The report ends with the stack's monthly cost at every pool's
// minimum and maximum from the GPU catalogue (components/gpupool).
//
// What preflight cannot know: whether Azure has capacity for the sizes at
// the moment of `up` (quota is a right to ask, not a reservation;
// allocation can still fail with ZonalAllocationFailed or
// SkuNotAvailable), spot evictions and spot capacity, and usage other
// deployments add between preflight and `up`. Quota usage counts every VM
// in the region, the stack's own nodes too when it already runs.
//
// What it needs: Reader on the subscription (every call is a read; the
// name checks are POSTs Reader may call).
package preflight
