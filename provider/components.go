package provider

import (
	"github.com/pulumi/pulumi-go-provider/infer"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/gpustack"
	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/storage"
	"github.com/aksml/aksml/components/teams"
	"github.com/aksml/aksml/components/tenancy"
)

// QueuesArgs are the inputs of aksml:queues:Queues (queues.QueuesArgs).
type QueuesArgs struct {
	Teams      []Team                `pulumi:"teams,optional"`
	Pools      []gpupool.Spec        `pulumi:"pools,optional"`
	Scheduler  *queues.SchedulerSpec `pulumi:"scheduler,optional"`
	Namespaces pulumi.StringMapInput `pulumi:"namespaces,optional"`
}

// Annotate documents QueuesArgs in the schema.
func (a *QueuesArgs) Annotate(an infer.Annotator) {
	an.Describe(&a.Teams, "The tenants: a Kueue ClusterQueue and LocalQueue `gpu-queue` each (same fields as `aksml:teams`; give aksml:tenancy:Tenancy the same teams for their namespaces and quota).")
	an.Describe(&a.Pools, "The cluster's GPU pools (same fields as `aksml:gpuPools`): one ResourceFlavor each, and the capacity the teams' quota must fit.")
	an.Describe(&a.Scheduler, "The queueing system and its settings (same fields as `aksml:scheduler`). Default: Kueue, installed by aksml.")
	an.Describe(&a.Namespaces, "The team namespaces by team name, where the LocalQueues go: aksml:tenancy:Tenancy's `namespaces` output. Required with Kueue when there are teams.")
}

// NewQueues constructs queues.Queues from the teams, pools and scheduler
// resolved as the aksml stacks resolve them (resolveTeams).
func NewQueues(ctx *pulumi.Context, name string, args QueuesArgs, opts ...pulumi.ResourceOption) (*queues.Queues, error) {
	_, r, err := resolveTeams(args.Teams, args.Pools, args.Scheduler)
	if err != nil {
		return nil, err
	}
	return queues.NewQueues(ctx, name, &queues.QueuesArgs{Resolved: r, Namespaces: args.Namespaces}, opts...)
}

// resolveTeams converts the teams to the stack-level teams.Team and
// resolves their queue sides against the pools and the scheduler at
// queues.DefaultPaths, once, as aksml:queues:Queues and
// aksml:tenancy:Tenancy both need them; the problems travel in the result
// and the Go component reports them.
func resolveTeams(in []Team, specs []gpupool.Spec, sched *queues.SchedulerSpec) ([]teams.Team, *queues.Resolved, error) {
	ts, err := goTeams(in)
	if err != nil {
		return nil, nil, err
	}
	paths := queues.DefaultPaths()
	pools, _ := gpupool.Resolve(specs, paths.Pools)
	r, _ := queues.Resolve(teams.Queues(ts), pools, deref(sched), paths)
	return ts, r, nil
}

// goTeams converts the teams to the stack-level teams.Team.
func goTeams(in []Team) ([]teams.Team, error) {
	var out []teams.Team
	for _, t := range in {
		team, err := t.team()
		if err != nil {
			return nil, err
		}
		out = append(out, team)
	}
	return out, nil
}

// TenancyArgs are the inputs of aksml:tenancy:Tenancy: the Kubernetes side
// of tenancy.TenancyArgs (namespaces, quotas, RBAC, NetworkPolicies; the
// Azure identities need the aksml program), with the teams, pools and
// scheduler of aksml:queues:Queues, from which each team's ResourceQuota is
// sized as the aksml stacks size it (queues.Resolved.ResourceQuotaHard).
type TenancyArgs struct {
	Teams            []Team                `pulumi:"teams,optional"`
	Pools            []gpupool.Spec        `pulumi:"pools,optional"`
	Scheduler        *queues.SchedulerSpec `pulumi:"scheduler,optional"`
	RetainNamespaces *bool                 `pulumi:"retainNamespaces,optional"`
	ExcludedCIDRs    []string              `pulumi:"excludedCidrs,optional"`
}

