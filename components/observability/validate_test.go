package observability

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"

	"github.com/aksml/aksml/components/field/fieldtest"
)

const (
	testWorkspaceID   = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-monitor/providers/Microsoft.Monitor/accounts/amw-aksml"
	testActionGroupID = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-monitor/providers/microsoft.insights/actionGroups/ml-oncall"
)

func TestSpecDefault(t *testing.T) {
	var s Spec
	s.Default()
	assert.True(t, s.IsEnabled())
	assert.Equal(t, "30m", s.RPO)
	assert.Equal(t, 20, s.GPUIdleThresholdPercent)
	assert.Equal(t, 90, s.GPUMemoryThresholdPercent)
	assert.Equal(t, 3, s.PodReplacementThreshold)
	assert.Equal(t, "30s", s.ScrapeInterval)
	assert.Equal(t, "10s", s.ScrapeTimeout)
	assert.Equal(t, MonitorGroupAzure, s.PodMonitorGroup)
	assert.True(t, s.CreatesManagedDCGMScrapeConfig())
	assert.False(t, s.PrometheusRuleGroups)
	assert.False(t, s.PrometheusRule)
	require.Empty(t, s.Validate(field.NewPath("aksml:observability")))

	off := false
	s = Spec{Enabled: &off}
	s.Default()
	assert.False(t, s.IsEnabled())
}

