package observability

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/aksml/aksml/components/field"
)

func defaultSpec() Spec {
	var s Spec
	s.Default()
	return s
}

func rulesByName(rules []Rule) map[string]Rule {
	out := map[string]Rule{}
	for _, r := range rules {
		out[r.Alert] = r
	}
	return out
}

func TestRulesCoverTheBestPracticeAlerts(t *testing.T) {
	rules := rulesByName(Rules(defaultSpec(), nil))
	tests := []struct {
		alert    string
		contains []string
		forDur   time.Duration
		severity Severity
	}{
		{"GPUUnderutilized", []string{"avg_over_time(DCGM_FI_DEV_GPU_UTIL[30m])", "< 20"}, 15 * time.Minute, SeverityWarning},
		{"GPUMemoryNearCapacity", []string{"100 * DCGM_FI_DEV_FB_USED / (DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE) > 90"}, 15 * time.Minute, SeverityWarning},
		{"GPUXIDError", []string{"DCGM_FI_DEV_XID_ERRORS > 0"}, 0, SeverityCritical},
		{"TrainingThroughputStalled", []string{"rate(ml_training_samples_total[10m])", "== 0"}, 10 * time.Minute, SeverityCritical},
		{"TrainingCheckpointOverdue", []string{"time() - max by (namespace, job_name) (ml_training_last_checkpoint_timestamp_seconds) > 1800"}, 5 * time.Minute, SeverityCritical},
		{"JobFailed", []string{`kube_job_failed{condition="true"} > 0`}, 0, SeverityCritical},
		{"GangWorkloadsPending", []string{"kueue_pending_workloads", "> 0"}, 30 * time.Minute, SeverityWarning},
		{"PodsPending", []string{`kube_pod_status_phase{phase="Pending"}`, "> 0"}, 30 * time.Minute, SeverityWarning},
		{"JobPodsReplacedRepeatedly", []string{"sum by (namespace, job_name) (increase(kube_job_status_failed[1h])) >= 3"}, 0, SeverityWarning},
		{"ContainersRestartingRepeatedly", []string{"sum by (namespace, pod) (increase(kube_pod_container_status_restarts_total[1h])) >= 3"}, 0, SeverityWarning},
		{"GPUNodeUnhealthy", []string{`max by (node, condition) (kube_node_status_condition{condition=~"UnhealthyNvidiaDevicePlugin|UnhealthyNvidiaDCGMServices",status="true"}) == 1`}, 5 * time.Minute, SeverityCritical},
	}
	require.Len(t, rules, len(tests), "every rule is asserted")
	for _, tc := range tests {
		t.Run(tc.alert, func(t *testing.T) {
			r, ok := rules[tc.alert]
			require.True(t, ok)
			for _, c := range tc.contains {
				assert.Contains(t, r.Expr, c)
			}
			assert.Equal(t, tc.forDur, r.For)
			assert.Equal(t, tc.severity, r.Severity)
			assert.NotEmpty(t, r.Summary)
			assert.Greater(t, len(r.Description), 80, "the description says what to do")
		})
	}
}

func TestRulesFollowSpecAndNamespaces(t *testing.T) {
	s := defaultSpec()
	s.RPO = "2h"
	s.GPUIdleThresholdPercent = 35
	s.GPUMemoryThresholdPercent = 95
	rules := rulesByName(Rules(s, []string{"team-a", "team-b"}))

	assert.Contains(t, rules["GPUUnderutilized"].Expr, "< 35")
	assert.Contains(t, rules["GPUMemoryNearCapacity"].Expr, "> 95")
	assert.Contains(t, rules["TrainingCheckpointOverdue"].Expr, `ml_training_last_checkpoint_timestamp_seconds{namespace=~"team-a|team-b"}) > 7200`)
	assert.Contains(t, rules["TrainingCheckpointOverdue"].Summary, "2h recovery-point objective")
	assert.Contains(t, rules["TrainingThroughputStalled"].Expr, `ml_training_samples_total{namespace=~"team-a|team-b"}[10m]`)
	assert.Contains(t, rules["JobFailed"].Expr, `kube_job_failed{condition="true",namespace=~"team-a|team-b"} > 0`)
	assert.Contains(t, rules["PodsPending"].Expr, `kube_pod_status_phase{phase="Pending",namespace=~"team-a|team-b"}`)
	assert.NotContains(t, rules["GPUXIDError"].Expr, "namespace", "GPU rules are cluster-wide")
	assert.Contains(t, rules["JobPodsReplacedRepeatedly"].Expr, `kube_job_status_failed{namespace=~"team-a|team-b"}[1h]`)
	assert.Contains(t, rules["ContainersRestartingRepeatedly"].Expr, `kube_pod_container_status_restarts_total{namespace=~"team-a|team-b"}[1h]`)
	assert.NotContains(t, rules["GPUNodeUnhealthy"].Expr, "namespace", "node conditions are cluster-wide")

	s.PodReplacementThreshold = 5
	assert.Contains(t, rulesByName(Rules(s, nil))["JobPodsReplacedRepeatedly"].Expr, ">= 5")
}

