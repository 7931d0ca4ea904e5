package queues

import (
	"slices"

	"github.com/aksml/aksml/components/vocab"
)

// System is the primary queueing and gang-scheduling system of a cluster.
// AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops): standardise on one primary system unless you have a tested
// interoperability design, so exactly one is chosen.
type System string

// Valid systems.
const (
	// SystemKueue: Kueue admission control with ResourceFlavors, per-team
	// ClusterQueues in a shared cohort, LocalQueues and WorkloadPriorityClasses.
	SystemKueue System = "kueue"
	// SystemVolcano: the Volcano batch scheduler with one Queue per team.
	SystemVolcano System = "volcano"
	// SystemNone: no queueing; namespaces, PriorityClasses and ResourceQuotas only.
	SystemNone System = "none"
)

// Systems lists the valid systems.
var Systems = []System{SystemKueue, SystemVolcano, SystemNone}

// PodSecurityLevel is the Pod Security admission level of a team namespace
// (components/teams Namespace.PodSecurity). The namespaces are components/tenancy's, which
// defaults and validates it; the levels are vocab's.
type PodSecurityLevel = vocab.PodSecurityLevel

// Valid levels (vocab.PodSecurityRestricted and vocab.PodSecurityBaseline).
const (
	// PodSecurityRestricted: non-root, no privilege escalation, all
	// capabilities dropped, RuntimeDefault seccomp.
	PodSecurityRestricted = vocab.PodSecurityRestricted
	// PodSecurityBaseline: blocks known privilege escalations but allows
	// root containers (e.g. stock CUDA images that run as root).
	PodSecurityBaseline = vocab.PodSecurityBaseline
)

// Team is the queue side of one tenant of the stack config list
// `aksml:teams`: its queue and quota. The namespace side (Pod Security
// level, groups, egress, namespace quota), which components/tenancy creates
// and validates, is components/teams' Namespace; components/teams' Team
// composes the two (Name is both).
type Team struct {
	// Name is the team and its namespace name: a DNS label (lowercase
	// letters, digits and '-'), at most 30 characters, not `default`, not
	// `kube-*` and not a scheduler's namespace (components/tenancy checks
	// the reserved names). Required.
	Name string `json:"name" pulumi:"name"`
	// GPUQuota is the nominal GPU quota per GPU pool name (one Kueue
	// ResourceFlavor per pool). On MIG pools the unit is one MIG instance of
	// the pool's profile. A pool listed with 0 lets the team borrow on it but
	// guarantees nothing. Pools not listed are not available to the team.
	// Default none.
	GPUQuota map[string]int `json:"gpuQuota,omitempty" pulumi:"gpuQuota,optional"`
	// CPU is the team's nominal cpu quota as a Kubernetes quantity (AKS MLOps
	// best practices, team-a: "64"). It covers the cpu of GPU and CPU-only work alike.
	// Required.
	CPU string `json:"cpu" pulumi:"cpu"`
	// Memory is the team's nominal memory quota as a Kubernetes quantity
	// (AKS MLOps best practices team-a: "256Gi"). Required.
	Memory string `json:"memory" pulumi:"memory"`
	// BorrowingLimit is the most GPUs the team may borrow from the cohort's
	// unused quota, per GPU pool it lists. Default unset: no limit. 0 turns
	// borrowing off.
	BorrowingLimit *int `json:"borrowingLimit,omitempty" pulumi:"borrowingLimit,optional"`
	// LendingLimit is the most unused GPUs the team lends to the cohort per
	// GPU pool (capped at the pool's nominal quota; the rest is reserved for
	// the team). Default unset: all unused quota can be lent. Kueue only.
	LendingLimit *int `json:"lendingLimit,omitempty" pulumi:"lendingLimit,optional"`
	// CPUBorrowingLimit is the most cpu the team may borrow from the
	// cohort's unused cpu quota, a Kubernetes quantity. Default unset: no
	// limit; "0" turns cpu borrowing off. Kueue only.
	CPUBorrowingLimit string `json:"cpuBorrowingLimit,omitempty" pulumi:"cpuBorrowingLimit,optional"`
	// CPULendingLimit is the most unused cpu quota the team lends to the
	// cohort, at most CPU. Default unset: all unused cpu quota can be lent.
	// Kueue only.
	CPULendingLimit string `json:"cpuLendingLimit,omitempty" pulumi:"cpuLendingLimit,optional"`
	// MemoryBorrowingLimit is the most memory the team may borrow, a
	// Kubernetes quantity. Default unset: no limit; "0" turns memory
	// borrowing off. Kueue only.
	MemoryBorrowingLimit string `json:"memoryBorrowingLimit,omitempty" pulumi:"memoryBorrowingLimit,optional"`
	// MemoryLendingLimit is the most unused memory quota the team lends, at
	// most Memory. Default unset: all unused memory quota can be lent.
	// Kueue only.
	MemoryLendingLimit string `json:"memoryLendingLimit,omitempty" pulumi:"memoryLendingLimit,optional"`
	// Preemption is the team's Kueue preemption policy. Defaults:
	// withinClusterQueue LowerPriority, reclaimWithinCohort Any,
	// borrowWithinCohort Never. Kueue only.
	Preemption Preemption `json:"preemption,omitempty"`
	// Weight is the team's fair-sharing weight when teams compete for unused
	// quota (Kueue ClusterQueue fairSharing.weight, Volcano Queue weight),
	// 1..65535. Default 1.
	Weight int `json:"weight,omitempty" pulumi:"weight,optional"`
	// FlavorOrder lists GPU pool names in the order Kueue tries their
	// flavors for the team's workloads. Listed pools come first; the others
	// follow in the default order: on-demand pools, then spot pools, each in
	// `aksml:gpuPools` order. On-demand comes first because admission onto a
	// flavor does not guarantee capacity and spot capacity can be absent;
	// list spot pools first to trade that for cost. Kueue only.
	FlavorOrder []string `json:"flavorOrder,omitempty" pulumi:"flavorOrder,optional"`
	// Serving declares a team that runs latency-sensitive serving: it may
	// use the serving-only priority levels (ServingOnly: the levels whose
	// pods preempt lower-priority pods, inference-critical by default),
	// which evict other teams' training. Queues does not use it;
	// components/tenancy's admission policy refuses those levels in the
	// namespaces of teams that are not serving. Default false.
	Serving bool `json:"serving,omitempty" pulumi:"serving,optional"`
}

