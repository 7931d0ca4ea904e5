package observability

import (
	"fmt"
	"strings"
	"time"
)

// Severity is how urgent an alert is. It becomes the `severity` label and,
// in Azure Monitor, the alert severity (see AzureSeverity).
type Severity string

// Valid severities.
const (
	// SeverityCritical needs action now: a broken GPU, a failed or stuck
	// job, or training that could not be recovered within the RPO.
	SeverityCritical Severity = "critical"
	// SeverityWarning needs attention during working hours: waste or
	// capacity problems.
	SeverityWarning Severity = "warning"
)

// AzureSeverity is the Azure Monitor severity (0 Critical .. 4 Verbose):
// critical is Sev1 (Error) and warning Sev2 (Warning). Sev0 is left for
// platform-wide outages, which none of these rules detects.
func (s Severity) AzureSeverity() int {
	if s == SeverityCritical {
		return 1
	}
	return 2
}

// Rule is one alerting rule, delivered unchanged as an Azure Monitor rule
// group rule or a PrometheusRule rule.
type Rule struct {
	// Alert is the alert name.
	Alert string
	// Expr is the PromQL expression; every series it returns is an alert.
	Expr string
	// For is how long Expr must hold before the alert fires; 0 fires at
	// once.
	For time.Duration
	// Severity is critical or warning.
	Severity Severity
	// Summary is the one-line annotation.
	Summary string
	// Description says what is wrong and what to do.
	Description string
}

