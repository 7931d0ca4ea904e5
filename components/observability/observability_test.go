package observability

import (
	"testing"

	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/internals"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/gpupool"

	"github.com/aksml/aksml/components/internal/mocktest"
)

// run runs fn under mocks whose deployment stacks report every template
// output as "deployed:<name>", and the rule group's as realistic values.
func run(t *testing.T, fn func(ctx *pulumi.Context) error) (*mocktest.Mocks, error) {
	t.Helper()
	m := &mocktest.Mocks{StackOutput: func(k string) string {
		switch k {
		case "ruleGroupName":
			return "aks-ml-aksml-gpu-training"
		case "ruleGroupId":
			return "/subscriptions/s/resourceGroups/rg/providers/Microsoft.AlertsManagement/prometheusRuleGroups/aks-ml-aksml-gpu-training"
		}
		return "deployed:" + k
	}}
	return m, m.Run(fn)
}

// await returns the resolved value of an output; call it inside the program.
func await(t *testing.T, ctx *pulumi.Context, o pulumi.Output) any {
	t.Helper()
	r, err := internals.UnsafeAwaitOutput(ctx.Context(), o)
	require.NoError(t, err)
	require.True(t, r.Known)
	return r.Value
}

func TestMonitorsDriverOnlyPool(t *testing.T) {
	outputs := map[string]any{}
	m, err := run(t, func(ctx *pulumi.Context) error {
		mon, err := NewMonitors(ctx, "obs", &MonitorsArgs{
			GPUStacks:      []gpupool.GPUStack{gpupool.GPUStackDriverOnly},
			TeamNamespaces: []string{"team-a", "team-b"},
		})
		if err != nil {
			return err
		}
		outputs["dcgm"] = await(t, ctx, mon.DCGMPodMonitorName)
		outputs["managed"] = await(t, ctx, mon.ManagedDCGMScrapeConfig)
		outputs["training"] = await(t, ctx, mon.TrainingPodMonitorName)
		outputs["rule"] = await(t, ctx, mon.PrometheusRuleName)
		outputs["dashboardConfigMap"] = await(t, ctx, mon.DashboardConfigMapName)
		outputs["dashboard"] = await(t, ctx, mon.DashboardJSON)
		return nil
	})
	require.NoError(t, err)
	res := m.Names()
	assert.Equal(t, map[string]any{
		"dcgm":               "nvidia-dcgm-exporter",
		"managed":            "",
		"training":           "aksml-training-metrics",
		"rule":               "",
		"dashboardConfigMap": "aksml-gpu-training-dashboard",
		"dashboard":          DashboardJSON(),
	}, outputs)

	require.Contains(t, res, "obs")
	assert.Equal(t, MonitorsType, res["obs"].Type)
	assert.NotContains(t, res, "obs-managed-dcgm", "no managed pool, no add-on scrape config")
	assert.NotContains(t, res, "obs-rules", "PrometheusRule is opt-in")
	assert.NotContains(t, res, "obs-kueue", "no Kueue namespace, no Kueue scrape")

	dcgm := res["obs-dcgm"]
	assert.Equal(t, "kubernetes:azmonitoring.coreos.com/v1:PodMonitor", dcgm.Type)
	assert.Equal(t, "azmonitoring.coreos.com/v1", dcgm.Inputs["apiVersion"])
	assert.Equal(t, "nvidia-dcgm-exporter", mocktest.Dig(t, dcgm.Inputs, "metadata", "name"))
	assert.Equal(t, "gpu-operator", mocktest.Dig(t, dcgm.Inputs, "metadata", "namespace"))
	assert.Equal(t, map[string]any{"app": "nvidia-dcgm-exporter"}, mocktest.Dig(t, dcgm.Inputs, "spec", "selector", "matchLabels"))
	ep := mocktest.Dig(t, dcgm.Inputs, "spec", "podMetricsEndpoints", 0)
	assert.Equal(t, "metrics", mocktest.Dig(t, ep, "port"))
	assert.Equal(t, "30s", mocktest.Dig(t, ep, "interval"))
	assert.Equal(t, "10s", mocktest.Dig(t, ep, "scrapeTimeout"))
	assert.Equal(t, true, mocktest.Dig(t, ep, "honorLabels"))

	tr := res["obs-training"]
	assert.Equal(t, "kubernetes:azmonitoring.coreos.com/v1:PodMonitor", tr.Type)
	assert.Equal(t, "aksml-training-metrics", mocktest.Dig(t, tr.Inputs, "metadata", "name"))
	assert.Equal(t, "kube-system", mocktest.Dig(t, tr.Inputs, "metadata", "namespace"))
	assert.Equal(t, map[string]any{"aksml.io/metrics": "true"}, mocktest.Dig(t, tr.Inputs, "spec", "selector", "matchLabels"))
	assert.Equal(t, map[string]any{"matchNames": []any{"team-a", "team-b"}}, mocktest.Dig(t, tr.Inputs, "spec", "namespaceSelector"))
	tep := mocktest.Dig(t, tr.Inputs, "spec", "podMetricsEndpoints", 0)
	assert.Equal(t, "metrics", mocktest.Dig(t, tep, "port"))
	assert.Equal(t, "/metrics", mocktest.Dig(t, tep, "path"))
	assert.Equal(t, "30s", mocktest.Dig(t, tep, "interval"))
	assert.Equal(t, "10s", mocktest.Dig(t, tep, "scrapeTimeout"))

	keep := mocktest.Dig(t, tep, "metricRelabelings", 0)
	assert.Equal(t, "keep", mocktest.Dig(t, keep, "action"))
	assert.Equal(t, []any{"__name__"}, mocktest.Dig(t, keep, "sourceLabels"))
	for _, metric := range []string{"ml_training_samples_total", "ml_training_steps_total", "ml_training_step_duration_seconds", "ml_training_checkpoint_duration_seconds", "ml_training_data_wait_seconds"} {
		assert.Contains(t, mocktest.Dig(t, keep, "regex"), metric)
	}
	labelkeep := mocktest.Dig(t, tep, "metricRelabelings", 1)
	assert.Equal(t, "labelkeep", mocktest.Dig(t, labelkeep, "action"))
	assert.Equal(t, KeptLabelsRegex(), mocktest.Dig(t, labelkeep, "regex"))

	targets := map[string][]any{}
	for _, r := range mocktest.Dig(t, tep, "relabelings").([]any) {
		rl := r.(map[string]any)
		targets[rl["targetLabel"].(string)] = append(targets[rl["targetLabel"].(string)], rl["sourceLabels"].([]any)[0])
	}
	assert.Equal(t, []any{"__meta_kubernetes_namespace", "__meta_kubernetes_pod_label_aksml_io_team"}, targets["team"])
	assert.Equal(t, []any{"__meta_kubernetes_pod_label_batch_kubernetes_io_job_name", "__meta_kubernetes_pod_label_training_kubeflow_org_job_name"}, targets["job_name"])
	assert.Equal(t, []any{"__meta_kubernetes_pod_label_training_kubeflow_org_replica_type"}, targets["replica_role"])
	assert.Contains(t, targets, "run_id")
	assert.Contains(t, targets, "model_name")
	assert.Contains(t, targets, "model_version")

	dash := res["obs-dashboard"]
	assert.Equal(t, "kubernetes:core/v1:ConfigMap", dash.Type)
	assert.Equal(t, "1", mocktest.Dig(t, dash.Inputs, "metadata", "labels", "grafana_dashboard"))
	assert.Equal(t, DashboardJSON(), mocktest.Dig(t, dash.Inputs, "data", "aksml-gpu-training.json"))
}

