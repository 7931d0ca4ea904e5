// Package cluster builds the Azure layer of aksml: the resource group, the
// AKS managed cluster and a Kubernetes provider for it (SPEC C1; AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops)
// "Create a GPU node pool in AKS", "Configure cluster autoscaling" and "Access large datasets with the Azure Blob CSI driver").
//
// Spec is the config-facing description (stack config `aksml:cluster`);
// Default fills it and Validate returns every problem with its config path.
// Besides shapes and ranges, Validate checks what AKS would otherwise refuse
// during `pulumi up`: upgradeChannel node-image with a node OS channel other
// than NodeImage ("Auto-upgrade node OS images", node channel known
// limitations, https://learn.microsoft.com/azure/aks/auto-upgrade-node-os-image);
// autoscaler profile values against the property descriptions of the
// published 2024-10-01 spec (expander enum, minutes-only delays, whole
// seconds, ratios, counts); systemPool.minCount 0 (a system pool needs a
// node; the value is rejected, never replaced by the default); and a
// Defender workspace ID whose subscription is not a GUID.
// NewCluster registers, as children of one aksml:cluster:Cluster:
//
//   - the resource group (`<name>-rg`), unless resourceGroup.existing is
//     true, in which case the group is used by name and nothing is created;
//   - the managed cluster (`<name>-aks`) at containerservice API 2024-10-01,
//     the newest GA API of azure-native SDK v2.88.0 (the SDK's default,
//     2023-04-01, has no nodeOSUpgradeChannel or maintenanceWindow), with
//     the AKS KEDA add-on on (workloadAutoScalerProfile.keda.enabled,
//     ManagedClusterWorkloadAutoScalerProfileKeda in
//     aks/stable/2024-10-01/managedClusters.json; the InferenceServers' scaler):
//     SKU Base with tier Standard by default, system-assigned identity,
//     a System pool `system` tainted CriticalAddonsOnly=true:NoSchedule and
//     a CPU user pool `cpu` (label workload=cpu) for controllers and CPU
//     jobs, both with the cluster autoscaler on and their `count` left to it
//     after creation; Azure CNI overlay with the Cilium dataplane and network
//     policy; OIDC issuer and workload identity; Blob (AKS MLOps best practices
//     `--enable-blob-driver`), File and Disk CSI drivers and the snapshot
//     controller; managed Prometheus metrics (azureMonitorProfile); the
//     Azure Policy add-on; upgrade channels stable / NodeImage; the AKS MLOps
//     best practices autoscaler profile (scan-interval 20s, scale-down-unneeded-time
//     10m, scale-down-delay-after-add 15m, max-graceful-termination-sec
//     120), overridable per key; and, when set, Entra ID with Azure RBAC
//     and local accounts off, authorised IP ranges or a private API server
//     (with apiServerAccessProfile.enablePrivateClusterPublicFQDN true, the
//     AKS default, written out, and the kubeconfig read with
//     listClusterUserCredential's server-fqdn=public, both in the 2024-10-01
//     spec; the public FQDN's A record points at the private endpoint,
//     "Create a private Azure Kubernetes Service (AKS) cluster",
//     https://learn.microsoft.com/azure/aks/private-clusters), and Defender
//     for Containers;
//   - when maintenanceWindow is set, the maintenance configurations
//     aksManagedAutoUpgradeSchedule and aksManagedNodeOSUpgradeSchedule with
//     the same weekly window, so neither channel upgrades outside it;
//   - on an Entra ID cluster with entraID.deployer.access RoleAssignment
//     (the default), the role assignment `<name>-deployer-admin`: "Azure
//     Kubernetes Service RBAC Cluster Admin" on the cluster for the object
//     ID of the azure-native client config (authorization.GetClientConfig),
//     with the configured principal type (deployer.go cites the sources);
//   - a Kubernetes provider (`<name>-k8s`) with server-side apply, whose
//     cluster identifier is the cluster's resource ID (a new kubeconfig does
//     not replace it or the objects it manages). It depends on the
//     deployer's role assignment, and on the update that creates the
//     assignment its kubeconfig resolves only once the assignment is
//     RolePropagationWait (five minutes, the AKS documentation's
//     propagation time) old. Its client-side rate limit is Spec.KubeClient
//     (kubeclient.go: the provider's kubeClientSettings, whose own default
//     of 50 requests a second is in pulumi-kubernetes
//     provider/pkg/provider/provider.go; the bench figures in the README).
//
// Kubeconfig comes from listClusterUserCredential, is base64-decoded and is
// a secret. On Entra ID clusters (entraID set) it is requested in the exec
// format, which runs kubelogin: kubelogin must be on PATH wherever Pulumi
// runs, and CI selects a login that lasts the run with AAD_LOGIN_METHOD
// (workloadidentity in GitHub Actions; README "Login that lasts"). Admin credentials are never used: they do not
// exist once local accounts are disabled.
//
// azureMonitorProfile.metrics only deploys the metrics agents; the data
// collection rule that sends them to an Azure Monitor workspace belongs to
// the observability layer.
//
// # Logs and audit (Spec.Logs)
//
// Container Insights and the control plane's audit logs go to one Log
// Analytics workspace, created or brought:
//
//   - Workspace (created): Microsoft.OperationalInsights/workspaces API
//     2022-10-01 (azure-rest-api-specs specification/operationalinsights/
//     resource-manager/Microsoft.OperationalInsights/stable/2022-10-01/Workspaces.json:
//     sku.name PerGB2018, retentionInDays), in the deployment stack
//     `<name>-logs` before the cluster (the operationalinsights SDK module
//     is not served at v2.88.0). Its ID is read back from the template
//     output; a configured ID is validated at preview.
//   - Container Insights: addonProfiles.omsagent (ManagedClusterAddonProfile,
//     2024-10-01 managedClusters.json: enabled, config string map; this
//     API version's azureMonitorProfile has only `metrics`) with config
//     logAnalyticsWorkspaceResourceID and useAADAuth "true", the keys
//     Microsoft's managed-identity onboarding template sets
//     (microsoft/Docker-Provider scripts/onboarding/aks/onboarding-using-msi-auth/existingClusterOnboarding.json,
//     linked from "Enable monitoring for Kubernetes clusters using ARM",
//     https://learn.microsoft.com/azure/azure-monitor/containers/kubernetes-monitoring-enable-arm).
//     Managed-identity mode needs the data collection rule
//     MSCI-<region>-<cluster> (cut to 64) and its association
//     ContainerInsightsExtension on the cluster, as that template
//     creates; legacy (key) authentication is retired ("Legacy
//     authentication for Container Insights",
//     https://learn.microsoft.com/azure/azure-monitor/containers/container-insights-authentication).
//     The rule (Microsoft.Insights 2024-03-11 dataCollection.json:
//     dataSources.extensions with extensionName ContainerInsights, stream
//     Microsoft-ContainerInsights-Group-Default, destinations.logAnalytics)
//     and the association are in the stack `<name>-insights`; the rule's
//     location is the Log Analytics workspace's region
//     (logs.logAnalyticsWorkspaceLocation, default the cluster's), as that
//     template places it; the stack is registered
//     after the cluster, as `az aks create --enable-addons monitoring`
//     creates them after the cluster.
//   - Audit: a diagnostic setting `aksml-audit` on the cluster
//     (Microsoft.Insights/diagnosticSettings 2021-05-01-preview,
//     specification/monitor/resource-manager/Microsoft.Insights/preview/2021-05-01-preview/diagnosticsSettings_API.json:
//     workspaceId, logs[].category/enabled, logAnalyticsDestinationType
//     Dedicated) in the same stack, with kube-audit-admin and guard by
//     default ("Monitor Azure Kubernetes Service (AKS)",
//     https://learn.microsoft.com/azure/aks/monitor-aks: resource log
//     categories; kube-audit-admin leaves out get and list and costs less
//     than kube-audit).
//
// Both stacks are registered for as long as the cluster lives, with empty
// templates when logs are off, so turning logs off deletes what they
// created (components/armdeploy).
//
// # Container registry (Spec.Registry)
//
// With registry.name aksml creates an Azure Container Registry
// (Microsoft.ContainerRegistry/registries API 2023-07-01, azure-rest-api-specs
// specification/containerregistry/resource-manager/Microsoft.ContainerRegistry/stable/2023-07-01/containerregistry.json:
// sku.name, properties.adminUserEnabled false) in the stack
// `<name>-registry` (the containerregistry SDK module is not served at
// v2.88.0); registry names are 5-50 alphanumerics and unique across Azure
// (<name>.azurecr.io), so there is no default. With registry.id an existing
// registry is used. Either way the kubelet identity
// (identityProfile.kubeletidentity.objectId) gets AcrPull
// (7f951dda-4ed3-4680-a7ca-43fe172d538d, "Azure built-in roles",
// https://learn.microsoft.com/azure/role-based-access-control/built-in-roles/containers#acrpull)
// on the registry through a typed authorization role assignment, as
// "Authenticate with ACR from AKS"
// (https://learn.microsoft.com/azure/aks/cluster-container-registry-integration)
// describes for `az aks update --attach-acr`. Image scanning is not done
// here: it is Microsoft Defender for Containers' vulnerability assessment,
// a subscription plan outside the stack.
//
// Mode Automatic (AKS Automatic) is a validation error: it needs the
// managed cluster sku name Automatic, which only the SDK's
// 2024-09-02-preview API has, and aksml keeps the cluster on a GA API.
//
// ExistingProvider builds the Kubernetes provider for a cluster aksml does
// not create (a kubeconfig path and context, or the outputs of an aksml
// Azure-layer stack read through a StackReference, ExistingStack); no Azure
// resource is registered, and every Kubernetes-layer component works
// against it. Its client-side rate limit is ExistingClusterSpec.KubeClient,
// as for the AKS cluster's provider. The StackReference route is how a private API server is
// reached: the Kubernetes-layer stack runs from inside the VNet.
//
// NewCluster takes ClusterArgs.NodeSubnetID, the subnet the system and CPU
// pools join (vnetSubnetID; components/network). Validate also applies the
// overlay rules of components/network (ranges outside those AKS reserves,
// DNS IP not the first service address) and the 200-range limit of
// authorized IP ranges.
package cluster
