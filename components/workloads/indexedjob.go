package workloads

import (
	"strconv"

	batchv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/batch/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
)

// IndexedJobArgs describe an Indexed batch/v1 Job over a sharded dataset
// (SPEC C7.2; AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) "Share training data with Azure Files"). Each pod gets a deterministic shard: SHARD_INDEX (its completion
// index), SHARD_COUNT and, when set, SHARD_MANIFEST, so that no worker has
// to list a directory of millions of files to find its objects.
type IndexedJobArgs struct {
	Common
	// Pool is the GPU pool the workers run on; nil runs CPU workers.
	Pool *gpupool.Resolved
	// Completions is the number of shards (one pod per index). Required,
	// 1..100000.
	Completions int
	// Parallelism is how many shards run at once. Default Completions.
	Parallelism int
	// BackoffLimitPerIndex is the retry budget of each shard. Default 2 (AKS MLOps best practices).
	BackoffLimitPerIndex int
	// MaxFailedIndexes is how many shards may fail before the Job fails.
	// Default 0: one shard that used up its retries fails the Job.
	MaxFailedIndexes int
	// ActiveDeadlineSeconds bounds the whole run. Default 86400.
	ActiveDeadlineSeconds int
	// TTLSecondsAfterFinished removes the finished Job. Default 86400.
	TTLSecondsAfterFinished int
	// TerminationGracePeriodSeconds is the SIGTERM-to-SIGKILL time. Default 120.
	TerminationGracePeriodSeconds int
	// NonRetryableExitCodes fail the shard at once (podFailurePolicy
	// FailIndex). Default none; 1..255.
	NonRetryableExitCodes []int
	// ShardManifest is the absolute path, inside the pod, of the manifest
	// that maps shard indexes to objects (e.g. /data/manifests/shards.txt).
	// Optional; passed in SHARD_MANIFEST.
	ShardManifest string
}

// Default fills unset fields with their documented defaults.
func (a *IndexedJobArgs) Default(name string) {
	a.applyDefaults(name, commonDefaults{gpu: a.Pool != nil, checkpoint: true, shm: DefaultShmSize})
	a.Parallelism = orDefault(a.Parallelism, a.Completions)
	a.BackoffLimitPerIndex = orDefault(a.BackoffLimitPerIndex, DefaultBackoffLimitPerIndex)
	a.ActiveDeadlineSeconds = orDefault(a.ActiveDeadlineSeconds, DefaultActiveDeadlineSeconds)
	a.TTLSecondsAfterFinished = orDefault(a.TTLSecondsAfterFinished, DefaultTTLSecondsAfterFinished)
	a.TerminationGracePeriodSeconds = orDefault(a.TerminationGracePeriodSeconds, DefaultTerminationGracePeriodSeconds)
}

