package queues

import (
	"strconv"

	"github.com/aksml/aksml/components/gpupool"
)

// volcanoQueueSpec is the spec of the team's Volcano Queue (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) "Use Volcano as an alternative"). Volcano has no flavors: a queue caps resources
// cluster-wide.
//
//   - capability (the hard cap): the team's cpu and memory, and per GPU
//     resource AdmissibleGPUs (nominal quota plus what it may borrow);
//   - deserved (the share the team gets back when it reclaims): its cpu,
//     memory and nominal GPU quota;
//   - reclaimable true: idle quota is lent and reclaimed when the owner needs it;
//   - weight: the team's share when teams compete (proportion plugin).
func volcanoQueueSpec(t Team, teams []Team, pools []gpupool.Resolved) map[string]any {
	capability := map[string]any{CPUResource: t.CPU, MemoryResource: t.Memory}
	for r, n := range AdmissibleGPUs(t, teams, nil, pools, SystemVolcano) {
		capability[r] = strconv.Itoa(n)
	}
	deserved := map[string]any{CPUResource: t.CPU, MemoryResource: t.Memory}
	nominal := nominalByResource(t, pools)
	for _, r := range gpuResources(pools) {
		deserved[r] = strconv.Itoa(nominal[r])
	}
	return map[string]any{
		"weight":      t.Weight,
		"reclaimable": true,
		"capability":  capability,
		"deserved":    deserved,
	}
}

// volcanoValues are the Helm values aksml installs Volcano with: a
// toleration so its scheduler, controllers and admission webhook can run on
// an AKS system pool. The caller's VolcanoChartValues are merged over them.
func volcanoValues(s SchedulerSpec) map[string]any {
	values := map[string]any{
		"custom": map[string]any{"default_tolerations": []any{criticalAddonsToleration}},
	}
	return mergeValues(values, s.VolcanoChartValues)
}
