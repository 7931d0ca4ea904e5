package rules

import (
	"fmt"
	"strings"
)

// batchJob is a batch/v1 Job, or the Job template of a CronJob.
type batchJob struct {
	// cron is true for a CronJob.
	cron bool
	// spec is the Job spec (spec, or spec.jobTemplate.spec).
	spec map[string]any
	// pod is the pod spec of the Job's template.
	pod map[string]any
	// labels are the Job's labels (for a CronJob, its job template's).
	labels map[string]string
}

// asBatchJob returns the Job spec of a Job or CronJob.
func asBatchJob(r Resource) (batchJob, bool) {
	switch {
	case isKind(r, "batch", "Job"):
		return batchJob{spec: mapOf(r.Get("spec")), pod: mapOf(r.Get("spec.template.spec")), labels: labels(r)}, true
	case isKind(r, "batch", "CronJob"):
		return batchJob{cron: true, spec: mapOf(r.Get("spec.jobTemplate.spec")), pod: mapOf(r.Get("spec.jobTemplate.spec.template.spec")),
			labels: stringMap(r.Get("spec.jobTemplate.metadata.labels"))}, true
	}
	return batchJob{}, false
}

// checkpointed reports whether the pod mounts a claim named *checkpoint*.
func checkpointed(pod map[string]any) bool {
	for _, v := range listOf(pod["volumes"]) {
		if strings.Contains(strings.ToLower(str(get(mapOf(v), "persistentVolumeClaim.claimName"))), "checkpoint") {
			return true
		}
	}
	return false
}

// perTrainingJob adapts a check over a training Job (a Job or CronJob that
// requests GPUs or mounts a checkpoint claim) to a Rule.Resource function.
func perTrainingJob(check func(r Resource, j batchJob) []string) func(Resource, *Stack) []string {
	return perResource(func(r Resource) []string {
		j, ok := asBatchJob(r)
		if !ok || !(requestsGPU(j.pod) || checkpointed(j.pod)) {
			return nil
		}
		return check(r, j)
	})
}

// requireJobField reports a missing Job field of a training Job.
func requireJobField(r Resource, set bool, field, fix string) []string {
	if set {
		return nil
	}
	return []string{fmt.Sprintf("%s is a training Job without %s; %s", describe(r), field, fix)}
}

var ruleJobBackoff = Rule{
	ID:       "AKSML-JOB-001",
	Title:    "Training Jobs set backoffLimit",
	Severity: Mandatory,
	Source:   srcMLOps + ": retry limits, set backoffLimit (checkpointed-batch: 6); SPEC C7.1",
	Resource: perTrainingJob(func(r Resource, j batchJob) []string {
		return requireJobField(r, j.spec["backoffLimit"] != nil || j.spec["backoffLimitPerIndex"] != nil, "backoffLimit",
			"set spec.backoffLimit (backoffLimitPerIndex for Indexed Jobs) to the number of transient failures the job may retry, e.g. 6")
	}),
}

var ruleJobDeadline = Rule{
	ID:       "AKSML-JOB-002",
	Title:    "Training Jobs set activeDeadlineSeconds",
	Severity: Mandatory,
	Source:   srcMLOps + ": deadlines, set activeDeadlineSeconds (checkpointed-batch: 86400); SPEC C7.1",
	Resource: perTrainingJob(func(r Resource, j batchJob) []string {
		return requireJobField(r, j.spec["activeDeadlineSeconds"] != nil, "activeDeadlineSeconds",
			"set spec.activeDeadlineSeconds above the expected run time plus retries (e.g. 86400) so that a stuck job stops holding GPUs")
	}),
}

var ruleJobTTL = Rule{
	ID:       "AKSML-JOB-003",
	Title:    "Training Jobs set ttlSecondsAfterFinished (CronJobs: or history limits)",
	Severity: Mandatory,
	Source:   srcMLOps + ": cleanup, set ttlSecondsAfterFinished or configure the CronJob history limits; SPEC C7.1",
	Resource: perTrainingJob(func(r Resource, j batchJob) []string {
		set := j.spec["ttlSecondsAfterFinished"] != nil
		if j.cron {
			set = set || (r.Get("spec.successfulJobsHistoryLimit") != nil && r.Get("spec.failedJobsHistoryLimit") != nil)
		}
		return requireJobField(r, set, "ttlSecondsAfterFinished",
			"set ttlSecondsAfterFinished (e.g. 86400, long enough to collect logs) so that finished Jobs and pods do not pile up")
	}),
}

