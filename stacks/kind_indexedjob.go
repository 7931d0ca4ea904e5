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

// KindIndexedJob is a sharded batch Job (workloads.IndexedJob).
const KindIndexedJob WorkloadKind = "IndexedJob"

func init() {
	registerKind(&workloadKind{
		kind: KindIndexedJob, pool: true, started: jobStartTime,
		config:       func() any { return &indexedJobConfig{} },
		zeroDefaults: map[string]string{"parallelism": "completions (all shards at once)"},
		build: func(_ *Config, w WorkloadSpec, t workloadTarget) workloadArgs {
			cfg := w.Config.(*indexedJobConfig)
			a := &workloads.IndexedJobArgs{Common: t.common, Pool: t.pool, Completions: cfg.Completions, Parallelism: cfg.Parallelism}
			a.Default(w.Name)
			return a
		},
		register: register(workloads.NewIndexedJob),
	})
}
