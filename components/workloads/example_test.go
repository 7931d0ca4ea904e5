package workloads_test

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/workloads"
)

// A checkpointed fine-tune on a spot pool: a Kueue-queued Job that resumes
// from the team's checkpoint claim after every spot eviction and does not
// retry on exit code 2 (a bad configuration, not an eviction). The pool is
// resolved (defaults, validation) once, as a stack resolves aksml:gpuPools.
func ExampleNewCheckpointedJob() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		pool, errs := gpupool.ResolveOne(gpupool.Spec{
			Name:     "t4spot",
			VMSize:   "Standard_NC4as_T4_v3",
			Workload: gpupool.WorkloadFineTuning,
			Priority: gpupool.PrioritySpot,
			MaxCount: 4,
		}, field.NewPath("pool"))
		if err := errs.ToAggregate(); err != nil {
			return err
		}
		job, err := workloads.NewCheckpointedJob(ctx, "finetune", &workloads.CheckpointedJobArgs{
			Common: workloads.Common{
				Namespace: pulumi.String("team-a"),
				Team:      "team-a",
				Image:     "pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime",
				Command:   []string{"python", "/workspace/finetune.py", "--resume-from", workloads.DefaultCheckpointDir},
				Resources: workloads.Resources{CPU: "3", Memory: "16Gi", GPUs: 1},
			},
			Pool:                  pool,
			NonRetryableExitCodes: []int{2},
		})
		if err != nil {
			return err
		}
		ctx.Export("jobName", job.Name)
		return nil
	})
}
