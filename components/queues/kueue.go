package queues

import (
	"fmt"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/vocab"
)

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
// SPEC C2), never to one that did not ask for spot.
//
// GPU flavors sit in resource groups that cover only GPU resources (see
// clusterQueueSpec), so a workload that requests no GPU never reaches them,
// and the injected GPU toleration cannot put CPU-only pods on GPU nodes.
func resourceFlavorSpec(pool gpupool.Resolved) map[string]any {
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

// clusterQueueSpec is the spec of the team's ClusterQueue (AKS MLOps best practices team-a-gpu,
// in the v1beta2 field names).
//
// Resource groups: one per GPU resource (nvidia.com/gpu, and each MIG
// resource) whose flavors are the pools the team lists, in teamPools order,
// with nominalQuota from gpuQuota and the team's borrowing/lending limits;
// then one group for cpu and memory with the CPU flavor and the team's cpu
// and memory quota and limits. Kueue lets a resource and a flavor belong to
// one group only, so GPU work is charged GPUs on its pool's flavor and
// cpu/memory on the CPU flavor, and CPU-only work never touches a GPU
// flavor.
//
// Preemption is the team's (Preemption; defaults withinClusterQueue
// LowerPriority, reclaimWithinCohort Any, borrowWithinCohort Never).
// flavorFungibility tries the next flavor before borrowing or preempting, so
// a team uses its own quota on every flavor before it takes another team's.
//
// admissionChecksStrategy puts the ProvisioningRequest admission check on the
// flavors of the pools in sched.Provisioning (admissionChecksStrategy).
func clusterQueueSpec(t Team, pools []gpupool.Resolved, sched SchedulerSpec) map[string]any {
	groups := gpuGroups(teamPools(t, pools), pools, func(p gpupool.Resolved, r string) map[string]any { return gpuQuota(t, p.Name, r) })
	groups = append(groups, cpuGroup(
		withLimits(map[string]any{"name": CPUResource, "nominalQuota": t.CPU}, t.CPUBorrowingLimit, t.CPULendingLimit),
		withLimits(map[string]any{"name": MemoryResource, "nominalQuota": t.Memory}, t.MemoryBorrowingLimit, t.MemoryLendingLimit),
	))
	spec := map[string]any{
		"namespaceSelector": map[string]any{"matchLabels": map[string]any{NamespaceNameLabel: t.Name}},
		"queueingStrategy":  QueueingStrategy,
		"cohortName":        sched.Cohort,
		"resourceGroups":    groups,
		"flavorFungibility": map[string]any{"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor"},
		"preemption":        t.Preemption.spec(),
		"fairSharing":       map[string]any{"weight": strconv.Itoa(t.Weight)},
	}
	if checks := admissionChecksStrategy(sched, t, pools); checks != nil {
		spec["admissionChecksStrategy"] = checks
	}
	return spec
}

// gpuGroups are the GPU resource groups of a ClusterQueue: one per GPU
// resource of pools, listing the flavors of mine (in order) that offer it,
// each with quota(pool, resource).
func gpuGroups(mine, pools []gpupool.Resolved, quota func(gpupool.Resolved, string) map[string]any) []any {
	var groups []any
	for _, r := range gpuResources(pools) {
		var flavors []any
		for _, p := range mine {
			if p.GPUResource == r {
				flavors = append(flavors, flavorQuota(FlavorName(p.Name), quota(p, r)))
			}
		}
		if len(flavors) > 0 {
			groups = append(groups, map[string]any{"coveredResources": []any{r}, "flavors": flavors})
		}
	}
	return groups
}

// flavorQuota is one flavor of a resource group with its resources' quota.
func flavorQuota(flavor string, resources ...map[string]any) map[string]any {
	rs := make([]any, len(resources))
	for i, r := range resources {
		rs[i] = r
	}
	return map[string]any{"name": flavor, "resources": rs}
}

// cpuGroup is the resource group of cpu and memory on the CPU flavor.
func cpuGroup(cpu, memory map[string]any) map[string]any {
	return map[string]any{
		"coveredResources": []any{CPUResource, MemoryResource},
		"flavors":          []any{flavorQuota(CPUFlavorName, cpu, memory)},
	}
}

// withLimits adds borrowingLimit and lendingLimit to a quota entry when set.
func withLimits(q map[string]any, borrowing, lending string) map[string]any {
	if borrowing != "" {
		q["borrowingLimit"] = borrowing
	}
	if lending != "" {
		q["lendingLimit"] = lending
	}
	return q
}

func itoa(n int) string { return strconv.Itoa(n) }

// gpuQuota is the team's quota entry for resource r on the pool's flavor.
func gpuQuota(t Team, pool, r string) map[string]any {
	q := map[string]any{"name": r, "nominalQuota": itoa(t.GPUQuota[pool])}
	if t.BorrowingLimit != nil {
		q["borrowingLimit"] = itoa(*t.BorrowingLimit)
	}
	if t.LendingLimit != nil {
		q["lendingLimit"] = itoa(lendable(t, pool))
	}
	return q
}

// localQueueSpec points the team's `gpu-queue`, and its `default`
// LocalQueue (DefaultLocalQueueName), at its ClusterQueue. The team's
// ClusterQueue is the only one either may name: it is the queue whose
// quota the team's own labelled Jobs use, and it lists a flavor for every
// pool the team has quota on (gpuQuota), so a queue-less Job of the team
// (such as the tuning Job KAITO creates for a FineTuningWorkspace on one
// of the team's pools) is admitted there within the team's nominal quota
// and borrowing limit, on the flavor its node affinity selects, exactly
// as if it carried `gpu-queue`. Pointing `default` anywhere else (a
// lender's queue, another team's) would give queue-less Jobs capacity the
// team's labelled Jobs do not have.
func localQueueSpec(t Team) map[string]any {
	return map[string]any{"clusterQueue": ClusterQueueName(t.Name)}
}

// FairSharingPreemptionStrategies are Kueue's default fair-sharing
// preemption strategies, written out ("Fair Sharing",
// https://kueue.sigs.k8s.io/docs/concepts/fair_sharing/): a team preempts
// another team's workload only if, with its new workload, its share stays
// at or below the other team's share without the preempted workload; if
// that frees too little, only while its share stays below the other's.
var FairSharingPreemptionStrategies = []string{"LessThanOrEqualToFinalShare", "LessThanInitialShare"}

// kueueValues are the Helm values aksml installs Kueue with: the upstream
// controller configuration plus every job through the queue in the team
// namespaces (manageJobsWithoutQueueName true, managedJobsNamespaceSelector
// on the team label: a Job without the queue label in a team namespace is
// managed all the same, queued in the namespace's `default` LocalQueue
// (DefaultLocalQueueName), which Kueue's webhook names it; with no such
// LocalQueue it would stay suspended for ever; Jobs in namespaces without the label,
// the platform's, stay unmanaged; Kueue Configuration v1beta2 API,
// https://kueue.sigs.k8s.io/docs/reference/kueue-config.v1beta2/), the
// selected job integrations, fair sharing
// unless turned off (so the teams' weights take effect) and waitForPodsReady (all-or-nothing
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
		"manageJobsWithoutQueueName": true,
		"managedJobsNamespaceSelector": map[string]any{"matchExpressions": []any{
			map[string]any{"key": vocab.TeamLabel, "operator": "Exists"},
		}},
		"waitForPodsReady": map[string]any{"timeout": PodsReadyTimeout, "blockAdmission": false},
		"integrations":     map[string]any{"frameworks": s.KueueIntegrations},
	}
	if s.FairSharingEnabled() {
		config["fairSharing"] = map[string]any{"preemptionStrategies": FairSharingPreemptionStrategies}
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
