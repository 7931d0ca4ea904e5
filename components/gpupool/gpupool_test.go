package gpupool

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aksml/aksml/components/armdeploy"
	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/field/fieldtest"
	containerservice "github.com/pulumi/pulumi-azure-native-sdk/containerservice/v2/v20241001"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/internal/mocktest"
	"github.com/aksml/aksml/internal/thirdparty"
)

// specOf returns a valid A100 training pool (SPEC C2) changed by mutate.
func specOf(mutate func(*Spec)) Spec {
	s := Spec{Name: "gpua100", VMSize: "Standard_NC24ads_A100_v4", Workload: WorkloadTraining, MaxCount: 4}
	if mutate != nil {
		mutate(&s)
	}
	s.Default()
	return s
}

func intp(v int) *int { return &v }

// managed turns a spec into a valid gpuStack Managed pool of count nodes:
// no autoscaler bounds (the autoscaler is not supported on managed pools).
func managed(s *Spec, count int) {
	s.GPUStack = GPUStackManaged
	s.MaxCount = 0
	s.MinCount = nil
	s.Count = intp(count)
}

func TestSpecValidate(t *testing.T) {
	root := field.NewPath("aksml:gpuPools").Index(0)
	tests := []struct {
		name       string
		mutate     func(*Spec)
		wantErr    []fieldtest.Want // nil means valid
		wantDetail string           // one phrase the message must hold, where the wording is the point
	}{
		{name: "A100 training pool (SPEC C2) is valid"},
		{name: "T4 pool of AKS MLOps best practices is valid", mutate: func(s *Spec) { s.Name = "gpunp"; s.VMSize = "Standard_NC4as_T4_v3" }},
		{name: "spot training is valid", mutate: func(s *Spec) { s.Priority = PrioritySpot; s.MaxCount = 8 }},
		{name: "MIG on A100 is valid", mutate: func(s *Spec) { s.MIG = &MIGSpec{Strategy: MIGStrategyMixed, Profile: MIG1g} }},
		{name: "missing name", mutate: func(s *Spec) { s.Name = "" }, wantErr: []fieldtest.Want{fieldtest.Required(`aksml:gpuPools[0].name`)}},
		{name: "name too long", mutate: func(s *Spec) { s.Name = "gpua100training" }, wantErr: []fieldtest.Want{fieldtest.Invalid(`aksml:gpuPools[0].name`)}},
		{name: "name with dash", mutate: func(s *Spec) { s.Name = "gpu-a100" }, wantErr: []fieldtest.Want{fieldtest.Invalid(`aksml:gpuPools[0].name`)}},
		{name: "name starting with digit", mutate: func(s *Spec) { s.Name = "1gpu" }, wantErr: []fieldtest.Want{fieldtest.Invalid(`aksml:gpuPools[0].name`)}},
		{name: "InfiniBand pool in one zone is valid", mutate: func(s *Spec) { s.VMSize = "Standard_ND96isr_H100_v5"; s.Zones = []string{"2"} }},
		{name: "InfiniBand pool over zones", mutate: func(s *Spec) { s.VMSize = "Standard_ND96isr_H100_v5"; s.Zones = []string{"1", "2", "3"} },
			wantErr: []fieldtest.Want{fieldtest.Invalid(`aksml:gpuPools[0].zones`)}, wantDetail: `list one zone (or none)`},
		{name: "non-RDMA pool over zones is valid", mutate: func(s *Spec) { s.Zones = []string{"1", "2", "3"} }},
		{name: "missing vmSize", mutate: func(s *Spec) { s.VMSize = "" }, wantErr: []fieldtest.Want{fieldtest.Required(`aksml:gpuPools[0].vmSize`)}},
		{name: "NV-series rejected", mutate: func(s *Spec) { s.VMSize = "Standard_NV12s_v3" }, wantErr: []fieldtest.Want{fieldtest.Invalid(`aksml:gpuPools[0].vmSize`)}, wantDetail: `for visualisation only`},
		{name: "unknown SKU", mutate: func(s *Spec) { s.VMSize = "Standard_D4s_v5" }, wantErr: []fieldtest.Want{fieldtest.Invalid(`aksml:gpuPools[0].vmSize`)}},
		{name: "missing workload", mutate: func(s *Spec) { s.Workload = "" }, wantErr: []fieldtest.Want{fieldtest.Required(`aksml:gpuPools[0].workload`)}},
		{name: "unknown workload", mutate: func(s *Spec) { s.Workload = "gpu" }, wantErr: []fieldtest.Want{fieldtest.NotSupported(`aksml:gpuPools[0].workload`)}},
		{name: "unknown priority", mutate: func(s *Spec) { s.Priority = "Low" }, wantErr: []fieldtest.Want{fieldtest.NotSupported(`aksml:gpuPools[0].priority`)}},
		{name: "spot inference rejected", mutate: func(s *Spec) { s.Priority = PrioritySpot; s.Workload = WorkloadInference }, wantErr: []fieldtest.Want{fieldtest.Forbidden(`aksml:gpuPools[0].priority`)}},
		{name: "maxCount missing", mutate: func(s *Spec) { s.MaxCount = 0 }, wantErr: []fieldtest.Want{fieldtest.Invalid(`aksml:gpuPools[0].maxCount`)}},
		{name: "maxCount too large", mutate: func(s *Spec) { s.MaxCount = 1001 }, wantErr: []fieldtest.Want{fieldtest.Invalid(`aksml:gpuPools[0].maxCount`)}},
		{name: "minCount above maxCount", mutate: func(s *Spec) { s.MinCount = intp(2); s.MaxCount = 1 }, wantErr: []fieldtest.Want{fieldtest.Invalid(`aksml:gpuPools[0].minCount`)}, wantDetail: `minCount (2) > maxCount (1)`},
		{name: "negative minCount", mutate: func(s *Spec) { s.MinCount = intp(-1) }, wantErr: []fieldtest.Want{fieldtest.Invalid(`aksml:gpuPools[0].minCount`)}},
		{name: "bad zone", mutate: func(s *Spec) { s.Zones = []string{"1", "4"} }, wantErr: []fieldtest.Want{fieldtest.Invalid(`aksml:gpuPools[0].zones[1]`)}},
		{name: "duplicate zone", mutate: func(s *Spec) { s.Zones = []string{"2", "2"} }, wantErr: []fieldtest.Want{fieldtest.Duplicate(`aksml:gpuPools[0].zones[1]`)}},
		{name: "unknown gpuStack", mutate: func(s *Spec) { s.GPUStack = "Operator" }, wantErr: []fieldtest.Want{fieldtest.NotSupported(`aksml:gpuPools[0].gpuStack`)}},
		{name: "managed pool with count is valid", mutate: func(s *Spec) { managed(s, 2) }},
		{name: "managed pool of zero nodes is valid", mutate: func(s *Spec) { managed(s, 0) }},
		{name: "managed pool without count", mutate: func(s *Spec) { managed(s, 0); s.Count = nil },
			wantErr: []fieldtest.Want{fieldtest.Required(`aksml:gpuPools[0].count`)}, wantDetail: `ManagedGPUExperiencePreview`},
		{name: "managed pool with autoscaler bounds", mutate: func(s *Spec) { managed(s, 1); s.MinCount = intp(0); s.MaxCount = 3 },
			wantErr: []fieldtest.Want{fieldtest.Forbidden(`aksml:gpuPools[0].minCount`), fieldtest.Forbidden(`aksml:gpuPools[0].maxCount`)}, wantDetail: `set count`},
		{name: "managed pool count out of range", mutate: func(s *Spec) { managed(s, 1001) }, wantErr: []fieldtest.Want{fieldtest.Invalid(`aksml:gpuPools[0].count`)}},
		{name: "count on an autoscaled pool", mutate: func(s *Spec) { s.Count = intp(1) },
			wantErr: []fieldtest.Want{fieldtest.Forbidden(`aksml:gpuPools[0].count`)}, wantDetail: `DriverOnly`},
		{name: "count on a None pool", mutate: func(s *Spec) { s.GPUStack = GPUStackNone; s.Count = intp(1) },
			wantErr: []fieldtest.Want{fieldtest.Forbidden(`aksml:gpuPools[0].count`)}},
		{name: "OS disk too small", mutate: func(s *Spec) { s.OSDiskSizeGB = 16 }, wantErr: []fieldtest.Want{fieldtest.Invalid(`aksml:gpuPools[0].osDiskSizeGB`)}},
		{name: "MIG on T4 rejected", mutate: func(s *Spec) {
			s.VMSize = "Standard_NC4as_T4_v3"
			s.MIG = &MIGSpec{Strategy: MIGStrategySingle, Profile: MIG3g}
		}, wantErr: []fieldtest.Want{fieldtest.Invalid(`aksml:gpuPools[0].mig.profile`)}, wantDetail: `Standard_NC4as_T4_v3 (T4 16GB) is not`},
		{name: "MIG strategy without profile", mutate: func(s *Spec) { s.MIG = &MIGSpec{Strategy: MIGStrategyMixed} }, wantErr: []fieldtest.Want{fieldtest.Required(`aksml:gpuPools[0].mig.profile`)}},
		{name: "MIG profile with strategy None", mutate: func(s *Spec) { s.MIG = &MIGSpec{Strategy: MIGStrategyNone, Profile: MIG1g} }, wantErr: []fieldtest.Want{fieldtest.Invalid(`aksml:gpuPools[0].mig.strategy`)}},
		{name: "unknown MIG profile", mutate: func(s *Spec) { s.MIG = &MIGSpec{Strategy: MIGStrategyMixed, Profile: "MIG5g"} }, wantErr: []fieldtest.Want{fieldtest.NotSupported(`aksml:gpuPools[0].mig.profile`)}},
		{name: "label override rejected", mutate: func(s *Spec) { s.AdditionalLabels = map[string]string{"accelerator": "amd"} }, wantErr: []fieldtest.Want{fieldtest.Forbidden(`aksml:gpuPools[0].additionalLabels["accelerator"]`)}},
		{name: "malformed taint", mutate: func(s *Spec) { s.AdditionalTaints = []string{"dedicated"} }, wantErr: []fieldtest.Want{fieldtest.Invalid(`aksml:gpuPools[0].additionalTaints[0]`)}},
		{name: "GPU taint override rejected", mutate: func(s *Spec) { s.AdditionalTaints = []string{"sku=cpu:NoSchedule"} }, wantErr: []fieldtest.Want{fieldtest.Forbidden(`aksml:gpuPools[0].additionalTaints[0]`)}},
		{name: "Azure Linux on a DriverOnly pool is valid", mutate: func(s *Spec) { s.OSSKU = OSSKUAzureLinux }},
		{name: "explicit Ubuntu is valid", mutate: func(s *Spec) { s.OSSKU = OSSKUUbuntu; managed(s, 1) }},
		{name: "Azure Linux on a Managed pool is valid", mutate: func(s *Spec) { s.OSSKU = OSSKUAzureLinux; managed(s, 1) }},
		{name: "Azure Linux on a None pool rejected", mutate: func(s *Spec) { s.OSSKU = OSSKUAzureLinux; s.GPUStack = GPUStackNone },
			wantErr: []fieldtest.Want{fieldtest.Forbidden(`aksml:gpuPools[0].osSku`)}, wantDetail: `GPU Operator`},
		{name: "Windows OS SKU rejected", mutate: func(s *Spec) { s.OSSKU = "Windows2022" }, wantErr: []fieldtest.Want{fieldtest.NotSupported(`aksml:gpuPools[0].osSku`)}, wantDetail: `use one of "Ubuntu", "AzureLinux"`},
		{name: "AzureLinux3 rejected (preview API only)", mutate: func(s *Spec) { s.OSSKU = "AzureLinux3" }, wantErr: []fieldtest.Want{fieldtest.NotSupported(`aksml:gpuPools[0].osSku`)}},
		{name: "every problem at once", mutate: func(s *Spec) { s.Name = ""; s.VMSize = "Standard_NV6"; s.MaxCount = 0 }, wantErr: []fieldtest.Want{fieldtest.Required(`aksml:gpuPools[0].name`), fieldtest.Invalid(`aksml:gpuPools[0].vmSize`), fieldtest.Invalid(`aksml:gpuPools[0].maxCount`)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errs := specOf(tc.mutate).Validate(root)
			fieldtest.ListEqual(t, errs, tc.wantErr...)
			if tc.wantDetail != "" {
				assert.Contains(t, errs.ToAggregate().Error(), tc.wantDetail)
			}
		})
	}
}

