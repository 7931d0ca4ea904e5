package stacks

import (
	"github.com/aksml/aksml/components/cluster"
	"github.com/aksml/aksml/components/storage"
	"github.com/aksml/aksml/components/workloads"
)

// tfJobConfig is the config of a TFJob.
type tfJobConfig struct {
	ContainerSpec
	// Workers is the worker count. Default 2.
	Workers int `json:"workers,omitempty"`
	// NCCL overrides the NCCL settings.
	NCCL workloads.NCCL `json:"nccl,omitempty"`
}

var tfJobKind = workloadKind{
	kind: KindTFJob, pool: true, operator: cluster.InstalledTrainingOperator,
	config: func() any { return &tfJobConfig{} },
	build: func(_ *Config, w WorkloadSpec, t workloadTarget) workloadArgs {
		cfg := w.Config.(*tfJobConfig)
		t.common.CheckpointPVC = storage.CheckpointsPVCName
		a := &workloads.TFJobArgs{Common: t.common, Distributed: distributed(t, cfg.NCCL, cfg.Workers, workloads.DefaultTFWorkers), Workers: cfg.Workers}
		a.Default(w.Name)
		return a
	},
	register: register(workloads.NewTFJob),
}