func TestGangWorkloadsPendingReadsKueueMetric(t *testing.T) {
	// The metric name Kueue v0.17.0 registers (pkg/metrics: Subsystem
	// "kueue", Name "pending_workloads"); KueueServiceMonitor scrapes it.
	r := rulesByName(Rules(defaultSpec(), nil))["GangWorkloadsPending"]
	assert.Equal(t, "sum by (cluster_queue) (kueue_pending_workloads) > 0", r.Expr)
}

func TestDurationOverrunRulePerWorkload(t *testing.T) {
	rules := Rules(defaultSpec(), []string{"team-a"},
		WorkloadDuration{Namespace: "team-a", Name: "llm-pretrain", Expected: 4 * time.Hour},
		WorkloadDuration{Namespace: "team-a", Name: "nightly", CronJob: true, Expected: 90 * time.Minute},
	)
	var overrun []Rule
	for _, r := range rules {
		if r.Alert == "WorkloadDurationOverrun" {
			overrun = append(overrun, r)
		}
	}
	require.Len(t, overrun, 2, "one rule per workload, each with its own threshold")
	assert.Equal(t, `(time() - max by (namespace, job_name) (kube_job_status_start_time{namespace="team-a",job_name="llm-pretrain"})) > 14400 and on (namespace, job_name) max by (namespace, job_name) (kube_job_status_active{namespace="team-a",job_name="llm-pretrain"}) > 0`, overrun[0].Expr)
	assert.Contains(t, overrun[0].Summary, "expected 4h")
	assert.Contains(t, overrun[1].Expr, `job_name=~"nightly-[0-9]+"`)
	assert.Contains(t, overrun[1].Expr, "> 5400 and on")
	assert.Contains(t, overrun[1].Summary, "CronJob team-a/nightly")

	assert.Len(t, Rules(defaultSpec(), nil), len(rules)-2, "no durations, no overrun rules")
}

func TestValidateWorkloadDurations(t *testing.T) {
	ok := []WorkloadDuration{{Namespace: "team-a", Name: "job", Expected: time.Hour}}
	assert.Empty(t, ValidateWorkloadDurations(ok, field.NewPath("d")))

	bad := []WorkloadDuration{
		{Namespace: "Team A", Name: "job", Expected: time.Hour},
		{Namespace: "team-a", Name: "Job_1", Expected: time.Hour},
		{Namespace: "team-a", Name: "short", Expected: time.Minute},
		{Namespace: "team-a", Name: "short", Expected: time.Hour},
	}
	errs := ValidateWorkloadDurations(bad, field.NewPath("d"))
	require.Len(t, errs, 4)
	msg := errs.ToAggregate().Error()
	for _, want := range []string{"d[0].Namespace", "d[1].Name", "d[2].Expected: 1m0s is out of range; use 5m to 720h", "d[3]: team-a/short has two expected durations"} {
		assert.Contains(t, msg, want)
	}
}

func TestParseExpectedDuration(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{"4h", 4 * time.Hour, ""},
		{"90m", 90 * time.Minute, ""},
		{"four hours", 0, `"four hours" is not a duration`},
		{"1m", 0, "out of range"},
		{"800h", 0, "out of range"},
		{"90m30s", 0, "not whole minutes"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			d, errs := ParseExpectedDuration(tc.in, field.NewPath("x"))
			if tc.wantErr == "" {
				assert.Empty(t, errs)
				assert.Equal(t, tc.want, d)
				return
			}
			require.Len(t, errs, 1)
			assert.Contains(t, errs[0].Error(), tc.wantErr)
		})
	}
}

