package stacks

import (
	"github.com/aksml/aksml/components/cluster"
	"github.com/aksml/aksml/components/workloads"
)

// fineTuningWorkspaceConfig is the config of a FineTuningWorkspace (a KAITO
// Workspace, AKS MLOps best practices): KAITO runs its own container on
// nodes it provisions, so the kind has no image, resources, pool or
// priority.
type fineTuningWorkspaceConfig struct {
	InstanceType          string   `json:"instanceType,omitempty"`
	Preset                string   `json:"preset,omitempty"`
	InputURLs             []string `json:"inputURLs,omitempty"`
	OutputImage           string   `json:"outputImage,omitempty"`
	OutputImagePushSecret string   `json:"outputImagePushSecret,omitempty"`
}

var fineTuningWorkspaceKind = workloadKind{
	kind: KindFineTuningWorkspace, operator: cluster.InstalledKAITO,
	config: func() any { return &fineTuningWorkspaceConfig{} },
	build: func(_ *Config, w WorkloadSpec, t workloadTarget) workloadArgs {
		cfg := w.Config.(*fineTuningWorkspaceConfig)
		a := &workloads.FineTuningWorkspaceArgs{
			Provider: t.common.Provider, Namespace: t.common.Namespace, Name: w.Name, Team: w.Team, InstanceType: cfg.InstanceType, Preset: cfg.Preset,
			Method: workloads.TuningQLoRA, InputURLs: cfg.InputURLs, OutputImage: cfg.OutputImage, OutputImagePushSecret: cfg.OutputImagePushSecret,
		}
		a.Default(w.Name)
		return a
	},
	register: register(workloads.NewFineTuningWorkspace),
}
