package tests

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/tenancy"
	"github.com/aksml/aksml/components/vocab"
	"github.com/aksml/aksml/components/workloads"
	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/policy/rules"
	"github.com/aksml/aksml/stacks"
)

// byType returns the resources whose type token ends with suffix (API
// versions such as containerservice/v20241001 vary).
func byType(s *rules.Stack, suffix string) []rules.Resource {
	var out []rules.Resource
	for _, r := range s.Resources {
		if strings.HasSuffix(r.Type, suffix) {
			out = append(out, r)
		}
	}
	return out
}

func synthStack(t *testing.T, stack string) *rules.Stack {
	t.Helper()
	st, err := synth.Synth(projectDir, stack)
	require.NoError(t, err)
	return st
}

// TestDevStack checks the seed's values on what the dev stack registers.
func TestDevStack(t *testing.T) {
	st := synthStack(t, "dev")

	clusters := byType(st, ":ManagedCluster")
	require.Len(t, clusters, 1)
	profile := clusters[0].Get("autoScalerProfile").(map[string]any)
	assert.Equal(t, "20s", profile["scanInterval"], "AKS MLOps best practices: scan-interval")
	assert.Equal(t, "10m", profile["scaleDownUnneededTime"])
	assert.Equal(t, "15m", profile["scaleDownDelayAfterAdd"])
	assert.Equal(t, "120", profile["maxGracefulTerminationSec"])
	system := clusters[0].Get("agentPoolProfiles").([]any)[0].(map[string]any)
	assert.Equal(t, "System", system["mode"])
	assert.Equal(t, []any{"CriticalAddonsOnly=true:NoSchedule"}, system["nodeTaints"])
	assert.False(t, clusters[0].Protect, "dev is not protected")

	pools := byType(st, ":AgentPool")
	require.Len(t, pools, 4, "t4, t4spot, a100mig and t4serve are DriverOnly pools")
	for _, p := range pools {
		assert.Equal(t, 0.0, p.Inputs["minCount"], "%s scales to zero", p.Name)
		assert.NotContains(t, p.Inputs, "count", "%s is autoscaled: no count, so an update never resets the autoscaler's choice (issue 27)", p.Name)
		assert.Equal(t, true, p.Inputs["enableAutoScaling"])
		assert.Equal(t, "User", p.Inputs["mode"])
		taints := p.Inputs["nodeTaints"].([]any)
		assert.Contains(t, taints, "sku=gpu:NoSchedule", "%s keeps ordinary pods off GPUs", p.Name)
		labels := p.Inputs["nodeLabels"].(map[string]any)
		assert.Equal(t, "nvidia", labels["accelerator"])
		if p.Inputs["scaleSetPriority"] == "Spot" {
			assert.Equal(t, "Delete", p.Inputs["scaleSetEvictionPolicy"])
			assert.Equal(t, -1.0, p.Inputs["spotMaxPrice"])
			assert.Contains(t, taints, "kubernetes.azure.com/scalesetpriority=spot:NoSchedule")
			assert.Equal(t, "gpu-spot", labels["workload"])
		}
	}

	kc := st.Outputs["kubeconfig"]
	assert.True(t, kc.Secret, "the kubeconfig output is a secret")
	providers := byType(st, "pulumi:providers:kubernetes")
	require.Len(t, providers, 1)
	assert.Contains(t, providers[0].SecretInputs, "kubeconfig")

	// One of each workload kind, none of them awaited by pulumi up.
	for _, kind := range []string{"batch/v1:Job", "batch/v1:CronJob", "kubeflow.org/v1:PyTorchJob", "kubeflow.org/v1:TFJob"} {
		objs := byType(st, kind)
		require.NotEmpty(t, objs, kind)
		for _, o := range objs {
			ann, _ := o.Get("metadata.annotations").(map[string]any)
			assert.Equal(t, "true", ann["pulumi.com/skipAwait"], "%s %s must not block pulumi up", kind, o.Name)
		}
	}

	// The DCGM PodMonitor lives in gpustack's namespace: it must wait for it.
	var monitored bool
	for _, pm := range byType(st, "azmonitoring.coreos.com/v1:PodMonitor") {
		if pm.Get("metadata.namespace") == "gpu-operator" {
			monitored = true
			assert.Contains(t, pm.DependsOn, "urn:pulumi:dev::aksml::aksml:gpustack:GPUStack$kubernetes:core/v1:Namespace::gpustack-namespace")
		}
	}
	assert.True(t, monitored, "dev has DriverOnly pools, so the DCGM PodMonitor exists")

	cost := st.Outputs["costSummary"].Value.(map[string]any)
	assert.Equal(t, 0.0, cost["idlePerHour"], "dev GPU pools cost nothing when idle")
	assert.Greater(t, cost["maxPerHour"], 0.0)
}

