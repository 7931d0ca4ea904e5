package stacks

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/aksml/aksml/components/network"
	"github.com/aksml/aksml/components/observability"
)

// testSubnetID is a subnet ARM ID for the network cases.
const testSubnetID = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/aks-nodes"

// baseYAML is a small valid dev config; each case below breaks one thing.
const baseYAML = `
environment: dev
cluster:
  name: aksml-test
  location: westeurope
  resourceGroup:
    name: rg-aksml-test
  apiServer:
    authorizedIPRanges: [203.0.113.0/24]
gpuPools:
  - name: t4
    vmSize: Standard_NC4as_T4_v3
    workload: training
    maxCount: 2
  - name: a100spot
    vmSize: Standard_NC24ads_A100_v4
    workload: training
    priority: Spot
    maxCount: 4
teams:
  - name: team-a
    gpuQuota: {t4: 1, a100spot: 2}
    cpu: "16"
    memory: 64Gi
  - name: team-b
    gpuQuota: {t4: 1, a100spot: 2}
    cpu: "16"
    memory: 64Gi
scheduler:
  system: kueue
`

// rawConfig renders a config tree the way the Pulumi CLI hands it to the
// program: `aksml:<key>` → string or JSON.
func rawConfig(t *testing.T, tree map[string]any) map[string]string {
	t.Helper()
	raw := map[string]string{}
	for k, v := range tree {
		if s, ok := v.(string); ok {
			raw[Namespace+":"+k] = s
			continue
		}
		b, err := json.Marshal(v)
		require.NoError(t, err)
		raw[Namespace+":"+k] = string(b)
	}
	return raw
}

func baseTree(t *testing.T) map[string]any {
	t.Helper()
	var tree map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(baseYAML), &tree))
	return tree
}

// at walks a tree by keys and list indexes.
func at(tree any, path ...any) map[string]any {
	cur := tree
	for _, p := range path {
		switch k := p.(type) {
		case string:
			cur = cur.(map[string]any)[k]
		case int:
			cur = cur.([]any)[k]
		}
	}
	return cur.(map[string]any)
}

func TestParseValidBase(t *testing.T) {
	c, err := Parse("dev", rawConfig(t, baseTree(t)))
	require.NoError(t, err)
	assert.Equal(t, EnvDev, c.Environment)
	assert.False(t, c.Protected(), "dev is not protected by default")
	assert.False(t, c.DigestRequired())
	require.Len(t, c.GPUPools, 2)
	assert.Equal(t, 0, c.res.pools[0].MinNodes, "GPU pools scale to zero by default")
	assert.Equal(t, "DriverOnly", string(c.GPUPools[0].GPUStack))
}

func TestParseAzureLinuxDriverOnlyPool(t *testing.T) {
	tree := baseTree(t)
	at(tree, "gpuPools", 0)["osSku"] = "AzureLinux"
	c, err := Parse("dev", rawConfig(t, tree))
	require.NoError(t, err)
	assert.Equal(t, "AzureLinux", string(c.GPUPools[0].OS()))
	assert.Equal(t, "Ubuntu", string(c.GPUPools[1].OS()), "Ubuntu by default")
}

// A cluster without aksml:network gets a VNet aksml creates, so its pools
// name their subnet (AKSML-NET-003) and private storage has a route.
func TestClusterGetsAVNetByDefault(t *testing.T) {
	tree := baseTree(t)
	delete(tree, "network")
	tree["storage"] = map[string]any{"accounts": map[string]any{"namePrefix": "aksmltest", "privateNetwork": true}}
	c, err := Parse("dev", rawConfig(t, tree))
	require.NoError(t, err)
	require.NotNil(t, c.Network)
	assert.False(t, c.Network.Existing)
	assert.Equal(t, network.DefaultAddressSpace, c.Network.AddressSpace)
	assert.NotEmpty(t, c.Network.NodeSubnet.Prefix, "sized from the pools")
}

func TestEnvironmentDefaultsFromStackName(t *testing.T) {
	tree := baseTree(t)
	delete(tree, "environment")
	c, err := Parse("dev-eu", rawConfig(t, tree))
	require.NoError(t, err)
	assert.Equal(t, EnvDev, c.Environment)

	_, err = Parse("prod-eu", rawConfig(t, tree))
	require.Error(t, err, "a prod stack inherits the prod checks")
	assert.Contains(t, err.Error(), "aksml:cluster.maintenanceWindow")
}

