package provider

import (
	"github.com/pulumi/pulumi-go-provider/infer"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/workloads"
)

// The workload kinds of components/workloads. Each Args type is the Go
// Args as plain optional values: the settings every container kind shares
// are written once, in Container (workloads.Common) and JobRun (the run
// bounds of the kinds that run to completion), and the Training Operator
// kinds' in Distributed, and embedded; infer lists their fields as each
// component's own inputs and component (construct.go) fills them. A
// gpupool.Spec stands where the Go component takes a resolved pool, and
// there is no Provider (the Kubernetes provider comes in the `providers`
// resource option). Field names are the Go ones, so assign converts them
// and the properties are named as the components' validation errors name
// them (`<name>.checkpointPVC`, `<name>.totalGPUs`); TestArgsCoverTheGoArgs
// fails when a Go field has no property. Properties without an Annotate
// description take the Go field's doc comment (see describeSchema).

// Container are the inputs of workloads.Common, embedded in the Args of
// every kind that runs aksml's container (all but the KAITO Workspaces).
type Container struct {
	Namespace             pulumi.StringInput   `pulumi:"namespace"`
	Team                  string               `pulumi:"team"`
	Image                 string               `pulumi:"image"`
	Resources             *workloads.Resources `pulumi:"resources,optional"`
	Name                  *string              `pulumi:"name,optional"`
	Scheduler             *string              `pulumi:"scheduler,optional"`
	QueueName             *string              `pulumi:"queueName,optional"`
	PriorityClass         *string              `pulumi:"priorityClass,optional"`
	WorkloadPriorityClass *string              `pulumi:"workloadPriorityClass,optional"`
	CheckpointPVC         *string              `pulumi:"checkpointPVC,optional"`
	CheckpointDir         *string              `pulumi:"checkpointDir,optional"`
	DataPVC               *string              `pulumi:"dataPVC,optional"`
	DataDir               *string              `pulumi:"dataDir,optional"`
	RequireDigest         *bool                `pulumi:"requireDigest,optional"`
	Command               []string             `pulumi:"command,optional"`
	Args                  []string             `pulumi:"args,optional"`
	ShmSize               *string              `pulumi:"shmSize,optional"`
	Env                   map[string]string    `pulumi:"env,optional"`
	Labels                map[string]string    `pulumi:"labels,optional"`
	MetricsPort           *int                 `pulumi:"metricsPort,optional"`
	ServiceAccountName    *string              `pulumi:"serviceAccountName,optional"`
	WorkloadIdentity      *bool                `pulumi:"workloadIdentity,optional"`
	Await                 *bool                `pulumi:"await,optional"`
	AwaitTimeoutSeconds   *int                 `pulumi:"awaitTimeoutSeconds,optional"`
}

// JobRun are the run bounds of the kinds whose pods run to completion
// (every container kind but InferenceServer), embedded in their Args.
type JobRun struct {
	ActiveDeadlineSeconds         *int `pulumi:"activeDeadlineSeconds,optional"`
	TTLSecondsAfterFinished       *int `pulumi:"ttlSecondsAfterFinished,optional"`
	TerminationGracePeriodSeconds *int `pulumi:"terminationGracePeriodSeconds,optional"`
}

// build fills g, the Go component's Args (with its resolved pool, if
// any, already set), from args and constructs the Go component.
func build[G, R any](ctx *pulumi.Context, name string, g *G, args any, newFn func(*pulumi.Context, string, *G, ...pulumi.ResourceOption) (R, error), opts []pulumi.ResourceOption) (R, error) {
	if err := assign(g, args, "Pool"); err != nil {
		var zero R
		return zero, err
	}
	return newFn(ctx, name, g, opts...)
}

// Distributed are the inputs of workloads.Distributed, embedded in the
// Args of the Training Operator kinds (PyTorchJob, TFJob).
type Distributed struct {
	Pool             gpupool.Spec    `pulumi:"pool"`
	TotalGPUs        int             `pulumi:"totalGPUs"`
	NCCL             *workloads.NCCL `pulumi:"nccl,optional"`
	BackoffLimit     *int            `pulumi:"backoffLimit,optional"`
	CleanPodPolicy   *string         `pulumi:"cleanPodPolicy,optional"`
	AllowEgressCIDRs []string        `pulumi:"allowEgressCIDRs,optional"`
}

// resolvePool resolves an optional pool the way the stack does; its
// problems travel in Resolved.Problems and the Go component reports them
// together with its own.
func resolvePool(spec *gpupool.Spec) *gpupool.Resolved {
	if spec == nil {
		return nil
	}
	r, _ := gpupool.ResolveOne(*spec, field.NewPath("pool"))
	return r
}

// CheckpointedJobArgs are the inputs of aksml:workloads:CheckpointedJob: a
// Kueue-queued batch Job that saves checkpoints to the team's claim and
// survives spot eviction (workloads.CheckpointedJobArgs).
type CheckpointedJobArgs struct {
	Container
	JobRun
	Pool                  *gpupool.Spec `pulumi:"pool,optional"`
	BackoffLimit          *int          `pulumi:"backoffLimit,optional"`
	NonRetryableExitCodes []int         `pulumi:"nonRetryableExitCodes,optional"`
}

