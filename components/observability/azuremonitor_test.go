package observability

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/armdeploy"

	"github.com/aksml/aksml/components/internal/mocktest"
	"github.com/aksml/aksml/internal/thirdparty"
)

const testClusterID = "/subscriptions/00000000-0000-0000-0000-0000000000aa/resourceGroups/rg-aksml/providers/Microsoft.ContainerService/managedClusters/aks-ml"

func monitorArgs(spec Spec) *AzureMonitorArgs {
	return &AzureMonitorArgs{
		ResourceGroupName:    pulumi.String("rg-aksml"),
		ClusterName:          pulumi.String("aks-ml"),
		ClusterResourceID:    pulumi.String(testClusterID),
		ClusterLocation:      "westeurope",
		DefaultWorkspaceName: "amw-aks-ml",
		Spec:                 spec,
		Tags:                 map[string]string{"owner": "ml"},
	}
}

// templateTypes lists the ARM types of a template's resources, in order.
func templateTypes(t *testing.T, stack mocktest.Resource) []any {
	var out []any
	for _, r := range mocktest.Dig(t, stack.Inputs, "template", "resources").([]any) {
		out = append(out, mocktest.Dig(t, r, "type"))
	}
	return out
}

func TestAzureMonitorCreatesWorkspaceAndWiresPrometheus(t *testing.T) {
	var workspaceID, dcrID, grafana, query string
	m, err := run(t, func(ctx *pulumi.Context) error {
		mon, err := NewAzureMonitor(ctx, "mon", monitorArgs(Spec{}))
		if err != nil {
			return err
		}
		query = await(t, ctx, mon.PrometheusQueryEndpoint).(string)
		workspaceID = await(t, ctx, mon.WorkspaceID).(string)
		dcrID = await(t, ctx, mon.DataCollectionRuleID).(string)
		grafana = await(t, ctx, mon.GrafanaEndpoint).(string)
		return nil
	})
	require.NoError(t, err)
	res := m.Names()
	assert.Equal(t, AzureMonitorType, res["mon"].Type)
	stack := res["mon-stack"]
	assert.Equal(t, "azure-native:resources/v20240301:DeploymentStackAtResourceGroup", stack.Type)
	assert.Equal(t, "rg-aksml", stack.Inputs["resourceGroupName"])
	assert.Equal(t, "delete", mocktest.Dig(t, stack.Inputs, "actionOnUnmanage", "resources"))
	assert.Equal(t, []any{
		"Microsoft.Monitor/accounts",
		"Microsoft.Insights/dataCollectionEndpoints",
		"Microsoft.Insights/dataCollectionRules",
		"Microsoft.ContainerService/managedClusters/providers/dataCollectionRuleAssociations",
	}, templateTypes(t, stack))
	for k, v := range map[string]string{"clusterName": "aks-ml", "clusterLocation": "westeurope", "workspaceLocation": "westeurope", "workspaceName": "amw-aks-ml"} {
		assert.Equal(t, v, mocktest.Dig(t, stack.Inputs, "parameters", k, "value"), k)
	}

	ws := mocktest.Dig(t, stack.Inputs, "template", "resources", 0)
	assert.Equal(t, "2023-04-03", mocktest.Dig(t, ws, "apiVersion"))
	assert.Equal(t, "[parameters('workspaceName')]", mocktest.Dig(t, ws, "name"))
	assert.Equal(t, "ml", mocktest.Dig(t, ws, "tags", "owner"))

	dce := mocktest.Dig(t, stack.Inputs, "template", "resources", 1)
	assert.Equal(t, "2024-03-11", mocktest.Dig(t, dce, "apiVersion"))
	assert.Equal(t, "[take(format('MSProm-{0}-{1}', parameters('workspaceLocation'), parameters('clusterName')), 44)]", mocktest.Dig(t, dce, "name"),
		"MSProm-<workspace region>-<cluster>, as Microsoft's onboarding template names it")
	assert.Equal(t, "[parameters('workspaceLocation')]", mocktest.Dig(t, dce, "location"))
	assert.Equal(t, "Linux", mocktest.Dig(t, dce, "kind"))

	dcr := mocktest.Dig(t, stack.Inputs, "template", "resources", 2)
	assert.Equal(t, "[parameters('workspaceLocation')]", mocktest.Dig(t, dcr, "location"), "the rule lives in the workspace's region")
	assert.Equal(t, []any{"Microsoft-PrometheusMetrics"}, mocktest.Dig(t, dcr, "properties", "dataSources", "prometheusForwarder", 0, "streams"))
	assert.Equal(t, "[resourceId('Microsoft.Monitor/accounts', parameters('workspaceName'))]",
		mocktest.Dig(t, dcr, "properties", "destinations", "monitoringAccounts", 0, "accountResourceId"), "metrics go to the workspace")
	assert.Equal(t, map[string]any{"streams": []any{"Microsoft-PrometheusMetrics"}, "destinations": []any{"MonitoringAccount1"}},
		mocktest.Dig(t, dcr, "properties", "dataFlows", 0))
	assert.Equal(t, mocktest.Dig(t, dcr, "properties", "dataCollectionEndpointId"), mocktest.Dig(t, dcr, "dependsOn", 0))
	assert.Equal(t, "[resourceId('Microsoft.Monitor/accounts', parameters('workspaceName'))]", mocktest.Dig(t, dcr, "dependsOn", 1))

	dcra := mocktest.Dig(t, stack.Inputs, "template", "resources", 3)
	assert.Equal(t, "[format('{0}/microsoft.insights/{1}', parameters('clusterName'), format('MSProm-{0}-{1}', parameters('clusterLocation'), parameters('clusterName')))]",
		mocktest.Dig(t, dcra, "name"), "associated with the cluster, named after its region")
	assert.Equal(t, "[resourceId('Microsoft.Insights/dataCollectionRules', take(format('MSProm-{0}-{1}', parameters('workspaceLocation'), parameters('clusterName')), 44))]",
		mocktest.Dig(t, dcra, "properties", "dataCollectionRuleId"))
	assert.NotContains(t, dcra.(map[string]any), "location", "an association is a proxy resource without location (2024-03-11)")

	assert.Equal(t, "/subscriptions/00000000-0000-0000-0000-0000000000aa/resourceGroups/rg-aksml/providers/Microsoft.Monitor/accounts/amw-aks-ml", workspaceID)
	assert.Equal(t, "deployed:dataCollectionRuleId", dcrID)
	assert.Equal(t, "", grafana)
	// KEDA's serverAddress: the created workspace's query endpoint.
	assert.Equal(t, "[reference(resourceId('Microsoft.Monitor/accounts', parameters('workspaceName')), '2023-04-03').metrics.prometheusQueryEndpoint]",
		mocktest.Dig(t, stack.Inputs, "template", "outputs", "prometheusQueryEndpoint", "value"))
	assert.Equal(t, "deployed:prometheusQueryEndpoint", query)
	assert.NotContains(t, res, "mon-grafana-reader", "no Grafana, no role assignment")
}

