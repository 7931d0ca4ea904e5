package rules

// The isolation guardrails' cases join the shared tables, so
// TestRulesCatchViolations, TestRulesPassCompliantStacks and
// TestEveryRuleIsTestedBothWays run them with every other rule's.
func init() {
	newViolations = append(newViolations, isolationViolations...)
	newCompliant = append(newCompliant, isolationCompliant...)
}

// egressPolicy is a NetworkPolicy in ns allowing egress to 0.0.0.0/0 with
// the given excepts, on every port.
func egressPolicy(ns, name string, except ...any) Resource {
	return kube("networking.k8s.io/v1", "NetworkPolicy", ns, name, obj{"aksml.io/team": ns}, obj{
		"podSelector": obj{}, "policyTypes": arr{"Egress"},
		"egress": arr{obj{"to": arr{obj{"ipBlock": obj{"cidr": "0.0.0.0/0", "except": arr(except)}}}}},
	})
}

// azure builds an Azure resource of module:kind, protected or not.
func azure(moduleKind, name string, protect bool) Resource {
	r := resource("azure-native:"+moduleKind, name, obj{})
	r.Protect = protect
	return r
}

var isolationViolations = []ruleCase{
	{id: "AKSML-STO-002", name: "Azure Files class with the driver's default secret namespace",
		mutate: func(s *Stack) { set(s, "ml-checkpoints-azurefile", obj{"skuName": "Premium_LRS"}, "parameters") },
		want:   []string{"StorageClass ml-checkpoints-azurefile", "secretNamespace: kube-system"}},
	{id: "AKSML-STO-002", name: "Azure Files class keeping the key in a team namespace",
		mutate: func(s *Stack) { set(s, "ml-checkpoints-azurefile", obj{"secretNamespace": "team-a"}, "parameters") },
		want:   []string{"team namespace team-a", "secretNamespace: kube-system"}},
	{id: "AKSML-STO-002", name: "team claim on the AKS built-in azurefile-csi class",
		mutate: func(s *Stack) { set(s, "team-a-model-checkpoints", "azurefile-csi", "spec", "storageClassName") },
		want:   []string{"PersistentVolumeClaim team-a/model-checkpoints", "azurefile-csi", "ml-azurefile-premium"}},
	{id: "AKSML-TEN-011", name: "unrestricted egress that reaches IMDS",
		mutate: func(s *Stack) { add(s, egressPolicy("team-a", "aksml-allow-external", "10.244.0.0/16")) },
		want:   []string{"NetworkPolicy team-a/aksml-allow-external", "169.254.169.254/32"}},
	{id: "AKSML-TEN-011", name: "egress rule without any destination",
		mutate: func(s *Stack) {
			add(s, kube("networking.k8s.io/v1", "NetworkPolicy", "team-a", "open", nil, obj{"podSelector": obj{}, "policyTypes": arr{"Egress"}, "egress": arr{obj{}}}))
		},
		want: []string{"team-a/open", "IMDS"}},
	{id: "AKSML-TEN-011", name: "ingress-only default deny leaves egress open",
		mutate: func(s *Stack) { set(s, "team-a-aksml-default-deny", arr{"Ingress"}, "spec", "policyTypes") },
		want:   []string{"team-a", "denies egress"}},
	{id: "AKSML-TEN-012", name: "platform namespace without a default deny",
		mutate: func(s *Stack) { add(s, kube("v1", "Namespace", "", "kueue-system", nil, nil)) },
		want:   []string{"Namespace kueue-system", "Kueue", "NewPlatformIsolation"}},
	{id: "AKSML-TEN-012", name: "platform namespace denying ingress only",
		mutate: func(s *Stack) {
			add(s, kube("v1", "Namespace", "", "gpu-operator", nil, nil),
				kube("networking.k8s.io/v1", "NetworkPolicy", "gpu-operator", "aksml-default-deny", nil, obj{"podSelector": obj{}, "policyTypes": arr{"Ingress"}}))
		},
		want: []string{"Namespace gpu-operator"}},
	{id: "AKSML-TEN-013", name: "unrestricted team in prod", env: EnvProd,
		mutate: func(s *Stack) {
			add(s, egressPolicy("team-a", "aksml-team-allow", "10.244.0.0/16", "169.254.169.254/32"))
		},
		want: []string{"team team-a", "addresses in 0.0.0.0/0 on every port", "aksml:teams[].egress: Unrestricted"}},
	{id: "AKSML-TEN-013", name: "team policy open to every destination in prod", env: EnvProd,
		mutate: func(s *Stack) {
			add(s, kube("networking.k8s.io/v1", "NetworkPolicy", "team-a", "anywhere", obj{"aksml.io/team": "team-a"}, obj{"podSelector": obj{}, "policyTypes": arr{"Egress"},
				"egress": arr{obj{}}}))
		},
		want: []string{"NetworkPolicy team-a/anywhere", "every destination on every port"}},
	{id: "AKSML-STO-003", name: "unprotected storage account in prod", env: EnvProd,
		mutate: func(s *Stack) { add(s, azure("storage:StorageAccount", "storage-files", false)) },
		want:   []string{"StorageAccount storage-files", "pulumi.Protect"}},
	{id: "AKSML-STO-003", name: "unprotected private endpoint and DNS zone in prod", env: EnvProd,
		mutate: func(s *Stack) {
			add(s, azure("network:PrivateEndpoint", "storage-files-file-pe", false), azure("network:PrivateZone", "net-file-dns", false))
		},
		want: []string{"not protected"}},
	{id: "AKSML-STO-004", name: "team claim not retained in prod", env: EnvProd,
		mutate: func(s *Stack) { s.RetainOnDeleteKnown = true },
		want:   []string{"PersistentVolumeClaim team-a/model-checkpoints", "aksml:retainTeamData"}},
	{id: "AKSML-STO-004", name: "Blob container not retained in prod", env: EnvProd,
		mutate: func(s *Stack) {
			s.RetainOnDeleteKnown = true
			for i := range s.Resources {
				s.Resources[i].RetainOnDelete = true
			}
			add(s, azure("storage:BlobContainer", "tenancy-team-a-data", false))
		},
		want: []string{"BlobContainer tenancy-team-a-data"}},
}

