package stacks

import (
	"fmt"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/cluster"
	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/workloads"
)

// fineTuningWorkspaceConfig is the config of a FineTuningWorkspace (a KAITO
// Workspace, AKS MLOps best practices): KAITO runs its own container, so
// the kind has no image, resources, pool or priority. With aksml:kaito.install
// it runs on the stack's GPU pool of VM size InstanceType.
type fineTuningWorkspaceConfig struct {
	InstanceType          string   `json:"instanceType,omitempty"`
	Preset                string   `json:"preset,omitempty"`
	InputURLs             []string `json:"inputURLs,omitempty"`
	OutputImage           string   `json:"outputImage,omitempty"`
	OutputImagePushSecret string   `json:"outputImagePushSecret,omitempty"`
}

// kaito is the KAITO operator (kaito.sh Workspace CRD). aksml does not
// use the AKS AI toolchain operator add-on: the managed cluster API aksml
// creates clusters with (containerservice 2024-10-01, the typed SDK's
// newest GA) has no aiToolchainOperatorProfile (published spec
// aks/stable/2024-10-01/managedClusters.json; it appears only in preview
// versions), and a second resource writing the cluster would break "one
// owner per name". Instead aksml:kaito.install installs the pinned KAITO
// chart with node auto-provisioning off (workloads.NewKAITO), which needs
// no Azure identity; or an existing cluster declares KAITO in
// aksml:existingCluster.installed.
var kaito = operator{
	missing: func(c *Config, kind WorkloadKind) string {
		switch {
		case c.ExistingCluster != nil && c.ExistingCluster.Has(cluster.InstalledKAITO):
			return ""
		case c.ExistingCluster != nil:
			return fmt.Sprintf("%s needs the KAITO operator (kaito.sh Workspace CRD); install KAITO on the cluster and declare aksml:existingCluster.installed: [%s], or remove the workload", kind, cluster.InstalledKAITO)
		case c.KAITO.Install:
			return ""
		}
		return fmt.Sprintf("%s needs the KAITO operator (kaito.sh Workspace CRD), which nothing in this stack provides; set aksml:kaito.install: true (aksml installs the KAITO chart %s with its own GPU pools as the Workspaces' nodes), or remove the workload", kind, workloads.KAITOVersion)
	},
	installed: func(p *platform) []pulumi.Resource {
		if p.kaito == nil {
			return nil
		}
		return p.kaito.Resources()
	},
}

// validateKAITO checks aksml:kaito: the install is for clusters aksml
// creates (on an existing cluster the Workspaces' nodes are not the
// stack's pools, so they cannot be checked).
func (c *Config) validateKAITO() field.ErrorList {
	if c.KAITO.Install && c.ExistingCluster != nil {
		return field.ErrorList{field.Forbidden(key("kaito").Child("install"), "aksml installs KAITO only on a cluster it creates, whose GPU pools the Workspaces are checked against; on an existing cluster install KAITO yourself and declare aksml:existingCluster.installed: [kaito], or remove aksml:kaito")}
	}
	return nil
}

// kaitoPool returns the pool a Workspace of VM size vmSize runs on when
// aksml installs KAITO: the first declared pool of that size that is not
// spot, or a problem naming the workload's instanceType.
//
// With node auto-provisioning off KAITO provisions nothing: the Workspace
// runs only on existing nodes that match its instanceType and labelSelector
// ("Bring Your Own GPU Nodes",
// https://kaito-project.github.io/kaito/docs/kaito-on-byo-gpu-nodes), so
// the size must be one of the stack's pools. Spot pools are excluded: the
// chart adds the toleration of the Azure spot taint only with
// spotInstance.enabled, default false, which aksml keeps
// (kaito-project/kaito charts/kaito/workspace/values.yaml, spotInstance),
// so KAITO's pods would stay Pending there; and the AKS MLOps best
// practices say never to use spot for inference serving.
func (c *Config) kaitoPool(vmSize string, p field.Path) (*gpupool.Resolved, *field.Error) {
	var spot []string
	for i := range c.res.pools {
		pool := &c.res.pools[i]
		if pool.VMSize != vmSize {
			continue
		}
		if pool.IsSpot() {
			spot = append(spot, pool.Name)
			continue
		}
		return pool, nil
	}
	if len(spot) > 0 {
		return nil, field.Invalid(p, "%s is the VM size of spot pool(s) %v only; KAITO's pods do not tolerate the spot taint and aksml keeps serving and tuning off spot, so add a regular-priority pool of this size to aksml:gpuPools or pick the size of one", vmSize, spot)
	}
	return nil, field.Invalid(p, "%s is not the VM size of any pool in aksml:gpuPools; KAITO installed by aksml provisions no nodes (node auto-provisioning off), so use the vmSize of a regular-priority GPU pool or add one", vmSize)
}

// KindFineTuningWorkspace is a KAITO fine-tuning Workspace
// (workloads.FineTuningWorkspace).
const KindFineTuningWorkspace WorkloadKind = "FineTuningWorkspace"

func init() {
	registerKind(&workloadKind{
		kind: KindFineTuningWorkspace, operator: &kaito,
		config: func() any { return &fineTuningWorkspaceConfig{} },
		build: func(c *Config, w WorkloadSpec, t workloadTarget) workloadArgs {
			cfg := w.Config.(*fineTuningWorkspaceConfig)
			a := &workloads.FineTuningWorkspaceArgs{
				Provider: t.common.Provider, Namespace: t.common.Namespace, Name: w.Name, Team: w.Team, InstanceType: cfg.InstanceType, Preset: cfg.Preset,
				Method: workloads.TuningQLoRA, InputURLs: cfg.InputURLs, OutputImage: cfg.OutputImage, OutputImagePushSecret: cfg.OutputImagePushSecret,
			}
			if c.KAITO.Install && c.ExistingCluster == nil {
				// The Workspace selects its pool's nodes by the label AKS
				// puts on them (the BYO guide labels nodes it selects).
				if pool, _ := c.kaitoPool(cfg.InstanceType, ""); pool != nil {
					a.NodeLabels = map[string]string{gpupool.AgentPoolLabel: pool.Name}
				}
			}
			a.Default(w.Name)
			return a
		},
		register: register(workloads.NewFineTuningWorkspace),
	})
}
