package tenancy

import "github.com/aksml/aksml/components/vocab"

// Kubernetes object names and keys aksml gives every team namespace.
const (
	// ResourceQuotaName is the namespace ResourceQuota on GPU requests
	// (Team.Quota).
	ResourceQuotaName = "gpu-quota"
	// TeamLabel carries the team's name on its namespace and objects.
	TeamLabel = vocab.TeamLabel
	// PartOfLabel marks every object aksml creates, with PartOfValue.
	PartOfLabel = vocab.PartOfLabel
	// PartOfValue is the value of PartOfLabel.
	PartOfValue = vocab.PartOfValue
	// PodSecurityEnforceLabel rejects pods that break the level it names.
	PodSecurityEnforceLabel = vocab.PodSecurityEnforceLabel
	// PodSecurityWarnLabel warns the client about pods that break its level.
	PodSecurityWarnLabel = vocab.PodSecurityWarnLabel
	// PodSecurityAuditLabel records pods that break its level in the audit log.
	PodSecurityAuditLabel = vocab.PodSecurityAuditLabel
	// MaxTeamNameLength keeps the names derived from a team's
	// (`<team>-gpu` queues, `<prefix>-<team>` identities) well inside the
	// 63-character limit of Kubernetes names; components/queues applies
	// the same limit.
	MaxTeamNameLength = 30
	// DefaultPodSecurity is restricted: aksml's training workloads run as
	// non-root with dropped capabilities and RuntimeDefault seccomp (C7.1),
	// and GPU access through the device plugin needs no privilege, so the
	// strictest profile holds. Teams whose images cannot run as non-root set
	// baseline.
	DefaultPodSecurity = PodSecurityRestricted

	// MemberRoleName is the Role a team's groups are bound to.
	MemberRoleName = "aksml-team-member"
	// MemberBindingName is the RoleBinding of MemberRoleName to the groups.
	MemberBindingName = "aksml-team-members"
	// GroupsAnnotation on the Role lists the team's configured group object
	// IDs (comma separated, sorted), so guardrails can check the binding.
	GroupsAnnotation = "aksml.io/entra-groups"

	// DefaultDenyPolicy selects every pod and allows nothing, ingress or
	// egress, in every team namespace (Unrestricted ones too) and every
	// platform namespace aksml creates.
	DefaultDenyPolicy = "aksml-default-deny"
	// SameNamespacePolicy allows every pod of a platform namespace to reach
	// every other (NewPlatformIsolation).
	SameNamespacePolicy = "aksml-allow-same-namespace"
	// DNSPolicy allows a platform namespace egress to CoreDNS in
	// kube-system on port 53 (NewPlatformIsolation).
	DNSPolicy = "aksml-allow-dns"
	// TeamAllowPolicy holds every allowance of a team namespace, one rule
	// each: every pod of the namespace reaches every other both ways (NCCL
	// between the replicas of a job, a job's own services); the Azure
	// Monitor managed Prometheus replica (ama-metrics in kube-system)
	// scrapes the pods' metrics port; pods reach CoreDNS in kube-system on
	// port 53; and addresses outside the cluster's pod and service ranges
	// and IMDS on 443 (Restricted) or every port (Unrestricted).
	TeamAllowPolicy = "aksml-team-allow"

	// TrainingServiceAccount is the service account the team's workloads
	// run as; its federated credential lets them get Entra tokens for the
	// team's managed identity.
	TrainingServiceAccount = "training"
)

// Labels and annotations of Microsoft Entra Workload ID ("Use Microsoft
// Entra Workload ID with AKS",
// https://learn.microsoft.com/azure/aks/workload-identity-overview).
const (
	// ClientIDAnnotation on a ServiceAccount names the managed identity.
	ClientIDAnnotation = "azure.workload.identity/client-id"
	// UseLabel on a pod makes the webhook project the token into it.
	UseLabel = "azure.workload.identity/use"
	// TokenAudience is the audience of the federated credential.
	TokenAudience = "api://AzureADTokenExchange"
)