func TestValidatePoolsRejectsDuplicateNames(t *testing.T) {
	errs := ValidatePools([]Spec{specOf(nil), specOf(nil)}, field.NewPath("aksml:gpuPools"))
	if fieldtest.ListEqual(t, errs, fieldtest.Duplicate("aksml:gpuPools[1].name")) {
		assert.Contains(t, errs[0].Detail, "already used by aksml:gpuPools[0]") // names the first use
	}
}

// newMocks returns mocks that answer like ARM: an AgentPool gets its name,
// a deployment stack its name and one output per template output `<pool>Id`,
// valued /subscriptions/s/agentPools/<pool>.
func newMocks() *mocktest.Mocks {
	return &mocktest.Mocks{
		NameFrom:    map[string]string{":AgentPool": "agentPoolName", ":DeploymentStackAtResourceGroup": "deploymentStackName"},
		StackOutput: func(k string) string { return "/subscriptions/s/agentPools/" + strings.TrimSuffix(k, "Id") },
	}
}

// resolvedPool holds the resolved outputs of one GPUNodePool.
type resolvedPool struct {
	name, resourceID, vmSize, gpuStack string
	maxGPUs                            int
	idle, max, discount                float64
}

// runPools builds the pools under mocks and returns the mocks and, when
// they were built, the resolved outputs of every pool by name.
func runPools(t *testing.T, args *GPUNodePoolsArgs) (*mocktest.Mocks, map[string]resolvedPool, error) {
	t.Helper()
	m := newMocks()
	ch := make(chan resolvedPool, 16)
	want := 0
	err := m.Run(func(ctx *pulumi.Context) error {
		c, err := NewGPUNodePools(ctx, "gpu", args)
		if err != nil {
			return err
		}
		want = len(c.Pools)
		for _, p := range c.Pools {
			pulumi.All(p.Name, p.ResourceID, p.VMSize, p.GPUStack, p.MaxGPUs, p.IdleCostPerHour, p.MaxCostPerHour, p.SpotDiscount).ApplyT(func(vs []any) int {
				ch <- resolvedPool{
					name: vs[0].(string), resourceID: vs[1].(string), vmSize: vs[2].(string), gpuStack: vs[3].(string),
					maxGPUs: vs[4].(int), idle: vs[5].(float64), max: vs[6].(float64), discount: vs[7].(float64),
				}
				return 0
			})
		}
		return nil
	})
	if err != nil {
		return m, nil, err
	}
	out := map[string]resolvedPool{}
	for len(out) < want {
		select {
		case p := <-ch:
			out[p.name] = p
		case <-time.After(10 * time.Second):
			t.Fatal("pool outputs did not resolve")
		}
	}
	return m, out, nil
}