// Default fills unset fields with their documented defaults.
func (t *Team) Default() {
	if t.Weight == 0 {
		t.Weight = DefaultWeight
	}
	t.Preemption.Default()
}

// SchedulerSpec selects and configures the cluster's queueing system. It is
// decoded from the stack config object `aksml:scheduler`.
type SchedulerSpec struct {
	// System is kueue (default), volcano or none. Only one runs: settings
	// of the other system are rejected.
	System System `json:"system,omitempty" pulumi:"system,optional"`
	// InstallKueue installs Kueue KueueVersion from its Helm chart. Default
	// true with system kueue. Set false where Kueue is already installed
	// (e.g. a sandbox that runs it itself): the queue objects are still
	// created. Kueue only.
	InstallKueue *bool `json:"installKueue,omitempty" pulumi:"installKueue,optional"`
	// InstallVolcano installs Volcano VolcanoVersion from its Helm chart.
	// Default true with system volcano. Volcano only.
	InstallVolcano *bool `json:"installVolcano,omitempty" pulumi:"installVolcano,optional"`
	// Cohort is the Kueue cohort all team ClusterQueues join. Default
	// "aksml". A DNS subdomain. Kueue only.
	Cohort string `json:"cohort,omitempty" pulumi:"cohort,optional"`
	// OvercommitRatio allows the nominal GPU quota handed out on a pool to
	// exceed the pool's capacity at maxCount by this factor; >= 1. Default
	// 1.0 (no overcommit). Set it only when overcommit is deliberate, e.g.
	// teams that rarely run at the same time.
	OvercommitRatio float64 `json:"overcommitRatio,omitempty" pulumi:"overcommitRatio,optional"`
	// KueueIntegrations are the job frameworks Kueue manages. Default
	// DefaultKueueIntegrations; valid values KnownKueueIntegrations. Kueue
	// only, used when aksml installs Kueue.
	KueueIntegrations []string `json:"kueueIntegrations,omitempty" pulumi:"kueueIntegrations,optional"`
	// KueueChartValues are Helm values merged over the ones aksml sets
	// (maps merge key by key, other values replace). Escape hatch; Kueue
	// only, used when aksml installs Kueue.
	KueueChartValues map[string]any `json:"kueueChartValues,omitempty" pulumi:"kueueChartValues,optional"`
	// VolcanoChartValues are Helm values merged over the ones aksml sets.
	// Escape hatch; Volcano only.
	VolcanoChartValues map[string]any `json:"volcanoChartValues,omitempty" pulumi:"volcanoChartValues,optional"`
	// FairSharing turns Kueue's fair sharing on: teams share unused quota
	// by their weights, and preemption across teams follows their shares
	// (see Preemption). Default true. Kueue only, used when aksml installs
	// Kueue.
	FairSharing *bool `json:"fairSharing,omitempty" pulumi:"fairSharing,optional"`
	// Priorities are the priority levels: each a PriorityClass and, with
	// Kueue, a WorkloadPriorityClass of the same name. Default
	// DefaultPriorities (training-batch 10000 Never, inference-critical
	// 100000 PreemptLowerPriority). Setting it replaces the defaults.
	Priorities []PriorityLevel `json:"priorities,omitempty" pulumi:"priorities,optional"`
	// Lenders are lending-only cohort members: quota without a namespace,
	// queue or workloads that the teams borrow. Default none. Kueue only.
	Lenders []Lender `json:"lenders,omitempty" pulumi:"lenders,optional"`
	// Provisioning opts GPU pools into Kueue's ProvisioningRequest
	// admission check: a workload on such a pool is admitted only once the
	// cluster autoscaler has provisioned nodes for all its pods, so a gang
	// on a pool at zero nodes scales it up in one step, all or nothing (see
	// ProvisioningPool). Default none: admission needs quota only, and the
	// autoscaler adds nodes for the pods one scale-up at a time. Kueue only.
	Provisioning []ProvisioningPool `json:"provisioning,omitempty" pulumi:"provisioning,optional"`
}