func TestMonitorsManagedPool(t *testing.T) {
	var scrape, dcgmName string
	m, err := run(t, func(ctx *pulumi.Context) error {
		mon, err := NewMonitors(ctx, "obs", &MonitorsArgs{GPUStacks: []gpupool.GPUStack{gpupool.GPUStackManaged}})
		if err != nil {
			return err
		}
		scrape = await(t, ctx, mon.ManagedDCGMScrapeConfig).(string)
		dcgmName = await(t, ctx, mon.DCGMPodMonitorName).(string)
		return nil
	})
	require.NoError(t, err)
	res := m.Names()

	assert.NotContains(t, res, "obs-dcgm", "the managed exporter is not a pod")
	assert.Empty(t, dcgmName)
	cm := res["obs-managed-dcgm"]
	assert.Equal(t, "kubernetes:core/v1:ConfigMap", cm.Type)
	assert.Equal(t, "ama-metrics-prometheus-config", mocktest.Dig(t, cm.Inputs, "metadata", "name"))
	assert.Equal(t, "kube-system", mocktest.Dig(t, cm.Inputs, "metadata", "namespace"))
	cfg := mocktest.Dig(t, cm.Inputs, "data", "prometheus-config").(string)
	assert.Equal(t, ManagedDCGMScrapeConfig(defaultSpec()), cfg)
	assert.Contains(t, cfg, ":19400")
	assert.Contains(t, cfg, "__meta_kubernetes_node_label_kubernetes_azure_com_dcgm_exporter")
	assert.Equal(t, cfg, scrape)

	assert.Equal(t, map[string]any{"aksml.io/metrics": "true"}, mocktest.Dig(t, res["obs-training"].Inputs, "spec", "selector", "matchLabels"))
	assert.Equal(t, map[string]any{"any": true}, mocktest.Dig(t, res["obs-training"].Inputs, "spec", "namespaceSelector"))
}

