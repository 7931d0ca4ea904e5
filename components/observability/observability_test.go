package observability

import (
	"sync"
	"testing"

	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/internals"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/gpupool"
)

type registered struct {
	typ      string
	name     string
	inputs   map[string]any
	provider string
}

type mocks struct {
	mu        sync.Mutex
	resources []registered
}

func (m *mocks) NewResource(args pulumi.MockResourceArgs) (string, resource.PropertyMap, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.resources = append(m.resources, registered{args.TypeToken, args.Name, args.Inputs.Mappable(), args.Provider})
	state := args.Inputs.Copy()
	if args.TypeToken == "azure-native:resources/v20240301:DeploymentStackAtResourceGroup" {
		// Every template output resolves to "deployed:<name>"; the rule
		// group's to realistic values.
		outputs := map[string]any{}
		for k := range args.Inputs["template"].ObjectValue()["outputs"].ObjectValue() {
			outputs[string(k)] = map[string]any{"type": "String", "value": "deployed:" + string(k)}
		}
		outputs["ruleGroupName"] = map[string]any{"type": "String", "value": "aks-ml-aksml-gpu-training"}
		outputs["ruleGroupId"] = map[string]any{"type": "String", "value": "/subscriptions/s/resourceGroups/rg/providers/Microsoft.AlertsManagement/prometheusRuleGroups/aks-ml-aksml-gpu-training"}
		state["outputs"] = resource.NewPropertyValue(outputs)
	}
	return args.Name + "-id", state, nil
}

func (m *mocks) Call(args pulumi.MockCallArgs) (resource.PropertyMap, error) {
	return args.Args, nil
}

// byName returns the registered resources keyed by Pulumi name.
func (m *mocks) byName() map[string]registered {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]registered{}
	for _, r := range m.resources {
		out[r.name] = r
	}
	return out
}

func run(t *testing.T, fn func(ctx *pulumi.Context) error) (*mocks, error) {
	t.Helper()
	m := &mocks{}
	err := pulumi.RunErr(fn, pulumi.WithMocks("aksml", "test", m))
	return m, err
}

// await returns the resolved value of an output; call it inside the program.
func await(t *testing.T, ctx *pulumi.Context, o pulumi.Output) any {
	t.Helper()
	r, err := internals.UnsafeAwaitOutput(ctx.Context(), o)
	require.NoError(t, err)
	require.True(t, r.Known)
	return r.Value
}

