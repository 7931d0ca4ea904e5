package stacks

import "github.com/aksml/aksml/components/workloads"

// pyTorchJobConfig is the config of a PyTorchJob.
type pyTorchJobConfig struct {
	trainingJobConfig
	// Replicas is the replica count (Master + Workers). Default 2.
	Replicas int `json:"replicas,omitempty"`
}

// KindPyTorchJob is a Kubeflow PyTorchJob (workloads.PyTorchJob).
const KindPyTorchJob WorkloadKind = "PyTorchJob"

func init() {
	registerKind(trainingOperatorKind(KindPyTorchJob, "replicas", workloads.DefaultPyTorchReplicas,
		func(c *pyTorchJobConfig) (workloads.NCCL, int) { return c.NCCL, c.Replicas },
		func(c *pyTorchJobConfig, common workloads.Common, d workloads.Distributed) *workloads.PyTorchJobArgs {
			return &workloads.PyTorchJobArgs{Common: common, Distributed: d, Replicas: c.Replicas}
		},
		workloads.NewPyTorchJob))
}
