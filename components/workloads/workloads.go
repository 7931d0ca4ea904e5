package workloads

import (
	"fmt"

	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	batchv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/batch/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
)

// Scheduler is the queueing system that admits a workload.
type Scheduler string

// Valid schedulers.
const (
	// SchedulerKueue labels the workload with its Kueue LocalQueue and
	// creates it suspended; Kueue admits it when the team's quota allows.
	SchedulerKueue Scheduler = "kueue"
	// SchedulerVolcano hands the pods to the Volcano scheduler with their
	// Volcano Queue and the all-or-nothing group size.
	SchedulerVolcano Scheduler = "volcano"
	// SchedulerNone uses the default Kubernetes scheduler, with no queueing.
	SchedulerNone Scheduler = "none"
)

// Schedulers lists the valid schedulers.
var Schedulers = []Scheduler{SchedulerKueue, SchedulerVolcano, SchedulerNone}

// Resources is what one container requests. Requests and limits are always
// equal (Guaranteed QoS, AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) "Set equal requests and limits"),
// GPUs included.
type Resources struct {
	// CPU is a Kubernetes quantity, e.g. "4" or "500m". Required.
	CPU string `json:"cpu" pulumi:"cpu"`
	// Memory is a Kubernetes quantity, e.g. "16Gi". Required. It must cover
	// ShmSize: memory-backed /dev/shm counts against it.
	Memory string `json:"memory" pulumi:"memory"`
	// GPUs is the number of nvidia.com/gpu per pod. Default 0; at most the
	// pool SKU's GPUs per node.
	GPUs int `json:"gpus,omitempty" pulumi:"gpus,optional"`
}

// Common holds the settings every container workload kind shares
// (CheckpointedJob, IndexedJob, ScheduledScoring, PyTorchJob, TFJob,
// MIGTrial). Each kind's Default fills what is unset; its Validate checks
// them all.
type Common struct {
	// Provider is the Kubernetes provider of the target cluster; nil means
	// the ambient default provider.
	Provider *kubernetes.Provider
	// Namespace is the team namespace, usually the output of the component
	// that creates it so that the dependency flows. Required.
	Namespace pulumi.StringInput
	// Name is the Kubernetes object name: a DNS-1123 label. Default: the
	// component name.
	Name string
	// Team owns the workload; it becomes the aksml.io/team label. Required.
	Team string
	// Scheduler is kueue (default for GPU workloads), volcano or none
	// (default for CPU workloads).
	Scheduler Scheduler
	// QueueName is the Kueue LocalQueue (or Volcano Queue) the workload is
	// admitted through. Default "gpu-queue" for GPU workloads; required for
	// CPU workloads with a scheduler, because the GPU queue's flavour pins
	// pods to GPU nodes.
	QueueName string
	// PriorityClass is the pod priorityClassName. Default "training-batch".
	PriorityClass string
	// WorkloadPriorityClass is the Kueue WorkloadPriorityClass put in the
	// kueue.x-k8s.io/priority-class label. Default: PriorityClass, so the
	// queue and the pods express the same business priority (AKS MLOps best practices);
	// the queues component must create a WorkloadPriorityClass of that name.
	WorkloadPriorityClass string
	// CheckpointPVC is the team's checkpoint claim, mounted read-write at
	// CheckpointDir and passed in CHECKPOINT_DIR. Default "model-checkpoints"
	// for training kinds; optional for MIGTrial and ScheduledScoring.
	CheckpointPVC string
	// CheckpointDir is the absolute mount path of CheckpointPVC. Default
	// "/checkpoints".
	CheckpointDir string
	// DataPVC is an optional dataset claim, mounted read-only at DataDir and
	// passed in DATA_DIR.
	DataPVC string
	// DataDir is the absolute mount path of DataPVC. Default "/data".
	DataDir string
	// Image is the container image. Required; with RequireDigest it must be
	// pinned by digest (`@sha256:` and 64 hex digits).
	Image string
	// RequireDigest rejects images not pinned by digest; set it in prod
	// (AKS MLOps best practices "Pin the base image by an immutable digest in production").
	RequireDigest bool
	// Command overrides the image entrypoint.
	Command []string
	// Args are the container arguments.
	Args []string
	// Resources are the per-pod CPU, memory and GPUs. CPU and Memory are
	// required except where a kind documents a default.
	Resources Resources
	// ShmSize is the sizeLimit of the memory-backed /dev/shm. Default 8Gi
	// for GPU training (AKS MLOps best practices); "0" mounts none. It must leave
	// MinProcessMemory of the memory limit to the process.
	ShmSize string
	// Env are extra environment variables. Names aksml sets
	// (CHECKPOINT_DIR, SHARD_*, NCCL_*, ...) are rejected; use their fields.
	Env map[string]string
	// Labels are added to the object and pod labels; they may not override
	// the labels aksml sets.
	Labels map[string]string
	// MetricsPort, when > 0, adds a container port named "metrics" and the
	// pod label aksml.io/metrics=true so that the training PodMonitor
	// scrapes it. Default 0 (no metrics).
	MetricsPort int
	// ServiceAccountName runs the pods as this service account, e.g. one
	// federated with workload identity. Default: the namespace default.
	// Service account tokens are mounted only when it is set.
	ServiceAccountName string
	// WorkloadIdentity labels the pods azure.workload.identity/use=true so
	// the AKS workload identity webhook projects an Entra token for the
	// managed identity named on ServiceAccountName's client-id annotation
	// (components/tenancy). Needs ServiceAccountName. Default false.
	WorkloadIdentity bool
	// Await makes `pulumi up` wait for the object (Job completion) for at
	// most AwaitTimeoutSeconds. Default false: objects carry
	// pulumi.com/skipAwait, because a Kueue-suspended Job finishes only
	// after admission and a whole training run.
	Await bool
	// AwaitTimeoutSeconds bounds the wait; required with Await, at most 3600.
	AwaitTimeoutSeconds int
}

