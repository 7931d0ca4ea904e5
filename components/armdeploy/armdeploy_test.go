package armdeploy

import (
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/field/fieldtest"
	"github.com/aksml/aksml/components/internal/mocktest"
)

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
		name   string
		stack  string
		mutate func(*Args) *Args
		want   []fieldtest.Want // nil: valid
	}{
		{name: "valid", stack: "gpu-pool"},
		{name: "nil args", stack: "s", mutate: func(*Args) *Args { return nil }, want: []fieldtest.Want{fieldtest.Required("Args")}},
		{name: "no resource group", stack: "s", mutate: func(a *Args) *Args { a.ResourceGroupName = nil; return a }, want: []fieldtest.Want{fieldtest.Required("Args.ResourceGroupName")}},
		{name: "no template", stack: "s", mutate: func(a *Args) *Args { a.Template = nil; return a }, want: []fieldtest.Want{fieldtest.Required("Args.Template")}},
		{name: "template without resources", stack: "s", mutate: func(a *Args) *Args { a.Template = map[string]any{"$schema": SchemaURL}; return a }, want: []fieldtest.Want{fieldtest.Required(`Args.Template["resources"]`)}},
		{name: "bad stack name", stack: "s", mutate: func(a *Args) *Args { a.StackName = "has space"; return a }, want: []fieldtest.Want{fieldtest.Invalid("Args.StackName")}},
		{name: "long resource name", stack: strings.Repeat("a", MaxStackNameLength+1), want: []fieldtest.Want{fieldtest.Invalid("Args.StackName")}},
		{name: "every problem at once", stack: "bad name", mutate: func(a *Args) *Args { a.ResourceGroupName, a.Template = nil, nil; return a }, want: []fieldtest.Want{
			fieldtest.Required("Args.ResourceGroupName"), fieldtest.Invalid("Args.StackName"), fieldtest.Required("Args.Template"),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := valid()
			if tc.mutate != nil {
				args = tc.mutate(args)
			}
			_, err := StackArgs(tc.stack, args)
			fieldtest.Equal(t, err, tc.want...)
		})
	}
}

// TestStackArgsMessage checks the wording once: the error names the stack
// and says which characters a stack name may use.
func TestStackArgsMessage(t *testing.T) {
	_, err := StackArgs("gpu pool", &Args{ResourceGroupName: pulumi.String("rg"), Template: poolTemplate()})
	require.Error(t, err)
	assert.EqualError(t, err, `armdeploy gpu pool: invalid configuration: Args.StackName: stack name "gpu pool" is invalid: use letters, digits, '-', '_', '.', '(' and ')', at most 90 characters`)
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
	}, "Args.Template")
	require.Nil(t, err)
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
	m := &mocktest.Mocks{StackOutput: func(string) string { return "/subscriptions/s/pools/gpua100" }}
	var poolID string
	err := m.Run(func(ctx *pulumi.Context) error {
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
	})
	require.NoError(t, err)
	require.Equal(t, 1, m.Count())
	r := m.All()[0]
	assert.Equal(t, "azure-native:resources/v20240301:DeploymentStackAtResourceGroup", r.Type)
	assert.Equal(t, "gpu-pool", r.Props["deploymentStackName"].StringValue())
	assert.Equal(t, "rg", r.Props["resourceGroupName"].StringValue())
	aou := r.Props["actionOnUnmanage"].ObjectValue()
	assert.Equal(t, "delete", aou["resources"].StringValue())
	assert.Equal(t, "delete", aou["resourceGroups"].StringValue())
	assert.Equal(t, "delete", aou["managementGroups"].StringValue())
	assert.Equal(t, "none", r.Props["denySettings"].ObjectValue()["mode"].StringValue())
	assert.Equal(t, "GPU pool", r.Props["description"].StringValue())
	assert.Equal(t, "ml", r.Props["tags"].ObjectValue()["team"].StringValue())

	tpl := r.Props["template"].ObjectValue()
	assert.Equal(t, "1.0.0.0", tpl["contentVersion"].StringValue())
	res := tpl["resources"].ArrayValue()[0].ObjectValue()
	assert.Equal(t, "2026-01-02-preview", res["apiVersion"].StringValue())
	params := tpl["parameters"].ObjectValue()
	assert.Equal(t, "string", params["clusterName"].ObjectValue()["type"].StringValue())

	values := r.Props["parameters"].ObjectValue()
	assert.Equal(t, "aks", values["clusterName"].ObjectValue()["value"].StringValue())
	assert.Equal(t, "gpua100", values["poolName"].ObjectValue()["value"].StringValue())
	assert.Equal(t, "/subscriptions/s/pools/gpua100", poolID)
}

func TestNewTemplateStackInvalidRegistersNothing(t *testing.T) {
	m, err := mocktest.Run(t, func(ctx *pulumi.Context) error {
		_, err := NewTemplateStack(ctx, "bad name", &Args{ResourceGroupName: pulumi.String("rg"), Template: poolTemplate()})
		return err
	})
	require.Error(t, err)
	assert.Empty(t, m.All())
}

func TestOutputStringFailsOnMissingOutput(t *testing.T) {
	_, err := mocktest.Run(t, func(ctx *pulumi.Context) error {
		stack, err := NewTemplateStack(ctx, "s", &Args{ResourceGroupName: pulumi.String("rg"), Template: poolTemplate()})
		if err != nil {
			return err
		}
		ctx.Export("id", OutputString(stack, "poolId"))
		return nil
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `no string output "poolId"`)
}
