package gpupool

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/aksml/aksml/components/field"
)

var poolNameRE = regexp.MustCompile(`^[a-z][a-z0-9]{0,11}$`)

// ValidatePoolName checks an AKS Linux pool name: lowercase letters and
// digits, starting with a letter, 1 to 12 characters.
func ValidatePoolName(name string, path field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(path, "an AKS pool name (lowercase letters and digits, starting with a letter, at most 12 characters)")}
	}
	if !poolNameRE.MatchString(name) {
		return field.ErrorList{field.Invalid(path, "%q is not a valid AKS pool name: use lowercase letters and digits, start with a letter, at most 12 characters", name)}
	}
	return nil
}

// ParseTaint parses "key=value:Effect" (Effect NoSchedule, PreferNoSchedule
// or NoExecute).
func ParseTaint(raw string) (Taint, error) {
	kv, effect, ok := strings.Cut(raw, ":")
	if !ok {
		return Taint{}, fmt.Errorf("%q is not a taint; write key=value:Effect", raw)
	}
	k, v, _ := strings.Cut(kv, "=")
	if k == "" {
		return Taint{}, fmt.Errorf("%q has no key; write key=value:Effect", raw)
	}
	switch effect {
	case "NoSchedule", "PreferNoSchedule", "NoExecute":
	default:
		return Taint{}, fmt.Errorf("%q has effect %q; use NoSchedule, PreferNoSchedule or NoExecute", raw, effect)
	}
	return Taint{Key: k, Value: v, Effect: effect}, nil
}

// Validate checks a defaulted Spec and returns every problem, each naming
// its path below path (e.g. `aksml:gpuPools[1]`).
func (s Spec) Validate(path field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, ValidatePoolName(s.Name, path.Child("name"))...)

	sku, known := s.SKU()
	switch {
	case s.VMSize == "":
		errs = append(errs, field.Required(path.Child("vmSize"), "an NC/ND GPU VM size, e.g. Standard_NC24ads_A100_v4"))
	case IsVisualisationOnly(s.VMSize):
		errs = append(errs, field.Invalid(path.Child("vmSize"), "%s is an NV-series (M60) SKU for visualisation only; use an NC/ND SKU such as Standard_NC24ads_A100_v4", s.VMSize))
	case !known:
		errs = append(errs, field.Invalid(path.Child("vmSize"), "%s is not in the GPU SKU catalogue; use one of %s", s.VMSize, strings.Join(VMSizes(), ", ")))
	}

	if !slices.Contains(WorkloadClasses, s.Workload) {
		if s.Workload == "" {
			errs = append(errs, field.Required(path.Child("workload"), "the workload class: training, fine-tuning, batch-inference or inference"))
		} else {
			errs = append(errs, field.NotSupported(path.Child("workload"), s.Workload, WorkloadClasses))
		}
	}
	if !slices.Contains([]Priority{PriorityRegular, PrioritySpot}, s.Priority) {
		errs = append(errs, field.NotSupported(path.Child("priority"), s.Priority, []Priority{PriorityRegular, PrioritySpot}))
	}
	if s.IsSpot() && s.Workload == WorkloadInference {
		errs = append(errs, field.Forbidden(path.Child("priority"), "Spot is not allowed for workload \"inference\": evictions make real-time serving unavailable (SPEC C2); use priority Regular, or a training, fine-tuning or batch-inference pool for spot"))
	}

	if s.IsManaged() {
		errs = append(errs, s.validateManagedCount(path)...)
	} else {
		errs = append(errs, s.validateAutoscaledCount(path)...)
	}

	errs = append(errs, field.ValidateZones(s.Zones, path.Child("zones"))...)

	if known && sku.RDMACapable && len(s.Zones) > 1 {
		errs = append(errs, field.Invalid(path.Child("zones"), "%s is an InfiniBand (RDMA) size: its nodes only share one InfiniBand fabric inside one scale set placement, which zones %s split, so NCCL falls back to TCP; list one zone (or none)", s.VMSize, strings.Join(s.Zones, ", ")))
	}
	if !slices.Contains(GPUStacks, s.GPUStack) {
		errs = append(errs, field.NotSupported(path.Child("gpuStack"), s.GPUStack, GPUStacks))
	}
	errs = append(errs, s.validateOSSKU(path.Child("osSku"))...)
	if s.OSDiskSizeGB < 30 || s.OSDiskSizeGB > 2048 {
		errs = append(errs, field.Invalid(path.Child("osDiskSizeGB"), "%d is out of range; use 30 to 2048 GB", s.OSDiskSizeGB))
	}

	if s.MIG != nil {
		mp := path.Child("mig")
		if !slices.Contains(MIGStrategies, s.MIG.Strategy) {
			errs = append(errs, field.NotSupported(mp.Child("strategy"), s.MIG.Strategy, MIGStrategies))
		}
		if s.MIG.Profile != "" && !slices.Contains(MIGProfiles, s.MIG.Profile) {
			errs = append(errs, field.NotSupported(mp.Child("profile"), s.MIG.Profile, MIGProfiles))
		}
		if s.MIGEnabled() && s.MIG.Profile == "" {
			errs = append(errs, field.Required(mp.Child("profile"), fmt.Sprintf("a MIG profile (MIG1g..MIG7g) with strategy %s", s.MIG.Strategy)))
		}
		if s.MIG.Profile != "" && s.MIG.Strategy == MIGStrategyNone {
			errs = append(errs, field.Invalid(mp.Child("strategy"), "profile %s is set but strategy is None; use Single or Mixed, or remove the profile", s.MIG.Profile))
		}
		if known && !sku.MIGCapable && (s.MIG.Profile != "" || s.MIGEnabled()) {
			errs = append(errs, field.Invalid(mp.Child("profile"), "%s needs a MIG-capable SKU (A100, H100); %s (%s) is not", orNone(s.MIG.Profile), s.VMSize, sku.GPUModel))
		}
	}

	for _, k := range slices.Sorted(maps.Keys(s.AdditionalLabels)) {
		lp := path.Child("additionalLabels").Key(k)
		switch {
		case k == AcceleratorLabel || k == WorkloadLabel || k == MIGConfigLabel:
			errs = append(errs, field.Forbidden(lp, "label %q is set by aksml and cannot be overridden", k))
		case field.NodeKeyProblem(k) != "":
			errs = append(errs, field.Invalid(lp, "%q cannot be a node label: %s", k, field.NodeKeyProblem(k)))
		}
		if v := s.AdditionalLabels[k]; !field.IsLabelValue(v) {
			errs = append(errs, field.Invalid(lp, "%q is not a valid label value: use at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit", v))
		}
	}
	for i, raw := range s.AdditionalTaints {
		t, err := ParseTaint(raw)
		if err != nil {
			errs = append(errs, field.Invalid(path.Child("additionalTaints").Index(i), "%v", err))
			continue
		}
		tp := path.Child("additionalTaints").Index(i)
		switch {
		case t.Key == GPUTaintKey || t.Key == SpotTaintKey:
			errs = append(errs, field.Forbidden(tp, "taint key %q is set by aksml and cannot be overridden", t.Key))
		case field.NodeKeyProblem(t.Key) != "":
			errs = append(errs, field.Invalid(tp, "%q cannot be a taint key: %s", t.Key, field.NodeKeyProblem(t.Key)))
		}
		if !field.IsLabelValue(t.Value) {
			errs = append(errs, field.Invalid(tp, "taint value %q is not valid: use at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit, or write key:Effect with no value", t.Value))
		}
	}
	return errs
}