// commonDefaults are the per-kind choices Common.applyDefaults needs.
type commonDefaults struct {
	gpu        bool   // the workload runs on a GPU pool
	checkpoint bool   // mount DefaultCheckpointPVC when CheckpointPVC is unset
	shm        string // default ShmSize
}

// applyDefaults fills unset Common fields; name is the component name.
func (c *Common) applyDefaults(name string, d commonDefaults) {
	if c.Name == "" {
		c.Name = name
	}
	if c.Scheduler == "" {
		c.Scheduler = SchedulerNone
		if d.gpu {
			c.Scheduler = DefaultScheduler
		}
	}
	if c.QueueName == "" && d.gpu && c.Scheduler != SchedulerNone {
		c.QueueName = DefaultQueueName
	}
	if c.PriorityClass == "" {
		c.PriorityClass = DefaultPriorityClass
	}
	if c.WorkloadPriorityClass == "" {
		c.WorkloadPriorityClass = c.PriorityClass
	}
	if c.CheckpointPVC == "" && d.checkpoint {
		c.CheckpointPVC = DefaultCheckpointPVC
	}
	if c.CheckpointDir == "" {
		c.CheckpointDir = DefaultCheckpointDir
	}
	if c.DataDir == "" {
		c.DataDir = DefaultDataDir
	}
	if c.ShmSize == "" {
		c.ShmSize = d.shm
	}
}

// componentOptions adds the Kubernetes provider, when given, to the
// component's options so that every child inherits it.
func componentOptions(p *kubernetes.Provider, opts []pulumi.ResourceOption) []pulumi.ResourceOption {
	if p == nil {
		return opts
	}
	return append(append([]pulumi.ResourceOption{}, opts...), pulumi.Providers(p))
}

// childOptions are the options of a named Kubernetes object below c. The
// object name is fixed, so a replacement must delete the old one first.
// The component's explicit dependencies (opts) are passed on, because the
// engine does not order children after their parent's dependencies: a
// PyTorchJob that depends on the TrainingOperator must wait for its CRDs.
func childOptions(c pulumi.Resource, opts []pulumi.ResourceOption) []pulumi.ResourceOption {
	out := []pulumi.ResourceOption{pulumi.Parent(c), pulumi.DeleteBeforeReplace(true)}
	ro, err := pulumi.NewResourceOptions(opts...)
	if err != nil {
		return out
	}
	if len(ro.DependsOn) > 0 {
		out = append(out, pulumi.DependsOn(ro.DependsOn))
	}
	for _, in := range ro.DependsOnInputs {
		out = append(out, pulumi.DependsOnInputs(in))
	}
	return out
}

// Paths of the suspend flag Kueue flips when it admits a workload.
const (
	jobSuspendPath      = "spec.suspend"
	kubeflowSuspendPath = "spec.runPolicy.suspend"
)

// kueueOptions leaves the suspend flag at path to Kueue once the object
// exists: Kueue sets it to false on admission, and a `pulumi up --refresh`
// must not suspend (and so evict) a running workload again.
func kueueOptions(c *Common, path string) []pulumi.ResourceOption {
	if c.Scheduler != SchedulerKueue {
		return nil
	}
	return []pulumi.ResourceOption{pulumi.IgnoreChanges([]string{path})}
}