// Validate checks defaulted args and returns every problem.
func (a *IndexedJobArgs) Validate(p field.Path) field.ErrorList {
	// Pods are named <job>-<index>-<suffix>; their hostname <job>-<index>
	// must stay a DNS label.
	maxName := 63 - 1 - len(strconv.Itoa(max(a.Completions-1, 0)))
	errs := a.validate(p, a.Pool != nil, maxName)
	errs = append(errs, validateGPUPlacement(a.Pool, a.Resources, a.Parallelism, p)...)
	if a.Completions < 1 || a.Completions > MaxIndexedCompletions {
		errs = append(errs, field.Invalid(p.Child("completions"), "%d is out of range; use 1..%d shards", a.Completions, MaxIndexedCompletions))
	}
	if a.Parallelism < 1 || (a.Completions >= 1 && a.Parallelism > a.Completions) {
		errs = append(errs, field.Invalid(p.Child("parallelism"), "%d is out of range; run 1..completions (%d) shards at once", a.Parallelism, a.Completions))
	}
	if a.Pool != nil && a.Parallelism > 1 && a.ShmSize == ShmDisabled {
		errs = append(errs, field.Invalid(p.Child("shmSize"), "parallel GPU workers need a memory-backed /dev/shm for data loaders (AKS MLOps best practices; guardrail AKSML-POD-008); set a size such as 8Gi"))
	}
	errs = append(errs, validatePositive(a.BackoffLimitPerIndex, p.Child("backoffLimitPerIndex"))...)
	if a.MaxFailedIndexes < 0 || (a.Completions >= 1 && a.MaxFailedIndexes > a.Completions) {
		errs = append(errs, field.Invalid(p.Child("maxFailedIndexes"), "%d is out of range; use 0..completions (%d)", a.MaxFailedIndexes, a.Completions))
	}
	errs = append(errs, validatePositive(a.ActiveDeadlineSeconds, p.Child("activeDeadlineSeconds"))...)
	errs = append(errs, validatePositive(a.TTLSecondsAfterFinished, p.Child("ttlSecondsAfterFinished"))...)
	errs = append(errs, validatePositive(a.TerminationGracePeriodSeconds, p.Child("terminationGracePeriodSeconds"))...)
	errs = append(errs, validateExitCodes(a.NonRetryableExitCodes, p.Child("nonRetryableExitCodes"))...)
	if a.ShardManifest != "" {
		errs = append(errs, validateMountPath(a.ShardManifest, p.Child("shardManifest"))...)
	}
	return errs
}

// shardEnv is the deterministic shard assignment of an Indexed Job pod.
func shardEnv(completions int, manifest string) []envVar {
	env := []envVar{
		{name: EnvShardIndex, fieldPath: "metadata.annotations['" + JobCompletionIndexAnnotation + "']"},
		{name: EnvShardCount, value: strconv.Itoa(completions)},
	}
	if manifest != "" {
		env = append(env, envVar{name: EnvShardManifest, value: manifest})
	}
	return env
}

// indexedJobArgs maps defaulted args to the Job's provider arguments.
func indexedJobArgs(a *IndexedJobArgs) *batchv1.JobArgs {
	c := &a.Common
	ps := podSpec{
		common:    c,
		kind:      kindIndexedJob,
		container: "worker",
		resources: a.Resources,
		env:       shardEnv(a.Completions, a.ShardManifest),
	}
	if a.Pool != nil {
		ps = gpuPodSpec(ps, a.Pool, a.Resources.GPUs)
	}
	js := batchJob(ps, jobRun{0, a.ActiveDeadlineSeconds, a.TTLSecondsAfterFinished, a.TerminationGracePeriodSeconds, a.NonRetryableExitCodes}, actionFailIndex)
	js.indexed, js.completions, js.parallelism = true, a.Completions, a.Parallelism
	js.backoffLimitPerIndex, js.maxFailedIndexes = a.BackoffLimitPerIndex, a.MaxFailedIndexes
	return batchJobArgs(c, kindIndexedJob, nil, a.Parallelism, js)
}

// IndexedJob is an Indexed batch/v1 Job over shards. Like every restartable
// batch Job it gets no PodDisruptionBudget (AKS MLOps best practices).
type IndexedJob struct {
	pulumi.ResourceState
	// Object is the Job's name and namespace.
	Object
}

var indexedJobKind = kind[IndexedJobArgs, *IndexedJobArgs]{
	token: IndexedJobType, what: "IndexedJobArgs", children: jobChildren(indexedJobArgs),
}

// NewIndexedJob registers an IndexedJob (token aksml:workloads:IndexedJob)
// and its Job child `name-job`.
func NewIndexedJob(ctx *pulumi.Context, name string, args *IndexedJobArgs, opts ...pulumi.ResourceOption) (*IndexedJob, error) {
	return newWorkload(ctx, indexedJobKind, name, args, &IndexedJob{}, opts)
}

func (a *IndexedJobArgs) targetPool() *gpupool.Resolved { return a.Pool }