func poolsArgs(specs ...Spec) *GPUNodePoolsArgs {
	return poolsArgsAt("aksml:gpuPools", specs...)
}

// resolvedAt resolves specs read from config key path; the problems
// travel in the pools.
func resolvedAt(path field.Path, specs ...Spec) []Resolved {
	pools, _ := Resolve(specs, path)
	return pools
}

// poolsArgsAt are the args of specs read from config key path.
func poolsArgsAt(path field.Path, specs ...Spec) *GPUNodePoolsArgs {
	return &GPUNodePoolsArgs{Pools: resolvedAt(path, specs...), ResourceGroupName: pulumi.String("rg-ml"), ClusterName: pulumi.String("aks-ml")}
}

func stringsOf(v resource.PropertyValue) []string {
	var out []string
	for _, e := range v.ArrayValue() {
		out = append(out, e.StringValue())
	}
	return out
}

// stackOf returns the only deployment stack registered.
func stackOf(t *testing.T, m *mocktest.Mocks) mocktest.Resource {
	t.Helper()
	stacks := m.ByTypeSuffix(":DeploymentStackAtResourceGroup")
	require.Len(t, stacks, 1, "one shared template stack per cluster")
	return stacks[0]
}

// templatePools returns the agentPools resources of the stack's template.
func templatePools(t *testing.T, m *mocktest.Mocks) []resource.PropertyMap {
	t.Helper()
	var out []resource.PropertyMap
	for _, r := range stackOf(t, m).Props["template"].ObjectValue()["resources"].ArrayValue() {
		out = append(out, r.ObjectValue())
	}
	return out
}

func TestDriverOnlyPoolMatchesBestPractices(t *testing.T) {
	spec := Spec{Name: "gpunp", VMSize: "Standard_NC4as_T4_v3", Workload: WorkloadTraining, MaxCount: 4}
	m, out, err := runPools(t, poolsArgs(spec))
	require.NoError(t, err)
	assert.Nil(t, spec.MinCount, "the caller's spec is not defaulted in place")
	require.Len(t, m.ByTypeSuffix(":GPUNodePools"), 1)
	pools := m.ByTypeSuffix(":AgentPool")
	require.Len(t, pools, 1)
	assert.Empty(t, templatePools(t, m), "the stack is registered with no pool")
	p := pools[0]
	assert.Equal(t, "azure-native:containerservice/v20241001:AgentPool", p.Type)
	assert.Equal(t, "gpu-gpunp", p.Name)
	in := p.Props
	assert.Equal(t, "gpunp", in["agentPoolName"].StringValue())
	assert.Equal(t, "aks-ml", in["resourceName"].StringValue())
	assert.Equal(t, "rg-ml", in["resourceGroupName"].StringValue())
	assert.Equal(t, "User", in["mode"].StringValue())
	assert.Equal(t, "Linux", in["osType"].StringValue())
	assert.Equal(t, "Standard_NC4as_T4_v3", in["vmSize"].StringValue())
	assert.True(t, in["enableAutoScaling"].BoolValue())
	assert.False(t, in.HasValue("count"), "an autoscaled typed pool sends no count: azure-native PUTs it again on every update")
	assert.Equal(t, 0.0, in["minCount"].NumberValue())
	assert.Equal(t, 4.0, in["maxCount"].NumberValue())
	assert.Equal(t, []string{"sku=gpu:NoSchedule"}, stringsOf(in["nodeTaints"]))
	labels := in["nodeLabels"].ObjectValue()
	assert.Equal(t, "nvidia", labels["accelerator"].StringValue())
	assert.Equal(t, "training", labels["workload"].StringValue())
	assert.Len(t, labels, 2)
	assert.Equal(t, 256.0, in["osDiskSizeGB"].NumberValue())
	assert.NotContains(t, p.IgnoreChanges, "count", "ignoreChanges would put the stored count back into the update body")
	assert.Subset(t, p.ReplaceOnChanges, []string{"vmSize", "gpuInstanceProfile", "scaleSetPriority", "availabilityZones", "osDiskSizeGB"})
	assert.True(t, p.DeleteBeforeReplace, "the pool name is fixed: delete before re-creating")
	assert.Contains(t, p.Parent, ComponentType)
	for _, k := range []resource.PropertyKey{"scaleSetPriority", "scaleSetEvictionPolicy", "spotMaxPrice", "gpuInstanceProfile", "availabilityZones", "osSKU"} {
		assert.False(t, in.HasValue(k), "%s must be unset on a regular non-MIG regional Ubuntu pool", k)
	}

	require.Len(t, out, 1)
	o := out["gpunp"]
	assert.Equal(t, "gpu-gpunp-id", o.resourceID)
	assert.Equal(t, "Standard_NC4as_T4_v3", o.vmSize)
	assert.Equal(t, "DriverOnly", o.gpuStack)
	assert.Equal(t, 4, o.maxGPUs)
	assert.Equal(t, 0.0, o.idle, "idle cost is 0 at minCount 0")
	assert.Equal(t, 2.10, o.max, "4 × $0.526")
	assert.Equal(t, 0.0, o.discount)
}

