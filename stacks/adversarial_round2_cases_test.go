package stacks_test

// Round two of the adversarial table (issue 33): configs aimed at the areas
// added since round one (network, tenancy, registry and logs, Kueue policy,
// workload durations, GPU-stack images, OS SKUs, prod promises). Classes:
//
//   - pack-agreement: the program and the policy pack decide once; what a
//     mandatory guardrail refuses, the program refuses first by key.
//   - derived: values aksml derives from what was written.
//   - inert: settings that mean nothing in the mode they are written in, or
//     contradict another.
//   - identity: IDs and names Azure, Entra or Kubernetes would refuse or
//     misroute.
//   - prod-promise: a prod that switches off one of its README promises.
//   - impossible: values that are well-formed but cannot mean what anyone
//     intended.

const (
	testGUID       = "00000000-0000-0000-0000-000000000000"
	adminGroup     = "0d0d0d0d-4444-4444-8444-000000000004"
	groupA         = "0a0a0a0a-1111-4111-8111-000000000001"
	groupB         = "0b0b0b0b-2222-4222-8222-000000000002"
	registryName   = "aksmladvreg"
	digest         = "@sha256:0000000000000000000000000000000000000000000000000000000000000000"
	registryImage  = registryName + ".azurecr.io/ubuntu" + digest
	actionGroupID  = "/subscriptions/" + testGUID + "/resourceGroups/rg/providers/microsoft.insights/actionGroups/ag"
	workspaceLogID = "/subscriptions/" + testGUID + "/resourceGroups/rg/providers/Microsoft.OperationalInsights/workspaces/law"
)

// prodReady turns the base config into a prod stack that meets the prod
// baseline (run with stack "prod"): Entra ID, Defender, a maintenance
// window, alerts that reach people and images from the stack's registry.
func prodReady(c config) {
	c.set("environment", "prod")
	c.set("cluster.entraID", map[string]any{"adminGroupObjectIDs": []any{adminGroup}})
	c.set("cluster.defender", map[string]any{"enabled": true, "logAnalyticsWorkspaceId": workspaceLogID})
	c.set("cluster.maintenanceWindow", map[string]any{"dayOfWeek": "Sunday", "startTime": "02:00", "durationHours": 4})
	c.set("cluster.registry", map[string]any{"name": registryName})
	c.set("observability.actionGroupIds", []any{actionGroupID})
	c.set("observability.prometheusRuleGroups", true)
	c.set("workloads.0.image", registryImage)
}

// prod is prodReady followed by mutate.
func prod(mutate func(c config)) func(c config) { return then(prodReady, mutate) }

// withEntra gives the cluster Entra ID and the teams groups.
func withEntra(a, b string) func(c config) {
	return func(c config) {
		c.set("cluster.entraID", map[string]any{"adminGroupObjectIDs": []any{adminGroup}})
		c.set("teams.0.groups", []any{a})
		c.set("teams.1.groups", []any{b})
	}
}

func set(path string, v any) func(c config) { return func(c config) { c.set(path, v) } }

func del(key string) func(c config) { return func(c config) { delete(c, key) } }