func TestAzureMonitorExistingWorkspaceAndGrafana(t *testing.T) {
	spec := Spec{AzureMonitorWorkspaceID: testWorkspaceID, AzureMonitorWorkspaceLocation: "eastus", Grafana: &GrafanaSpec{Enabled: true, Name: "amg-ml"}}
	var workspaceID, endpoint string
	m, err := run(t, func(ctx *pulumi.Context) error {
		mon, err := NewAzureMonitor(ctx, "mon", monitorArgs(spec))
		if err != nil {
			return err
		}
		workspaceID = await(t, ctx, mon.WorkspaceID).(string)
		endpoint = await(t, ctx, mon.GrafanaEndpoint).(string)
		return nil
	})
	require.NoError(t, err)
	res := m.Names()
	stack := res["mon-stack"]
	assert.Equal(t, []any{
		"Microsoft.Insights/dataCollectionEndpoints",
		"Microsoft.Insights/dataCollectionRules",
		"Microsoft.ContainerService/managedClusters/providers/dataCollectionRuleAssociations",
		"Microsoft.Dashboard/grafana",
	}, templateTypes(t, stack), "a configured workspace is never created or deleted")
	assert.Equal(t, testWorkspaceID, mocktest.Dig(t, stack.Inputs, "parameters", "workspaceId", "value"))
	assert.Equal(t, "eastus", mocktest.Dig(t, stack.Inputs, "parameters", "workspaceLocation", "value"))
	assert.NotContains(t, mocktest.Dig(t, stack.Inputs, "parameters").(map[string]any), "workspaceName")
	assert.Equal(t, "[parameters('workspaceId')]", mocktest.Dig(t, stack.Inputs, "template", "resources", 1, "properties", "destinations", "monitoringAccounts", 0, "accountResourceId"))
	assert.Equal(t, "[reference(parameters('workspaceId'), '2023-04-03').metrics.prometheusQueryEndpoint]",
		mocktest.Dig(t, stack.Inputs, "template", "outputs", "prometheusQueryEndpoint", "value"), "a configured workspace's endpoint is read by its ID")

	grafana := mocktest.Dig(t, stack.Inputs, "template", "resources", 3)
	assert.Equal(t, "2025-08-01", mocktest.Dig(t, grafana, "apiVersion"))
	assert.Equal(t, "SystemAssigned", mocktest.Dig(t, grafana, "identity", "type"))
	assert.Equal(t, "Standard", mocktest.Dig(t, grafana, "sku", "name"))
	assert.Equal(t, "[parameters('workspaceId')]", mocktest.Dig(t, grafana, "properties", "grafanaIntegrations", "azureMonitorWorkspaceIntegrations", 0, "azureMonitorWorkspaceResourceId"))
	assert.Equal(t, "amg-ml", mocktest.Dig(t, stack.Inputs, "parameters", "grafanaName", "value"))

	reader := res["mon-grafana-reader"]
	assert.Equal(t, "azure-native:authorization:RoleAssignment", reader.Type)
	assert.Equal(t, testWorkspaceID, reader.Inputs["scope"])
	assert.Equal(t, "/subscriptions/00000000-0000-0000-0000-000000000001/providers/Microsoft.Authorization/roleDefinitions/b0d8363b-8ddd-447d-831f-62ca05bff136",
		reader.Inputs["roleDefinitionId"], "Monitoring Data Reader in the workspace's subscription")
	assert.Equal(t, "deployed:grafanaPrincipalId", reader.Inputs["principalId"], "Grafana's system-assigned identity")
	assert.Equal(t, "ServicePrincipal", reader.Inputs["principalType"])
	assert.Equal(t, testWorkspaceID, workspaceID)
	assert.Equal(t, "deployed:grafanaEndpoint", endpoint)
}

