package provider

import (
	"github.com/pulumi/pulumi-go-provider/infer"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/gpustack"
	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/storage"
	"github.com/aksml/aksml/components/workloads"
)

// QueuesArgs are the inputs of aksml:queues:Queues (queues.QueuesArgs).
type QueuesArgs struct {
	Teams            []queues.Team         `pulumi:"teams,optional"`
	Pools            []gpupool.Spec        `pulumi:"pools,optional"`
	Scheduler        *queues.SchedulerSpec `pulumi:"scheduler,optional"`
	RetainNamespaces *bool                 `pulumi:"retainNamespaces,optional"`
}

// Annotate documents QueuesArgs in the schema.
func (a *QueuesArgs) Annotate(an infer.Annotator) {
	an.Describe(&a.Teams, "The tenants: one namespace, Kueue ClusterQueue and LocalQueue `gpu-queue`, and quota each (same fields as `aksml:teams`).")
	an.Describe(&a.Pools, "The cluster's GPU pools (same fields as `aksml:gpuPools`): one ResourceFlavor each, and the capacity the teams' quota must fit.")
	an.Describe(&a.Scheduler, "The queueing system and its settings (same fields as `aksml:scheduler`). Default: Kueue, installed by aksml.")
	an.Describe(&a.RetainNamespaces, "Keep the team namespaces (and the checkpoint claims in them) when they leave the stack or the stack is destroyed. Default false.")
}

// NewQueues constructs queues.Queues.
func NewQueues(ctx *pulumi.Context, name string, args QueuesArgs, opts ...pulumi.ResourceOption) (*queues.Queues, error) {
	a := &queues.QueuesArgs{Teams: args.Teams, Pools: args.Pools, RetainNamespaces: deref(args.RetainNamespaces)}
	if args.Scheduler != nil {
		a.Scheduler = *args.Scheduler
	}
	return queues.NewQueues(ctx, name, a, opts...)
}

// StorageClassesArgs are the inputs of aksml:storage:StorageClasses.
type StorageClassesArgs struct {
	Accounts       *ClassAccounts `pulumi:"accounts,optional"`
	ScratchDiskSku *string        `pulumi:"scratchDiskSku,optional"`
}

// ClassAccounts pins the classes to existing storage accounts
// (storage.ClassAccounts).
type ClassAccounts struct {
	ResourceGroupName pulumi.StringInput `pulumi:"resourceGroupName"`
	FilesAccountName  pulumi.StringInput `pulumi:"filesAccountName,optional"`
	BlobAccountName   pulumi.StringInput `pulumi:"blobAccountName,optional"`
}

// Annotate documents StorageClassesArgs in the schema.
func (a *StorageClassesArgs) Annotate(an infer.Annotator) {
	an.Describe(&a.Accounts, "Pin the classes to these storage accounts (storageAccount and resourceGroup CSI parameters). Default: the CSI drivers choose.")
	an.Describe(&a.ScratchDiskSku, "skuName of the ml-scratch-azuredisk class. Default Premium_LRS.")
}

// Annotate documents ClassAccounts in the schema.
func (a *ClassAccounts) Annotate(an infer.Annotator) {
	an.SetToken("storage", "ClassAccounts")
	an.Describe(&a.ResourceGroupName, "Resource group of the accounts.")
	an.Describe(&a.FilesAccountName, "Azure Files premium account behind ml-azurefile-premium and ml-checkpoints-azurefile.")
	an.Describe(&a.BlobAccountName, "Blob NFS account behind ml-azureblob-nfs.")
}

// NewStorageClasses constructs storage.StorageClasses.
func NewStorageClasses(ctx *pulumi.Context, name string, args StorageClassesArgs, opts ...pulumi.ResourceOption) (*storage.StorageClasses, error) {
	a := &storage.StorageClassesArgs{ScratchDiskSKU: deref(args.ScratchDiskSku)}
	if acc := args.Accounts; acc != nil {
		a.Accounts = &storage.ClassAccounts{ResourceGroupName: acc.ResourceGroupName, FilesAccountName: acc.FilesAccountName, BlobAccountName: acc.BlobAccountName}
	}
	return storage.NewStorageClasses(ctx, name, a, opts...)
}

// TeamVolumesArgs are the inputs of aksml:storage:TeamVolumes.
type TeamVolumesArgs struct {
	Namespace         pulumi.StringInput   `pulumi:"namespace"`
	Spec              *storage.VolumesSpec `pulumi:"spec,optional"`
	RetainCheckpoints *bool                `pulumi:"retainCheckpoints,optional"`
}

