package stacks

import (
	"github.com/aksml/aksml/components/cluster"
	"github.com/aksml/aksml/components/storage"
	"github.com/aksml/aksml/components/workloads"
)

// pyTorchJobConfig is the config of a PyTorchJob.
type pyTorchJobConfig struct {
	ContainerSpec
	// Replicas is the replica count (Master + Workers). Default 2.
	Replicas int `json:"replicas,omitempty"`
	// NCCL overrides the NCCL settings (AKS MLOps best practices defaults:
	// eth0, IB disabled, INFO).
	NCCL workloads.NCCL `json:"nccl,omitempty"`
}

var pyTorchJobKind = workloadKind{
	kind: KindPyTorchJob, pool: true, operator: cluster.InstalledTrainingOperator,
	config: func() any { return &pyTorchJobConfig{} },
	build: func(_ *Config, w WorkloadSpec, t workloadTarget) workloadArgs {
		cfg := w.Config.(*pyTorchJobConfig)
		t.common.CheckpointPVC = storage.CheckpointsPVCName
		a := &workloads.PyTorchJobArgs{Common: t.common, Distributed: distributed(t, cfg.NCCL, cfg.Replicas, workloads.DefaultPyTorchReplicas), Replicas: cfg.Replicas}
		a.Default(w.Name)
		return a
	},
	register: register(workloads.NewPyTorchJob),
}
