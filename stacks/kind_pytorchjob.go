package stacks

import (
	"github.com/aksml/aksml/components/workloads"
)

// pyTorchJobConfig is the config of a PyTorchJob.
type pyTorchJobConfig struct {
	trainingJobConfig
	// Replicas is the replica count (Master + Workers). Default 2.
	Replicas int `json:"replicas,omitempty"`
}

var pyTorchJobKind = trainingOperatorKind(KindPyTorchJob,
	func(c *pyTorchJobConfig) (workloads.NCCL, int, int) {
		return c.NCCL, c.Replicas, workloads.DefaultPyTorchReplicas
	},
	func(c *pyTorchJobConfig, common workloads.Common, d workloads.Distributed) *workloads.PyTorchJobArgs {
		return &workloads.PyTorchJobArgs{Common: common, Distributed: d, Replicas: c.Replicas}
	},
	workloads.NewPyTorchJob)
