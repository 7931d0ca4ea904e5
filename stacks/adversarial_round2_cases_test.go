package stacks_test

import "strings"

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

// withInferenceServer replaces the workloads with one inference server
// named name on the t4 pool, of a serving team-a.
func withInferenceServer(name string) func(c config) {
	return then(set("gpuPools.0.workload", "inference"), set("teams.0.serving", true),
		set("workloads", []any{map[string]any{"kind": "InferenceServer", "name": name, "team": "team-a", "pool": "t4", "image": "busybox:1.36",
			"resources": map[string]any{"cpu": "3", "memory": "16Gi", "gpus": 1}}}))
}

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

	// derived: sizes aksml derives must leave room for an upgrade (AKS
	// surges 10% of a pool without maxSurge, at least one node).
	const derived = "derived"
	add(derived, "no surge node", "", set("network.surgeNodesPerPool", 0), "aksml:network.surgeNodesPerPool", "AKS adds at least 1 node per pool while upgrading it")
	add(derived, "surge above 100", "", set("network.surgeNodesPerPool", 101), "aksml:network.surgeNodesPerPool", "use 1 to 100")
	add(derived, "a pool of 41 in a /26 without its 5 surge nodes", "", then(set("gpuPools.0.maxCount", 41), set("teams.0.gpuQuota.t4", 1),
		set("network", map[string]any{"addressSpace": "10.224.0.0/26", "nodeSubnet": map[string]any{"prefix": "10.224.0.0/26"}})),
		"aksml:network.nodeSubnet.prefix", "or the 10% AKS surges a pool above ten nodes")
	add(derived, "pod range without the surge of a pool of 46", "", then(set("gpuPools.0.maxCount", 46), set("cluster.network", map[string]any{"podCidr": "10.244.0.0/18"})),
		"aksml:cluster.network.podCidr", "")
	add(derived, "negative surge", "", set("network.surgeNodesPerPool", -1), "aksml:network.surgeNodesPerPool", "leaves no room for an upgrade")
	add(derived, "three surge nodes per pool over a /26", "", then(set("gpuPools.0.maxCount", 40), set("teams.0.gpuQuota.t4", 1),
		set("network", map[string]any{"addressSpace": "10.224.0.0/26", "nodeSubnet": map[string]any{"prefix": "10.224.0.0/26"}, "surgeNodesPerPool": 3})),
		"aksml:network.nodeSubnet.prefix", "use a /25 or larger")
	add(derived, "a pool of 1000 with its 100 surge nodes over the default pod range", "", set("gpuPools.0.maxCount", 1000),
		"aksml:cluster.network.podCidr", "the pools can have 1115 nodes with upgrade surge")
	// A subnet aksml derives that does not fit is reported on the key the
	// user wrote (addressSpace), never on one nobody wrote.
	add(derived, "a /28 VNet for the /27 node subnet the pools need", "", set("network", map[string]any{"addressSpace": "10.224.0.0/28"}),
		"aksml:network.addressSpace", "no room for the node subnet aksml derives from the pools")
	add(derived, "a /27 VNet filled by the node subnet, with private storage", "", then(set("network", map[string]any{"addressSpace": "10.224.0.0/27"}),
		set("storage.accounts", map[string]any{"namePrefix": "aksmladv", "privateNetwork": true})),
		"aksml:network.addressSpace", "no room for the private endpoint subnet aksml derives")
	// A valid workload name derives the name of the server's Service, a
	// DNS-1035 label.
	add(derived, "inference server named with a leading digit", "", withInferenceServer("7b-chat"), "aksml:workloads[0].name", "a Service name must start with a letter")
	add(derived, "inference server named with only digits first", "", withInferenceServer("70b"), "aksml:workloads[0].name", "rename the workload, e.g. m70b")
	// Kubernetes derives kubernetes.default's address from the service
	// range, and never allocates its base and broadcast addresses.
	add(derived, "DNS service IP on kubernetes.default's address", "", set("cluster.network", map[string]any{"serviceCidr": "10.1.0.0/16", "dnsServiceIP": "10.1.0.1"}),
		"aksml:cluster.network.dnsServiceIP", "the first usable address, which the API server gives kubernetes.default")
	add(derived, "DNS service IP on kubernetes.default's address of the default range", "", set("cluster.network", map[string]any{"dnsServiceIP": "10.0.0.1"}),
		"aksml:cluster.network.dnsServiceIP", "use another address in the range, e.g. 10.0.0.10")
	add(derived, "DNS service IP on the broadcast address", "", set("cluster.network", map[string]any{"serviceCidr": "10.1.0.0/16", "dnsServiceIP": "10.1.255.255"}),
		"aksml:cluster.network.dnsServiceIP", "the broadcast address, which Kubernetes never allocates")

	// inert: a key switched off by another is refused, never ignored.
	const inert = "inert"
	add(inert, "serving below batch training, against their names", "", set("scheduler.priorities", []any{
		map[string]any{"name": "training-batch", "value": 100000}, map[string]any{"name": "inference-critical", "value": 10000, "preemptionPolicy": "PreemptLowerPriority"}}),
		"aksml:scheduler.priorities[1].value", "give it the higher value")
	add(inert, "every priority level preempts and the team is not serving", "", func(c config) {
		c.set("scheduler.priorities", []any{map[string]any{"name": "urgent", "value": 1000, "preemptionPolicy": "PreemptLowerPriority"}})
		c.set("workloads.0.priority", "urgent")
	}, "aksml:workloads[0].priority", "every level of aksml:scheduler.priorities preempts; set serving: true on the team in aksml:teams, or add a level with preemptionPolicy: Never")
	obsOff := func(k string, v any) func(c config) {
		return set("observability", map[string]any{"enabled": false, k: v})
	}
	add(inert, "RPO with observability off", "", obsOff("rpo", "1h"), "aksml:observability.rpo", "aksml:observability.enabled is false")
	add(inert, "Grafana with observability off", "", obsOff("grafana", map[string]any{"enabled": true, "name": "graf-adv"}), "aksml:observability.grafana", "turn the section on")
	add(inert, "action groups with observability off", "", obsOff("actionGroupIds", []any{actionGroupID}), "aksml:observability.actionGroupIds", "remove actionGroupIds")
	add(inert, "GPU idle threshold with observability off", "", obsOff("gpuIdleThresholdPercent", 10), "aksml:observability.gpuIdleThresholdPercent", "remove it")
	add(inert, "Grafana name with Grafana off", "", set("observability.grafana", map[string]any{"enabled": false, "name": "graf-adv"}), "aksml:observability.grafana.name", "no Grafana is created")
	add(inert, "retention with both log routes off", "", set("cluster.logs", map[string]any{"containerInsights": false, "auditLogs": false, "retentionInDays": 90}),
		"aksml:cluster.logs.retentionInDays", "no Log Analytics workspace is created")
	add(inert, "workspace name with both log routes off", "", set("cluster.logs", map[string]any{"containerInsights": false, "auditLogs": false, "logAnalyticsWorkspaceName": "law-adv"}),
		"aksml:cluster.logs.logAnalyticsWorkspaceName", "remove it")
	add(inert, "audit categories with audit logs off", "", set("cluster.logs", map[string]any{"auditLogs": false, "auditCategories": []any{"kube-audit"}}),
		"aksml:cluster.logs.auditCategories", "set auditLogs: true")
	add(inert, "Defender workspace with Defender off", "", set("cluster.defender", map[string]any{"enabled": false, "logAnalyticsWorkspaceId": workspaceLogID}),
		"aksml:cluster.defender.logAnalyticsWorkspaceId", "Defender reports to no workspace")
	add(inert, "DCGM exporter image with the exporter off", "", set("gpuStack", map[string]any{"dcgmExporter": false, "dcgmExporterImage": "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5-3.4.1-ubuntu22.04"}),
		"aksml:gpuStack.dcgmExporterImage", "set dcgmExporter: true")
	add(inert, "maintenance window with both channels off", "", then(set("cluster.upgradeChannel", "none"), set("cluster.nodeOSUpgradeChannel", "None"),
		set("cluster.maintenanceWindow", map[string]any{"dayOfWeek": "Sunday", "startTime": "02:00", "durationHours": 4})), "aksml:cluster.maintenanceWindow", "turn a channel on")
	add(inert, "private endpoint subnet with public storage", "", set("network.privateEndpointSubnet", map[string]any{"prefix": "10.224.200.0/24"}),
		"aksml:network.privateEndpointSubnet", "would hold nothing")
	add(inert, "IP rules on public storage", "", set("storage.accounts", map[string]any{"namePrefix": "aksmladv", "allowedIpRanges": []any{"203.0.113.0/24"}}),
		"aksml:storage.accounts.allowedIpRanges", "every address is already allowed")
	add(inert, "borrowing with no cohort peer", "", then(set("teams", []any{map[string]any{"name": "solo", "gpuQuota": map[string]any{"t4": 2, "t4spot": 4}, "cpu": "16", "memory": "64Gi", "borrowingLimit": 2}}),
		set("workloads.0.team", "solo")), "aksml:teams[0].borrowingLimit", "has no one to borrow from")
	add(inert, "lending with no cohort peer", "", then(set("teams", []any{map[string]any{"name": "solo", "gpuQuota": map[string]any{"t4": 2, "t4spot": 4}, "cpu": "16", "memory": "64Gi", "lendingLimit": 2}}),
		set("workloads.0.team", "solo")), "aksml:teams[0].lendingLimit", "has no one to lend to")
	add(inert, "weight without fair sharing", "", then(set("scheduler.fairSharing", false), set("teams.0.weight", 3)), "aksml:teams[0].weight", "turn fairSharing on")
	add(inert, "expected duration past the scoring deadline", "", set("workloads.0.expectedDuration", "7h"), "aksml:workloads[0].expectedDuration", "set expectedDuration below 6h")
	add(inert, "expected duration at the job deadline", "", withWorkload(gpuJob("team-a", "t4", 1), func(w map[string]any) { w["expectedDuration"] = "24h" }),
		"aksml:workloads[0].expectedDuration", "set expectedDuration below 24h")
	add(inert, "expected duration with observability off", "", then(set("observability", map[string]any{"enabled": false}), set("workloads.0.expectedDuration", "1h")),
		"aksml:workloads[0].expectedDuration", "has nowhere to alert")
	aksManagedWith := func(k string, v any) func(c config) {
		return set("network", map[string]any{"mode": "aks-managed", k: v})
	}
	add(inert, "address space with the VNet AKS generated", "", aksManagedWith("addressSpace", "10.224.0.0/16"), "aksml:network.addressSpace", "means nothing with mode aks-managed")
	add(inert, "node subnet with the VNet AKS generated", "", aksManagedWith("nodeSubnet", map[string]any{"prefix": "10.224.0.0/24"}), "aksml:network.nodeSubnet", "AKS names and sizes the VNet it generated")
	add(inert, "surge nodes with the VNet AKS generated", "", aksManagedWith("surgeNodesPerPool", 2), "aksml:network.surgeNodesPerPool", "remove it")
	add(inert, "private storage on the VNet AKS generated", "", then(set("network", map[string]any{"mode": "aks-managed"}),
		set("storage.accounts", map[string]any{"namePrefix": "aksmladv", "privateNetwork": true})), "aksml:network.mode", "storage that denies public networks has no route")
	add(inert, "GPU stack in an Azure-layer stack", "", then(del("teams"), del("workloads"), set("kubernetesLayer", false), set("gpuStack", map[string]any{"dcgmExporter": false})),
		"aksml:gpuStack", "move it there")

	// identity: IDs and names Entra, Azure or the container runtime would
	// refuse or misroute.
	const identity = "identity"
	add(identity, "nil GUID as a team group", "", withEntra(testGUID, groupB), "aksml:teams[0].groups[0]", "the nil GUID")
	add(identity, "nil GUID as the admin group", "", set("cluster.entraID", map[string]any{"adminGroupObjectIDs": []any{testGUID}}),
		"aksml:cluster.entraID.adminGroupObjectIDs[0]", "copy the admin group's Object ID")
	add(identity, "one group in two teams", "", withEntra(groupA, groupA), "aksml:teams[1].groups[0]", "give each team its own group")
	add(identity, "one group in two teams, differing in case", "", withEntra(groupA, strings.ToUpper(groupA)), "aksml:teams[1].groups[0]", "would be one security boundary")
	add(identity, "the admin group as a team group", "", withEntra(adminGroup, groupB), "aksml:teams[0].groups[0]", "give the team a group of its own")
	blob := set("storage.accounts", map[string]any{"namePrefix": "aksmladv", "blobNfs": true})
	add(identity, "two-letter team with a Blob container", "", then(blob, withTeam("ab")), "aksml:teams[0].name", "choose a team name of 3 or more characters")
	add(identity, "team name with -- and a Blob container", "", then(blob, withTeam("team--a")), "aksml:teams[0].name", "without '--'")
	add(identity, "image with an uppercase repository", "", set("workloads.0.image", "Ubuntu:24.04"), "aksml:workloads[0].image", "repository names are lowercase")
	add(identity, "image with an empty tag", "", set("workloads.0.image", "ubuntu:"), "aksml:workloads[0].image", "write registry/repository:tag")
	add(identity, "image with a short digest", "", set("workloads.0.image", "ubuntu@sha256:abc"), "aksml:workloads[0].image", "is not sha256: followed by 64 lowercase hex digits")
	add(identity, "image with a tag starting with '-'", "", set("workloads.0.image", "ubuntu:-rc1"), "aksml:workloads[0].image", "the tag")
	add(identity, "device plugin image with an uppercase repository", "", set("gpuStack.devicePluginImage", "nvcr.io/NVIDIA/k8s-device-plugin:v0.17.0"),
		"aksml:gpuStack.devicePluginImage", "repository names are lowercase")
	add(identity, "device plugin in Kueue's namespace", "", set("gpuStack.devicePluginNamespace", "kueue-system"), "aksml:gpuStack.devicePluginNamespace", "is the namespace of Kueue")
	add(identity, "device plugin in Gatekeeper's namespace", "", set("gpuStack.devicePluginNamespace", "gatekeeper-system"), "aksml:gpuStack.devicePluginNamespace", "use kube-system")
	add(identity, "device plugin in a namespace nobody creates", "", set("gpuStack.devicePluginNamespace", "gpu-dp"), "aksml:gpuStack.devicePluginNamespace", "does not exist on the cluster aksml creates")

	// prod-promise: one key must not break a README promise of prod.
	const promise = "prod-promise"
	add(promise, "prod without monitoring", "prod", prod(set("observability.enabled", false)), "aksml:observability.enabled", "must be true in prod")
	add(promise, "prod without audit logs", "prod", prod(set("cluster.logs", map[string]any{"auditLogs": false})), "aksml:cluster.logs.auditLogs", "audit log")
	add(promise, "prod without Azure Policy", "prod", prod(set("cluster.azurePolicy", false)), "aksml:cluster.azurePolicy", "must be true in prod")
	add(promise, "prod on the Free tier", "prod", prod(set("cluster.tier", "Free")), "aksml:cluster.tier", "use Standard or Premium")
	add(promise, "prod without Kubernetes upgrades", "prod", prod(set("cluster.upgradeChannel", "none")), "aksml:cluster.upgradeChannel", "use patch or stable")
	add(promise, "prod without node OS patches", "prod", prod(set("cluster.nodeOSUpgradeChannel", "None")), "aksml:cluster.nodeOSUpgradeChannel", "use NodeImage or SecurityPatch")
	add(promise, "prod with unmanaged node OS patches", "prod", prod(set("cluster.nodeOSUpgradeChannel", "Unmanaged")), "aksml:cluster.nodeOSUpgradeChannel", "without managed security patches")
	add(promise, "prod without tenancy", "prod", prod(set("tenancyEnforced", false)), "aksml:tenancyEnforced", "must be true in prod")
	add(promise, "prod with public storage", "prod", prod(set("storage.accounts", map[string]any{"namePrefix": "aksmladv"})), "aksml:storage.accounts.privateNetwork", "must be true in prod")
	add(promise, "prod with tag-only images", "prod", prod(set("requireImageDigest", false)), "aksml:requireImageDigest", "must be true in prod")
	add(promise, "prod unprotected", "prod", prod(set("protect", false)), "aksml:protect", "must be true in prod")
	add(promise, "prod on the VNet AKS generated", "prod", prod(set("network", map[string]any{"mode": "aks-managed"})), "aksml:network.mode", "must not be aks-managed in prod")

	// impossible: well-formed values that cannot mean what was intended.
	const impossible = "impossible"
	for _, r := range []string{"10.0.0.0/16", "192.168.0.0/24", "100.64.0.0/10", "127.0.0.1/32"} {
		add(impossible, "API server range "+r, "", set("cluster.apiServer.authorizedIPRanges", []any{r}), "aksml:cluster.apiServer.authorizedIPRanges[0]", "lets nobody in")
	}
	add(impossible, "team memory without a unit", "", set("teams.0.memory", "64"), "aksml:teams[0].memory", "did you leave off the unit")
	add(impossible, "team memory of one byte", "", set("teams.0.memory", "1"), "aksml:teams[0].memory", "holds no container")
	add(impossible, "workload memory without a unit", "", then(set("workloads.0.resources.memory", "2"), set("workloads.0.shmSize", "0")), "aksml:workloads[0].resources.memory", "did you leave off the unit")
	add(impossible, "workload memory of 1Ki", "", then(set("workloads.0.resources.memory", "1Ki"), set("workloads.0.shmSize", "0")), "aksml:workloads[0].resources.memory", "below the 6Mi a container needs")
	add(impossible, "pod range over the default VNet", "", then(del("network"), set("cluster.network", map[string]any{"podCidr": "10.224.0.0/16"})),
		"aksml:cluster.network.podCidr", "the VNet aksml creates by default")
	add(impossible, "service range over the default VNet", "", then(del("network"), set("cluster.network", map[string]any{"serviceCidr": "10.224.0.0/16", "dnsServiceIP": "10.224.0.10"})),
		"aksml:cluster.network.serviceCidr", "or set aksml:network.addressSpace")
	add(impossible, "VNet over the default service range", "", set("network.addressSpace", "10.0.0.0/16"), "aksml:network.addressSpace", "overlaps the service range 10.0.0.0/16")
	add(impossible, "service range without the default DNS address", "", set("cluster.network", map[string]any{"serviceCidr": "10.1.0.0/16"}), "aksml:cluster.network.dnsServiceIP", "use an address in it")
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
	add(agree, "the VNet AKS generated, declared, in dev", "", set("network", map[string]any{"mode": "aks-managed"}), "")
	add(agree, "the VNet AKS generated with public storage", "", then(set("network", map[string]any{"mode": "aks-managed"}),
		set("storage.accounts", map[string]any{"namePrefix": "aksmladv"})), "")
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

	const derived = "derived"
	const inert = "inert"
	add(derived, "cluster name of 63 characters", "", set("cluster.name", strings.Repeat("a", 60)+"adv"), "")
	add(derived, "cluster name with underscores", "", set("cluster.name", "aks_ml_adv"), "")
	add(derived, "resource group of 90 characters", "", set("cluster.resourceGroup.name", "rg-"+strings.Repeat("x", 87)), "")
	add(derived, "resource group of 90 non-ASCII letters", "", set("cluster.resourceGroup.name", strings.Repeat("ü", 90)), "")
	add(derived, "a pool of 40 exactly fills a /26 with its 4 surge nodes", "", then(set("gpuPools.0.maxCount", 40), set("teams.0.gpuQuota.t4", 1),
		set("network", map[string]any{"addressSpace": "10.224.0.0/26", "nodeSubnet": map[string]any{"prefix": "10.224.0.0/26"}})), "")
	add(derived, "two surge nodes per pool", "", set("network.surgeNodesPerPool", 2), "")
	add(derived, "a /26 VNet holds the derived node and private endpoint subnets", "", then(set("network", map[string]any{"addressSpace": "10.224.0.0/26"}),
		set("storage.accounts", map[string]any{"namePrefix": "aksmladv", "privateNetwork": true})), "")
	add(derived, "a /27 VNet holds the derived node subnet", "", set("network", map[string]any{"addressSpace": "10.224.0.0/27"}), "")
	add(derived, "inference server named with a digit after its first letter", "", withInferenceServer("m7b-chat"), "")
	add(derived, "DNS service IP on the second usable address", "", set("cluster.network", map[string]any{"serviceCidr": "10.1.0.0/16", "dnsServiceIP": "10.1.0.2"}), "")
	add(derived, "DNS service IP on the last usable address", "", set("cluster.network", map[string]any{"serviceCidr": "10.1.0.0/16", "dnsServiceIP": "10.1.255.254"}), "")
	add(inert, "serving above batch training, custom values", "", set("scheduler.priorities", []any{
		map[string]any{"name": "training-batch", "value": 10, "preemptionPolicy": "Never"}, map[string]any{"name": "inference-critical", "value": 20, "preemptionPolicy": "PreemptLowerPriority"}}), "")

	add(inert, "observability off and nothing else", "", set("observability", map[string]any{"enabled": false}), "")
	add(inert, "Grafana off with no name", "", set("observability.grafana", map[string]any{"enabled": false}), "")
	add(inert, "audit logs only, with categories", "", set("cluster.logs", map[string]any{"containerInsights": false, "auditCategories": []any{"kube-audit"}}), "")
	add(inert, "maintenance window with only the node OS channel", "", then(set("cluster.upgradeChannel", "none"),
		set("cluster.maintenanceWindow", map[string]any{"dayOfWeek": "Sunday", "startTime": "02:00", "durationHours": 4})), "")
	add(inert, "IP rules on private storage", "", set("storage.accounts", map[string]any{"namePrefix": "aksmladv", "privateNetwork": true, "allowedIpRanges": []any{"203.0.113.0/24"}}), "")
	add(inert, "weight under fair sharing", "", set("teams.0.weight", 3), "")
	add(inert, "expected duration under the scoring deadline", "", set("workloads.0.expectedDuration", "5h"), "")
	add(inert, "borrowing from a lender with one team", "", then(
		set("teams", []any{map[string]any{"name": "solo", "gpuQuota": map[string]any{"t4": 1, "t4spot": 2}, "cpu": "16", "memory": "64Gi", "borrowingLimit": 1}}),
		set("scheduler.lenders", []any{map[string]any{"name": "pool-reserve", "gpuQuota": map[string]any{"t4": 1}}}),
		set("workloads.0.team", "solo")), "")

	const identity = "identity"
	add(identity, "two teams with their own groups, mixed case", "", withEntra(strings.ToUpper(groupA), groupB), "")
	add(identity, "three-letter team with a Blob container", "", then(set("storage.accounts", map[string]any{"namePrefix": "aksmladv", "blobNfs": true}), withTeam("abc")), "")
	add(identity, "image from a registry host with uppercase and a port", "", set("workloads.0.image", "MyRegistry.azurecr.io:443/team/score__v2:1.0"), "")
	add(identity, "image pinned by tag and digest", "", set("workloads.0.image", "ubuntu:24.04"+digest), "")
	add(identity, "device plugin in the GPU stack's namespace", "", set("gpuStack.devicePluginNamespace", "gpu-operator"), "")
	add(identity, "device plugin in kube-system, written", "", set("gpuStack.devicePluginNamespace", "kube-system"), "")

	const promise = "prod-promise"
	add(promise, "prod that deletes team data with the team", "prod", prod(set("retainTeamData", false)), "AKSML-STO-004")
	add(promise, "prod team with Unrestricted egress", "prod", prod(set("teams.0.egress", "Unrestricted")), "AKSML-TEN-013")
	add(promise, "prod on the Premium tier", "prod", prod(set("cluster.tier", "Premium")), "")
	add(promise, "prod with security patches only", "prod", prod(set("cluster.nodeOSUpgradeChannel", "SecurityPatch")), "")
	add(promise, "prod with private storage", "prod", prod(set("storage.accounts", map[string]any{"namePrefix": "aksmladv", "privateNetwork": true})), "")

	const impossible = "impossible"
	add(impossible, "public API server ranges, one a single address", "", set("cluster.apiServer.authorizedIPRanges", []any{"203.0.113.0/24", "198.51.100.7/32"}), "")
	add(impossible, "team memory with a unit", "", set("teams.0.memory", "64Gi"), "")
	add(impossible, "workload memory of exactly 6Mi", "", then(set("workloads.0.resources.memory", "6Mi"), set("workloads.0.shmSize", "0")), "")
	add(impossible, "pod range clear of the default VNet", "", then(del("network"), set("cluster.network", map[string]any{"podCidr": "10.128.0.0/16"})), "")
	add(impossible, "service range with its own DNS address", "", set("cluster.network", map[string]any{"serviceCidr": "10.1.0.0/16", "dnsServiceIP": "10.1.0.10"}), "")
	return all
}
