package stacks_test

// Work that can never be admitted or scheduled (issue 12): requests at or
// above a node's allocatable, gangs larger than their pool or than what the
// team can ever be admitted, jobs on a pool their team has no quota on, and
// CPU pods on a cluster without an untainted pool. The base config's pools
// are Standard_NC4as_T4_v3 (4 vCPUs, 28 GiB; allocatable 3860m and 23522Mi)
// t4 (maxCount 2) and t4spot (maxCount 4); the CPU pool is
// Standard_D8ds_v5.

// gpuJob is a CheckpointedJob of team on pool with gpus GPUs.
func gpuJob(team, pool string, gpus int) map[string]any {
	return map[string]any{"kind": "CheckpointedJob", "name": "job", "team": team, "pool": pool, "image": "busybox:1.36",
		"resources": map[string]any{"cpu": "3", "memory": "16Gi", "gpus": gpus}}
}

// gang is a distributed training workload of team-a on pool: kind
// PyTorchJob (replicas) or TFJob (workers), n pods of one GPU.
func gang(kind, pool string, n int) map[string]any {
	w := map[string]any{"kind": kind, "name": "gang", "team": "team-a", "pool": pool, "image": "busybox:1.36",
		"resources": map[string]any{"cpu": "3", "memory": "16Gi", "gpus": 1}}
	if kind == "TFJob" {
		w["workers"] = n
	} else {
		w["replicas"] = n
	}
	return w
}

// scoring is a CPU-only ScheduledScoring of team-a.
func scoring(cpu string) map[string]any {
	return map[string]any{"kind": "ScheduledScoring", "name": "score", "team": "team-a", "image": "busybox:1.36",
		"schedule": "0 2 * * *", "resources": map[string]any{"cpu": cpu, "memory": "4Gi"}}
}

// withWorkload replaces the workloads by w (changed by set, if given) and
// enables the Training Operator the Kubeflow kinds need.
func withWorkload(w map[string]any, set func(w map[string]any)) func(c config) {
	return func(c config) {
		if set != nil {
			set(w)
		}
		c.set("workloads", []any{w})
		c.set("trainingOperator", map[string]any{"enabled": true})
	}
}

func resourcesOf(w map[string]any) map[string]any { return w["resources"].(map[string]any) }

// then runs the mutations in order.
func then(fs ...func(c config)) func(c config) {
	return func(c config) {
		for _, f := range fs {
			f(c)
		}
	}
}