func TestDurations(t *testing.T) {
	tests := []struct {
		d         time.Duration
		prom, iso string
	}{
		{0, "0s", "PT0S"},
		{10 * time.Second, "10s", "PT10S"},
		{time.Minute, "1m", "PT1M"},
		{30 * time.Minute, "30m", "PT30M"},
		{90 * time.Minute, "1h30m", "PT1H30M"},
		{2 * time.Hour, "2h", "PT2H"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.prom, promDuration(tc.d), tc.d.String())
		assert.Equal(t, tc.iso, isoDuration(tc.d), tc.d.String())
	}
}

func TestPrometheusRuleSpec(t *testing.T) {
	spec := prometheusRuleSpec(Rules(defaultSpec(), nil))
	groups := spec["groups"].([]any)
	require.Len(t, groups, 1)
	g := groups[0].(map[string]any)
	assert.Equal(t, RuleGroupName, g["name"])
	assert.Equal(t, "1m", g["interval"])
	rules := g["rules"].([]any)
	require.Len(t, rules, len(Rules(defaultSpec(), nil)))
	byName := map[string]map[string]any{}
	for _, r := range rules {
		m := r.(map[string]any)
		byName[m["alert"].(string)] = m
	}
	assert.Equal(t, "30m", byName["GangWorkloadsPending"]["for"])
	assert.NotContains(t, byName["GPUXIDError"], "for", "an immediate alert has no for")
	assert.Equal(t, map[string]any{"severity": "critical"}, byName["GPUXIDError"]["labels"])
	assert.Contains(t, byName["JobFailed"]["annotations"].(map[string]any)["description"], "kubectl describe job")
}

func TestRuleGroupTemplate(t *testing.T) {
	s := defaultSpec()
	s.PrometheusRuleGroups = true
	s.AzureMonitorWorkspaceID = testWorkspaceID
	s.ActionGroupIDs = []string{testActionGroupID}

	tpl := RuleGroupTemplate(s, nil, false)
	assert.Equal(t, "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#", tpl["$schema"])
	res := tpl["resources"].([]map[string]any)
	require.Len(t, res, 1)
	group := res[0]
	assert.Equal(t, "Microsoft.AlertsManagement/prometheusRuleGroups", group["type"])
	assert.Equal(t, "2023-03-01", group["apiVersion"])
	assert.Equal(t, "[format('{0}-aksml-gpu-training', parameters('clusterName'))]", group["name"])
	assert.Equal(t, "[parameters('location')]", group["location"])
	props := group["properties"].(map[string]any)
	assert.Equal(t, []any{"[parameters('azureMonitorWorkspaceId')]"}, props["scopes"])
	assert.Equal(t, "[parameters('clusterName')]", props["clusterName"])
	assert.Equal(t, true, props["enabled"])
	assert.Equal(t, "PT1M", props["interval"])

	rules := props["rules"].([]any)
	require.Len(t, rules, len(Rules(s, nil)))
	byName := map[string]map[string]any{}
	for _, r := range rules {
		m := r.(map[string]any)
		byName[m["alert"].(string)] = m
		assert.Contains(t, m, "expression")
		assert.Equal(t, []any{map[string]any{"actionGroupId": testActionGroupID}}, m["actions"])
		assert.Equal(t, map[string]any{"autoResolved": true, "timeToResolve": "PT10M"}, m["resolveConfiguration"])
	}
	assert.Equal(t, "PT30M", byName["PodsPending"]["for"])
	assert.Equal(t, 2, byName["PodsPending"]["severity"])
	assert.Equal(t, 1, byName["GPUXIDError"]["severity"])
	assert.NotContains(t, byName["GPUXIDError"], "for")
	assert.Equal(t, "DCGM_FI_DEV_XID_ERRORS > 0", byName["GPUXIDError"]["expression"])

	outputs := tpl["outputs"].(map[string]any)
	assert.Equal(t, "[resourceId('Microsoft.AlertsManagement/prometheusRuleGroups', format('{0}-aksml-gpu-training', parameters('clusterName')))]",
		outputs["ruleGroupId"].(map[string]any)["value"])

	withCluster := RuleGroupTemplate(s, nil, true)["resources"].([]map[string]any)[0]["properties"].(map[string]any)
	assert.Equal(t, []any{"[parameters('azureMonitorWorkspaceId')]", "[parameters('clusterResourceId')]"}, withCluster["scopes"])

	s.ActionGroupIDs = nil
	noActions := RuleGroupTemplate(s, nil, false)["resources"].([]map[string]any)[0]["properties"].(map[string]any)["rules"].([]any)
	assert.NotContains(t, noActions[0].(map[string]any), "actions")
}

