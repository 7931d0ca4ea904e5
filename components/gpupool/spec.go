package gpupool

import (
	"fmt"
	"math"
)

// Priority is the capacity type of a pool.
type Priority string

// Valid priorities.
const (
	// PriorityRegular is on-demand capacity.
	PriorityRegular Priority = "Regular"
	// PrioritySpot is evictable capacity at a discount (SPEC C2.5): eviction
	// Delete, max price -1, the AKS spot taint.
	PrioritySpot Priority = "Spot"
)

// WorkloadClass says what a pool is for; it becomes the `workload` label and
// decides whether spot is allowed (SPEC C2.5 spot table).
type WorkloadClass string

// Valid workload classes.
const (
	// WorkloadTraining is checkpointed model training (spot allowed).
	WorkloadTraining WorkloadClass = "training"
	// WorkloadFineTuning is fine-tuning that checkpoints (spot allowed).
	WorkloadFineTuning WorkloadClass = "fine-tuning"
	// WorkloadBatchInference is offline scoring that can re-queue (spot allowed).
	WorkloadBatchInference WorkloadClass = "batch-inference"
	// WorkloadInference is real-time inference serving: never on spot.
	WorkloadInference WorkloadClass = "inference"
)

// WorkloadClasses lists the valid workload classes.
var WorkloadClasses = []WorkloadClass{WorkloadTraining, WorkloadFineTuning, WorkloadBatchInference, WorkloadInference}

// GPUStack says who installs the GPU software on the pool's nodes (AKS-managed GPU nodes (https://learn.microsoft.com/azure/aks/aks-managed-gpu-nodes)).
// It is fixed when the pool is created: changing it replaces the pool.
type GPUStack string

// Valid GPU stack modes.
const (
	// GPUStackManaged: AKS installs driver, device plugin, DCGM exporter and
	// GPU health signals (gpuProfile.nvidia.managementMode=Managed).
	GPUStackManaged GPUStack = "Managed"
	// GPUStackDriverOnly: AKS installs the driver only; aksml's gpustack
	// component installs the device plugin and DCGM exporter.
	GPUStackDriverOnly GPUStack = "DriverOnly"
	// GPUStackNone: AKS installs nothing (gpuProfile.driver=None); bring your
	// own stack, e.g. the NVIDIA GPU Operator.
	GPUStackNone GPUStack = "None"
)

// GPUStacks lists the valid GPU stack modes.
var GPUStacks = []GPUStack{GPUStackManaged, GPUStackDriverOnly, GPUStackNone}

// OSSKU is the node OS image of a pool (AKS agent pool `osSKU`).
type OSSKU string

// Valid OS SKUs: the Linux values of the OSSKU enum that both AKS API
// versions aksml sends pools with accept (stable 2024-10-01 for DriverOnly
// pools, 2026-02-02-preview for Managed and None pools; see OSSKUs).
const (
	// OSSKUUbuntu is Ubuntu, the AKS default for Linux pools and aksml's.
	OSSKUUbuntu OSSKU = "Ubuntu"
	// OSSKUAzureLinux is the Azure Linux container host.
	OSSKUAzureLinux OSSKU = "AzureLinux"
)

// OSSKUs lists the valid OS SKUs. The 2024-10-01 spec's OSSKU enum is
// Ubuntu, CBLMariner, AzureLinux, Windows2019, Windows2022; the
// 2026-02-02-preview enum adds AzureLinux3, Ubuntu2204, Ubuntu2404,
// Flatcar and more (Azure/azure-rest-api-specs, aks managedClusters.json
// of both versions, definition OSSKU). aksml offers the Linux values both
// accept and AKS does not mark deprecated (CBLMariner is "Deprecated
// OSSKU ... choose 'AzureLinux' instead"); AzureLinux3 exists only in the
// preview API, which DriverOnly pools are not sent with. The unversioned
// values are what "Upgrade the OS version in AKS"
// (https://learn.microsoft.com/azure/aks/upgrade-os-version) recommends:
// they follow the default OS version of the cluster's Kubernetes version.
var OSSKUs = []OSSKU{OSSKUUbuntu, OSSKUAzureLinux}

// MIGStrategy is how the device plugin exposes MIG instances (AKS-managed GPU nodes).
type MIGStrategy string

// Valid MIG strategies.
const (
	MIGStrategyNone   MIGStrategy = "None"
	MIGStrategySingle MIGStrategy = "Single"
	MIGStrategyMixed  MIGStrategy = "Mixed"
)

// MIGStrategies lists the valid MIG strategies.
var MIGStrategies = []MIGStrategy{MIGStrategyNone, MIGStrategySingle, MIGStrategyMixed}

// MIGProfile is the AKS GPU instance profile of a MIG pool.
type MIGProfile string