var ruleJobGracePeriod = Rule{
	ID:       "AKSML-JOB-004",
	Title:    "Training Jobs set terminationGracePeriodSeconds",
	Severity: Mandatory,
	Source:   srcMLOps + ": graceful termination, handle SIGTERM and set terminationGracePeriodSeconds (120); SPEC C7.1",
	Resource: perTrainingJob(func(r Resource, j batchJob) []string {
		return requireJobField(r, j.pod["terminationGracePeriodSeconds"] != nil, "terminationGracePeriodSeconds",
			"set terminationGracePeriodSeconds in the pod template (e.g. 120) long enough to save a checkpoint after SIGTERM")
	}),
}

// ignoresDisruptions reports whether a Job's podFailurePolicy ignores
// DisruptionTarget failures.
func ignoresDisruptions(spec map[string]any) bool {
	for _, rule := range listOf(get(spec, "podFailurePolicy.rules")) {
		rm := mapOf(rule)
		if str(rm["action"]) != "Ignore" {
			continue
		}
		for _, cond := range listOf(rm["onPodConditions"]) {
			if str(mapOf(cond)["type"]) == "DisruptionTarget" {
				return true
			}
		}
	}
	return false
}

var ruleJobPodFailurePolicy = Rule{
	ID:       "AKSML-JOB-005",
	Title:    "Training Jobs ignore DisruptionTarget failures (podFailurePolicy, restartPolicy Never)",
	Severity: Advisory,
	Source:   srcMLOps + ": checkpointed-batch podFailurePolicy; SPEC C7.1",
	Resource: perTrainingJob(func(r Resource, j batchJob) []string {
		var out []string
		if !ignoresDisruptions(j.spec) {
			out = append(out, fmt.Sprintf("%s has no podFailurePolicy rule {action: Ignore, onPodConditions: [{type: DisruptionTarget}]}; add it so that evictions, preemption and node drains do not use up backoffLimit", describe(r)))
		}
		if rp := str(j.pod["restartPolicy"]); rp != "Never" {
			out = append(out, fmt.Sprintf("%s has restartPolicy %q; use Never so that a failed container yields a separate failed pod (podFailurePolicy requires it)", describe(r), rp))
		}
		return out
	}),
}

var ruleJobSkipAwait = Rule{
	ID:       "AKSML-JOB-006",
	Title:    "Queued, suspended and training Jobs carry pulumi.com/skipAwait: \"true\"",
	Severity: Mandatory,
	Source:   "pulumi-kubernetes waits for a Job to complete; " + srcMLOps + ": Kueue Job `suspend: true`",
	Resource: perResource(func(r Resource) []string {
		if !isKind(r, "batch", "Job") || annotations(r)[SkipAwaitAnnotation] == "true" {
			return nil
		}
		j, _ := asBatchJob(r)
		suspended, _ := boolOf(j.spec["suspend"])
		if !suspended && !queued(r) && !requestsGPU(j.pod) && !checkpointed(j.pod) {
			return nil
		}
		return []string{fmt.Sprintf("%s would make `pulumi up` wait for it to finish (hours, or until timeout while Kueue holds it suspended); annotate metadata with %s: \"true\"", describe(r), SkipAwaitAnnotation)}
	}),
}

// teamNamespaces returns the names of the namespaces labelled aksml.io/team.
func teamNamespaces(s *Stack) map[string]bool {
	out := map[string]bool{}
	for _, r := range s.Resources {
		if isKind(r, "", "Namespace") && labels(r)[TeamLabel] != "" {
			out[objName(r)] = true
		}
	}
	return out
}

// workloadLabels are the labels Kueue reads a workload's queue from.
func workloadLabels(r Resource) map[string]string {
	if j, ok := asBatchJob(r); ok {
		return j.labels
	}
	return labels(r)
}

// queued reports whether a batch workload is submitted to a queue: Kueue
// (the queue-name label) or Volcano (a Volcano Job, or pods handed to the
// volcano scheduler).
func queued(r Resource) bool {
	if workloadLabels(r)[QueueNameLabel] != "" || isKind(r, "batch.volcano.sh", "Job") {
		return true
	}
	for _, t := range podTemplates(r) {
		if str(t.spec["schedulerName"]) == VolcanoScheduler {
			return true
		}
	}
	return false
}