// TestParseInvalid is the table of invalid configs: each must fail with a
// message naming the config key to change.
func TestParseInvalid(t *testing.T) {
	cases := []struct {
		name    string
		stack   string
		mutate  func(tree map[string]any)
		wantErr []string
	}{
		// top level
		{name: "unknown top-level key", mutate: func(m map[string]any) { m["gpupools"] = []any{} }, wantErr: []string{`aksml:gpupools: unknown config key (did you mean "gpuPools"?)`}},
		{name: "bad environment", mutate: func(m map[string]any) { m["environment"] = "staging" }, wantErr: []string{`aksml:environment: "staging" is not supported`}},
		{name: "no cluster at all", mutate: func(m map[string]any) { delete(m, "cluster") }, wantErr: []string{"aksml:cluster: is required"}},
		{name: "cluster and existing cluster", mutate: func(m map[string]any) { m["existingCluster"] = map[string]any{"context": "kind"} }, wantErr: []string{"aksml:existingCluster: aksml:cluster and aksml:existingCluster are mutually exclusive"}},
		{name: "structured value is a string", mutate: func(m map[string]any) { m["teams"] = "team-a" }, wantErr: []string{"aksml:teams: is not valid structured config"}},
		{name: "protect not a bool", mutate: func(m map[string]any) { m["protect"] = "yes" }, wantErr: []string{`aksml:protect: "yes" is not a boolean`}},
		// cluster
		{name: "cluster unknown field", mutate: func(m map[string]any) { at(m, "cluster")["nodeCount"] = 3 }, wantErr: []string{"aksml:cluster.nodeCount: unknown field"}},
		{name: "cluster name missing", mutate: func(m map[string]any) { delete(at(m, "cluster"), "name") }, wantErr: []string{"aksml:cluster.name"}},
		{name: "cluster location missing", mutate: func(m map[string]any) { delete(at(m, "cluster"), "location") }, wantErr: []string{"aksml:cluster.location"}},
		{name: "resource group name missing", mutate: func(m map[string]any) { at(m, "cluster")["resourceGroup"] = map[string]any{} }, wantErr: []string{"aksml:cluster.resourceGroup.name"}},
		{name: "bad tier", mutate: func(m map[string]any) { at(m, "cluster")["tier"] = "Gold" }, wantErr: []string{"aksml:cluster.tier"}},
		{name: "automatic mode unsupported", mutate: func(m map[string]any) { at(m, "cluster")["mode"] = "Automatic" }, wantErr: []string{"aksml:cluster.mode"}},
		{name: "bad authorized range", mutate: func(m map[string]any) { at(m, "cluster", "apiServer")["authorizedIPRanges"] = []any{"not-a-cidr"} }, wantErr: []string{"aksml:cluster.apiServer.authorizedIPRanges[0]"}},
		{name: "private and ranges", mutate: func(m map[string]any) { at(m, "cluster", "apiServer")["private"] = true }, wantErr: []string{"aksml:cluster.apiServer"}},
		{name: "system pool min > max", mutate: func(m map[string]any) {
			at(m, "cluster")["systemPool"] = map[string]any{"minCount": 5, "maxCount": 3}
		}, wantErr: []string{"aksml:cluster.systemPool"}},
		{name: "system pool count not a number", mutate: func(m map[string]any) {
			at(m, "cluster")["systemPool"] = map[string]any{"minCount": "two"}
		}, wantErr: []string{"aksml:cluster.systemPool.minCount: must be a whole number"}},
		{name: "Kubernetes client burst not a number", mutate: func(m map[string]any) {
			at(m, "cluster")["kubeClient"] = map[string]any{"qps": 100, "burst": "many"}
		}, wantErr: []string{"aksml:cluster.kubeClient.burst: must be a whole number"}},
		{name: "negative Kubernetes client rate and burst", mutate: func(m map[string]any) {
			at(m, "cluster")["kubeClient"] = map[string]any{"qps": -1, "burst": -2}
		}, wantErr: []string{"aksml:cluster.kubeClient.qps: -1: give at least 1 request per second", "aksml:cluster.kubeClient.burst: -2: give at least 1 request"}},
		{name: "existing cluster's client rate under 1", mutate: func(m map[string]any) {
			delete(m, "cluster")
			m["existingCluster"] = map[string]any{"context": "kind", "kubeClient": map[string]any{"qps": 0.5}}
		}, wantErr: []string{"aksml:existingCluster.kubeClient.qps: 0.5: give at least 1 request per second"}},
		{name: "defender without workspace", mutate: func(m map[string]any) { at(m, "cluster")["defender"] = map[string]any{"enabled": true} }, wantErr: []string{"aksml:cluster.defender.logAnalyticsWorkspaceId"}},
		{name: "entra without admins", mutate: func(m map[string]any) { at(m, "cluster")["entraID"] = map[string]any{} }, wantErr: []string{"aksml:cluster.entraID.adminGroupObjectIDs"}},
		{name: "maintenance bad day", mutate: func(m map[string]any) {
			at(m, "cluster")["maintenanceWindow"] = map[string]any{"dayOfWeek": "Funday", "startTime": "02:00"}
		}, wantErr: []string{"aksml:cluster.maintenanceWindow.dayOfWeek"}},
		{name: "maintenance bad start", mutate: func(m map[string]any) {
			at(m, "cluster")["maintenanceWindow"] = map[string]any{"dayOfWeek": "Sunday", "startTime": "25:00"}
		}, wantErr: []string{"aksml:cluster.maintenanceWindow.startTime"}},
		{name: "unknown autoscaler key", mutate: func(m map[string]any) {
			at(m, "cluster")["autoscalerProfile"] = map[string]any{"scan-intervall": "20s"}
		}, wantErr: []string{"aksml:cluster.autoscalerProfile"}},
		// GPU pools
		{name: "pool typo vmsize", mutate: func(m map[string]any) { at(m, "gpuPools", 0)["vmsize"] = "x" }, wantErr: []string{`aksml:gpuPools[0].vmsize: unknown field (did you mean "vmSize"?)`}},
		{name: "NV-series pool", mutate: func(m map[string]any) { at(m, "gpuPools", 1)["vmSize"] = "Standard_NV12s_v3" }, wantErr: []string{"aksml:gpuPools[1].vmSize: Standard_NV12s_v3 is an NV-series (M60) SKU for visualisation only; use an NC/ND SKU"}},
		{name: "unknown SKU", mutate: func(m map[string]any) { at(m, "gpuPools", 0)["vmSize"] = "Standard_D4s_v5" }, wantErr: []string{"aksml:gpuPools[0].vmSize: Standard_D4s_v5 is not in the GPU SKU catalogue"}},
		{name: "min > max", mutate: func(m map[string]any) { at(m, "gpuPools", 0)["minCount"] = 2; at(m, "gpuPools", 0)["maxCount"] = 1 }, wantErr: []string{"aksml:gpuPools[0].minCount: minCount (2) > maxCount (1)"}},
		{name: "max missing", mutate: func(m map[string]any) { delete(at(m, "gpuPools", 0), "maxCount") }, wantErr: []string{"aksml:gpuPools[0].maxCount: 0 is out of range"}},
		{name: "negative min", mutate: func(m map[string]any) { at(m, "gpuPools", 0)["minCount"] = -1 }, wantErr: []string{"aksml:gpuPools[0].minCount: -1 is negative"}},
		{name: "duplicate pool names", mutate: func(m map[string]any) { at(m, "gpuPools", 1)["name"] = "t4" }, wantErr: []string{`aksml:gpuPools[1].name: pool name "t4" is already used by aksml:gpuPools[0]`}},
		{name: "pool name too long", mutate: func(m map[string]any) { at(m, "gpuPools", 0)["name"] = "averylongpoolname" }, wantErr: []string{`aksml:gpuPools[0].name: "averylongpoolname" is not a valid AKS pool name`}},
		{name: "pool name uppercase", mutate: func(m map[string]any) { at(m, "gpuPools", 0)["name"] = "GPU1" }, wantErr: []string{`aksml:gpuPools[0].name: "GPU1" is not a valid AKS pool name`}},
		{name: "spot inference", mutate: func(m map[string]any) { at(m, "gpuPools", 1)["workload"] = "inference" }, wantErr: []string{`aksml:gpuPools[1].priority: Spot is not allowed for workload "inference"`}},
		{name: "unknown workload class", mutate: func(m map[string]any) { at(m, "gpuPools", 0)["workload"] = "gaming" }, wantErr: []string{`aksml:gpuPools[0].workload: "gaming" is not supported`}},
		{name: "bad priority", mutate: func(m map[string]any) { at(m, "gpuPools", 0)["priority"] = "Low" }, wantErr: []string{`aksml:gpuPools[0].priority: "Low" is not supported`}},
		{name: "bad zone", mutate: func(m map[string]any) { at(m, "gpuPools", 0)["zones"] = []any{"4"} }, wantErr: []string{`aksml:gpuPools[0].zones[0]: "4" is not an availability zone`}},
		{name: "MIG on T4", mutate: func(m map[string]any) {
			at(m, "gpuPools", 0)["mig"] = map[string]any{"strategy": "Mixed", "profile": "MIG3g"}
		}, wantErr: []string{"aksml:gpuPools[0].mig.profile: MIG3g needs a MIG-capable SKU (A100, H100); Standard_NC4as_T4_v3"}},
		{name: "MIG bad profile", mutate: func(m map[string]any) {
			at(m, "gpuPools", 1)["mig"] = map[string]any{"strategy": "Mixed", "profile": "MIG9g"}
		}, wantErr: []string{`aksml:gpuPools[1].mig.profile: "MIG9g" is not supported`}},
		{name: "bad GPU stack", mutate: func(m map[string]any) { at(m, "gpuPools", 0)["gpuStack"] = "Operator" }, wantErr: []string{`aksml:gpuPools[0].gpuStack: "Operator" is not supported`}},
		{name: "Azure Linux on a None pool", mutate: func(m map[string]any) {
			at(m, "gpuPools", 1)["gpuStack"] = "None"
			at(m, "gpuPools", 1)["osSku"] = "AzureLinux"
		}, wantErr: []string{"aksml:gpuPools[1].osSku: AzureLinux is not accepted on a gpuStack None pool", "use osSku Ubuntu (the default), or gpuStack DriverOnly"}},
		{name: "unknown OS SKU", mutate: func(m map[string]any) { at(m, "gpuPools", 0)["osSku"] = "Windows2022" }, wantErr: []string{`aksml:gpuPools[0].osSku: "Windows2022" is not supported`}},
		{name: "MIG Manager image unpinned", mutate: func(m map[string]any) {
			m["gpuStack"] = map[string]any{"migManagerImage": "nvcr.io/nvidia/cloud-native/k8s-mig-manager:latest"}
		}, wantErr: []string{"aksml:gpuStack.migManagerImage", "latest"}},
		{name: "override aksml label", mutate: func(m map[string]any) {
			at(m, "gpuPools", 0)["additionalLabels"] = map[string]any{"accelerator": "amd"}
		}, wantErr: []string{`aksml:gpuPools[0].additionalLabels["accelerator"]`}},
		{name: "bad extra taint", mutate: func(m map[string]any) { at(m, "gpuPools", 0)["additionalTaints"] = []any{"nokey"} }, wantErr: []string{"aksml:gpuPools[0].additionalTaints[0]"}},
		// teams and scheduler
		{name: "bad team name", mutate: func(m map[string]any) { at(m, "teams", 0)["name"] = "Team_A" }, wantErr: []string{"aksml:teams[0].name"}},
		{name: "duplicate team", mutate: func(m map[string]any) { at(m, "teams", 1)["name"] = "team-a" }, wantErr: []string{"aksml:teams[1].name"}},
		{name: "negative quota", mutate: func(m map[string]any) { at(m, "teams", 0, "gpuQuota")["t4"] = -1 }, wantErr: []string{`aksml:teams[0].gpuQuota["t4"]`}},
		{name: "quota on unknown pool", mutate: func(m map[string]any) { at(m, "teams", 0, "gpuQuota")["h100"] = 1 }, wantErr: []string{`aksml:teams[0].gpuQuota["h100"]`}},
		{name: "bad cpu quantity", mutate: func(m map[string]any) { at(m, "teams", 0)["cpu"] = "lots" }, wantErr: []string{"aksml:teams[0].cpu"}},
		{name: "missing memory", mutate: func(m map[string]any) { delete(at(m, "teams", 0), "memory") }, wantErr: []string{"aksml:teams[0].memory"}},
		{name: "team unknown field", mutate: func(m map[string]any) { at(m, "teams", 0)["gpuquota"] = map[string]any{} }, wantErr: []string{`aksml:teams[0].gpuquota: unknown field (did you mean "gpuQuota"?)`}},
		{name: "quota beyond pool capacity", mutate: func(m map[string]any) { at(m, "teams", 0, "gpuQuota")["t4"] = 2 }, wantErr: []string{`pool "t4"`, "team-a 2", "team-b 1", "aksml:scheduler.overcommitRatio"}},
		{name: "overcommit below one", mutate: func(m map[string]any) { at(m, "scheduler")["overcommitRatio"] = 0.5 }, wantErr: []string{"aksml:scheduler.overcommitRatio"}},
		{name: "unknown scheduler", mutate: func(m map[string]any) { at(m, "scheduler")["system"] = "slurm" }, wantErr: []string{"aksml:scheduler.system"}},
		{name: "provisioning on an unknown pool", mutate: func(m map[string]any) {
			at(m, "scheduler")["provisioning"] = []any{map[string]any{"pool": "h100"}}
		}, wantErr: []string{`aksml:scheduler.provisioning[0].pool: "h100" is not a GPU pool in aksml:gpuPools`}},
		{name: "check-capacity on a pool at zero", mutate: func(m map[string]any) {
			at(m, "scheduler")["provisioning"] = []any{map[string]any{"pool": "t4", "class": "check-capacity.autoscaling.x-k8s.io"}}
		}, wantErr: []string{"aksml:scheduler.provisioning[0].class", "never scales it up", "aksml:gpuPools[0].minCount"}},
		{name: "kueue setting under volcano", mutate: func(m map[string]any) {
			at(m, "scheduler")["system"] = "volcano"
			at(m, "scheduler")["installKueue"] = true
		}, wantErr: []string{"aksml:scheduler.installKueue"}},
		// storage, observability, workloads
		{name: "bad storage account prefix", mutate: func(m map[string]any) {
			m["storage"] = map[string]any{"accounts": map[string]any{"namePrefix": "Bad-Prefix"}}
		}, wantErr: []string{"aksml:storage.accounts.namePrefix"}},
		{name: "bad checkpoint size", mutate: func(m map[string]any) {
			m["storage"] = map[string]any{"volumes": map[string]any{"checkpointsSize": "10 gigs"}}
		}, wantErr: []string{"aksml:storage.volumes.checkpointsSize"}},
		{name: "scratch disk SKU not supported", mutate: func(m map[string]any) {
			m["storage"] = map[string]any{"scratchDiskSku": "Standard_LRS"}
		}, wantErr: []string{`aksml:storage.scratchDiskSku: "Standard_LRS" is not supported`}},
		{name: "bad rpo", mutate: func(m map[string]any) { m["observability"] = map[string]any{"rpo": "soon"} }, wantErr: []string{"aksml:observability.rpo"}},
		{name: "workload on unknown team", mutate: func(m map[string]any) {
			m["workloads"] = []any{map[string]any{"kind": "CheckpointedJob", "name": "x", "team": "nobody", "pool": "t4", "image": "busybox:1.36", "resources": map[string]any{"cpu": "1", "memory": "16Gi", "gpus": 1}}}
		}, wantErr: []string{`aksml:workloads[0].team: "nobody" is not one of aksml:teams`}},
		{name: "workloads of two teams under one Pulumi name", mutate: func(m map[string]any) {
			at(m, "teams", 1)["name"] = "team-a-x"
			job := func(team, name string) map[string]any {
				return map[string]any{"kind": "CheckpointedJob", "name": name, "team": team, "pool": "t4", "image": "busybox:1.36", "resources": map[string]any{"cpu": "1", "memory": "16Gi", "gpus": 1}}
			}
			m["workloads"] = []any{job("team-a", "x-train"), job("team-a-x", "train")}
		}, wantErr: []string{`aksml:workloads[1].name: "train" of team "team-a-x" is registered as Pulumi resource "team-a-x-train", as "x-train" of team "team-a" is (aksml:workloads[0]); rename one of the two workloads`}},
		{name: "workload unknown kind", mutate: func(m map[string]any) {
			m["workloads"] = []any{map[string]any{"kind": "Deployment", "name": "x", "team": "team-a"}}
		}, wantErr: []string{`aksml:workloads[0].kind: "Deployment" is not supported`}},
		{name: "shm larger than memory", mutate: func(m map[string]any) {
			m["workloads"] = []any{map[string]any{"kind": "CheckpointedJob", "name": "x", "team": "team-a", "pool": "t4", "image": "busybox:1.36", "resources": map[string]any{"cpu": "1", "memory": "4Gi", "gpus": 1}, "shmSize": "8Gi"}}
		}, wantErr: []string{"aksml:workloads[0].shmSize"}},
		{name: "expected duration not a duration", mutate: func(m map[string]any) {
			m["workloads"] = []any{map[string]any{"kind": "CheckpointedJob", "name": "x", "team": "team-a", "pool": "t4", "image": "busybox:1.36", "resources": map[string]any{"cpu": "1", "memory": "16Gi", "gpus": 1}, "expectedDuration": "soon"}}
		}, wantErr: []string{`aksml:workloads[0].expectedDuration: "soon" is not a duration`}},
		{name: "expected duration out of range", mutate: func(m map[string]any) {
			m["workloads"] = []any{map[string]any{"kind": "CheckpointedJob", "name": "x", "team": "team-a", "pool": "t4", "image": "busybox:1.36", "resources": map[string]any{"cpu": "1", "memory": "16Gi", "gpus": 1}, "expectedDuration": "1000h"}}
		}, wantErr: []string{"aksml:workloads[0].expectedDuration: 1000h is out of range; use 5m to 720h"}},
		{name: "expected duration on a PyTorchJob", mutate: func(m map[string]any) {
			m["trainingOperator"] = map[string]any{"enabled": true}
			w := pytorchWorkload()
			w["expectedDuration"] = "4h"
			m["workloads"] = []any{w}
		}, wantErr: []string{"aksml:workloads[0].expectedDuration: PyTorchJob runs no batch/v1 Job"}},
		// managed GPU pools and monitoring
		{name: "managed pool with the autoscaler's keys", mutate: func(m map[string]any) { at(m, "gpuPools", 0)["gpuStack"] = "Managed" },
			wantErr: []string{"aksml:gpuPools[0].count: is required", "ManagedGPUExperiencePreview", "aksml:gpuPools[0].maxCount: is not allowed on a gpuStack Managed pool"}},
		{name: "count on an autoscaled pool", mutate: func(m map[string]any) { at(m, "gpuPools", 0)["count"] = 1 },
			wantErr: []string{"aksml:gpuPools[0].count: count is only for gpuStack Managed pools"}},
		{name: "grafana without a name", mutate: func(m map[string]any) {
			m["observability"] = map[string]any{"grafana": map[string]any{"enabled": true}}
		},
			wantErr: []string{"aksml:observability.grafana.name: is required"}},
		{name: "grafana on an existing cluster", mutate: func(m map[string]any) {
			delete(m, "cluster")
			m["existingCluster"] = map[string]any{"context": "kind"}
			m["observability"] = map[string]any{"grafana": map[string]any{"enabled": true, "name": "amg-ml"}}
		}, wantErr: []string{"aksml:observability.grafana.enabled: Azure Managed Grafana is created next to the AKS cluster's Azure Monitor workspace"}},
		// operators behind custom resources
		{name: "PyTorchJob without the Training Operator", mutate: func(m map[string]any) { m["workloads"] = []any{pytorchWorkload()} },
			wantErr: []string{"aksml:workloads[0].kind: PyTorchJob needs the Kubeflow Training Operator", "aksml:trainingOperator.enabled: true", "aksml:existingCluster.installed: [trainingOperator]"}},
		{name: "TFJob without the Training Operator", mutate: func(m map[string]any) {
			w := pytorchWorkload()
			w["kind"], w["workers"] = "TFJob", 2
			delete(w, "replicas")
			m["workloads"] = []any{w}
		}, wantErr: []string{"aksml:workloads[0].kind: TFJob needs the Kubeflow Training Operator"}},
		{name: "KAITO workload on an aksml cluster", mutate: func(m map[string]any) { m["workloads"] = []any{kaitoWorkload()} },
			wantErr: []string{"aksml:workloads[0].kind: FineTuningWorkspace needs the KAITO operator (kaito.sh Workspace CRD), which nothing in this stack provides", "aksml:kaito.install: true"}},
		{name: "KAITO installed, Workspace size only on a spot pool", mutate: func(m map[string]any) {
			m["kaito"] = map[string]any{"install": true}
			m["workloads"] = []any{kaitoWorkload()}
		}, wantErr: []string{"aksml:workloads[0].instanceType: Standard_NC24ads_A100_v4 is the VM size of spot pool(s) [a100spot] only"}},
		{name: "KAITO installed, Workspace size in no pool", mutate: func(m map[string]any) {
			m["kaito"] = map[string]any{"install": true}
			w := kaitoWorkload()
			w["instanceType"] = "Standard_NC40ads_H100_v5"
			m["workloads"] = []any{w}
		}, wantErr: []string{"aksml:workloads[0].instanceType: Standard_NC40ads_H100_v5 is not the VM size of any pool in aksml:gpuPools"}},
		{name: "KAITO install on an existing cluster", mutate: func(m map[string]any) {
			delete(m, "cluster")
			m["existingCluster"] = map[string]any{"context": "kind"}
			m["kaito"] = map[string]any{"install": true}
		}, wantErr: []string{"aksml:kaito.install: aksml installs KAITO only on a cluster it creates"}},
		{name: "KAITO workload on an existing cluster without KAITO", mutate: func(m map[string]any) {
			delete(m, "cluster")
			m["existingCluster"] = map[string]any{"context": "kind", "installed": []any{"trainingOperator"}}
			m["workloads"] = []any{kaitoWorkload()}
		}, wantErr: []string{"aksml:workloads[0].kind: FineTuningWorkspace needs the KAITO operator (kaito.sh Workspace CRD)", "aksml:existingCluster.installed: [kaito]"}},
		{name: "unknown installed operator", mutate: func(m map[string]any) {
			delete(m, "cluster")
			m["existingCluster"] = map[string]any{"context": "kind", "installed": []any{"kaito", "volcano", "kaito"}}
		}, wantErr: []string{`aksml:existingCluster.installed[1]: "volcano" is not supported`, `aksml:existingCluster.installed[2]: "kaito" is listed twice`}},
		{name: "Training Operator installed twice", mutate: func(m map[string]any) {
			delete(m, "cluster")
			m["existingCluster"] = map[string]any{"context": "kind", "installed": []any{"trainingOperator"}}
			m["trainingOperator"] = map[string]any{"enabled": true}
		}, wantErr: []string{"aksml:trainingOperator.enabled: aksml:existingCluster.installed says the cluster already runs the Training Operator"}},
		// production rules
		{name: "prod without hardening", stack: "prod", mutate: func(m map[string]any) { m["environment"] = "prod" }, wantErr: []string{
			"aksml:cluster.entraID.disableLocalAccounts", "aksml:cluster.defender.enabled", "aksml:cluster.maintenanceWindow",
		}},
		{name: "prod with protect off", stack: "prod", mutate: func(m map[string]any) { m["environment"] = "prod"; m["protect"] = "false" }, wantErr: []string{"aksml:protect: must be true in prod"}},
		{name: "prod open API server", stack: "prod", mutate: func(m map[string]any) {
			m["environment"] = "prod"
			delete(at(m, "cluster"), "apiServer")
		}, wantErr: []string{"aksml:cluster.apiServer.authorizedIPRanges: is required: prod restricts the public API server"}},
		{name: "prod alerts notifying nobody", stack: "prod", mutate: func(m map[string]any) {
			m["environment"] = "prod"
			m["observability"] = map[string]any{"prometheusRuleGroups": true}
		}, wantErr: []string{"aksml:observability.actionGroupIds: is required: prod alerts must reach people"}},
		{name: "prod datasets on the block-cache class", stack: "prod", mutate: func(m map[string]any) {
			m["environment"] = "prod"
			m["storage"] = map[string]any{"volumes": map[string]any{"datasetsClass": "ml-azureblob-blockcache"}}
		}, wantErr: []string{"aksml:storage.volumes.datasetsClass: ml-azureblob-blockcache is not created because this is prod"}},
		{name: "prod datasets on Blob NFS without aksml's account", stack: "prod", mutate: func(m map[string]any) {
			m["environment"] = "prod"
			m["storage"] = map[string]any{"volumes": map[string]any{"datasetsClass": "ml-azureblob-nfs"}}
		}, wantErr: []string{"aksml:storage.volumes.datasetsClass: ml-azureblob-nfs needs aksml's Blob NFS account because this is prod", "aksml:storage.accounts.blobNfs: true"}},
		// network (issue 10): VNet plan, storage route, API server reach
		{name: "VNet overlaps pod range", mutate: func(m map[string]any) { m["network"] = map[string]any{"addressSpace": "10.244.0.0/16"} },
			wantErr: []string{"aksml:network.addressSpace: 10.244.0.0/16 overlaps the pod range 10.244.0.0/16 (aksml:cluster.network.podCidr)", "change one of them"}},
		{name: "VNet in an AKS-reserved range", mutate: func(m map[string]any) { m["network"] = map[string]any{"addressSpace": "172.30.0.0/16"} },
			wantErr: []string{"aksml:network.addressSpace: 172.30.0.0/16 overlaps 172.30.0.0/16, which AKS reserves"}},
		{name: "service range AKS-reserved", mutate: func(m map[string]any) {
			at(m, "cluster")["network"] = map[string]any{"serviceCidr": "172.31.0.0/16", "dnsServiceIP": "172.31.0.10"}
		}, wantErr: []string{"aksml:cluster.network.serviceCidr: 172.31.0.0/16 overlaps 172.31.0.0/16, which AKS reserves"}},
		{name: "pod range AKS-reserved", mutate: func(m map[string]any) { at(m, "cluster")["network"] = map[string]any{"podCidr": "169.254.0.0/16"} },
			wantErr: []string{"aksml:cluster.network.podCidr: 169.254.0.0/16 overlaps 169.254.0.0/16"}},
		{name: "pod range too small for the pools", mutate: func(m map[string]any) { at(m, "cluster")["network"] = map[string]any{"podCidr": "10.244.0.0/22"} },
			wantErr: []string{"aksml:cluster.network.podCidr: 10.244.0.0/22 holds 4 node blocks (/24 each) but the pools can have 18 nodes", "use a /19 or larger"}},
		{name: "DNS IP is the service range's base address", mutate: func(m map[string]any) { at(m, "cluster")["network"] = map[string]any{"dnsServiceIP": "10.0.0.0"} },
			wantErr: []string{"aksml:cluster.network.dnsServiceIP: 10.0.0.0 in serviceCidr 10.0.0.0/16 is the base address", "e.g. 10.0.0.10"}},
		{name: "node subnet too small", mutate: func(m map[string]any) {
			m["network"] = map[string]any{"nodeSubnet": map[string]any{"prefix": "10.224.0.0/28"}}
		}, wantErr: []string{"aksml:network.nodeSubnet.prefix: 10.224.0.0/28 holds 16 addresses but the cluster needs 23", "use a /27 or larger"}},
		{name: "node subnet outside the VNet", mutate: func(m map[string]any) {
			m["network"] = map[string]any{"nodeSubnet": map[string]any{"prefix": "10.225.0.0/24"}}
		}, wantErr: []string{"aksml:network.nodeSubnet.prefix: 10.225.0.0/24 is not inside addressSpace 10.224.0.0/16"}},
		{name: "existing network without subnet ID", mutate: func(m map[string]any) {
			m["network"] = map[string]any{"existing": true, "addressSpace": "10.10.0.0/16", "nodeSubnet": map[string]any{"prefix": "10.10.0.0/24"}}
		}, wantErr: []string{"aksml:network.nodeSubnet.id: is required"}},
		{name: "existing network without address space", mutate: func(m map[string]any) {
			m["network"] = map[string]any{"existing": true, "nodeSubnet": map[string]any{"id": testSubnetID, "prefix": "10.10.0.0/24"}}
		}, wantErr: []string{"aksml:network.addressSpace: is required"}},
		{name: "subnet ID without existing", mutate: func(m map[string]any) {
			m["network"] = map[string]any{"nodeSubnet": map[string]any{"id": testSubnetID}}
		}, wantErr: []string{"aksml:network.nodeSubnet.id: is set but existing is false"}},
		{name: "existing subnet without storage service endpoint", mutate: func(m map[string]any) {
			m["network"] = map[string]any{"existing": true, "addressSpace": "10.10.0.0/16", "nodeSubnet": map[string]any{"id": testSubnetID, "prefix": "10.10.0.0/24"}}
			m["storage"] = map[string]any{"accounts": map[string]any{"namePrefix": "aksmltest", "privateNetwork": true, "nodeAccess": "ServiceEndpoint"}}
		}, wantErr: []string{"aksml:network.nodeSubnet.serviceEndpoints: storage is reached through a service endpoint, but the existing node subnet does not declare Microsoft.Storage"}},
		{name: "existing network, private endpoints without their subnet", mutate: func(m map[string]any) {
			m["network"] = map[string]any{"existing": true, "addressSpace": "10.10.0.0/16", "nodeSubnet": map[string]any{"id": testSubnetID, "prefix": "10.10.0.0/24"}}
			m["storage"] = map[string]any{"accounts": map[string]any{"namePrefix": "aksmltest", "privateNetwork": true}}
		}, wantErr: []string{"aksml:network.privateEndpointSubnet.id: is required"}},
		{name: "storage rule for a subnet the nodes are not in", mutate: func(m map[string]any) {
			m["network"] = map[string]any{}
			m["storage"] = map[string]any{"accounts": map[string]any{"namePrefix": "aksmltest", "privateNetwork": true, "allowedSubnetIds": []any{testSubnetID}}}
		}, wantErr: []string{"aksml:storage.accounts.allowedSubnetIds[0]", "a subnet the cluster's nodes are not in"}},
		{name: "private API server with the Kubernetes layer in the same stack", mutate: func(m map[string]any) {
			at(m, "cluster")["apiServer"] = map[string]any{"private": true}
		}, wantErr: []string{"aksml:cluster.apiServer.private: a private API server is reachable only from inside the cluster's VNet", "aksml:existingCluster"}},
		{name: "InfiniBand pool over zones", mutate: func(m map[string]any) {
			at(m, "gpuPools", 1)["vmSize"] = "Standard_ND96isr_H100_v5"
			at(m, "gpuPools", 1)["zones"] = []any{"1", "2"}
		}, wantErr: []string{"aksml:gpuPools[1].zones: Standard_ND96isr_H100_v5 is an InfiniBand (RDMA) size", "list one zone (or none)"}},
		{name: "network in existing-cluster mode", mutate: func(m map[string]any) {
			delete(m, "cluster")
			m["existingCluster"] = map[string]any{"kubeconfigPath": "/tmp/kubeconfig", "context": "kind"}
			m["network"] = map[string]any{}
		}, wantErr: []string{"aksml:network: creates or uses a VNet for aksml:cluster; remove it in existing-cluster mode"}},
		{name: "prod API server open to the internet", stack: "prod", mutate: func(m map[string]any) {
			m["environment"] = "prod"
			at(m, "cluster", "apiServer")["authorizedIPRanges"] = []any{"0.0.0.0/0"}
		}, wantErr: []string{"aksml:cluster.apiServer.authorizedIPRanges[0]: 0.0.0.0/0 allows every address on the internet"}},
		{name: "prod API server range broader than /8", stack: "prod", mutate: func(m map[string]any) {
			m["environment"] = "prod"
			at(m, "cluster", "apiServer")["authorizedIPRanges"] = []any{"203.0.113.0/24", "64.0.0.0/4"}
		}, wantErr: []string{"aksml:cluster.apiServer.authorizedIPRanges[1]: 64.0.0.0/4 is broader than a /8"}},
		{name: "Azure-layer stack with Kubernetes-layer settings", mutate: func(m map[string]any) {
			m["kubernetesLayer"] = "false"
			m["trainingOperator"] = map[string]any{"enabled": true}
		}, wantErr: []string{"aksml:teams[0]: an Azure-layer stack (aksml:kubernetesLayer: false) reads only a team's name and groups", "set the team's quotas, egress, priorities and the rest in the Kubernetes-layer stack's aksml:teams", "aksml:trainingOperator: is deployed by the Kubernetes layer", "move it there"}},
		{name: "Azure-layer stack without a cluster", mutate: func(m map[string]any) {
			delete(m, "cluster")
			delete(m, "teams")
			m["kubernetesLayer"] = "false"
			m["existingCluster"] = map[string]any{"context": "kind"}
		}, wantErr: []string{"aksml:kubernetesLayer: false deploys only the Azure layer, which needs aksml:cluster"}},
		{name: "stack reference and kubeconfig path", mutate: func(m map[string]any) {
			delete(m, "cluster")
			m["existingCluster"] = map[string]any{"stackReference": "org/aksml/prod-azure", "kubeconfigPath": "/tmp/kubeconfig"}
		}, wantErr: []string{"aksml:existingCluster.stackReference: and kubeconfigPath are mutually exclusive"}},
		{name: "stack reference not a stack name", mutate: func(m map[string]any) {
			delete(m, "cluster")
			m["existingCluster"] = map[string]any{"stackReference": "org//prod"}
		}, wantErr: []string{`aksml:existingCluster.stackReference: "org//prod" is not a stack name`}},
	}
	require.GreaterOrEqual(t, len(cases), 40)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tree := baseTree(t)
			tc.mutate(tree)
			stack := tc.stack
			if stack == "" {
				stack = "dev"
			}
			_, err := Parse(stack, rawConfig(t, tree))
			require.Error(t, err)
			for _, want := range tc.wantErr {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}

// TestParseListsEveryProblem checks that problems in different sections are
// reported together, not one per run.
func TestParseListsEveryProblem(t *testing.T) {
	tree := baseTree(t)
	at(tree, "gpuPools", 0)["vmSize"] = "Standard_NV6"
	at(tree, "teams", 0)["name"] = "BAD"
	delete(at(tree, "cluster"), "location")
	_, err := Parse("dev", rawConfig(t, tree))
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{"aksml:gpuPools[0].vmSize", "aksml:teams[0].name", "aksml:cluster.location"} {
		assert.Contains(t, msg, want)
	}
	assert.GreaterOrEqual(t, strings.Count(msg, "\n  - "), 3)
}

func pytorchWorkload() map[string]any {
	return map[string]any{"kind": "PyTorchJob", "name": "ddp", "team": "team-a", "pool": "t4", "image": "pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime",
		"command": []any{"python", "train.py"}, "resources": map[string]any{"cpu": "3", "memory": "16Gi", "gpus": 1}, "replicas": 2}
}

func kaitoWorkload() map[string]any {
	return map[string]any{"kind": "FineTuningWorkspace", "name": "phi", "team": "team-a", "instanceType": "Standard_NC24ads_A100_v4",
		"preset": "phi-3-mini-4k-instruct", "inputURLs": []any{"https://example.com/data.json"},
		"outputImage": "myregistry.azurecr.io/adapters/phi:v1", "outputImagePushSecret": "acr-push"}
}

func TestWorkloadDurations(t *testing.T) {
	tree := baseTree(t)
	tree["workloads"] = []any{
		map[string]any{"kind": "CheckpointedJob", "name": "pretrain", "team": "team-a", "pool": "t4", "image": "busybox:1.36", "resources": map[string]any{"cpu": "1", "memory": "16Gi", "gpus": 1}, "expectedDuration": "4h"},
		map[string]any{"kind": "ScheduledScoring", "name": "nightly", "team": "team-b", "image": "busybox:1.36", "schedule": "0 2 * * *", "resources": map[string]any{"cpu": "1", "memory": "2Gi"}, "expectedDuration": "90m"},
		map[string]any{"kind": "CheckpointedJob", "name": "other", "team": "team-a", "pool": "t4", "image": "busybox:1.36", "resources": map[string]any{"cpu": "1", "memory": "16Gi", "gpus": 1}},
	}
	c, err := Parse("dev", rawConfig(t, tree))
	require.NoError(t, err)
	assert.Equal(t, []observability.WorkloadDuration{
		{Namespace: "team-a", Name: "pretrain", Expected: 4 * time.Hour},
		{Namespace: "team-b", Name: "nightly", CronJob: true, Expected: 90 * time.Minute},
	}, c.workloadDurations(), "a rule per workload that declares one")
}

// TestOperatorsDeclaredOrInstalled accepts Kubeflow and KAITO workloads
// when their operators are installed by aksml or declared by an existing
// cluster.
func TestOperatorsDeclaredOrInstalled(t *testing.T) {
	tree := baseTree(t)
	tree["trainingOperator"] = map[string]any{"enabled": true}
	tree["workloads"] = []any{pytorchWorkload()}
	_, err := Parse("dev", rawConfig(t, tree))
	require.NoError(t, err, "aksml installs the Training Operator")

	tree = baseTree(t)
	delete(tree, "cluster")
	tree["existingCluster"] = map[string]any{"context": "kind", "installed": []any{"kaito", "trainingOperator"}}
	tree["workloads"] = []any{pytorchWorkload(), kaitoWorkload()}
	at(tree, "teams", 0)["podSecurity"] = "baseline" // KAITO's pods need it
	c, err := Parse("dev", rawConfig(t, tree))
	require.NoError(t, err, "the existing cluster runs both operators")
	assert.True(t, c.ExistingCluster.Has("kaito"))
}

// TestTeamGroupsNeedEntraID: groups on a cluster without Entra ID match
// nobody, so they are refused with the key to change, unless the stack says
// it has no tenancy (dev only).
func TestTeamGroupsNeedEntraID(t *testing.T) {
	const group = "0a0a0a0a-1111-4111-8111-000000000001"
	withGroups := func(t *testing.T) map[string]any {
		tree := baseTree(t)
		at(tree, "teams", 1)["groups"] = []any{group}
		return tree
	}
	_, err := Parse("dev", rawConfig(t, withGroups(t)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "aksml:teams[1].groups: names Microsoft Entra groups, but aksml:cluster has no entraID")
	assert.Contains(t, err.Error(), "aksml:tenancyEnforced: false")
	assert.NotContains(t, err.Error(), "aksml:teams[0].groups", "a team without groups is not named")

	tree := withGroups(t)
	at(tree, "cluster")["entraID"] = map[string]any{"adminGroupObjectIDs": []any{"11111111-2222-3333-4444-555555555555"}}
	_, err = Parse("dev", rawConfig(t, tree))
	require.NoError(t, err, "with Entra ID the groups are real")

	tree = withGroups(t)
	tree["tenancyEnforced"] = false
	c, err := Parse("dev", rawConfig(t, tree))
	require.NoError(t, err, "a dev stack may declare it has no tenancy")
	assert.False(t, c.TenancyIsEnforced())

	tree = baseTree(t)
	tree["environment"] = "prod"
	tree["tenancyEnforced"] = false
	_, err = Parse("prod", rawConfig(t, tree))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "aksml:tenancyEnforced: must be true in prod")
}

// TestRetainTeamDataFollowsProtect: team data is kept where the stack is
// protected unless aksml:retainTeamData says otherwise.
func TestRetainTeamDataFollowsProtect(t *testing.T) {
	for _, tc := range []struct {
		name    string
		protect any
		retain  any
		want    bool
	}{
		{"dev default", nil, nil, false},
		{"protected", true, nil, true},
		{"protected, explicitly not kept", true, false, false},
		{"unprotected, explicitly kept", nil, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree := baseTree(t)
			if tc.protect != nil {
				tree["protect"] = tc.protect
			}
			if tc.retain != nil {
				tree["retainTeamData"] = tc.retain
			}
			c, err := Parse("dev", rawConfig(t, tree))
			require.NoError(t, err)
			assert.Equal(t, tc.want, c.RetainsTeamData())
		})
	}
}

