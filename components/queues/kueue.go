package queues

import (
	"fmt"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/aksml/aksml/components/gpupool"
)

// workloadPriorityClass is a Kueue WorkloadPriorityClass: the queue-side
// twin of a PriorityClass (seed 000: coordinate Kueue workload priority with
// Kubernetes pod priority so both express the same business priority).
type workloadPriorityClass struct {
	Name        string
	Value       int
	Description string
}

// workloadPriorityClasses are aligned with the PriorityClasses: same names,
// values and descriptions.
var workloadPriorityClasses = []workloadPriorityClass{
	{PriorityClassTrainingBatch, TrainingBatchValue, TrainingBatchDescription},
	{PriorityClassInferenceCritical, InferenceCriticalValue, InferenceCriticalDescription},
}

// toleration renders a taint as the toleration that tolerates exactly it.
func toleration(t gpupool.Taint) map[string]any {
	return map[string]any{"key": t.Key, "operator": "Equal", "value": t.Value, "effect": t.Effect}
}

// taint renders a taint as a Kubernetes core/v1 Taint.
func taint(t gpupool.Taint) map[string]any {
	return map[string]any{"key": t.Key, "value": t.Value, "effect": t.Effect}
}

// resourceFlavorSpec is the spec of a GPU pool's ResourceFlavor.
//
// nodeLabels pin the flavor to the pool's nodes (`accelerator=nvidia`, the
// pool's `workload` label and the AKS agentpool label); Kueue injects them
// as a nodeSelector into admitted pods, and only matches a workload's own
// nodeSelector against these keys, so `workload` is listed for a job that
// selects `workload=training` never to be admitted onto a spot pool
// (`workload=gpu-spot`) it could not schedule on. nodeTaints are every taint the pool's nodes carry: Kueue assigns the
// flavor only to workloads that tolerate them, counting the flavor's own
// tolerations. tolerations hold the GPU taint only, so admitted pods get
// `sku=gpu:NoSchedule` tolerated without writing it. The spot taint is in
// nodeTaints and never in tolerations: a spot flavor is therefore assigned
// only to workloads that tolerate eviction themselves (checkpointed training,
// seed 004), never to one that did not ask for spot.
//
// GPU flavors sit in resource groups that cover only GPU resources (see
// clusterQueueSpec), so a workload that requests no GPU never reaches them,
// and the injected GPU toleration cannot put CPU-only pods on GPU nodes.
func resourceFlavorSpec(pool gpupool.Spec) map[string]any {
	var nodeTaints []any
	for _, t := range pool.Taints() {
		if t.Effect == "NoSchedule" || t.Effect == "NoExecute" {
			nodeTaints = append(nodeTaints, taint(t))
		}
	}
	gpuTaint := gpupool.Taint{Key: gpupool.GPUTaintKey, Value: gpupool.GPUTaintValue, Effect: gpupool.GPUTaintEffect}
	return map[string]any{
		"nodeLabels": map[string]any{
			gpupool.AcceleratorLabel: gpupool.AcceleratorValue,
			gpupool.WorkloadLabel:    pool.Labels()[gpupool.WorkloadLabel],
			gpupool.AgentPoolLabel:   pool.Name,
		},
		"nodeTaints":  nodeTaints,
		"tolerations": []any{toleration(gpuTaint)},
	}
}

// cpuFlavorSpec is the spec of the CPU flavor: no labels, no taints, so it
// matches any schedulable node and adds nothing to admitted pods.
func cpuFlavorSpec() map[string]any { return map[string]any{} }

