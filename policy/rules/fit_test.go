package rules

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Cases of the identity, schedulability and reserved-namespace rules; the
// tests of rules_test.go run them with the others.

// withCluster adds the AKS cluster the pools belong to (its system pool,
// tainted CriticalAddonsOnly, and an untainted CPU pool), a pool for the
// inference Deployment and team-a's LocalQueue: with the cluster in the
// stack its pools are all there are, so the schedulability rules judge it.
func withCluster(s *Stack) {
	profile := func(name, mode, size string, taints arr) obj {
		return obj{"name": name, "mode": mode, "vmSize": size, "enableAutoScaling": true, "minCount": 1.0, "maxCount": 3.0, "nodeTaints": taints, "vnetSubnetID": nodeSubnet}
	}
	mc := managedCluster()
	mc.Inputs["resourceGroupName"] = "rg"
	mc.Inputs["agentPoolProfiles"] = arr{
		profile("system", "System", "Standard_D4ds_v5", arr{"CriticalAddonsOnly=true:NoSchedule"}),
		profile("cpu", "User", "Standard_D8ds_v5", arr{}),
	}
	inf := agentPool("gpuinf")
	inf.Inputs["nodeLabels"] = obj{"accelerator": "nvidia", "workload": "inference"}
	add(s, mc, inf, kube("kueue.x-k8s.io/v1beta2", "LocalQueue", "team-a", "gpu-queue", nil, obj{"clusterQueue": "team-a-gpu"}))
}

// clustered applies mutate to a goodStack that declares its cluster.
func clustered(mutate func(s *Stack)) func(s *Stack) {
	return func(s *Stack) {
		withCluster(s)
		mutate(s)
	}
}

var (
	trainPod  = []any{"spec", "template", "spec"}
	cqQuotaAt = []any{"spec", "resourceGroups", 0, "flavors", 0, "resources", 2}
)

