package workloads

import (
	"sort"

	batchv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/batch/v1"
	corev1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/core/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Pod failure policy actions (batch/v1).
const (
	actionIgnore    = "Ignore"
	actionFailJob   = "FailJob"
	actionFailIndex = "FailIndex"
)

// jobSpec is the plain description of a batch/v1 Job spec that
// jobSpecArgs turns into provider arguments. CheckpointedJob, IndexedJob,
// MIGTrial and ScheduledScoring (as its job template) build one.
type jobSpec struct {
	// backoffLimit is the retry budget; 0 leaves it unset (Indexed Jobs
	// use backoffLimitPerIndex instead).
	backoffLimit            int
	activeDeadlineSeconds   int
	ttlSecondsAfterFinished int
	// container and failOn declare the container's non-retryable exit
	// codes; failAction is FailJob, or FailIndex for Indexed Jobs.
	container  string
	failOn     []int
	failAction string
	// indexed Jobs run completions pods with a per-index retry budget.
	indexed              bool
	completions          int
	parallelism          int
	backoffLimitPerIndex int
	maxFailedIndexes     int
	// suspend creates the Job suspended (Kueue admits it).
	suspend  bool
	template corev1.PodTemplateSpecArgs
}

// jobRun is the lifecycle every batch Job kind configures: the retry
// budget (0 for Indexed Jobs, which retry per index), the deadline, the
// cleanup delay, the grace period and the non-retryable exit codes.
type jobRun struct {
	backoffLimit, activeDeadlineSeconds, ttlSecondsAfterFinished, gracePeriod int
	failOn                                                                    []int
}

// batchJob is the Job spec the batch kinds share: the pod ps runs to
// completion (restartPolicy Never) with run's grace period and, under
// Volcano, Volcano's scheduler; run's lifecycle and exit codes (failAction
// on ps's container); created suspended when Kueue admits it.
func batchJob(ps podSpec, run jobRun, failAction string) jobSpec {
	ps.restartPolicy = "Never"
	ps.gracePeriod = run.gracePeriod
	ps = volcanoPodSpec(ps)
	return jobSpec{
		backoffLimit:            run.backoffLimit,
		activeDeadlineSeconds:   run.activeDeadlineSeconds,
		ttlSecondsAfterFinished: run.ttlSecondsAfterFinished,
		container:               ps.container,
		failOn:                  run.failOn,
		failAction:              failAction,
		suspend:                 ps.common.Scheduler == SchedulerKueue,
		template:                podTemplate(ps),
	}
}

// batchJobArgs are the provider arguments of a batch kind's Job of kind k:
// its labels (the kind's, extra, and the queue's), the await annotations
// and Volcano's queue and minimum member count, and spec js.
func batchJobArgs(c *Common, k string, extra map[string]string, minMember int, js jobSpec) *batchv1.JobArgs {
	return &batchv1.JobArgs{
		Metadata: objectMeta(c, merge(objectLabels(c, k), extra, queueLabels(c)), merge(awaitAnnotations(c), volcanoJobAnnotations(c, minMember))),
		Spec:     jobSpecArgs(js),
	}
}

// podFailurePolicy ignores disruptions (preemption, eviction, node drain:
// the DisruptionTarget condition) so that they do not use up the retry
// budget, and fails at once on the declared non-retryable exit codes
// (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) "Retry limits").
func podFailurePolicy(j jobSpec) batchv1.PodFailurePolicyArgs {
	rules := batchv1.PodFailurePolicyRuleArray{
		batchv1.PodFailurePolicyRuleArgs{
			Action: pulumi.String(actionIgnore),
			OnPodConditions: batchv1.PodFailurePolicyOnPodConditionsPatternArray{
				batchv1.PodFailurePolicyOnPodConditionsPatternArgs{Type: pulumi.String("DisruptionTarget")},
			},
		},
	}
	if len(j.failOn) > 0 {
		rules = append(rules, batchv1.PodFailurePolicyRuleArgs{
			Action: pulumi.String(j.failAction),
			OnExitCodes: batchv1.PodFailurePolicyOnExitCodesRequirementArgs{
				ContainerName: pulumi.String(j.container),
				Operator:      pulumi.String("In"),
				Values:        pulumi.ToIntArray(sortedCodes(j.failOn)),
			},
		})
	}
	return batchv1.PodFailurePolicyArgs{Rules: rules}
}

// sortedCodes returns codes sorted, as the API requires.
func sortedCodes(codes []int) []int {
	out := append([]int(nil), codes...)
	sort.Ints(out)
	return out
}

// jobSpecArgs builds the provider arguments of a Job spec.
func jobSpecArgs(j jobSpec) batchv1.JobSpecArgs {
	s := batchv1.JobSpecArgs{
		ActiveDeadlineSeconds:   pulumi.Int(j.activeDeadlineSeconds),
		TtlSecondsAfterFinished: pulumi.Int(j.ttlSecondsAfterFinished),
		PodFailurePolicy:        podFailurePolicy(j),
		Template:                j.template,
	}
	if j.backoffLimit > 0 {
		s.BackoffLimit = pulumi.Int(j.backoffLimit)
	}
	if j.indexed {
		s.CompletionMode = pulumi.String("Indexed")
		s.Completions = pulumi.Int(j.completions)
		s.Parallelism = pulumi.Int(j.parallelism)
		s.BackoffLimitPerIndex = pulumi.Int(j.backoffLimitPerIndex)
		s.MaxFailedIndexes = pulumi.Int(j.maxFailedIndexes)
	}
	if j.suspend {
		s.Suspend = pulumi.Bool(true)
	}
	return s
}