// TestTemplateStringsAreNotARMExpressions guards against a rule text that
// ARM would evaluate: a string starting with '[' is an expression.
func TestTemplateStringsAreNotARMExpressions(t *testing.T) {
	for _, r := range Rules(defaultSpec(), []string{"team-a"}) {
		for _, v := range []string{r.Expr, r.Summary, r.Description} {
			assert.False(t, strings.HasPrefix(v, "["), "%s: %q", r.Alert, v)
		}
	}
}

// relabelMatches applies a Prometheus relabel regex the way Prometheus does:
// anchored at both ends.
func relabelMatches(t *testing.T, regex, value string) bool {
	t.Helper()
	return regexp.MustCompile("^(?:" + regex + ")$").MatchString(value)
}

func TestTrainingRelabelRegexes(t *testing.T) {
	keep := TrainingMetricsRegex([]string{"ml_training_loss"})
	for _, m := range TrainingMetrics {
		assert.Contains(t, keep, m)
		assert.True(t, relabelMatches(t, keep, m), m)
	}
	for _, m := range []string{"ml_training_step_duration_seconds_bucket", "ml_training_checkpoint_duration_seconds_count", "ml_training_data_wait_seconds_sum", "ml_training_loss"} {
		assert.True(t, relabelMatches(t, keep, m), m)
	}
	for _, m := range []string{"python_gc_objects_collected_total", "process_cpu_seconds_total", "ml_training_samples_total_extra"} {
		assert.False(t, relabelMatches(t, keep, m), m)
	}

	labels := KeptLabelsRegex()
	for _, l := range append([]string{"__name__", "le", "namespace", "pod"}, StableLabels...) {
		assert.True(t, relabelMatches(t, labels, l), "%s is kept", l)
	}
	for _, l := range []string{"sample_id", "request_id", "dataset_path", "exported_job_name", "job_name_extra"} {
		assert.False(t, relabelMatches(t, labels, l), "%s is dropped", l)
	}
}

func TestManagedDCGMScrapeConfig(t *testing.T) {
	var cfg struct {
		ScrapeConfigs []struct {
			JobName             string           `yaml:"job_name"`
			ScrapeInterval      string           `yaml:"scrape_interval"`
			ScrapeTimeout       string           `yaml:"scrape_timeout"`
			HonorLabels         bool             `yaml:"honor_labels"`
			KubernetesSDConfigs []map[string]any `yaml:"kubernetes_sd_configs"`
			RelabelConfigs      []map[string]any `yaml:"relabel_configs"`
		} `yaml:"scrape_configs"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(ManagedDCGMScrapeConfig(defaultSpec())), &cfg))
	require.Len(t, cfg.ScrapeConfigs, 1)
	job := cfg.ScrapeConfigs[0]
	assert.Equal(t, "aks-managed-dcgm-exporter", job.JobName)
	assert.Equal(t, "30s", job.ScrapeInterval)
	assert.Equal(t, "10s", job.ScrapeTimeout)
	assert.True(t, job.HonorLabels)
	assert.Equal(t, []map[string]any{{"role": "node"}}, job.KubernetesSDConfigs)
	require.Len(t, job.RelabelConfigs, 3)
	assert.Equal(t, map[string]any{
		"source_labels": []any{"__meta_kubernetes_node_label_kubernetes_azure_com_dcgm_exporter"},
		"regex":         "enabled",
		"action":        "keep",
	}, job.RelabelConfigs[0])
	assert.Equal(t, "__address__", job.RelabelConfigs[1]["target_label"])
	assert.Equal(t, "${1}:19400", job.RelabelConfigs[1]["replacement"])
	assert.Equal(t, []any{"__meta_kubernetes_node_address_InternalIP"}, job.RelabelConfigs[1]["source_labels"])
}

// normalise collapses whitespace so queries compare modulo formatting.
func normalise(s string) string { return strings.Join(strings.Fields(s), " ") }

func TestDashboardJSON(t *testing.T) {
	out := DashboardJSON()
	assert.Equal(t, out, DashboardJSON(), "deterministic")

	var d struct {
		UID    string `json:"uid"`
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name, Type, Query string
			} `json:"list"`
		} `json:"templating"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &d))
	assert.Equal(t, DashboardUID, d.UID)
	require.Len(t, d.Panels, 4)
	var exprs []string
	for _, p := range d.Panels {
		require.Len(t, p.Targets, 1, p.Title)
		exprs = append(exprs, normalise(p.Targets[0].Expr))
	}
	// The AKS MLOps best practices' four queries, as printed in AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) "Create GPU and throughput dashboards".
	documented := []string{
		"avg by (namespace, pod, gpu) (\n  avg_over_time(DCGM_FI_DEV_GPU_UTIL[5m])\n)",
		"100 *\nDCGM_FI_DEV_FB_USED\n/\n(DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE)",
		"sum by (job_name) (\n  rate(ml_training_samples_total[5m])\n)",
		"avg by (job_name) (\n  ml_training_step_duration_seconds\n)",
	}
	for i, q := range documented {
		assert.Equal(t, normalise(q), exprs[i])
	}
	require.Len(t, d.Templating.List, 1)
	assert.Equal(t, "datasource", d.Templating.List[0].Type)
	assert.Equal(t, "prometheus", d.Templating.List[0].Query)
}