// Rules returns the alert rules for a defaulted Spec (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops): "alert on sustained GPU under-utilization, GPU memory near capacity, XID errors, stalled training throughput, failed jobs, pending gang-scheduled workloads and checkpoints not completed within the recovery-point objective"). teamNamespaces, when set, limits the job, pod and training
// rules to those namespaces; GPU and Kueue rules are cluster-wide.
func Rules(s Spec, teamNamespaces []string) []Rule {
	ns := namespaceMatcher(teamNamespaces)
	rpo := s.RPODuration()
	return []Rule{
		{
			Alert: "GPUUnderutilized",
			Expr: fmt.Sprintf("avg by (Hostname, node, gpu, namespace, pod) (avg_over_time(%s[%s])) < %d",
				MetricGPUUtil, promDuration(GPUIdleWindow), s.GPUIdleThresholdPercent),
			For:      15 * time.Minute,
			Severity: SeverityWarning,
			Summary:  "GPU {{ $labels.gpu }} on {{ $labels.Hostname }}{{ $labels.node }} averaged under " + fmt.Sprint(s.GPUIdleThresholdPercent) + "% utilisation for 30 minutes",
			Description: "The GPU is allocated or running but mostly idle, which is paid-for capacity doing nothing. " +
				"If ml_training_data_wait_seconds is high, the input pipeline (storage, network, preprocessing, CPU) is the bottleneck: add data loader workers or cache data closer to the node. " +
				"Otherwise shrink the job's GPU request, queue it differently, or move it to a MIG partition; stop idle notebooks or servers holding the GPU.",
		},
		{
			Alert: "GPUMemoryNearCapacity",
			Expr: fmt.Sprintf("100 * %s / (%s + %s) > %d",
				MetricFBUsed, MetricFBUsed, MetricFBFree, s.GPUMemoryThresholdPercent),
			For:      15 * time.Minute,
			Severity: SeverityWarning,
			Summary:  "GPU {{ $labels.gpu }} framebuffer is {{ $value }}% used",
			Description: "GPU memory has stayed above " + fmt.Sprint(s.GPUMemoryThresholdPercent) + "% for 15 minutes; the next larger batch or sequence will fail with CUDA out-of-memory. " +
				"Reduce the batch size or sequence length, enable activation checkpointing or mixed precision, shard optimizer state, or move the job to a GPU with more memory.",
		},
		{
			Alert:    "GPUXIDError",
			Expr:     MetricXIDErrors + " > 0",
			Severity: SeverityCritical,
			Summary:  "GPU {{ $labels.gpu }} on {{ $labels.Hostname }}{{ $labels.node }} reported XID error {{ $value }}",
			Description: "The NVIDIA driver reported an XID error, a GPU hardware, driver or application fault. " +
				"Look the code up in NVIDIA's XID catalogue; for hardware XIDs (e.g. 48, 63, 64, 74, 79, 94, 95) cordon and drain the node and let the autoscaler replace it, " +
				"then check that the affected job resumed from its last checkpoint.",
		},
		{
			Alert: "TrainingThroughputStalled",
			Expr: fmt.Sprintf("sum by (namespace, job_name) (rate(%s%s[%s])) == 0",
				MetricSamplesTotal, ns, promDuration(ThroughputWindow)),
			For:      10 * time.Minute,
			Severity: SeverityCritical,
			Summary:  "Training job {{ $labels.namespace }}/{{ $labels.job_name }} has processed no samples for 20 minutes",
			Description: "The job is running and scraped but ml_training_samples_total is not increasing, so its GPUs are paid for without progress. " +
				"Check the pod logs for a hung collective (NCCL timeout), a deadlocked data loader or a storage mount that stopped responding; " +
				"delete the stuck pod so the job restarts from its last checkpoint.",
		},
		{
			Alert: "TrainingCheckpointOverdue",
			Expr: fmt.Sprintf("time() - max by (namespace, job_name) (%s%s) > %d",
				MetricLastCheckpointTimestamp, ns, int64(rpo/time.Second)),
			For:      5 * time.Minute,
			Severity: SeverityCritical,
			Summary:  "Training job {{ $labels.namespace }}/{{ $labels.job_name }} has no checkpoint within the " + s.RPO + " recovery-point objective",
			Description: "The last successful checkpoint is older than the recovery-point objective, so a preemption or node failure now loses more work than allowed. " +
				"Check that the checkpoint volume is mounted and writable and not full, look for checkpoint errors in the logs, and shorten the checkpoint interval if steps got slower.",
		},
		{
			Alert:    "JobFailed",
			Expr:     fmt.Sprintf(`kube_job_failed%s > 0`, withMatchers(`condition="true"`, teamNamespaces)),
			Severity: SeverityCritical,
			Summary:  "Job {{ $labels.namespace }}/{{ $labels.job_name }} failed",
			Description: "The Job reached its Failed condition: backoffLimit, activeDeadlineSeconds or a FailJob podFailurePolicy rule ended it. " +
				"Read `kubectl describe job` and the logs of its last pod; fix the cause, then resubmit so it resumes from the latest checkpoint.",
		},
		{
			Alert:    "GangWorkloadsPending",
			Expr:     "sum by (cluster_queue) (kueue_pending_workloads) > 0",
			For:      PendingFor,
			Severity: SeverityWarning,
			Summary:  "Kueue ClusterQueue {{ $labels.cluster_queue }} has had pending workloads for 30 minutes",
			Description: "Gang-scheduled workloads are waiting for quota or capacity. " +
				"Check `kubectl get workloads -A` for the reason; raise the ClusterQueue's nvidia.com/gpu quota or the GPU pool's maxCount, allow borrowing in the cohort, or lower the request.",
		},
		{
			Alert:    "PodsPending",
			Expr:     fmt.Sprintf(`sum by (namespace, pod) (kube_pod_status_phase%s) > 0`, withMatchers(`phase="Pending"`, teamNamespaces)),
			For:      PendingFor,
			Severity: SeverityWarning,
			Summary:  "Pod {{ $labels.namespace }}/{{ $labels.pod }} has been Pending for 30 minutes",
			Description: "The pod was admitted but cannot be scheduled. " +
				"Read its events: missing GPU toleration or node selector, the autoscaler hitting maxCount, regional GPU quota or spot capacity exhausted, or an unbound volume.",
		},
	}
}

