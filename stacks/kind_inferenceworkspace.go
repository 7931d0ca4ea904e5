package stacks

import (
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/workloads"
)

// inferenceWorkspaceConfig is the config of an InferenceWorkspace (a KAITO
// Workspace that serves a preset model): KAITO runs its own server, so
// the kind has no image, resources, pool or priority. With
// aksml:kaito.install it runs on the stack's GPU pool of VM size
// InstanceType that the team lists and that is not spot (an inference
// pool of that size first), at most the pool's node ceiling in Count.
type inferenceWorkspaceConfig struct {
	InstanceType string `json:"instanceType,omitempty"`
	Preset       string `json:"preset,omitempty"`
	Count        int    `json:"count,omitempty"`
}

func (f *inferenceWorkspaceConfig) workspaceInstanceType() string { return f.InstanceType }
func (f *inferenceWorkspaceConfig) workspaceCount() int           { return f.Count }
func (f *inferenceWorkspaceConfig) workspaceWorkload() gpupool.WorkloadClass {
	return gpupool.WorkloadInference
}

// KindInferenceWorkspace is a KAITO inference Workspace
// (workloads.InferenceWorkspace).
const KindInferenceWorkspace WorkloadKind = "InferenceWorkspace"

func init() {
	registerKind(&workloadKind{
		// KAITO creates the serving StatefulSet, which no Kueue
		// integration manages, as InferenceServer's Deployment is not.
		kind: KindInferenceWorkspace, operator: &kaito, unqueued: true, validate: (*Config).validateKAITOWorkspace,
		config:       func() any { return &inferenceWorkspaceConfig{} },
		zeroDefaults: map[string]string{"count": "1"},
		build: func(c *Config, w WorkloadSpec, t workloadTarget) workloadArgs {
			cfg := w.Config.(*inferenceWorkspaceConfig)
			a := &workloads.InferenceWorkspaceArgs{
				Provider: t.common.Provider, Namespace: t.common.Namespace, Name: w.Name, Team: w.Team,
				InstanceType: cfg.InstanceType, Preset: cfg.Preset, Count: cfg.Count,
				NodeLabels: c.kaitoNodeLabels(w.Team, cfg.InstanceType, gpupool.WorkloadInference),
			}
			a.Default(w.Name)
			return a
		},
		register: register(workloads.NewInferenceWorkspace),
	})
}