var isolationCompliant = []ruleCase{
	{id: "AKSML-STO-002", name: "key stored nowhere (storeAccountKey false)", mutate: func(s *Stack) {
		set(s, "ml-checkpoints-azurefile", obj{"storeAccountKey": "false"}, "parameters")
	}},
	{id: "AKSML-STO-002", name: "NFS Azure Files class needs no key", mutate: func(s *Stack) {
		set(s, "ml-checkpoints-azurefile", obj{"protocol": "nfs"}, "parameters")
	}},
	{id: "AKSML-STO-002", name: "built-in class outside team namespaces", mutate: func(s *Stack) {
		add(s, kube("v1", "PersistentVolumeClaim", "tools", "cache", nil, obj{"storageClassName": "azurefile-csi"}))
	}},
	{id: "AKSML-TEN-011", name: "egress allowance excepting IMDS", mutate: func(s *Stack) {
		add(s, egressPolicy("team-a", "aksml-allow-external", "10.244.0.0/16", "169.254.169.254/32"))
	}},
	{id: "AKSML-TEN-011", name: "allowance to a range without IMDS", mutate: func(s *Stack) {
		add(s, kube("networking.k8s.io/v1", "NetworkPolicy", "team-a", "storage", nil, obj{"podSelector": obj{}, "policyTypes": arr{"Egress"},
			"egress": arr{obj{"to": arr{obj{"ipBlock": obj{"cidr": "20.60.0.0/16"}}}}}}))
	}},
	{id: "AKSML-TEN-012", name: "platform namespace with its default deny", mutate: func(s *Stack) {
		add(s, kube("v1", "Namespace", "", "kubeflow", nil, nil),
			kube("networking.k8s.io/v1", "NetworkPolicy", "kubeflow", "aksml-default-deny", nil, obj{"podSelector": obj{}, "policyTypes": arr{"Ingress", "Egress"}}))
	}},
	{id: "AKSML-TEN-012", name: "the default namespace is not the stack's", mutate: func(s *Stack) {
		add(s, kube("v1", "Namespace", "", "default", nil, nil))
	}},
	{id: "AKSML-TEN-013", name: "unrestricted team in dev", mutate: func(s *Stack) {
		add(s, egressPolicy("team-a", "aksml-team-allow", "10.244.0.0/16", "169.254.169.254/32"))
	}},
	{id: "AKSML-TEN-013", name: "restricted team in prod: HTTPS only", env: EnvProd, mutate: func(s *Stack) {
		np := egressPolicy("team-a", "aksml-team-allow", "10.244.0.0/16", "169.254.169.254/32")
		mapOf(listOf(np.Get("spec.egress"))[0])["ports"] = arr{obj{"protocol": "TCP", "port": 443}}
		add(s, np)
	}},
	{id: "AKSML-TEN-013", name: "every port in prod, but to another team's pods by selector, not addresses", env: EnvProd, mutate: func(s *Stack) {
		add(s, kube("networking.k8s.io/v1", "NetworkPolicy", "team-a", "peers", obj{"aksml.io/team": "team-a"}, obj{"podSelector": obj{}, "policyTypes": arr{"Egress"},
			"egress": arr{obj{"to": arr{obj{"podSelector": obj{}}}}}}))
	}},
	{id: "AKSML-STO-003", name: "protected account and route in prod", env: EnvProd, mutate: func(s *Stack) {
		add(s, azure("storage:StorageAccount", "storage-files", true), azure("network:PrivateEndpoint", "pe", true), azure("network:VirtualNetworkLink", "link", true))
	}},
	{id: "AKSML-STO-003", name: "unprotected account in dev", mutate: func(s *Stack) {
		add(s, azure("storage:StorageAccount", "storage-files", false))
	}},
	{id: "AKSML-STO-004", name: "retained claims and containers in prod", env: EnvProd, mutate: func(s *Stack) {
		s.RetainOnDeleteKnown = true
		add(s, azure("storage:BlobContainer", "tenancy-team-a-data", false))
		for i := range s.Resources {
			s.Resources[i].RetainOnDelete = true
		}
	}},
	{id: "AKSML-STO-004", name: "options unknown to the policy analyzer", env: EnvProd, mutate: func(s *Stack) {
		s.RetainOnDeleteKnown = false
	}},
}
