package cluster

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/field"

	"github.com/aksml/aksml/components/internal/mocktest"

	"github.com/aksml/aksml/components/field/fieldtest"
)

const testLAW = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-logs/providers/Microsoft.OperationalInsights/workspaces/law-shared"

// stackByName returns the registered deployment stack with that Pulumi name.
func stackByName(t *testing.T, m *mocktest.Mocks, name string) mocktest.Resource {
	t.Helper()
	for _, r := range m.ByTypeSuffix(":DeploymentStackAtResourceGroup") {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no deployment stack %s", name)
	return mocktest.Resource{}
}

// templateJSON renders a stack's template input as JSON for assertions.
func templateJSON(t *testing.T, r mocktest.Resource) string {
	t.Helper()
	b, err := json.Marshal(r.Props["template"].Mappable())
	require.NoError(t, err)
	return string(b)
}

func TestContainerInsightsAndAuditByDefault(t *testing.T) {
	m, _, err := runCluster(t, &ClusterArgs{Spec: devSpec()})
	require.NoError(t, err)

	ws := templateJSON(t, stackByName(t, m, "aks-logs"))
	assert.Contains(t, ws, `"type":"Microsoft.OperationalInsights/workspaces"`)
	assert.Contains(t, ws, `"apiVersion":"2022-10-01"`)
	assert.Contains(t, ws, `"sku":{"name":"PerGB2018"}`)
	params := stackByName(t, m, "aks-logs").Props["parameters"].ObjectValue()
	assert.Equal(t, "law-aks-ml-dev", params["workspaceName"].ObjectValue()["value"].StringValue())
	assert.Equal(t, 30.0, params["retentionInDays"].ObjectValue()["value"].NumberValue())

	oms := m.ByTypeSuffix(":ManagedCluster")[0].Props["addonProfiles"].ObjectValue()["omsagent"].ObjectValue()
	assert.True(t, oms["enabled"].BoolValue())
	cfg := oms["config"].ObjectValue()
	assert.Equal(t, "true", cfg["useAADAuth"].StringValue(), "managed-identity auth, as Microsoft's template")
	assert.Equal(t, "deployed:workspaceId", cfg["logAnalyticsWorkspaceResourceID"].StringValue(), "the created workspace")

	ins := templateJSON(t, stackByName(t, m, "aks-insights"))
	for _, want := range []string{
		`"type":"Microsoft.Insights/dataCollectionRules"`,
		`take(format('MSCI-{0}-{1}', parameters('location'), parameters('clusterName')), 64)`,
		`"extensionName":"ContainerInsights"`,
		`"streams":["Microsoft-ContainerInsights-Group-Default"]`,
		`"logAnalytics":[{"name":"ciworkspace","workspaceResourceId":"[parameters('workspaceId')]"}]`,
		`"type":"Microsoft.ContainerService/managedClusters/providers/dataCollectionRuleAssociations"`,
		`microsoft.insights/ContainerInsightsExtension`,
		`"type":"Microsoft.ContainerService/managedClusters/providers/diagnosticSettings"`,
		`"apiVersion":"2021-05-01-preview"`,
		`{"category":"kube-audit-admin","enabled":true},{"category":"guard","enabled":true}`,
		`"logAnalyticsDestinationType":"Dedicated"`,
		`"location":"[parameters('workspaceLocation')]"`,
	} {
		assert.Contains(t, ins, want)
	}
	insParams := stackByName(t, m, "aks-insights").Props["parameters"].ObjectValue()
	assert.Equal(t, "eastus", insParams["workspaceLocation"].ObjectValue()["value"].StringValue(), "a created workspace is in the cluster's region")
}

// TestContainerInsightsRuleInTheWorkspaceRegion: Microsoft's onboarding
// template puts the Container Insights rule in the workspace's region
// (workspaceRegion); an existing workspace elsewhere takes its region.
func TestContainerInsightsRuleInTheWorkspaceRegion(t *testing.T) {
	s := devSpec()
	s.Logs.LogAnalyticsWorkspaceID = testLAW
	s.Logs.LogAnalyticsWorkspaceLocation = "westeurope"
	m, _, err := runCluster(t, &ClusterArgs{Spec: s})
	require.NoError(t, err)
	insParams := stackByName(t, m, "aks-insights").Props["parameters"].ObjectValue()
	assert.Equal(t, "westeurope", insParams["workspaceLocation"].ObjectValue()["value"].StringValue())
	assert.Equal(t, "eastus", insParams["location"].ObjectValue()["value"].StringValue(), "the rule's name keeps the cluster's region")
}

func TestExistingWorkspaceIsOnlyReferenced(t *testing.T) {
	s := devSpec()
	s.Logs.LogAnalyticsWorkspaceID = testLAW
	m, _, err := runCluster(t, &ClusterArgs{Spec: s})
	require.NoError(t, err)
	assert.NotContains(t, templateJSON(t, stackByName(t, m, "aks-logs")), "OperationalInsights", "a brought workspace is not created")
	cfg := m.ByTypeSuffix(":ManagedCluster")[0].Props["addonProfiles"].ObjectValue()["omsagent"].ObjectValue()["config"].ObjectValue()
	assert.Equal(t, testLAW, cfg["logAnalyticsWorkspaceResourceID"].StringValue())
}

func TestLogsOff(t *testing.T) {
	s := devSpec()
	off := false
	s.Logs.ContainerInsights, s.Logs.AuditLogs = &off, &off
	m, _, err := runCluster(t, &ClusterArgs{Spec: s})
	require.NoError(t, err)
	assert.False(t, m.ByTypeSuffix(":ManagedCluster")[0].Props["addonProfiles"].ObjectValue().HasValue("omsagent"))
	assert.Contains(t, templateJSON(t, stackByName(t, m, "aks-logs")), `"resources":[]`, "the stacks stay registered, empty, so Azure deletes what they created")
	assert.Contains(t, templateJSON(t, stackByName(t, m, "aks-insights")), `"resources":[]`)

	s.Logs.AuditLogs = nil
	m, _, err = runCluster(t, &ClusterArgs{Spec: s})
	require.NoError(t, err)
	ins := templateJSON(t, stackByName(t, m, "aks-insights"))
	assert.Contains(t, ins, "diagnosticSettings")
	assert.NotContains(t, ins, "dataCollectionRules", "audit only")
}

func TestLogsValidate(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(*LogsSpec)
		wantErr []fieldtest.Want // the problems, exactly; nil means valid
	}{
		{name: "defaults"},
		{name: "existing workspace", mutate: func(l *LogsSpec) { l.LogAnalyticsWorkspaceID = testLAW; l.LogAnalyticsWorkspaceName = "" }},
		{name: "bad workspace id", mutate: func(l *LogsSpec) { l.LogAnalyticsWorkspaceID = "law-shared"; l.LogAnalyticsWorkspaceName = "" },
			wantErr: []fieldtest.Want{fieldtest.Invalid("x.logAnalyticsWorkspaceId")}},
		{name: "name and id", mutate: func(l *LogsSpec) { l.LogAnalyticsWorkspaceID = testLAW },
			wantErr: []fieldtest.Want{fieldtest.Forbidden("x.logAnalyticsWorkspaceName")}},
		{name: "existing workspace in another region", mutate: func(l *LogsSpec) {
			l.LogAnalyticsWorkspaceID, l.LogAnalyticsWorkspaceName, l.LogAnalyticsWorkspaceLocation = testLAW, "", "westeurope"
		}},
		{name: "workspace region without workspace", mutate: func(l *LogsSpec) { l.LogAnalyticsWorkspaceLocation = "westeurope" },
			wantErr: []fieldtest.Want{fieldtest.Forbidden("x.logAnalyticsWorkspaceLocation")}},
		{name: "bad name", mutate: func(l *LogsSpec) { l.LogAnalyticsWorkspaceName = "-law" }, wantErr: []fieldtest.Want{fieldtest.Invalid("x.logAnalyticsWorkspaceName")}},
		{name: "retention", mutate: func(l *LogsSpec) { l.RetentionInDays = 7 }, wantErr: []fieldtest.Want{fieldtest.Invalid("x.retentionInDays")}},
		{name: "categories", mutate: func(l *LogsSpec) { l.AuditCategories = []string{"kube-audit", "audit", "kube-audit"} },
			wantErr: []fieldtest.Want{fieldtest.NotSupported("x.auditCategories[1]"), fieldtest.Duplicate("x.auditCategories[2]")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var l LogsSpec
			l.Default("aks-ml")
			if tc.mutate != nil {
				tc.mutate(&l)
			}
			fieldtest.ListEqual(t, l.Validate(field.NewPath("x")), tc.wantErr...)
		})
	}
}