func schedulabilityCases() []adversarialCase {
	sched := func(name string, mutate func(c config), path, fix string) adversarialCase {
		return adversarialCase{name: name, class: "schedulability", mutate: mutate, path: path, fix: fix}
	}
	a100 := func(c config) {
		c.set("gpuPools", append(c["gpuPools"].([]any), map[string]any{"name": "a100spot", "vmSize": "Standard_NC24ads_A100_v4", "workload": "training", "priority": "Spot", "maxCount": 2}))
		c.set("teams.0.gpuQuota.a100spot", 1)
	}
	return []adversarialCase{
		sched("cpu equal to the T4 VM's vCPUs", withWorkload(gpuJob("team-a", "t4", 1), func(w map[string]any) { resourcesOf(w)["cpu"] = "4" }),
			"aksml:workloads[0].resources.cpu", "request less than 3860m"),
		sched("cpu equal to T4 allocatable", withWorkload(gpuJob("team-a", "t4", 1), func(w map[string]any) { resourcesOf(w)["cpu"] = "3860m" }),
			"aksml:workloads[0].resources.cpu", "or use a larger VM size"),
		sched("memory equal to the T4 VM's", withWorkload(gpuJob("team-a", "t4", 1), func(w map[string]any) { resourcesOf(w)["memory"] = "28Gi" }),
			"aksml:workloads[0].resources.memory", "request less than 23522Mi"),
		sched("memory above the A100 VM's", then(a100, withWorkload(gpuJob("team-a", "a100spot", 1), func(w map[string]any) { resourcesOf(w)["memory"] = "221Gi" })),
			"aksml:workloads[0].resources.memory", "or use a larger VM size"),
		sched("cpu of a CPU job equal to the CPU pool's vCPUs", withWorkload(scoring("8"), nil),
			"aksml:workloads[0].resources.cpu", "can never be scheduled on a Standard_D8ds_v5 node"),
		sched("PyTorchJob gang above the pool", withWorkload(gang("PyTorchJob", "t4", 3), nil),
			"aksml:workloads[0].replicas", "holds 2 at most (maxCount 2); lower the replicas or GPUs, or raise aksml:gpuPools[0].maxCount"),
		sched("TFJob gang above the spot pool", withWorkload(gang("TFJob", "t4spot", 5), nil),
			"aksml:workloads[0].replicas", "raise aksml:gpuPools[1].maxCount"),
		sched("IndexedJob parallel shards above the pool", withWorkload(map[string]any{"kind": "IndexedJob", "name": "shards", "team": "team-a", "pool": "t4", "image": "busybox:1.36",
			"resources": map[string]any{"cpu": "3", "memory": "16Gi", "gpus": 1}, "completions": 3}, nil),
			"aksml:workloads[0].resources.gpus", "holds 2 at most"),
		sched("job on a managed pool at count 0", then(func(c config) {
			c.set("gpuPools", append(c["gpuPools"].([]any), map[string]any{"name": "t4mgd", "vmSize": "Standard_NC4as_T4_v3", "workload": "training", "gpuStack": "Managed", "count": 0}))
		}, withWorkload(gpuJob("team-a", "t4mgd", 1), nil)),
			"aksml:workloads[0].resources.gpus", "raise aksml:gpuPools[2].count"),
		sched("gang above nominal + borrowing", then(func(c config) { c.set("teams.0.borrowingLimit", 0) }, withWorkload(gang("PyTorchJob", "t4", 2), nil)),
			"aksml:workloads[0]", `team "team-a" can be admitted at most 1 there (nominal 1 + borrowing 0)`),
		sched("spot gang above what the team can borrow", then(func(c config) { c.set("teams.0.borrowingLimit", 1) }, withWorkload(gang("PyTorchJob", "t4spot", 4), nil)),
			"aksml:workloads[0]", "raise aksml:teams[0].gpuQuota.t4spot or its borrowingLimit"),
		sched("job on a pool the team has no quota on", then(func(c config) { c.set("teams.1.gpuQuota", map[string]any{"t4": 1}) }, withWorkload(gpuJob("team-b", "t4spot", 1), nil)),
			"aksml:workloads[0].pool", "add aksml:teams[1].gpuQuota.t4spot (0 to only borrow), or choose a pool the team lists (t4)"),
		sched("Volcano team without GPUs of the resource", then(func(c config) {
			c.set("scheduler", map[string]any{"system": "volcano"})
			c.set("teams.0.gpuQuota", map[string]any{})
			c.set("teams.0.borrowingLimit", 0)
		}, withWorkload(gpuJob("team-a", "t4", 1), nil)),
			"aksml:workloads[0]", "may hold at most 0 (its ResourceQuota); lower the replicas or GPUs, or raise aksml:teams[0].gpuQuota"),
		sched("CPU job with the CPU pool disabled", then(func(c config) { c.set("cluster.cpuPool", map[string]any{"disabled": true}) }, withWorkload(scoring("2"), nil)),
			"aksml:workloads[0]", "enable the CPU pool, or run the workload on a GPU pool"),
		sched("CPU checkpointed job with the CPU pool disabled", then(func(c config) { c.set("cluster.cpuPool", map[string]any{"disabled": true}) },
			withWorkload(gpuJob("team-a", "", 0), func(w map[string]any) { delete(w, "pool") })),
			"aksml:workloads[0]", "without an untainted pool"),
	}
}

// schedulableCases are near the limits above and must be accepted (and
// pass the guardrails, AKSML-SCH-* and AKSML-QUE-005/006 included).
func schedulableCases() []acceptedCase {
	return []acceptedCase{
		{name: "cpu just below T4 allocatable", mutate: withWorkload(gpuJob("team-a", "t4", 1), func(w map[string]any) { resourcesOf(w)["cpu"] = "3800m" })},
		{name: "gang within nominal + borrowing", mutate: withWorkload(gang("PyTorchJob", "t4", 2), nil)},
		{name: "job on a pool with quota 0 borrows", mutate: then(func(c config) {
			c.set("teams.1.gpuQuota.t4spot", 0)
			c.set("teams.0.gpuQuota.t4spot", 4)
		}, withWorkload(gpuJob("team-b", "t4spot", 1), nil))},
		{name: "CPU job with the CPU pool on", mutate: withWorkload(scoring("2"), nil)},
		{name: "gang filling the spot pool", mutate: then(func(c config) { c.set("teams.0.gpuQuota.t4spot", 4); c.set("teams.1.gpuQuota.t4spot", 0) },
			withWorkload(gang("TFJob", "t4spot", 4), nil))},
	}
}
