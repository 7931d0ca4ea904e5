package workloads

import (
	"fmt"
	"strconv"

	batchv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/batch/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
)

// Workload kinds (the app.kubernetes.io/component label).
const (
	kindCheckpointedJob     = "checkpointed-job"
	kindIndexedJob          = "indexed-job"
	kindScheduledScoring    = "scheduled-scoring"
	kindPyTorchJob          = "pytorch-job"
	kindTFJob               = "tf-job"
	kindMIGTrial            = "mig-trial"
	kindFineTuningWorkspace = "fine-tuning-workspace"
)

// CheckpointedJobArgs describe a long-running batch/v1 Job that resumes from
// checkpoints (SPEC C7.1; AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) "Configure checkpoints, retries and termination"). The application must save progress to
// CHECKPOINT_DIR periodically and on SIGTERM, and resume from it. After a
// SIGTERM it must exit non-zero (the signal's own status, 143, will do): a pod
// that exits 0 counts as the Job's completion, while a Failed pod carrying the
// DisruptionTarget condition (eviction by a node drain, preemption, pod garbage
// collection) is ignored by the podFailurePolicy and replaced. On a spot node
// Azure gives at least 30 s between the Preempt notice and the VM's deletion
// ("Use Azure Spot Virtual Machines",
// https://learn.microsoft.com/en-us/azure/virtual-machines/spot-vms), so the
// final checkpoint must fit in that, whatever the grace period.
type CheckpointedJobArgs struct {
	Common
	// Pool is the GPU pool the Job runs on; its labels select the nodes and
	// its taints are tolerated (sku=gpu, plus the spot taint on spot
	// pools). nil runs a CPU batch Job with no GPU placement. Pools for
	// inference serving are refused.
	Pool *gpupool.Resolved
	// BackoffLimit is the number of pod failures tolerated. Default 6
	// (AKS MLOps best practices); disruptions do not count (podFailurePolicy).
	BackoffLimit int
	// ActiveDeadlineSeconds bounds the whole run, retries included.
	// Default 86400 (AKS MLOps best practices). Set it above the expected runtime plus retries.
	ActiveDeadlineSeconds int
	// TTLSecondsAfterFinished removes the finished Job. Default 86400 (AKS MLOps best practices).
	TTLSecondsAfterFinished int
	// TerminationGracePeriodSeconds is the time between SIGTERM and SIGKILL
	// to save a checkpoint. Default 120 (AKS MLOps best practices).
	TerminationGracePeriodSeconds int
	// NonRetryableExitCodes fail the Job at once instead of retrying
	// (podFailurePolicy FailJob), e.g. a configuration error's exit code.
	// Default none; 1..255.
	NonRetryableExitCodes []int
}

// Default fills unset fields with their documented defaults; name is the
// component name (the default object name).
func (a *CheckpointedJobArgs) Default(name string) {
	a.applyDefaults(name, commonDefaults{gpu: a.Pool != nil, checkpoint: true, shm: DefaultShmSize})
	a.BackoffLimit = orDefault(a.BackoffLimit, DefaultBackoffLimit)
	a.ActiveDeadlineSeconds = orDefault(a.ActiveDeadlineSeconds, DefaultActiveDeadlineSeconds)
	a.TTLSecondsAfterFinished = orDefault(a.TTLSecondsAfterFinished, DefaultTTLSecondsAfterFinished)
	a.TerminationGracePeriodSeconds = orDefault(a.TerminationGracePeriodSeconds, DefaultTerminationGracePeriodSeconds)
}

// Validate checks defaulted args and returns every problem, each naming its
// path below p.
func (a *CheckpointedJobArgs) Validate(p field.Path) field.ErrorList {
	errs := a.validate(p, a.Pool != nil, 63)
	if a.CheckpointPVC == "" {
		errs = append(errs, field.Required(p.Child("checkpointPVC"), "the claim checkpoints are saved to (e.g. \"model-checkpoints\"); without it every eviction loses the Job's progress"))
	}
	errs = append(errs, validateGPUPlacement(a.Pool, a.Resources, 1, p)...)
	errs = append(errs, validateJobLifecycle(a.BackoffLimit, a.ActiveDeadlineSeconds, a.TTLSecondsAfterFinished, a.TerminationGracePeriodSeconds, p)...)
	errs = append(errs, validateExitCodes(a.NonRetryableExitCodes, p.Child("nonRetryableExitCodes"))...)
	return errs
}

