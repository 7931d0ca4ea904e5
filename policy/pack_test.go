package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/policyx"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/aksml/aksml/policy/rules"
)

// reported collects the violations a policy reports.
type reported struct{ messages, urns []string }

func (r *reported) ReportViolation(message, urn string) {
	r.messages = append(r.messages, message)
	r.urns = append(r.urns, urn)
}

const (
	poolURN      = "urn:pulumi:dev::aksml::azure-native:containerservice:AgentPool::gpua100"
	flavorURN    = "urn:pulumi:dev::aksml::kubernetes:kueue.x-k8s.io/v1beta1:ResourceFlavor::gpu-a100"
	queueURN     = "urn:pulumi:dev::aksml::kubernetes:kueue.x-k8s.io/v1beta1:ClusterQueue::team-a-gpu"
	stackURN     = "urn:pulumi:dev::aksml::pulumi:pulumi:Stack::aksml-dev"
	providerURN  = "urn:pulumi:dev::aksml::pulumi:providers:kubernetes::k8s"
	poolType     = "azure-native:containerservice:AgentPool"
	flavorType   = "kubernetes:kueue.x-k8s.io/v1beta1:ResourceFlavor"
	queueType    = "kubernetes:kueue.x-k8s.io/v1beta1:ClusterQueue"
	providerType = "pulumi:providers:kubernetes"
)

// poolInputs are the inputs of an A100 pool; taint says whether it carries
// the GPU taint.
func poolInputs(taint bool) resource.PropertyMap {
	taints := []any{}
	if taint {
		taints = append(taints, "sku=gpu:NoSchedule")
	}
	return resource.NewPropertyMapFromMap(map[string]any{
		"agentPoolName":     "gpua100",
		"vmSize":            "Standard_NC24ads_A100_v4",
		"mode":              "User",
		"enableAutoScaling": true,
		"minCount":          0,
		"maxCount":          2,
		"nodeTaints":        taints,
		"nodeLabels":        map[string]any{"accelerator": "nvidia", "workload": "training"},
		"availabilityZones": []any{"1"},
		"vnetSubnetID":      "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/aks-nodes",
	})
}

func flavorInputs() resource.PropertyMap {
	return resource.NewPropertyMapFromMap(map[string]any{
		"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor",
		"metadata": map[string]any{"name": "gpu-a100"},
		"spec":     map[string]any{"nodeLabels": map[string]any{"kubernetes.azure.com/agentpool": "gpua100"}},
	})
}

// queueInputs hands out gpus nvidia.com/gpu on gpu-a100.
func queueInputs(gpus string) resource.PropertyMap {
	return resource.NewPropertyMapFromMap(map[string]any{
		"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue",
		"metadata": map[string]any{"name": "team-a-gpu"},
		"spec": map[string]any{"resourceGroups": []any{map[string]any{"flavors": []any{map[string]any{
			"name": "gpu-a100", "resources": []any{map[string]any{"name": "nvidia.com/gpu", "nominalQuota": gpus}},
		}}}}},
	})
}

func analyzerResource(typ, urn, name string, props resource.PropertyMap) policyx.AnalyzerResource {
	return policyx.AnalyzerResource{Type: typ, URN: urn, Name: name, Properties: resource.FromResourcePropertyMap(props)}
}

// policies returns the pack's policies by name.
func policies(t *testing.T, p *pack) map[string]policyx.Policy {
	pp, err := p.policyPack()
	require.NoError(t, err)
	assert.Equal(t, PackName, pp.Name())
	out := map[string]policyx.Policy{}
	for _, pol := range pp.Policies() {
		out[pol.Name()] = pol
	}
	return out
}