// Annotate documents TenancyArgs in the schema.
func (a *TenancyArgs) Annotate(an infer.Annotator) {
	an.Describe(&a.Teams, "The tenants: a namespace each, with its ResourceQuotas `gpu-quota` and `team-quota`, admission policy `aksml-tenancy-<team>`, member Role bound to its Entra groups and NetworkPolicies (same fields as `aksml:teams`, the same list aksml:queues:Queues takes).")
	an.Describe(&a.Pools, "The cluster's GPU pools (same fields as `aksml:gpuPools`), which size each team's ResourceQuota with the scheduler.")
	an.Describe(&a.Scheduler, "The queueing system (same fields as `aksml:scheduler`): each team's ResourceQuota allows what its queue can admit. Default: Kueue.")
	an.Describe(&a.RetainNamespaces, "Keep the team namespaces (and the checkpoint claims in them) when they leave the stack or the stack is destroyed. Default false.")
	an.Describe(&a.ExcludedCIDRs, "The cluster's pod and service ranges, never reachable through the external HTTPS egress allowance. Default the AKS defaults 10.244.0.0/16 and 10.0.0.0/16.")
}

// NewTenancy constructs tenancy.Tenancy: it resolves the teams as
// aksml:queues:Queues does (the same problems, at the same keys) and gives
// tenancy each team's namespace fields, ResourceQuotas (the namespace
// quota on aksml's StorageClasses) and priorities (teams.Tenancy).
func NewTenancy(ctx *pulumi.Context, name string, args TenancyArgs, opts ...pulumi.ResourceOption) (*tenancy.Tenancy, error) {
	ts, r, err := resolveTeams(args.Teams, args.Pools, args.Scheduler)
	if err != nil {
		return nil, err
	}
	a := &tenancy.TenancyArgs{RetainNamespaces: deref(args.RetainNamespaces), ExcludedCIDRs: args.ExcludedCIDRs, ConfigPath: r.Paths.Teams,
		Teams: teams.Tenancy(ts, r, storage.ClassNames(), nil)}
	// As the aksml stacks do: the queue-side problems (names included) and
	// the namespace's own, each once.
	if err := append(r.Problems, tenancy.ValidateTeams(a.Teams, r.Paths.Teams)...).ToAggregate(); err != nil {
		return nil, err
	}
	return tenancy.NewTenancy(ctx, name, a, opts...)
}

// Team is one tenant of Queues and Tenancy: teams.Team (its queue side,
// queues.Team, and its namespace side, teams.Namespace) with its
// preemption policy as an optional object (the Go field is a struct value,
// which the schema cannot make optional). Its fields are both sides',
// flattened: a construct fills only the fields of a nested object itself,
// not embedded ones (TestArgsCoverTheGoArgs fails when either side gains a
// field this lacks).
type Team struct {
	Name                 string                  `pulumi:"name"`
	GPUQuota             map[string]int          `pulumi:"gpuQuota,optional"`
	CPU                  string                  `pulumi:"cpu"`
	Memory               string                  `pulumi:"memory"`
	BorrowingLimit       *int                    `pulumi:"borrowingLimit,optional"`
	LendingLimit         *int                    `pulumi:"lendingLimit,optional"`
	CPUBorrowingLimit    string                  `pulumi:"cpuBorrowingLimit,optional"`
	CPULendingLimit      string                  `pulumi:"cpuLendingLimit,optional"`
	MemoryBorrowingLimit string                  `pulumi:"memoryBorrowingLimit,optional"`
	MemoryLendingLimit   string                  `pulumi:"memoryLendingLimit,optional"`
	Weight               int                     `pulumi:"weight,optional"`
	PodSecurity          queues.PodSecurityLevel `pulumi:"podSecurity,optional"`
	FlavorOrder          []string                `pulumi:"flavorOrder,optional"`
	Groups               []string                `pulumi:"groups,optional"`
	Egress               string                  `pulumi:"egress,optional"`
	Serving              bool                    `pulumi:"serving,optional"`
	NamespaceQuota       map[string]string       `pulumi:"namespaceQuota,optional"`
	Preemption           *Preemption             `pulumi:"preemption,optional"`
}

// Annotate keeps the Go type's token and documents Preemption.
func (t *Team) Annotate(an infer.Annotator) {
	an.SetToken("queues", "Team")
	an.Describe(&t.Preemption, "The team's Kueue preemption policy. Defaults: withinClusterQueue LowerPriority, reclaimWithinCohort Any, borrowWithinCohort Never. Kueue only.")
}

