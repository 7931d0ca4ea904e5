package stacks

import (
	"github.com/aksml/aksml/components/workloads"
)

// tfJobConfig is the config of a TFJob.
type tfJobConfig struct {
	trainingJobConfig
	// Workers is the worker count. Default 2.
	Workers int `json:"workers,omitempty"`
}

var tfJobKind = trainingOperatorKind(KindTFJob,
	func(c *tfJobConfig) (workloads.NCCL, int, int) { return c.NCCL, c.Workers, workloads.DefaultTFWorkers },
	func(c *tfJobConfig, common workloads.Common, d workloads.Distributed) *workloads.TFJobArgs {
		return &workloads.TFJobArgs{Common: common, Distributed: d, Workers: c.Workers}
	},
	workloads.NewTFJob)
