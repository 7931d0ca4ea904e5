package rules

import (
	"fmt"
	"strings"

	"github.com/aksml/aksml/components/gpupool"
)

// gpuTaint is the taint every GPU pool carries (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops); SPEC C2).
var gpuTaint = gpupool.GPUTaintKey + "=" + gpupool.GPUTaintValue + ":" + gpupool.GPUTaintEffect

// perGPUPool adapts a check over one GPU pool to a Rule.Resource function:
// it runs over every GPU pool the resource declares.
func perGPUPool(check func(p Pool, s *Stack) []string) func(Resource, *Stack) []string {
	return func(r Resource, s *Stack) []string {
		var out []string
		for _, p := range poolsOf(r) {
			if p.IsGPU() {
				out = append(out, check(p, s)...)
			}
		}
		return out
	}
}

// hasTaint reports whether taints (key=value:Effect) hold key=value:effect,
// ignoring spaces.
func hasTaint(taints []string, want string) bool {
	for _, t := range taints {
		if strings.ReplaceAll(t, " ", "") == want {
			return true
		}
	}
	return false
}

var ruleGPUTaint = Rule{
	ID:       "AKSML-GPU-001",
	Title:    "GPU node pools carry the sku=gpu:NoSchedule taint",
	Severity: Mandatory,
	Source:   "SPEC C2.2 (GPU node pools: always taint GPU nodes with NoSchedule); " + srcMLOps + ": GPU node pool",
	Resource: perGPUPool(func(p Pool, _ *Stack) []string {
		if hasTaint(p.Taints, gpuTaint) || p.IsUnknown("nodeTaints") {
			return nil
		}
		return []string{fmt.Sprintf("%s (%s) has no %s taint; add %q to nodeTaints so that ordinary pods stay off the GPU nodes", p.Describe(), p.VMSize, gpuTaint, gpuTaint)}
	}),
}

var ruleGPUMinCountIntermittent = Rule{
	ID:       "AKSML-GPU-002",
	Title:    "GPU node pools of intermittent (non-prod) stacks scale to zero (minCount 0)",
	Severity: Mandatory,
	Source:   "SPEC C2.2 (GPU node pools, common mistakes: min-count > 0 for intermittent workloads)",
	Resource: perGPUPool(func(p Pool, s *Stack) []string {
		if isProd(s) {
			return nil
		}
		if p.IsManaged() && !p.AutoScaling {
			// AKS-managed GPU pools have no autoscaler: count is what runs.
			if p.Count == nil || *p.Count == 0 {
				return nil
			}
			return []string{fmt.Sprintf("%s is an AKS-managed GPU pool with count %d in the intermittent stack %q and no autoscaler, so its nodes bill 24/7; set count 0 while it is idle, or use a DriverOnly pool that scales to zero", p.Describe(), *p.Count, s.Name)}
		}
		if p.MinCount == nil || *p.MinCount == 0 {
			return nil
		}
		return []string{fmt.Sprintf("%s has minCount %d in the intermittent stack %q; set minCount 0 so that idle GPU nodes scale to zero instead of billing 24/7", p.Describe(), *p.MinCount, s.Name)}
	}),
}

var ruleGPUAutoscaler = Rule{
	ID:       "AKSML-GPU-003",
	Title:    "GPU node pools (other than AKS-managed ones, see AKSML-ARM-003) use the cluster autoscaler with an explicit maxCount",
	Severity: Mandatory,
	Source:   "SPEC C2.2 (GPU node pools: `--enable-cluster-autoscaler --min-count 0 --max-count`); " + srcMLOps + ": cluster autoscaler section",
	Resource: perGPUPool(func(p Pool, _ *Stack) []string {
		if p.IsManaged() {
			// The autoscaler is not supported on AKS-managed GPU pools
			// (preview); AKSML-ARM-003 checks their explicit count.
			return nil
		}
		var out []string
		if !p.AutoScaling && !p.IsUnknown("enableAutoScaling") {
			out = append(out, fmt.Sprintf("%s does not enable the cluster autoscaler; set enableAutoScaling true with minCount 0 so that GPU nodes come and go with pending GPU pods", p.Describe()))
		}
		if p.MaxCount == nil && !p.IsUnknown("maxCount") {
			out = append(out, fmt.Sprintf("%s has no maxCount; set an explicit maxCount so that GPU spend has a ceiling", p.Describe()))
		}
		return out
	}),
}