func TestMonitorsMixedPoolsWithoutScrapeConfigMap(t *testing.T) {
	off := false
	var scrape string
	m, err := run(t, func(ctx *pulumi.Context) error {
		mon, err := NewMonitors(ctx, "obs", &MonitorsArgs{
			Spec:      Spec{ManagedDCGMScrapeConfig: &off},
			GPUStacks: []gpupool.GPUStack{gpupool.GPUStackManaged, gpupool.GPUStackDriverOnly},
			DCGMExporter: DCGMExporter{
				Namespace: "nvidia",
				Selector:  map[string]string{"app.kubernetes.io/name": "dcgm-exporter"},
				PortName:  "dcgm",
			},
		})
		if err != nil {
			return err
		}
		scrape = await(t, ctx, mon.ManagedDCGMScrapeConfig).(string)
		return nil
	})
	require.NoError(t, err)
	res := m.Names()

	assert.NotContains(t, res, "obs-managed-dcgm", "the cluster owns the add-on ConfigMap")
	assert.Contains(t, scrape, ":19400", "the job is still offered for merging")
	dcgm := res["obs-dcgm"]
	assert.Equal(t, "nvidia", mocktest.Dig(t, dcgm.Inputs, "metadata", "namespace"))
	assert.Equal(t, map[string]any{"app.kubernetes.io/name": "dcgm-exporter"}, mocktest.Dig(t, dcgm.Inputs, "spec", "selector", "matchLabels"))
	assert.Equal(t, "dcgm", mocktest.Dig(t, dcgm.Inputs, "spec", "podMetricsEndpoints", 0, "port"))
}

func TestMonitorsPrometheusOperator(t *testing.T) {
	m, err := run(t, func(ctx *pulumi.Context) error {
		_, err := NewMonitors(ctx, "obs", &MonitorsArgs{
			Spec: Spec{
				PrometheusRule:  true,
				PodMonitorGroup: MonitorGroupPrometheusOperator,
				Labels:          map[string]string{"release": "kube-prometheus-stack"},
			},
			Namespace: "monitoring",
		})
		return err
	})
	require.NoError(t, err)
	res := m.Names()

	for _, n := range []string{"obs-dcgm", "obs-training"} {
		assert.Equal(t, "kubernetes:monitoring.coreos.com/v1:PodMonitor", res[n].Type, n)
		assert.Equal(t, "kube-prometheus-stack", mocktest.Dig(t, res[n].Inputs, "metadata", "labels", "release"), n)
		assert.Equal(t, "aksml", mocktest.Dig(t, res[n].Inputs, "metadata", "labels", "app.kubernetes.io/part-of"), n)
	}
	rule := res["obs-rules"]
	assert.Equal(t, "kubernetes:monitoring.coreos.com/v1:PrometheusRule", rule.Type)
	assert.Equal(t, "monitoring", mocktest.Dig(t, rule.Inputs, "metadata", "namespace"))
	assert.Equal(t, "kube-prometheus-stack", mocktest.Dig(t, rule.Inputs, "metadata", "labels", "release"))
	rules := mocktest.Dig(t, rule.Inputs, "spec", "groups", 0, "rules").([]any)
	require.Len(t, rules, len(Rules(defaultSpec(), nil)))
	assert.Equal(t, "GPUUnderutilized", mocktest.Dig(t, rules[0], "alert"))
	assert.Contains(t, mocktest.Dig(t, rules[0], "expr"), "DCGM_FI_DEV_GPU_UTIL")
}

