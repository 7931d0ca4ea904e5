package stacks

import "github.com/aksml/aksml/components/workloads"

// migTrialConfig is the config of a MIGTrial: the container fields (the
// pool, a MIG pool, is required).
type migTrialConfig struct {
	ContainerSpec
}

var migTrialKind = workloadKind{
	kind: KindMIGTrial, pool: true,
	config: func() any { return &migTrialConfig{} },
	build: func(_ *Config, w WorkloadSpec, t workloadTarget) workloadArgs {
		a := &workloads.MIGTrialArgs{Common: t.common, Pool: t.pool}
		a.Default(w.Name)
		return a
	},
	register: register(workloads.NewMIGTrial),
}
