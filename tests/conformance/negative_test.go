package conformance

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/policy/rules"
)

// The negative proof: a clean desired state passes every rule; each case
// mutates one resource of it and must make exactly the named rules fire.
// The clean state is the prod stack as synthesised (its VNet, node subnet,
// Network Contributor assignment, private endpoints, serial typed pools and
// the Azure Monitor deployment stack with its DCR and association), with
// one Managed and one None GPU pool added to aksml:gpuPools so the gpupool
// component's template pools are in it too. Nothing in it is written by
// hand.

const (
	sub      = "/subscriptions/00000000-0000-0000-0000-000000000000"
	prodVNet = sub + "/resourceGroups/rg-aksml-prod-net/providers/Microsoft.Network/virtualNetworks/vnet-aksml-prod"
	// Pulumi names of the prod resources the cases mutate.
	prodCluster    = "aksml-prod-aks"
	prodPoolsStack = "aksml-prod-gpupools-stack"
	prodTypedPool  = "aksml-prod-gpupools-a100"
	prodMonitor    = "aksml-prod-azure-monitor-stack"
	prodRuleGroup  = "aksml-prod-alert-rules-rulegroup"
	prodSubnetRole = "aksml-prod-node-subnet-access"
	prodVNetName   = "network-vnet"
	prodSubnetName = "network-nodes"
	// nestedDCRA is the association type the Azure Monitor stack uses.
	nestedDCRA = typeManagedCluster + "/providers/dataCollectionRuleAssociations"
)

// fixturePools are the pools added to prod's aksml:gpuPools: the template
// writes them sorted by name, so template.resources[0] is the Managed pool
// and [1] the None pool.
var fixturePools = []map[string]any{
	{"name": "gpumgd", "vmSize": "Standard_NC24ads_A100_v4", "workload": "training", "count": 1, "gpuStack": "Managed", "zones": []any{"1", "2", "3"}},
	{"name": "gpunone", "vmSize": "Standard_NC24ads_A100_v4", "workload": "training", "maxCount": 2, "gpuStack": "None", "zones": []any{"1", "2", "3"}},
}

var (
	prodOnce sync.Once
	prodBase *rules.Stack
	prodErr  error
)

// cleanProd returns a fresh copy of the clean fixture.
func cleanProd(t *testing.T) *rules.Stack {
	t.Helper()
	prodOnce.Do(func() { prodBase, prodErr = synthWithPools("prod", fixturePools...) })
	require.NoError(t, prodErr)
	return deepCopy(t, prodBase)
}

func deepCopy(t *testing.T, st *rules.Stack) *rules.Stack {
	t.Helper()
	raw, err := json.Marshal(st.Resources)
	require.NoError(t, err)
	out := &rules.Stack{Name: st.Name, Environment: st.Environment, Outputs: st.Outputs}
	require.NoError(t, json.Unmarshal(raw, &out.Resources))
	return out
}

// find returns the resource with the Pulumi name.
func find(t *testing.T, st *rules.Stack, name string) *rules.Resource {
	t.Helper()
	for i := range st.Resources {
		if st.Resources[i].Name == name {
			return &st.Resources[i]
		}
	}
	t.Fatalf("no resource %q", name)
	return nil
}

// duplicate appends a deep copy of the named resource under a new Pulumi
// name and returns it.
func duplicate(t *testing.T, st *rules.Stack, name string) *rules.Resource {
	t.Helper()
	dup := deepCopy(t, &rules.Stack{Resources: []rules.Resource{*find(t, st, name)}}).Resources[0]
	dup.Name = fmt.Sprintf("%s-dup%d", name, len(st.Resources))
	dup.URN += "-" + dup.Name
	st.Resources = append(st.Resources, dup)
	return &st.Resources[len(st.Resources)-1]
}

// templateResources returns the resources list of a deployment stack's
// template.
func templateResources(t *testing.T, r *rules.Resource) []any {
	t.Helper()
	l, ok := getPath(r.Inputs, "template", "resources").([]any)
	require.True(t, ok, r.Name)
	return l
}