// TestProdStack checks the production baseline of SPEC C9.
func TestProdStack(t *testing.T) {
	st := synthStack(t, "prod")

	clusters := byType(st, ":ManagedCluster")
	require.Len(t, clusters, 1)
	c := clusters[0]
	assert.True(t, c.Protect, "prod cluster is protected")
	assert.Equal(t, true, c.Get("disableLocalAccounts"))
	assert.Equal(t, true, c.Get("aadProfile.enableAzureRBAC"))
	assert.Equal(t, true, c.Get("securityProfile.defender.securityMonitoring.enabled"))
	assert.NotEmpty(t, c.Get("apiServerAccessProfile.authorizedIPRanges"))
	assert.Len(t, byType(st, ":MaintenanceConfiguration"), 2)

	for _, p := range byType(st, ":AgentPool") {
		if p.Inputs["vmSize"] == "Standard_ND96isr_H100_v5" {
			assert.Equal(t, []any{"1"}, p.Inputs["availabilityZones"], "the InfiniBand pool %s stays in one zone", p.Name)
			continue
		}
		assert.Equal(t, []any{"1", "2", "3"}, p.Inputs["availabilityZones"], "%s spans zones 1-3", p.Name)
	}

	// The network layer: every pool in the node subnet, the cluster identity
	// on it, storage reached through private endpoints resolved by linked
	// privatelink zones, and no storage rule naming another subnet.
	subnets := byType(st, ":Subnet")
	require.Len(t, subnets, 2, "node and private endpoint subnets")
	nodeSubnet := "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-aksml-prod-net/providers/Microsoft.network/Subnet/network-nodes"
	for _, p := range byType(st, ":AgentPool") {
		assert.Equal(t, nodeSubnet, p.Inputs["vnetSubnetID"], "%s joins the node subnet", p.Name)
	}
	for _, p := range c.Get("agentPoolProfiles").([]any) {
		assert.Equal(t, nodeSubnet, p.(map[string]any)["vnetSubnetID"], "inline pool %v joins the node subnet", p.(map[string]any)["name"])
	}
	for _, s := range byType(st, ":DeploymentStackAtResourceGroup") {
		if strings.Contains(s.Name, "gpupools") {
			assert.Equal(t, nodeSubnet, s.Get("parameters.nodeSubnetId.value"), "template pools read the node subnet")
		}
	}
	grants := 0
	for _, r := range byType(st, ":RoleAssignment") {
		if strings.HasSuffix(str(r.Inputs["roleDefinitionId"]), "4d97b98b-1d4f-4787-a291-c67834d212e7") {
			grants++
			assert.Equal(t, nodeSubnet, r.Inputs["scope"], "Network Contributor on the node subnet")
		}
	}
	assert.Equal(t, 1, grants)
	zones := map[any]bool{}
	for _, z := range byType(st, ":PrivateZone") {
		zones[z.Inputs["privateZoneName"]] = true
	}
	assert.True(t, zones["privatelink.file.core.windows.net"])
	assert.Len(t, byType(st, ":VirtualNetworkLink"), 2, "each zone linked to the VNet")
	pes := byType(st, ":PrivateEndpoint")
	require.Len(t, pes, 1, "the Azure Files account through a private endpoint")
	assert.Equal(t, "file", pes[0].Get("privateLinkServiceConnections").([]any)[0].(map[string]any)["groupIds"].([]any)[0])
	for _, a := range byType(st, "storage:StorageAccount") {
		for _, rule := range a.Get("networkRuleSet.virtualNetworkRules").([]any) {
			assert.Equal(t, nodeSubnet, rule.(map[string]any)["virtualNetworkResourceId"], "%s allows only the nodes' subnet", a.Name)
		}
	}

	var filesProtected bool
	for _, a := range byType(st, "storage:StorageAccount") {
		if a.Inputs["kind"] == "FileStorage" {
			filesProtected = a.Protect
		}
		assert.Equal(t, "Deny", a.Get("networkRuleSet.defaultAction"), "prod storage is private")
	}
	assert.True(t, filesProtected, "the checkpoint account is protected")

	var checkpointClaims int
	for _, pvc := range byType(st, "core/v1:PersistentVolumeClaim") {
		if pvc.Get("metadata.name") == "model-checkpoints" {
			checkpointClaims++
			assert.True(t, pvc.RetainOnDelete, "checkpoint claim %s survives destroy", pvc.Name)
			assert.Equal(t, "ml-checkpoints-azurefile", pvc.Get("spec.storageClassName"))
		}
	}
	assert.Equal(t, 3, checkpointClaims, "one checkpoint claim per team")
	for _, ns := range byType(st, "core/v1:Namespace") {
		if labels, _ := ns.Get("metadata.labels").(map[string]any); labels["aksml.io/team"] != nil {
			assert.True(t, ns.RetainOnDelete, "team namespace %s outlives destroy so its checkpoint claim does", ns.Name)
		}
	}
	assert.Empty(t, byType(st, "batch/v1:Job"), "prod declares no example workloads")
	assert.Len(t, byType(st, ":DeploymentStackAtResourceGroup"), 7, "GPU pool stack, Azure Monitor stack, alert rule group, team identities, Log Analytics workspace (empty: prod brings its workspace), Container Insights + audit, registry")
}