// ingested reports whether the collection aksml configures on AKS ingests
// metric: the add-on's minimal kube-state-metrics profile plus the keep-list
// of the settings ConfigMap when one is created, the training PodMonitor's
// keep regex, Kueue's ServiceMonitor (kueue_.*) and the DCGM exporter
// targets, which keep every series.
func ingested(s Spec, settings map[string]string, metric string) bool {
	if slices.Contains(MinimalKubeStateMetrics, metric) || strings.HasPrefix(metric, "DCGM_FI_") || strings.HasPrefix(metric, "kueue_") {
		return true
	}
	if regexp.MustCompile("^(?:" + TrainingMetricsRegex(s.AdditionalTrainingMetrics) + ")$").MatchString(metric) {
		return true
	}
	keep := regexp.MustCompile(`kubestate = "([^"]*)"`).FindStringSubmatch(settings["default-targets-metrics-keep-list"])
	return len(keep) == 2 && keep[1] != "" && regexp.MustCompile("^(?:"+keep[1]+")$").MatchString(metric)
}

// TestEveryRuleReadsIngestedSeries: an alert on a series managed
// Prometheus never ingests can never fire (issue 27: JobPodsReplacedRepeatedly
// read kube_job_status_failed, which the minimal ingestion profile drops).
// The negative case is the collection without the settings ConfigMap.
func TestEveryRuleReadsIngestedSeries(t *testing.T) {
	s := defaultSpec()
	s.PrometheusRuleGroups = true
	require.True(t, s.CreatesManagedSettingsConfigMap())
	settings := ManagedSettingsConfigMapData()
	rules := Rules(s, []string{"team-a"}, WorkloadDuration{Namespace: "team-a", Name: "nightly", Expected: time.Hour})
	var missed []string
	for _, r := range rules {
		read := MetricsRead(r.Expr)
		require.NotEmpty(t, read, "%s reads no metric: %s", r.Alert, r.Expr)
		for _, m := range read {
			if !ingested(s, settings, m) {
				missed = append(missed, r.Alert+": "+m)
			}
			if !ingested(s, nil, m) {
				assert.Contains(t, KubeStateKeepList, m, "%s reads %s, which only the settings keep-list ingests", r.Alert, m)
			}
		}
	}
	assert.Empty(t, missed, "alerts reading series the collection does not ingest")

	assert.False(t, ingested(s, nil, MetricJobFailedPods), "without the settings ConfigMap the minimal profile drops kube_job_status_failed")
	assert.Equal(t, []string{MetricJobFailedPods}, MetricsRead(`sum by (namespace, job_name) (increase(kube_job_status_failed{namespace=~"a|b"}[1h])) >= 3`))

	off := false
	s.ManagedSettingsConfigMap = &off
	assert.False(t, s.CreatesManagedSettingsConfigMap(), "opting out leaves the cluster's own settings ConfigMap alone")
}