var newViolations = []ruleCase{
	{id: "AKSML-IDN-001", name: "one Job registered by two resources",
		mutate: func(s *Stack) {
			dup := trainingJob("team-a", "train")
			dup.Name, dup.URN = "other-train", urnOf(dup.Type, "other-train")
			add(s, dup)
		},
		want: []string{"Kubernetes object batch/Job team-a/train is registered by team-a-train and again by other-train", "let one component own it"}},
	{id: "AKSML-IDN-001", name: "a namespaced object without namespace is in default",
		mutate: func(s *Stack) {
			add(s, kube("v1", "ConfigMap", "", "settings", nil, nil), kube("v1", "ConfigMap", "default", "settings", nil, nil))
		},
		want: []string{"/ConfigMap default/settings"}},
	{id: "AKSML-IDN-002", name: "typed AgentPool and template pool with one name",
		mutate: func(s *Stack) { set(s, "gpuh100", obj{"value": "gpua100"}, "parameters", "poolName") },
		want:   []string{"agent pool rg/aks/gpua100 is declared by AgentPool gpua100 and again by pool gpua100 (in DeploymentStackAtResourceGroup gpuh100)", "remove one declaration"}},
	{id: "AKSML-IDN-002", name: "inline cluster profile and typed AgentPool",
		mutate: clustered(func(s *Stack) { set(s, "gpua100", "CPU", "agentPoolName") }),
		want:   []string{"agent pool rg/aks/cpu is declared by AgentPool CPU and again by pool cpu (in ManagedCluster aks)"}},
	{id: "AKSML-IDN-002", name: "subnet inline in its VNet and as a Subnet resource",
		mutate: func(s *Stack) {
			add(s,
				resource("azure-native:network:VirtualNetwork", "vnet", obj{"resourceGroupName": "rg-net", "virtualNetworkName": "vnet", "subnets": arr{obj{"name": "aks-nodes"}}}),
				resource("azure-native:network:Subnet", "nodes", obj{"resourceGroupName": "rg-net", "virtualNetworkName": "vnet", "subnetName": "aks-nodes"}))
		},
		want: []string{"subnet rg-net/vnet/aks-nodes is declared by VirtualNetwork vnet subnets[0] and again by Subnet nodes"}},

	{id: "AKSML-SCH-001", name: "CPU request above every node the pod may run on",
		mutate: clustered(func(s *Stack) {
			rl := obj{"cpu": "100", "memory": "16Gi", "nvidia.com/gpu": 1.0}
			set(s, "team-a-train", obj{"requests": rl, "limits": rl}, at(trainPod, "containers", 0, "resources")...)
		}),
		want: []string{"Job team-a/train requests cpu 100 per pod", "gpua100 (Standard_NC24ads_A100_v4: cpu 23.", "gpuh100 (Standard_ND96isr_H100_v5: cpu 94.94", "request less than that"}},
	{id: "AKSML-SCH-001", name: "memory equal to the VM's (allocatable is lower)",
		mutate: clustered(func(s *Stack) {
			rl := obj{"cpu": "4", "memory": "32Gi"}
			set(s, "team-a-score", obj{"requests": rl, "limits": rl}, "spec", "jobTemplate", "spec", "template", "spec", "containers", 0, "resources")
		}),
		want: []string{"CronJob team-a/score requests memory 32768Mi per pod", "cpu (Standard_D8ds_v5: cpu 7.82, memory 2"}},
	{id: "AKSML-SCH-001", name: "CPU pod on a cluster without an untainted pool",
		mutate: clustered(func(s *Stack) {
			set(s, "aks", arr{obj{"name": "system", "mode": "System", "vmSize": "Standard_D4ds_v5", "nodeTaints": arr{"CriticalAddonsOnly=true:NoSchedule"}, "vnetSubnetID": nodeSubnet, "maxCount": 3.0}}, "agentPoolProfiles")
		}),
		want: []string{"CronJob team-a/score selects or tolerates no node pool", "system [CriticalAddonsOnly=true:NoSchedule]", "add an untainted pool"}},

	{id: "AKSML-SCH-002", name: "PyTorchJob gang above its pools' maxCount",
		mutate: clustered(func(s *Stack) { set(s, "team-a-ddp", 7.0, "spec", "pytorchReplicaSpecs", "Worker", "replicas") }),
		want:   []string{"PyTorchJob team-a/ddp needs 8 nvidia.com/gpu at once (1 pods (Master) × 1 + 7 pods (Worker) × 1)", "hold 6 at most (gpua100 4 × 1 GPU, gpuh100 0 × 8 GPU, gpubyo 2 × 1 GPU)", "raise the pools' maxCount"}},

	{id: "AKSML-QUE-005", name: "Job wider than its ClusterQueue's quota",
		mutate: clustered(func(s *Stack) { set(s, "team-a-train", 5.0, "spec", "parallelism") }),
		want:   []string{"Job team-a/train needs 5 nvidia.com/gpu at once (5 pods × 1)", "LocalQueue team-a/gpu-queue → ClusterQueue team-a-gpu can be admitted at most 4 on flavor gpu-a100: nominal 4 + borrowing 0", "borrowingLimit"}},
	{id: "AKSML-QUE-005", name: "borrowing limit below what the gang needs",
		mutate: clustered(func(s *Stack) {
			set(s, "team-a-train", 6.0, "spec", "parallelism")
			set(s, "team-a-gpu", "aksml", "spec", "cohortName")
			set(s, "team-a-gpu", "1", at(cqQuotaAt, "borrowingLimit")...)
			add(s, kube("kueue.x-k8s.io/v1beta2", "ClusterQueue", "", "team-b-gpu", nil, obj{"cohortName": "aksml", "resourceGroups": arr{obj{"flavors": arr{obj{"name": "gpu-a100", "resources": arr{
				obj{"name": "nvidia.com/gpu", "nominalQuota": "0"}}}}}}}))
			set(s, "team-b-gpu", "1", "spec", "resourceGroups", 0, "flavors", 0, "resources", 0, "nominalQuota")
		}),
		want: []string{"needs 6 nvidia.com/gpu", "at most 5 on flavor gpu-a100: nominal 4 + borrowing 1"}},

	{id: "AKSML-QUE-006", name: "Job on a pool its ClusterQueue has no flavor for",
		mutate: clustered(func(s *Stack) {
			add(s, kube("kueue.x-k8s.io/v1beta2", "ResourceFlavor", "", "gpu-spot", nil, obj{"nodeLabels": obj{"kubernetes.azure.com/agentpool": "gpuspot"}}))
			set(s, "team-a-train", obj{"workload": "gpu-spot"}, at(trainPod, "nodeSelector")...)
			set(s, "team-a-train", arr{obj{"operator": "Exists"}}, at(trainPod, "tolerations")...)
		}),
		want: []string{"Job team-a/train requests nvidia.com/gpu through LocalQueue team-a/gpu-queue → ClusterQueue team-a-gpu", "add quota (0 to only borrow) on gpu-spot (pool gpuspot)"}},

	{id: "AKSML-TEN-003", name: "team namespace named like Kueue's",
		mutate: func(s *Stack) {
			add(s, kube("v1", "Namespace", "", "kueue-system", obj{"aksml.io/team": "kueue-system"}, nil))
		},
		want: []string{`Namespace kueue-system holds team "kueue-system"`, "belongs to Kueue", "choose another team name"}},
	{id: "AKSML-TEN-003", name: "stack registers kube-system",
		mutate: func(s *Stack) { add(s, kube("v1", "Namespace", "", "kube-system", nil, nil)) },
		want:   []string{"registers namespace kube-system, which Kubernetes creates and owns", "delete it on destroy"}},
	{id: "AKSML-TEN-003", name: "GPU stack namespace registered outside the GPU stack",
		mutate: func(s *Stack) { add(s, kube("v1", "Namespace", "", "gpu-operator", nil, nil)) },
		want:   []string{"registers namespace gpu-operator, which belongs to the GPU stack", "from the stack itself", "let aksml:gpustack:GPUStack create it"}},
	{id: "AKSML-TEN-003", name: "team Job in Kueue's namespace",
		mutate: func(s *Stack) { add(s, trainingJob("kueue-system", "train")) },
		want:   []string{"Job kueue-system/train is team work in namespace kueue-system, which belongs to Kueue", "team's namespace"}},
}