// Selectors of the platform pods the policies allow.
const (
	// SystemNamespace is where CoreDNS and the managed Prometheus run.
	SystemNamespace = "kube-system"
	// NamespaceNameLabel is set by Kubernetes on every namespace.
	NamespaceNameLabel = "kubernetes.io/metadata.name"
	// DNSPodLabel/DNSPodValue select CoreDNS on AKS (k8s-app=kube-dns).
	DNSPodLabel = "k8s-app"
	DNSPodValue = "kube-dns"
	// ScraperPodLabel/ScraperPodValue select the ama-metrics replica that
	// runs custom scrape jobs (vocab.ScraperPodLabel).
	ScraperPodLabel = vocab.ScraperPodLabel
	ScraperPodValue = vocab.ScraperPodValue
	// MetricsPortName is the container port name workloads expose metrics
	// on (components/workloads MetricsPortName).
	MetricsPortName = "metrics"
	// HTTPSPort is the only port open to addresses outside the cluster
	// for a Restricted team.
	HTTPSPort = 443
	// AnyIPv4 is the ipBlock every egress allowance starts from.
	AnyIPv4 = "0.0.0.0/0"
	// IMDSCIDR is the Azure Instance Metadata Service, which hands out
	// tokens of the node's managed identities (kubelet identity, add-on
	// identities) to any caller on the node ("Azure Instance Metadata
	// Service", https://learn.microsoft.com/azure/virtual-machines/instance-metadata-service:
	// "a REST API that's available at a well-known, non-routable IP address
	// (169.254.169.254)"). Every team's egress allowance excepts it. AKS
	// can also cut pods off it cluster-wide (networkProfile.podLinkLocalAccess
	// None, only in preview APIs: Azure REST API specs,
	// Microsoft.ContainerService/aks/preview/2026-01-02-preview/managedClusters.json).
	IMDSCIDR = "169.254.169.254/32"
)

// Azure built-in role definition IDs ("Azure built-in roles",
// https://learn.microsoft.com/azure/role-based-access-control/built-in-roles).
const (
	// ClusterUserRoleID is "Azure Kubernetes Service Cluster User Role":
	// lets a group member download the user kubeconfig
	// (listClusterUserCredential). Assigned at cluster scope.
	ClusterUserRoleID = "4abbcc35-e782-43d8-92c5-2d3f1bd2253f"
	// NamespaceRoleID is "Azure Kubernetes Service RBAC Reader": read access
	// to most objects of one namespace, no Secrets, no Roles. Assigned at
	// the namespace scope `<clusterId>/namespaces/<ns>` ("Use Azure RBAC for
	// Kubernetes authorization", https://learn.microsoft.com/azure/aks/manage-azure-rbac).
	// aksml does not assign "Azure Kubernetes Service RBAC Writer"
	// (a7ffa36f-339b-4b5c-8bdf-e2c188b2c0eb): it carries
	// networking.k8s.io/networkpolicies/write, so a member could add an
	// Allow policy that overrides the namespace's default deny (AKS docs,
	// "Managed namespaces", https://learn.microsoft.com/azure/aks/concepts-managed-namespaces),
	// and it covers no custom resources (PyTorchJob, Workspace). The write
	// access comes from the Kubernetes Role instead.
	NamespaceRoleID = "7f6c6a51-bcf8-42ba-9220-52d62157d7db"
	// StorageBlobDataContributorRoleID is "Storage Blob Data Contributor":
	// read, write and delete blobs. Assigned to a team's identity on its
	// own container only.
	StorageBlobDataContributorRoleID = "ba92f5b4-2d11-453d-a403-e96b0029c9fe"
)

// ARM resource types and API version of the team identities, deployed
// through components/armdeploy because the azure-native managedidentity
// module is not served at v2.88.0. API 2023-01-31 is the GA version whose
// federatedIdentityCredentials take properties issuer, subject and
// audiences (Azure REST API specs,
// specification/msi/resource-manager/Microsoft.ManagedIdentity/ManagedIdentity/stable/2023-01-31/ManagedIdentity.json,
// example FederatedIdentityCredentialCreate.json).
const (
	ManagedIdentityAPIVersion       = "2023-01-31"
	UserAssignedIdentityType        = "Microsoft.ManagedIdentity/userAssignedIdentities"
	FederatedIdentityCredentialType = "Microsoft.ManagedIdentity/userAssignedIdentities/federatedIdentityCredentials"
)
