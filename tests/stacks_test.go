package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/policy/rules"
	"github.com/aksml/aksml/stacks"
	"github.com/aksml/aksml/tests/synth"
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
	assert.Equal(t, "20s", profile["scanInterval"], "seed 000 scan-interval")
	assert.Equal(t, "10m", profile["scaleDownUnneededTime"])
	assert.Equal(t, "15m", profile["scaleDownDelayAfterAdd"])
	assert.Equal(t, "120", profile["maxGracefulTerminationSec"])
	system := clusters[0].Get("agentPoolProfiles").([]any)[0].(map[string]any)
	assert.Equal(t, "System", system["mode"])
	assert.Equal(t, []any{"CriticalAddonsOnly=true:NoSchedule"}, system["nodeTaints"])
	assert.False(t, clusters[0].Protect, "dev is not protected")

	pools := byType(st, ":AgentPool")
	require.Len(t, pools, 3, "t4, t4spot and a100mig are DriverOnly pools")
	for _, p := range pools {
		assert.Equal(t, 0.0, p.Inputs["minCount"], "%s scales to zero", p.Name)
		assert.Equal(t, 0.0, p.Inputs["count"], "%s starts with no node", p.Name)
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
	for _, kind := range []string{"batch/v1:Job", "batch/v1:CronJob", "kubeflow.org/v1:PyTorchJob", "kubeflow.org/v1:TFJob", "kaito.sh/v1alpha1:Workspace"} {
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
		assert.Equal(t, []any{"1", "2", "3"}, p.Inputs["availabilityZones"], "%s spans zones 1-3", p.Name)
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
	assert.Len(t, byType(st, ":DeploymentStackAtResourceGroup"), 3, "GPU pool stack, alert rule group and team identities")
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
	assert.Len(t, byType(st, "storage.k8s.io/v1:StorageClass"), 3)
	assert.NotEmpty(t, byType(st, "apps/v1:DaemonSet"), "the device plugin is installed for the DriverOnly pool")
	providers := byType(st, "pulumi:providers:kubernetes")
	require.Len(t, providers, 1)
	for _, r := range st.Resources {
		if strings.HasPrefix(r.Type, "kubernetes:") && r.Parent == "" {
			t.Errorf("%s has no parent component", r.URN)
		}
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