// validateGPUPlacement checks a workload that runs either on a GPU pool
// (with at least one GPU) or on CPU nodes (with none); parallel pods run at
// once.
func validateGPUPlacement(pool *gpupool.Resolved, r Resources, parallel int, p field.Path) field.ErrorList {
	if pool == nil {
		if r.GPUs > 0 {
			return field.ErrorList{field.Required(p.Child("pool"), "the GPU pool to run on when resources.gpus > 0")}
		}
		return nil
	}
	errs := validateTrainingPool(pool, p.Child("pool"))
	if r.GPUs == 0 {
		errs = append(errs, field.Invalid(p.Child("resources").Child("gpus"), "0 GPUs on GPU pool %q would hold a GPU node without using it; request at least 1 GPU, or remove pool to run on CPU nodes", pool.Name))
	}
	errs = append(errs, validateGang(pool, parallel*r.GPUs, fmt.Sprintf("%d pods × %d GPUs", parallel, r.GPUs), p.Child("resources").Child("gpus"))...)
	return append(errs, validateFit(pool, r, p.Child("resources"))...)
}

// validateJobLifecycle checks the defaulted retry, deadline, cleanup and
// grace settings of a Job.
func validateJobLifecycle(backoff, deadline, ttl, grace int, p field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validatePositive(backoff, p.Child("backoffLimit"))...)
	errs = append(errs, validatePositive(deadline, p.Child("activeDeadlineSeconds"))...)
	errs = append(errs, validatePositive(ttl, p.Child("ttlSecondsAfterFinished"))...)
	errs = append(errs, validatePositive(grace, p.Child("terminationGracePeriodSeconds"))...)
	return errs
}

// orDefault returns v, or def when v is 0.
func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// volcanoJobAnnotations are the Job annotations Volcano's PodGroup
// controller reads: the queue and the group's minimum member count.
func volcanoJobAnnotations(c *Common, minMember int) map[string]string {
	if c.Scheduler != SchedulerVolcano {
		return nil
	}
	return map[string]string{
		VolcanoQueueAnnotation:     c.QueueName,
		VolcanoMinMemberAnnotation: strconv.Itoa(minMember),
	}
}

// checkpointedJobArgs maps defaulted args to the Job's provider arguments.
func checkpointedJobArgs(a *CheckpointedJobArgs) *batchv1.JobArgs {
	c := &a.Common
	ps := podSpec{
		common:    c,
		kind:      kindCheckpointedJob,
		container: "trainer",
		resources: a.Resources,
	}
	if a.Pool != nil {
		ps = gpuPodSpec(ps, a.Pool, a.Resources.GPUs)
	}
	run := jobRun{a.BackoffLimit, a.ActiveDeadlineSeconds, a.TTLSecondsAfterFinished, a.TerminationGracePeriodSeconds, a.NonRetryableExitCodes}
	return batchJobArgs(c, kindCheckpointedJob, nil, 1, batchJob(ps, run, actionFailJob))
}

// CheckpointedJob is a checkpointed batch/v1 Job. No PodDisruptionBudget is
// created: the Job controller replaces a disrupted pod and the pod resumes
// from its checkpoint, while a PDB would only block node drains and AKS
// upgrades (AKS MLOps best practices "Plan for node evictions and maintenance").
type CheckpointedJob struct {
	pulumi.ResourceState
	// Object is the Job's name and namespace.
	Object
}

var checkpointedJobKind = kind[CheckpointedJobArgs, *CheckpointedJobArgs]{
	token: CheckpointedJobType, what: "CheckpointedJobArgs", children: jobChildren(checkpointedJobArgs),
}

// NewCheckpointedJob registers a CheckpointedJob (token
// aksml:workloads:CheckpointedJob) and its Job child `name-job`.
func NewCheckpointedJob(ctx *pulumi.Context, name string, args *CheckpointedJobArgs, opts ...pulumi.ResourceOption) (*CheckpointedJob, error) {
	return newWorkload(ctx, checkpointedJobKind, name, args, &CheckpointedJob{}, opts)
}

func (a *CheckpointedJobArgs) targetPool() *gpupool.Resolved { return a.Pool }