// namespaceMatcher returns the label matcher `{namespace=~"a|b"}` for the
// team namespaces, or "" when there are none.
func namespaceMatcher(teamNamespaces []string) string {
	if len(teamNamespaces) == 0 {
		return ""
	}
	return "{" + namespaceRegexMatcher(teamNamespaces) + "}"
}

// withMatchers returns `{<matcher>[,namespace=~"a|b"]}`.
func withMatchers(matcher string, teamNamespaces []string) string {
	if len(teamNamespaces) == 0 {
		return "{" + matcher + "}"
	}
	return "{" + matcher + "," + namespaceRegexMatcher(teamNamespaces) + "}"
}

// namespaceRegexMatcher returns `namespace=~"a|b"`; namespace names are
// DNS labels, which contain no regex metacharacters.
func namespaceRegexMatcher(teamNamespaces []string) string {
	return fmt.Sprintf(`namespace=~"%s"`, strings.Join(teamNamespaces, "|"))
}

// promDuration renders d the way Prometheus writes durations: "30m", "1h30m".
func promDuration(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	var b strings.Builder
	h, m, s := d/time.Hour, (d%time.Hour)/time.Minute, (d%time.Minute)/time.Second
	if h > 0 {
		fmt.Fprintf(&b, "%dh", h)
	}
	if m > 0 {
		fmt.Fprintf(&b, "%dm", m)
	}
	if s > 0 {
		fmt.Fprintf(&b, "%ds", s)
	}
	return b.String()
}

// isoDuration renders d as an ISO 8601 duration: "PT30M", "PT1H30M".
func isoDuration(d time.Duration) string {
	var b strings.Builder
	b.WriteString("PT")
	h, m, s := d/time.Hour, (d%time.Hour)/time.Minute, (d%time.Minute)/time.Second
	if h > 0 {
		fmt.Fprintf(&b, "%dH", h)
	}
	if m > 0 {
		fmt.Fprintf(&b, "%dM", m)
	}
	if s > 0 || d == 0 {
		fmt.Fprintf(&b, "%dS", s)
	}
	return b.String()
}

// prometheusRuleSpec is the spec of a monitoring.coreos.com/v1
// PrometheusRule holding rules as one group.
func prometheusRuleSpec(rules []Rule) map[string]any {
	out := make([]any, 0, len(rules))
	for _, r := range rules {
		rule := map[string]any{
			"alert":  r.Alert,
			"expr":   r.Expr,
			"labels": map[string]any{"severity": string(r.Severity)},
			"annotations": map[string]any{
				"summary":     r.Summary,
				"description": r.Description,
			},
		}
		if r.For > 0 {
			rule["for"] = promDuration(r.For)
		}
		out = append(out, rule)
	}
	return map[string]any{
		"groups": []any{map[string]any{
			"name":     RuleGroupName,
			"interval": promDuration(RuleGroupInterval),
			"rules":    out,
		}},
	}
}

// azureRules renders rules as the `rules` of a managed Prometheus rule group
// (Microsoft.AlertsManagement/prometheusRuleGroups@2023-03-01).
func azureRules(rules []Rule, actionGroupIDs []string) []any {
	out := make([]any, 0, len(rules))
	for _, r := range rules {
		rule := map[string]any{
			"alert":      r.Alert,
			"expression": r.Expr,
			"enabled":    true,
			"severity":   r.Severity.AzureSeverity(),
			"labels":     map[string]any{"severity": string(r.Severity)},
			"annotations": map[string]any{
				"summary":     r.Summary,
				"description": r.Description,
			},
			"resolveConfiguration": map[string]any{
				"autoResolved":  true,
				"timeToResolve": isoDuration(AlertAutoResolveAfter),
			},
		}
		if r.For > 0 {
			rule["for"] = isoDuration(r.For)
		}
		if len(actionGroupIDs) > 0 {
			actions := make([]any, 0, len(actionGroupIDs))
			for _, id := range actionGroupIDs {
				actions = append(actions, map[string]any{"actionGroupId": id})
			}
			rule["actions"] = actions
		}
		out = append(out, rule)
	}
	return out
}
