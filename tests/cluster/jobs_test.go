package cluster

import (
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/workloads"
	"github.com/aksml/aksml/stacks"
)

// resolvedPools resolves cfg's GPU pools as the stack does (under
// aksml:gpuPools) and returns them by name; a problem fails t.
func resolvedPools(t *testing.T, cfg *stacks.Config) map[string]*gpupool.Resolved {
	t.Helper()
	resolved, perrs := gpupool.Resolve(cfg.GPUPools, field.NewPath("aksml:gpuPools"))
	require.Empty(t, perrs)
	pools := map[string]*gpupool.Resolved{}
	for i := range resolved {
		pools[resolved[i].Name] = &resolved[i]
	}
	return pools
}

// queuedJob is the Common of a training Job of team as the stack builds an
// aksml:workloads entry under Kueue: in the team's namespace, on its
// LocalQueue, running train.py in the PyTorch image. Callers add the
// priority class and resources.
func queuedJob(team string) workloads.Common {
	return workloads.Common{
		Namespace: pulumi.String(team),
		Team:      team,
		Scheduler: workloads.SchedulerKueue,
		QueueName: queues.LocalQueueName,
		Image:     "pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime",
		Command:   []string{"python", "/workspace/train.py"},
	}
}
