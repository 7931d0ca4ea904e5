package cluster

import (
	"maps"
	"strings"
)

// Mode is the AKS cluster mode (SPEC C1.2; AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) compares both).
type Mode string

// Valid modes.
const (
	// ModeStandard is AKS Standard: aksml configures pools, networking and
	// the autoscaler explicitly.
	ModeStandard Mode = "Standard"
	// ModeAutomatic is AKS Automatic (managed sku name Automatic). It is
	// rejected by Validate: the SDK's GA containerservice API (2024-10-01)
	// has no sku name Automatic; only its 2024-09-02-preview API does, and
	// aksml does not build clusters on a preview API.
	ModeAutomatic Mode = "Automatic"
)

// Tier is the AKS control-plane pricing tier.
type Tier string

// Valid tiers.
const (
	TierFree     Tier = "Free"
	TierStandard Tier = "Standard"
	TierPremium  Tier = "Premium"
)

// Tiers lists the valid tiers.
var Tiers = []Tier{TierFree, TierStandard, TierPremium}

// UpgradeChannelNodeImage is the cluster upgrade channel that upgrades only
// node images; with it AKS forces the node OS channel to
// NodeOSChannelNodeImage.
const (
	UpgradeChannelNodeImage = "node-image"
	NodeOSChannelNodeImage  = "NodeImage"
)

// UpgradeChannels lists the valid autoUpgradeProfile.upgradeChannel values.
var UpgradeChannels = []string{"none", "patch", "stable", "rapid", "node-image"}

// NodeOSUpgradeChannels lists the valid nodeOSUpgradeChannel values.
var NodeOSUpgradeChannels = []string{"None", "Unmanaged", "NodeImage", "SecurityPatch"}

// Weekdays lists the valid maintenance days.
var Weekdays = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}

// ResourceGroup is the cluster's resource group: created by aksml, or an
// existing one used by name (create-or-bring).
type ResourceGroup struct {
	// Name is the resource group name: 1-90 letters, digits, '-', '_',
	// '.', '(' or ')', not ending in '.'. Required.
	Name string `json:"name" pulumi:"name"`
	// Existing uses the group as it is instead of creating it. Default
	// false (aksml creates the group and deletes it on destroy).
	Existing bool `json:"existing,omitempty" pulumi:"existing,optional"`
}

// SystemPool is the System-mode node pool (SPEC C1.3). It carries the taint
// CriticalAddonsOnly=true:NoSchedule, so only system pods run on it.
type SystemPool struct {
	// VMSize is the VM size. Default Standard_D4ds_v5.
	VMSize string `json:"vmSize,omitempty" pulumi:"vmSize,optional"`
	// MinCount is the autoscaler minimum, 1..1000 (a system pool always
	// runs at least one node; 0 is rejected, never replaced). Default 2.
	MinCount *int `json:"minCount,omitempty" pulumi:"minCount,optional"`
	// MaxCount is the autoscaler maximum, ≥ MinCount. Default 3.
	MaxCount int `json:"maxCount,omitempty" pulumi:"maxCount,optional"`
	// Zones are availability zones ("1", "2", "3"). Default none.
	Zones []string `json:"zones,omitempty" pulumi:"zones,optional"`
	// OSDiskSizeGB is the OS disk size, 30..2048. Default 128.
	OSDiskSizeGB int `json:"osDiskSizeGB,omitempty" pulumi:"osDiskSizeGB,optional"`
}

// Min returns MinCount, or the default when unset.
func (p SystemPool) Min() int { return systemSizing.min(p.MinCount) }

// poolSizing are the defaults of the sizing fields the system and CPU
// pools share (VMSize, MinCount, MaxCount, OSDiskSizeGB): both pools are
// defaulted by fill, with their own values.
type poolSizing struct {
	vmSize                   string
	minCount, maxCount, disk int
}