// validateAutoscaledCount checks the autoscaler bounds of a DriverOnly or
// None pool, which takes no count.
func (s Spec) validateAutoscaledCount(path field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.MaxCount < 1 || s.MaxCount > MaxPoolCount {
		errs = append(errs, field.Invalid(path.Child("maxCount"), "%d is out of range; set an explicit ceiling between 1 and %d", s.MaxCount, MaxPoolCount))
	}
	if s.minNodes() < 0 {
		errs = append(errs, field.Invalid(path.Child("minCount"), "%d is negative; use 0 to scale to zero", s.minNodes()))
	} else if s.MaxCount >= 1 && s.minNodes() > s.MaxCount {
		errs = append(errs, field.Invalid(path.Child("minCount"), "minCount (%d) > maxCount (%d); lower minCount or raise maxCount", s.minNodes(), s.MaxCount))
	} else if s.Priority == PrioritySpot && s.minNodes() > 0 {
		// SPEC C2.5 (GPU node pools: spot pool --min-count 0), guardrail
		// AKSML-GPU-005.
		errs = append(errs, field.Invalid(path.Child("minCount"), "%d keeps spot nodes warm, but spot capacity is for interruptible work that waits for a node (SPEC C2.5, guardrail AKSML-GPU-005); remove minCount, or use priority Regular for warm capacity", s.minNodes()))
	}
	if s.Count != nil {
		errs = append(errs, field.Forbidden(path.Child("count"), "count is only for gpuStack Managed pools; the cluster autoscaler owns the node count of a %s pool between minCount and maxCount, so remove count", s.GPUStack))
	}
	return errs
}

