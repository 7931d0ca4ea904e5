// Command spot-finetune is a Pulumi program that runs one team's
// checkpointed fine-tune on a spot GPU pool of an existing cluster: a
// Kueue-queued CheckpointedJob that resumes from the team's checkpoint claim
// after every spot eviction.
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
	defaultNamespace = "team-a"
	defaultImage     = "pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime"
	defaultPoolName  = "gpuspot"
	defaultVMSize    = "Standard_NC4as_T4_v3"
	defaultMaxCount  = 4
)

func main() { pulumi.Run(program) }

// program declares the fine-tune Job from the stack config.
func program(ctx *pulumi.Context) error {
	cfg := config.New(ctx, "")
	provider, err := clusterProvider(ctx, cfg)
	if err != nil {
		return err
	}
	namespace := orDefault(cfg.Get("namespace"), defaultNamespace)
	// The workload takes a resolved pool: gpupool.ResolveOne defaults and
	// validates it once, as a stack resolves its aksml:gpuPools.
	pool, perrs := gpupool.ResolveOne(gpupool.Spec{
		Name:     orDefault(cfg.Get("poolName"), defaultPoolName),
		VMSize:   orDefault(cfg.Get("vmSize"), defaultVMSize),
		Workload: gpupool.WorkloadFineTuning,
		Priority: gpupool.PrioritySpot,
		MaxCount: defaultMaxCount,
	}, field.NewPath("pool"))
	if err := perrs.ToAggregate(); err != nil {
		return err
	}
	job, err := workloads.NewCheckpointedJob(ctx, "finetune", &workloads.CheckpointedJobArgs{
		Common: workloads.Common{
			Provider:      provider,
			Namespace:     pulumi.String(namespace),
			Team:          orDefault(cfg.Get("team"), namespace),
			Image:         orDefault(cfg.Get("image"), defaultImage),
			RequireDigest: cfg.GetBool("requireDigest"),
			Command:       []string{"python", "/workspace/finetune.py", "--resume-from", workloads.DefaultCheckpointDir},
			Resources:     workloads.Resources{CPU: "3", Memory: "16Gi", GPUs: 1},
			MetricsPort:   cfg.GetInt("metricsPort"),
		},
		Pool:                  pool,
		NonRetryableExitCodes: []int{2},
	})
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