var (
	systemSizing = poolSizing{DefaultSystemVMSize, DefaultSystemMinCount, DefaultSystemMaxCount, DefaultSystemOSDiskSizeGB}
	cpuSizing    = poolSizing{DefaultCPUVMSize, DefaultCPUMinCount, DefaultCPUMaxCount, DefaultCPUOSDiskSizeGB}
)

// min returns *minCount, or the default when unset.
func (d poolSizing) min(minCount *int) int {
	if minCount == nil {
		return d.minCount
	}
	return *minCount
}

// fill sets the unset sizing fields of a pool to d: maxCount is at least
// the pool's minCount, so a minCount above the default ceiling raises it.
func (d poolSizing) fill(vmSize *string, minCount **int, maxCount, osDisk *int) {
	if *vmSize == "" {
		*vmSize = d.vmSize
	}
	if *minCount == nil {
		v := d.minCount
		*minCount = &v
	}
	if *maxCount == 0 {
		*maxCount = max(d.maxCount, **minCount)
	}
	if *osDisk == 0 {
		*osDisk = d.disk
	}
}

// CPUPool is a User-mode pool of CPU VMs for everything that is neither a
// system pod nor a GPU workload: controllers (Kueue, operators) and CPU
// batch jobs. Its nodes are labelled workload=cpu and not tainted.
type CPUPool struct {
	// Disabled leaves the pool out. Default false: a cluster whose only
	// untainted capacity is missing cannot run controllers.
	Disabled bool `json:"disabled,omitempty" pulumi:"disabled,optional"`
	// VMSize is the VM size. Default Standard_D8ds_v5.
	VMSize string `json:"vmSize,omitempty" pulumi:"vmSize,optional"`
	// MinCount is the autoscaler minimum, 0..1000. Default 1.
	MinCount *int `json:"minCount,omitempty" pulumi:"minCount,optional"`
	// MaxCount is the autoscaler maximum, ≥ MinCount. Default 5.
	MaxCount int `json:"maxCount,omitempty" pulumi:"maxCount,optional"`
	// Zones are availability zones ("1", "2", "3"). Default none.
	Zones []string `json:"zones,omitempty" pulumi:"zones,optional"`
	// OSDiskSizeGB is the OS disk size, 30..2048. Default 128.
	OSDiskSizeGB int `json:"osDiskSizeGB,omitempty" pulumi:"osDiskSizeGB,optional"`
}

// Network is the cluster network: Azure CNI overlay with the Cilium
// dataplane and network policy (fixed), with these address ranges.
type Network struct {
	// PodCIDR is the overlay pod range. Default 10.244.0.0/16.
	PodCIDR string `json:"podCidr,omitempty" pulumi:"podCidr,optional"`
	// ServiceCIDR is the service range; it must not overlap PodCIDR.
	// Default 10.0.0.0/16.
	ServiceCIDR string `json:"serviceCidr,omitempty" pulumi:"serviceCidr,optional"`
	// DNSServiceIP is the cluster DNS address, inside ServiceCIDR. Default
	// 10.0.0.10.
	DNSServiceIP string `json:"dnsServiceIP,omitempty" pulumi:"dnsServiceIP,optional"`
}

// EntraID turns on Microsoft Entra ID authentication with Azure RBAC for
// Kubernetes authorization (SPEC C1.5, prod).
type EntraID struct {
	// AdminGroupObjectIDs are the object IDs (GUIDs) of the Entra groups
	// that get cluster-admin. Required when local accounts are disabled.
	AdminGroupObjectIDs []string `json:"adminGroupObjectIDs,omitempty" pulumi:"adminGroupObjectIDs,optional"`
	// DisableLocalAccounts turns off the static admin credentials, so
	// every access goes through Entra ID. Default true.
	DisableLocalAccounts *bool `json:"disableLocalAccounts,omitempty" pulumi:"disableLocalAccounts,optional"`
	// Deployer says how the principal that runs `pulumi up` gets access to
	// the Kubernetes API. Default: RoleAssignment by a ServicePrincipal
	// (aksml assigns it "Azure Kubernetes Service RBAC Cluster Admin" on
	// the cluster).
	Deployer *Deployer `json:"deployer,omitempty" pulumi:"deployer,optional"`
}