func TestInvalidLogsRegisterNothing(t *testing.T) {
	s := devSpec()
	s.Logs.LogAnalyticsWorkspaceID = "/subscriptions/not-a-guid/resourceGroups/rg/providers/Microsoft.OperationalInsights/workspaces/w"
	m, _, err := runCluster(t, &ClusterArgs{Spec: s, ConfigPath: "aksml:cluster"})
	fieldtest.Equal(t, err, fieldtest.Invalid("aksml:cluster.logs.logAnalyticsWorkspaceId"))
	assert.Empty(t, m.All())
}

func TestRegistryCreatedWithAcrPull(t *testing.T) {
	s := devSpec()
	s.Registry = &RegistrySpec{Name: "acrAksmlDev"}
	m, _, err := runCluster(t, &ClusterArgs{Spec: s})
	require.NoError(t, err)
	reg := stackByName(t, m, "aks-registry")
	tpl := templateJSON(t, reg)
	assert.Contains(t, tpl, `"type":"Microsoft.ContainerRegistry/registries"`)
	assert.Contains(t, tpl, `"apiVersion":"2023-07-01"`)
	assert.Contains(t, tpl, `"adminUserEnabled":false`)
	params := reg.Props["parameters"].ObjectValue()
	assert.Equal(t, "acrAksmlDev", params["registryName"].ObjectValue()["value"].StringValue())
	assert.Equal(t, "Standard", params["sku"].ObjectValue()["value"].StringValue())

	ras := m.ByTypeSuffix(":RoleAssignment")
	require.Len(t, ras, 1)
	in := ras[0].Props
	assert.Equal(t, "aks-acrpull", ras[0].Name)
	assert.Equal(t, "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.ContainerRegistry/registries/acrAksmlDev", in["scope"].StringValue())
	assert.Equal(t, "/subscriptions/sub/providers/Microsoft.Authorization/roleDefinitions/7f951dda-4ed3-4680-a7ca-43fe172d538d", in["roleDefinitionId"].StringValue(), "AcrPull")
	assert.Equal(t, "acraksmldev.azurecr.io", s.Registry.LoginServer())
}