// Annotate documents CheckpointedJobArgs in the schema.
func (a *CheckpointedJobArgs) Annotate(an infer.Annotator) {
	an.Describe(&a.Pool, "The GPU pool the job runs on (same fields as one `aksml:gpuPools` entry). Default none: a CPU batch job.")
}

// NewCheckpointedJob constructs workloads.CheckpointedJob.
func NewCheckpointedJob(ctx *pulumi.Context, name string, args CheckpointedJobArgs, opts ...pulumi.ResourceOption) (*workloads.CheckpointedJob, error) {
	return build(ctx, name, &workloads.CheckpointedJobArgs{Pool: resolvePool(args.Pool)}, args, workloads.NewCheckpointedJob, opts)
}

// IndexedJobArgs are the inputs of aksml:workloads:IndexedJob
// (workloads.IndexedJobArgs).
type IndexedJobArgs struct {
	Container
	JobRun
	Pool                  *gpupool.Spec `pulumi:"pool,optional"`
	Completions           int           `pulumi:"completions"`
	Parallelism           *int          `pulumi:"parallelism,optional"`
	BackoffLimitPerIndex  *int          `pulumi:"backoffLimitPerIndex,optional"`
	MaxFailedIndexes      *int          `pulumi:"maxFailedIndexes,optional"`
	NonRetryableExitCodes []int         `pulumi:"nonRetryableExitCodes,optional"`
	ShardManifest         *string       `pulumi:"shardManifest,optional"`
}

// NewIndexedJob constructs workloads.IndexedJob.
func NewIndexedJob(ctx *pulumi.Context, name string, args IndexedJobArgs, opts ...pulumi.ResourceOption) (*workloads.IndexedJob, error) {
	return build(ctx, name, &workloads.IndexedJobArgs{Pool: resolvePool(args.Pool)}, args, workloads.NewIndexedJob, opts)
}

// MIGTrialArgs are the inputs of aksml:workloads:MIGTrial
// (workloads.MIGTrialArgs).
type MIGTrialArgs struct {
	Container
	JobRun
	Pool                  gpupool.Spec `pulumi:"pool"`
	MIGDevices            *int         `pulumi:"migDevices,optional"`
	BackoffLimit          *int         `pulumi:"backoffLimit,optional"`
	NonRetryableExitCodes []int        `pulumi:"nonRetryableExitCodes,optional"`
}

// NewMIGTrial constructs workloads.MIGTrial.
func NewMIGTrial(ctx *pulumi.Context, name string, args MIGTrialArgs, opts ...pulumi.ResourceOption) (*workloads.MIGTrial, error) {
	return build(ctx, name, &workloads.MIGTrialArgs{Pool: resolvePool(&args.Pool)}, args, workloads.NewMIGTrial, opts)
}

// ScheduledScoringArgs are the inputs of aksml:workloads:ScheduledScoring
// (workloads.ScheduledScoringArgs).
type ScheduledScoringArgs struct {
	Container
	JobRun
	BackoffLimit               *int              `pulumi:"backoffLimit,optional"`
	NonRetryableExitCodes      []int             `pulumi:"nonRetryableExitCodes,optional"`
	Schedule                   *string           `pulumi:"schedule,optional"`
	TimeZone                   *string           `pulumi:"timeZone,optional"`
	ConcurrencyPolicy          *string           `pulumi:"concurrencyPolicy,optional"`
	StartingDeadlineSeconds    *int              `pulumi:"startingDeadlineSeconds,optional"`
	SuccessfulJobsHistoryLimit *int              `pulumi:"successfulJobsHistoryLimit,optional"`
	FailedJobsHistoryLimit     *int              `pulumi:"failedJobsHistoryLimit,optional"`
	NodeSelector               map[string]string `pulumi:"nodeSelector,optional"`
}

// NewScheduledScoring constructs workloads.ScheduledScoring.
func NewScheduledScoring(ctx *pulumi.Context, name string, args ScheduledScoringArgs, opts ...pulumi.ResourceOption) (*workloads.ScheduledScoring, error) {
	return build(ctx, name, &workloads.ScheduledScoringArgs{}, args, workloads.NewScheduledScoring, opts)
}

// PyTorchJobArgs are the inputs of aksml:workloads:PyTorchJob
// (workloads.PyTorchJobArgs). The Kubeflow Training Operator must be
// installed on the cluster.
type PyTorchJobArgs struct {
	Container
	JobRun
	Distributed
	Replicas *int `pulumi:"replicas,optional"`
}

// NewPyTorchJob constructs workloads.PyTorchJob.
func NewPyTorchJob(ctx *pulumi.Context, name string, args PyTorchJobArgs, opts ...pulumi.ResourceOption) (*workloads.PyTorchJob, error) {
	return build(ctx, name, &workloads.PyTorchJobArgs{Distributed: workloads.Distributed{Pool: resolvePool(&args.Pool)}}, args, workloads.NewPyTorchJob, opts)
}