var ruleGPUSpotInference = Rule{
	ID:       "AKSML-GPU-004",
	Title:    "Spot GPU node pools never serve real-time inference",
	Severity: Mandatory,
	Source:   "SPEC C2.5 (GPU node pools, spot table: never use spot for inference serving)",
	Resource: perGPUPool(func(p Pool, _ *Stack) []string {
		if !p.IsSpot() {
			return nil
		}
		for _, k := range sortedKeys(p.Labels) {
			if p.Labels[k] == string(gpupool.WorkloadInference) {
				return []string{fmt.Sprintf("%s is a spot pool labelled %s=%s; evictions make real-time inference unavailable: serve inference from a Regular pool and keep spot for checkpointed training, fine-tuning and batch inference", p.Describe(), k, p.Labels[k])}
			}
		}
		return nil
	}),
}

var ruleGPUSpotMinCount = Rule{
	ID:       "AKSML-GPU-005",
	Title:    "Spot GPU node pools scale to zero (minCount 0)",
	Severity: Mandatory,
	Source:   "SPEC C2.5 (GPU node pools: spot pool `--min-count 0`)",
	Resource: perGPUPool(func(p Pool, _ *Stack) []string {
		if !p.IsSpot() || p.MinCount == nil || *p.MinCount == 0 {
			return nil
		}
		return []string{fmt.Sprintf("%s is a spot pool with minCount %d; set minCount 0: spot capacity is for interruptible work that can wait for a node, not for capacity kept warm", p.Describe(), *p.MinCount)}
	}),
}

var ruleGPUSpotEviction = Rule{
	ID:       "AKSML-GPU-006",
	Title:    "Spot GPU node pools use eviction policy Delete and max price -1",
	Severity: Advisory,
	Source:   "SPEC C2.5 (GPU node pools: spot pool `--eviction-policy Delete --spot-max-price -1`)",
	Resource: perGPUPool(func(p Pool, _ *Stack) []string {
		if !p.IsSpot() {
			return nil
		}
		var out []string
		if p.EvictionPolicy != "" && !strings.EqualFold(p.EvictionPolicy, "Delete") {
			out = append(out, fmt.Sprintf("%s evicts with %s; use scaleSetEvictionPolicy Delete so that evicted nodes release their disks and quota", p.Describe(), p.EvictionPolicy))
		}
		if p.SpotMaxPrice != nil && *p.SpotMaxPrice != -1 {
			out = append(out, fmt.Sprintf("%s caps the spot price at %g; use spotMaxPrice -1 (pay up to the on-demand price) so that nodes are not evicted on price", p.Describe(), *p.SpotMaxPrice))
		}
		return out
	}),
}

var ruleGPUMIGSKU = Rule{
	ID:       "AKSML-GPU-007",
	Title:    "MIG is only configured on MIG-capable GPU sizes (A100, H100)",
	Severity: Mandatory,
	Source:   srcMLOps + ", \"Partition A100 and H100 GPUs with MIG\"; " + srcManagedGPU + ": migStrategy; SPEC C2.4",
	Resource: perGPUPool(func(p Pool, _ *Stack) []string {
		sku, known := gpupool.LookupSKU(p.VMSize)
		if !p.MIGEnabled() || !known || sku.MIGCapable {
			return nil
		}
		what := p.GPUInstanceProfile
		if what == "" {
			what = "migStrategy " + p.MIGStrategy
		}
		return []string{fmt.Sprintf("%s sets MIG (%s) on %s (%s), which is not MIG-capable; use an A100 or H100 size such as Standard_NC24ads_A100_v4, or remove the MIG setting", p.Describe(), what, p.VMSize, sku.GPUModel)}
	}),
}

var ruleGPUVisualisation = Rule{
	ID:       "AKSML-GPU-008",
	Title:    "GPU node pools do not use NV-series (visualisation-only) sizes",
	Severity: Mandatory,
	Source:   "SPEC C2.1 (GPU node pools, VM families: NV v3 M60 is visualization only, not for ML/AI)",
	Resource: perGPUPool(func(p Pool, _ *Stack) []string {
		if !gpupool.IsVisualisationOnly(p.VMSize) {
			return nil
		}
		return []string{fmt.Sprintf("%s uses %s, an NV-series size for visualisation only; use an NC or ND size such as Standard_NC24ads_A100_v4 (or Standard_NC4as_T4_v3 for dev)", p.Describe(), p.VMSize)}
	}),
}