// Annotate documents TeamVolumesArgs in the schema.
func (a *TeamVolumesArgs) Annotate(an infer.Annotator) {
	an.Describe(&a.Namespace, "The team namespace the claims are created in, e.g. an output of Queues.namespaces.")
	an.Describe(&a.Spec, "Claim sizes and the datasets class (same fields as `aksml:storage.volumes`).")
	an.Describe(&a.RetainCheckpoints, "Leave the checkpoints claim (and its volume) in the cluster on destroy. Default false; set it in prod.")
}

// NewTeamVolumes constructs storage.TeamVolumes.
func NewTeamVolumes(ctx *pulumi.Context, name string, args TeamVolumesArgs, opts ...pulumi.ResourceOption) (*storage.TeamVolumes, error) {
	a := &storage.TeamVolumesArgs{Namespace: args.Namespace, RetainCheckpoints: deref(args.RetainCheckpoints)}
	if args.Spec != nil {
		a.Spec = *args.Spec
	}
	return storage.NewTeamVolumes(ctx, name, a, opts...)
}

// GPUStackArgs are the inputs of aksml:gpustack:GPUStack.
type GPUStackArgs struct {
	Pools []gpupool.Spec `pulumi:"pools,optional"`
	Spec  *gpustack.Spec `pulumi:"spec,optional"`
}

// Annotate documents GPUStackArgs in the schema.
func (a *GPUStackArgs) Annotate(an infer.Annotator) {
	an.Describe(&a.Pools, "The cluster's GPU pools (same fields as `aksml:gpuPools`); only DriverOnly pools get the device plugin and DCGM exporter.")
	an.Describe(&a.Spec, "The GPU software configuration (same fields as `aksml:gpuStack`).")
}

// NewGPUStack constructs gpustack.GPUStack.
func NewGPUStack(ctx *pulumi.Context, name string, args GPUStackArgs, opts ...pulumi.ResourceOption) (*gpustack.GPUStack, error) {
	a := &gpustack.GPUStackArgs{Pools: args.Pools}
	if args.Spec != nil {
		a.Spec = *args.Spec
	}
	return gpustack.NewGPUStack(ctx, name, a, opts...)
}

// CheckpointedJobArgs are the inputs of aksml:workloads:CheckpointedJob: a
// Kueue-queued batch Job that saves checkpoints to the team's claim and
// survives spot eviction (workloads.CheckpointedJobArgs).
type CheckpointedJobArgs struct {
	Namespace                     pulumi.StringInput  `pulumi:"namespace"`
	Team                          string              `pulumi:"team"`
	Image                         string              `pulumi:"image"`
	Resources                     workloads.Resources `pulumi:"resources"`
	Pool                          *gpupool.Spec       `pulumi:"pool,optional"`
	Name                          *string             `pulumi:"name,optional"`
	QueueName                     *string             `pulumi:"queueName,optional"`
	PriorityClass                 *string             `pulumi:"priorityClass,optional"`
	CheckpointPvc                 *string             `pulumi:"checkpointPvc,optional"`
	DataPvc                       *string             `pulumi:"dataPvc,optional"`
	RequireDigest                 *bool               `pulumi:"requireDigest,optional"`
	Command                       []string            `pulumi:"command,optional"`
	Args                          []string            `pulumi:"args,optional"`
	Env                           map[string]string   `pulumi:"env,optional"`
	ServiceAccountName            *string             `pulumi:"serviceAccountName,optional"`
	BackoffLimit                  *int                `pulumi:"backoffLimit,optional"`
	ActiveDeadlineSeconds         *int                `pulumi:"activeDeadlineSeconds,optional"`
	TerminationGracePeriodSeconds *int                `pulumi:"terminationGracePeriodSeconds,optional"`
}

