package preflight

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aksml/aksml/components/cluster"
	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/stacks"
)

// Pool is one node pool of the stack as quota and SKU checks see it.
type Pool struct {
	// Name is the pool name: system, cpu or the GPU pool's name.
	Name string
	// Key is the pool's config key, e.g. aksml:gpuPools[1].
	Key string
	// VMSize is the Azure VM size.
	VMSize string
	// Zones are the availability zones; none means regional.
	Zones []string
	// Spot is true for spot pools (counted against the low-priority quota).
	Spot bool
	// Min and Max are the node counts at the pool's minimum and maximum
	// (count, twice, on a pool with a fixed count).
	Min, Max int
	// GPU is the pool's catalogue entry; nil on the system and CPU pools
	// and on sizes the catalogue does not know.
	GPU *gpupool.SKU
	// MinPerHour and MaxPerHour are the indicative USD cost per hour at Min
	// and Max at catalogue prices (gpupool.Spec.IdleCostPerHour and
	// MaxCostPerHour: gpupool.PriceDate, spot at gpupool.SpotDiscount);
	// meaningful only when GPU is set.
	MinPerHour, MaxPerHour float64
}

// Name is a globally unique Azure name the stack creates.
type Name struct {
	// Kind is "storage account", "container registry" or "Grafana".
	Kind string
	// Name is the resource name.
	Name string
	// Key is the config key that sets it.
	Key string
}

// Feature is a subscription feature (Microsoft.Features) a config needs.
type Feature struct {
	// Namespace and Name identify the feature, e.g. Microsoft.ContainerService
	// and ManagedGPUExperiencePreview.
	Namespace, Name string
	// Why names the config that needs it.
	Why string
}

// Provider is a resource provider namespace the stack creates resources in.
type Provider struct {
	// Namespace is e.g. Microsoft.ContainerService.
	Namespace string
	// Why names what needs it.
	Why string
}

// Workspace is a brought monitoring workspace whose region matters.
type Workspace struct {
	// Kind is "Log Analytics workspace" or "Azure Monitor workspace".
	Kind string
	// ID is the ARM resource ID from config.
	ID string
	// Key is the config key.
	Key string
	// Regions are the regions the workspace may be in.
	Regions []string
	// APIVersion is the version the generic resource read uses.
	APIVersion string
	// Fix says what to change when the region does not fit.
	Fix string
}

// Plan is what a stack asks of the subscription, derived from its parsed
// config (stacks.Parse) the way the program reads it.
type Plan struct {
	// Stack is the stack name.
	Stack string
	// Region is the cluster's location.
	Region string
	// ResourceGroup is the cluster's resource group, where aksml creates the
	// cluster, storage accounts and registry.
	ResourceGroup string
	// ExistingCluster is true when the stack creates no Azure resource
	// (aksml:existingCluster): nothing to check.
	ExistingCluster bool
	// Pools are the system pool, the CPU pool (unless disabled) and the GPU
	// pools.
	Pools []Pool
	// KubernetesVersion is the pinned version, "" for the AKS default.
	KubernetesVersion string
	// Names are the globally unique names the stack creates.
	Names []Name
	// Features are the subscription features the config needs.
	Features []Feature
	// Providers are the resource providers the stack creates resources in.
	Providers []Provider
	// Workspaces are the brought workspaces whose region matters.
	Workspaces []Workspace
	// EntraRBAC is true when the cluster authorizes Kubernetes requests
	// with Azure RBAC and has no local accounts (aksml:cluster.entraID):
	// the deployer reaches the Kubernetes API only with an Azure RBAC
	// data action or as a member of an admin group.
	EntraRBAC bool
	// AdminGroups are aksml:cluster.entraID.adminGroupObjectIDs.
	AdminGroups []string
	// Defender is aksml:cluster.defender.enabled: the stack promises
	// Defender for Containers, whose plan is set on the subscription.
	Defender bool
}

// Feature names, cited where they are required.
const (
	// FeatureNamespace is the namespace of the AKS features aksml needs.
	FeatureNamespace = "Microsoft.ContainerService"
	// InfiniBandFeature lets the nodes of an RDMA pool land on one
	// InfiniBand network: `az feature register --namespace
	// Microsoft.ContainerService --name AKSInfinibandSupport`
	// ("RDMA over InfiniBand on AKS", prerequisites,
	// https://github.com/Azure/aks-rdma-infiniband and
	// https://azure.github.io/aks-rdma-infiniband/getting-started/prerequisites).
	InfiniBandFeature = "AKSInfinibandSupport"
)