func setTemplateResources(r *rules.Resource, l []any) {
	mapOf(r.Inputs["template"])["resources"] = l
}

// templateResourceOf returns the index of the only resource of the ARM
// type in the deployment stack's template.
func templateResourceOf(t *testing.T, r *rules.Resource, armType string) int {
	t.Helper()
	at := -1
	for i, e := range templateResources(t, r) {
		if strings.EqualFold(str(mapOf(e)["type"]), armType) {
			require.Equal(t, -1, at, "%s holds more than one %s", r.Name, armType)
			at = i
		}
	}
	require.NotEqual(t, -1, at, "%s holds no %s", r.Name, armType)
	return at
}

// monitorResource returns the resource of the ARM type in the Azure
// Monitor deployment stack's template.
func monitorResource(t *testing.T, st *rules.Stack, armType string) map[string]any {
	t.Helper()
	r := find(t, st, prodMonitor)
	return mapOf(templateResources(t, r)[templateResourceOf(t, r, armType)])
}

// TestCleanFixture proves the fixture the negative cases start from
// passes every rule, with bodies of every template type checked, and that
// it is the real stack: the resources the rules need come from the
// components, once each.
func TestCleanFixture(t *testing.T) {
	st := cleanProd(t)
	rep := Check(st, specs(t))
	t.Log(rep.Summary())
	for _, f := range rep.Findings {
		t.Error(f)
	}
	require.GreaterOrEqual(t, rep.Checked, 17, "typed cluster, pools, maintenance configurations, deployment stacks, rule group, DCE, DCR, DCRA, Grafana and both template pools")
	s := NewState(st)
	for typ, n := range map[string]int{
		// DCR and association: managed Prometheus (MSProm) and Container Insights (MSCI).
		typeVNet: 1, typeDCR: 2, nestedDCRA: 2, typePrivateEP: 1,
	} {
		require.Len(t, s.BodiesOf(typ), n, typ)
	}
	var template []string
	for _, p := range s.Pools {
		if !p.Body.Typed {
			template = append(template, p.Name)
		}
	}
	require.Equal(t, []string{"gpumgd", "gpunone"}, template)
}

// makeLoop turns template pool i of the pools stack into a copy loop over
// the stack parameter loopPools (loop0 and loop1), with the given copy
// settings added.
func makeLoop(t *testing.T, st *rules.Stack, i int, settings map[string]any) {
	t.Helper()
	r := find(t, st, prodPoolsStack)
	mapOf(r.Inputs["parameters"])["loopPools"] = map[string]any{"value": []any{"loop0", "loop1"}}
	p := mapOf(templateResources(t, r)[i])
	loop := map[string]any{"name": "pools", "count": "[length(parameters('loopPools'))]"}
	for k, v := range settings {
		loop[k] = v
	}
	p["copy"] = loop
	p["name"] = "[format('{0}/{1}', parameters('clusterName'), parameters('loopPools')[copyIndex()])]"
}

type negativeCase struct {
	name string
	// want are the rules that must fire, and no others.
	want []string
	// path and message are substrings one finding of want[0] must carry.
	path, message string
	mutate        func(t *testing.T, st *rules.Stack)
}

func inputs(name string, edit func(in map[string]any)) func(t *testing.T, st *rules.Stack) {
	return func(t *testing.T, st *rules.Stack) { edit(find(t, st, name).Inputs) }
}

func templatePool(i int, edit func(pool map[string]any)) func(t *testing.T, st *rules.Stack) {
	return func(t *testing.T, st *rules.Stack) {
		edit(mapOf(templateResources(t, find(t, st, prodPoolsStack))[i]))
	}
}

func ruleGroup(edit func(props map[string]any)) func(t *testing.T, st *rules.Stack) {
	return func(t *testing.T, st *rules.Stack) {
		r := find(t, st, prodRuleGroup)
		edit(mapOf(mapOf(templateResources(t, r)[templateResourceOf(t, r, typeRuleGroup)])["properties"]))
	}
}

func network(edit func(np map[string]any)) func(t *testing.T, st *rules.Stack) {
	return inputs(prodCluster, func(in map[string]any) { edit(mapOf(in["networkProfile"])) })
}