// Annotate documents CheckpointedJobArgs in the schema.
func (a *CheckpointedJobArgs) Annotate(an infer.Annotator) {
	an.Describe(&a.Namespace, "The team namespace, e.g. an output of Queues.namespaces.")
	an.Describe(&a.Team, "The team that owns the job (the aksml.io/team label).")
	an.Describe(&a.Image, "The container image; pin it by digest with requireDigest in prod.")
	an.Describe(&a.Resources, "Per-pod cpu, memory and GPUs.")
	an.Describe(&a.Pool, "The GPU pool the job runs on (same fields as one `aksml:gpuPools` entry). Default none: a CPU batch job.")
	an.Describe(&a.Name, "The Job name, a DNS-1123 label. Default: the resource name.")
	an.Describe(&a.QueueName, "The Kueue LocalQueue. Default gpu-queue for GPU jobs.")
	an.Describe(&a.PriorityClass, "The pod priorityClassName and Kueue WorkloadPriorityClass. Default training-batch.")
	an.Describe(&a.CheckpointPvc, "The checkpoint claim mounted at /checkpoints. Default model-checkpoints.")
	an.Describe(&a.DataPvc, "An optional dataset claim mounted read-only at /data.")
	an.Describe(&a.RequireDigest, "Reject images not pinned by digest. Default false; set it in prod.")
	an.Describe(&a.Command, "Overrides the image entrypoint.")
	an.Describe(&a.Args, "The container arguments.")
	an.Describe(&a.Env, "Extra environment variables; names aksml sets are rejected.")
	an.Describe(&a.ServiceAccountName, "Run the pods as this service account. Default: the namespace default, without a token.")
	an.Describe(&a.BackoffLimit, "Pod failures tolerated; disruptions (spot eviction) do not count. Default 6.")
	an.Describe(&a.ActiveDeadlineSeconds, "Bound on the whole run, retries included. Default 86400.")
	an.Describe(&a.TerminationGracePeriodSeconds, "Time between SIGTERM and SIGKILL to save a checkpoint. Default 120.")
}

// NewCheckpointedJob constructs workloads.CheckpointedJob.
func NewCheckpointedJob(ctx *pulumi.Context, name string, args CheckpointedJobArgs, opts ...pulumi.ResourceOption) (*workloads.CheckpointedJob, error) {
	var pool *gpupool.Resolved
	if args.Pool != nil {
		r, errs := gpupool.ResolveOne(*args.Pool, field.NewPath("pool"))
		if err := errs.ToAggregate(); err != nil {
			return nil, err
		}
		pool = r
	}
	return workloads.NewCheckpointedJob(ctx, name, &workloads.CheckpointedJobArgs{
		Common: workloads.Common{
			Namespace:          args.Namespace,
			Name:               deref(args.Name),
			Team:               args.Team,
			QueueName:          deref(args.QueueName),
			PriorityClass:      deref(args.PriorityClass),
			CheckpointPVC:      deref(args.CheckpointPvc),
			DataPVC:            deref(args.DataPvc),
			Image:              args.Image,
			RequireDigest:      deref(args.RequireDigest),
			Command:            args.Command,
			Args:               args.Args,
			Resources:          args.Resources,
			Env:                args.Env,
			ServiceAccountName: deref(args.ServiceAccountName),
		},
		Pool:                          pool,
		BackoffLimit:                  deref(args.BackoffLimit),
		ActiveDeadlineSeconds:         deref(args.ActiveDeadlineSeconds),
		TerminationGracePeriodSeconds: deref(args.TerminationGracePeriodSeconds),
	}, opts...)
}

// GPUNodePoolsArgs are the inputs of aksml:gpupool:GPUNodePools.
type GPUNodePoolsArgs struct {
	Pools             []gpupool.Spec     `pulumi:"pools"`
	ResourceGroupName pulumi.StringInput `pulumi:"resourceGroupName"`
	ClusterName       pulumi.StringInput `pulumi:"clusterName"`
	NodeSubnetId      pulumi.StringInput `pulumi:"nodeSubnetId,optional"`
	Tags              map[string]string  `pulumi:"tags,optional"`
}

// Annotate documents GPUNodePoolsArgs in the schema.
func (a *GPUNodePoolsArgs) Annotate(an infer.Annotator) {
	an.Describe(&a.Pools, "The GPU pools (same fields as `aksml:gpuPools`).")
	an.Describe(&a.ResourceGroupName, "The cluster's resource group.")
	an.Describe(&a.ClusterName, "The AKS cluster the pools join; pass the cluster's name output so the pools wait for it.")
	an.Describe(&a.NodeSubnetId, "The subnet (ARM ID) every pool joins. Default: the VNet AKS generated.")
	an.Describe(&a.Tags, "Tags on every pool's scale set and on the template stack.")
}

// NewGPUNodePools constructs gpupool.GPUNodePools.
func NewGPUNodePools(ctx *pulumi.Context, name string, args GPUNodePoolsArgs, opts ...pulumi.ResourceOption) (*gpupool.GPUNodePools, error) {
	return gpupool.NewGPUNodePools(ctx, name, &gpupool.GPUNodePoolsArgs{
		Pools:             args.Pools,
		ResourceGroupName: args.ResourceGroupName,
		ClusterName:       args.ClusterName,
		NodeSubnetID:      args.NodeSubnetId,
		Tags:              args.Tags,
	}, opts...)
}

// deref is the value of an optional input, or its zero value (the Go
// component's "default").
func deref[T any](v *T) T {
	if v == nil {
		var zero T
		return zero
	}
	return *v
}