func TestSpotPoolMatchesC2(t *testing.T) {
	spec := Spec{Name: "gpuspot", VMSize: "Standard_NC24ads_A100_v4", Workload: WorkloadTraining, Priority: PrioritySpot, MaxCount: 8, Zones: []string{"1", "2", "3"}}
	m, out, err := runPools(t, poolsArgs(spec))
	require.NoError(t, err)
	in := m.ByTypeSuffix(":AgentPool")[0].Props
	assert.Equal(t, "Spot", in["scaleSetPriority"].StringValue())
	assert.Equal(t, "Delete", in["scaleSetEvictionPolicy"].StringValue())
	assert.Equal(t, -1.0, in["spotMaxPrice"].NumberValue())
	assert.Equal(t, []string{"sku=gpu:NoSchedule", "kubernetes.azure.com/scalesetpriority=spot:NoSchedule"}, stringsOf(in["nodeTaints"]))
	assert.Equal(t, "gpu-spot", in["nodeLabels"].ObjectValue()["workload"].StringValue())
	assert.Equal(t, []string{"1", "2", "3"}, stringsOf(in["availabilityZones"]))
	assert.Equal(t, 0.0, in["minCount"].NumberValue())

	o := out["gpuspot"]
	assert.Equal(t, 8, o.maxGPUs)
	assert.Equal(t, 0.0, o.idle)
	assert.Equal(t, 11.75, o.max, "8 × $3.673 × (1 − 0.60)")
	assert.Equal(t, SpotDiscount, o.discount)
}

func TestIdleCostAtNonZeroMin(t *testing.T) {
	spec := Spec{Name: "infer", VMSize: "Standard_NC24ads_A100_v4", Workload: WorkloadInference, MinCount: intp(1), MaxCount: 2}
	_, out, err := runPools(t, poolsArgs(spec))
	require.NoError(t, err)
	assert.Equal(t, 3.67, out["infer"].idle)
	assert.Equal(t, 7.35, out["infer"].max)
}

func TestMIGPoolSetsInstanceProfile(t *testing.T) {
	spec := Spec{Name: "gpumig", VMSize: "Standard_NC24ads_A100_v4", Workload: WorkloadTraining, MaxCount: 2, MIG: &MIGSpec{Strategy: MIGStrategyMixed, Profile: MIG1g}}
	m, _, err := runPools(t, poolsArgs(spec))
	require.NoError(t, err)
	in := m.ByTypeSuffix(":AgentPool")[0].Props
	assert.Equal(t, "MIG1g", in["gpuInstanceProfile"].StringValue())
	assert.Equal(t, "hptuning-1g10gb", in["nodeLabels"].ObjectValue()["nvidia.com/mig.config"].StringValue())
}

func TestTransformsAndTags(t *testing.T) {
	args := poolsArgs(
		Spec{Name: "gpunp", VMSize: "Standard_NC4as_T4_v3", Workload: WorkloadTraining, MaxCount: 1},
		Spec{Name: "gpumgd", VMSize: "Standard_NC4as_T4_v3", Workload: WorkloadTraining, Count: intp(1), GPUStack: GPUStackManaged},
	)
	args.Tags = map[string]string{"costCenter": "ml"}
	var transformed, propsTransformed []string
	args.Transform = func(s Spec, a *containerservice.AgentPoolArgs) {
		transformed = append(transformed, s.Name)
		a.MaxPods = pulumi.Int(50)
	}
	args.PropertiesTransform = func(s Spec, props map[string]any) {
		propsTransformed = append(propsTransformed, s.Name)
		props["maxPods"] = 60
	}
	m, _, err := runPools(t, args)
	require.NoError(t, err)
	assert.Equal(t, []string{"gpunp"}, transformed, "Transform sees DriverOnly pools only")
	assert.Equal(t, []string{"gpumgd"}, propsTransformed, "PropertiesTransform sees template pools only")
	in := m.ByTypeSuffix(":AgentPool")[0].Props
	assert.Equal(t, 50.0, in["maxPods"].NumberValue())
	assert.Equal(t, "ml", in["tags"].ObjectValue()["costCenter"].StringValue())
	props := templatePools(t, m)[0]["properties"].ObjectValue()
	assert.Equal(t, 60.0, props["maxPods"].NumberValue())
	assert.Equal(t, "ml", props["tags"].ObjectValue()["costCenter"].StringValue())
	assert.Equal(t, "ml", stackOf(t, m).Props["tags"].ObjectValue()["costCenter"].StringValue())
}