// managedGPUFeatureName is the feature part of gpupool.ManagedGPUFeature.
func managedGPUFeatureName() string {
	_, name, _ := strings.Cut(gpupool.ManagedGPUFeature, "/")
	return name
}

// PlanOf derives what the stack asks of Azure from its parsed config.
func PlanOf(c *stacks.Config) Plan {
	p := Plan{Stack: c.Stack}
	if c.Cluster == nil {
		p.ExistingCluster = true
		return p
	}
	cl := c.Cluster
	p.Region = cl.Location
	p.ResourceGroup = cl.ResourceGroup.Name
	p.KubernetesVersion = cl.KubernetesVersion
	sp := cl.SystemPool
	p.Pools = append(p.Pools, Pool{Name: cluster.SystemPoolName, Key: "aksml:cluster.systemPool", VMSize: sp.VMSize, Zones: sp.Zones, Min: sp.Min(), Max: sp.MaxCount})
	if cp := cl.CPUPool; !cp.Disabled {
		p.Pools = append(p.Pools, Pool{Name: cluster.CPUPoolName, Key: "aksml:cluster.cpuPool", VMSize: cp.VMSize, Zones: cp.Zones, Min: cp.Min(), Max: cp.MaxCount})
	}
	var managed, rdma []string
	// The node-count bounds are the resolved pools' (count on a Managed
	// pool, minCount..maxCount otherwise); their problems are Validate's.
	pools, _ := gpupool.Resolve(c.GPUPools, field.NewPath(stacks.Namespace+":gpuPools"))
	for i, g := range pools {
		pool := Pool{Name: g.Name, Key: gpuKey(i), VMSize: g.VMSize, Zones: g.Zones, Spot: g.IsSpot(), Min: g.MinNodes, Max: g.MaxNodes}
		if sku, ok := g.SKU(); ok {
			pool.GPU = &sku
			pool.MinPerHour, pool.MaxPerHour = g.IdleCostPerHour(), g.MaxCostPerHour()
			if sku.RDMACapable {
				rdma = append(rdma, g.Name)
			}
		}
		if g.IsManaged() {
			managed = append(managed, g.Name)
		}
		p.Pools = append(p.Pools, pool)
	}
	if len(managed) > 0 {
		p.Features = append(p.Features, Feature{Namespace: FeatureNamespace, Name: managedGPUFeatureName(),
			Why: "gpuStack Managed on pool(s) " + strings.Join(managed, ", ")})
	}
	if len(rdma) > 0 {
		p.Features = append(p.Features, Feature{Namespace: FeatureNamespace, Name: InfiniBandFeature,
			Why: "InfiniBand (RDMA) size on pool(s) " + strings.Join(rdma, ", ")})
	}
	if e := cl.EntraID; e != nil {
		p.AdminGroups = e.AdminGroupObjectIDs
		p.EntraRBAC = e.DisableLocalAccounts == nil || *e.DisableLocalAccounts
	}
	p.Defender = cl.Defender.Enabled
	p.Names = names(c)
	p.Providers = providers(c)
	p.Workspaces = workspaces(c)
	return p
}

func gpuKey(i int) string { return fmt.Sprintf("aksml:gpuPools[%d]", i) }

// names lists the globally unique names the stack creates (brought
// resources are not created, so their names are not checked).
func names(c *stacks.Config) []Name {
	var out []Name
	if a := c.Storage.Accounts; a != nil {
		if n := a.FilesName(); n != "" {
			out = append(out, Name{Kind: KindStorage, Name: n, Key: "aksml:storage.accounts"})
		}
		if n := a.BlobName(); n != "" {
			out = append(out, Name{Kind: KindStorage, Name: n, Key: "aksml:storage.accounts"})
		}
	}
	if r := c.Cluster.Registry; r != nil && r.Name != "" {
		out = append(out, Name{Kind: KindRegistry, Name: r.Name, Key: "aksml:cluster.registry.name"})
	}
	if o := c.Observability; o.IsEnabled() && o.Grafana != nil && o.Grafana.Enabled {
		out = append(out, Name{Kind: KindGrafana, Name: o.Grafana.Name, Key: "aksml:observability.grafana.name"})
	}
	return out
}

// Kinds of globally unique names.
const (
	KindStorage  = "storage account"
	KindRegistry = "container registry"
	KindGrafana  = "Grafana"
)