// TestPoolWritesAreSerial checks, from the dependencies the stacks
// register, that no two agent-pool writes overlap (AKS answers a second
// concurrent pool operation with 409 OperationNotAllowed): each typed pool
// waits for the one before it, the template stack waits for the last typed
// pool, and inside the template each pool depends on the previous one.
func TestPoolWritesAreSerial(t *testing.T) {
	for _, stack := range []string{"dev", "prod"} {
		t.Run(stack, func(t *testing.T) {
			st := synthStack(t, stack)
			pools := byType(st, ":AgentPool")
			require.GreaterOrEqual(t, len(pools), 2)
			for i := 1; i < len(pools); i++ {
				assert.Contains(t, pools[i].DependsOn, pools[i-1].URN, "%s waits for %s", pools[i].Name, pools[i-1].Name)
			}
			var gpuStack *rules.Resource
			for _, r := range byType(st, ":DeploymentStackAtResourceGroup") {
				if strings.HasSuffix(r.Name, "-gpupools-stack") {
					gpuStack = &r
				}
			}
			require.NotNil(t, gpuStack)
			assert.Contains(t, gpuStack.DependsOn, pools[len(pools)-1].URN, "the template pools are written after the last typed pool")
			resources, _ := gpuStack.Get("template.resources").([]any)
			for i, r := range resources {
				deps, _ := r.(map[string]any)["dependsOn"].([]any)
				if i == 0 {
					assert.Empty(t, deps)
					continue
				}
				prev := resources[i-1].(map[string]any)["name"].(string)
				trimmed := strings.TrimSuffix(prev, "')]")
				prevPool := trimmed[strings.LastIndex(trimmed, "'")+1:]
				require.Len(t, deps, 1)
				assert.Contains(t, deps[0], "'"+prevPool+"')]", "template pool %d waits for %s", i, prevPool)
			}
		})
	}
}

// TestManagedPrometheusIsConnected checks that on AKS the metrics add-on
// has somewhere to write: the monitor stack holds the DCE, the DCR sending
// Microsoft-PrometheusMetrics to the workspace and the association on the
// cluster, and prod's rule group and Grafana use that workspace.
func TestManagedPrometheusIsConnected(t *testing.T) {
	for stack, want := range map[string][]string{
		"dev": {"Microsoft.Monitor/accounts", "Microsoft.Insights/dataCollectionEndpoints", "Microsoft.Insights/dataCollectionRules",
			"Microsoft.ContainerService/managedClusters/providers/dataCollectionRuleAssociations"},
		"prod": {"Microsoft.Insights/dataCollectionEndpoints", "Microsoft.Insights/dataCollectionRules",
			"Microsoft.ContainerService/managedClusters/providers/dataCollectionRuleAssociations", "Microsoft.Dashboard/grafana"},
	} {
		t.Run(stack, func(t *testing.T) {
			st := synthStack(t, stack)
			var mon *rules.Resource
			for _, r := range byType(st, ":DeploymentStackAtResourceGroup") {
				if strings.HasSuffix(r.Name, "-azure-monitor-stack") {
					mon = &r
				}
			}
			require.NotNil(t, mon)
			var types []string
			for _, r := range mon.Get("template.resources").([]any) {
				types = append(types, r.(map[string]any)["type"].(string))
			}
			assert.Equal(t, want, types)
			cluster := byType(st, ":ManagedCluster")[0]
			assert.Contains(t, mon.DependsOn, cluster.URN, "the association waits for the cluster")
			assert.Equal(t, true, cluster.Get("azureMonitorProfile.metrics.enabled"))
			if stack == "prod" {
				ws := "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-observability/providers/Microsoft.Monitor/accounts/amw-aksml-prod"
				assert.Equal(t, ws, mon.Get("parameters.workspaceId.value"))
				readers := byType(st, "authorization:RoleAssignment")
				var grafanaReader bool
				for _, r := range readers {
					if r.Inputs["scope"] == ws {
						grafanaReader = true
						assert.Contains(t, r.Inputs["roleDefinitionId"], "b0d8363b-8ddd-447d-831f-62ca05bff136")
					}
				}
				assert.True(t, grafanaReader, "Grafana's identity reads the workspace")
				for _, r := range byType(st, ":DeploymentStackAtResourceGroup") {
					if strings.HasSuffix(r.Name, "-alert-rules-rulegroup") {
						assert.Equal(t, ws, r.Get("parameters.azureMonitorWorkspaceId.value"), "the rule group evaluates the same workspace")
					}
				}
			}
		})
	}
}