func TestTemplatePoolsShareOneStack(t *testing.T) {
	managedPool := Spec{Name: "gpumgd", VMSize: "Standard_NC24ads_A100_v4", Workload: WorkloadTraining, Count: intp(2), GPUStack: GPUStackManaged,
		MIG: &MIGSpec{Strategy: MIGStrategySingle, Profile: MIG3g}}
	driverOnly := Spec{Name: "gpunp", VMSize: "Standard_NC4as_T4_v3", Workload: WorkloadTraining, MaxCount: 2}
	byo := Spec{Name: "gpubyo", VMSize: "Standard_ND96asr_v4", Workload: WorkloadTraining, MaxCount: 2, GPUStack: GPUStackNone, Priority: PrioritySpot}
	m, out, err := runPools(t, poolsArgs(managedPool, driverOnly, byo))
	require.NoError(t, err)

	require.Len(t, m.ByTypeSuffix(":AgentPool"), 1, "only the DriverOnly pool is a typed AgentPool")
	assert.Equal(t, "gpunp", m.ByTypeSuffix(":AgentPool")[0].Props["agentPoolName"].StringValue())
	stack := stackOf(t, m)
	assert.Equal(t, "azure-native:resources/v20240301:DeploymentStackAtResourceGroup", stack.Type)
	assert.Equal(t, "gpu-stack", stack.Name)
	assert.Equal(t, "gpu-stack", stack.Props["deploymentStackName"].StringValue())
	assert.Contains(t, stack.Parent, ComponentType)
	assert.Empty(t, stack.ReplaceOnChanges, "replacing the stack would detach every pool it holds")
	assert.False(t, stack.DeleteBeforeReplace)
	in := stack.Props
	assert.Equal(t, "rg-ml", in["resourceGroupName"].StringValue())
	aou := in["actionOnUnmanage"].ObjectValue()
	assert.Equal(t, "delete", aou["resources"].StringValue(), "a pool removed from the template is deleted")
	assert.Equal(t, "none", in["denySettings"].ObjectValue()["mode"].StringValue())
	assert.Equal(t, StackDescription, in["description"].StringValue())
	assert.Equal(t, "aks-ml", in["parameters"].ObjectValue()["clusterName"].ObjectValue()["value"].StringValue())
	assert.Equal(t, "string", in["template"].ObjectValue()["parameters"].ObjectValue()["clusterName"].ObjectValue()["type"].StringValue())

	pools := templatePools(t, m)
	require.Len(t, pools, 2)
	for i, name := range []string{"gpubyo", "gpumgd"} {
		assert.Equal(t, "Microsoft.ContainerService/managedClusters/agentPools", pools[i]["type"].StringValue())
		assert.Equal(t, "2026-02-02-preview", pools[i]["apiVersion"].StringValue())
		assert.Equal(t, "[format('{0}/{1}', parameters('clusterName'), '"+name+"')]", pools[i]["name"].StringValue(), "sorted by name, not config order")
	}

	assert.False(t, pools[0].HasValue("dependsOn"), "the first template pool waits for nothing inside the template")
	assert.Equal(t, []string{"[resourceId('Microsoft.ContainerService/managedClusters/agentPools', parameters('clusterName'), 'gpubyo')]"},
		stringsOf(pools[1]["dependsOn"]), "each template pool waits for the one before: one pool write at a time")

	byoProps := pools[0]["properties"].ObjectValue()
	assert.Equal(t, "None", byoProps["gpuProfile"].ObjectValue()["driver"].StringValue())
	assert.Equal(t, "Unmanaged", byoProps["gpuProfile"].ObjectValue()["nvidia"].ObjectValue()["managementMode"].StringValue(),
		"a None pool states managementMode instead of relying on the API default")
	assert.True(t, byoProps["enableAutoScaling"].BoolValue())
	assert.Equal(t, 2.0, byoProps["maxCount"].NumberValue())
	assert.False(t, byoProps.HasValue("count"), "an autoscaled pool sends no count, so updates never reset the autoscaler's choice")
	assert.Equal(t, "Spot", byoProps["scaleSetPriority"].StringValue())
	assert.Equal(t, "Delete", byoProps["scaleSetEvictionPolicy"].StringValue())
	assert.Equal(t, -1.0, byoProps["spotMaxPrice"].NumberValue())

	props := pools[1]["properties"].ObjectValue()
	gpu := props["gpuProfile"].ObjectValue()
	assert.Equal(t, "Install", gpu["driver"].StringValue())
	assert.Equal(t, "Managed", gpu["nvidia"].ObjectValue()["managementMode"].StringValue())
	assert.Equal(t, "Single", gpu["nvidia"].ObjectValue()["migStrategy"].StringValue())
	assert.Equal(t, "MIG3g", props["gpuInstanceProfile"].StringValue())
	assert.Equal(t, "Standard_NC24ads_A100_v4", props["vmSize"].StringValue())
	assert.Equal(t, "User", props["mode"].StringValue())
	assert.False(t, props["enableAutoScaling"].BoolValue(), "the autoscaler is not supported on managed GPU pools (preview)")
	assert.Equal(t, 2.0, props["count"].NumberValue(), "the count from config")
	assert.False(t, props.HasValue("minCount"))
	assert.False(t, props.HasValue("maxCount"))
	assert.Equal(t, []string{"sku=gpu:NoSchedule"}, stringsOf(props["nodeTaints"]))
	assert.False(t, props["nodeLabels"].ObjectValue().HasValue("nvidia.com/mig.config"), "AKS manages the MIG layout of Managed pools")

	outputs := in["template"].ObjectValue()["outputs"].ObjectValue()
	assert.Equal(t, "[resourceId('Microsoft.ContainerService/managedClusters/agentPools', parameters('clusterName'), 'gpumgd')]",
		outputs["gpumgdId"].ObjectValue()["value"].StringValue())
	assert.Len(t, outputs, 2)

	require.Len(t, out, 3)
	assert.Equal(t, "/subscriptions/s/agentPools/gpumgd", out["gpumgd"].resourceID, "read from the stack's outputs")
	assert.Equal(t, "Managed", out["gpumgd"].gpuStack)
	assert.Equal(t, 2, out["gpumgd"].maxGPUs, "count × GPUs per node")
	assert.Equal(t, "/subscriptions/s/agentPools/gpubyo", out["gpubyo"].resourceID)
	assert.Equal(t, 16, out["gpubyo"].maxGPUs)
	assert.Equal(t, "gpu-gpunp-id", out["gpunp"].resourceID)
}

func TestStackRegisteredWithoutPools(t *testing.T) {
	m, out, err := runPools(t, poolsArgs())
	require.NoError(t, err)
	assert.Empty(t, out)
	assert.Empty(t, m.ByTypeSuffix(":AgentPool"))
	tpl := stackOf(t, m).Props["template"].ObjectValue()
	assert.Empty(t, tpl["resources"].ArrayValue(), "an empty template: removing the last template pool deletes it")
	assert.Empty(t, tpl["outputs"].ObjectValue())
	assert.Equal(t, "aks-ml", stackOf(t, m).Props["parameters"].ObjectValue()["clusterName"].ObjectValue()["value"].StringValue(),
		"the stack still waits for the cluster, so destroy deletes it before the cluster")
}