// validateManagedCount checks that a Managed pool has an explicit count
// and no autoscaler bounds: AKS does not support the cluster autoscaler on
// AKS-managed GPU pools while they are in preview ("Create a fully managed
// GPU node pool on AKS (preview)",
// https://learn.microsoft.com/azure/aks/aks-managed-gpu-nodes).
func (s Spec) validateManagedCount(path field.Path) field.ErrorList {
	var errs field.ErrorList
	noAutoscaler := "the cluster autoscaler is not supported on AKS-managed GPU pools (preview; the subscription needs the " + ManagedGPUFeature + " feature registered)"
	switch {
	case s.Count == nil:
		errs = append(errs, field.Required(path.Child("count"), "the node count of this gpuStack Managed pool (0 to "+fmt.Sprint(MaxPoolCount)+"): "+noAutoscaler+", so the pool runs exactly count nodes; change count to scale it"))
	case *s.Count < 0 || *s.Count > MaxPoolCount:
		errs = append(errs, field.Invalid(path.Child("count"), "%d is out of range; use 0 to %d nodes", *s.Count, MaxPoolCount))
	}
	if s.MinCount != nil {
		errs = append(errs, field.Forbidden(path.Child("minCount"), "is not allowed on a gpuStack Managed pool: %s; remove minCount and set count", noAutoscaler))
	}
	if s.MaxCount != 0 {
		errs = append(errs, field.Forbidden(path.Child("maxCount"), "is not allowed on a gpuStack Managed pool: %s; remove maxCount and set count", noAutoscaler))
	}
	return errs
}

// validateOSSKU checks the pool's OS SKU against the GPU stack modes that
// support it. Sources:
//
//   - DriverOnly accepts AzureLinux: "Use GPUs for compute-intensive
//     workloads on AKS" (https://learn.microsoft.com/azure/aks/use-nvidia-gpu)
//     documents Azure Linux GPU node pools, with the limitation that
//     automatic security patches are not applied to them (the node OS
//     upgrade channel of the API version decides; see the README).
//   - None refuses it: the pool runs the NVIDIA GPU Operator, which "isn't
//     compatible with multiple OS versions on the same AKS cluster" ("Use
//     the NVIDIA GPU Operator on AKS",
//     https://learn.microsoft.com/azure/aks/nvidia-gpu-operator), and
//     aksml's system and CPU pools run Ubuntu. (Plain Azure Linux is not in
//     that page's list of unsupported OS options, which names Windows,
//     Flatcar and Azure Linux with OS Guard.)
//   - Managed accepts it: "Create a fully managed GPU node pool on AKS
//     (preview)" (https://learn.microsoft.com/azure/aks/aks-managed-gpu-nodes)
//     creates managed GPU pools on the Ubuntu default SKU and, in its own tab,
//     on an Azure Linux node pool (`--os-sku AzureLinux` with
//     `--enable-managed-gpu`); aksml sends Managed pools with
//     2026-02-02-preview, whose OSSKU enum has AzureLinux. (Until issue 34
//     aksml refused it because an earlier reading of the page found no
//     Azure Linux support; the page of the API version aksml sends wins over
//     that reading.)
//
// No document found lists GPU VM sizes that Azure Linux does or does not
// support, so no size is refused for it (NV-series sizes are refused for
// every OS).
func (s Spec) validateOSSKU(path field.Path) field.ErrorList {
	if s.OSSKU == "" {
		return nil
	}
	if !slices.Contains(OSSKUs, s.OSSKU) {
		return field.ErrorList{field.NotSupported(path, s.OSSKU, OSSKUs)}
	}
	if s.OSSKU != OSSKUAzureLinux {
		return nil
	}
	switch s.GPUStack {
	case GPUStackNone:
		return field.ErrorList{field.Forbidden(path, "AzureLinux is not accepted on a gpuStack None pool: the NVIDIA GPU Operator such a pool runs is not compatible with several OS versions in one AKS cluster, and aksml's system and CPU pools run Ubuntu; use osSku Ubuntu (the default), or gpuStack DriverOnly or Managed for Azure Linux GPU nodes")}
	}
	return nil
}

func orNone(p MIGProfile) MIGProfile {
	if p == "" {
		return "MIG"
	}
	return p
}

// ValidatePools validates each pool and checks that names are unique: the
// errors of Resolve, for callers that only check.
func ValidatePools(pools []Spec, path field.Path) field.ErrorList {
	_, errs := Resolve(pools, path)
	return errs
}