// TestNodeSubnetCountsEveryAddress: the created node subnet holds every
// pool at maxCount with its surge, a private API server's endpoint and the
// internal load balancer frontends. The base pools need 18 nodes with surge
// plus 5 reserved addresses; a pool of 8 nodes (and 1 surge) brings that to
// exactly 32 (a /27), one more address needs a /26. (A Managed pool counts
// its count the same way; in dev that count is 0, AKSML-GPU-002.)
func TestNodeSubnetCountsEveryAddress(t *testing.T) {
	for _, tc := range []struct {
		name    string
		count   int
		private bool
		ilb     int
		want    string
	}{
		{"pool of 8: 32 addresses", 8, false, 0, "10.224.0.0/27"},
		{"pool of 40 counts its maxCount and the 4 nodes AKS surges", 40, false, 0, "10.224.0.0/25"},
		{"private API server endpoint takes a node subnet address", 8, true, 0, "10.224.0.0/26"},
		{"internal load balancer frontends", 8, false, 1, "10.224.0.0/26"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree := baseTree(t)
			net := map[string]any{}
			if tc.ilb > 0 {
				net["internalLoadBalancerIps"] = tc.ilb
			}
			tree["network"] = net
			pools := tree["gpuPools"].([]any)
			// A dev Managed pool runs count 0 (AKSML-GPU-002): the ceiling
			// is an autoscaled pool's maxCount.
			tree["gpuPools"] = append(pools, map[string]any{"name": "t4b", "vmSize": "Standard_NC4as_T4_v3", "workload": "batch-inference", "maxCount": tc.count})
			if tc.private {
				tree["kubernetesLayer"] = false
				delete(tree, "teams")
				at(tree, "cluster")["apiServer"] = map[string]any{"private": true}
			}
			c, err := Parse("dev", rawConfig(t, tree))
			require.NoError(t, err)
			assert.Equal(t, tc.want, c.Network.NodeSubnet.Prefix)
		})
	}
}