var ruleGPUSystemMode = Rule{
	ID:       "AKSML-GPU-009",
	Title:    "GPU node pools are User-mode pools",
	Severity: Mandatory,
	Source:   srcMLOps + ": `az aks nodepool add --mode User`; SPEC C2.2",
	Resource: perGPUPool(func(p Pool, _ *Stack) []string {
		if !strings.EqualFold(p.Mode, "System") {
			return nil
		}
		return []string{fmt.Sprintf("%s is a System pool; make it mode User: system pools host critical add-ons and cannot scale to zero", p.Describe())}
	}),
}

var ruleGPULabels = Rule{
	ID:       "AKSML-GPU-010",
	Title:    "GPU node pools carry the accelerator=nvidia and workload=<class> labels",
	Severity: Advisory,
	Source:   srcMLOps + ": `--labels accelerator=nvidia workload=training`; SPEC C2.2 (GPU node pools: `--labels workload=gpu`)",
	Resource: perGPUPool(func(p Pool, _ *Stack) []string {
		if p.IsUnknown("nodeLabels") {
			return nil
		}
		var missing []string
		if p.Labels[gpupool.AcceleratorLabel] != gpupool.AcceleratorValue {
			missing = append(missing, gpupool.AcceleratorLabel+"="+gpupool.AcceleratorValue)
		}
		if p.Labels[gpupool.WorkloadLabel] == "" {
			missing = append(missing, gpupool.WorkloadLabel+"=<training|fine-tuning|batch-inference|inference|gpu-spot>")
		}
		if len(missing) == 0 {
			return nil
		}
		return []string{fmt.Sprintf("%s lacks the node label(s) %s; add them to nodeLabels so that workloads and Kueue flavors can select the pool", p.Describe(), strings.Join(missing, ", "))}
	}),
}

var ruleGPUZones = Rule{
	ID:       "AKSML-GPU-011",
	Title:    "Production GPU node pools name their availability zones",
	Severity: Advisory,
	Source:   "SPEC C2 (GPU node pools, common mistakes: forgetting availability zones); SPEC C9 (prod zones 1-3)",
	Resource: perGPUPool(func(p Pool, s *Stack) []string {
		if !isProd(s) || len(p.Zones) > 0 || p.IsUnknown("availabilityZones") {
			return nil
		}
		return []string{fmt.Sprintf("%s has no availability zones in production stack %q; set availabilityZones (e.g. 1, 2, 3) after checking the size's zonal availability in the region", p.Describe(), s.Name)}
	}),
}

var ruleGPUInferenceWarm = Rule{
	ID:       "AKSML-GPU-012",
	Title:    "Production inference GPU node pools keep at least one node (no scale to zero)",
	Severity: Advisory,
	Source:   srcMLOps + ": keep a non-zero minimum when start-up latency matters; SPEC C2.2",
	Resource: perGPUPool(func(p Pool, s *Stack) []string {
		if !isProd(s) || p.Labels[gpupool.WorkloadLabel] != string(gpupool.WorkloadInference) {
			return nil
		}
		const why = "the first request after an idle period would wait for a GPU VM to be provisioned, the image pulled and the model loaded"
		if p.IsManaged() && !p.AutoScaling {
			// AKS-managed GPU pools have no autoscaler: count is what runs.
			if p.Count == nil || *p.Count > 0 {
				return nil
			}
			return []string{fmt.Sprintf("%s is an AKS-managed inference pool with count 0 in production stack %q: %s; set count 1 or more, or accept the cold start knowingly", p.Describe(), s.Name, why)}
		}
		if p.IsUnknown("minCount") || (p.MinCount != nil && *p.MinCount > 0) {
			return nil
		}
		return []string{fmt.Sprintf("%s serves inference in production stack %q and scales to zero (minCount 0): %s; set minCount 1 or more (the aksml default for prod inference pools), or accept the cold start knowingly", p.Describe(), s.Name, why)}
	}),
}