// Valid MIG profiles (AKS `gpuInstanceProfile`).
const (
	MIG1g MIGProfile = "MIG1g"
	MIG2g MIGProfile = "MIG2g"
	MIG3g MIGProfile = "MIG3g"
	MIG4g MIGProfile = "MIG4g"
	MIG7g MIGProfile = "MIG7g"
)

// MIGProfiles lists the valid MIG profiles.
var MIGProfiles = []MIGProfile{MIG1g, MIG2g, MIG3g, MIG4g, MIG7g}

// migSlices is, per profile, the compute slices (of 7) and the instances
// one GPU holds.
var migSlices = map[MIGProfile]struct{ g, perGPU int }{
	MIG1g: {1, 7}, MIG2g: {2, 3}, MIG3g: {3, 2}, MIG4g: {4, 1}, MIG7g: {7, 1},
}

// MIGSpec partitions the pool's GPUs with Multi-Instance GPU. Only valid on
// MIG-capable SKUs (A100, H100).
type MIGSpec struct {
	// Strategy is None, Single or Mixed. Default None; AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) uses Mixed
	// when workloads request named profiles (nvidia.com/mig-1g.10gb).
	Strategy MIGStrategy `json:"strategy,omitempty" pulumi:"strategy,optional"`
	// Profile is the instance profile, MIG1g..MIG7g. Required when Strategy
	// is not None.
	Profile MIGProfile `json:"profile,omitempty" pulumi:"profile,optional"`
}

// Spec is the plain-data description of one GPU node pool: what stack
// config holds and what NewGPUNodePools builds. Call Default, then Validate.
type Spec struct {
	// Name is the AKS pool name: lowercase letters and digits, starting with
	// a letter, at most 12 characters. Required.
	Name string `json:"name" pulumi:"name"`
	// VMSize is an NC/ND size from the catalogue (see Catalogue). Required.
	// NV-series sizes are rejected (visualisation only).
	VMSize string `json:"vmSize" pulumi:"vmSize"`
	// Workload is the workload class: training, fine-tuning,
	// batch-inference or inference. Required.
	Workload WorkloadClass `json:"workload" pulumi:"workload"`
	// Priority is Regular (default) or Spot.
	Priority Priority `json:"priority,omitempty" pulumi:"priority,optional"`
	// MinCount is the autoscaler minimum of DriverOnly and None pools.
	// Default 0 (scale to zero), except DefaultProdInferenceMinCount (1)
	// for a Regular inference pool in a production stack
	// (DefaultForEnvironment). Not allowed on Managed pools.
	MinCount *int `json:"minCount,omitempty" pulumi:"minCount,optional"`
	// MaxCount is the autoscaler maximum of DriverOnly and None pools,
	// 1..1000. Required for them: GPU spend must have an explicit ceiling.
	// Not allowed on Managed pools.
	MaxCount int `json:"maxCount,omitempty" pulumi:"maxCount,optional"`
	// Count is the node count of a Managed pool, 0..1000, owned by config:
	// AKS does not support the cluster autoscaler on AKS-managed GPU pools
	// while they are in preview, so the pool runs exactly Count nodes and
	// is scaled by changing Count. Required for Managed pools; not allowed
	// on DriverOnly and None pools, whose count the autoscaler owns.
	Count *int `json:"count,omitempty" pulumi:"count,optional"`
	// Zones are availability zones ("1", "2", "3"). Default none (regional).
	Zones []string `json:"zones,omitempty" pulumi:"zones,optional"`
	// GPUStack is Managed, DriverOnly (default) or None; immutable.
	GPUStack GPUStack `json:"gpuStack,omitempty" pulumi:"gpuStack,optional"`
	// MIG partitions the GPUs; nil means no MIG.
	MIG *MIGSpec `json:"mig,omitempty" pulumi:"mig,optional"`
	// OSSKU is the node OS: Ubuntu (default) or AzureLinux, immutable.
	// AzureLinux is accepted on DriverOnly and Managed pools (see Validate).
	// Ubuntu is AKS's default and is not sent, so pools created before this
	// setting existed see no change.
	OSSKU OSSKU `json:"osSku,omitempty" pulumi:"osSku,optional"`
	// OSDiskSizeGB is the node OS disk size. Default 256.
	OSDiskSizeGB int `json:"osDiskSizeGB,omitempty" pulumi:"osDiskSizeGB,optional"`
	// AdditionalLabels are added to the pool's node labels; they may not
	// override the labels aksml sets.
	AdditionalLabels map[string]string `json:"additionalLabels,omitempty" pulumi:"additionalLabels,optional"`
	// AdditionalTaints are added to the pool's taints ("key=value:Effect").
	AdditionalTaints []string `json:"additionalTaints,omitempty" pulumi:"additionalTaints,optional"`
}