func TestPackHasOnePolicyPerRule(t *testing.T) {
	got := policies(t, newPack("dev", rules.EnvDev))
	require.Len(t, got, len(rules.All()))
	for _, rule := range rules.All() {
		pol, ok := got[rule.ID]
		require.True(t, ok, rule.ID)
		assert.Equal(t, enforcement(rule.Severity), pol.EnforcementLevel(), rule.ID)
		assert.Contains(t, pol.Description(), rule.Title)
		switch {
		case rule.Resource != nil:
			assert.Implements(t, (*policyx.ResourceValidationPolicy)(nil), pol, rule.ID)
		default:
			assert.Implements(t, (*policyx.StackValidationPolicy)(nil), pol, rule.ID)
		}
	}
	assert.Equal(t, policyx.EnforcementLevelMandatory, got["AKSML-GPU-001"].EnforcementLevel())
	assert.Equal(t, policyx.EnforcementLevelAdvisory, got["AKSML-GPU-010"].EnforcementLevel())
}

func TestResourcePolicyReportsOnTheResource(t *testing.T) {
	pol := policies(t, newPack("dev", rules.EnvDev))["AKSML-GPU-001"].(policyx.ResourceValidationPolicy)
	for _, tc := range []struct {
		name  string
		taint bool
		want  int
	}{{"violating pool", false, 1}, {"compliant pool", true, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			var got reported
			err := pol.Validate(context.Background(), policyx.ResourceValidationArgs{
				Manager:  &got,
				Resource: analyzerResource(poolType, poolURN, "gpua100", poolInputs(tc.taint)),
			})
			require.NoError(t, err)
			require.Len(t, got.messages, tc.want)
			if tc.want > 0 {
				assert.Contains(t, got.messages[0], "AgentPool gpua100")
				assert.Contains(t, got.messages[0], "sku=gpu:NoSchedule")
				assert.Equal(t, poolURN, got.urns[0])
			}
		})
	}
}

func TestResourcePolicyUsesTheStackEnvironment(t *testing.T) {
	in := poolInputs(true)
	in["minCount"] = resource.NewProperty(1.0)
	for env, want := range map[string]int{rules.EnvDev: 1, rules.EnvProd: 0} {
		pol := policies(t, newPack(env, env))["AKSML-GPU-002"].(policyx.ResourceValidationPolicy)
		var got reported
		require.NoError(t, pol.Validate(context.Background(), policyx.ResourceValidationArgs{
			Manager: &got, Resource: analyzerResource(poolType, poolURN, "gpua100", in),
		}))
		assert.Len(t, got.messages, want, env)
	}
}

// TestStackPolicyJudgesAnalyzedInputs runs Analyze-time policies over the
// inputs, then the stack policy over outputs that lack them (azure-native
// outputs have no agentPoolName): the stack rules must still see the pool.
func TestStackPolicyJudgesAnalyzedInputs(t *testing.T) {
	p := newPack("dev", rules.EnvDev)
	pols := policies(t, p)
	inputs := []policyx.AnalyzerResource{
		analyzerResource(poolType, poolURN, "gpua100-resource", poolInputs(true)),
		analyzerResource(flavorType, flavorURN, "gpu-a100", flavorInputs()),
		analyzerResource(queueType, queueURN, "team-a-gpu", queueInputs("8")),
	}
	for _, in := range inputs {
		var ignored reported
		require.NoError(t, pols["AKSML-GPU-001"].(policyx.ResourceValidationPolicy).Validate(context.Background(),
			policyx.ResourceValidationArgs{Manager: &ignored, Resource: in}))
	}
	outputs := []policyx.AnalyzerResource{
		analyzerResource(stackType, stackURN, "aksml-dev", resource.NewPropertyMapFromMap(map[string]any{
			"kubeconfig":  "apiVersion: v1\n",
			"clusterName": "aks",
		})),
		analyzerResource(poolType, poolURN, "gpua100-resource", resource.NewPropertyMapFromMap(map[string]any{
			"name": "gpua100-xyz", "vmSize": "Standard_NC24ads_A100_v4", "maxCount": 2,
		})),
		analyzerResource(flavorType, flavorURN, "gpu-a100", flavorInputs()),
		analyzerResource(queueType, queueURN, "team-a-gpu", queueInputs("8")),
	}

	var quota reported
	require.NoError(t, pols["AKSML-QUE-001"].(policyx.StackValidationPolicy).Validate(context.Background(),
		policyx.StackValidationArgs{Manager: &quota, Resources: outputs}))
	require.Len(t, quota.messages, 1)
	assert.Contains(t, quota.messages[0], "hand out 8 nvidia.com/gpu on ResourceFlavor gpu-a100")
	assert.Contains(t, quota.messages[0], "gpua100 2 × 1 GPU")
	assert.Equal(t, flavorURN, quota.urns[0])

	var kubeconfig reported
	require.NoError(t, pols["AKSML-SEC-001"].(policyx.StackValidationPolicy).Validate(context.Background(),
		policyx.StackValidationArgs{Manager: &kubeconfig, Resources: outputs}))
	require.Len(t, kubeconfig.messages, 1)
	assert.Contains(t, kubeconfig.messages[0], `stack output "kubeconfig" is not secret`)

	outputs[0].Properties = resource.FromResourcePropertyMap(resource.PropertyMap{
		"kubeconfig": resource.MakeSecret(resource.NewProperty("apiVersion: v1\n")),
	})
	var secret reported
	require.NoError(t, pols["AKSML-SEC-001"].(policyx.StackValidationPolicy).Validate(context.Background(),
		policyx.StackValidationArgs{Manager: &secret, Resources: outputs}))
	assert.Empty(t, secret.messages)
}