func TestSpecValidate(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(*Spec)
		wantErr []string
	}{
		{name: "defaults"},
		{name: "rule groups with workspace and action group", mutate: func(s *Spec) {
			s.PrometheusRuleGroups = true
			s.AzureMonitorWorkspaceID = testWorkspaceID
			s.ActionGroupIDs = []string{testActionGroupID}
		}},
		{name: "prometheus operator", mutate: func(s *Spec) {
			s.PrometheusRule = true
			s.PodMonitorGroup = MonitorGroupPrometheusOperator
			s.Labels = map[string]string{"release": "kube-prometheus-stack"}
		}},
		{name: "rpo not a duration", mutate: func(s *Spec) { s.RPO = "half an hour" }, wantErr: []string{`aksml:observability.rpo: "half an hour" is not a duration`}},
		{name: "rpo too short", mutate: func(s *Spec) { s.RPO = "1m" }, wantErr: []string{"aksml:observability.rpo: 1m is out of range"}},
		{name: "rpo too long", mutate: func(s *Spec) { s.RPO = "200h" }, wantErr: []string{"aksml:observability.rpo: 200h is out of range"}},
		{name: "rpo fraction of second", mutate: func(s *Spec) { s.RPO = "10m0.5s" }, wantErr: []string{"aksml:observability.rpo: 10m0.5s has a fraction of a second"}},
		{name: "idle threshold", mutate: func(s *Spec) { s.GPUIdleThresholdPercent = 100 }, wantErr: []string{"aksml:observability.gpuIdleThresholdPercent: 100 is out of range"}},
		{name: "replacement threshold", mutate: func(s *Spec) { s.PodReplacementThreshold = 101 }, wantErr: []string{"aksml:observability.podReplacementThreshold: 101 is out of range"}},
		{name: "memory threshold", mutate: func(s *Spec) { s.GPUMemoryThresholdPercent = 30 }, wantErr: []string{"aksml:observability.gpuMemoryThresholdPercent: 30 is out of range"}},
		{name: "scrape interval syntax", mutate: func(s *Spec) { s.ScrapeInterval = "30" }, wantErr: []string{`aksml:observability.scrapeInterval: "30" is not a scrape duration`}},
		{name: "scrape timeout over interval", mutate: func(s *Spec) { s.ScrapeTimeout = "1m" }, wantErr: []string{"aksml:observability.scrapeTimeout: 1m is longer than scrapeInterval 30s"}},
		{name: "additional metrics", mutate: func(s *Spec) {
			s.AdditionalTrainingMetrics = []string{"ml_training_loss", "9bad", MetricSamplesTotal, "ml_training_loss"}
		}, wantErr: []string{
			`aksml:observability.additionalTrainingMetrics[1]: "9bad" is not a Prometheus metric name`,
			"aksml:observability.additionalTrainingMetrics[2]: ml_training_samples_total is always kept",
			"aksml:observability.additionalTrainingMetrics[3]: ml_training_loss is listed twice",
		}},
		{name: "rule groups without workspace ID (aksml creates one)", mutate: func(s *Spec) { s.PrometheusRuleGroups = true }},
		{name: "workspace name and location", mutate: func(s *Spec) { s.AzureMonitorWorkspaceName = "amw-ml"; s.AzureMonitorWorkspaceLocation = "eastus" }},
		{name: "workspace name and ID", mutate: func(s *Spec) { s.AzureMonitorWorkspaceName = "amw-ml"; s.AzureMonitorWorkspaceID = testWorkspaceID },
			wantErr: []string{"aksml:observability.azureMonitorWorkspaceName: names a workspace to create, but azureMonitorWorkspaceId"}},
		{name: "bad workspace name", mutate: func(s *Spec) { s.AzureMonitorWorkspaceName = "a_b" }, wantErr: []string{`aksml:observability.azureMonitorWorkspaceName: "a_b" is not an Azure Monitor workspace name`}},
		{name: "bad workspace location", mutate: func(s *Spec) { s.AzureMonitorWorkspaceLocation = "West Europe" }, wantErr: []string{`aksml:observability.azureMonitorWorkspaceLocation: "West Europe" is not an Azure region name`}},
		{name: "grafana", mutate: func(s *Spec) { s.Grafana = &GrafanaSpec{Enabled: true, Name: "amg-ml"} }},
		{name: "grafana off needs no name", mutate: func(s *Spec) { s.Grafana = &GrafanaSpec{} }},
		{name: "grafana without name", mutate: func(s *Spec) { s.Grafana = &GrafanaSpec{Enabled: true} }, wantErr: []string{"aksml:observability.grafana.name: is required"}},
		{name: "grafana name too long", mutate: func(s *Spec) { s.Grafana = &GrafanaSpec{Enabled: true, Name: "grafana-for-the-ml-platform"} },
			wantErr: []string{`aksml:observability.grafana.name: "grafana-for-the-ml-platform" is not an Azure Managed Grafana name`}},
		{name: "workspace ID with a non-GUID subscription", mutate: func(s *Spec) {
			s.AzureMonitorWorkspaceID = "/subscriptions/my-sub/resourceGroups/rg/providers/Microsoft.Monitor/accounts/amw-ml"
		}, wantErr: []string{"aksml:observability.azureMonitorWorkspaceId: \"/subscriptions/my-sub/resourceGroups/rg/providers/Microsoft.Monitor/accounts/amw-ml\" is not an Azure Monitor workspace resource ID; use /subscriptions/<subscription-guid>"}},
		{name: "workspace id malformed", mutate: func(s *Spec) {
			s.PrometheusRuleGroups = true
			s.AzureMonitorWorkspaceID = "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.OperationalInsights/workspaces/law"
		}, wantErr: []string{"aksml:observability.azureMonitorWorkspaceId: \"/subscriptions/sub/resourceGroups/rg/providers/Microsoft.OperationalInsights/workspaces/law\" is not an Azure Monitor workspace resource ID"}},
		{name: "action groups without rule groups", mutate: func(s *Spec) { s.ActionGroupIDs = []string{testActionGroupID} }, wantErr: []string{"aksml:observability.actionGroupIds: action groups are only notified by Azure Monitor rule groups"}},
		{name: "action group id malformed", mutate: func(s *Spec) {
			s.PrometheusRuleGroups = true
			s.AzureMonitorWorkspaceID = testWorkspaceID
			s.ActionGroupIDs = []string{"ml-oncall"}
		}, wantErr: []string{`aksml:observability.actionGroupIds[0]: "ml-oncall" is not an action group resource ID`}},
		{name: "pod monitor group", mutate: func(s *Spec) { s.PodMonitorGroup = "example.com" }, wantErr: []string{`aksml:observability.podMonitorGroup: "example.com" is not supported`}},
		{name: "labels", mutate: func(s *Spec) {
			s.Labels = map[string]string{"bad key!": "x", "ok": "bad value!", partOfLabel: "me"}
		}, wantErr: []string{
			`aksml:observability.labels["bad key!"]: "bad key!" is not a valid label key`,
			`aksml:observability.labels["ok"]: "bad value!" is not a valid label value`,
			`aksml:observability.labels["app.kubernetes.io/part-of"]: aksml sets this label`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s Spec
			s.Default()
			if tc.mutate != nil {
				tc.mutate(&s)
			}
			errs := s.Validate(field.NewPath("aksml:observability"))
			if len(tc.wantErr) == 0 {
				require.Empty(t, errs)
				return
			}
			require.Len(t, errs, len(tc.wantErr), "errors: %v", errs)
			msg := errs.ToAggregate().Error()
			for _, want := range tc.wantErr {
				assert.Contains(t, msg, want)
			}
		})
	}
}

func TestValidateExistingCluster(t *testing.T) {
	s := Spec{PrometheusRuleGroups: true}
	errs := s.ValidateExistingCluster(field.NewPath("aksml:observability"))
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), "aksml:observability.prometheusRuleGroups: Azure Monitor rule groups need an AKS cluster")
	assert.Empty(t, Spec{PrometheusRule: true}.ValidateExistingCluster(field.NewPath("aksml:observability")))
	g := Spec{Grafana: &GrafanaSpec{Enabled: true, Name: "amg"}}.ValidateExistingCluster(field.NewPath("aksml:observability"))
	require.Len(t, g, 1)
	assert.Contains(t, g[0].Error(), "aksml:observability.grafana.enabled")
}