func TestRegistryBrought(t *testing.T) {
	id := "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-acr/providers/Microsoft.ContainerRegistry/registries/sharedacr01"
	s := devSpec()
	s.Registry = &RegistrySpec{ID: id}
	m, _, err := runCluster(t, &ClusterArgs{Spec: s})
	require.NoError(t, err)
	for _, r := range m.ByTypeSuffix(":DeploymentStackAtResourceGroup") {
		assert.NotEqual(t, "aks-registry", r.Name, "an existing registry is not created")
	}
	ras := m.ByTypeSuffix(":RoleAssignment")
	require.Len(t, ras, 1)
	assert.Equal(t, id, ras[0].Props["scope"].StringValue())
	assert.Equal(t, "sharedacr01.azurecr.io", s.Registry.LoginServer())
}

func TestRegistryValidate(t *testing.T) {
	tests := []struct {
		name       string
		r          RegistrySpec
		wantErr    []fieldtest.Want // the problems, exactly; nil means valid
		wantDetail string           // one phrase the message must hold, where the wording is the point
	}{
		{name: "created", r: RegistrySpec{Name: "acrml01"}},
		{name: "brought", r: RegistrySpec{ID: "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.ContainerRegistry/registries/acrml01"}},
		{name: "neither", r: RegistrySpec{}, wantErr: []fieldtest.Want{fieldtest.Required("x")}, wantDetail: "name (a registry to create) or id"},
		{name: "hyphen", r: RegistrySpec{Name: "acr-ml"}, wantErr: []fieldtest.Want{fieldtest.Invalid("x.name")}, wantDetail: "unique across Azure"},
		{name: "too short", r: RegistrySpec{Name: "acr"}, wantErr: []fieldtest.Want{fieldtest.Invalid("x.name")}},
		{name: "both", r: RegistrySpec{Name: "acrml01", ID: "/x"}, wantErr: []fieldtest.Want{fieldtest.Forbidden("x.id"), fieldtest.Forbidden("x.sku")}},
		{name: "bad id", r: RegistrySpec{ID: "/subscriptions/nope/registries/acr"}, wantErr: []fieldtest.Want{fieldtest.Invalid("x.id")}},
		{name: "bad sku", r: RegistrySpec{Name: "acrml01", SKU: "Gold"}, wantErr: []fieldtest.Want{fieldtest.NotSupported("x.sku")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.r
			r.Default()
			if tc.name == "both" {
				r.SKU = "Basic"
			}
			errs := r.Validate(field.NewPath("x"))
			if fieldtest.ListEqual(t, errs, tc.wantErr...) && tc.wantDetail != "" {
				assert.Contains(t, errs.ToAggregate().Error(), tc.wantDetail)
			}
		})
	}
}