// TestInvalidConfigRegistersNothing proves validation runs before any
// resource is registered.
func TestInvalidConfigRegistersNothing(t *testing.T) {
	cfg, err := synth.ReadStackConfig(projectDir, "dev")
	require.NoError(t, err)
	cfg["aksml:gpuPools"] = `[{"name":"t4","vmSize":"Standard_NV12s_v3","workload":"training","minCount":2,"maxCount":1}]`
	st, err := synth.Run("dev", "dev", cfg, stacks.Program)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "aksml:gpuPools[0].vmSize: Standard_NV12s_v3 is an NV-series (M60) SKU")
	assert.Contains(t, err.Error(), "aksml:gpuPools[0].minCount: minCount (2) > maxCount (1)")
	assert.Empty(t, st.Resources, "an invalid config registers no resources")
}

// TestExistingClusterMode deploys the Kubernetes layer onto a cluster aksml
// does not create: no Azure resource may be registered.
func TestExistingClusterMode(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(synth.FakeKubeconfig), 0o600))
	cfg := map[string]string{
		"aksml:existingCluster": `{"kubeconfigPath":"` + kubeconfig + `","context":"synth"}`,
		"aksml:gpuPools":        `[{"name":"gpu","vmSize":"Standard_NC24ads_A100_v4","workload":"training","maxCount":2}]`,
		"aksml:teams":           `[{"name":"team-a","gpuQuota":{"gpu":2},"cpu":"16","memory":"64Gi"}]`,
	}
	st, err := synth.Run("byo", "dev", cfg, stacks.Program)
	require.NoError(t, err)
	for _, r := range st.Resources {
		assert.False(t, strings.HasPrefix(r.Type, "azure-native:"), "existing-cluster mode registered %s", r.Type)
	}
	assert.NotEmpty(t, byType(st, "kueue.x-k8s.io/v1beta2:ClusterQueue"))
	assert.Len(t, byType(st, "storage.k8s.io/v1:StorageClass"), 5, "four seed classes and ml-scratch-azuredisk")
	assert.NotEmpty(t, byType(st, "apps/v1:DaemonSet"), "the device plugin is installed for the DriverOnly pool")
	providers := byType(st, "pulumi:providers:kubernetes")
	require.Len(t, providers, 1)
	for _, r := range st.Resources {
		if strings.HasPrefix(r.Type, "kubernetes:") && r.Parent == "" {
			t.Errorf("%s has no parent component", r.URN)
		}
	}
}

func str(v any) string { s, _ := v.(string); return s }