func TestMonitorsArgsValidate(t *testing.T) {
	tests := []struct {
		name string
		args MonitorsArgs
		want []fieldtest.Want // nil: valid
	}{
		{name: "defaults"},
		{name: "all stacks", args: MonitorsArgs{GPUStacks: gpupool.GPUStacks, TeamNamespaces: []string{"team-a", "team-b"}}},
		{name: "bad namespace", args: MonitorsArgs{Namespace: "Monitoring"}, want: []fieldtest.Want{fieldtest.Invalid("MonitorsArgs.Namespace")}},
		{name: "bad exporter", args: MonitorsArgs{DCGMExporter: DCGMExporter{Namespace: "gpu_operator", PortName: "metrics-port-too-long"}}, want: []fieldtest.Want{
			fieldtest.Invalid("MonitorsArgs.DCGMExporter.Namespace"),
			fieldtest.Invalid("MonitorsArgs.DCGMExporter.PortName"),
		}},
		{name: "team namespaces", args: MonitorsArgs{TeamNamespaces: []string{"team-a", "team-a", ""}}, want: []fieldtest.Want{
			fieldtest.Duplicate("MonitorsArgs.TeamNamespaces[1]"),
			fieldtest.Required("MonitorsArgs.TeamNamespaces[2]"),
		}},
		{name: "gpu stack", args: MonitorsArgs{GPUStacks: []gpupool.GPUStack{"Operator"}}, want: []fieldtest.Want{fieldtest.NotSupported("MonitorsArgs.GPUStacks[0]")}},
		{name: "spec errors use the default root", args: MonitorsArgs{Spec: Spec{RPO: "soon"}}, want: []fieldtest.Want{fieldtest.Invalid("observability.rpo")}},
		{name: "spec errors use the caller's root", args: MonitorsArgs{Spec: Spec{RPO: "soon"}, ConfigPath: "aksml:observability"}, want: []fieldtest.Want{fieldtest.Invalid("aksml:observability.rpo")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.args
			a.applyDefaults()
			fieldtest.ListEqual(t, a.validate(field.NewPath("MonitorsArgs")), tc.want...)
		})
	}
}

func TestDCGMTargets(t *testing.T) {
	tests := []struct {
		name          string
		stacks        []gpupool.GPUStack
		managed, pods bool
	}{
		{name: "no pools known", pods: true},
		{name: "managed", stacks: []gpupool.GPUStack{gpupool.GPUStackManaged}, managed: true},
		{name: "driver only", stacks: []gpupool.GPUStack{gpupool.GPUStackDriverOnly}, pods: true},
		{name: "bring your own: no target, its exporter's namespace is unknown", stacks: []gpupool.GPUStack{gpupool.GPUStackNone}},
		{name: "bring your own next to driver only", stacks: []gpupool.GPUStack{gpupool.GPUStackNone, gpupool.GPUStackDriverOnly}, pods: true},
		{name: "bring your own next to managed", stacks: []gpupool.GPUStack{gpupool.GPUStackNone, gpupool.GPUStackManaged}, managed: true},
		{name: "mixed", stacks: []gpupool.GPUStack{gpupool.GPUStackManaged, gpupool.GPUStackDriverOnly}, managed: true, pods: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			managed, pods := DCGMTargets(tc.stacks)
			assert.Equal(t, tc.managed, managed)
			assert.Equal(t, tc.pods, pods)
		})
	}
}

// TestWorkspaceMessagesNameTheCallersRoot: the messages that point at the
// workspace ID key name it below the caller's ConfigPath, not the aksml
// program's config namespace.
func TestWorkspaceMessagesNameTheCallersRoot(t *testing.T) {
	var spec Spec
	spec.Default()
	spec.PrometheusRuleGroups = true
	root := field.NewPath("platform:observability")
	rules := AlertRulesArgs{Spec: spec, ConfigPath: root}
	monitor := AzureMonitorArgs{Spec: spec, ConfigPath: root}
	for name, errs := range map[string]field.ErrorList{
		"AlertRules":   rules.validate(field.NewPath("AlertRulesArgs")),
		"AzureMonitor": monitor.validate(field.NewPath("AzureMonitorArgs")),
	} {
		err := errs.ToAggregate()
		require.Error(t, err, name)
		assert.ErrorContains(t, err, "platform:observability.azureMonitorWorkspaceId", name)
		assert.NotContains(t, err.Error(), "aksml:", name)
	}
}
