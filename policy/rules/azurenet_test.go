package rules

// Builders and cases for the Azure network rules (AKSML-NET-003..009). The
// cases join the violations and compliant tables of rules_test.go.

import "github.com/aksml/aksml/components/network"

const (
	nodeSubnet  = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/aks-nodes"
	otherSubnet = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet-old/subnets/aks-nodes"
	netContrib  = "/subscriptions/00000000-0000-0000-0000-000000000000/providers/Microsoft.Authorization/roleDefinitions/4d97b98b-1d4f-4787-a291-c67834d212e7"
)

// aksCluster is a compliant cluster: pools in the node subnet, overlay
// ranges clear of the VNet, a restricted API server.
func aksCluster() Resource {
	pool := func(name, mode string) obj {
		return obj{"name": name, "mode": mode, "vmSize": "Standard_D4ds_v5", "enableAutoScaling": true, "minCount": 1.0, "maxCount": 3.0, "vnetSubnetID": nodeSubnet}
	}
	return resource("azure-native:containerservice/v20241001:ManagedCluster", "aks", obj{
		"resourceName":           "aks",
		"agentPoolProfiles":      arr{pool("system", "System"), pool("cpu", "User")},
		"networkProfile":         obj{"networkPlugin": "azure", "networkPluginMode": "overlay", "podCidr": "10.244.0.0/16", "serviceCidr": "10.0.0.0/16", "dnsServiceIP": "10.0.0.10"},
		"apiServerAccessProfile": obj{"authorizedIPRanges": arr{"203.0.113.0/24"}},
	})
}

// clusterNetwork is the cluster with its VNet, the Network Contributor
// grant, a private storage account and its private endpoint.
func clusterNetwork() []Resource {
	return []Resource{
		aksCluster(),
		resource("azure-native:network/v20240501:VirtualNetwork", "vnet", obj{"addressSpace": obj{"addressPrefixes": arr{"10.224.0.0/16"}}}),
		resource("azure-native:authorization:RoleAssignment", "aks-subnet", obj{"roleDefinitionId": netContrib, "scope": nodeSubnet, "principalId": "p"}),
		resource("azure-native:storage:StorageAccount", "files", obj{"accountName": "mlfiles", "networkRuleSet": obj{"defaultAction": "Deny", "virtualNetworkRules": arr{}}}),
		resource("azure-native:network/v20240501:PrivateEndpoint", "files-pe", obj{"privateLinkServiceConnections": arr{obj{
			"privateLinkServiceId": "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/mlfiles", "groupIds": arr{"file"},
		}}}),
	}
}

