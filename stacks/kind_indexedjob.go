package stacks

import "github.com/aksml/aksml/components/workloads"

// indexedJobConfig is the config of an IndexedJob.
type indexedJobConfig struct {
	ContainerSpec
	// Completions is the shard count. Required.
	Completions int `json:"completions,omitempty"`
	// Parallelism is how many shards run at once. Default Completions.
	Parallelism int `json:"parallelism,omitempty"`
}

var indexedJobKind = workloadKind{
	kind: KindIndexedJob, pool: true,
	config: func() any { return &indexedJobConfig{} },
	build: func(_ *Config, w WorkloadSpec, t workloadTarget) workloadArgs {
		cfg := w.Config.(*indexedJobConfig)
		a := &workloads.IndexedJobArgs{Common: t.common, Pool: t.pool, Completions: cfg.Completions, Parallelism: cfg.Parallelism}
		a.Default(w.Name)
		return a
	},
	register: register(workloads.NewIndexedJob),
}
