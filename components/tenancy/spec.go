package tenancy

import (
	"github.com/aksml/aksml/components/vocab"
)

// Egress is a team namespace's outbound traffic policy.
type Egress string

// Valid egress policies.
const (
	// EgressRestricted denies every outbound connection except DNS to the
	// cluster's CoreDNS, traffic inside the namespace and HTTPS (443) to
	// addresses outside the cluster's pod and service ranges (Azure Storage,
	// Microsoft Entra token exchange, model and package registries).
	EgressRestricted Egress = "Restricted"
	// EgressUnrestricted leaves outbound traffic open (ingress stays
	// default-deny). For teams whose jobs need arbitrary egress.
	EgressUnrestricted Egress = "Unrestricted"
)

// Egresses lists the valid egress policies.
var Egresses = []Egress{EgressRestricted, EgressUnrestricted}

// Authorization is how the cluster authorizes Microsoft Entra identities.
type Authorization string

// Valid authorization modes.
const (
	// AuthorizationKubernetesRBAC: Kubernetes RBAC only (local accounts or
	// Entra ID authentication without Azure RBAC). Teams get the aksml Role
	// through a RoleBinding to their Entra groups.
	AuthorizationKubernetesRBAC Authorization = "KubernetesRBAC"
	// AuthorizationAzureRBAC: Entra ID with Azure RBAC for Kubernetes
	// authorization. Teams get the same RoleBinding (AKS evaluates
	// Kubernetes RBAC and Azure RBAC together) plus the Azure role
	// assignments in ClusterUserRoleID and NamespaceRoleID.
	AuthorizationAzureRBAC Authorization = "AzureRBAC"
)

// PodSecurityLevel is the Pod Security Standards level enforced on a team
// namespace.
type PodSecurityLevel = vocab.PodSecurityLevel

// Valid levels. Privileged is not offered: team namespaces run untrusted
// job code next to shared GPU nodes.
const (
	// PodSecurityRestricted: non-root, no privilege escalation, all
	// capabilities dropped, RuntimeDefault seccomp.
	PodSecurityRestricted = vocab.PodSecurityRestricted
	// PodSecurityBaseline: blocks known privilege escalations but allows
	// root containers (e.g. stock CUDA images that run as root).
	PodSecurityBaseline = vocab.PodSecurityBaseline
)

// PodSecurityLevels lists the valid levels.
var PodSecurityLevels = []PodSecurityLevel{PodSecurityRestricted, PodSecurityBaseline}

// Team is one tenant as tenancy needs it: plain data the caller maps from
// its own configuration (the aksml stacks map `aksml:teams[]`).
type Team struct {
	// Name is the team and its namespace name: a DNS label of at most
	// MaxTeamNameLength characters, not a namespace the platform reserves
	// (vocab.PlatformNamespaceOwner). Required.
	Name string
	// PodSecurity is the Pod Security level enforced on the namespace:
	// restricted (default) or baseline. Warnings and audit always use
	// restricted, so a baseline team sees what would break.
	PodSecurity PodSecurityLevel
	// Quota is the `hard` of the namespace's ResourceQuota
	// ResourceQuotaName, resource name to quantity. The aksml stacks pass
	// what the team's queue can admit (components/queues
	// Resolved.ResourceQuotaHard), so the quota guards pods that bypass the
	// queue without blocking what the queue admits. Default none: no
	// ResourceQuota.
	Quota map[string]string
	// Groups are the Microsoft Entra group object IDs (GUIDs) whose members
	// get the team member role in the namespace. Default none: nobody but
	// platform admins has access.
	Groups []string
	// Egress is Restricted (default) or Unrestricted.
	Egress Egress
	// Priorities are the PriorityClass and Kueue WorkloadPriorityClass
	// names the team's pods and workloads may use; the team's admission
	// policy (AdmissionPolicyName) refuses any other priorityClassName or
	// `kueue.x-k8s.io/priority-class` label. The aksml stacks pass
	// components/queues Resolved.TeamPriorities: every level but the
	// preempting ones unless the team is serving. system-* classes are
	// never valid. Default none: only pods without a priority class.
	Priorities []string
	// NamespaceQuota is the `hard` of the namespace's ResourceQuota
	// TeamQuotaName: cpu, memory, pods, object counts and storage per
	// class (NamespaceQuotaHard gives the aksml stacks' defaults). With
	// requests.cpu or requests.memory the namespace also gets the
	// LimitRange DefaultRequestsName, so a container that states no
	// requests is admitted with DefaultCPURequest and
	// DefaultMemoryRequest. Default none: no ResourceQuota, no LimitRange.
	NamespaceQuota map[string]string
	// WorkspacePools are the GPU pools, name to VM size, the team's KAITO
	// Workspaces may run on: its admission policy refuses a Workspace whose
	// labelSelector does not name one of them by WorkspacePoolLabel or
	// whose instanceType is not that pool's size (RuleWorkspacePool,
	// RuleWorkspaceInstanceType). The aksml stacks pass, with
	// aksml:kaito.install, the regular (not spot), non-MIG pools the team
	// lists in its gpuQuota. Default nil: Workspaces' pools are not
	// checked (no KAITO, or an existing cluster whose nodes aksml does not
	// know); an empty map refuses every Workspace.
	WorkspacePools map[string]string
}

// Default fills the documented defaults.
func (t *Team) Default() {
	if t.Egress == "" {
		t.Egress = EgressRestricted
	}
	if t.PodSecurity == "" {
		t.PodSecurity = DefaultPodSecurity
	}
}
