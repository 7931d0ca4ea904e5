package stacks_test

// Explicit values replaced by a default (issue 12, silent replacements):
// every section's Default treats "" and 0 (and an empty list) as unset, so
// a value written as such would quietly become the default. Each is refused
// naming its key; the fix is to remove the key or write the wanted value.

func explicitCases() []adversarialCase {
	const fix = "remove the key to take the default"
	explicit := func(name, setPath, path string, v any) adversarialCase {
		return adversarialCase{name: name, class: "silent-replace", path: path, fix: fix, mutate: func(c config) { c.set(setPath, v) }}
	}
	pytorch := func(set func(w map[string]any)) func(c config) {
		return withWorkload(gang("PyTorchJob", "t4", 1), set)
	}
	return []adversarialCase{
		explicit("environment written empty", "environment", "aksml:environment", ""),
		explicit("system pool maxCount 0", "cluster.systemPool", "aksml:cluster.systemPool.maxCount", map[string]any{"maxCount": 0}),
		explicit("CPU pool OS disk 0", "cluster.cpuPool", "aksml:cluster.cpuPool.osDiskSizeGB", map[string]any{"osDiskSizeGB": 0}),
		explicit("tier written empty", "cluster.tier", "aksml:cluster.tier", ""),
		explicit("upgrade channel written empty", "cluster.upgradeChannel", "aksml:cluster.upgradeChannel", ""),
		explicit("maintenance window of 0 hours", "cluster.maintenanceWindow", "aksml:cluster.maintenanceWindow.durationHours",
			map[string]any{"dayOfWeek": "Sunday", "startTime": "02:00", "durationHours": 0}),
		explicit("address space written empty", "network.addressSpace", "aksml:network.addressSpace", ""),
		explicit("GPU pool OS disk 0", "gpuPools.0.osDiskSizeGB", "aksml:gpuPools[0].osDiskSizeGB", 0),
		explicit("team weight 0", "teams.0.weight", "aksml:teams[0].weight", 0),
		explicit("team pod security written empty", "teams.0.podSecurity", "aksml:teams[0].podSecurity", ""),
		explicit("cohort written empty", "scheduler.cohort", "aksml:scheduler.cohort", ""),
		explicit("overcommit ratio 0", "scheduler.overcommitRatio", "aksml:scheduler.overcommitRatio", 0),
		explicit("no priorities", "scheduler.priorities", "aksml:scheduler.priorities", []any{}),
		explicit("no Kueue integrations", "scheduler.kueueIntegrations", "aksml:scheduler.kueueIntegrations", []any{}),
		explicit("GPU idle threshold 0", "observability.gpuIdleThresholdPercent", "aksml:observability.gpuIdleThresholdPercent", 0),
		explicit("GPU stack namespace written empty", "gpuStack.namespace", "aksml:gpuStack.namespace", ""),
		explicit("scoring schedule written empty", "workloads.0.schedule", "aksml:workloads[0].schedule", ""),
		explicit("scoring priority written empty", "workloads.0.priority", "aksml:workloads[0].priority", ""),
		explicit("scoring shm size written empty", "workloads.0.shmSize", "aksml:workloads[0].shmSize", ""),
		{name: "PyTorchJob replicas 0", class: "silent-replace", path: "aksml:workloads[0].replicas", fix: "its default 2",
			mutate: pytorch(func(w map[string]any) { w["replicas"] = 0 })},
		{name: "TFJob workers 0", class: "silent-replace", path: "aksml:workloads[0].workers", fix: "its default 2",
			mutate: withWorkload(gang("TFJob", "t4", 1), func(w map[string]any) { w["workers"] = 0 })},
		{name: "NCCL debug written empty", class: "silent-replace", path: "aksml:workloads[0].nccl.debug", fix: "its default INFO",
			mutate: pytorch(func(w map[string]any) { w["nccl"] = map[string]any{"debug": ""} })},
		{name: "IndexedJob parallelism 0", class: "silent-replace", path: "aksml:workloads[0].parallelism", fix: fix,
			mutate: withWorkload(map[string]any{"kind": "IndexedJob", "name": "shards", "team": "team-a", "pool": "t4", "image": "busybox:1.36",
				"resources": map[string]any{"cpu": "3", "memory": "16Gi", "gpus": 1}, "completions": 2, "parallelism": 0}, nil)},
	}
}

// explicitAccepted are explicit values equal to the default, or zeros the
// components honour: they must be accepted.
func explicitAccepted() []acceptedCase {
	return []acceptedCase{
		{name: "explicit values equal to the defaults", mutate: func(c config) {
			c.set("cluster.tier", "Standard")
			c.set("scheduler.cohort", "aksml")
			c.set("teams.0.weight", 1)
			c.set("gpuPools.0.minCount", 0)
		}},
		{name: "explicit false and 0 where they mean something", mutate: func(c config) {
			c.set("teams.0.borrowingLimit", 0)
			c.set("gpuStack.dcgmExporter", false)
			c.set("workloads.0.shmSize", "0")
		}},
	}
}
