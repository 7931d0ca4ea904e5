package stacks

import "github.com/aksml/aksml/components/workloads"

// migTrialConfig is the config of a MIGTrial: the container fields (the
// pool, a MIG pool, is required).
type migTrialConfig struct {
	ContainerSpec
}

// KindMIGTrial is a Job on one MIG slice (workloads.MIGTrial).
const KindMIGTrial WorkloadKind = "MIGTrial"

func init() {
	registerKind(&workloadKind{
		kind: KindMIGTrial, pool: true, started: jobStartTime,
		config: func() any { return &migTrialConfig{} },
		// The other kinds require resources (and refuse a zero there).
		zeroDefaults: map[string]string{
			"resources.cpu":    workloads.DefaultMIGTrialCPU + " (MIGTrial)",
			"resources.memory": workloads.DefaultMIGTrialMemory + " (MIGTrial)",
		},
		build: func(_ *Config, w WorkloadSpec, t workloadTarget) workloadArgs {
			a := &workloads.MIGTrialArgs{Common: t.common, Pool: t.pool}
			a.Default(w.Name)
			return a
		},
		register: register(workloads.NewMIGTrial),
	})
}