func TestAzureMonitorDisabledEmptiesTheTemplate(t *testing.T) {
	off := false
	var query string
	m, err := run(t, func(ctx *pulumi.Context) error {
		mon, err := NewAzureMonitor(ctx, "mon", monitorArgs(Spec{Enabled: &off, Grafana: &GrafanaSpec{Enabled: true, Name: "amg-ml"}}))
		if err == nil {
			query = await(t, ctx, mon.PrometheusQueryEndpoint).(string)
		}
		return err
	})
	require.NoError(t, err)
	assert.Empty(t, query, "no workspace, no endpoint")
	stack := m.Names()["mon-stack"]
	assert.Empty(t, mocktest.Dig(t, stack.Inputs, "template", "resources"), "turning observability off deletes what the stack created")
	assert.NotContains(t, m.Names(), "mon-grafana-reader")
}

func TestAzureMonitorInvalidRegistersNothing(t *testing.T) {
	for name, args := range map[string]*AzureMonitorArgs{
		"nil":        nil,
		"no cluster": {Spec: Spec{}},
		"grafana without name": func() *AzureMonitorArgs {
			a := monitorArgs(Spec{Grafana: &GrafanaSpec{Enabled: true}})
			return a
		}(),
		"no workspace name": func() *AzureMonitorArgs {
			a := monitorArgs(Spec{})
			a.DefaultWorkspaceName = ""
			return a
		}(),
	} {
		t.Run(name, func(t *testing.T) {
			m, err := run(t, func(ctx *pulumi.Context) error {
				_, err := NewAzureMonitor(ctx, "mon", args)
				return err
			})
			require.Error(t, err)
			assert.Empty(t, m.Names())
		})
	}
	_, err := run(t, func(ctx *pulumi.Context) error {
		_, err := NewAzureMonitor(ctx, "mon", &AzureMonitorArgs{})
		return err
	})
	for _, want := range []string{"AzureMonitorArgs.ResourceGroupName", "AzureMonitorArgs.ClusterName", "AzureMonitorArgs.ClusterResourceID", "AzureMonitorArgs.ClusterLocation", "AzureMonitorArgs.DefaultWorkspaceName"} {
		assert.Contains(t, err.Error(), want)
	}
}