var netViolations = []ruleCase{
	{id: "AKSML-NET-003", name: "typed pool without subnet",
		mutate: func(s *Stack) { set(s, "gpua100", nil, "vnetSubnetID") },
		want:   []string{"AgentPool gpua100 sets no vnetSubnetID", "VNet it generates", "aksml:network"}},
	{id: "AKSML-NET-003", name: "inline system pool without subnet",
		mutate: func(s *Stack) {
			add(s, clusterNetwork()...)
			set(s, "aks", nil, "agentPoolProfiles", 0, "vnetSubnetID")
		},
		want: []string{"pool system (in ManagedCluster aks) sets no vnetSubnetID"}},
	{id: "AKSML-NET-003", name: "template pool without subnet",
		mutate: func(s *Stack) { set(s, "gpuh100", nil, at(armPool, "vnetSubnetID")...) },
		want:   []string{"pool gpuh100 (in DeploymentStackAtResourceGroup gpuh100) sets no vnetSubnetID"}},
	{id: "AKSML-NET-003", name: "prod declaring the VNet AKS generated", env: EnvProd,
		mutate: func(s *Stack) {
			set(s, "gpua100", nil, "vnetSubnetID")
			s.Outputs[network.ModeOutput] = Output{Value: network.ModeAKSManaged}
		},
		want: []string{"AgentPool gpua100 sets no vnetSubnetID"}},
	{id: "AKSML-NET-003", name: "dev with another network mode", mutate: func(s *Stack) {
		set(s, "gpua100", nil, "vnetSubnetID")
		s.Outputs[network.ModeOutput] = Output{Value: network.ModeAksml}
	}, want: []string{"AgentPool gpua100 sets no vnetSubnetID"}},
	{id: "AKSML-NET-004", name: "no Network Contributor grant",
		mutate: func(s *Stack) { add(s, clusterNetwork()...); s.Resources = without(s.Resources, "aks-subnet") },
		want:   []string{"ManagedCluster aks has node pools in " + nodeSubnet, "Network Contributor (4d97b98b-1d4f-4787-a291-c67834d212e7)", "add the role assignment"}},
	{id: "AKSML-NET-004", name: "grant on another subnet",
		mutate: func(s *Stack) { add(s, clusterNetwork()...); set(s, "aks-subnet", otherSubnet, "scope") },
		want:   []string{"ManagedCluster aks has node pools in " + nodeSubnet}},
	{id: "AKSML-NET-005", name: "service range in 172.30.0.0/16",
		mutate: func(s *Stack) {
			add(s, clusterNetwork()...)
			set(s, "aks", "172.30.0.0/16", "networkProfile", "serviceCidr")
			set(s, "aks", "172.30.0.10", "networkProfile", "dnsServiceIP")
		},
		want: []string{"ManagedCluster aks", "serviceCidr 172.30.0.0/16 overlaps 172.30.0.0/16, which AKS reserves", "disjoint private ranges"}},
	{id: "AKSML-NET-005", name: "service range larger than /12",
		mutate: func(s *Stack) {
			add(s, clusterNetwork()...)
			set(s, "aks", "10.64.0.0/10", "networkProfile", "serviceCidr")
			set(s, "aks", "10.64.0.10", "networkProfile", "dnsServiceIP")
		},
		want: []string{"serviceCidr 10.64.0.0/10 is larger than a /12"}},
	{id: "AKSML-NET-005", name: "DNS IP is the service range's base address",
		mutate: func(s *Stack) {
			add(s, clusterNetwork()...)
			set(s, "aks", "10.0.0.0", "networkProfile", "dnsServiceIP")
		},
		want: []string{"dnsServiceIP 10.0.0.0 in serviceCidr 10.0.0.0/16 is the base address, which Kubernetes never allocates"}},
	{id: "AKSML-NET-005", name: "DNS IP is kubernetes.default's address",
		mutate: func(s *Stack) {
			add(s, clusterNetwork()...)
			set(s, "aks", "10.0.0.1", "networkProfile", "dnsServiceIP")
		},
		want: []string{"dnsServiceIP 10.0.0.1 in serviceCidr 10.0.0.0/16 is the first usable address, which the API server gives kubernetes.default"}},
	{id: "AKSML-NET-005", name: "VNet overlaps the pod range",
		mutate: func(s *Stack) {
			add(s, clusterNetwork()...)
			set(s, "vnet", arr{"10.244.0.0/16"}, "addressSpace", "addressPrefixes")
		},
		want: []string{"podCidr 10.244.0.0/16 overlaps VirtualNetwork vnet address space 10.244.0.0/16"}},
	{id: "AKSML-NET-006", name: "prod API server open to the internet", env: EnvProd,
		mutate: func(s *Stack) {
			add(s, clusterNetwork()...)
			set(s, "aks", arr{"0.0.0.0/0"}, "apiServerAccessProfile", "authorizedIPRanges")
		},
		want: []string{"ManagedCluster aks authorizes 0.0.0.0/0, broader than a /8", "specific egress ranges"}},
	{id: "AKSML-NET-006", name: "prod API server without ranges", env: EnvProd,
		mutate: func(s *Stack) { add(s, clusterNetwork()...); set(s, "aks", nil, "apiServerAccessProfile") },
		want:   []string{"ManagedCluster aks has a public API server open to every address", "authorizedIPRanges"}},
	{id: "AKSML-NET-007", name: "private API server and Kubernetes resources in one stack",
		mutate: func(s *Stack) {
			add(s, clusterNetwork()...)
			set(s, "aks", obj{"enablePrivateCluster": true}, "apiServerAccessProfile")
		},
		want: []string{"ManagedCluster aks has a private API server", "aksml:existingCluster", "inside the VNet"}},
	{id: "AKSML-NET-008", name: "private account without route",
		mutate: func(s *Stack) { add(s, clusterNetwork()...); s.Resources = without(s.Resources, "files-pe") },
		want:   []string{"StorageAccount files denies public networks but neither a private endpoint nor a VNet rule", "add a file/blob private endpoint"}},
	{id: "AKSML-NET-008", name: "VNet rule for a subnet the nodes are not in",
		mutate: func(s *Stack) {
			add(s, clusterNetwork()...)
			set(s, "files", arr{obj{"virtualNetworkResourceId": otherSubnet, "action": "Allow"}}, "networkRuleSet", "virtualNetworkRules")
		},
		want: []string{"StorageAccount files allows subnet " + otherSubnet + ", which no node pool of the stack is in"}},
	{id: "AKSML-NET-009", name: "H100 pool over three zones",
		mutate: func(s *Stack) { set(s, "gpuh100", arr{"1", "2", "3"}, at(armPool, "availabilityZones")...) },
		want:   []string{"pool gpuh100", "Standard_ND96isr_H100_v5 (InfiniBand) across zones 1, 2, 3", "keep the pool in one zone"}},
}