var newCompliant = []ruleCase{
	{id: "AKSML-IDN-001", name: "one name in two namespaces", mutate: func(s *Stack) { add(s, trainingJob("team-b", "train")) }},
	{id: "AKSML-IDN-002", name: "one pool name on two clusters", mutate: func(s *Stack) {
		p := agentPool("gpua100")
		p.Inputs["resourceName"], p.Name, p.URN = "aks2", "gpua100-2", urnOf(p.Type, "gpua100-2")
		add(s, p)
	}},
	{id: "AKSML-SCH-001", name: "the platform with its cluster", mutate: clustered(func(s *Stack) {})},
	{id: "AKSML-SCH-001", name: "no cluster in the stack: pools are a partial view", mutate: func(s *Stack) {
		set(s, "team-a-score", obj{"workload": "nowhere"}, "spec", "jobTemplate", "spec", "template", "spec", "nodeSelector")
	}},
	{id: "AKSML-SCH-001", name: "a selector on a label the rules do not model", mutate: clustered(func(s *Stack) {
		set(s, "team-a-score", obj{"example.com/disk": "nvme"}, "spec", "jobTemplate", "spec", "template", "spec", "nodeSelector")
	})},
	{id: "AKSML-SCH-002", name: "gang within its pools", mutate: clustered(func(s *Stack) {
		set(s, "team-a-ddp", 5.0, "spec", "pytorchReplicaSpecs", "Worker", "replicas")
	})},
	{id: "AKSML-QUE-005", name: "gang within nominal + cohort borrowing", mutate: clustered(func(s *Stack) {
		set(s, "team-a-train", 5.0, "spec", "parallelism")
		set(s, "team-a-gpu", "aksml", "spec", "cohortName")
		add(s, kube("kueue.x-k8s.io/v1beta2", "ClusterQueue", "", "team-b-gpu", nil, obj{"cohortName": "aksml", "resourceGroups": arr{obj{"flavors": arr{obj{"name": "gpu-a100", "resources": arr{
			obj{"name": "nvidia.com/gpu", "nominalQuota": "2", "lendingLimit": "1"}}}}}}}))
	})},
	{id: "AKSML-QUE-006", name: "Job on the pool of its flavor", mutate: clustered(func(s *Stack) {
		set(s, "team-a-train", obj{"kubernetes.azure.com/agentpool": "gpua100"}, at(trainPod, "nodeSelector")...)
	})},
	{id: "AKSML-TEN-003", name: "kube-system read for its owner, not registered", mutate: func(s *Stack) {
		ns := kube("v1", "Namespace", "", "kube-system", nil, nil)
		ns.Read = true
		add(s, ns)
	}},
	{id: "AKSML-IDN-001", name: "kube-system read and patched by one stack", mutate: func(s *Stack) {
		read := kube("v1", "Namespace", "", "kube-system", nil, nil)
		read.Read = true
		patch := kube("v1", "Namespace", "", "kube-system", nil, nil)
		patch.Type, patch.Name, patch.URN = "kubernetes:core/v1:NamespacePatch", "cluster-owner", urnOf("kubernetes:core/v1:NamespacePatch", "cluster-owner")
		add(s, read, patch)
	}},
	{id: "AKSML-TEN-003", name: "GPU stack namespace registered by the GPU stack", mutate: func(s *Stack) {
		ns := kube("v1", "Namespace", "", "gpu-operator", nil, nil)
		ns.Parent = "urn:pulumi:dev::aksml::aksml:gpustack:GPUStack::gpustack"
		add(s, ns)
	}},
}

func TestComponentOf(t *testing.T) {
	r := Resource{Parent: "urn:pulumi:dev::aksml::aksml:queues:Queues$kubernetes:helm.sh/v4:Chart::queues-kueue"}
	assert.Equal(t, "aksml:queues:Queues", componentOf(r), "the nearest aksml component of a chart's object")
	assert.Equal(t, "", componentOf(Resource{}))
}

func TestPodRequests(t *testing.T) {
	spec := obj{
		"initContainers": arr{obj{"resources": obj{"requests": obj{"cpu": "6"}}}},
		"containers": arr{
			obj{"resources": obj{"requests": obj{"cpu": "2", "memory": "1Gi"}}},
			obj{"resources": obj{"limits": obj{"cpu": "3", "nvidia.com/gpu": 1.0}}},
		},
	}
	req, ok := podRequests(spec)
	assert.True(t, ok)
	assert.Equal(t, map[string]float64{"cpu": 6, "memory": 1 << 30, "nvidia.com/gpu": 1}, req, "init containers' peak, limits standing in for requests")
	_, ok = podRequests(obj{"containers": arr{obj{"resources": obj{"requests": obj{"cpu": Unknown}}}}})
	assert.False(t, ok)
}