// TestTemplatesMatchThePublishedSpecs checks every resource body of the
// Azure Monitor and rule group templates against its definition in the
// published specs (shared/azure-specs, see its SOURCES.md): every property
// declared, none read-only, every enum value valid.
func TestTemplatesMatchThePublishedSpecs(t *testing.T) {
	dir, err := thirdparty.SpecsDir("")
	require.NoError(t, err)
	load := func(rel string) *armdeploy.OpenAPISpec {
		s, err := armdeploy.LoadOpenAPISpec(filepath.Join(dir, "specification", rel))
		require.NoError(t, err)
		return s
	}
	monitor := load("monitor/resource-manager/Microsoft.Monitor/Accounts/stable/2023-04-03/monitoringAccounts_API.json")
	insights := load("monitor/resource-manager/Microsoft.Insights/Insights/stable/2024-03-11/dataCollection.json")
	grafana := load("dashboard/resource-manager/Microsoft.Dashboard/Dashboard/stable/2025-08-01/grafana.json")
	alerts := load("alertsmanagement/resource-manager/Microsoft.AlertsManagement/PrometheusRuleGroups/stable/2023-03-01/PrometheusRuleGroups.json")
	byType := map[string]struct {
		spec       *armdeploy.OpenAPISpec
		definition string
	}{
		WorkspaceResourceType: {monitor, "AzureMonitorWorkspaceResource"},
		DCEResourceType:       {insights, "DataCollectionEndpointResource"},
		DCRResourceType:       {insights, "DataCollectionRuleResource"},
		DCRAResourceType:      {insights, "DataCollectionRuleAssociationProxyOnlyResource"},
		GrafanaResourceType:   {grafana, "ManagedGrafana"},
		RuleGroupResourceType: {alerts, "PrometheusRuleGroupResource"},
	}
	spec := defaultSpec()
	spec.ActionGroupIDs = []string{testActionGroupID}
	var resources []map[string]any
	resources = append(resources, AzureMonitorTemplate(true, true, true, map[string]string{"owner": "ml"})["resources"].([]map[string]any)...)
	resources = append(resources, RuleGroupTemplate(spec, []string{"team-a"}, true)["resources"].([]map[string]any)...)
	seen := map[string]bool{}
	for _, r := range resources {
		typ := r["type"].(string)
		def, ok := byType[typ]
		require.True(t, ok, typ)
		seen[typ] = true
		// Microsoft-PrometheusMetrics is missing from the extensible
		// KnownDataFlowStreams enum of 2024-03-11 but is the stream of
		// Microsoft's own onboarding template (and is listed for
		// prometheusForwarder data sources).
		assert.Empty(t, def.spec.CheckResource(def.definition, r, PrometheusStream), typ)
	}
	assert.Len(t, seen, len(byType), "every resource type was checked")
}

// TestGrafanaAdminsCanSignIn: a Grafana created from a template has no
// Grafana role assignment, so nobody could sign in; each admin group gets
// Grafana Admin on it, and nothing is assigned without Grafana.
func TestGrafanaAdminsCanSignIn(t *testing.T) {
	const groupA, groupB = "0a0a0a0a-1111-4111-8111-000000000001", "0b0b0b0b-2222-4222-8222-000000000002"
	off := false
	for _, tc := range []struct {
		name string
		spec Spec
		want bool
	}{
		{"with Grafana", Spec{Grafana: &GrafanaSpec{Enabled: true, Name: "amg-ml"}}, true},
		{"without Grafana", Spec{}, false},
		{"observability off", Spec{Enabled: &off, Grafana: &GrafanaSpec{Enabled: true, Name: "amg-ml"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := run(t, func(ctx *pulumi.Context) error {
				args := monitorArgs(tc.spec)
				args.GrafanaAdminGroupObjectIDs = []string{groupA, groupB}
				_, err := NewAzureMonitor(ctx, "mon", args)
				return err
			})
			require.NoError(t, err)
			res := m.Names()
			for _, g := range []string{groupA, groupB} {
				admin, ok := res["mon-grafana-admin-"+g]
				require.Equal(t, tc.want, ok, "Grafana Admin for %s", g)
				if !ok {
					continue
				}
				assert.Equal(t, g, admin.Inputs["principalId"])
				assert.Equal(t, "Group", admin.Inputs["principalType"])
				assert.True(t, strings.HasSuffix(admin.Inputs["scope"].(string), "/resourceGroups/rg-aksml/providers/Microsoft.Dashboard/grafana/amg-ml"), admin.Inputs["scope"])
				assert.True(t, strings.HasSuffix(admin.Inputs["roleDefinitionId"].(string), "/providers/Microsoft.Authorization/roleDefinitions/"+GrafanaAdminRoleID))
			}
		})
	}
}
