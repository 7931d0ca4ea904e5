package gpupool

import (
	"github.com/aksml/aksml/components/vocab"
)

// Labels and taints every GPU pool carries (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops); SPEC C2).
const (
	// AcceleratorLabel is the node label workloads select GPU nodes with.
	AcceleratorLabel = "accelerator"
	// AcceleratorValue is the value of AcceleratorLabel on every GPU pool.
	AcceleratorValue = "nvidia"
	// WorkloadLabel carries the pool's workload class (`workload=training`),
	// or `gpu-spot` on spot pools (SPEC C2).
	WorkloadLabel = "workload"
	// SpotWorkloadValue is the WorkloadLabel value of spot pools (SPEC C2).
	SpotWorkloadValue = "gpu-spot"
	// AgentPoolLabel is the label AKS puts on every node with its pool name.
	AgentPoolLabel = vocab.AgentPoolLabel
	// MIGConfigLabel selects the mig-parted layout a node is partitioned with.
	MIGConfigLabel = "nvidia.com/mig.config"
	// MIGConfigStateLabel is set to "success" by the MIG manager once the
	// layout is applied (AKS MLOps best practices MIG trial nodeSelector).
	MIGConfigStateLabel = "nvidia.com/mig.config.state"

	// GPUTaintKey, GPUTaintValue and GPUTaintEffect form the taint that keeps
	// ordinary pods off GPU nodes: `sku=gpu:NoSchedule` (AKS MLOps best practices; SPEC C2).
	GPUTaintKey    = "sku"
	GPUTaintValue  = "gpu"
	GPUTaintEffect = "NoSchedule"
	// SpotTaintKey and SpotTaintValue form the taint AKS puts on spot nodes:
	// `kubernetes.azure.com/scalesetpriority=spot:NoSchedule` (SPEC C2).
	SpotTaintKey   = vocab.SpotTaintKey
	SpotTaintValue = "spot"

	// GPUResource is the extended resource the NVIDIA device plugin registers.
	GPUResource = vocab.GPUResource
)

// Defaults applied by (*Spec).Default.
const (
	// DefaultMinCount is 0: GPU pools scale to zero when idle (SPEC C2
	// Scale to zero; AKS MLOps best practices `--min-count 0`).
	DefaultMinCount = 0
	// DefaultProdInferenceMinCount is the autoscaler minimum of a Regular
	// DriverOnly or None pool with workload inference in a production stack
	// (DefaultForEnvironment): one warm node, so the first request after an
	// idle period does not wait for VM provisioning, image pull and model
	// load. "Machine learning operations (MLOps) best practices in Azure
	// Kubernetes Service (AKS)"
	// (https://learn.microsoft.com/azure/aks/best-practices-ml-ops): scale to
	// zero suits interruptible training pools; keep a non-zero minimum where
	// start-up latency matters to the service objectives.
	DefaultProdInferenceMinCount = 1
	// DefaultPriority is Regular (on-demand) capacity.
	DefaultPriority = PriorityRegular
	// DefaultGPUStack is DriverOnly, the AKS default profile for GPU sizes
	// (AKS-managed GPU nodes (https://learn.microsoft.com/azure/aks/aks-managed-gpu-nodes): the driver-only profile is the
	// default): AKS installs the driver,
	// aksml installs the device plugin and DCGM exporter (components/gpustack).
	DefaultGPUStack = GPUStackDriverOnly
	// DefaultMIGStrategy is None (AKS-managed GPU nodes: migStrategy default None).
	DefaultMIGStrategy = MIGStrategyNone
	// DefaultOSSKU is Ubuntu, the OS SKU AKS gives a Linux pool that names
	// none (OSSKU enum description in the 2024-10-01 spec: "The default is
	// Ubuntu if OSType is Linux") and the OS of every example in "Machine
	// learning operations (MLOps) best practices in AKS"
	// (https://learn.microsoft.com/azure/aks/best-practices-ml-ops).
	DefaultOSSKU = OSSKUUbuntu
	// DefaultOSDiskSizeGB is the OS disk of a GPU node; CUDA images are large.
	DefaultOSDiskSizeGB = 256
	// MaxPoolCount is the largest maxCount AKS accepts for one pool.
	MaxPoolCount = 1000
)

// ManagedGPUFeature is the subscription feature that AKS-managed GPU pools
// (gpuStack Managed) need while they are in preview: `az feature register
// --namespace Microsoft.ContainerService --name ManagedGPUExperiencePreview`
// ("Create a fully managed GPU node pool on AKS (preview)",
// https://learn.microsoft.com/azure/aks/aks-managed-gpu-nodes).
const ManagedGPUFeature = "Microsoft.ContainerService/ManagedGPUExperiencePreview"