// APIServer restricts access to the Kubernetes API server. Set at most one
// of AuthorizedIPRanges and Private; which one a stack needs is the stack's
// policy (prod: one of them).
type APIServer struct {
	// AuthorizedIPRanges are the CIDRs allowed to reach the public API
	// server. Default none (open).
	AuthorizedIPRanges []string `json:"authorizedIPRanges,omitempty" pulumi:"authorizedIPRanges,optional"`
	// Private makes the API server reachable only from the cluster's
	// virtual network (private cluster). Default false.
	Private bool `json:"private,omitempty" pulumi:"private,optional"`
}

// Defender configures Microsoft Defender for Containers (SPEC C1.6, prod).
type Defender struct {
	// Enabled turns Defender on. Default false; the prod stack sets it.
	Enabled bool `json:"enabled,omitempty" pulumi:"enabled,optional"`
	// LogAnalyticsWorkspaceID is the resource ID of the Log Analytics
	// workspace Defender reports to. Required when Enabled.
	LogAnalyticsWorkspaceID string `json:"logAnalyticsWorkspaceId,omitempty" pulumi:"logAnalyticsWorkspaceId,optional"`
}

// MaintenanceWindow is the weekly planned maintenance window for cluster
// and node OS upgrades (SPEC C1.6).
type MaintenanceWindow struct {
	// DayOfWeek is Monday..Sunday. Required.
	DayOfWeek string `json:"dayOfWeek" pulumi:"dayOfWeek"`
	// StartTime is the local start time "HH:MM" (24h). Required.
	StartTime string `json:"startTime" pulumi:"startTime"`
	// DurationHours is the window length, 4..24. Default 4.
	DurationHours int `json:"durationHours,omitempty" pulumi:"durationHours,optional"`
	// UTCOffset is the offset StartTime is in, "+HH:MM" or "-HH:MM".
	// Default "+00:00".
	UTCOffset string `json:"utcOffset,omitempty" pulumi:"utcOffset,optional"`
	// IntervalWeeks repeats the window every N weeks, 1..4. Default 1.
	IntervalWeeks int `json:"intervalWeeks,omitempty" pulumi:"intervalWeeks,optional"`
}