// TestTwoStackShapeForAPrivateAPIServer: an Azure-layer stack may have a
// private API server and registers no Kubernetes object; it creates its
// teams' Azure side (identities, federated credentials, group roles) and
// exports it; a Kubernetes-layer stack reads its kubeconfig, storage account
// and team identities through a StackReference and creates no Azure
// resource.
func TestTwoStackShapeForAPrivateAPIServer(t *testing.T) {
	cfg, err := synth.ReadStackConfig(projectDir, "prod")
	require.NoError(t, err)
	delete(cfg, "aksml:trainingOperator")
	// The Azure layer reads each team's name and groups only.
	var teams []map[string]any
	require.NoError(t, json.Unmarshal([]byte(cfg["aksml:teams"]), &teams))
	var azureTeams []map[string]any
	for _, tm := range teams {
		azureTeams = append(azureTeams, map[string]any{"name": tm["name"], "groups": tm["groups"]})
	}
	raw, err := json.Marshal(azureTeams)
	require.NoError(t, err)
	cfg["aksml:teams"] = string(raw)
	cfg["aksml:kubernetesLayer"] = "false"
	var cl map[string]any
	require.NoError(t, json.Unmarshal([]byte(cfg["aksml:cluster"]), &cl))
	cl["apiServer"] = map[string]any{"private": true}
	raw, err = json.Marshal(cl)
	require.NoError(t, err)
	cfg["aksml:cluster"] = string(raw)
	azure, err := synth.Run("prod-azure", "prod", cfg, stacks.Program)
	require.NoError(t, err)
	for _, r := range azure.Resources {
		assert.False(t, strings.HasPrefix(r.Type, "kubernetes:"), "the Azure-layer stack registered %s", r.URN)
	}
	clusters := byType(azure, ":ManagedCluster")
	require.Len(t, clusters, 1)
	assert.Equal(t, true, clusters[0].Get("apiServerAccessProfile.enablePrivateCluster"))
	for _, out := range []string{"kubeconfig", "clusterResourceId", "resourceGroupName", "filesStorageAccount", stacks.TeamIdentitiesOutput} {
		assert.Contains(t, azure.Outputs, out, "the Kubernetes-layer stack reads %s", out)
	}
	assert.Empty(t, rules.MandatoryOnly(rules.Check(azure)), "a private API server without Kubernetes objects passes the guardrails")

	// The teams' Azure side: one identities stack with an identity and a
	// federated credential per team, and each team group's Cluster User and
	// namespace roles on the cluster.
	identities := byType(azure, tenancy.TeamIdentitiesType)
	require.Len(t, identities, 1)
	var stack *rules.Resource
	for i, r := range azure.Resources {
		if strings.HasSuffix(r.Name, "-identities") && strings.HasSuffix(r.Type, ":DeploymentStackAtResourceGroup") {
			stack = &azure.Resources[i]
		}
	}
	require.NotNil(t, stack, "the team identities deployment stack")
	assert.Equal(t, identities[0].URN, stack.Parent, "the identities belong to TeamIdentities")
	exported, _ := azure.Outputs[stacks.TeamIdentitiesOutput].Value.(map[string]any)
	require.Len(t, exported, len(teams))
	assignments := byType(azure, ":RoleAssignment")
	for _, tm := range teams {
		name := tm["name"].(string)
		entry, _ := exported[name].(map[string]any)
		assert.NotEmpty(t, entry["clientId"], "team %s's client ID is exported", name)
		assert.Equal(t, tm["groups"], entry["groups"], "team %s's groups are exported", name)
		for _, g := range tm["groups"].([]any) {
			var roles []string
			for _, a := range assignments {
				if a.Inputs["principalId"] == g && a.Parent == identities[0].URN {
					roles = append(roles, path.Base(str(a.Inputs["roleDefinitionId"])))
				}
			}
			assert.ElementsMatch(t, []string{tenancy.ClusterUserRoleID, tenancy.NamespaceRoleID}, roles, "team %s group %s", name, g)
		}
	}

	k8s, err := synth.Run("prod-k8s", "prod", map[string]string{
		"aksml:existingCluster": `{"stackReference":"organization/aksml/prod-azure"}`,
		"aksml:gpuPools":        `[{"name":"a100","vmSize":"Standard_NC24ads_A100_v4","workload":"training","maxCount":2,"zones":["1"]}]`,
		"aksml:teams":           `[{"name":"team-a","groups":["` + synth.ReferencedTeamGroup + `"],"gpuQuota":{"a100":2},"cpu":"16","memory":"64Gi"}]`,
	}, stacks.Program)
	require.NoError(t, err)
	for _, r := range k8s.Resources {
		assert.False(t, strings.HasPrefix(r.Type, "azure-native:"), "the Kubernetes-layer stack registered %s", r.URN)
	}
	var refs []rules.Resource
	for _, r := range byType(k8s, "pulumi:pulumi:StackReference") {
		if r.Inputs["name"] != "organization/aksml/prod-k8s" { // not its reference to itself
			refs = append(refs, r)
		}
	}
	require.Len(t, refs, 1)
	assert.Equal(t, "organization/aksml/prod-azure", refs[0].Inputs["name"])
	for _, sc := range byType(k8s, "storage.k8s.io/v1:StorageClass") {
		if strings.Contains(sc.Name, "azurefile") || strings.Contains(sc.Name, "checkpoints") {
			assert.Equal(t, "azurefiles", sc.Get("parameters.storageAccount"), "%s uses the Azure stack's account", sc.Name)
			assert.Equal(t, "rg-azure", sc.Get("parameters.resourceGroup"))
		}
	}
	providers := byType(k8s, "pulumi:providers:kubernetes")
	require.Len(t, providers, 1)
	assert.Contains(t, providers[0].SecretInputs, "kubeconfig")
	// The team's training ServiceAccount carries the identity the Azure
	// layer created, so workload identity works in existing-cluster mode.
	var sas []rules.Resource
	for _, sa := range byType(k8s, "kubernetes:core/v1:ServiceAccount") {
		if sa.Get("metadata.namespace") == "team-a" {
			sas = append(sas, sa)
		}
	}
	require.Len(t, sas, 1)
	assert.Equal(t, tenancy.TrainingServiceAccount, sas[0].Get("metadata.name"))
	annotations, _ := sas[0].Get("metadata.annotations").(map[string]any)
	assert.Equal(t, synth.ReferencedTeamClientID, annotations[tenancy.ClientIDAnnotation])
}