func TestPoolsTemplateWithoutAPoolOnlyDropsIt(t *testing.T) {
	mgd := specOf(func(s *Spec) { s.Name = "gpumgd"; managed(s, 1) })
	byo := specOf(func(s *Spec) { s.Name = "gpubyo"; s.GPUStack = GPUStackNone })
	both := PoolsTemplate(map[string]map[string]any{
		mgd.Name: TemplateProperties(mgd, nil),
		byo.Name: TemplateProperties(byo, nil),
	})
	one := PoolsTemplate(map[string]map[string]any{mgd.Name: TemplateProperties(mgd, nil)})

	bothRes := both["resources"].([]map[string]any)
	oneRes := one["resources"].([]map[string]any)
	require.Len(t, bothRes, 2)
	require.Len(t, oneRes, 1)
	assert.Equal(t, bothRes[1]["properties"], oneRes[0]["properties"], "the remaining pool is unchanged")
	assert.Equal(t, bothRes[1]["name"], oneRes[0]["name"])
	assert.NotContains(t, oneRes[0], "dependsOn", "the first pool of the chain waits for nothing")
	assert.Equal(t, map[string]any{"gpumgdId": both["outputs"].(map[string]any)["gpumgdId"]}, one["outputs"])
	assert.Equal(t, both["parameters"], one["parameters"])

	none := PoolsTemplate(nil)
	assert.Equal(t, []map[string]any{}, none["resources"])
	assert.Equal(t, map[string]any{}, none["outputs"])
}