func TestToResource(t *testing.T) {
	props := resource.PropertyMap{
		"kubeconfig": resource.MakeSecret(resource.NewProperty("apiVersion: v1\n")),
		"host":       resource.MakeComputed(resource.NewProperty("")),
		"nested": resource.NewProperty(resource.PropertyMap{
			"list":  resource.NewProperty([]resource.PropertyValue{resource.NewProperty(1.0), resource.NewProperty(true)}),
			"token": resource.MakeSecret(resource.NewProperty("t")),
			"null":  resource.NewNullProperty(),
		}),
	}
	ar := analyzerResource(providerType, providerURN, "k8s", props)
	ar.Options.Protect = true
	ar.Parent = stackURN
	r := toResource(ar)
	assert.Equal(t, rules.Resource{
		Type: providerType, Name: "k8s", URN: providerURN, Parent: stackURN, Protect: true,
		Inputs: map[string]any{
			"kubeconfig": "apiVersion: v1\n",
			"host":       rules.Unknown,
			"nested":     map[string]any{"list": []any{1.0, true}, "token": "t", "null": nil},
		},
		SecretInputs: []string{"kubeconfig", "nested"},
	}, r)
	assert.Equal(t, "urn:x", plain(property.New(property.ResourceReference{URN: "urn:x"})))
}