// Spec is the config-facing description of the AKS cluster (stack config
// `aksml:cluster`). Call Default, then Validate.
type Spec struct {
	// Name is the AKS cluster name: 1-63 letters, digits, '-' or '_',
	// starting and ending with a letter or digit. Required.
	Name string `json:"name"`
	// Location is the Azure region, e.g. eastus. Required.
	Location string `json:"location"`
	// ResourceGroup is created, or used when Existing. Required.
	ResourceGroup ResourceGroup `json:"resourceGroup"`
	// Mode is Standard (default) or Automatic (rejected; see ModeAutomatic).
	Mode Mode `json:"mode,omitempty"`
	// Tier is Free, Standard (default) or Premium.
	Tier Tier `json:"tier,omitempty"`
	// DNSPrefix is the API server DNS prefix: 1-54 letters, digits or '-',
	// starting and ending with a letter or digit. Default: Name with '_'
	// replaced by '-'.
	DNSPrefix string `json:"dnsPrefix,omitempty"`
	// KubernetesVersion pins the version ("1.33" or "1.33.2"). Default
	// none: AKS picks the default and the upgrade channel moves it. Not
	// allowed with upgrade channel stable or rapid (they change the minor
	// version); only MAJOR.MINOR with channel patch.
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	// UpgradeChannel is none, patch, stable (default), rapid or node-image.
	UpgradeChannel string `json:"upgradeChannel,omitempty"`
	// NodeOSUpgradeChannel is None, Unmanaged, NodeImage (default) or
	// SecurityPatch.
	NodeOSUpgradeChannel string `json:"nodeOSUpgradeChannel,omitempty"`
	// SystemPool is the system node pool.
	SystemPool SystemPool `json:"systemPool,omitempty"`
	// CPUPool is the CPU user pool.
	CPUPool CPUPool `json:"cpuPool,omitempty"`
	// Network holds the address ranges.
	Network Network `json:"network,omitempty"`
	// EntraID enables Entra ID + Azure RBAC; nil keeps Kubernetes RBAC
	// with local accounts (dev).
	EntraID *EntraID `json:"entraID,omitempty"`
	// APIServer restricts API server access. Default open.
	APIServer APIServer `json:"apiServer,omitempty"`
	// Defender configures Defender for Containers. Default off.
	Defender Defender `json:"defender,omitempty"`
	// AzurePolicy enables the Azure Policy add-on. Default true.
	AzurePolicy *bool `json:"azurePolicy,omitempty"`
	// AutoscalerProfile overrides or adds cluster autoscaler settings by
	// their AKS name (e.g. "scan-interval": "30s"); AutoscalerKeys lists them.
	// The AKS MLOps best practices values are the defaults.
	AutoscalerProfile map[string]string `json:"autoscalerProfile,omitempty"`
	// MaintenanceWindow is the planned maintenance window; nil means AKS
	// may upgrade at any time the channels allow.
	MaintenanceWindow *MaintenanceWindow `json:"maintenanceWindow,omitempty"`
	// Logs configures Container Insights and the control-plane audit logs
	// to a Log Analytics workspace (created or brought). Default both on,
	// to a created law-<cluster>.
	Logs LogsSpec `json:"logs,omitempty"`
	// Registry is the container registry for model and training images,
	// created or brought, with AcrPull for the kubelet identity. Default
	// none.
	Registry *RegistrySpec `json:"registry,omitempty"`
	// KubeClient is the Kubernetes provider's client-side rate limit.
	// Default 200 requests a second, bursts of 400 (see KubeClient).
	KubeClient KubeClient `json:"kubeClient,omitempty"`
}

// Default fills unset fields with their documented defaults.
func (s *Spec) Default() {
	if s.Mode == "" {
		s.Mode = DefaultMode
	}
	if s.Tier == "" {
		s.Tier = DefaultTier
	}
	if s.DNSPrefix == "" {
		s.DNSPrefix = defaultDNSPrefix(s.Name)
	}
	s.Logs.Default(s.Name)
	if s.Registry != nil {
		s.Registry.Default()
	}
	if s.UpgradeChannel == "" {
		s.UpgradeChannel = DefaultUpgradeChannel
	}
	if s.NodeOSUpgradeChannel == "" {
		s.NodeOSUpgradeChannel = DefaultNodeOSUpgradeChannel
	}
	sp, cp := &s.SystemPool, &s.CPUPool
	systemSizing.fill(&sp.VMSize, &sp.MinCount, &sp.MaxCount, &sp.OSDiskSizeGB)
	cpuSizing.fill(&cp.VMSize, &cp.MinCount, &cp.MaxCount, &cp.OSDiskSizeGB)
	if s.Network.PodCIDR == "" {
		s.Network.PodCIDR = DefaultPodCIDR
	}
	if s.Network.ServiceCIDR == "" {
		s.Network.ServiceCIDR = DefaultServiceCIDR
	}
	if s.Network.DNSServiceIP == "" {
		s.Network.DNSServiceIP = DefaultDNSServiceIP
	}
	if s.EntraID != nil && s.EntraID.DisableLocalAccounts == nil {
		v := true
		s.EntraID.DisableLocalAccounts = &v
	}
	if s.EntraID != nil {
		d := s.EntraID.deployer()
		s.EntraID.Deployer = &d
	}
	if s.AzurePolicy == nil {
		v := true
		s.AzurePolicy = &v
	}
	s.KubeClient.Default()
	if w := s.MaintenanceWindow; w != nil {
		if w.DurationHours == 0 {
			w.DurationHours = DefaultMaintenanceDurationHours
		}
		if w.UTCOffset == "" {
			w.UTCOffset = DefaultMaintenanceUTCOffset
		}
		if w.IntervalWeeks == 0 {
			w.IntervalWeeks = DefaultMaintenanceIntervalWeeks
		}
	}
}