// team is the stack-level teams.Team: the queue side and the namespace
// side, by field name.
func (t Team) team() (teams.Team, error) {
	var out teams.Team
	if err := assign(&out, t, "Preemption"); err != nil {
		return out, err
	}
	if p := t.Preemption; p != nil {
		out.Preemption = queues.Preemption{WithinClusterQueue: p.WithinClusterQueue, ReclaimWithinCohort: p.ReclaimWithinCohort}
		if p.BorrowWithinCohort != nil {
			out.Preemption.BorrowWithinCohort = *p.BorrowWithinCohort
		}
	}
	return out, nil
}

// Preemption is queues.Preemption with an optional borrowWithinCohort.
type Preemption struct {
	WithinClusterQueue  queues.KueuePolicy         `pulumi:"withinClusterQueue,optional"`
	ReclaimWithinCohort queues.KueuePolicy         `pulumi:"reclaimWithinCohort,optional"`
	BorrowWithinCohort  *queues.BorrowWithinCohort `pulumi:"borrowWithinCohort,optional"`
}

// Annotate keeps the Go type's token; the fields take queues.Preemption's
// doc comments.
func (p *Preemption) Annotate(an infer.Annotator) {
	an.SetToken("queues", "Preemption")
}

// StorageClassesArgs are the inputs of aksml:storage:StorageClasses.
type StorageClassesArgs struct {
	Accounts       *ClassAccounts `pulumi:"accounts,optional"`
	ScratchDiskSku *string        `pulumi:"scratchDiskSku,optional"`
}

// ClassAccounts pins the classes to existing storage accounts
// (storage.ClassAccounts).
type ClassAccounts struct {
	ResourceGroupName pulumi.StringInput `pulumi:"resourceGroupName"`
	FilesAccountName  pulumi.StringInput `pulumi:"filesAccountName,optional"`
	BlobAccountName   pulumi.StringInput `pulumi:"blobAccountName,optional"`
}

// Annotate documents StorageClassesArgs in the schema.
func (a *StorageClassesArgs) Annotate(an infer.Annotator) {
	an.Describe(&a.Accounts, "Pin the classes to these storage accounts (storageAccount and resourceGroup CSI parameters). Default: the CSI drivers choose.")
	an.Describe(&a.ScratchDiskSku, "skuName of the ml-scratch-azuredisk class. Default Premium_LRS.")
}

// Annotate documents ClassAccounts in the schema.
func (a *ClassAccounts) Annotate(an infer.Annotator) {
	an.SetToken("storage", "ClassAccounts")
	an.Describe(&a.ResourceGroupName, "Resource group of the accounts.")
	an.Describe(&a.FilesAccountName, "Azure Files premium account behind ml-azurefile-premium and ml-checkpoints-azurefile.")
	an.Describe(&a.BlobAccountName, "Blob NFS account behind ml-azureblob-nfs.")
}

// NewStorageClasses constructs storage.StorageClasses.
func NewStorageClasses(ctx *pulumi.Context, name string, args StorageClassesArgs, opts ...pulumi.ResourceOption) (*storage.StorageClasses, error) {
	a := &storage.StorageClassesArgs{ScratchDiskSKU: deref(args.ScratchDiskSku)}
	if acc := args.Accounts; acc != nil {
		a.Accounts = &storage.ClassAccounts{ResourceGroupName: acc.ResourceGroupName, FilesAccountName: acc.FilesAccountName, BlobAccountName: acc.BlobAccountName}
	}
	return storage.NewStorageClasses(ctx, name, a, opts...)
}

// TeamVolumesArgs are the inputs of aksml:storage:TeamVolumes.
type TeamVolumesArgs struct {
	Namespace         pulumi.StringInput   `pulumi:"namespace"`
	Spec              *storage.VolumesSpec `pulumi:"spec,optional"`
	RetainCheckpoints *bool                `pulumi:"retainCheckpoints,optional"`
}

// Annotate documents TeamVolumesArgs in the schema.
func (a *TeamVolumesArgs) Annotate(an infer.Annotator) {
	an.Describe(&a.Namespace, "The team namespace the claims are created in, e.g. an output of Queues.namespaces.")
	an.Describe(&a.Spec, "Claim sizes and the datasets class (same fields as `aksml:storage.volumes`).")
	an.Describe(&a.RetainCheckpoints, "Leave the checkpoints claim (and its volume) in the cluster on destroy. Default false; set it in prod.")
}