// TestAnalyzerOverGRPC builds the pack the way the Go language host does
// (`go build` in this directory), starts it, reads the port it prints and
// drives it as the engine does: Handshake, ConfigureStack, GetPluginInfo,
// GetAnalyzerInfo, Analyze, AnalyzeStack.
func TestAnalyzerOverGRPC(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the policy pack binary")
	}
	dir, err := os.Getwd()
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), "aksml-policy")
	build := exec.Command("go", "build", "-o", bin)
	build.Dir = dir
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))

	cmd := exec.Command(bin)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	port, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	conn, err := grpc.NewClient("127.0.0.1:"+strings.TrimSpace(port), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	client := pulumirpc.NewAnalyzerClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	_, err = client.Handshake(ctx, &pulumirpc.AnalyzerHandshakeRequest{EngineAddress: "127.0.0.1:1", RootDirectory: &dir, ProgramDirectory: &dir})
	require.NoError(t, err)
	_, err = client.ConfigureStack(ctx, &pulumirpc.AnalyzerStackConfigureRequest{
		Stack: "staging", Project: "aksml", DryRun: true, Config: map[string]string{EnvironmentKey: "prod"},
	})
	require.NoError(t, err)

	pluginInfo, err := client.GetPluginInfo(ctx, &emptypb.Empty{})
	require.NoError(t, err)
	assert.Equal(t, PackVersion, pluginInfo.GetVersion())

	info, err := client.GetAnalyzerInfo(ctx, &emptypb.Empty{})
	require.NoError(t, err)
	assert.Equal(t, PackName, info.GetName())
	require.Len(t, info.GetPolicies(), len(rules.All()))
	levels := map[string]pulumirpc.EnforcementLevel{}
	for _, pol := range info.GetPolicies() {
		levels[pol.GetName()] = pol.GetEnforcementLevel()
	}
	assert.Equal(t, pulumirpc.EnforcementLevel_MANDATORY, levels["AKSML-GPU-001"])
	assert.Equal(t, pulumirpc.EnforcementLevel_ADVISORY, levels["AKSML-GPU-011"])

	marshal := func(pm resource.PropertyMap) *structpb.Struct {
		s, err := plugin.MarshalProperties(pm, plugin.MarshalOptions{KeepSecrets: true, KeepUnknowns: true})
		require.NoError(t, err)
		return s
	}
	pool := poolInputs(false)
	delete(pool, "availabilityZones")
	analysis, err := client.Analyze(ctx, &pulumirpc.AnalyzeRequest{Type: poolType, Urn: poolURN, Name: "gpua100", Properties: marshal(pool)})
	require.NoError(t, err)
	byPolicy := map[string]*pulumirpc.AnalyzeDiagnostic{}
	for _, d := range analysis.GetDiagnostics() {
		byPolicy[d.GetPolicyName()] = d
	}
	require.Contains(t, byPolicy, "AKSML-GPU-001")
	assert.Equal(t, pulumirpc.EnforcementLevel_MANDATORY, byPolicy["AKSML-GPU-001"].GetEnforcementLevel())
	assert.Contains(t, byPolicy["AKSML-GPU-001"].GetMessage(), "AgentPool gpua100")
	assert.Equal(t, poolURN, byPolicy["AKSML-GPU-001"].GetUrn())
	require.Contains(t, byPolicy, "AKSML-GPU-011", "ConfigureStack's aksml:environment makes the stack prod")
	assert.Equal(t, pulumirpc.EnforcementLevel_ADVISORY, byPolicy["AKSML-GPU-011"].GetEnforcementLevel())

	for _, r := range []struct {
		typ, urn, name string
		props          resource.PropertyMap
	}{{flavorType, flavorURN, "gpu-a100", flavorInputs()}, {queueType, queueURN, "team-a-gpu", queueInputs("16")}} {
		_, err = client.Analyze(ctx, &pulumirpc.AnalyzeRequest{Type: r.typ, Urn: r.urn, Name: r.name, Properties: marshal(r.props)})
		require.NoError(t, err)
	}
	stack, err := client.AnalyzeStack(ctx, &pulumirpc.AnalyzeStackRequest{Resources: []*pulumirpc.AnalyzerResource{
		{Type: stackType, Urn: stackURN, Name: "aksml-staging", Properties: marshal(resource.PropertyMap{
			"kubeconfig": resource.MakeSecret(resource.NewProperty("apiVersion: v1\n")),
		})},
		{Type: poolType, Urn: poolURN, Name: "gpua100", Properties: marshal(pool), Parent: stackURN},
		{Type: flavorType, Urn: flavorURN, Name: "gpu-a100", Properties: marshal(flavorInputs()), Parent: stackURN},
		{Type: queueType, Urn: queueURN, Name: "team-a-gpu", Properties: marshal(queueInputs("16")), Parent: stackURN},
	}})
	require.NoError(t, err)
	var names []string
	for _, d := range stack.GetDiagnostics() {
		names = append(names, d.GetPolicyName())
		if d.GetPolicyName() == "AKSML-QUE-001" {
			assert.Contains(t, d.GetMessage(), "hand out 16 nvidia.com/gpu")
			assert.Equal(t, flavorURN, d.GetUrn())
		}
	}
	assert.Equal(t, []string{"AKSML-QUE-001"}, names, "only the quota overflow; the kubeconfig output is secret")
}