var netCompliant = []ruleCase{
	{id: "AKSML-NET-003", name: "cluster and pools in the node subnet", mutate: func(s *Stack) { add(s, clusterNetwork()...) }},
	{id: "AKSML-NET-003", name: "subnet of a subnet created in the stack", mutate: func(s *Stack) { set(s, "gpua100", Unknown, "vnetSubnetID") }},
	{id: "AKSML-NET-003", name: "dev declaring the VNet AKS generated", mutate: func(s *Stack) {
		set(s, "gpua100", nil, "vnetSubnetID")
		s.Outputs[network.ModeOutput] = Output{Value: network.ModeAKSManaged}
	}},
	{id: "AKSML-NET-004", name: "grant on the node subnet", mutate: func(s *Stack) { add(s, clusterNetwork()...) }},
	{id: "AKSML-NET-004", name: "grant on the VNet", mutate: func(s *Stack) {
		add(s, clusterNetwork()...)
		set(s, "aks-subnet", "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet", "scope")
	}},
	{id: "AKSML-NET-004", name: "subnet and grant scope not known before deployment", mutate: func(s *Stack) {
		add(s, clusterNetwork()...)
		set(s, "gpua100", Unknown, "vnetSubnetID")
		set(s, "aks-subnet", Unknown, "scope")
	}},
	{id: "AKSML-NET-005", name: "disjoint ranges", mutate: func(s *Stack) { add(s, clusterNetwork()...) }},
	{id: "AKSML-NET-006", name: "prod restricted to a /24", env: EnvProd, mutate: func(s *Stack) { add(s, clusterNetwork()...) }},
	{id: "AKSML-NET-006", name: "dev API server open", mutate: func(s *Stack) { add(s, clusterNetwork()...); set(s, "aks", nil, "apiServerAccessProfile") }},
	{id: "AKSML-NET-007", name: "private API server in an Azure-only stack", mutate: func(s *Stack) {
		s.Resources = nil
		add(s, clusterNetwork()...)
		set(s, "aks", obj{"enablePrivateCluster": true}, "apiServerAccessProfile")
	}},
	{id: "AKSML-NET-008", name: "private endpoint reaches the account", mutate: func(s *Stack) { add(s, clusterNetwork()...) }},
	{id: "AKSML-NET-008", name: "VNet rule for the node subnet", mutate: func(s *Stack) {
		add(s, clusterNetwork()...)
		s.Resources = without(s.Resources, "files-pe")
		set(s, "files", arr{obj{"virtualNetworkResourceId": nodeSubnet, "action": "Allow"}}, "networkRuleSet", "virtualNetworkRules")
	}},
	{id: "AKSML-NET-009", name: "H100 pool in one zone", mutate: func(s *Stack) {}},
}

func init() {
	violations = append(violations, netViolations...)
	compliant = append(compliant, netCompliant...)
}
