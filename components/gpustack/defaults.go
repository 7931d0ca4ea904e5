package gpustack

import (
	"github.com/aksml/aksml/components/vocab"
)

// DefaultConfigPath is the error-path root of the Spec for a caller
// without a config key of its own (Resolve's specPath; the component
// provider's). It carries no program's config namespace: the aksml program
// resolves its stack below `aksml:gpuStack`.
const DefaultConfigPath = "gpuStack"

// DefaultPoolsConfigPath is the error-path root of the GPU pools for a
// caller without a config key of its own (Resolve's poolsPath; the aksml
// program: `aksml:gpuPools`).
const DefaultPoolsConfigPath = "gpuPools"

// NVIDIA device plugin, as AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) "Verify or install the NVIDIA device plugin" deploys it.
const (
	// DevicePluginImage is the pinned device plugin image (AKS MLOps best practices).
	DevicePluginImage = "nvcr.io/nvidia/k8s-device-plugin:v0.17.1"
	// DevicePluginName names the DaemonSet, its container and its
	// app.kubernetes.io/name label (AKS MLOps best practices).
	DevicePluginName = "nvidia-device-plugin"
	// DefaultDevicePluginNamespace is where AKS MLOps best practices runs the device plugin.
	DefaultDevicePluginNamespace = "kube-system"
	// DevicePluginSocketDir is the kubelet device plugin directory mounted
	// from the host (AKS MLOps best practices, hostPath type Directory).
	DevicePluginSocketDir = "/var/lib/kubelet/device-plugins"
	// DevicePluginConfigName is the ConfigMap holding the device plugin
	// config file (time-slicing), created only when TimeSlicing is set.
	DevicePluginConfigName = "nvidia-device-plugin-config"
	// DevicePluginConfigDir is where the config file is mounted.
	DevicePluginConfigDir = "/etc/nvidia-device-plugin"
	// DevicePluginConfigFile is the config file's key and file name.
	DevicePluginConfigFile = "config.yaml"
	// ConfigHashAnnotation carries the hash of the device plugin config on
	// the pod template, so that a config change rolls the DaemonSet.
	ConfigHashAnnotation = "aksml.io/device-plugin-config-sha256"
	// NameLabel is the label AKS MLOps best practices selects the device plugin pods by.
	NameLabel = "app.kubernetes.io/name"
	// SystemNodeCritical is the priority class of both node agents (AKS MLOps best practices).
	SystemNodeCritical = "system-node-critical"
)

// NVIDIA DCGM exporter. The observability component's PodMonitor matches
// these (AKS MLOps best practices "Collect NVIDIA GPU metrics": namespace gpu-operator,
// selector app=nvidia-dcgm-exporter, port named metrics).
const (
	// DCGMExporterImage is the pinned DCGM exporter image: DCGM 4.2.3 with
	// exporter 4.1.3, the tag upstream's Helm chart pins for exporter 4.1.3
	// and the image its README runs. Its 4.x DCGM supports the A100 and H100
	// of the catalogue and AKS's current NVIDIA drivers.
	DCGMExporterImage = "nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3-4.1.3-ubuntu22.04"
	// DCGMExporterName names the DaemonSet, its Service and the value of
	// DCGMExporterAppLabel.
	DCGMExporterName = "nvidia-dcgm-exporter"
	// DCGMExporterAppLabel is the pod label key the AKS MLOps best practices' PodMonitor selects.
	DCGMExporterAppLabel = "app"
	// DCGMExporterPort is the port aksml's DCGM exporter serves /metrics on.
	DCGMExporterPort = 9400
	// DCGMExporterPortName is the name of that port on the pod and Service
	// (AKS MLOps best practices PodMonitor `port: metrics`).
	DCGMExporterPortName = "metrics"
	// DCGMExporterCounters is the exporter's built-in counters file.
	DCGMExporterCounters = "/etc/dcgm-exporter/default-counters.csv"
	// PodResourcesDir is the kubelet pod-resources socket directory, mounted
	// read-only so metrics carry the pod that uses each GPU.
	PodResourcesDir = "/var/lib/kubelet/pod-resources"

	// ManagedDCGMExporterPort is the port of the DCGM exporter AKS installs
	// on Managed pools (AKS-managed GPU nodes (https://learn.microsoft.com/azure/aks/aks-managed-gpu-nodes): the exporter listens on port 19400).
	ManagedDCGMExporterPort = 19400
	// ManagedDCGMExporterNodeLabel is the node label AKS sets (value
	// "enabled") on nodes running its managed DCGM exporter (AKS-managed GPU nodes).
	ManagedDCGMExporterNodeLabel = "kubernetes.azure.com/dcgm-exporter"
)

