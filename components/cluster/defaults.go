package cluster

// Cluster autoscaler profile from AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) ("Configure cluster autoscaling for a GPU node pool": `az aks update
// --cluster-autoscaler-profile ...`). Keys are the az CLI / AKS names.
const (
	// AutoscalerScanInterval is how often the autoscaler re-evaluates
	// (`scan-interval=20s`).
	AutoscalerScanInterval = "20s"
	// AutoscalerScaleDownUnneededTime is how long a node must be unneeded
	// before removal (`scale-down-unneeded-time=10m`).
	AutoscalerScaleDownUnneededTime = "10m"
	// AutoscalerScaleDownDelayAfterAdd keeps fresh nodes for a while, so
	// GPU nodes that just pulled large images are not removed at once
	// (`scale-down-delay-after-add=15m`).
	AutoscalerScaleDownDelayAfterAdd = "15m"
	// AutoscalerMaxGracefulTerminationSec bounds pod termination during
	// scale-down (`max-graceful-termination-sec=120`).
	AutoscalerMaxGracefulTerminationSec = "120"
)

// Autoscaler profile keys (AKS / az CLI names) set by default.
const (
	KeyScanInterval              = "scan-interval"
	KeyScaleDownUnneededTime     = "scale-down-unneeded-time"
	KeyScaleDownDelayAfterAdd    = "scale-down-delay-after-add"
	KeyMaxGracefulTerminationSec = "max-graceful-termination-sec"
)

// Defaults applied by (*Spec).Default.
const (
	// DefaultMode is Standard (AKS MLOps best practices compares Standard and Automatic;
	// Automatic is not available in the SDK's GA API, see ModeAutomatic).
	DefaultMode = ModeStandard
	// DefaultTier is the Standard control-plane tier (uptime SLA).
	DefaultTier = TierStandard
	// DefaultUpgradeChannel is stable: minor and patch upgrades one minor
	// behind the newest.
	DefaultUpgradeChannel = "stable"
	// DefaultNodeOSUpgradeChannel is NodeImage: weekly node images with
	// OS patches.
	DefaultNodeOSUpgradeChannel = "NodeImage"
	// DefaultPodCIDR is the Azure CNI overlay pod range (SPEC C1.4).
	DefaultPodCIDR = "10.244.0.0/16"
	// DefaultServiceCIDR is the Kubernetes service range (AKS default).
	DefaultServiceCIDR = "10.0.0.0/16"
	// DefaultDNSServiceIP is the cluster DNS address in DefaultServiceCIDR
	// (AKS default).
	DefaultDNSServiceIP = "10.0.0.10"

	// DefaultSystemVMSize is the system pool VM size.
	DefaultSystemVMSize = "Standard_D4ds_v5"
	// DefaultSystemMinCount is 2: system pods survive one node loss
	// (Azure Well-Architected guidance for AKS system pools).
	DefaultSystemMinCount = 2
	// DefaultSystemMaxCount is the system pool autoscaler ceiling.
	DefaultSystemMaxCount = 3
	// DefaultSystemOSDiskSizeGB is the system nodes' OS disk.
	DefaultSystemOSDiskSizeGB = 128

	// DefaultCPUVMSize is the CPU user pool VM size (operators, Kueue,
	// CPU batch jobs such as the scoring CronJob of AKS MLOps best practices).
	DefaultCPUVMSize = "Standard_D8ds_v5"
	// DefaultCPUMinCount keeps one CPU node for controllers.
	DefaultCPUMinCount = 1
	// DefaultCPUMaxCount is the CPU pool autoscaler ceiling.
	DefaultCPUMaxCount = 5
	// DefaultCPUOSDiskSizeGB is the CPU nodes' OS disk.
	DefaultCPUOSDiskSizeGB = 128

	// DefaultMaintenanceDurationHours is the shortest window AKS accepts.
	DefaultMaintenanceDurationHours = 4
	// DefaultMaintenanceUTCOffset is UTC.
	DefaultMaintenanceUTCOffset = "+00:00"
	// DefaultMaintenanceIntervalWeeks is every week.
	DefaultMaintenanceIntervalWeeks = 1
)

// Fixed values of every cluster aksml builds.
const (
	// SystemPoolName is the name of the system node pool.
	SystemPoolName = "system"
	// SystemPoolTaint keeps application pods off the system pool (SPEC C1.3).
	SystemPoolTaint = "CriticalAddonsOnly=true:NoSchedule"
	// CPUPoolName is the name of the CPU user pool.
	CPUPoolName = "cpu"
	// CPUWorkloadLabel is the `workload` label value of CPU pool nodes.
	CPUWorkloadLabel = "cpu"
	// NetworkPlugin, NetworkPluginMode, NetworkDataplane and NetworkPolicy
	// give Azure CNI overlay with Cilium, which enforces NetworkPolicy
	// (SPEC C1.4, needed by the NCCL policy of C7.4).
	NetworkPlugin     = "azure"
	NetworkPluginMode = "overlay"
	NetworkDataplane  = "cilium"
	NetworkPolicy     = "cilium"
	// AzurePolicyAddon is the addonProfiles key of the Azure Policy add-on.
	AzurePolicyAddon = "azurepolicy"
	// AutoUpgradeScheduleName and NodeOSUpgradeScheduleName are the
	// maintenance configurations AKS reads for the two upgrade channels.
	AutoUpgradeScheduleName   = "aksManagedAutoUpgradeSchedule"
	NodeOSUpgradeScheduleName = "aksManagedNodeOSUpgradeSchedule"
	// MaxAuthorizedIPRanges is the most API server authorized IP ranges AKS
	// accepts ("Secure access to the API server using authorized IP address
	// ranges in AKS", https://learn.microsoft.com/azure/aks/api-server-authorized-ip-ranges).
	MaxAuthorizedIPRanges = 200
	// KubeconfigFormatExec asks AKS for a kubelogin exec kubeconfig on
	// Entra ID clusters.
	KubeconfigFormatExec = "exec"
	// ServerFQDNPublic asks listClusterUserCredential (query parameter
	// server-fqdn, "server fqdn type for credentials to be returned",
	// Microsoft.ContainerService 2024-10-01, ../shared/azure-specs) for a
	// kubeconfig whose server is the private cluster's public FQDN, as
	// `az aks get-credentials --public-fqdn` does. AKS "creates a private
	// FQDN with a private DNS zone and an additional public FQDN with a
	// corresponding A record in Azure public DNS" that points at the private
	// endpoint ("Create a private Azure Kubernetes Service (AKS) cluster",
	// https://learn.microsoft.com/azure/aks/private-clusters), so the
	// kubeconfig resolves from a peered runner VNet, whose DNS does not see
	// the private zone linked to the cluster VNet only.
	ServerFQDNPublic = "public"
)