// path walks nested maps and lists: path(v, "spec", "podMetricsEndpoints", 0, "port").
func path(t *testing.T, v any, keys ...any) any {
	t.Helper()
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, ok := v.(map[string]any)
			require.True(t, ok, "%v is not a map at %q", v, k)
			v = m[k]
		case int:
			l, ok := v.([]any)
			require.True(t, ok, "%v is not a list at %d", v, k)
			require.Greater(t, len(l), k)
			v = l[k]
		}
	}
	return v
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
	res := m.byName()
	assert.Equal(t, map[string]any{
		"dcgm":               "nvidia-dcgm-exporter",
		"managed":            "",
		"training":           "aksml-training-metrics",
		"rule":               "",
		"dashboardConfigMap": "aksml-gpu-training-dashboard",
		"dashboard":          DashboardJSON(),
	}, outputs)

	require.Contains(t, res, "obs")
	assert.Equal(t, MonitorsType, res["obs"].typ)
	assert.NotContains(t, res, "obs-managed-dcgm", "no managed pool, no add-on scrape config")
	assert.NotContains(t, res, "obs-rules", "PrometheusRule is opt-in")
	assert.NotContains(t, res, "obs-kueue", "no Kueue namespace, no Kueue scrape")

	dcgm := res["obs-dcgm"]
	assert.Equal(t, "kubernetes:azmonitoring.coreos.com/v1:PodMonitor", dcgm.typ)
	assert.Equal(t, "azmonitoring.coreos.com/v1", dcgm.inputs["apiVersion"])
	assert.Equal(t, "nvidia-dcgm-exporter", path(t, dcgm.inputs, "metadata", "name"))
	assert.Equal(t, "gpu-operator", path(t, dcgm.inputs, "metadata", "namespace"))
	assert.Equal(t, map[string]any{"app": "nvidia-dcgm-exporter"}, path(t, dcgm.inputs, "spec", "selector", "matchLabels"))
	ep := path(t, dcgm.inputs, "spec", "podMetricsEndpoints", 0)
	assert.Equal(t, "metrics", path(t, ep, "port"))
	assert.Equal(t, "30s", path(t, ep, "interval"))
	assert.Equal(t, "10s", path(t, ep, "scrapeTimeout"))
	assert.Equal(t, true, path(t, ep, "honorLabels"))

	tr := res["obs-training"]
	assert.Equal(t, "kubernetes:azmonitoring.coreos.com/v1:PodMonitor", tr.typ)
	assert.Equal(t, "aksml-training-metrics", path(t, tr.inputs, "metadata", "name"))
	assert.Equal(t, "kube-system", path(t, tr.inputs, "metadata", "namespace"))
	assert.Equal(t, map[string]any{"aksml.io/metrics": "true"}, path(t, tr.inputs, "spec", "selector", "matchLabels"))
	assert.Equal(t, map[string]any{"matchNames": []any{"team-a", "team-b"}}, path(t, tr.inputs, "spec", "namespaceSelector"))
	tep := path(t, tr.inputs, "spec", "podMetricsEndpoints", 0)
	assert.Equal(t, "metrics", path(t, tep, "port"))
	assert.Equal(t, "/metrics", path(t, tep, "path"))
	assert.Equal(t, "30s", path(t, tep, "interval"))
	assert.Equal(t, "10s", path(t, tep, "scrapeTimeout"))

	keep := path(t, tep, "metricRelabelings", 0)
	assert.Equal(t, "keep", path(t, keep, "action"))
	assert.Equal(t, []any{"__name__"}, path(t, keep, "sourceLabels"))
	for _, metric := range []string{"ml_training_samples_total", "ml_training_steps_total", "ml_training_step_duration_seconds", "ml_training_checkpoint_duration_seconds", "ml_training_data_wait_seconds"} {
		assert.Contains(t, path(t, keep, "regex"), metric)
	}
	labelkeep := path(t, tep, "metricRelabelings", 1)
	assert.Equal(t, "labelkeep", path(t, labelkeep, "action"))
	assert.Equal(t, KeptLabelsRegex(), path(t, labelkeep, "regex"))

	targets := map[string][]any{}
	for _, r := range path(t, tep, "relabelings").([]any) {
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
	assert.Equal(t, "kubernetes:core/v1:ConfigMap", dash.typ)
	assert.Equal(t, "1", path(t, dash.inputs, "metadata", "labels", "grafana_dashboard"))
	assert.Equal(t, DashboardJSON(), path(t, dash.inputs, "data", "aksml-gpu-training.json"))
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
	res := m.byName()

	assert.NotContains(t, res, "obs-dcgm", "the managed exporter is not a pod")
	assert.Empty(t, dcgmName)
	cm := res["obs-managed-dcgm"]
	assert.Equal(t, "kubernetes:core/v1:ConfigMap", cm.typ)
	assert.Equal(t, "ama-metrics-prometheus-config", path(t, cm.inputs, "metadata", "name"))
	assert.Equal(t, "kube-system", path(t, cm.inputs, "metadata", "namespace"))
	cfg := path(t, cm.inputs, "data", "prometheus-config").(string)
	assert.Equal(t, ManagedDCGMScrapeConfig(defaultSpec()), cfg)
	assert.Contains(t, cfg, ":19400")
	assert.Contains(t, cfg, "__meta_kubernetes_node_label_kubernetes_azure_com_dcgm_exporter")
	assert.Equal(t, cfg, scrape)

	assert.Equal(t, map[string]any{"aksml.io/metrics": "true"}, path(t, res["obs-training"].inputs, "spec", "selector", "matchLabels"))
	assert.Equal(t, map[string]any{"any": true}, path(t, res["obs-training"].inputs, "spec", "namespaceSelector"))
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
	res := m.byName()

	assert.NotContains(t, res, "obs-managed-dcgm", "the cluster owns the add-on ConfigMap")
	assert.Contains(t, scrape, ":19400", "the job is still offered for merging")
	dcgm := res["obs-dcgm"]
	assert.Equal(t, "nvidia", path(t, dcgm.inputs, "metadata", "namespace"))
	assert.Equal(t, map[string]any{"app.kubernetes.io/name": "dcgm-exporter"}, path(t, dcgm.inputs, "spec", "selector", "matchLabels"))
	assert.Equal(t, "dcgm", path(t, dcgm.inputs, "spec", "podMetricsEndpoints", 0, "port"))
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
	res := m.byName()

	for _, n := range []string{"obs-dcgm", "obs-training"} {
		assert.Equal(t, "kubernetes:monitoring.coreos.com/v1:PodMonitor", res[n].typ, n)
		assert.Equal(t, "kube-prometheus-stack", path(t, res[n].inputs, "metadata", "labels", "release"), n)
		assert.Equal(t, "aksml", path(t, res[n].inputs, "metadata", "labels", "app.kubernetes.io/part-of"), n)
	}
	rule := res["obs-rules"]
	assert.Equal(t, "kubernetes:monitoring.coreos.com/v1:PrometheusRule", rule.typ)
	assert.Equal(t, "monitoring", path(t, rule.inputs, "metadata", "namespace"))
	assert.Equal(t, "kube-prometheus-stack", path(t, rule.inputs, "metadata", "labels", "release"))
	rules := path(t, rule.inputs, "spec", "groups", 0, "rules").([]any)
	require.Len(t, rules, len(Rules(defaultSpec(), nil)))
	assert.Equal(t, "GPUUnderutilized", path(t, rules[0], "alert"))
	assert.Contains(t, path(t, rules[0], "expr"), "DCGM_FI_DEV_GPU_UTIL")
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
	for _, r := range m.byName() {
		if r.typ == "pulumi:providers:kubernetes" || r.typ == MonitorsType {
			continue
		}
		children++
		assert.Contains(t, r.provider, "pulumi:providers:kubernetes::existing", r.name)
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
	sm := m.byName()["obs-kueue"]
	assert.Equal(t, "kubernetes:azmonitoring.coreos.com/v1:ServiceMonitor", sm.typ)
	assert.Equal(t, "kueue-system", path(t, sm.inputs, "metadata", "namespace"))
	assert.Equal(t, map[string]any{"app.kubernetes.io/component": "metrics-service", "app.kubernetes.io/name": "kueue"},
		path(t, sm.inputs, "spec", "selector", "matchLabels"), "the Kueue v0.17.0 chart's metrics Service labels")
	ep := path(t, sm.inputs, "spec", "endpoints", 0)
	assert.Equal(t, "https", path(t, ep, "port"))
	assert.Equal(t, "https", path(t, ep, "scheme"))
	assert.Equal(t, "/var/run/secrets/kubernetes.io/serviceaccount/token", path(t, ep, "bearerTokenFile"), "Kueue's endpoint requires an authorized token")
	assert.Equal(t, true, path(t, ep, "tlsConfig", "insecureSkipVerify"))
	assert.Equal(t, "kueue_.*", path(t, ep, "metricRelabelings", 0, "regex"))
	assert.Equal(t, "30s", path(t, ep, "interval"))
}

func TestMonitorsInvalidArgsRegisterNothing(t *testing.T) {
	m, err := run(t, func(ctx *pulumi.Context) error {
		_, err := NewMonitors(ctx, "obs", &MonitorsArgs{Spec: Spec{RPO: "1m"}, Namespace: "Bad_NS", KueueNamespace: "Kueue System",
			WorkloadDurations: []WorkloadDuration{{Namespace: "team-a", Name: "x", Expected: 0}}})
		return err
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "aksml:observability.rpo: 1m is out of range")
	assert.Contains(t, err.Error(), "MonitorsArgs.Namespace")
	assert.Contains(t, err.Error(), "MonitorsArgs.KueueNamespace")
	assert.Contains(t, err.Error(), "MonitorsArgs.WorkloadDurations[0].Expected")
	assert.Empty(t, m.byName())

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
	res := m.byName()

	assert.Equal(t, AlertRulesType, res["alerts"].typ)
	stack := res["alerts-rulegroup"]
	assert.Equal(t, "azure-native:resources/v20240301:DeploymentStackAtResourceGroup", stack.typ)
	assert.Equal(t, "rg-aksml", stack.inputs["resourceGroupName"])
	assert.Equal(t, "aks-ml", path(t, stack.inputs, "parameters", "clusterName", "value"))
	assert.Equal(t, "westeurope", path(t, stack.inputs, "parameters", "location", "value"))
	assert.NotContains(t, stack.inputs["parameters"], "clusterResourceId")
	assert.Equal(t, testWorkspaceID, path(t, stack.inputs, "parameters", "azureMonitorWorkspaceId", "value"), "the configured workspace")

	group := path(t, stack.inputs, "template", "resources", 0)
	assert.Equal(t, "Microsoft.AlertsManagement/prometheusRuleGroups", path(t, group, "type"))
	assert.Equal(t, "2023-03-01", path(t, group, "apiVersion"))
	assert.Equal(t, []any{"[parameters('azureMonitorWorkspaceId')]"}, path(t, group, "properties", "scopes"))
	assert.Equal(t, "PT1M", path(t, group, "properties", "interval"))
	var overdue map[string]any
	for _, r := range path(t, group, "properties", "rules").([]any) {
		if path(t, r, "alert") == "TrainingCheckpointOverdue" {
			overdue = r.(map[string]any)
		}
	}
	require.NotNil(t, overdue)
	assert.Contains(t, overdue["expression"], `{namespace=~"team-a"}) > 3600`)
	assert.Equal(t, float64(1), overdue["severity"])
	assert.Equal(t, testActionGroupID, path(t, overdue, "actions", 0, "actionGroupId"))

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
	stack := m.byName()["alerts-rulegroup"]
	assert.Equal(t, testWorkspaceID, path(t, stack.inputs, "parameters", "azureMonitorWorkspaceId", "value"), "the workspace AzureMonitor created")
	assert.Equal(t, "/subscriptions/s/resourceGroups/rg-aksml/providers/Microsoft.ContainerService/managedClusters/aks-ml",
		path(t, stack.inputs, "parameters", "clusterResourceId", "value"))
	assert.Equal(t, []any{"[parameters('azureMonitorWorkspaceId')]", "[parameters('clusterResourceId')]"},
		path(t, stack.inputs, "template", "resources", 0, "properties", "scopes"))
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
	assert.Empty(t, m.byName())

	_, err = run(t, func(ctx *pulumi.Context) error {
		_, err := NewAlertRules(ctx, "alerts", &AlertRulesArgs{
			ResourceGroupName: pulumi.String("rg"), Location: pulumi.String("westeurope"), ClusterName: pulumi.String("aks"),
		})
		return err
	})
	require.ErrorContains(t, err, "aksml:observability.prometheusRuleGroups: is false")
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
	res := m.byName()
	assert.NotContains(t, res, "obs-dcgm")
	assert.NotContains(t, res, "obs-managed-dcgm")
	assert.Empty(t, name)
	assert.Contains(t, res, "obs-training", "the training monitor does not depend on the GPU stack")
}