func TestMonitorsUseTheProvider(t *testing.T) {
	m, err := run(t, func(ctx *pulumi.Context) error {
		p, err := kubernetes.NewProvider(ctx, "existing", &kubernetes.ProviderArgs{})
		if err != nil {
			return err
		}
		_, err = NewMonitors(ctx, "obs", &MonitorsArgs{Provider: p})
		return err
	})
	require.NoError(t, err)
	children := 0
	for _, r := range m.Names() {
		if r.Type == "pulumi:providers:kubernetes" || r.Type == MonitorsType {
			continue
		}
		children++
		assert.Contains(t, r.Provider, "pulumi:providers:kubernetes::existing", r.Name)
	}
	assert.Equal(t, 3, children, "DCGM and training PodMonitors, dashboard ConfigMap")
}

func TestMonitorsScrapeKueue(t *testing.T) {
	var name any
	m, err := run(t, func(ctx *pulumi.Context) error {
		mon, err := NewMonitors(ctx, "obs", &MonitorsArgs{KueueNamespace: "kueue-system"})
		if err != nil {
			return err
		}
		name = await(t, ctx, mon.KueueServiceMonitorName)
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, "kueue-metrics", name)
	sm := m.Names()["obs-kueue"]
	assert.Equal(t, "kubernetes:azmonitoring.coreos.com/v1:ServiceMonitor", sm.Type)
	assert.Equal(t, "kueue-system", mocktest.Dig(t, sm.Inputs, "metadata", "namespace"))
	assert.Equal(t, map[string]any{"app.kubernetes.io/component": "metrics-service", "app.kubernetes.io/name": "kueue"},
		mocktest.Dig(t, sm.Inputs, "spec", "selector", "matchLabels"), "the Kueue v0.17.0 chart's metrics Service labels")
	ep := mocktest.Dig(t, sm.Inputs, "spec", "endpoints", 0)
	assert.Equal(t, "https", mocktest.Dig(t, ep, "port"))
	assert.Equal(t, "https", mocktest.Dig(t, ep, "scheme"))
	assert.Equal(t, "/var/run/secrets/kubernetes.io/serviceaccount/token", mocktest.Dig(t, ep, "bearerTokenFile"), "Kueue's endpoint requires an authorized token")
	assert.Equal(t, true, mocktest.Dig(t, ep, "tlsConfig", "insecureSkipVerify"))
	assert.Equal(t, "kueue_.*", mocktest.Dig(t, ep, "metricRelabelings", 0, "regex"))
	assert.Equal(t, "30s", mocktest.Dig(t, ep, "interval"))
}

func TestMonitorsInvalidArgsRegisterNothing(t *testing.T) {
	m, err := run(t, func(ctx *pulumi.Context) error {
		_, err := NewMonitors(ctx, "obs", &MonitorsArgs{Spec: Spec{RPO: "1m"}, Namespace: "Bad_NS", KueueNamespace: "Kueue System",
			WorkloadDurations: []WorkloadDuration{{Namespace: "team-a", Name: "x", Expected: 0}}})
		return err
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "observability.rpo: 1m is out of range")
	assert.Contains(t, err.Error(), "MonitorsArgs.Namespace")
	assert.Contains(t, err.Error(), "MonitorsArgs.KueueNamespace")
	assert.Contains(t, err.Error(), "MonitorsArgs.WorkloadDurations[0].Expected")
	assert.Empty(t, m.Names())

	_, err = run(t, func(ctx *pulumi.Context) error {
		_, err := NewMonitors(ctx, "obs", nil)
		return err
	})
	require.ErrorContains(t, err, "MonitorsArgs are required")
}

func TestAlertRules(t *testing.T) {
	var name, id string
	m, err := run(t, func(ctx *pulumi.Context) error {
		rules, err := NewAlertRules(ctx, "alerts", &AlertRulesArgs{
			ResourceGroupName: pulumi.String("rg-aksml"),
			Location:          pulumi.String("westeurope"),
			ClusterName:       pulumi.String("aks-ml"),
			Spec: Spec{
				PrometheusRuleGroups:    true,
				AzureMonitorWorkspaceID: testWorkspaceID,
				ActionGroupIDs:          []string{testActionGroupID},
				RPO:                     "1h",
			},
			TeamNamespaces: []string{"team-a"},
		})
		if err != nil {
			return err
		}
		name = await(t, ctx, rules.Name).(string)
		id = await(t, ctx, rules.ResourceID).(string)
		return nil
	})
	require.NoError(t, err)
	res := m.Names()

	assert.Equal(t, AlertRulesType, res["alerts"].Type)
	stack := res["alerts-rulegroup"]
	assert.Equal(t, "azure-native:resources/v20240301:DeploymentStackAtResourceGroup", stack.Type)
	assert.Equal(t, "rg-aksml", stack.Inputs["resourceGroupName"])
	assert.Equal(t, "aks-ml", mocktest.Dig(t, stack.Inputs, "parameters", "clusterName", "value"))
	assert.Equal(t, "westeurope", mocktest.Dig(t, stack.Inputs, "parameters", "location", "value"))
	assert.NotContains(t, stack.Inputs["parameters"], "clusterResourceId")
	assert.Equal(t, testWorkspaceID, mocktest.Dig(t, stack.Inputs, "parameters", "azureMonitorWorkspaceId", "value"), "the configured workspace")

	group := mocktest.Dig(t, stack.Inputs, "template", "resources", 0)
	assert.Equal(t, "Microsoft.AlertsManagement/prometheusRuleGroups", mocktest.Dig(t, group, "type"))
	assert.Equal(t, "2023-03-01", mocktest.Dig(t, group, "apiVersion"))
	assert.Equal(t, []any{"[parameters('azureMonitorWorkspaceId')]"}, mocktest.Dig(t, group, "properties", "scopes"))
	assert.Equal(t, "PT1M", mocktest.Dig(t, group, "properties", "interval"))
	var overdue map[string]any
	for _, r := range mocktest.Dig(t, group, "properties", "rules").([]any) {
		if mocktest.Dig(t, r, "alert") == "TrainingCheckpointOverdue" {
			overdue = r.(map[string]any)
		}
	}
	require.NotNil(t, overdue)
	assert.Contains(t, overdue["expression"], `{namespace=~"team-a"}) > 3600`)
	assert.Equal(t, float64(1), overdue["severity"])
	assert.Equal(t, testActionGroupID, mocktest.Dig(t, overdue, "actions", 0, "actionGroupId"))

	assert.Equal(t, "aks-ml-aksml-gpu-training", name)
	assert.Contains(t, id, "/providers/Microsoft.AlertsManagement/prometheusRuleGroups/")
}

func TestAlertRulesWithClusterScope(t *testing.T) {
	m, err := run(t, func(ctx *pulumi.Context) error {
		_, err := NewAlertRules(ctx, "alerts", &AlertRulesArgs{
			ResourceGroupName:       pulumi.String("rg-aksml"),
			Location:                pulumi.String("westeurope"),
			ClusterName:             pulumi.String("aks-ml"),
			ClusterResourceID:       pulumi.String("/subscriptions/s/resourceGroups/rg-aksml/providers/Microsoft.ContainerService/managedClusters/aks-ml"),
			AzureMonitorWorkspaceID: pulumi.String(testWorkspaceID).ToStringOutput(),
			Spec:                    Spec{PrometheusRuleGroups: true},
		})
		return err
	})
	require.NoError(t, err)
	stack := m.Names()["alerts-rulegroup"]
	assert.Equal(t, testWorkspaceID, mocktest.Dig(t, stack.Inputs, "parameters", "azureMonitorWorkspaceId", "value"), "the workspace AzureMonitor created")
	assert.Equal(t, "/subscriptions/s/resourceGroups/rg-aksml/providers/Microsoft.ContainerService/managedClusters/aks-ml",
		mocktest.Dig(t, stack.Inputs, "parameters", "clusterResourceId", "value"))
	assert.Equal(t, []any{"[parameters('azureMonitorWorkspaceId')]", "[parameters('clusterResourceId')]"},
		mocktest.Dig(t, stack.Inputs, "template", "resources", 0, "properties", "scopes"))
}

func TestAlertRulesValidation(t *testing.T) {
	m, err := run(t, func(ctx *pulumi.Context) error {
		_, err := NewAlertRules(ctx, "alerts", &AlertRulesArgs{Spec: Spec{PrometheusRuleGroups: true}})
		return err
	})
	require.Error(t, err)
	for _, want := range []string{
		"AlertRulesArgs.AzureMonitorWorkspaceID: is required",
		"AlertRulesArgs.ResourceGroupName: is required",
		"AlertRulesArgs.ClusterName: is required",
		"AlertRulesArgs.Location: is required",
	} {
		assert.Contains(t, err.Error(), want)
	}
	assert.Empty(t, m.Names())

	// Rule groups off: the stack stays registered with an empty template, so
	// switching them off deletes the rule group (issue 27); only the
	// resource group is required then.
	m, err = run(t, func(ctx *pulumi.Context) error {
		_, err := NewAlertRules(ctx, "alerts", &AlertRulesArgs{ResourceGroupName: pulumi.String("rg")})
		return err
	})
	require.NoError(t, err)
	stack := m.ByName(t, "alerts-rulegroup")
	assert.Empty(t, mocktest.Dig(t, stack.Inputs, "template", "resources"), "nothing deployed while the rule groups are off")

	_, err = run(t, func(ctx *pulumi.Context) error {
		_, err := NewAlertRules(ctx, "alerts", &AlertRulesArgs{})
		return err
	})
	require.ErrorContains(t, err, "AlertRulesArgs.ResourceGroupName: is required")
}

// TestMonitorsNonePoolsRegisterNoExporterMonitor: with only bring-your-own
// (None) pools nothing creates the exporter namespace, so no PodMonitor may
// be sent there (the API server would reject it).
func TestMonitorsNonePoolsRegisterNoExporterMonitor(t *testing.T) {
	var name string
	m, err := run(t, func(ctx *pulumi.Context) error {
		mon, err := NewMonitors(ctx, "obs", &MonitorsArgs{GPUStacks: []gpupool.GPUStack{gpupool.GPUStackNone, gpupool.GPUStackNone}})
		if err != nil {
			return err
		}
		name = await(t, ctx, mon.DCGMPodMonitorName).(string)
		return nil
	})
	require.NoError(t, err)
	res := m.Names()
	assert.NotContains(t, res, "obs-dcgm")
	assert.NotContains(t, res, "obs-managed-dcgm")
	assert.Empty(t, name)
	assert.Contains(t, res, "obs-training", "the training monitor does not depend on the GPU stack")
}

// TestMonitorsKeepListConfigMap: with Azure Monitor rule groups the
// add-on's settings ConfigMap adds kube_job_status_failed to the
// kube-state-metrics keep-list; without them, or when opted out, none is
// created (a cluster's own settings ConfigMap is left alone).
func TestMonitorsKeepListConfigMap(t *testing.T) {
	off := false
	for name, tc := range map[string]struct {
		spec Spec
		want bool
	}{
		"rule groups":      {Spec{PrometheusRuleGroups: true}, true},
		"in-cluster rules": {Spec{PrometheusRule: true}, false},
		"opted out":        {Spec{PrometheusRuleGroups: true, ManagedSettingsConfigMap: &off}, false},
	} {
		t.Run(name, func(t *testing.T) {
			m, err := run(t, func(ctx *pulumi.Context) error {
				_, err := NewMonitors(ctx, "obs", &MonitorsArgs{Spec: tc.spec})
				return err
			})
			require.NoError(t, err)
			if !tc.want {
				assert.NotContains(t, m.Names(), "obs-ama-settings")
				return
			}
			cm := m.ByName(t, "obs-ama-settings")
			assert.Equal(t, AMASettingsConfigMapName, mocktest.Dig(t, cm.Inputs, "metadata", "name"))
			assert.Equal(t, AMANamespace, mocktest.Dig(t, cm.Inputs, "metadata", "namespace"))
			assert.Contains(t, mocktest.Dig(t, cm.Inputs, "data", "default-targets-metrics-keep-list"), `kubestate = "kube_job_status_failed"`)
		})
	}
}