func removeResource(name string) func(t *testing.T, st *rules.Stack) {
	return func(t *testing.T, st *rules.Stack) {
		find(t, st, name)
		st.Resources = slices.DeleteFunc(st.Resources, func(r rules.Resource) bool { return r.Name == name })
	}
}

func negativeCases() []negativeCase {
	return []negativeCase{
		{name: "unknown property on a typed cluster", want: []string{"CONF-SPEC-001"}, path: "/properties", message: `"enableMagic" is unsupported`,
			mutate: inputs(prodCluster, func(in map[string]any) { in["enableMagic"] = true })},
		{name: "unknown property in a template resource", want: []string{"CONF-SPEC-001"}, path: "template.resources[0] /properties", message: `"evaluationDelay" is unsupported`,
			mutate: ruleGroup(func(p map[string]any) { p["evaluationDelay"] = "PT1M" })},
		{name: "unknown property in an inline pool profile (allOf merged and closed)", want: []string{"CONF-SPEC-001"}, path: "/properties/agentPoolProfiles/1", message: `"gpuDriver" is unsupported`,
			mutate: inputs(prodCluster, func(in map[string]any) { mapOf(listOf(in["agentPoolProfiles"])[1])["gpuDriver"] = "None" })},
		{name: "property of a later API version on a typed pool", want: []string{"CONF-SPEC-001"}, path: "/properties", message: `"gpuProfile" is unsupported`,
			mutate: inputs("aksml-prod-gpupools-h100", func(in map[string]any) {
				in["gpuProfile"] = map[string]any{"driver": "Install"}
			})},
		{name: "enum", want: []string{"CONF-SPEC-001"}, path: "/properties/networkProfile/networkPlugin", message: "allowed values",
			mutate: network(func(np map[string]any) { np["networkPlugin"] = "calico" })},
		{name: "wrong type", want: []string{"CONF-SPEC-001"}, path: "/properties/interval", message: "must be a string",
			mutate: ruleGroup(func(p map[string]any) { p["interval"] = 5.0 })},
		{name: "missing required", want: []string{"CONF-SPEC-001"}, path: "template.resources[0] /properties", message: `property "rules" is missing`,
			mutate: ruleGroup(func(p map[string]any) { delete(p, "rules") })},
		{name: "read-only set on a typed pool", want: []string{"CONF-SPEC-001"}, path: "/properties/provisioningState", message: "readOnly",
			mutate: inputs("aksml-prod-gpupools-h100", func(in map[string]any) { in["provisioningState"] = "Succeeded" })},
		{name: "read-only set in a template pool", want: []string{"CONF-SPEC-001"}, path: "template.resources[0] /properties/provisioningState", message: "readOnly",
			mutate: templatePool(0, func(p map[string]any) { mapOf(p["properties"])["provisioningState"] = "Succeeded" })},
		{name: "pattern", want: []string{"CONF-SPEC-001"}, path: "/properties/maintenanceWindow/startTime", message: "pattern",
			mutate: inputs("aksml-prod-maintenance", func(in map[string]any) { mapOf(in["maintenanceWindow"])["startTime"] = "2am" })},
		{name: "minimum", want: []string{"CONF-SPEC-001"}, path: "/properties/maintenanceWindow/durationHours", message: "at least 4",
			mutate: inputs("aksml-prod-maintenance", func(in map[string]any) { mapOf(in["maintenanceWindow"])["durationHours"] = 2.0 })},
		{name: "maximum", want: []string{"CONF-SPEC-001"}, path: "/properties/osDiskSizeGB", message: "at most 2048",
			mutate: templatePool(1, func(p map[string]any) { mapOf(p["properties"])["osDiskSizeGB"] = 4096.0 })},
		{name: "enum inside a typed pool's nested object", want: []string{"CONF-SPEC-001"}, path: "/properties/scaleSetPriority", message: "allowed values",
			mutate: inputs("aksml-prod-gpupools-a100spot", func(in map[string]any) { in["scaleSetPriority"] = "Cheap" })},
		{name: "unknown property in a DCR association in the nested extension form", want: []string{"CONF-SPEC-001"}, path: "/properties", message: `"streams" is unsupported`,
			mutate: func(t *testing.T, st *rules.Stack) {
				mapOf(monitorResource(t, st, nestedDCRA)["properties"])["streams"] = []any{"Microsoft-PrometheusMetrics"}
			}},
		{name: "template resource without apiVersion", want: []string{"CONF-SPEC-001"}, path: "template.resources[0]", message: "without type or apiVersion",
			mutate: func(t *testing.T, st *rules.Stack) {
				delete(mapOf(templateResources(t, find(t, st, prodRuleGroup))[0]), "apiVersion")
			}},
		{name: "private API server with the Kubernetes layer in the same stack", want: []string{"CONF-API-001"}, path: "apiServerAccessProfile",
			mutate: inputs(prodCluster, func(in map[string]any) { in["apiServerAccessProfile"] = map[string]any{"enablePrivateCluster": true} })},
		{name: "namespace registered twice", want: []string{"CONF-ID-001"}, message: "/Namespace /applied is also registered",
			mutate: func(t *testing.T, st *rules.Stack) { duplicate(t, st, "tenancy-applied-namespace") }},
		{name: "namespaced object without namespace collides with one in default", want: []string{"CONF-ID-001"}, message: "default/observability-dashboard",
			mutate: func(t *testing.T, st *rules.Stack) {
				a, b := duplicate(t, st, "observability-dashboard"), duplicate(t, st, "observability-dashboard")
				mapOf(a.Inputs["metadata"])["name"], mapOf(b.Inputs["metadata"])["name"] = "observability-dashboard", "observability-dashboard"
				delete(mapOf(a.Inputs["metadata"]), "namespace")
				mapOf(b.Inputs["metadata"])["namespace"] = "default"
			}},
		{name: "one Helm release rendered twice", want: []string{"CONF-ID-001"}, message: "helm.sh/v4:Chart release kueue-system/kueue",
			mutate: func(t *testing.T, st *rules.Stack) { duplicate(t, st, "queues-kueue") }},
		{name: "subnet inline in the VNet and as its own resource", want: []string{"CONF-ID-002"}, message: "rg-aksml-prod-net/vnet-aksml-prod/aks-nodes",
			mutate: inputs(prodVNetName, func(in map[string]any) {
				// The network component's node subnet is a Subnet resource.
				in["subnets"] = []any{map[string]any{"name": "aks-nodes", "addressPrefix": "10.40.0.0/26"}}
			})},
		{name: "storage account declared twice", want: []string{"CONF-ID-002"}, message: "microsoft.storage/storageaccounts resourcegroup rg-aksml-prod/aksmlprodfiles",
			mutate: func(t *testing.T, st *rules.Stack) { duplicate(t, st, "storage-files") }},
		{name: "template pool named like the inline CPU pool", want: []string{"CONF-ID-002", "CONF-POOL-001"}, message: "aksml-prod/cpu",
			mutate: templatePool(1, func(p map[string]any) {
				p["name"] = "[format('{0}/{1}', parameters('clusterName'), 'cpu')]"
			})},
		{name: "no DCR association for the rule groups", want: []string{"CONF-MON-001"}, message: "cluster aksml-prod evaluates no data",
			mutate: func(t *testing.T, st *rules.Stack) {
				r := find(t, st, prodMonitor)
				l := templateResources(t, r)
				i := templateResourceOf(t, r, nestedDCRA)
				setTemplateResources(r, slices.Delete(l, i, i+1))
			}},
		{name: "association to a DCR without the Prometheus stream", want: []string{"CONF-MON-001"}, message: "no Microsoft-PrometheusMetrics data flow",
			mutate: func(t *testing.T, st *rules.Stack) {
				dcr := monitorResource(t, st, typeDCR)
				mapOf(listOf(getPath(dcr, "properties", "dataFlows"))[0])["streams"] = []any{"Microsoft-ContainerInsights-Group-Default"}
			}},
		{name: "association on another cluster", want: []string{"CONF-MON-001"}, message: "cluster aksml-prod evaluates no data",
			mutate: func(t *testing.T, st *rules.Stack) {
				monitorResource(t, st, nestedDCRA)["name"] = "[format('{0}/microsoft.insights/{1}', 'aksml-other', 'dcra')]"
			}},
		{name: "service CIDR in a reserved range", want: []string{"CONF-NET-001"}, path: "serviceCidr", message: "172.30.0.0/16, which AKS reserves",
			mutate: network(func(np map[string]any) { np["serviceCidr"], np["dnsServiceIP"] = "172.30.0.0/16", "172.30.0.10" })},
		{name: "service CIDR overlapping the pod CIDR", want: []string{"CONF-NET-001"}, message: "overlaps pod CIDR",
			mutate: network(func(np map[string]any) { np["serviceCidr"], np["dnsServiceIP"] = "10.244.128.0/20", "10.244.128.10" })},
		{name: "pod CIDR overlapping the VNet", want: []string{"CONF-NET-001"}, path: "podCidr", message: "overlaps VNet range 10.40.0.0/16",
			mutate: network(func(np map[string]any) { np["podCidr"] = "10.40.0.0/16" })},
		{name: "DNS IP outside the service CIDR", want: []string{"CONF-NET-001"}, message: "outside the service CIDR",
			mutate: network(func(np map[string]any) { np["dnsServiceIP"] = "10.1.0.10" })},
		{name: "DNS IP is the first address", want: []string{"CONF-NET-001"}, message: "first address",
			mutate: network(func(np map[string]any) { np["dnsServiceIP"] = "10.0.0.1" })},
		{name: "typed pool without a subnet", want: []string{"CONF-NET-002"}, path: "vnetSubnetID", message: `pool "h100"`,
			mutate: inputs("aksml-prod-gpupools-h100", func(in map[string]any) { delete(in, "vnetSubnetID") })},
		{name: "pools in two VNets", want: []string{"CONF-NET-002", "CONF-ROLE-001"}, message: "in 2 VNets",
			mutate: templatePool(0, func(p map[string]any) {
				mapOf(p["properties"])["vnetSubnetID"] = sub + "/resourceGroups/other/providers/Microsoft.Network/virtualNetworks/other/subnets/gpu"
			})},
		{name: "reserved label prefix", want: []string{"CONF-NODE-001"}, path: "nodeLabels", message: "kubernetes.azure.com/",
			mutate: inputs("aksml-prod-gpupools-a100", func(in map[string]any) {
				mapOf(in["nodeLabels"])["kubernetes.azure.com/accelerator"] = "nvidia"
			})},
		{name: "reserved taint prefix", want: []string{"CONF-NODE-001"}, path: "nodeTaints", message: "kubernetes.io/",
			mutate: templatePool(0, func(p map[string]any) {
				props := mapOf(p["properties"])
				props["nodeTaints"] = append(listOf(props["nodeTaints"]), "node-role.kubernetes.io/gpu=true:NoSchedule")
			})},
		{name: "pool name with capitals", want: []string{"CONF-POOL-002"}, message: `"H100Pool"`,
			mutate: inputs("aksml-prod-gpupools-h100", func(in map[string]any) { in["agentPoolName"] = "H100Pool" })},
		{name: "pool name too long", want: []string{"CONF-POOL-002"}, message: "at most 12",
			mutate: templatePool(1, func(p map[string]any) {
				p["name"] = "[format('{0}/{1}', parameters('clusterName'), 'managedgpupool')]"
			})},
		{name: "typed pools without order", want: []string{"CONF-POOL-003"}, message: "in parallel with",
			mutate: func(t *testing.T, st *rules.Stack) {
				r := find(t, st, "aksml-prod-gpupools-h100")
				r.DependsOn = slices.DeleteFunc(r.DependsOn, func(d string) bool {
					return strings.HasSuffix(d, "AgentPool::aksml-prod-gpupools-a100spot")
				})
			}},
		{name: "template pools without dependsOn", want: []string{"CONF-POOL-003"}, message: "written in parallel by one template",
			mutate: templatePool(1, func(p map[string]any) { delete(p, "dependsOn") })},
		{name: "parallel copy loop of pools", want: []string{"CONF-POOL-003"}, message: "copy loop",
			mutate: func(t *testing.T, st *rules.Stack) { makeLoop(t, st, 0, nil) }},
		{name: "copy loop writing one pool name twice", want: []string{"CONF-ID-002", "CONF-POOL-001"}, message: "aksml-prod/gpumgd",
			mutate: templatePool(0, func(p map[string]any) {
				p["copy"] = map[string]any{"name": "pools", "count": 2.0, "mode": "serial", "batchSize": 1.0}
			})},
		{name: "managed GPU pool with the autoscaler", want: []string{"CONF-POOL-004"}, path: "enableAutoScaling",
			mutate: templatePool(0, func(p map[string]any) {
				props := mapOf(p["properties"])
				props["enableAutoScaling"], props["minCount"], props["maxCount"] = true, 0.0, 2.0
				delete(props, "count")
			})},
		{name: "autoscaled template pool sending count", want: []string{"CONF-POOL-006"}, path: "count",
			mutate: func(t *testing.T, st *rules.Stack) {
				props := mapOf(mapOf(templateResources(t, find(t, st, prodPoolsStack))[1])["properties"])
				require.Equal(t, true, props["enableAutoScaling"], "template pool 1 is the autoscaled None pool")
				props["count"] = 1.0
			}},
		{name: "autoscaled typed pool sending count", want: []string{"CONF-POOL-006"}, path: "count", message: "a100",
			mutate: func(t *testing.T, st *rules.Stack) {
				in := find(t, st, prodTypedPool).Inputs
				require.Equal(t, true, in["enableAutoScaling"])
				in["count"] = 1.0
			}},
		{name: "autoscaled inline pool sending count", want: []string{"CONF-POOL-006"}, path: "agentPoolProfiles[0] count",
			mutate: func(t *testing.T, st *rules.Stack) {
				in := find(t, st, prodCluster).Inputs
				sys := mapOf(listOf(in["agentPoolProfiles"])[0])
				require.Equal(t, true, sys["enableAutoScaling"])
				sys["count"] = 3.0
			}},
		{name: "deployment stack named without its cluster", want: []string{"CONF-ID-003"}, path: "deploymentStackName", message: "azure-monitor-stack",
			mutate: inputs(prodMonitor, func(in map[string]any) { in["deploymentStackName"] = "azure-monitor-stack" })},
		{name: "alert on a series the collection drops", want: []string{"CONF-MON-002"}, path: "properties.rules", message: "kube_job_status_failed",
			mutate: removeResource("observability-ama-settings")},
		{name: "alert on a series nothing scrapes", want: []string{"CONF-MON-002"}, path: "properties.rules[0]", message: "aksml_never_scraped",
			mutate: ruleGroup(func(props map[string]any) {
				rule := mapOf(listOf(props["rules"])[0])
				rule["expression"] = "aksml_never_scraped > 0"
			})},
		{name: "Blob class without an account in aksml's VNet", want: []string{"CONF-STO-002"}, path: "parameters.storageAccount", message: "ml-azureblob-blockcache",
			mutate: func(t *testing.T, st *rules.Stack) {
				st.Resources = append(st.Resources, rules.Resource{Type: "kubernetes:storage.k8s.io/v1:StorageClass", Name: "storage-classes-blob-blockcache",
					URN: "urn:pulumi:prod::aksml::kubernetes:storage.k8s.io/v1:StorageClass::storage-classes-blob-blockcache",
					Inputs: map[string]any{"metadata": map[string]any{"name": "ml-azureblob-blockcache"}, "provisioner": "blob.csi.azure.com",
						"parameters": map[string]any{"protocol": "fuse2", "skuName": "Premium_LRS"}}})
			}},
		{name: "gpuProfile.nvidia at 2026-01-02-preview", want: []string{"CONF-POOL-005"}, message: "2026-01-02-preview",
			mutate: templatePool(0, func(p map[string]any) { p["apiVersion"] = "2026-01-02-preview" })},
		{name: "no Network Contributor on the node subnet", want: []string{"CONF-ROLE-001"}, message: "Network Contributor",
			mutate: removeResource(prodSubnetRole)},
		{name: "subnet role with a reader role", want: []string{"CONF-ROLE-001"}, message: "Network Contributor",
			mutate: inputs(prodSubnetRole, func(in map[string]any) {
				in["roleDefinitionId"] = sub + "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"
			})},
		{name: "subnet role for a principal that is not the cluster's", want: []string{"CONF-ROLE-001"}, message: "Network Contributor",
			mutate: func(t *testing.T, st *rules.Stack) {
				r, cluster := find(t, st, prodSubnetRole), find(t, st, prodCluster)
				require.Contains(t, r.DependsOn, cluster.URN, "the real assignment takes the cluster's principal")
				r.DependsOn = slices.DeleteFunc(r.DependsOn, func(d string) bool { return d == cluster.URN })
				r.Inputs["principalId"] = "0d0d0d0d-4444-4444-8444-000000000004"
			}},
		{name: "no storage role for the CSI drivers", want: []string{"CONF-ROLE-002"}, message: "Storage Account Contributor",
			mutate: removeResource("storage-files-csi")},
		{name: "storage rule naming a subnet without nodes", want: []string{"CONF-STO-001"}, path: "virtualNetworkRules[0]", message: "which no agent pool",
			mutate: inputs("storage-files", func(in map[string]any) {
				mapOf(in["networkRuleSet"])["virtualNetworkRules"] = []any{map[string]any{"virtualNetworkResourceId": prodVNet + "/subnets/elsewhere"}}
			})},
		{name: "storage denying public access with neither a VNet rule nor a private endpoint", want: []string{"CONF-STO-001"}, message: "neither a VNet rule",
			mutate: func(t *testing.T, st *rules.Stack) {
				require.Empty(t, getPath(find(t, st, "storage-files").Inputs, "networkRuleSet", "virtualNetworkRules"), "prod reaches storage by private endpoint only")
				removeResource("storage-files-file-pe")(t, st)
				removeResource("storage-files-file-pe-dns")(t, st)
			}},
		{name: "private endpoint to another storage account", want: []string{"CONF-STO-001"}, message: "neither a VNet rule",
			mutate: inputs("storage-files-file-pe", func(in map[string]any) {
				conn := mapOf(listOf(in["privateLinkServiceConnections"])[0])
				conn["privateLinkServiceId"] = sub + "/resourceGroups/rg-aksml-prod/providers/Microsoft.Storage/storageAccounts/otherfiles"
			})},
		{name: "node-image channel with SecurityPatch node OS channel", want: []string{"CONF-UPG-001"}, message: "NodeImage",
			mutate: inputs(prodCluster, func(in map[string]any) {
				in["autoUpgradeProfile"] = map[string]any{"upgradeChannel": "node-image", "nodeOSUpgradeChannel": "SecurityPatch"}
			})},
	}
}

// TestNegative mutates the clean fixture once per case and requires
// exactly the named rules to fire.
func TestNegative(t *testing.T) {
	sp := specs(t)
	for _, c := range negativeCases() {
		t.Run(c.name, func(t *testing.T) {
			st := cleanProd(t)
			c.mutate(t, st)
			rep := Check(st, sp)
			fired := map[string]bool{}
			matched := false
			for _, f := range rep.Findings {
				fired[f.Rule] = true
				if f.Rule == c.want[0] && strings.Contains(f.Path, c.path) && strings.Contains(f.Message, c.message) {
					matched = true
				}
			}
			var got []string
			for id := range fired {
				got = append(got, id)
			}
			slices.Sort(got)
			want := slices.Clone(c.want)
			slices.Sort(want)
			require.Equal(t, want, got, "rules that fired; findings: %v", rep.Findings)
			require.True(t, matched, "no %s finding with path %q and message %q in %v", c.want[0], c.path, c.message, rep.Findings)
		})
	}
}