// TestKubernetesLayerTeamsMatchTheAzureLayer: a Kubernetes-layer team the
// referenced Azure-layer stack does not export, or whose groups differ from
// the ones given Azure roles there, fails before anything but the reference
// and the provider is registered, naming the key.
func TestKubernetesLayerTeamsMatchTheAzureLayer(t *testing.T) {
	for _, tc := range []struct{ name, teams, want string }{
		{"team unknown to the Azure layer", `[{"name":"team-b","groups":["` + synth.ReferencedTeamGroup + `"],"cpu":"16","memory":"64Gi"}]`,
			`aksml:teams[0].name: team "team-b" has no identity in stack organization/aksml/prod-azure (output teamIdentities)`},
		{"other groups", `[{"name":"team-a","groups":["3a3a3a3a-3333-4333-8333-0000000000ff"],"cpu":"16","memory":"64Gi"}]`,
			`aksml:teams[0].groups: [3a3a3a3a-3333-4333-8333-0000000000ff] differ from the groups stack organization/aksml/prod-azure gives team "team-a" Azure roles`},
		{"no groups", `[{"name":"team-a","cpu":"16","memory":"64Gi"}]`,
			`aksml:teams[0].groups: [] differ from the groups`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := synth.Run("prod-k8s", "dev", map[string]string{
				"aksml:existingCluster": `{"stackReference":"organization/aksml/prod-azure"}`,
				"aksml:teams":           tc.teams,
			}, stacks.Program)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			for _, r := range st.Resources {
				assert.Contains(t, []string{"pulumi:pulumi:StackReference", "pulumi:providers:kubernetes"}, r.Type, "%s registered before the teams were checked", r.URN)
			}
		})
	}
	// The same groups in another order and case are the same team.
	_, err := synth.Run("prod-k8s", "dev", map[string]string{
		"aksml:existingCluster": `{"stackReference":"organization/aksml/prod-azure"}`,
		"aksml:teams":           `[{"name":"team-a","groups":["` + strings.ToUpper(synth.ReferencedTeamGroup) + `"],"cpu":"16","memory":"64Gi"}]`,
	}, stacks.Program)
	require.NoError(t, err)
}

// TestInvalidNetworkConfigsRegisterNothing runs the prod stack with one
// network problem at a time: each fails before any resource is registered,
// naming its key.
func TestInvalidNetworkConfigsRegisterNothing(t *testing.T) {
	cases := []struct {
		name, key, value, want string
	}{
		{"API server open to the internet", "aksml:cluster", `"apiServer":{"authorizedIPRanges":["0.0.0.0/0"]}`, "aksml:cluster.apiServer.authorizedIPRanges[0]: 0.0.0.0/0 allows every address"},
		{"private API server with the Kubernetes layer", "aksml:cluster", `"apiServer":{"private":true}`, "aksml:cluster.apiServer.private"},
		{"VNet overlapping the service range", "aksml:network", `"addressSpace":"10.0.0.0/16"`, "aksml:network.addressSpace: 10.0.0.0/16 overlaps the service range"},
		{"storage rule for another subnet", "aksml:storage", `"accounts":{"namePrefix":"aksmlprod","privateNetwork":true,"allowedSubnetIds":["/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s"]}`, "aksml:storage.accounts.allowedSubnetIds[0]"},
		{"InfiniBand pool over zones", "aksml:gpuPools", "", "aksml:gpuPools[0].zones: Standard_ND96isr_H100_v5 is an InfiniBand (RDMA) size"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := synth.ReadStackConfig(projectDir, "prod")
			require.NoError(t, err)
			switch {
			case tc.key == "aksml:gpuPools":
				cfg[tc.key] = `[{"name":"h100","vmSize":"Standard_ND96isr_H100_v5","workload":"training","maxCount":2,"zones":["1","2"]}]`
				delete(cfg, "aksml:teams")
			case tc.value == "":
				delete(cfg, tc.key)
			default:
				var section map[string]any
				require.NoError(t, json.Unmarshal([]byte(cfg[tc.key]), &section))
				var patch map[string]any
				require.NoError(t, json.Unmarshal([]byte("{"+tc.value+"}"), &patch))
				for k, v := range patch {
					section[k] = v
				}
				raw, err := json.Marshal(section)
				require.NoError(t, err)
				cfg[tc.key] = string(raw)
			}
			st, err := synth.Run("prod", "prod", cfg, stacks.Program)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Empty(t, st.Resources, "an invalid config registers no resources")
		})
	}
}