// DefaultForEnvironment fills unset fields like Default, except that in a
// production stack (prod true) a Regular DriverOnly or None pool with
// workload inference gets minCount DefaultProdInferenceMinCount instead of
// 0. An explicit minCount (0 included) is kept; Managed pools have no
// minCount (their count is required config) and spot pools never serve
// inference.
func (s *Spec) DefaultForEnvironment(prod bool) {
	if prod && s.MinCount == nil && s.Workload == WorkloadInference &&
		s.Priority != PrioritySpot && s.GPUStack != GPUStackManaged {
		v := DefaultProdInferenceMinCount
		s.MinCount = &v
	}
	s.Default()
}

// Default fills unset fields with their documented defaults (those of a
// non-production stack; see DefaultForEnvironment).
func (s *Spec) Default() {
	if s.Priority == "" {
		s.Priority = DefaultPriority
	}
	if s.GPUStack == "" {
		s.GPUStack = DefaultGPUStack
	}
	if s.MinCount == nil && !s.IsManaged() {
		v := DefaultMinCount
		s.MinCount = &v
	}
	if s.OSDiskSizeGB == 0 {
		s.OSDiskSizeGB = DefaultOSDiskSizeGB
	}
	if s.MIG != nil && s.MIG.Strategy == "" {
		s.MIG.Strategy = DefaultMIGStrategy
	}
}

// minNodes returns the fewest nodes the pool runs: Count on a Managed pool,
// else MinCount, or the default when unset (Resolved.MinNodes).
func (s Spec) minNodes() int {
	switch {
	case s.IsManaged():
		return s.fixedCount()
	case s.MinCount == nil:
		return DefaultMinCount
	}
	return *s.MinCount
}

// maxNodes returns the most nodes the pool runs: Count on a Managed pool,
// MaxCount otherwise (nodeCeiling). Capacity, cost at maximum scale and,
// through Resolved.MaxNodes, the node subnet size use it.
func (s Spec) maxNodes() int {
	n, _ := s.nodeCeiling()
	return n
}

// nodeCeiling returns the pool's node-count upper bound and the config key
// (relative to the pool) that sets it: Count and "count" on a Managed pool,
// which runs a fixed count without the autoscaler; MaxCount and "maxCount"
// on DriverOnly and None pools, whose count the autoscaler moves up to
// MaxCount. It is the one place that decides "count or maxCount": messages
// that tell the user which key to raise use the key it returns.
func (s Spec) nodeCeiling() (nodes int, key string) {
	if s.IsManaged() {
		return s.fixedCount(), "count"
	}
	return s.MaxCount, "maxCount"
}

// fixedCount returns Count, or 0 when unset.
func (s Spec) fixedCount() int {
	if s.Count == nil {
		return 0
	}
	return *s.Count
}

// IsManaged reports whether AKS manages the pool's GPU stack (gpuStack
// Managed): the pool has a fixed Count and no autoscaler.
func (s Spec) IsManaged() bool { return s.GPUStack == GPUStackManaged }

// IsAutoscaled reports whether the cluster autoscaler owns the pool's node
// count (DriverOnly and None pools).
func (s Spec) IsAutoscaled() bool { return !s.IsManaged() }

// SKU returns the catalogue entry of the pool's VM size.
func (s Spec) SKU() (SKU, bool) { return LookupSKU(s.VMSize) }

// IsSpot reports whether the pool runs on spot capacity.
func (s Spec) IsSpot() bool { return s.Priority == PrioritySpot }

// MIGEnabled reports whether the pool partitions its GPUs with MIG.
func (s Spec) MIGEnabled() bool {
	return s.MIG != nil && s.MIG.Strategy != "" && s.MIG.Strategy != MIGStrategyNone
}

// Labels returns the node labels of the pool: `accelerator=nvidia`,
// `workload=<class>` (`workload=gpu-spot` on spot pools), the MIG layout
// label on MIG pools not managed by AKS, and AdditionalLabels.
func (s Spec) Labels() map[string]string {
	l := map[string]string{}
	for k, v := range s.AdditionalLabels {
		l[k] = v
	}
	l[AcceleratorLabel] = AcceleratorValue
	l[WorkloadLabel] = string(s.Workload)
	if s.IsSpot() {
		l[WorkloadLabel] = SpotWorkloadValue
	}
	if s.MIGEnabled() && s.GPUStack != GPUStackManaged {
		l[MIGConfigLabel] = s.MIGLayout()
	}
	return l
}

// Taint is a node taint.
type Taint struct {
	Key, Value, Effect string
}

// String renders the taint the way AKS takes it: key=value:Effect.
func (t Taint) String() string { return fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect) }

