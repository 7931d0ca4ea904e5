package queues_test

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/queues"
)

// Two teams share a spot T4 pool through Kueue: each gets a ClusterQueue with
// its nominal GPU quota on the pool's flavor, in one cohort so an idle team's
// GPUs can be borrowed, and a LocalQueue (gpu-queue) in its namespace that its
// Jobs name with the label kueue.x-k8s.io/queue-name. Bad input (a quota on a
// pool that does not exist, more GPUs than the pool can hold) fails at preview
// with the field named.
func ExampleNewQueues() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		paths := queues.DefaultPaths()
		pools, _ := gpupool.Resolve([]gpupool.Spec{{
			Name:     "t4spot",
			VMSize:   "Standard_NC4as_T4_v3",
			Workload: gpupool.WorkloadTraining,
			Priority: gpupool.PrioritySpot,
			MaxCount: 4,
		}}, paths.Pools)
		teams := []queues.Team{
			{Name: "team-a", GPUQuota: map[string]int{"t4spot": 3}, CPU: "32", Memory: "128Gi"},
			{Name: "team-b", GPUQuota: map[string]int{"t4spot": 1}, CPU: "16", Memory: "64Gi"},
		}
		// Resolve's problems travel in the resolved layer: NewQueues
		// reports them all before registering anything.
		r, _ := queues.Resolve(teams, pools, queues.SchedulerSpec{System: queues.SystemKueue}, paths)
		q, err := queues.NewQueues(ctx, "queues", &queues.QueuesArgs{Resolved: r})
		if err != nil {
			return err
		}
		ctx.Export("clusterQueues", q.QueueNames)
		ctx.Export("localQueue", q.LocalQueueName)
		return nil
	})
}
