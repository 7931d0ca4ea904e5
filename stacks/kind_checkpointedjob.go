package stacks

import (
	"github.com/aksml/aksml/components/storage"
	"github.com/aksml/aksml/components/workloads"
)

// checkpointedJobConfig is the config of a CheckpointedJob: the container
// fields only (pool optional: without it the Job runs on CPU nodes).
type checkpointedJobConfig struct {
	ContainerSpec
}

// KindCheckpointedJob is a batch Job that checkpoints to the team's claim
// (workloads.CheckpointedJob).
const KindCheckpointedJob WorkloadKind = "CheckpointedJob"

func init() {
	registerKind(&workloadKind{
		kind: KindCheckpointedJob, pool: true, started: jobStartTime,
		config: func() any { return &checkpointedJobConfig{} },
		build: func(_ *Config, w WorkloadSpec, t workloadTarget) workloadArgs {
			t.common.CheckpointPVC = storage.CheckpointsPVCName
			a := &workloads.CheckpointedJobArgs{Common: t.common, Pool: t.pool}
			a.Default(w.Name)
			return a
		},
		register: register(workloads.NewCheckpointedJob),
	})
}