// DCGM exporter resources: a small steady footprint, with headroom for the
// embedded host engine on 8-GPU nodes.
const (
	// DCGMExporterCPURequest is the exporter's CPU request.
	DCGMExporterCPURequest = "100m"
	// DCGMExporterMemoryRequest is the exporter's memory request.
	DCGMExporterMemoryRequest = "256Mi"
	// DCGMExporterCPULimit is the exporter's CPU limit.
	DCGMExporterCPULimit = "500m"
	// DCGMExporterMemoryLimit is the exporter's memory limit.
	DCGMExporterMemoryLimit = "1Gi"
)

// DCGMExporterLabels returns the pod labels of aksml's DCGM exporter, which
// a PodMonitor selects (AKS MLOps best practices: `app: nvidia-dcgm-exporter`).
func DCGMExporterLabels() map[string]string {
	return map[string]string{DCGMExporterAppLabel: DCGMExporterName}
}

// MIG configuration (AKS MLOps best practices "Partition A100 and H100 GPUs with MIG").
const (
	// DefaultNamespace holds the DCGM exporter and mig-parted-config (AKS MLOps
	// best practices create gpu-operator for both, where the GPU Operator's MIG
	// Manager reads its config).
	DefaultNamespace = vocab.GPUStackNamespace
	// MIGConfigMapName is the mig-parted ConfigMap (AKS MLOps best practices).
	MIGConfigMapName = "mig-parted-config"
	// MIGConfigFile is its data key (AKS MLOps best practices `config.yaml`).
	MIGConfigFile = "config.yaml"
	// MIGAllDisabled is the layout that turns MIG off (AKS MLOps best practices).
	MIGAllDisabled = "all-disabled"
)

// NVIDIA MIG Manager (standalone k8s-mig-manager of NVIDIA/mig-parted),
// installed on DriverOnly MIG pools. Its shape follows the standalone
// example NVIDIA publishes with the image
// (https://github.com/NVIDIA/mig-parted, deployments/container/nvidia-mig-manager-example.yaml)
// and the GPU Operator's MIG Manager state
// (https://github.com/NVIDIA/gpu-operator, assets/state-mig-manager/:
// 0210_clusterrole.yaml, 0200_role.yaml, 0600_daemonset.yaml).
const (
	// MIGManagerImage is the pinned MIG Manager image: v0.14.5, the VERSION
	// of NVIDIA/mig-parted's versions.mk and the tag its standalone example
	// DaemonSet runs (nvcr.io/nvidia/cloud-native/k8s-mig-manager:v0.14.5).
	MIGManagerImage = "nvcr.io/nvidia/cloud-native/k8s-mig-manager:v0.14.5"
	// MIGManagerName names the DaemonSet, its ServiceAccount, the
	// ClusterRole, Role and their bindings, and is the value of the
	// NameLabel on its pods. It is prefixed with aksml so that it never
	// collides with the nvidia-mig-manager objects of a GPU Operator in the
	// same namespace or cluster.
	MIGManagerName = "aksml-mig-manager"
	// MIGManagerConfigDir is where mig-parted-config is mounted; the
	// manager reads MIGManagerConfigDir/MIGConfigFile (env CONFIG_FILE).
	MIGManagerConfigDir = "/mig-parted-config"
	// MIGManagerHostRoot is where the host's root file system is mounted
	// (env HOST_ROOT_MOUNT, upstream default /host).
	MIGManagerHostRoot = "/host"

	// DeployDevicePluginLabel and DeployDCGMExporterLabel are the node
	// labels the MIG Manager sets to MIGPausedForChange while it changes a
	// node's MIG layout, so that the GPU clients scheduled by them stop,
	// and back to "true" afterwards (reconfigure-mig.sh: "Shutting down all
	// GPU clients in Kubernetes by disabling their component-specific
	// nodeSelector labels"). With the MIG Manager installed, aksml's device
	// plugin and DCGM exporter keep off a node whose label says paused, so
	// the device plugin restarts after a change and advertises the new
	// MIG devices.
	DeployDevicePluginLabel = "nvidia.com/gpu.deploy.device-plugin"
	DeployDCGMExporterLabel = "nvidia.com/gpu.deploy.dcgm-exporter"
	MIGPausedForChange      = "paused-for-mig-change"
)

// Pod Security admission: both node agents need host paths and the DCGM
// exporter CAP_SYS_ADMIN, which only the privileged level admits.
const (
	// PodSecurityEnforceLabel is the Pod Security admission enforce label.
	PodSecurityEnforceLabel = "pod-security.kubernetes.io/enforce"
	// PodSecurityPrivileged is the level set on Spec.Namespace when created.
	PodSecurityPrivileged = "privileged"
)

// Time-slicing limits checked by validation.
const (
	// MinTimeSlicingReplicas is the fewest pods per shared GPU (1 is no sharing).
	MinTimeSlicingReplicas = 2
	// MaxTimeSlicingReplicas bounds sharing: beyond it each pod's slice of
	// compute and memory is too small to be useful.
	MaxTimeSlicingReplicas = 64
)

// SkipAwaitAnnotation tells the Pulumi Kubernetes provider not to wait for a
// resource to become ready.
const SkipAwaitAnnotation = vocab.SkipAwaitAnnotation