// Taints returns the pool's taints: `sku=gpu:NoSchedule` always, the AKS
// spot taint on spot pools, then AdditionalTaints.
func (s Spec) Taints() []Taint {
	t := []Taint{{GPUTaintKey, GPUTaintValue, GPUTaintEffect}}
	if s.IsSpot() {
		t = append(t, Taint{SpotTaintKey, SpotTaintValue, GPUTaintEffect})
	}
	for _, raw := range s.AdditionalTaints {
		if at, err := ParseTaint(raw); err == nil {
			t = append(t, at)
		}
	}
	return t
}

// TaintStrings returns Taints rendered as key=value:Effect, sorted after the
// two aksml taints.
func (s Spec) TaintStrings() []string {
	var out []string
	for _, t := range s.Taints() {
		out = append(out, t.String())
	}
	return out
}

// maxGPUs is the GPU capacity of the pool at its largest: maxNodes ×
// GPUs/node (maxCount, or count on a Managed pool). With MIG it still
// counts physical GPUs; see migInstances.
func (s Spec) maxGPUs() int {
	sku, _ := s.SKU()
	return s.maxNodes() * sku.GPUsPerNode
}

// migInstances is the number of MIG instances the pool offers at maxCount,
// or 0 without MIG.
func (s Spec) migInstances() int {
	if !s.MIGEnabled() {
		return 0
	}
	return s.maxGPUs() * migSlices[s.MIG.Profile].perGPU
}

// MIGResourceName is the extended resource a MIG instance is requested by,
// e.g. nvidia.com/mig-1g.10gb, or "" without MIG. With the Single strategy
// the device plugin exposes instances as nvidia.com/gpu instead.
func (s Spec) MIGResourceName() string {
	if !s.MIGEnabled() {
		return ""
	}
	if s.MIG.Strategy == MIGStrategySingle {
		return GPUResource
	}
	return "nvidia.com/mig-" + s.migDevice()
}

// migDevice is the mig-parted device name, e.g. "1g.10gb".
func (s Spec) migDevice() string {
	sku, _ := s.SKU()
	sl := migSlices[s.MIG.Profile]
	var frac float64
	switch sl.g {
	case 1:
		frac = 1.0 / 8
	case 2:
		frac = 1.0 / 4
	case 3, 4:
		frac = 1.0 / 2
	default:
		frac = 1
	}
	return fmt.Sprintf("%dg.%dgb", sl.g, int(math.Round(float64(sku.GPUMemoryGiB)*frac)))
}

// MIGLayout is the mig-parted configuration name a MIG pool's nodes are
// labelled with, e.g. "hptuning-1g10gb" (AKS MLOps best practices), or "" without MIG.
func (s Spec) MIGLayout() string {
	if !s.MIGEnabled() {
		return ""
	}
	d := s.migDevice()
	out := make([]byte, 0, len(d))
	for i := 0; i < len(d); i++ {
		if d[i] != '.' {
			out = append(out, d[i])
		}
	}
	return "hptuning-" + string(out)
}

// MIGDevicesPerGPU returns the mig-parted device name and count per GPU of a
// MIG pool's layout, e.g. ("1g.10gb", 7).
func (s Spec) MIGDevicesPerGPU() (string, int) {
	if !s.MIGEnabled() {
		return "", 0
	}
	return s.migDevice(), migSlices[s.MIG.Profile].perGPU
}

// OS returns the pool's OS SKU, Ubuntu when unset.
func (s Spec) OS() OSSKU {
	if s.OSSKU == "" {
		return DefaultOSSKU
	}
	return s.OSSKU
}

// sentOSSKU returns the osSKU sent to AKS: "" (not sent) for Ubuntu, the
// AKS default, so that pools created before OSSKU existed, which sent
// none, show no change; osSKU is immutable (ReplaceOnChanges).
func (s Spec) sentOSSKU() string {
	if s.OS() == DefaultOSSKU {
		return ""
	}
	return string(s.OS())
}

// hourly returns the price of one node per hour, spot-discounted on spot.
func (s Spec) hourly() float64 {
	sku, _ := s.SKU()
	p := sku.PricePerHour
	if s.IsSpot() {
		p *= 1 - SpotDiscount
	}
	return p
}

// IdleCostPerHour is the indicative cost per hour at minCount (0 when the
// pool scales to zero).
func (s Spec) IdleCostPerHour() float64 { return round2(float64(s.minNodes()) * s.hourly()) }

// MaxCostPerHour is the indicative cost per hour at the node ceiling
// (maxCount, or count on a Managed pool).
func (s Spec) MaxCostPerHour() float64 { return round2(float64(s.maxNodes()) * s.hourly()) }

func round2(v float64) float64 { return math.Round(v*100) / 100 }