var ruleJobQueueLabel = Rule{
	ID:       "AKSML-JOB-007",
	Title:    "GPU jobs in team namespaces are submitted to a queue (Kueue, or Volcano where it is the scheduler)",
	Severity: Mandatory,
	Source:   srcMLOps + ", \"Allocate multi-tenant GPU quota with Kueue\" (kueue.x-k8s.io/queue-name: gpu-queue); SPEC C5.3",
	Stack: func(s *Stack) []Finding {
		teams := teamNamespaces(s)
		var out []Finding
		for _, r := range s.Resources {
			if !isBatchWorkload(r) || !teams[objNamespace(r)] || queued(r) {
				continue
			}
			for _, t := range podTemplates(r) {
				if requestsGPU(t.spec) {
					out = append(out, Finding{URN: resourceRef(r), Message: fmt.Sprintf(
						"%s requests GPUs in team namespace %s without the label %s; add %s: gpu-queue (the team's LocalQueue) so that the team's GPU quota admits it (with Volcano: schedulerName volcano and the team's queue)",
						describe(r), objNamespace(r), QueueNameLabel, QueueNameLabel)})
					break
				}
			}
		}
		return out
	},
}

var ruleJobSuspend = Rule{
	ID:       "AKSML-JOB-008",
	Title:    "Jobs submitted to Kueue are created suspended",
	Severity: Advisory,
	Source:   srcMLOps + ": Kueue Job `suspend: true`; SPEC C7.1",
	Resource: perResource(func(r Resource) []string {
		j, ok := asBatchJob(r)
		if !ok || j.labels[QueueNameLabel] == "" {
			return nil
		}
		if suspended, _ := boolOf(j.spec["suspend"]); suspended {
			return nil
		}
		return []string{fmt.Sprintf("%s names Kueue queue %q but is not created with suspend: true; set spec.suspend true so that its pods never start before Kueue admits it", describe(r), j.labels[QueueNameLabel])}
	}),
}

var ruleJobRunPolicy = Rule{
	ID:       "AKSML-JOB-009",
	Title:    "Kubeflow training jobs bound retries, run time and cleanup in runPolicy",
	Severity: Advisory,
	Source:   srcMLOps + ": batch reliability controls (backoffLimit, activeDeadlineSeconds, ttlSecondsAfterFinished) applied to PyTorchJob/TFJob runPolicy; SPEC C7.4",
	Resource: perResource(func(r Resource) []string {
		group, kind, _ := kubeKind(r)
		if group != "kubeflow.org" || replicaSpecFields[kind] == "" {
			return nil
		}
		var missing []string
		for _, f := range []string{"backoffLimit", "activeDeadlineSeconds", "ttlSecondsAfterFinished"} {
			if r.Get("spec.runPolicy."+f) == nil {
				missing = append(missing, f)
			}
		}
		if len(missing) == 0 {
			return nil
		}
		return []string{fmt.Sprintf("%s has no spec.runPolicy.%s; set them so that retries, run time and finished pods are bounded", describe(r), strings.Join(missing, ", spec.runPolicy."))}
	}),
}

var ruleJobPDB = Rule{
	ID:       "AKSML-JOB-010",
	Title:    "No PodDisruptionBudget selects the pods of a restartable batch job",
	Severity: Mandatory,
	Source:   srcMLOps + ": a restartable batch job normally gets no PodDisruptionBudget",
	Stack: func(s *Stack) []Finding {
		var out []Finding
		for _, pdb := range s.Resources {
			if !isKind(pdb, "policy", "PodDisruptionBudget") {
				continue
			}
			sel := mapOf(pdb.Get("spec.selector"))
			for _, r := range s.Resources {
				if !isBatchWorkload(r) || objNamespace(r) != objNamespace(pdb) {
					continue
				}
				for _, t := range podTemplates(r) {
					if selectorMatches(sel, t.labels) {
						out = append(out, Finding{URN: resourceRef(pdb), Message: fmt.Sprintf(
							"%s selects the pods of %s%s, a restartable batch job; delete it — the job controller replaces disrupted pods, and a PDB only blocks node drains and AKS upgrades",
							describe(pdb), describe(r), t.where())})
						break
					}
				}
			}
		}
		return out
	},
}
