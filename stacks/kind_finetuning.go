package stacks

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/cluster"
	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/vocab"
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

// kaitoPool returns the pool a Workspace of team and VM size vmSize runs
// on when aksml installs KAITO: among the declared pools of that size that
// are not spot, whose GPUs pods request as nvidia.com/gpu and that the team
// lists in its gpuQuota, the first whose workload is prefer, else the
// first; or a problem naming the workload's instanceType.
//
// With node auto-provisioning off KAITO provisions nothing: the Workspace
// runs only on existing nodes that match its instanceType and labelSelector
// ("Bring Your Own GPU Nodes",
// https://kaito-project.github.io/kaito/docs/kaito-on-byo-gpu-nodes), so
// the size must be one of the stack's pools. Spot pools are excluded: the
// AKS MLOps best practices say never to use spot for inference serving, and
// a tuning run evicted with its node starts over. Whether KAITO's pods
// tolerate the Azure spot taint depends on the release (the 0.10.0 chart's
// spotInstance.enabled, default false, charts/kaito/workspace/values.yaml;
// later sources add the toleration on Azure unconditionally,
// pkg/workspace/inference defaultTolerations), so the team's admission
// policy, not the taint, keeps Workspaces off spot pools. MIG pools with
// the mixed strategy are excluded: KAITO's pods request nvidia.com/gpu
// (kaito-project/kaito pkg/workspace/inference, GenerateInferencePodSpec:
// the GPU count of the SKU as nvidia.com/gpu), which such a pool does not
// advertise. The team must list the pool in its gpuQuota: its admission
// policy admits Workspaces on those pools only (components/tenancy
// RuleWorkspacePool).
func (c *Config) kaitoPool(team, vmSize string, prefer gpupool.WorkloadClass, p field.Path) (*gpupool.Resolved, *field.Error) {
	var (
		spot, mig, unlisted []string
		eligible            []*gpupool.Resolved
	)
	quota := c.teamGPUQuota(team)
	for i := range c.res.pools {
		pool := &c.res.pools[i]
		if pool.VMSize != vmSize {
			continue
		}
		switch kaitoRefusal(pool, quota) {
		case refusedSpot:
			spot = append(spot, pool.Name)
		case refusedMIG:
			mig = append(mig, pool.Name)
		case refusedUnlisted:
			unlisted = append(unlisted, pool.Name)
		default:
			eligible = append(eligible, pool)
		}
	}
	if len(eligible) > 0 {
		if i := slices.IndexFunc(eligible, func(r *gpupool.Resolved) bool { return r.Workload == prefer }); i >= 0 {
			return eligible[i], nil
		}
		return eligible[0], nil
	}
	switch {
	case len(unlisted) > 0:
		return nil, field.Invalid(p, "%s is the VM size of pool(s) %v, which team %q does not list in its gpuQuota, so its admission policy refuses the Workspace there; add the pool to the team's gpuQuota in aksml:teams or pick the size of a pool it lists (%v)", vmSize, unlisted, team, quota)
	case len(mig) > 0:
		return nil, field.Invalid(p, "%s is the VM size of MIG pool(s) %v only; KAITO's pods request whole GPUs (nvidia.com/gpu), which a mixed-strategy MIG pool does not advertise, so add a pool of this size without MIG or pick the size of one", vmSize, mig)
	case len(spot) > 0:
		return nil, field.Invalid(p, "%s is the VM size of spot pool(s) %v only; aksml keeps KAITO serving and tuning off spot (AKS MLOps best practices: never spot for serving) and the team's admission policy refuses spot pools, so add a regular-priority pool of this size to aksml:gpuPools or pick the size of one", vmSize, spot)
	}
	return nil, field.Invalid(p, "%s is not the VM size of any pool in aksml:gpuPools; KAITO installed by aksml provisions no nodes (node auto-provisioning off), so use the vmSize of a regular-priority GPU pool or add one", vmSize)
}

// kaitoTeamPools are the pools, name to VM size, team's KAITO Workspaces
// may run on: those kaitoPool would pick from (not spot, whole GPUs,
// listed in the team's gpuQuota), never nil.
func (c *Config) kaitoTeamPools(team string) map[string]string {
	out := map[string]string{}
	quota := c.teamGPUQuota(team)
	for i := range c.res.pools {
		if pool := &c.res.pools[i]; kaitoRefusal(pool, quota) == "" {
			out[pool.Name] = pool.VMSize
		}
	}
	return out
}

// Why a pool cannot run a team's Workspace (kaitoRefusal).
const (
	refusedSpot     = "spot"
	refusedMIG      = "mig"
	refusedUnlisted = "unlisted"
)

// kaitoRefusal says why pool cannot run the Workspaces of a team whose
// gpuQuota lists quota (kaitoPool gives the sources), or "".
func kaitoRefusal(pool *gpupool.Resolved, quota []string) string {
	switch {
	case pool.IsSpot():
		return refusedSpot
	case pool.GPUResource != vocab.GPUResource:
		return refusedMIG
	case !slices.Contains(quota, pool.Name):
		return refusedUnlisted
	}
	return ""
}

// teamGPUQuota lists the pools team names in its gpuQuota, sorted.
func (c *Config) teamGPUQuota(team string) []string {
	for _, t := range c.Teams {
		if t.Name == team {
			return slices.Sorted(maps.Keys(t.GPUQuota))
		}
	}
	return nil
}