// NewTeamVolumes constructs storage.TeamVolumes.
func NewTeamVolumes(ctx *pulumi.Context, name string, args TeamVolumesArgs, opts ...pulumi.ResourceOption) (*storage.TeamVolumes, error) {
	a := &storage.TeamVolumesArgs{Namespace: args.Namespace, RetainCheckpoints: deref(args.RetainCheckpoints)}
	if args.Spec != nil {
		a.Spec = *args.Spec
	}
	return storage.NewTeamVolumes(ctx, name, a, opts...)
}

// GPUStackArgs are the inputs of aksml:gpustack:GPUStack.
type GPUStackArgs struct {
	Pools []gpupool.Spec `pulumi:"pools,optional"`
	Spec  *gpustack.Spec `pulumi:"spec,optional"`
}

// Annotate documents GPUStackArgs in the schema.
func (a *GPUStackArgs) Annotate(an infer.Annotator) {
	an.Describe(&a.Pools, "The cluster's GPU pools (same fields as `aksml:gpuPools`); only DriverOnly pools get the device plugin and DCGM exporter.")
	an.Describe(&a.Spec, "The GPU software configuration (same fields as `aksml:gpuStack`).")
}

// NewGPUStack constructs gpustack.GPUStack from the spec and pools resolved
// at gpustack's default config keys (the problems travel in the result).
func NewGPUStack(ctx *pulumi.Context, name string, args GPUStackArgs, opts ...pulumi.ResourceOption) (*gpustack.GPUStack, error) {
	pools, _ := gpupool.Resolve(args.Pools, gpustack.DefaultPoolsConfigPath)
	r, _ := gpustack.Resolve(deref(args.Spec), pools, gpustack.DefaultConfigPath, gpustack.DefaultPoolsConfigPath)
	return gpustack.NewGPUStack(ctx, name, &gpustack.GPUStackArgs{Resolved: r}, opts...)
}

// GPUNodePoolsArgs are the inputs of aksml:gpupool:GPUNodePools.
type GPUNodePoolsArgs struct {
	Pools             []gpupool.Spec     `pulumi:"pools"`
	ResourceGroupName pulumi.StringInput `pulumi:"resourceGroupName"`
	ClusterName       pulumi.StringInput `pulumi:"clusterName"`
	NodeSubnetId      pulumi.StringInput `pulumi:"nodeSubnetId,optional"`
	Tags              map[string]string  `pulumi:"tags,optional"`
}

// Annotate documents GPUNodePoolsArgs in the schema.
func (a *GPUNodePoolsArgs) Annotate(an infer.Annotator) {
	an.Describe(&a.Pools, "The GPU pools (same fields as `aksml:gpuPools`).")
	an.Describe(&a.ResourceGroupName, "The cluster's resource group.")
	an.Describe(&a.ClusterName, "The AKS cluster the pools join; pass the cluster's name output so the pools wait for it.")
	an.Describe(&a.NodeSubnetId, "The subnet (ARM ID) every pool joins. Default: the VNet AKS generated.")
	an.Describe(&a.Tags, "Tags on every pool's scale set and on the template stack.")
}

// NewGPUNodePools constructs gpupool.GPUNodePools from the pools resolved
// at gpupool.DefaultConfigPath (the problems travel in the result).
func NewGPUNodePools(ctx *pulumi.Context, name string, args GPUNodePoolsArgs, opts ...pulumi.ResourceOption) (*gpupool.GPUNodePools, error) {
	pools, _ := gpupool.Resolve(args.Pools, gpupool.DefaultConfigPath)
	return gpupool.NewGPUNodePools(ctx, name, &gpupool.GPUNodePoolsArgs{
		Pools:             pools,
		ResourceGroupName: args.ResourceGroupName,
		ClusterName:       args.ClusterName,
		NodeSubnetID:      args.NodeSubnetId,
		Tags:              args.Tags,
	}, opts...)
}

// deref is the value of an optional input, or its zero value (the Go
// component's "default").
func deref[T any](v *T) T {
	if v == nil {
		var zero T
		return zero
	}
	return *v
}