// Default fills unset fields with their documented defaults. Settings of a
// system that is not selected stay unset, so Validate can reject them when
// a user sets them.
func (s *SchedulerSpec) Default() {
	if s.System == "" {
		s.System = DefaultSystem
	}
	if s.OvercommitRatio == 0 {
		s.OvercommitRatio = DefaultOvercommitRatio
	}
	if len(s.Priorities) == 0 {
		s.Priorities = DefaultPriorities()
	}
	s.Provisioning = slices.Clone(s.Provisioning)
	for i := range s.Provisioning {
		if s.Provisioning[i].Class == "" {
			s.Provisioning[i].Class = DefaultProvisioningClass
		}
	}
	s.Priorities = slices.Clone(s.Priorities)
	for i := range s.Priorities {
		if s.Priorities[i].PreemptionPolicy == "" {
			s.Priorities[i].PreemptionPolicy = PreemptLowerPriority
		}
	}
	switch s.System {
	case SystemKueue:
		if s.FairSharing == nil {
			s.FairSharing = ptr(true)
		}
		if s.InstallKueue == nil {
			s.InstallKueue = ptr(true)
		}
		if s.Cohort == "" {
			s.Cohort = DefaultCohort
		}
		if len(s.KueueIntegrations) == 0 {
			s.KueueIntegrations = append([]string(nil), DefaultKueueIntegrations...)
		}
	case SystemVolcano:
		if s.InstallVolcano == nil {
			s.InstallVolcano = ptr(true)
		}
	}
}

// Kueue reports whether Kueue is the queueing system.
func (s SchedulerSpec) Kueue() bool { return s.System == SystemKueue }

// FairSharingEnabled reports whether Kueue runs with fair sharing.
func (s SchedulerSpec) FairSharingEnabled() bool {
	return s.Kueue() && s.FairSharing != nil && *s.FairSharing
}

// Volcano reports whether Volcano is the queueing system.
func (s SchedulerSpec) Volcano() bool { return s.System == SystemVolcano }

// installsKueue reports whether aksml installs Kueue.
func (s SchedulerSpec) installsKueue() bool {
	return s.Kueue() && s.InstallKueue != nil && *s.InstallKueue
}

// installsVolcano reports whether aksml installs Volcano.
func (s SchedulerSpec) installsVolcano() bool {
	return s.Volcano() && s.InstallVolcano != nil && *s.InstallVolcano
}

// FlavorName is the Kueue ResourceFlavor of the GPU pool named pool:
// `gpu-<pool>`. Workloads and policies use it to refer to a pool's quota.
func FlavorName(pool string) string { return "gpu-" + pool }

// ClusterQueueName is the team's cluster-scoped queue: the Kueue
// ClusterQueue, or the Volcano Queue, `<team>-gpu` (AKS MLOps best practices: team-a-gpu).
func ClusterQueueName(team string) string { return team + "-gpu" }

func ptr[T any](v T) *T { return &v }