// kaitoWorkspaceConfig is what the stack checks of a KAITO Workspace kind.
type kaitoWorkspaceConfig interface {
	// workspaceInstanceType is the configured instanceType.
	workspaceInstanceType() string
	// workspaceCount is the configured node count; 0 means the default.
	workspaceCount() int
	// workspaceWorkload is the pool workload the kind prefers.
	workspaceWorkload() gpupool.WorkloadClass
}

func (f *fineTuningWorkspaceConfig) workspaceInstanceType() string { return f.InstanceType }
func (f *fineTuningWorkspaceConfig) workspaceCount() int           { return 0 }
func (f *fineTuningWorkspaceConfig) workspaceWorkload() gpupool.WorkloadClass {
	return gpupool.WorkloadFineTuning
}

// validateKAITOWorkspace checks a Workspace workload: its team's
// namespace admits KAITO's pods (Pod Security baseline: KAITO's pod specs
// set no securityContext, kaito-project/kaito
// pkg/workspace/inference setInferenceContainers and the tuning
// equivalent, so restricted, which requires runAsNonRoot, no privilege
// escalation, every capability dropped and a seccomp profile ("Pod
// Security Standards",
// https://kubernetes.io/docs/concepts/security/pod-security-standards/),
// refuses every pod KAITO creates); and, when aksml installs KAITO, its
// instanceType is a pool the team may run it on (kaitoPool) and its node
// count fits that pool's node ceiling (KAITO provisions no nodes in this
// mode, so a Workspace asking for more nodes than the pool can have waits
// forever).
func (c *Config) validateKAITOWorkspace(w WorkloadSpec, p field.Path) field.ErrorList {
	cfg, ok := w.Config.(kaitoWorkspaceConfig)
	if !ok {
		return nil
	}
	var errs field.ErrorList
	for i, t := range c.Teams {
		if t.Name == w.Team && t.PodSecurity != vocab.PodSecurityBaseline {
			errs = append(errs, field.Invalid(p.Child("team"), "team %q enforces Pod Security %s, which refuses every pod KAITO creates (KAITO sets no securityContext); set %s.podSecurity: baseline for the team that runs KAITO Workspaces, or remove the workload", w.Team, cmp.Or(string(t.PodSecurity), string(vocab.PodSecurityRestricted)), key("teams").Index(i)))
		}
	}
	if !c.KAITO.Install || c.ExistingCluster != nil || cfg.workspaceInstanceType() == "" {
		return errs
	}
	pool, err := c.kaitoPool(w.Team, cfg.workspaceInstanceType(), cfg.workspaceWorkload(), p.Child("instanceType"))
	if err != nil {
		return append(errs, err)
	}
	count := max(cfg.workspaceCount(), workloads.DefaultWorkspaceNodeCount)
	if n, ceiling := pool.NodeCeiling(); count > n {
		errs = append(errs, field.Invalid(p.Child("count"), "%d node(s), but pool %q has at most %d (%s); KAITO installed by aksml provisions no nodes, so lower the count or raise %s", count, pool.Name, n, pool.Path.Child(ceiling), pool.Path.Child(ceiling)))
	}
	return errs
}

// kaitoNodeLabels returns the labelSelector of a Workspace of team on VM
// size vmSize (prefer as in kaitoPool): with aksml's KAITO install, its pool's
// {kubernetes.azure.com/agentpool: <pool>} (the label AKS puts on the
// pool's nodes; the BYO guide labels the nodes it selects), else nil
// (the component's default).
func (c *Config) kaitoNodeLabels(team, vmSize string, prefer gpupool.WorkloadClass) map[string]string {
	if !c.KAITO.Install || c.ExistingCluster != nil {
		return nil
	}
	if pool, _ := c.kaitoPool(team, vmSize, prefer, ""); pool != nil {
		return map[string]string{gpupool.AgentPoolLabel: pool.Name}
	}
	return nil
}

// KindFineTuningWorkspace is a KAITO fine-tuning Workspace
// (workloads.FineTuningWorkspace).
const KindFineTuningWorkspace WorkloadKind = "FineTuningWorkspace"

func init() {
	registerKind(&workloadKind{
		kind: KindFineTuningWorkspace, operator: &kaito, validate: (*Config).validateKAITOWorkspace,
		config: func() any { return &fineTuningWorkspaceConfig{} },
		build: func(c *Config, w WorkloadSpec, t workloadTarget) workloadArgs {
			cfg := w.Config.(*fineTuningWorkspaceConfig)
			a := &workloads.FineTuningWorkspaceArgs{
				Provider: t.common.Provider, Namespace: t.common.Namespace, Name: w.Name, Team: w.Team, InstanceType: cfg.InstanceType, Preset: cfg.Preset,
				Method: workloads.TuningQLoRA, InputURLs: cfg.InputURLs, OutputImage: cfg.OutputImage, OutputImagePushSecret: cfg.OutputImagePushSecret,
			}
			a.NodeLabels = c.kaitoNodeLabels(w.Team, cfg.InstanceType, cfg.workspaceWorkload())
			a.Default(w.Name)
			return a
		},
		register: register(workloads.NewFineTuningWorkspace),
	})
}
