package stacks

import (
	"fmt"

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

// kaito is the KAITO operator (kaito.sh Workspace CRD). The managed
// cluster API aksml uses (containerservice 2024-10-01, the typed SDK's
// newest GA) has no aiToolchainOperatorProfile (published spec
// aks/stable/2024-10-01/managedClusters.json; it appears only in preview
// versions), and the KAITO Helm chart's node provisioner needs an Azure
// managed identity with a federated credential and a role on the cluster's
// resource group, which aksml does not create. So aksml cannot install
// KAITO honestly and accepts a FineTuningWorkspace only on an existing
// cluster that declares it in aksml:existingCluster.installed.
var kaito = operator{
	missing: func(c *Config, kind WorkloadKind) string {
		switch {
		case c.ExistingCluster != nil && c.ExistingCluster.Has(cluster.InstalledKAITO):
			return ""
		case c.ExistingCluster != nil:
			return fmt.Sprintf("%s needs the KAITO operator (kaito.sh Workspace CRD); install KAITO on the cluster and declare aksml:existingCluster.installed: [%s], or remove the workload", kind, cluster.InstalledKAITO)
		}
		return fmt.Sprintf("%s needs the KAITO operator, which aksml cannot install on a cluster it creates: the AKS API it uses (2024-10-01) has no aiToolchainOperatorProfile and the KAITO chart's node provisioner needs an Azure identity aksml does not create; remove the workload, or deploy it with aksml:existingCluster on a cluster that runs KAITO and declare aksml:existingCluster.installed: [%s]", kind, cluster.InstalledKAITO)
	},
}

// KindFineTuningWorkspace is a KAITO fine-tuning Workspace
// (workloads.FineTuningWorkspace).
const KindFineTuningWorkspace WorkloadKind = "FineTuningWorkspace"

func init() {
	registerKind(&workloadKind{
		kind: KindFineTuningWorkspace, operator: &kaito,
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
	})
}