// changedProperties lists the top-level ARM properties that differ.
func changedProperties(a, b map[string]any) []string {
	var out []string
	for k := range a {
		if !reflect.DeepEqual(a[k], b[k]) {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func TestImmutableChangeIsAPropertyOfThePoolInTheTemplate(t *testing.T) {
	base := func(s *Spec) {
		s.Name = "gpumgd"
		managed(s, 1)
		s.MIG = &MIGSpec{Strategy: MIGStrategySingle, Profile: MIG1g}
	}
	tests := []struct {
		name   string
		mutate func(*Spec)
		want   []string
	}{
		{name: "vmSize", mutate: func(s *Spec) { s.VMSize = "Standard_NC48ads_A100_v4" }, want: []string{"vmSize"}},
		{name: "gpuStack (None adds the MIG layout label, the autoscaler and its scale-from-zero tags)", mutate: func(s *Spec) { s.GPUStack = GPUStackNone; s.Count = nil; s.MaxCount = 1 },
			want: []string{"count", "enableAutoScaling", "gpuProfile", "maxCount", "minCount", "nodeLabels", "tags"}},
		{name: "count", mutate: func(s *Spec) { s.Count = intp(3) }, want: []string{"count"}},
		{name: "MIG strategy", mutate: func(s *Spec) { s.MIG.Strategy = MIGStrategyMixed }, want: []string{"gpuProfile"}},
		{name: "MIG profile", mutate: func(s *Spec) { s.MIG.Profile = MIG3g }, want: []string{"gpuInstanceProfile"}},
		{name: "priority", mutate: func(s *Spec) { s.Priority = PrioritySpot }, want: []string{"nodeLabels", "nodeTaints", "scaleSetEvictionPolicy", "scaleSetPriority", "spotMaxPrice"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := specOf(base)
			after := specOf(func(s *Spec) { base(s); tc.mutate(s) })
			require.Empty(t, after.Validate("p"))
			other := specOf(func(s *Spec) { s.Name = "gpuother"; s.GPUStack = GPUStackNone })
			oldTpl := PoolsTemplate(map[string]map[string]any{before.Name: TemplateProperties(before, nil), other.Name: TemplateProperties(other, nil)})
			newTpl := PoolsTemplate(map[string]map[string]any{after.Name: TemplateProperties(after, nil), other.Name: TemplateProperties(other, nil)})
			oldRes, newRes := oldTpl["resources"].([]map[string]any), newTpl["resources"].([]map[string]any)
			require.Len(t, newRes, 2)
			assert.Equal(t, oldRes[1], newRes[1], "the other pool (gpuother, sorted after gpumgd) does not change")
			assert.Equal(t, oldRes[0]["name"], newRes[0]["name"], "the pool keeps its name and place")
			assert.Equal(t, tc.want, changedProperties(oldRes[0]["properties"].(map[string]any), newRes[0]["properties"].(map[string]any)))
		})
	}
}

func TestTemplatePropertiesWithoutGPUProfileForDriverOnly(t *testing.T) {
	props := TemplateProperties(specOf(nil), nil)
	assert.NotContains(t, props, "gpuProfile")
	assert.NotContains(t, props, "tags")
}

func TestInvalidPoolsRegisterNothing(t *testing.T) {
	valid := specOf(nil)
	mgd := specOf(func(s *Spec) { s.Name = "gpumgd"; managed(s, 1) })
	withArgs := func(mutate func(*GPUNodePoolsArgs)) *GPUNodePoolsArgs {
		a := poolsArgs(valid, mgd)
		mutate(a)
		return a
	}
	tests := []struct {
		name    string
		compo   string
		args    *GPUNodePoolsArgs
		wantErr []fieldtest.Want // the validation problems, exactly
		wantMsg string           // for errors that are not validation problems
	}{
		{name: "nil args", wantMsg: "args are required"},
		{name: "NV-series next to a valid pool", args: poolsArgs(mgd, Spec{Name: "gpunv", VMSize: "Standard_NV6", Workload: WorkloadTraining, MaxCount: 1}),
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:gpuPools[1].vmSize")}},
		{name: "config path", args: poolsArgsAt("cfg:pools", valid, mgd, Spec{Name: "gpunp2", VMSize: "Standard_NC4as_T4_v3", Workload: WorkloadTraining}),
			wantErr: []fieldtest.Want{fieldtest.Invalid("cfg:pools[2].maxCount")}},
		{name: "duplicate names across routes", args: poolsArgs(valid, specOf(func(s *Spec) { managed(s, 1) })),
			wantErr: []fieldtest.Want{fieldtest.Duplicate("aksml:gpuPools[1].name")}},
		{name: "no cluster", args: withArgs(func(a *GPUNodePoolsArgs) { a.ClusterName = nil }), wantErr: []fieldtest.Want{fieldtest.Required("GPUNodePoolsArgs.ClusterName")}},
		{name: "no resource group", args: withArgs(func(a *GPUNodePoolsArgs) { a.ResourceGroupName = nil }), wantErr: []fieldtest.Want{fieldtest.Required("GPUNodePoolsArgs.ResourceGroupName")}},
		{name: "every problem at once", args: &GPUNodePoolsArgs{Pools: resolvedAt(DefaultConfigPath, Spec{Name: "Bad"})}, wantErr: []fieldtest.Want{
			fieldtest.Invalid("gpuPools[0].name"), fieldtest.Required("gpuPools[0].vmSize"), fieldtest.Required("gpuPools[0].workload"), fieldtest.Invalid("gpuPools[0].maxCount"),
			fieldtest.Required("GPUNodePoolsArgs.ClusterName"), fieldtest.Required("GPUNodePoolsArgs.ResourceGroupName"),
		}},
		{name: "invalid stack name", compo: "gpu pools", args: poolsArgs(mgd), wantMsg: `stack name "gpu pools-stack" is invalid`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			compo := tc.compo
			if compo == "" {
				compo = "gpu"
			}
			m, err := mocktest.Run(t, func(ctx *pulumi.Context) error {
				_, err := NewGPUNodePools(ctx, compo, tc.args)
				return err
			})
			require.Error(t, err)
			if tc.wantMsg != "" {
				assert.Contains(t, err.Error(), tc.wantMsg)
			} else {
				fieldtest.Equal(t, err, tc.wantErr...)
			}
			assert.Empty(t, m.All())
		})
	}
}

func TestPoolWritesAreSerial(t *testing.T) {
	first := specOf(func(s *Spec) { s.Name = "gpuone" })
	second := specOf(func(s *Spec) { s.Name = "gputwo"; s.VMSize = "Standard_NC4as_T4_v3" })
	byo := specOf(func(s *Spec) { s.Name = "gpubyo"; s.GPUStack = GPUStackNone })
	third := specOf(func(s *Spec) { s.Name = "gputhree"; s.VMSize = "Standard_NC4as_T4_v3" })
	mgd := specOf(func(s *Spec) { s.Name = "gpuamgd"; managed(s, 1) })
	m, _, err := runPools(t, poolsArgs(first, second, byo, third, mgd))
	require.NoError(t, err)

	typed := m.ByTypeSuffix(":AgentPool")
	require.Len(t, typed, 3)
	urn := func(r mocktest.Resource) string {
		return "urn:pulumi:test::aksml::aksml:gpupool:GPUNodePools$" + r.Type + "::" + r.Name
	}
	assert.Equal(t, []string{"gpu-gpuone", "gpu-gputwo", "gpu-gputhree"}, []string{typed[0].Name, typed[1].Name, typed[2].Name}, "config order")
	assert.Empty(t, typed[0].Deps, "the first typed pool waits only for its inputs (the cluster)")
	assert.Equal(t, []string{urn(typed[0])}, typed[1].Deps, "each typed pool waits for the one before")
	assert.Equal(t, []string{urn(typed[1])}, typed[2].Deps)
	assert.Equal(t, []string{urn(typed[2])}, stackOf(t, m).Deps, "the template pools are written after the last typed pool")

	pools := templatePools(t, m)
	require.Len(t, pools, 2)
	assert.Equal(t, "[format('{0}/{1}', parameters('clusterName'), 'gpuamgd')]", pools[0]["name"].StringValue())
	assert.False(t, pools[0].HasValue("dependsOn"))
	assert.Equal(t, []string{"[resourceId('Microsoft.ContainerService/managedClusters/agentPools', parameters('clusterName'), 'gpuamgd')]"}, stringsOf(pools[1]["dependsOn"]))
}

func TestStackWithoutTypedPoolsWaitsForNoPool(t *testing.T) {
	m, _, err := runPools(t, poolsArgs(specOf(func(s *Spec) { s.Name = "gpumgd"; managed(s, 1) })))
	require.NoError(t, err)
	assert.Empty(t, stackOf(t, m).Deps)
}

func TestManagedPoolCapacityAndCostFollowCount(t *testing.T) {
	s := specOf(func(s *Spec) { s.VMSize = "Standard_NC4as_T4_v3"; managed(s, 3) })
	sku, _ := s.SKU()
	assert.Equal(t, 3, s.maxGPUs())
	assert.Equal(t, 3, s.minNodes())
	assert.Equal(t, round2(3*sku.PricePerHour), s.IdleCostPerHour(), "a managed pool runs its count all the time")
	assert.Equal(t, s.IdleCostPerHour(), s.MaxCostPerHour())
	assert.Nil(t, s.MinCount, "Default gives a managed pool no minCount")
}

// TestTemplatePoolsMatchThePublishedSpec checks every template pool body
// (Managed, None, spot, MIG, tags) against AgentPool in the published
// 2026-02-02-preview spec: every property declared, none read-only, every
// enum value valid.
func TestTemplatePoolsMatchThePublishedSpec(t *testing.T) {
	dir, err := thirdparty.SpecsDir("")
	require.NoError(t, err)
	spec, err := armdeploy.LoadOpenAPISpec(filepath.Join(dir, "specification/containerservice/resource-manager/Microsoft.ContainerService/aks/preview",
		AgentPoolAPIVersion, "managedClusters.json"))
	require.NoError(t, err)
	pools := map[string]map[string]any{
		"gpumgd": TemplateProperties(specOf(func(s *Spec) {
			s.Name = "gpumgd"
			managed(s, 2)
			s.MIG = &MIGSpec{Strategy: MIGStrategyMixed, Profile: MIG1g}
		}), map[string]string{"team": "ml"}),
		"gpubyo": TemplateProperties(specOf(func(s *Spec) {
			s.Name = "gpubyo"
			s.GPUStack = GPUStackNone
			s.Priority = PrioritySpot
			s.Zones = []string{"1"}
		}), nil),
		"gpuplain": TemplateProperties(specOf(func(s *Spec) { s.Name = "gpuplain"; managed(s, 0) }), nil),
	}
	for _, r := range PoolsTemplate(pools)["resources"].([]map[string]any) {
		assert.Empty(t, spec.CheckResource("AgentPool", r), r["name"])
	}
}

// TestNodeSubnetOnEveryPool: with a node subnet, typed pools set
// vnetSubnetID and template pools read it from the nodeSubnetId parameter.
func TestNodeSubnetOnEveryPool(t *testing.T) {
	const subnet = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/aks-nodes"
	mgd := specOf(func(s *Spec) { s.Name = "gpumgd"; managed(s, 1) })
	driverOnly := Spec{Name: "gpunp", VMSize: "Standard_NC4as_T4_v3", Workload: WorkloadTraining, MaxCount: 2}
	args := poolsArgs(mgd, driverOnly)
	args.NodeSubnetID = pulumi.String(subnet)
	m, _, err := runPools(t, args)
	require.NoError(t, err)
	require.Len(t, m.ByTypeSuffix(":AgentPool"), 1)
	assert.Equal(t, subnet, m.ByTypeSuffix(":AgentPool")[0].Props["vnetSubnetID"].StringValue())
	pools := templatePools(t, m)
	require.Len(t, pools, 1)
	assert.Equal(t, "[parameters('nodeSubnetId')]", pools[0]["properties"].ObjectValue()["vnetSubnetID"].StringValue())
	params := stackOf(t, m).Props["parameters"].ObjectValue()
	assert.Equal(t, subnet, params[NodeSubnetParameter].ObjectValue()["value"].StringValue())

	m, _, err = runPools(t, poolsArgs(mgd, driverOnly))
	require.NoError(t, err)
	assert.False(t, m.ByTypeSuffix(":AgentPool")[0].Props.HasValue("vnetSubnetID"), "no subnet: AKS picks the VNet")
	assert.False(t, templatePools(t, m)[0]["properties"].ObjectValue().HasValue("vnetSubnetID"))
}

func TestProdInferencePoolsDefaultToOneWarmNode(t *testing.T) {
	base := func(mutate func(*Spec)) Spec {
		s := Spec{Name: "infer", VMSize: "Standard_NC24ads_A100_v4", Workload: WorkloadInference, MaxCount: 4}
		if mutate != nil {
			mutate(&s)
		}
		return s
	}
	cases := []struct {
		name string
		prod bool
		spec Spec
		want *int
	}{
		{"prod inference pool without minCount", true, base(nil), intp(DefaultProdInferenceMinCount)},
		{"prod None inference pool without minCount", true, base(func(s *Spec) { s.GPUStack = GPUStackNone }), intp(DefaultProdInferenceMinCount)},
		{"prod inference pool keeps an explicit 0", true, base(func(s *Spec) { s.MinCount = intp(0) }), intp(0)},
		{"prod inference pool keeps an explicit 2", true, base(func(s *Spec) { s.MinCount = intp(2) }), intp(2)},
		{"dev inference pool scales to zero", false, base(nil), intp(0)},
		{"prod training pool scales to zero", true, base(func(s *Spec) { s.Workload = WorkloadTraining }), intp(0)},
		{"prod batch-inference pool scales to zero", true, base(func(s *Spec) { s.Workload = WorkloadBatchInference }), intp(0)},
		{"prod Managed inference pool gets no minCount", true, base(func(s *Spec) { managed(s, 0) }), nil},
		{"prod spot pool is not given a warm node", true, base(func(s *Spec) { s.Priority = PrioritySpot }), intp(0)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := c.spec
			s.DefaultForEnvironment(c.prod)
			if c.want == nil {
				assert.Nil(t, s.MinCount)
				return
			}
			require.NotNil(t, s.MinCount)
			assert.Equal(t, *c.want, *s.MinCount)
			assert.Equal(t, DefaultOSDiskSizeGB, s.OSDiskSizeGB, "the other defaults are applied too")
		})
	}
}

// TestAzureLinuxPoolSendsOSSKU: an AzureLinux DriverOnly pool sends osSKU,
// which replaces the pool when it changes; Ubuntu (the default, explicit or
// not) sends none on either route, so existing pools see no change.
func TestAzureLinuxPoolSendsOSSKU(t *testing.T) {
	m, _, err := runPools(t, poolsArgs(specOf(func(s *Spec) { s.Name = "gpuazl"; s.OSSKU = OSSKUAzureLinux })))
	require.NoError(t, err)
	pools := m.ByTypeSuffix(":AgentPool")
	require.Len(t, pools, 1)
	assert.Equal(t, "AzureLinux", pools[0].Props["osSKU"].StringValue())
	assert.Contains(t, pools[0].ReplaceOnChanges, "osSKU", "the OS of a pool is fixed at creation")

	assert.Nil(t, AgentPoolArgs(specOf(func(s *Spec) { s.OSSKU = OSSKUUbuntu }), pulumi.String("rg"), pulumi.String("aks"), nil).OsSKU)
	assert.NotContains(t, TemplateProperties(specOf(func(s *Spec) { managed(s, 1) }), nil), "osSKU")
	assert.Equal(t, "AzureLinux", TemplateProperties(specOf(func(s *Spec) { managed(s, 1); s.OSSKU = OSSKUAzureLinux }), nil)["osSKU"],
		"a Managed Azure Linux pool sends osSKU in its 2026-02-02-preview template")
	assert.Equal(t, OSSKUUbuntu, specOf(nil).OS(), "Ubuntu by default")
}

// TestOSSKUsAreInBothPublishedSpecs: every OS SKU aksml accepts is in the
// OSSKU enum of both API versions pools are sent with.
func TestOSSKUsAreInBothPublishedSpecs(t *testing.T) {
	dir, err := thirdparty.SpecsDir("")
	require.NoError(t, err)
	for _, version := range []string{"stable/2024-10-01", "preview/" + AgentPoolAPIVersion} {
		raw, err := os.ReadFile(filepath.Join(dir, "specification/containerservice/resource-manager/Microsoft.ContainerService/aks", version, "managedClusters.json"))
		require.NoError(t, err)
		var doc struct {
			Definitions map[string]struct {
				Enum []string `json:"enum"`
			} `json:"definitions"`
		}
		require.NoError(t, json.Unmarshal(raw, &doc))
		enum := doc.Definitions["OSSKU"].Enum
		require.NotEmpty(t, enum, version)
		for _, sku := range OSSKUs {
			assert.Contains(t, enum, string(sku), version)
		}
		if version == "stable/2024-10-01" {
			assert.NotContains(t, enum, "AzureLinux3", "why AzureLinux3 is not offered: the typed route cannot send it")
		}
	}
}

// TestPoolOutputsOneSpelling: the stack's per-pool summary and the
// component's outputs are one set of keys, the component's a superset.
func TestPoolOutputsOneSpelling(t *testing.T) {
	p := &GPUNodePool{}
	summary, all := p.Summary(), p.Outputs()
	assert.ElementsMatch(t, []string{"resourceId", "vmSize", "gpuStack", "maxGPUs", "idleCostPerHour", "maxCostPerHour"}, keys(summary))
	assert.ElementsMatch(t, append(keys(summary), "name", "spotDiscount"), keys(all))
	assert.Len(t, p.Summary(), 6, "Outputs must not add its keys to the stack's summary")
}

func keys(m pulumi.Map) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