// Min returns MinCount, or the default when unset.
func (p CPUPool) Min() int { return cpuSizing.min(p.MinCount) }

// AzurePolicyEnabled reports whether the Azure Policy add-on is on
// (default true).
func (s Spec) AzurePolicyEnabled() bool { return s.AzurePolicy == nil || *s.AzurePolicy }

// LocalAccountsDisabled reports whether the cluster has Entra ID with local
// accounts off (kubeconfig then needs kubelogin).
func (s Spec) LocalAccountsDisabled() bool {
	return s.EntraID != nil && (s.EntraID.DisableLocalAccounts == nil || *s.EntraID.DisableLocalAccounts)
}

// Autoscaler returns the cluster autoscaler profile: the AKS MLOps best practices defaults
// with AutoscalerProfile applied over them.
func (s Spec) Autoscaler() map[string]string {
	p := map[string]string{
		KeyScanInterval:              AutoscalerScanInterval,
		KeyScaleDownUnneededTime:     AutoscalerScaleDownUnneededTime,
		KeyScaleDownDelayAfterAdd:    AutoscalerScaleDownDelayAfterAdd,
		KeyMaxGracefulTerminationSec: AutoscalerMaxGracefulTerminationSec,
	}
	maps.Copy(p, s.AutoscalerProfile)
	return p
}

// clone returns a deep copy of s, so that defaulting never changes the
// caller's value.
func (s Spec) clone() Spec {
	c := s
	c.SystemPool.Zones = append([]string(nil), s.SystemPool.Zones...)
	c.CPUPool.Zones = append([]string(nil), s.CPUPool.Zones...)
	if s.SystemPool.MinCount != nil {
		v := *s.SystemPool.MinCount
		c.SystemPool.MinCount = &v
	}
	if s.CPUPool.MinCount != nil {
		v := *s.CPUPool.MinCount
		c.CPUPool.MinCount = &v
	}
	if s.EntraID != nil {
		e := *s.EntraID
		e.AdminGroupObjectIDs = append([]string(nil), s.EntraID.AdminGroupObjectIDs...)
		if s.EntraID.DisableLocalAccounts != nil {
			v := *s.EntraID.DisableLocalAccounts
			e.DisableLocalAccounts = &v
		}
		if s.EntraID.Deployer != nil {
			d := *s.EntraID.Deployer
			e.Deployer = &d
		}
		c.EntraID = &e
	}
	c.APIServer.AuthorizedIPRanges = append([]string(nil), s.APIServer.AuthorizedIPRanges...)
	if s.AzurePolicy != nil {
		v := *s.AzurePolicy
		c.AzurePolicy = &v
	}
	c.AutoscalerProfile = maps.Clone(s.AutoscalerProfile)
	if s.MaintenanceWindow != nil {
		w := *s.MaintenanceWindow
		c.MaintenanceWindow = &w
	}
	c.Logs.AuditCategories = append([]string(nil), s.Logs.AuditCategories...)
	if s.Registry != nil {
		r := *s.Registry
		c.Registry = &r
	}
	return c
}

// defaultDNSPrefix derives a DNS prefix from the cluster name.
func defaultDNSPrefix(name string) string {
	p := strings.ReplaceAll(name, "_", "-")
	if len(p) > 54 {
		p = strings.TrimRight(p[:54], "-")
	}
	return p
}