// TestInvalidTeamGroupsRegisterNothing: a team group that is not an object
// ID and an unknown egress policy fail before anything is registered, with
// the config key named.
func TestInvalidTeamGroupsRegisterNothing(t *testing.T) {
	cfg, err := synth.ReadStackConfig(projectDir, "dev")
	require.NoError(t, err)
	cfg["aksml:teams"] = `[{"name":"team-a","gpuQuota":{"t4":1},"cpu":"16","memory":"64Gi","groups":["ml-team-a"],"egress":"Open"}]`
	cfg["aksml:workloads"] = `[]`
	st, err := synth.Run("dev", "dev", cfg, stacks.Program)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `aksml:teams[0].groups[0]: "ml-team-a" is not a Microsoft Entra group object ID`)
	assert.Contains(t, err.Error(), `aksml:teams[0].egress: `)
	assert.Empty(t, st.Resources, "an invalid config registers no resources")
}

// TestEveryTeamNamespaceIsIsolated: every team of every shipped stack gets
// the default-deny policy, and its groups are bound.
func TestEveryTeamNamespaceIsIsolated(t *testing.T) {
	for _, stack := range []string{"dev", "prod", "local"} {
		st := synthStack(t, stack)
		for _, ns := range byType(st, "core/v1:Namespace") {
			labels, _ := ns.Get("metadata.labels").(map[string]any)
			if labels["aksml.io/team"] == nil {
				continue
			}
			name := ns.Get("metadata.name")
			var deny, binding bool
			for _, np := range byType(st, "networking.k8s.io/v1:NetworkPolicy") {
				deny = deny || (np.Get("metadata.namespace") == name && np.Get("metadata.name") == "aksml-default-deny")
			}
			for _, rb := range byType(st, "rbac.authorization.k8s.io/v1:RoleBinding") {
				binding = binding || rb.Get("metadata.namespace") == name
			}
			assert.True(t, deny, "%s: team namespace %s has no default-deny policy", stack, name)
			assert.True(t, binding, "%s: team namespace %s has no RoleBinding for its groups", stack, name)
		}
	}
}

// TestMonitoringStacksOutliveToggles: with observability off (or the rule
// groups off) both Azure Monitor deployment stacks stay registered with
// empty templates, so the toggle deletes the rule group, DCR and friends
// instead of detaching them and leaving the rule group evaluating; each
// stack's Azure name carries the cluster name (issue 27).
func TestMonitoringStacksOutliveToggles(t *testing.T) {
	for name, obs := range map[string]string{
		"observability off": `{"enabled": false}`,
		"rule groups off":   `{"prometheusRuleGroups": false}`,
	} {
		t.Run(name, func(t *testing.T) {
			cfg, err := synth.ReadStackConfig(projectDir, "dev")
			require.NoError(t, err)
			cfg["aksml:observability"] = obs
			if name == "observability off" {
				// Without a workspace the InferenceServer's default keda
				// scaler is refused; the README's move is metricsAdapter.
				cfg["aksml:workloads"] = withScaler(t, cfg["aksml:workloads"], workloads.ScalerMetricsAdapter)
			}
			st, err := synth.Run("dev", "dev", cfg, stacks.Program)
			require.NoError(t, err)
			cluster := byType(st, ":ManagedCluster")[0].Inputs["resourceName"].(string)
			found := map[string]bool{}
			for _, r := range byType(st, ":DeploymentStackAtResourceGroup") {
				for _, suffix := range []string{"-azure-monitor-stack", "-alert-rules-rulegroup"} {
					if !strings.HasSuffix(r.Name, suffix) {
						continue
					}
					found[suffix] = true
					assert.Equal(t, cluster+suffix, r.Inputs["deploymentStackName"], "the Azure stack name carries the cluster name")
					if suffix == "-alert-rules-rulegroup" || name == "observability off" {
						assert.Empty(t, r.Get("template.resources"), "%s holds nothing while off", r.Name)
					}
				}
			}
			assert.Equal(t, map[string]bool{"-azure-monitor-stack": true, "-alert-rules-rulegroup": true}, found)
		})
	}
}

// withScaler returns the JSON of aksml:workloads with every InferenceServer's
// autoscaling.scaler set to scaler.
func withScaler(t *testing.T, raw, scaler string) string {
	t.Helper()
	var ws []map[string]any
	require.NoError(t, json.Unmarshal([]byte(raw), &ws))
	for _, w := range ws {
		if w["kind"] == string(stacks.KindInferenceServer) {
			as, _ := w["autoscaling"].(map[string]any)
			if as == nil {
				as = map[string]any{}
			}
			as["scaler"] = scaler
			w["autoscaling"] = as
		}
	}
	out, err := json.Marshal(ws)
	require.NoError(t, err)
	return string(out)
}