// TestManagedPoolCountsInTheNodeSubnet: a Managed GPU pool has count and no
// maxCount, and its nodes take node subnet addresses like any other pool's
// (the resolved pool's MaxNodes, not the raw maxCount). The base pools
// need 23 addresses; a Managed pool of 8 (and 1 surge) fills a /27
// exactly, one of 9 overflows it and the subnet is refused by key. (The
// dev stack also refuses the count itself, AKSML-GPU-002; this test reads
// the subnet problem only.)
func TestManagedPoolCountsInTheNodeSubnet(t *testing.T) {
	const refused = "aksml:network.nodeSubnet.prefix: 10.224.0.0/27 holds 32 addresses but the cluster needs 33"
	for _, tc := range []struct {
		count  int
		refuse bool
	}{{8, false}, {9, true}} {
		t.Run(map[bool]string{false: "fits", true: "overflows"}[tc.refuse], func(t *testing.T) {
			tree := baseTree(t)
			tree["network"] = map[string]any{"nodeSubnet": map[string]any{"prefix": "10.224.0.0/27"}}
			tree["gpuPools"] = append(tree["gpuPools"].([]any), map[string]any{"name": "t4mgd", "vmSize": "Standard_NC4as_T4_v3", "workload": "batch-inference", "gpuStack": "Managed", "count": tc.count})
			_, err := Parse("dev", rawConfig(t, tree))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "aksml:gpuPools[2].count: ", "the dev refusal is the only other problem")
			if tc.refuse {
				assert.Contains(t, err.Error(), refused)
			} else {
				assert.NotContains(t, err.Error(), "aksml:network.nodeSubnet.prefix")
			}
		})
	}
}
