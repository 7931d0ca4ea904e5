package stacks

import "github.com/aksml/aksml/components/workloads"

// tfJobConfig is the config of a TFJob.
type tfJobConfig struct {
	trainingJobConfig
	// Workers is the worker count. Default 2.
	Workers int `json:"workers,omitempty"`
}

// KindTFJob is a Kubeflow TFJob (workloads.TFJob).
const KindTFJob WorkloadKind = "TFJob"

func init() {
	registerKind(trainingOperatorKind(KindTFJob, "workers", workloads.DefaultTFWorkers,
		func(c *tfJobConfig) (workloads.NCCL, int) { return c.NCCL, c.Workers },
		func(c *tfJobConfig, common workloads.Common, d workloads.Distributed) *workloads.TFJobArgs {
			return &workloads.TFJobArgs{Common: common, Distributed: d, Workers: c.Workers}
		},
		workloads.NewTFJob))
}
