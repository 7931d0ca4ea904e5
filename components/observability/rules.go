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

// WorkloadDuration is a workload's expected run time: a
// WorkloadDurationOverrun rule is rendered for it, with its own threshold.
type WorkloadDuration struct {
	// Namespace is the workload's namespace (its team's). Required.
	Namespace string
	// Name is the Job's name, or the CronJob's name when CronJob is true.
	// Required.
	Name string
	// CronJob matches the Jobs a CronJob creates (`<name>-<minutes>`)
	// instead of one Job named Name.
	CronJob bool
	// Expected is how long one run may stay active; longer raises the
	// alert. MinExpectedDuration to MaxExpectedDuration.
	Expected time.Duration
}

// Rules returns the alert rules for a defaulted Spec (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops): "alert on sustained GPU under-utilization, GPU memory near capacity, XID errors, stalled training throughput, failed jobs, pending gang-scheduled workloads and checkpoints not completed within the recovery-point objective"), the
// repeated-replacement and AKS GPU health rules, and one
// WorkloadDurationOverrun rule per entry of durations. teamNamespaces, when
// set, limits the job, pod and training rules to those namespaces; GPU,
// node and Kueue rules are cluster-wide.
func Rules(s Spec, teamNamespaces []string, durations ...WorkloadDuration) []Rule {
	rules := baseRules(s, teamNamespaces)
	rules = append(rules, replacementRules(s, teamNamespaces)...)
	rules = append(rules, gpuHealthRule())
	for _, d := range durations {
		rules = append(rules, durationOverrunRule(d))
	}
	return rules
}

// baseRules are the rules the AKS MLOps best practices name.
func baseRules(s Spec, teamNamespaces []string) []Rule {
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
			Expr:     fmt.Sprintf("sum by (cluster_queue) (%s) > 0", MetricKueuePendingWorkloads),
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

// replacementRules fire when a job's pods are replaced, or its containers
// restarted, again and again (AKS MLOps best practices: pods restarted or
// replaced repeatedly point at a crash loop, bad node or eviction storm).
// Two kube-state-metrics series cover the two ways a training pod comes
// back: kube_job_status_failed counts the failed pods the Job controller
// replaced (restartPolicy Never, as aksml's Jobs use; failures that a
// podFailurePolicy Ignore rule matches, such as spot evictions, are not
// counted by the Job controller and so not here), and
// kube_pod_container_status_restarts_total counts in-place container
// restarts (restartPolicy OnFailure, as Kubeflow PyTorchJob and TFJob
// replicas use).
func replacementRules(s Spec, teamNamespaces []string) []Rule {
	window := promDuration(ReplacementWindow)
	n := s.PodReplacementThreshold
	return []Rule{
		{
			Alert: "JobPodsReplacedRepeatedly",
			Expr: fmt.Sprintf("sum by (namespace, job_name) (increase(%s%s[%s])) >= %d",
				MetricJobFailedPods, namespaceMatcher(teamNamespaces), window, n),
			Severity: SeverityWarning,
			Summary:  "Job {{ $labels.namespace }}/{{ $labels.job_name }} had {{ $value }} failed pods replaced in the last hour",
			Description: "The Job controller keeps replacing failed pods of this job, so it burns GPU hours and backoffLimit without progress. " +
				"Read the last failed pod's logs and events (`kubectl get pods -l batch.kubernetes.io/job-name=<job>`): fix a crash (OOMKilled: raise memory or shrink the batch), " +
				"a bad node (cordon it) or a broken checkpoint restore, then resubmit.",
		},
		{
			Alert: "ContainersRestartingRepeatedly",
			Expr: fmt.Sprintf("sum by (namespace, pod) (increase(%s%s[%s])) >= %d",
				MetricContainerRestarts, namespaceMatcher(teamNamespaces), window, n),
			Severity: SeverityWarning,
			Summary:  "Pod {{ $labels.namespace }}/{{ $labels.pod }} restarted its containers {{ $value }} times in the last hour",
			Description: "A training replica is restarting in place (crash loop). Each restart reloads the last checkpoint and re-forms the NCCL group, so the job makes no progress. " +
				"Read `kubectl logs --previous` of the pod; fix the cause (out of memory, NCCL timeout, failing storage mount) or delete the job.",
		},
	}
}

// gpuHealthRule fires while an AKS-managed GPU node reports a GPU health
// condition (AKS-managed GPU nodes, https://learn.microsoft.com/azure/aks/aks-managed-gpu-nodes:
// "GPU health signals: NPD signals that surface GPU-specific node
// conditions such as UnhealthyNvidiaDevicePlugin and
// UnhealthyNvidiaDCGMServices"). kube-state-metrics exports every node
// condition as kube_node_status_condition{condition, status}; these
// conditions assert unhealthiness, so status="true" is the alarm.
func gpuHealthRule() Rule {
	return Rule{
		Alert: "GPUNodeUnhealthy",
		Expr: fmt.Sprintf(`max by (node, condition) (%s{condition=~"%s",status="true"}) == 1`,
			MetricNodeCondition, strings.Join(GPUHealthConditions, "|")),
		For:      GPUHealthFor,
		Severity: SeverityCritical,
		Summary:  "GPU node {{ $labels.node }} reports {{ $labels.condition }}",
		Description: "AKS's node problem detector reports that the NVIDIA device plugin or the DCGM services on this managed GPU node are unhealthy, so its GPUs cannot be scheduled or monitored. " +
			"Cordon and drain the node (`kubectl cordon`, `kubectl drain --ignore-daemonsets`) so the autoscaler replaces it, and check that the jobs on it resumed from their last checkpoint.",
	}
}

// durationOverrunRule fires while one run of the workload has been active
// for longer than its expected duration. It reads kube-state-metrics:
// kube_job_status_start_time is the Job's status.startTime, which the Job
// controller sets when the Job is resumed (for a Kueue-suspended Job: when
// it is admitted) and resets on every resume, so queueing time does not
// count; kube_job_status_active > 0 keeps finished Jobs out.
func durationOverrunRule(d WorkloadDuration) Rule {
	sel := fmt.Sprintf(`namespace=%q,job_name=%q`, d.Namespace, d.Name)
	what := "Job " + d.Namespace + "/" + d.Name
	if d.CronJob {
		// A CronJob names its Jobs <cronjob>-<scheduled time in minutes>;
		// Kubernetes names are DNS labels, without regex metacharacters
		// other than '-', which is literal outside brackets.
		sel = fmt.Sprintf(`namespace=%q,job_name=~"%s-[0-9]+"`, d.Namespace, d.Name)
		what = "A run of CronJob " + d.Namespace + "/" + d.Name
	}
	expected := promDuration(d.Expected)
	return Rule{
		Alert: "WorkloadDurationOverrun",
		Expr: fmt.Sprintf("(time() - max by (namespace, job_name) (%s{%s})) > %d and on (namespace, job_name) max by (namespace, job_name) (%s{%s}) > 0",
			MetricJobStartTime, sel, int64(d.Expected/time.Second), MetricJobActive, sel),
		Severity: SeverityWarning,
		Summary:  what + " ({{ $labels.job_name }}) has run longer than its expected " + expected,
		Description: "The job has been active for longer than the expectedDuration its workload declares, so it is slow, stuck or retrying. " +
			"Check TrainingThroughputStalled and the pods' logs; if the job is healthy but the estimate was wrong, raise expectedDuration.",
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