// providers lists the resource provider namespaces the stack creates
// resources in, from the resource types its components register
// (tests/golden/<stack>.yaml shows them).
func providers(c *stacks.Config) []Provider {
	out := []Provider{
		{"Microsoft.ContainerService", "the AKS cluster and its pools"},
		{"Microsoft.Compute", "the pools' scale sets"},
		{"Microsoft.Network", "the cluster's network and load balancer"},
	}
	cl := c.Cluster
	if c.Storage.Accounts != nil {
		out = append(out, Provider{"Microsoft.Storage", "aksml:storage.accounts"})
	}
	if r := cl.Registry; r != nil && r.Name != "" {
		out = append(out, Provider{"Microsoft.ContainerRegistry", "aksml:cluster.registry"})
	}
	if cl.Logs.CreatesWorkspace() {
		out = append(out, Provider{"Microsoft.OperationalInsights", "aksml:cluster.logs (a created workspace)"})
	}
	o := c.Observability
	if cl.Logs.Wanted() || o.IsEnabled() {
		out = append(out, Provider{"Microsoft.Insights", "data collection rules and diagnostic settings"})
	}
	if o.IsEnabled() {
		out = append(out, Provider{"Microsoft.Monitor", "aksml:observability (Azure Monitor workspace)"})
		if o.PrometheusRuleGroups {
			out = append(out, Provider{"Microsoft.AlertsManagement", "aksml:observability.prometheusRuleGroups"})
		}
		if o.Grafana != nil && o.Grafana.Enabled {
			out = append(out, Provider{"Microsoft.Dashboard", "aksml:observability.grafana"})
		}
	}
	if len(c.Teams) > 0 {
		out = append(out, Provider{"Microsoft.ManagedIdentity", "aksml:teams (workload identities)"})
	}
	return out
}

// containerInsightsRegions maps a cluster region to the Log Analytics region
// Container insights also accepts ("Container insights region mappings",
// https://learn.microsoft.com/azure/azure-monitor/containers/container-insights-region-mapping:
// "The Log Analytics workspace supporting Container insights must be in the
// same region except for the regions listed").
var containerInsightsRegions = map[string]string{
	"southafricanorth":  "westeurope",
	"southafricawest":   "westeurope",
	"australiacentral2": "australiacentral",
	"brazilsouth":       "southcentralus",
	"canadaeast":        "canadacentral",
	"francesouth":       "francecentral",
	"ukwest":            "uksouth",
	"southindia":        "centralindia",
	"westindia":         "centralindia",
	"japanwest":         "japaneast",
	"koreasouth":        "koreacentral",
	"westcentralus":     "eastus",
}

// Generic-read API versions of brought workspaces.
const (
	// logAnalyticsAPIVersion is Workspaces_Get, Microsoft.OperationalInsights
	// 2023-09-01 (azure-rest-api-specs operationalinsights stable/2023-09-01).
	logAnalyticsAPIVersion = "2023-09-01"
	// monitorAPIVersion is AzureMonitorWorkspaces_Get, Microsoft.Monitor
	// 2023-04-03 (../shared/azure-specs monitoringAccounts_API.json).
	monitorAPIVersion = "2023-04-03"
)

// workspaces lists the brought workspaces whose region matters.
func workspaces(c *stacks.Config) []Workspace {
	cl := c.Cluster
	var out []Workspace
	if id := cl.Logs.LogAnalyticsWorkspaceID; id != "" && cl.Logs.Wanted() {
		regions := []string{strings.ToLower(cl.Location)}
		if m, ok := containerInsightsRegions[regions[0]]; ok {
			regions = append(regions, m)
		}
		out = append(out, Workspace{Kind: "Log Analytics workspace", ID: id, Key: "aksml:cluster.logs.logAnalyticsWorkspaceId", Regions: regions, APIVersion: logAnalyticsAPIVersion,
			Fix: "use a workspace in " + strings.Join(regions, " or ") + " (Container insights region mappings)"})
	}
	if o := c.Observability; o.IsEnabled() && o.AzureMonitorWorkspaceID != "" {
		want := o.AzureMonitorWorkspaceLocation
		if want == "" {
			want = cl.Location
		}
		out = append(out, Workspace{Kind: "Azure Monitor workspace", ID: o.AzureMonitorWorkspaceID, Key: "aksml:observability.azureMonitorWorkspaceId", Regions: []string{strings.ToLower(want)}, APIVersion: monitorAPIVersion,
			Fix: "set aksml:observability.azureMonitorWorkspaceLocation to the workspace's region (the data collection endpoint and rule are created there)"})
	}
	return out
}

// zonesOf returns the pool's zones sorted, for stable output.
func zonesOf(p Pool) []string {
	z := slices.Clone(p.Zones)
	slices.Sort(z)
	return z
}