// TFJobArgs are the inputs of aksml:workloads:TFJob (workloads.TFJobArgs).
// The Kubeflow Training Operator must be installed on the cluster.
type TFJobArgs struct {
	Container
	JobRun
	Distributed
	Workers     *int                 `pulumi:"workers,optional"`
	Chief       *int                 `pulumi:"chief,optional"`
	PS          *int                 `pulumi:"ps,optional"`
	PSResources *workloads.Resources `pulumi:"psResources,optional"`
}

// NewTFJob constructs workloads.TFJob.
func NewTFJob(ctx *pulumi.Context, name string, args TFJobArgs, opts ...pulumi.ResourceOption) (*workloads.TFJob, error) {
	return build(ctx, name, &workloads.TFJobArgs{Distributed: workloads.Distributed{Pool: resolvePool(&args.Pool)}}, args, workloads.NewTFJob, opts)
}

// FineTuningWorkspaceArgs are the inputs of
// aksml:workloads:FineTuningWorkspace (workloads.FineTuningWorkspaceArgs).
// KAITO must be installed on the cluster.
type FineTuningWorkspaceArgs struct {
	Namespace             pulumi.StringInput `pulumi:"namespace"`
	Team                  string             `pulumi:"team"`
	InstanceType          string             `pulumi:"instanceType"`
	Preset                string             `pulumi:"preset"`
	InputURLs             []string           `pulumi:"inputURLs"`
	Name                  *string            `pulumi:"name,optional"`
	Count                 *int               `pulumi:"count,optional"`
	NodeLabels            map[string]string  `pulumi:"nodeLabels,optional"`
	Method                *string            `pulumi:"method,optional"`
	Config                *string            `pulumi:"config,optional"`
	OutputImage           *string            `pulumi:"outputImage,optional"`
	OutputImagePushSecret *string            `pulumi:"outputImagePushSecret,optional"`
	OutputPVC             *string            `pulumi:"outputPVC,optional"`
	Labels                map[string]string  `pulumi:"labels,optional"`
	Await                 *bool              `pulumi:"await,optional"`
	AwaitTimeoutSeconds   *int               `pulumi:"awaitTimeoutSeconds,optional"`
}

// NewFineTuningWorkspace constructs workloads.FineTuningWorkspace.
func NewFineTuningWorkspace(ctx *pulumi.Context, name string, args FineTuningWorkspaceArgs, opts ...pulumi.ResourceOption) (*workloads.FineTuningWorkspace, error) {
	return build(ctx, name, &workloads.FineTuningWorkspaceArgs{}, args, workloads.NewFineTuningWorkspace, opts)
}

// InferenceWorkspaceArgs are the inputs of
// aksml:workloads:InferenceWorkspace (workloads.InferenceWorkspaceArgs).
// KAITO must be installed on the cluster.
type InferenceWorkspaceArgs struct {
	Namespace           pulumi.StringInput `pulumi:"namespace"`
	Team                string             `pulumi:"team"`
	InstanceType        string             `pulumi:"instanceType"`
	Preset              string             `pulumi:"preset"`
	Name                *string            `pulumi:"name,optional"`
	Count               *int               `pulumi:"count,optional"`
	NodeLabels          map[string]string  `pulumi:"nodeLabels,optional"`
	Config              *string            `pulumi:"config,optional"`
	Labels              map[string]string  `pulumi:"labels,optional"`
	Await               *bool              `pulumi:"await,optional"`
	AwaitTimeoutSeconds *int               `pulumi:"awaitTimeoutSeconds,optional"`
}

// NewInferenceWorkspace constructs workloads.InferenceWorkspace.
func NewInferenceWorkspace(ctx *pulumi.Context, name string, args InferenceWorkspaceArgs, opts ...pulumi.ResourceOption) (*workloads.InferenceWorkspace, error) {
	return build(ctx, name, &workloads.InferenceWorkspaceArgs{}, args, workloads.NewInferenceWorkspace, opts)
}

// InferenceServerArgs are the inputs of aksml:workloads:InferenceServer
// (workloads.InferenceServerArgs).
type InferenceServerArgs struct {
	Container
	Pool             gpupool.Spec                    `pulumi:"pool"`
	Serving          *bool                           `pulumi:"serving,optional"`
	Port             *int                            `pulumi:"port,optional"`
	HealthPath       *string                         `pulumi:"healthPath,optional"`
	ModelLoadSeconds *int                            `pulumi:"modelLoadSeconds,optional"`
	MinReplicas      *int                            `pulumi:"minReplicas,optional"`
	MaxReplicas      *int                            `pulumi:"maxReplicas,optional"`
	Autoscaling      *workloads.InferenceAutoscaling `pulumi:"autoscaling,optional"`
	KEDA             *workloads.KEDASource           `pulumi:"keda,optional"`
}

// NewInferenceServer constructs workloads.InferenceServer.
func NewInferenceServer(ctx *pulumi.Context, name string, args InferenceServerArgs, opts ...pulumi.ResourceOption) (*workloads.InferenceServer, error) {
	return build(ctx, name, &workloads.InferenceServerArgs{Pool: resolvePool(&args.Pool)}, args, workloads.NewInferenceServer, opts)
}
