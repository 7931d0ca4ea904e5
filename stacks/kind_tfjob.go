package stacks

import (
	"fmt"

	"github.com/aksml/aksml/components/workloads"
)

// tfJobConfig is the config of a TFJob.
type tfJobConfig struct {
	trainingJobConfig
	// Workers is the worker count. Default 2.
	Workers int `json:"workers,omitempty"`
}

// KindTFJob is a Kubeflow TFJob (workloads.TFJob).
const KindTFJob WorkloadKind = "TFJob"

func init() {
	registerKind(trainingOperatorKind(KindTFJob, map[string]string{"workers": fmt.Sprint(workloads.DefaultTFWorkers)},
		func(c *tfJobConfig) (workloads.NCCL, int, int) { return c.NCCL, c.Workers, workloads.DefaultTFWorkers },
		func(c *tfJobConfig, common workloads.Common, d workloads.Distributed) *workloads.TFJobArgs {
			return &workloads.TFJobArgs{Common: common, Distributed: d, Workers: c.Workers}
		},
		workloads.NewTFJob))
}