func round2Cases() []adversarialCase {
	var all []adversarialCase
	add := func(class, name, stack string, mutate func(c config), path, fix string) {
		all = append(all, adversarialCase{name: name, class: class, stack: stack, mutate: mutate, path: path, fix: fix})
	}

	// pack-agreement: each refused shape is one a mandatory guardrail
	// refuses on the synthesised stack (named in the message).
	const agree = "pack-agreement"
	add(agree, "dev GPU pool kept warm", "", set("gpuPools.0.minCount", 1), "aksml:gpuPools[0].minCount", "remove minCount (dev GPU pools scale to zero)")
	add(agree, "dev GPU pool at its maximum", "", set("gpuPools.0.minCount", 2), "aksml:gpuPools[0].minCount", "AKSML-GPU-002")
	add(agree, "dev inference pool kept warm", "", then(set("gpuPools.0.workload", "inference"), set("gpuPools.0.minCount", 1)), "aksml:gpuPools[0].minCount", "remove minCount")
	add(agree, "dev spot pool kept warm", "", set("gpuPools.1.minCount", 1), "aksml:gpuPools[1].minCount", "use priority Regular for warm capacity")
	add(agree, "prod spot pool kept warm", "prod", prod(set("gpuPools.1.minCount", 1)), "aksml:gpuPools[1].minCount", "AKSML-GPU-005")
	add(agree, "dev Managed pool with nodes", "", func(c config) {
		c.set("gpuPools", append(c["gpuPools"].([]any), map[string]any{"name": "t4mgd", "vmSize": "Standard_NC4as_T4_v3", "workload": "batch-inference", "gpuStack": "Managed", "count": 1}))
	}, "aksml:gpuPools[2].count", "set count: 0 in dev")
	add(agree, "GPU job without a queue", "", then(set("scheduler", map[string]any{"system": "none"}), withWorkload(gpuJob("team-a", "t4", 1), nil)),
		"aksml:workloads[0].kind", "set aksml:scheduler.system to kueue or volcano")
	add(agree, "PyTorchJob without a queue", "", then(set("scheduler", map[string]any{"system": "none"}), withWorkload(gang("PyTorchJob", "t4", 2), nil)),
		"aksml:workloads[0].kind", "AKSML-JOB-007")
	add(agree, "TFJob without a queue", "", then(set("scheduler", map[string]any{"system": "none"}), withWorkload(gang("TFJob", "t4", 2), nil)),
		"aksml:workloads[0].kind", "AKSML-JOB-007")
	add(agree, "IndexedJob without a queue", "", then(set("scheduler", map[string]any{"system": "none"}), withWorkload(map[string]any{"kind": "IndexedJob", "name": "shards", "team": "team-a", "pool": "t4", "image": "busybox:1.36",
		"resources": map[string]any{"cpu": "3", "memory": "16Gi", "gpus": 1}, "completions": 2, "parallelism": 1}, nil)), "aksml:workloads[0].kind", "or remove the workload")
	add(agree, "prod workloads without a registry", "prod", prod(func(c config) {
		delete(c["cluster"].(config), "registry")
	}), "aksml:cluster.registry", "set name (to create one) or id")
	add(agree, "prod image from Docker Hub", "prod", prod(set("workloads.0.image", "ubuntu"+digest)), "aksml:workloads[0].image", "push it there and write aksmladvreg.azurecr.io/")
	add(agree, "prod image from another registry", "prod", prod(set("workloads.0.image", "other.azurecr.io/ubuntu"+digest)), "aksml:workloads[0].image", "is not in the stack's registry")
	return all
}

func round2Accepted() []acceptedCase {
	var all []acceptedCase
	add := func(class, name, stack string, mutate func(c config), advisory string) {
		all = append(all, acceptedCase{name: name, class: class, stack: stack, mutate: mutate, advisory: advisory})
	}

	const agree = "pack-agreement"
	add(agree, "no aksml:network (a created VNet by default)", "", del("network"), "")
	add(agree, "a cluster and nothing else", "", func(c config) {
		for k := range c {
			if k != "environment" && k != "cluster" {
				delete(c, k)
			}
		}
	}, "")
	add(agree, "observability off in dev", "", set("observability", map[string]any{"enabled": false}), "")
	add(agree, "private storage without aksml:network", "", then(del("network"), set("storage.accounts", map[string]any{"namePrefix": "aksmladv", "privateNetwork": true})), "")
	add(agree, "storage through a service endpoint without aksml:network", "", then(del("network"),
		set("storage.accounts", map[string]any{"namePrefix": "aksmladv", "privateNetwork": true, "nodeAccess": "ServiceEndpoint"})), "")
	add(agree, "Azure layer only without aksml:network", "", then(del("network"), del("teams"), del("workloads"), set("kubernetesLayer", false)), "")
	add(agree, "no scheduler, CPU work only", "", set("scheduler", map[string]any{"system": "none"}), "")
	add(agree, "no scheduler, an inference server", "", then(set("scheduler", map[string]any{"system": "none"}), set("gpuPools.0.workload", "inference"), set("teams.0.serving", true),
		set("workloads", []any{map[string]any{"kind": "InferenceServer", "name": "chat", "team": "team-a", "pool": "t4", "image": "busybox:1.36",
			"resources": map[string]any{"cpu": "3", "memory": "16Gi", "gpus": 1}}})), "")
	add(agree, "logs off in dev", "", set("cluster.logs", map[string]any{"containerInsights": false, "auditLogs": false}), "")
	add(agree, "dev Managed pool at count 0", "", func(c config) {
		c.set("gpuPools", append(c["gpuPools"].([]any), map[string]any{"name": "t4mgd", "vmSize": "Standard_NC4as_T4_v3", "workload": "batch-inference", "gpuStack": "Managed", "count": 0}))
	}, "")
	add(agree, "prod with images from its registry", "prod", prodReady, "")
	add(agree, "prod with an existing registry", "prod", prod(func(c config) {
		c.set("cluster.registry", map[string]any{"id": "/subscriptions/" + testGUID + "/resourceGroups/rg/providers/Microsoft.ContainerRegistry/registries/" + registryName})
	}), "")
	return all
}
