package gpupool

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aksml/aksml/components/field"
	containerservice "github.com/pulumi/pulumi-azure-native-sdk/containerservice/v2/v20241001"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// specOf returns a valid seed 004 A100 training pool changed by mutate.
func specOf(mutate func(*Spec)) Spec {
	s := Spec{Name: "gpua100", VMSize: "Standard_NC24ads_A100_v4", Workload: WorkloadTraining, MaxCount: 4}
	if mutate != nil {
		mutate(&s)
	}
	s.Default()
	return s
}

func intp(v int) *int { return &v }

func TestSpecValidate(t *testing.T) {
	root := field.NewPath("aksml:gpuPools").Index(0)
	tests := []struct {
		name    string
		mutate  func(*Spec)
		wantErr []string
	}{
		{name: "seed 004 A100 pool is valid"},
		{name: "seed 000 T4 pool is valid", mutate: func(s *Spec) { s.Name = "gpunp"; s.VMSize = "Standard_NC4as_T4_v3" }},
		{name: "spot training is valid", mutate: func(s *Spec) { s.Priority = PrioritySpot; s.MaxCount = 8 }},
		{name: "MIG on A100 is valid", mutate: func(s *Spec) { s.MIG = &MIGSpec{Strategy: MIGStrategyMixed, Profile: MIG1g} }},
		{name: "missing name", mutate: func(s *Spec) { s.Name = "" }, wantErr: []string{"aksml:gpuPools[0].name: is required"}},
		{name: "name too long", mutate: func(s *Spec) { s.Name = "gpua100training" }, wantErr: []string{`aksml:gpuPools[0].name: "gpua100training" is not a valid AKS pool name`}},
		{name: "name with dash", mutate: func(s *Spec) { s.Name = "gpu-a100" }, wantErr: []string{"aksml:gpuPools[0].name:"}},
		{name: "name starting with digit", mutate: func(s *Spec) { s.Name = "1gpu" }, wantErr: []string{"aksml:gpuPools[0].name:"}},
		{name: "missing vmSize", mutate: func(s *Spec) { s.VMSize = "" }, wantErr: []string{"aksml:gpuPools[0].vmSize: is required"}},
		{name: "NV-series rejected", mutate: func(s *Spec) { s.VMSize = "Standard_NV12s_v3" }, wantErr: []string{"aksml:gpuPools[0].vmSize: Standard_NV12s_v3 is an NV-series (M60) SKU for visualisation only"}},
		{name: "unknown SKU", mutate: func(s *Spec) { s.VMSize = "Standard_D4s_v5" }, wantErr: []string{"aksml:gpuPools[0].vmSize: Standard_D4s_v5 is not in the GPU SKU catalogue"}},
		{name: "missing workload", mutate: func(s *Spec) { s.Workload = "" }, wantErr: []string{"aksml:gpuPools[0].workload: is required"}},
		{name: "unknown workload", mutate: func(s *Spec) { s.Workload = "gpu" }, wantErr: []string{`aksml:gpuPools[0].workload: "gpu" is not supported`}},
		{name: "unknown priority", mutate: func(s *Spec) { s.Priority = "Low" }, wantErr: []string{`aksml:gpuPools[0].priority: "Low" is not supported`}},
		{name: "spot inference rejected", mutate: func(s *Spec) { s.Priority = PrioritySpot; s.Workload = WorkloadInference }, wantErr: []string{`aksml:gpuPools[0].priority: Spot is not allowed for workload "inference"`}},
		{name: "maxCount missing", mutate: func(s *Spec) { s.MaxCount = 0 }, wantErr: []string{"aksml:gpuPools[0].maxCount: 0 is out of range"}},
		{name: "maxCount too large", mutate: func(s *Spec) { s.MaxCount = 1001 }, wantErr: []string{"aksml:gpuPools[0].maxCount: 1001 is out of range"}},
		{name: "minCount above maxCount", mutate: func(s *Spec) { s.MinCount = intp(2); s.MaxCount = 1 }, wantErr: []string{"aksml:gpuPools[0].minCount: minCount (2) > maxCount (1)"}},
		{name: "negative minCount", mutate: func(s *Spec) { s.MinCount = intp(-1) }, wantErr: []string{"aksml:gpuPools[0].minCount: -1 is negative"}},
		{name: "bad zone", mutate: func(s *Spec) { s.Zones = []string{"1", "4"} }, wantErr: []string{`aksml:gpuPools[0].zones[1]: "4" is not an availability zone`}},
		{name: "duplicate zone", mutate: func(s *Spec) { s.Zones = []string{"2", "2"} }, wantErr: []string{`aksml:gpuPools[0].zones[1]: zone "2" is listed twice`}},
		{name: "unknown gpuStack", mutate: func(s *Spec) { s.GPUStack = "Operator" }, wantErr: []string{`aksml:gpuPools[0].gpuStack: "Operator" is not supported`}},
		{name: "OS disk too small", mutate: func(s *Spec) { s.OSDiskSizeGB = 16 }, wantErr: []string{"aksml:gpuPools[0].osDiskSizeGB: 16 is out of range"}},
		{name: "MIG on T4 rejected", mutate: func(s *Spec) {
			s.VMSize = "Standard_NC4as_T4_v3"
			s.MIG = &MIGSpec{Strategy: MIGStrategySingle, Profile: MIG3g}
		}, wantErr: []string{"aksml:gpuPools[0].mig.profile: MIG3g needs a MIG-capable SKU (A100, H100); Standard_NC4as_T4_v3 (T4 16GB) is not"}},
		{name: "MIG strategy without profile", mutate: func(s *Spec) { s.MIG = &MIGSpec{Strategy: MIGStrategyMixed} }, wantErr: []string{"aksml:gpuPools[0].mig.profile: is required"}},
		{name: "MIG profile with strategy None", mutate: func(s *Spec) { s.MIG = &MIGSpec{Strategy: MIGStrategyNone, Profile: MIG1g} }, wantErr: []string{"aksml:gpuPools[0].mig.strategy: profile MIG1g is set but strategy is None"}},
		{name: "unknown MIG profile", mutate: func(s *Spec) { s.MIG = &MIGSpec{Strategy: MIGStrategyMixed, Profile: "MIG5g"} }, wantErr: []string{`aksml:gpuPools[0].mig.profile: "MIG5g" is not supported`}},
		{name: "label override rejected", mutate: func(s *Spec) { s.AdditionalLabels = map[string]string{"accelerator": "amd"} }, wantErr: []string{`aksml:gpuPools[0].additionalLabels["accelerator"]: label "accelerator" is set by aksml`}},
		{name: "malformed taint", mutate: func(s *Spec) { s.AdditionalTaints = []string{"dedicated"} }, wantErr: []string{"aksml:gpuPools[0].additionalTaints[0]:"}},
		{name: "GPU taint override rejected", mutate: func(s *Spec) { s.AdditionalTaints = []string{"sku=cpu:NoSchedule"} }, wantErr: []string{`aksml:gpuPools[0].additionalTaints[0]: taint key "sku" is set by aksml`}},
		{name: "every problem at once", mutate: func(s *Spec) { s.Name = ""; s.VMSize = "Standard_NV6"; s.MaxCount = 0 }, wantErr: []string{
			"aksml:gpuPools[0].name:", "aksml:gpuPools[0].vmSize:", "aksml:gpuPools[0].maxCount:",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errs := specOf(tc.mutate).Validate(root)
			if len(tc.wantErr) == 0 {
				assert.Empty(t, errs)
				return
			}
			err := errs.ToAggregate()
			require.Error(t, err)
			for _, want := range tc.wantErr {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}

func TestValidatePoolsRejectsDuplicateNames(t *testing.T) {
	errs := ValidatePools([]Spec{specOf(nil), specOf(nil)}, field.NewPath("aksml:gpuPools"))
	require.Len(t, errs, 1)
	assert.Equal(t, field.Path("aksml:gpuPools[1].name"), errs[0].Path)
	assert.Contains(t, errs[0].Detail, "already used by aksml:gpuPools[0]")
}

type registered struct {
	typ    string
	name   string
	inputs resource.PropertyMap
	rpc    *pulumirpc.RegisterResourceRequest
}

type mocks struct {
	mu        sync.Mutex
	resources []registered
}

func (m *mocks) NewResource(args pulumi.MockResourceArgs) (string, resource.PropertyMap, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.resources = append(m.resources, registered{args.TypeToken, args.Name, args.Inputs, args.RegisterRPC})
	state := args.Inputs.Copy()
	if strings.HasSuffix(args.TypeToken, ":AgentPool") {
		state["name"] = args.Inputs["agentPoolName"]
	}
	if strings.HasSuffix(args.TypeToken, ":DeploymentStackAtResourceGroup") {
		pool := args.Inputs["parameters"].ObjectValue()["poolName"].ObjectValue()["value"].StringValue()
		state["outputs"] = resource.NewObjectProperty(resource.PropertyMap{
			"poolId":   resource.NewObjectProperty(resource.PropertyMap{"value": resource.NewStringProperty("/subscriptions/s/agentPools/" + pool)}),
			"poolName": resource.NewObjectProperty(resource.PropertyMap{"value": resource.NewStringProperty(pool)}),
		})
	}
	return args.Name + "-id", state, nil
}

func (m *mocks) Call(args pulumi.MockCallArgs) (resource.PropertyMap, error) {
	return args.Args, nil
}

func (m *mocks) byType(suffix string) []registered {
	var out []registered
	for _, r := range m.resources {
		if strings.HasSuffix(r.typ, suffix) {
			out = append(out, r)
		}
	}
	return out
}

// poolOutputs are the resolved outputs of one GPUNodePool.
type poolOutputs struct {
	name, resourceID, vmSize, gpuStack string
	maxGPUs                            int
	idle, max, discount                float64
}

// runPool builds one pool under mocks and returns the mocks and, when the
// pool was built, its resolved outputs.
func runPool(t *testing.T, args *GPUNodePoolArgs) (*mocks, poolOutputs, error) {
	t.Helper()
	m := &mocks{}
	ch := make(chan poolOutputs, 1)
	err := pulumi.RunErr(func(ctx *pulumi.Context) error {
		p, err := NewGPUNodePool(ctx, "gpu", args)
		if err != nil {
			return err
		}
		pulumi.All(p.Name, p.ResourceID, p.VMSize, p.GPUStack, p.MaxGPUs, p.IdleCostPerHour, p.MaxCostPerHour, p.SpotDiscount).ApplyT(func(vs []any) int {
			ch <- poolOutputs{
				name: vs[0].(string), resourceID: vs[1].(string), vmSize: vs[2].(string), gpuStack: vs[3].(string),
				maxGPUs: vs[4].(int), idle: vs[5].(float64), max: vs[6].(float64), discount: vs[7].(float64),
			}
			return 0
		})
		return nil
	}, pulumi.WithMocks("aksml", "test", m))
	if err != nil {
		return m, poolOutputs{}, err
	}
	select {
	case out := <-ch:
		return m, out, nil
	case <-time.After(10 * time.Second):
		t.Fatal("pool outputs did not resolve")
		return m, poolOutputs{}, nil
	}
}

func poolArgs(s Spec) *GPUNodePoolArgs {
	return &GPUNodePoolArgs{Spec: s, ResourceGroupName: pulumi.String("rg-ml"), ClusterName: pulumi.String("aks-ml")}
}

func stringsOf(v resource.PropertyValue) []string {
	var out []string
	for _, e := range v.ArrayValue() {
		out = append(out, e.StringValue())
	}
	return out
}

func TestDriverOnlyPoolMatchesSeed000(t *testing.T) {
	args := poolArgs(Spec{Name: "gpunp", VMSize: "Standard_NC4as_T4_v3", Workload: WorkloadTraining, MaxCount: 4})
	m, out, err := runPool(t, args)
	require.NoError(t, err)
	assert.Nil(t, args.Spec.MinCount, "the caller's spec is not defaulted in place")
	require.Len(t, m.byType(":GPUNodePool"), 1)
	pools := m.byType(":AgentPool")
	require.Len(t, pools, 1)
	assert.Empty(t, m.byType(":DeploymentStackAtResourceGroup"))
	p := pools[0]
	assert.Equal(t, "azure-native:containerservice/v20241001:AgentPool", p.typ)
	assert.Equal(t, "gpu-pool", p.name)
	in := p.inputs
	assert.Equal(t, "gpunp", in["agentPoolName"].StringValue())
	assert.Equal(t, "aks-ml", in["resourceName"].StringValue())
	assert.Equal(t, "rg-ml", in["resourceGroupName"].StringValue())
	assert.Equal(t, "User", in["mode"].StringValue())
	assert.Equal(t, "Linux", in["osType"].StringValue())
	assert.Equal(t, "Standard_NC4as_T4_v3", in["vmSize"].StringValue())
	assert.True(t, in["enableAutoScaling"].BoolValue())
	assert.Equal(t, 0.0, in["count"].NumberValue(), "seed 000 --node-count 0")
	assert.Equal(t, 0.0, in["minCount"].NumberValue())
	assert.Equal(t, 4.0, in["maxCount"].NumberValue())
	assert.Equal(t, []string{"sku=gpu:NoSchedule"}, stringsOf(in["nodeTaints"]))
	labels := in["nodeLabels"].ObjectValue()
	assert.Equal(t, "nvidia", labels["accelerator"].StringValue())
	assert.Equal(t, "training", labels["workload"].StringValue())
	assert.Len(t, labels, 2)
	assert.Equal(t, 256.0, in["osDiskSizeGB"].NumberValue())
	assert.Equal(t, []string{"count"}, p.rpc.GetIgnoreChanges(), "the autoscaler owns count")
	assert.Subset(t, p.rpc.GetReplaceOnChanges(), []string{"vmSize", "gpuInstanceProfile", "scaleSetPriority", "availabilityZones", "osDiskSizeGB"})
	assert.True(t, p.rpc.GetDeleteBeforeReplace(), "the pool name is fixed: delete before re-creating")
	assert.Contains(t, p.rpc.GetParent(), "aksml:gpupool:GPUNodePool")
	for _, k := range []resource.PropertyKey{"scaleSetPriority", "scaleSetEvictionPolicy", "spotMaxPrice", "gpuInstanceProfile", "availabilityZones"} {
		assert.False(t, in.HasValue(k), "%s must be unset on a regular non-MIG regional pool", k)
	}

	assert.Equal(t, "gpunp", out.name)
	assert.Equal(t, "gpu-pool-id", out.resourceID)
	assert.Equal(t, "Standard_NC4as_T4_v3", out.vmSize)
	assert.Equal(t, "DriverOnly", out.gpuStack)
	assert.Equal(t, 4, out.maxGPUs)
	assert.Equal(t, 0.0, out.idle, "idle cost is 0 at minCount 0")
	assert.Equal(t, 2.10, out.max, "4 × $0.526")
	assert.Equal(t, 0.0, out.discount)
}

func TestSpotPoolMatchesSeed004(t *testing.T) {
	spec := Spec{Name: "gpuspot", VMSize: "Standard_NC24ads_A100_v4", Workload: WorkloadTraining, Priority: PrioritySpot, MaxCount: 8, Zones: []string{"1", "2", "3"}}
	m, out, err := runPool(t, poolArgs(spec))
	require.NoError(t, err)
	in := m.byType(":AgentPool")[0].inputs
	assert.Equal(t, "Spot", in["scaleSetPriority"].StringValue())
	assert.Equal(t, "Delete", in["scaleSetEvictionPolicy"].StringValue())
	assert.Equal(t, -1.0, in["spotMaxPrice"].NumberValue())
	assert.Equal(t, []string{"sku=gpu:NoSchedule", "kubernetes.azure.com/scalesetpriority=spot:NoSchedule"}, stringsOf(in["nodeTaints"]))
	assert.Equal(t, "gpu-spot", in["nodeLabels"].ObjectValue()["workload"].StringValue())
	assert.Equal(t, []string{"1", "2", "3"}, stringsOf(in["availabilityZones"]))
	assert.Equal(t, 0.0, in["minCount"].NumberValue())

	assert.Equal(t, 8, out.maxGPUs)
	assert.Equal(t, 0.0, out.idle)
	assert.Equal(t, 11.75, out.max, "8 × $3.673 × (1 − 0.60)")
	assert.Equal(t, SpotDiscount, out.discount)
}

func TestIdleCostAtNonZeroMin(t *testing.T) {
	min := 1
	spec := Spec{Name: "infer", VMSize: "Standard_NC24ads_A100_v4", Workload: WorkloadInference, MinCount: &min, MaxCount: 2}
	_, out, err := runPool(t, poolArgs(spec))
	require.NoError(t, err)
	assert.Equal(t, 3.67, out.idle)
	assert.Equal(t, 7.35, out.max)
}

func TestMIGPoolSetsInstanceProfile(t *testing.T) {
	spec := Spec{Name: "gpumig", VMSize: "Standard_NC24ads_A100_v4", Workload: WorkloadTraining, MaxCount: 2, MIG: &MIGSpec{Strategy: MIGStrategyMixed, Profile: MIG1g}}
	m, _, err := runPool(t, poolArgs(spec))
	require.NoError(t, err)
	in := m.byType(":AgentPool")[0].inputs
	assert.Equal(t, "MIG1g", in["gpuInstanceProfile"].StringValue())
	assert.Equal(t, "hptuning-1g10gb", in["nodeLabels"].ObjectValue()["nvidia.com/mig.config"].StringValue())
}

func TestTransformAndTags(t *testing.T) {
	args := poolArgs(Spec{Name: "gpunp", VMSize: "Standard_NC4as_T4_v3", Workload: WorkloadTraining, MaxCount: 1})
	args.Tags = map[string]string{"costCenter": "ml"}
	args.Transform = func(a *containerservice.AgentPoolArgs) { a.MaxPods = pulumi.Int(50) }
	m, _, err := runPool(t, args)
	require.NoError(t, err)
	in := m.byType(":AgentPool")[0].inputs
	assert.Equal(t, 50.0, in["maxPods"].NumberValue())
	assert.Equal(t, "ml", in["tags"].ObjectValue()["costCenter"].StringValue())
}

func TestManagedPoolUsesTemplateStack(t *testing.T) {
	spec := Spec{Name: "gpumgd", VMSize: "Standard_NC24ads_A100_v4", Workload: WorkloadTraining, MaxCount: 4, GPUStack: GPUStackManaged,
		MIG: &MIGSpec{Strategy: MIGStrategySingle, Profile: MIG3g}}
	m, out, err := runPool(t, poolArgs(spec))
	require.NoError(t, err)
	assert.Empty(t, m.byType(":AgentPool"), "no typed pool: it cannot express gpuProfile.nvidia")
	stacks := m.byType(":DeploymentStackAtResourceGroup")
	require.Len(t, stacks, 1)
	in := stacks[0].inputs
	assert.Equal(t, "gpu-pool", stacks[0].name)
	assert.Empty(t, stacks[0].rpc.GetReplaceOnChanges(), "replacing the stack would detach the pool and fail to re-create it")
	assert.Equal(t, "rg-ml", in["resourceGroupName"].StringValue())
	assert.Equal(t, "delete", in["actionOnUnmanage"].ObjectValue()["resources"].StringValue())
	assert.Equal(t, "none", in["denySettings"].ObjectValue()["mode"].StringValue())
	params := in["parameters"].ObjectValue()
	assert.Equal(t, "aks-ml", params["clusterName"].ObjectValue()["value"].StringValue())
	assert.Equal(t, "gpumgd", params["poolName"].ObjectValue()["value"].StringValue())

	res := in["template"].ObjectValue()["resources"].ArrayValue()
	require.Len(t, res, 1)
	pool := res[0].ObjectValue()
	assert.Equal(t, "Microsoft.ContainerService/managedClusters/agentPools", pool["type"].StringValue())
	assert.Equal(t, "2026-01-02-preview", pool["apiVersion"].StringValue())
	assert.Equal(t, "[format('{0}/{1}', parameters('clusterName'), parameters('poolName'))]", pool["name"].StringValue())
	props := pool["properties"].ObjectValue()
	gpu := props["gpuProfile"].ObjectValue()
	assert.Equal(t, "Install", gpu["driver"].StringValue())
	assert.Equal(t, "Managed", gpu["nvidia"].ObjectValue()["managementMode"].StringValue())
	assert.Equal(t, "Single", gpu["nvidia"].ObjectValue()["migStrategy"].StringValue())
	assert.Equal(t, "MIG3g", props["gpuInstanceProfile"].StringValue())
	assert.Equal(t, "User", props["mode"].StringValue())
	assert.True(t, props["enableAutoScaling"].BoolValue())
	assert.Equal(t, 0.0, props["count"].NumberValue())
	assert.Equal(t, 0.0, props["minCount"].NumberValue())
	assert.Equal(t, 4.0, props["maxCount"].NumberValue())
	assert.Equal(t, []string{"sku=gpu:NoSchedule"}, stringsOf(props["nodeTaints"]))
	assert.False(t, props["nodeLabels"].ObjectValue().HasValue("nvidia.com/mig.config"), "AKS manages the MIG layout of Managed pools")

	assert.Equal(t, "gpumgd", out.name)
	assert.Equal(t, "/subscriptions/s/agentPools/gpumgd", out.resourceID)
	assert.Equal(t, "Managed", out.gpuStack)
}

func TestNonePoolSkipsDriver(t *testing.T) {
	spec := Spec{Name: "gpubyo", VMSize: "Standard_ND96asr_v4", Workload: WorkloadTraining, MaxCount: 2, GPUStack: GPUStackNone, Priority: PrioritySpot}
	m, out, err := runPool(t, poolArgs(spec))
	require.NoError(t, err)
	props := m.byType(":DeploymentStackAtResourceGroup")[0].inputs["template"].ObjectValue()["resources"].ArrayValue()[0].ObjectValue()["properties"].ObjectValue()
	gpu := props["gpuProfile"].ObjectValue()
	assert.Equal(t, "None", gpu["driver"].StringValue())
	assert.False(t, gpu.HasValue("nvidia"))
	assert.Equal(t, "Spot", props["scaleSetPriority"].StringValue())
	assert.Equal(t, "Delete", props["scaleSetEvictionPolicy"].StringValue())
	assert.Equal(t, -1.0, props["spotMaxPrice"].NumberValue())
	assert.Equal(t, 16, out.maxGPUs)
}

func TestTemplatePropertiesWithoutGPUProfileForDriverOnly(t *testing.T) {
	props := TemplateProperties(specOf(nil), nil)
	assert.NotContains(t, props, "gpuProfile")
	assert.NotContains(t, props, "tags")
}

func TestInvalidPoolRegistersNothing(t *testing.T) {
	tests := []struct {
		name    string
		args    *GPUNodePoolArgs
		wantErr string
	}{
		{name: "nil args", args: nil, wantErr: "args are required"},
		{name: "NV-series", args: poolArgs(Spec{Name: "gpunv", VMSize: "Standard_NV6", Workload: WorkloadTraining, MaxCount: 1}), wantErr: `aksml:gpuPools["gpunv"].vmSize`},
		{name: "config path", args: &GPUNodePoolArgs{Spec: Spec{Name: "gpunp", VMSize: "Standard_NC4as_T4_v3", Workload: WorkloadTraining}, ConfigPath: "aksml:gpuPools[3]", ResourceGroupName: pulumi.String("rg"), ClusterName: pulumi.String("aks")}, wantErr: "aksml:gpuPools[3].maxCount"},
		{name: "no cluster", args: &GPUNodePoolArgs{Spec: specOf(nil), ResourceGroupName: pulumi.String("rg")}, wantErr: "GPUNodePoolArgs.ClusterName: is required"},
		{name: "no resource group", args: &GPUNodePoolArgs{Spec: specOf(nil), ClusterName: pulumi.String("aks")}, wantErr: "GPUNodePoolArgs.ResourceGroupName: is required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, _, err := runPool(t, tc.args)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
			assert.Empty(t, m.resources)
		})
	}
}
