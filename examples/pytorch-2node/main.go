// Command pytorch-2node is a Pulumi program that runs a two-node Kubeflow
// PyTorchJob (one Master, one Worker, one GPU each) with its NCCL
// NetworkPolicy on an existing cluster, and optionally installs the pinned
// Kubeflow Training Operator first.
package main

import (
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/workloads"
)

// Defaults of the example's config keys.
const (
	defaultNamespace = "ml-training"
	defaultImage     = "pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime"
	defaultPoolName  = "a100"
	defaultVMSize    = "Standard_NC24ads_A100_v4"
	defaultMaxCount  = 2
	replicas         = 2
	gpusPerReplica   = 1
)

// allReduce is the seed's NCCL all-reduce smoke test.
const allReduce = `import torch
import torch.distributed as dist

torch.cuda.set_device(0)
dist.init_process_group(backend="nccl")
value = torch.tensor([float(dist.get_rank() + 1)], device="cuda")
dist.all_reduce(value)
print(f"rank={dist.get_rank()} world_size={dist.get_world_size()} all_reduce_sum={value.item()}")
dist.destroy_process_group()
`

func main() { pulumi.Run(program) }

// program declares the training operator (when asked) and the PyTorchJob.
func program(ctx *pulumi.Context) error {
	cfg := config.New(ctx, "")
	provider, err := clusterProvider(ctx, cfg)
	if err != nil {
		return err
	}
	var opts []pulumi.ResourceOption
	if cfg.GetBool("installTrainingOperator") {
		op, err := workloads.NewTrainingOperator(ctx, "training-operator", &workloads.TrainingOperatorArgs{Provider: provider})
		if err != nil {
			return err
		}
		// The operator's resources, not the component: the Go SDK expands
		// a component in DependsOn to the children registered so far, which
		// races with their registration, so the job could be sent before
		// the CRDs exist (TrainingOperator.Resources).
		opts = append(opts, pulumi.DependsOn(op.Resources()))
	}
	namespace := orDefault(cfg.Get("namespace"), defaultNamespace)
	// The workload takes a resolved pool: gpupool.ResolveOne defaults and
	// validates it once, as a stack resolves its aksml:gpuPools.
	pool, perrs := gpupool.ResolveOne(gpupool.Spec{
		Name:     orDefault(cfg.Get("poolName"), defaultPoolName),
		VMSize:   orDefault(cfg.Get("vmSize"), defaultVMSize),
		Workload: gpupool.WorkloadTraining,
		MaxCount: defaultMaxCount,
	}, field.NewPath("pool"))
	if err := perrs.ToAggregate(); err != nil {
		return err
	}
	job, err := workloads.NewPyTorchJob(ctx, "pytorch-nccl-example", &workloads.PyTorchJobArgs{
		Common: workloads.Common{
			Provider:      provider,
			Namespace:     pulumi.String(namespace),
			Team:          orDefault(cfg.Get("team"), namespace),
			Image:         orDefault(cfg.Get("image"), defaultImage),
			RequireDigest: cfg.GetBool("requireDigest"),
			Command:       []string{"python", "-c", allReduce},
			Resources:     workloads.Resources{CPU: "4", Memory: "16Gi", GPUs: gpusPerReplica},
		},
		Distributed: workloads.Distributed{
			Pool:      pool,
			TotalGPUs: replicas * gpusPerReplica,
		},
		Replicas: replicas,
	}, opts...)
	if err != nil {
		return err
	}
	ctx.Export("jobName", job.Name)
	ctx.Export("namespace", job.Namespace)
	return nil
}

// clusterProvider returns a provider for the kubeconfig in the secret
// config key `kubeconfig` (a path or the file's contents), or nil to use
// the ambient kubeconfig.
func clusterProvider(ctx *pulumi.Context, cfg *config.Config) (*kubernetes.Provider, error) {
	kubeconfig, err := cfg.TrySecret("kubeconfig")
	if err != nil { // not set: use the ambient kubeconfig
		return nil, nil
	}
	return kubernetes.NewProvider(ctx, "cluster", &kubernetes.ProviderArgs{Kubeconfig: kubeconfig})
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