// TestOneStackPerCluster: a stack whose cluster another aksml stack owns
// (vocab.OwnerAnnotation on kube-system) fails before it registers any
// Kubernetes object, naming the key that points it at the cluster and the
// owner; its own claim, or no claim, passes and claims the cluster for it.
func TestOneStackPerCluster(t *testing.T) {
	t.Cleanup(func() { synth.ClusterOwner = "" })
	const other = "organization/aksml/platform-a"
	for _, tc := range []struct{ stack, key string }{
		{"local", "aksml:existingCluster"},
		{"dev", "aksml:cluster.name"},
	} {
		t.Run(tc.stack, func(t *testing.T) {
			synth.ClusterOwner = other
			st, err := synth.Synth(projectDir, tc.stack)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.key+": the cluster is owned by aksml stack "+other)
			assert.Contains(t, err.Error(), "add this stack's teams to "+other)
			for _, r := range st.Resources {
				if strings.HasPrefix(r.Type, "kubernetes:") {
					assert.True(t, r.Read, "%s registered although another stack owns the cluster", r.URN)
				}
			}

			for _, owner := range []string{"", "organization/aksml/" + tc.stack} {
				synth.ClusterOwner = owner
				st, err := synth.Synth(projectDir, tc.stack)
				require.NoError(t, err, "owner %q", owner)
				claims := byType(st, ":NamespacePatch")
				require.Len(t, claims, 1)
				assert.Equal(t, "kube-system", claims[0].Get("metadata.name"))
				assert.Equal(t, "organization/aksml/"+tc.stack, claims[0].Get("metadata.annotations").(map[string]any)[vocab.OwnerAnnotation])
			}
		})
	}
}

// TestKAITOOnAClusterAksmlCreates: the dev stack (aksml:kaito.install)
// installs the pinned KAITO chart with node auto-provisioning off; its
// InferenceWorkspace selects team-a's serving pool and its
// FineTuningWorkspace the regular T4 pool, both after KAITO's CRD; each
// team's admission policy pins its Workspaces to the pools it lists (not
// spot, not MIG); and the stack passes the guardrails.
func TestKAITOOnAClusterAksmlCreates(t *testing.T) {
	st := synthStack(t, "dev")

	charts := byType(st, "helm.sh/v4:Chart")
	var kaito *rules.Resource
	for i, c := range charts {
		if c.Inputs["chart"] == workloads.KAITOChart {
			kaito = &charts[i]
		}
	}
	require.NotNil(t, kaito, "the KAITO chart is installed")
	assert.Equal(t, "0.10.0", kaito.Inputs["version"])
	assert.Equal(t, workloads.KAITORepo, kaito.Get("repositoryOpts.repo"))
	assert.Equal(t, true, kaito.Get("values.featureGates.disableNodeAutoProvisioning"))

	ws := map[string]rules.Resource{}
	for _, r := range byType(st, "kaito.sh/v1alpha1:Workspace") {
		ws[r.Get("metadata.name").(string)] = r
		assert.Equal(t, "Standard_NC4as_T4_v3", r.Get("resource.instanceType"))
		assert.Contains(t, r.DependsOn, kaito.URN, "the Workspace waits for KAITO's CRD")
	}
	require.Len(t, ws, 2)
	assert.Equal(t, map[string]any{vocab.AgentPoolLabel: "t4serve"}, ws["phi-serve"].Get("resource.labelSelector.matchLabels"), "serving on the inference pool")
	assert.Equal(t, "phi-3-mini-4k-instruct", ws["phi-serve"].Get("inference.preset.name"))
	assert.Equal(t, map[string]any{vocab.AgentPoolLabel: "t4"}, ws["phi-tune"].Get("resource.labelSelector.matchLabels"))

	for team, pools := range map[string]string{
		"team-a": `{"t4": "Standard_NC4as_T4_v3", "t4serve": "Standard_NC4as_T4_v3"}`,
		"team-b": `{"t4": "Standard_NC4as_T4_v3"}`,
	} {
		var found bool
		for _, p := range byType(st, "admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy") {
			if p.Get("metadata.name") != tenancy.AdmissionPolicyName(team) {
				continue
			}
			for _, v := range p.Get("spec.validations").([]any) {
				if strings.Contains(v.(map[string]any)["message"].(string), "("+tenancy.RuleWorkspacePool+")") {
					found = true
					assert.Contains(t, v.(map[string]any)["expression"], "variables.workspacePool in "+pools, "%s: the non-spot, non-MIG pools it lists", team)
				}
			}
		}
		assert.True(t, found, "%s's policy pins its Workspaces' pools", team)
	}
	assert.Empty(t, rules.MandatoryOnly(rules.Check(st)), "the KAITO install passes the guardrails")
}