// clusterQueueSpec is the spec of the team's ClusterQueue (seed team-a-gpu,
// in the v1beta2 field names).
//
// Resource groups: one per GPU resource (nvidia.com/gpu, and each MIG
// resource) whose flavors are the pools the team lists, in teamPools order,
// with nominalQuota from gpuQuota and the team's borrowing/lending limits;
// then one group for cpu and memory with the CPU flavor and the team's cpu
// and memory quota. Kueue lets a resource and a flavor belong to one group
// only, so GPU work is charged GPUs on its pool's flavor and cpu/memory on
// the CPU flavor, and CPU-only work never touches a GPU flavor.
//
// Preemption: withinClusterQueue LowerPriority (inference-critical displaces
// training-batch inside a team); reclaimWithinCohort Any (a team always gets
// its nominal quota back from borrowers); borrowWithinCohort Never (a
// borrowing workload never preempts another team, and Kueue ignores the
// field under fair sharing, which aksml enables). flavorFungibility tries the
// next flavor before borrowing or preempting, so a team uses its own quota on
// every flavor before it takes another team's.
func clusterQueueSpec(t Team, pools []gpupool.Spec, cohort string) map[string]any {
	var groups []any
	mine := teamPools(t, pools)
	for _, r := range gpuResources(pools) {
		var flavors []any
		for _, p := range mine {
			if GPUResourceName(p) == r {
				flavors = append(flavors, map[string]any{
					"name":      FlavorName(p.Name),
					"resources": []any{gpuQuota(t, p.Name, r)},
				})
			}
		}
		if len(flavors) > 0 {
			groups = append(groups, map[string]any{"coveredResources": []any{r}, "flavors": flavors})
		}
	}
	groups = append(groups, map[string]any{
		"coveredResources": []any{CPUResource, MemoryResource},
		"flavors": []any{map[string]any{
			"name": CPUFlavorName,
			"resources": []any{
				map[string]any{"name": CPUResource, "nominalQuota": t.CPU},
				map[string]any{"name": MemoryResource, "nominalQuota": t.Memory},
			},
		}},
	})
	return map[string]any{
		"namespaceSelector": map[string]any{"matchLabels": map[string]any{NamespaceNameLabel: t.Name}},
		"queueingStrategy":  QueueingStrategy,
		"cohortName":        cohort,
		"resourceGroups":    groups,
		"flavorFungibility": map[string]any{"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor"},
		"preemption": map[string]any{
			"withinClusterQueue":  "LowerPriority",
			"reclaimWithinCohort": "Any",
			"borrowWithinCohort":  map[string]any{"policy": "Never"},
		},
		"fairSharing": map[string]any{"weight": strconv.Itoa(t.Weight)},
	}
}

// gpuQuota is the team's quota entry for resource r on the pool's flavor.
func gpuQuota(t Team, pool, r string) map[string]any {
	q := map[string]any{"name": r, "nominalQuota": strconv.Itoa(t.GPUQuota[pool])}
	if t.BorrowingLimit != nil {
		q["borrowingLimit"] = strconv.Itoa(*t.BorrowingLimit)
	}
	if t.LendingLimit != nil {
		q["lendingLimit"] = strconv.Itoa(lendable(t, pool))
	}
	return q
}

// localQueueSpec points the team's `gpu-queue` at its ClusterQueue.
func localQueueSpec(t Team) map[string]any {
	return map[string]any{"clusterQueue": ClusterQueueName(t.Name)}
}

// kueueValues are the Helm values aksml installs Kueue with: the upstream
// controller configuration plus the selected job integrations, fair sharing
// (so the teams' weights take effect) and waitForPodsReady (all-or-nothing
// admission: a workload whose pods are not all ready within PodsReadyTimeout
// gives its quota back and is requeued), and a toleration to run on an AKS
// system pool. The caller's KueueChartValues are merged over them.
func kueueValues(s SchedulerSpec) (map[string]any, error) {
	config := map[string]any{
		"apiVersion":     KueueConfigAPIVersion,
		"kind":           "Configuration",
		"health":         map[string]any{"healthProbeBindAddress": ":8081"},
		"metrics":        map[string]any{"bindAddress": ":8443"},
		"webhook":        map[string]any{"port": 9443},
		"leaderElection": map[string]any{"leaderElect": true, "resourceName": "c1f6bfd2.kueue.x-k8s.io"},
		"controller": map[string]any{"groupKindConcurrency": map[string]any{
			"Job.batch": 5, "Pod": 5, "Workload.kueue.x-k8s.io": 5,
			"LocalQueue.kueue.x-k8s.io": 1, "ClusterQueue.kueue.x-k8s.io": 1, "ResourceFlavor.kueue.x-k8s.io": 1,
		}},
		"clientConnection":           map[string]any{"qps": 50, "burst": 100},
		"manageJobsWithoutQueueName": false,
		"waitForPodsReady":           map[string]any{"timeout": PodsReadyTimeout, "blockAdmission": false},
		"integrations":               map[string]any{"frameworks": s.KueueIntegrations},
		"fairSharing":                map[string]any{"preemptionStrategies": []string{"LessThanOrEqualToFinalShare", "LessThanInitialShare"}},
	}
	raw, err := yaml.Marshal(config)
	if err != nil {
		return nil, fmt.Errorf("rendering the Kueue configuration: %w", err)
	}
	values := map[string]any{
		"controllerManager": map[string]any{"tolerations": []any{criticalAddonsToleration}},
		"managerConfig":     map[string]any{"controllerManagerConfigYaml": string(raw)},
	}
	return mergeValues(values, s.KueueChartValues), nil
}

// mergeValues returns base with override merged over it: maps merge key by
// key, any other value replaces. Neither input is modified.
func mergeValues(base, override map[string]any) map[string]any {
	out := make(map[string]any, len(base))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range override {
		bm, bok := out[k].(map[string]any)
		om, ook := v.(map[string]any)
		if bok && ook {
			out[k] = mergeValues(bm, om)
		} else {
			out[k] = v
		}
	}
	return out
}