// workloadArgs are the args of a workload kind: defaulted, validated, and
// the provider and resolved pool (nil for none) they use.
type workloadArgs[A any] interface {
	*A
	Default(name string)
	Validate(p field.Path) field.ErrorList
	provider() *kubernetes.Provider
	targetPool() *gpupool.Resolved
}

// prepare returns a defaulted, validated copy of args, the first steps of
// every workload constructor (what names the args in the nil error). A
// resolved pool with problems (reported by gpupool.Resolve) stops the
// constructor too, before anything is registered.
func prepare[A any, P workloadArgs[A]](name, what string, args P) (P, error) {
	if args == nil {
		return nil, fmt.Errorf("workloads: %s are required", what)
	}
	a := P(new(A))
	*a = *args
	a.Default(name)
	errs := a.Validate(field.NewPath(name))
	if pool := a.targetPool(); pool != nil {
		errs = append(errs, pool.Problems...)
	}
	if err := errs.ToAggregate(); err != nil {
		return nil, err
	}
	return a, nil
}

// kind is one workload component: its type token, what its args are
// called, the children it registers and the outputs it has beyond name and
// namespace. Every constructor of this package is kind.build.
type kind[A any, P workloadArgs[A]] struct {
	token, what string
	// children registers the kind's objects below c and returns the
	// metadata of the main one.
	children func(ctx *pulumi.Context, name string, a P, c pulumi.ComponentResource, opts []pulumi.ResourceOption) (metaOutput, error)
	outputs  func(P) pulumi.Map
}

// build prepares args, registers the component c with the kind's token and
// its children, fills obj with the main object's name and namespace and
// registers the outputs.
func (k kind[A, P]) build(ctx *pulumi.Context, name string, args P, c workload, opts []pulumi.ResourceOption) error {
	obj := c.object()
	a, err := prepare(name, k.what, args)
	if err != nil {
		return err
	}
	if err := ctx.RegisterComponentResource(k.token, name, c, componentOptions(a.provider(), opts)...); err != nil {
		return err
	}
	meta, err := k.children(ctx, name, a, c, opts)
	if err != nil {
		return err
	}
	obj.Name, obj.Namespace = meta.Name().Elem(), meta.Namespace().Elem()
	out := pulumi.Map{"name": obj.Name, "namespace": obj.Namespace}
	if k.outputs != nil {
		for key, v := range k.outputs(a) {
			out[key] = v
		}
	}
	return ctx.RegisterResourceOutputs(c, out)
}

// workload is a component of this package: a ComponentResource with the
// Object (name and namespace) of its main object.
type workload interface {
	pulumi.ComponentResource
	object() *Object
}

// object returns o; every component of this package embeds Object.
func (o *Object) object() *Object { return o }

// newWorkload builds c as a component of kind k and returns it, or the
// zero C and the error: the body of every constructor of this package.
func newWorkload[A any, P workloadArgs[A], C workload](ctx *pulumi.Context, k kind[A, P], name string, args P, c C, opts []pulumi.ResourceOption) (C, error) {
	if err := k.build(ctx, name, args, c, opts); err != nil {
		var none C
		return none, err
	}
	return c, nil
}

// jobChildren registers the batch/v1 Job child `name-job` built by job
// (Kueue owns spec.suspend), the child of every Job-based kind.
func jobChildren[A any, P interface {
	workloadArgs[A]
	common() *Common
}](job func(P) *batchv1.JobArgs) func(*pulumi.Context, string, P, pulumi.ComponentResource, []pulumi.ResourceOption) (metaOutput, error) {
	return func(ctx *pulumi.Context, name string, a P, c pulumi.ComponentResource, opts []pulumi.ResourceOption) (metaOutput, error) {
		j, err := batchv1.NewJob(ctx, name+"-job", job(a), append(childOptions(c, opts), kueueOptions(a.common(), jobSuspendPath)...)...)
		if err != nil {
			return nil, err
		}
		return j.Metadata, nil
	}
}

// metaOutput is the metadata output of a Kubernetes object, typed or
// custom: what kind.build reads the name and namespace from.
type metaOutput interface {
	Name() pulumi.StringPtrOutput
	Namespace() pulumi.StringPtrOutput
}

// common returns c; the container kinds embed Common and so have it.
func (c *Common) common() *Common { return c }

// provider returns the Kubernetes provider of the container kinds.
func (c *Common) provider() *kubernetes.Provider { return c.Provider }

// Object is the Kubernetes object a workload component created: the
// outputs every workload component has.
type Object struct {
	// Name is the object name.
	Name pulumi.StringOutput `pulumi:"name"`
	// Namespace is the object namespace.
	Namespace pulumi.StringOutput `pulumi:"namespace"`
}
