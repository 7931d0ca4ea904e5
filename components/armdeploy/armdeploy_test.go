package armdeploy

import (
	"strings"
	"sync"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type registered struct {
	typ    string
	name   string
	inputs resource.PropertyMap
}

type mocks struct {
	mu        sync.Mutex
	resources []registered
	outputs   resource.PropertyMap
}

func (m *mocks) NewResource(args pulumi.MockResourceArgs) (string, resource.PropertyMap, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.resources = append(m.resources, registered{args.TypeToken, args.Name, args.Inputs})
	state := args.Inputs.Copy()
	for k, v := range m.outputs {
		state[k] = v
	}
	return args.Name + "-id", state, nil
}

func (m *mocks) Call(args pulumi.MockCallArgs) (resource.PropertyMap, error) {
	return args.Args, nil
}

func poolTemplate() map[string]any {
	return Template(
		[]map[string]any{{
			"type":       "Microsoft.ContainerService/managedClusters/agentPools",
			"apiVersion": "2026-01-02-preview",
			"name":       "[format('{0}/{1}', parameters('clusterName'), parameters('poolName'))]",
			"properties": map[string]any{"vmSize": "Standard_NC24ads_A100_v4"},
		}},
		map[string]any{"poolId": Output("string", "[resourceId('Microsoft.ContainerService/managedClusters/agentPools', parameters('clusterName'), parameters('poolName'))]")},
	)
}

func TestTemplateSkeleton(t *testing.T) {
	tpl := Template(nil, nil)
	assert.Equal(t, SchemaURL, tpl["$schema"])
	assert.Equal(t, "1.0.0.0", tpl["contentVersion"])
	assert.Equal(t, map[string]any{}, tpl["parameters"])
	assert.Equal(t, []map[string]any{}, tpl["resources"])
	assert.Equal(t, map[string]any{}, tpl["outputs"])
}

func TestStackArgsValidation(t *testing.T) {
	valid := func() *Args {
		return &Args{ResourceGroupName: pulumi.String("rg"), Template: poolTemplate()}
	}
	tests := []struct {
		name    string
		stack   string
		mutate  func(*Args) *Args
		wantErr string
	}{
		{name: "valid", stack: "gpu-pool"},
		{name: "nil args", stack: "s", mutate: func(*Args) *Args { return nil }, wantErr: "args are required"},
		{name: "no resource group", stack: "s", mutate: func(a *Args) *Args { a.ResourceGroupName = nil; return a }, wantErr: "ResourceGroupName is required"},
		{name: "no template", stack: "s", mutate: func(a *Args) *Args { a.Template = nil; return a }, wantErr: "template is required"},
		{name: "template without resources", stack: "s", mutate: func(a *Args) *Args { a.Template = map[string]any{"$schema": SchemaURL}; return a }, wantErr: `no "resources" list`},
		{name: "bad stack name", stack: "s", mutate: func(a *Args) *Args { a.StackName = "has space"; return a }, wantErr: `stack name "has space" is invalid`},
		{name: "long stack name", stack: strings.Repeat("a", MaxStackNameLength+1), wantErr: "at most 90 characters"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := valid()
			if tc.mutate != nil {
				args = tc.mutate(args)
			}
			_, err := StackArgs(tc.stack, args)
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}

func TestDeclareParametersKeepsExplicitAndInfersTypes(t *testing.T) {
	tpl := poolTemplate()
	tpl["parameters"] = map[string]any{"secret": Param("securestring")}
	got, err := declareParameters(tpl, map[string]any{
		"secret":      "x",
		"clusterName": pulumi.String("aks").ToStringOutput(),
		"poolName":    "gpua100",
		"count":       3,
		"enabled":     true,
		"zones":       []string{"1"},
		"profile":     map[string]any{"a": 1},
	})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"secret":      Param("securestring"),
		"clusterName": Param("string"),
		"poolName":    Param("string"),
		"count":       Param("int"),
		"enabled":     Param("bool"),
		"zones":       Param("array"),
		"profile":     Param("object"),
	}, got["parameters"])
	assert.Equal(t, map[string]any{"secret": Param("securestring")}, tpl["parameters"], "the caller's template is not changed")
}

func TestNewTemplateStackRegistersDeleteOnUnmanage(t *testing.T) {
	m := &mocks{outputs: resource.PropertyMap{
		"outputs": resource.NewObjectProperty(resource.PropertyMap{
			"poolId": resource.NewObjectProperty(resource.PropertyMap{
				"type":  resource.NewStringProperty("String"),
				"value": resource.NewStringProperty("/subscriptions/s/pools/gpua100"),
			}),
		}),
	}}
	var poolID string
	err := pulumi.RunErr(func(ctx *pulumi.Context) error {
		stack, err := NewTemplateStack(ctx, "gpu-pool", &Args{
			ResourceGroupName: pulumi.String("rg"),
			Template:          poolTemplate(),
			Parameters:        map[string]any{"clusterName": pulumi.String("aks"), "poolName": "gpua100"},
			Description:       "GPU pool",
			Tags:              map[string]string{"team": "ml"},
		})
		if err != nil {
			return err
		}
		OutputString(stack, "poolId").ApplyT(func(s string) string { poolID = s; return s })
		return nil
	}, pulumi.WithMocks("aksml", "test", m))
	require.NoError(t, err)
	require.Len(t, m.resources, 1)
	r := m.resources[0]
	assert.Equal(t, "azure-native:resources/v20240301:DeploymentStackAtResourceGroup", r.typ)
	assert.Equal(t, "gpu-pool", r.inputs["deploymentStackName"].StringValue())
	assert.Equal(t, "rg", r.inputs["resourceGroupName"].StringValue())
	aou := r.inputs["actionOnUnmanage"].ObjectValue()
	assert.Equal(t, "delete", aou["resources"].StringValue())
	assert.Equal(t, "delete", aou["resourceGroups"].StringValue())
	assert.Equal(t, "delete", aou["managementGroups"].StringValue())
	assert.Equal(t, "none", r.inputs["denySettings"].ObjectValue()["mode"].StringValue())
	assert.Equal(t, "GPU pool", r.inputs["description"].StringValue())
	assert.Equal(t, "ml", r.inputs["tags"].ObjectValue()["team"].StringValue())

	tpl := r.inputs["template"].ObjectValue()
	assert.Equal(t, "1.0.0.0", tpl["contentVersion"].StringValue())
	res := tpl["resources"].ArrayValue()[0].ObjectValue()
	assert.Equal(t, "2026-01-02-preview", res["apiVersion"].StringValue())
	params := tpl["parameters"].ObjectValue()
	assert.Equal(t, "string", params["clusterName"].ObjectValue()["type"].StringValue())

	values := r.inputs["parameters"].ObjectValue()
	assert.Equal(t, "aks", values["clusterName"].ObjectValue()["value"].StringValue())
	assert.Equal(t, "gpua100", values["poolName"].ObjectValue()["value"].StringValue())
	assert.Equal(t, "/subscriptions/s/pools/gpua100", poolID)
}

func TestNewTemplateStackInvalidRegistersNothing(t *testing.T) {
	m := &mocks{}
	err := pulumi.RunErr(func(ctx *pulumi.Context) error {
		_, err := NewTemplateStack(ctx, "bad name", &Args{ResourceGroupName: pulumi.String("rg"), Template: poolTemplate()})
		return err
	}, pulumi.WithMocks("aksml", "test", m))
	require.Error(t, err)
	assert.Empty(t, m.resources)
}

func TestOutputStringFailsOnMissingOutput(t *testing.T) {
	m := &mocks{}
	err := pulumi.RunErr(func(ctx *pulumi.Context) error {
		stack, err := NewTemplateStack(ctx, "s", &Args{ResourceGroupName: pulumi.String("rg"), Template: poolTemplate()})
		if err != nil {
			return err
		}
		ctx.Export("id", OutputString(stack, "poolId"))
		return nil
	}, pulumi.WithMocks("aksml", "test", m))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `no string output "poolId"`)
}
