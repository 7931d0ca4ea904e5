// Package tenancy builds each team's slice of the cluster (issue 16, SPEC
// C5.1 tenancy): its namespace and quota, who may do what there, what may
// talk to its pods, and which Azure identity its workloads use for data,
// without keys.
//
// NewTenancy (`aksml:tenancy:Tenancy`) registers per team:
//
//   - Namespace. The namespace Team.Name, labelled `aksml.io/team` and with
//     Pod Security admission enforced at the team's level (restricted by
//     default, baseline per team; warnings and audit always at restricted:
//     "Pod Security Admission",
//     https://kubernetes.io/docs/concepts/security/pod-security-admission/),
//     kept on destroy with RetainNamespaces (deleting a namespace deletes
//     the checkpoint claims in it); and the ResourceQuota ResourceQuotaName
//     with Team.Quota as its `hard`: the second guard for pods that bypass
//     the queue, which the aksml stacks size to what the team's queue can
//     admit (components/queues Resolved.ResourceQuotaHard). The other
//     components take the namespaces from Tenancy.Namespaces and wait for
//     them through it (and Resources). Stacks that ran before the
//     namespaces and quotas moved here from components/queues pass
//     TenancyArgs.QueuesName: each object then carries a Pulumi alias to its
//     old name and parent, so the engine keeps it instead of deleting and
//     recreating it.
//   - Namespace quota. With Team.NamespaceQuota, the ResourceQuota
//     TeamQuotaName on cpu, memory, pods, object counts and storage per
//     StorageClass (NamespaceQuotaHard: the aksml stacks' defaults, derived
//     from what the team's queue admits), and the LimitRange
//     DefaultRequestsName so that unsized containers are admitted and
//     counted. Claims of generic ephemeral volumes count like any other.
//   - Admission. A ValidatingAdmissionPolicy and its Deny binding,
//     AdmissionPolicyName, selecting the team's namespace by TeamLabel
//     (admission.go): no spec.nodeName, no wildcard or CriticalAddonsOnly
//     toleration, the GPU taint tolerated only by pods that request GPUs,
//     no inline csi/azureFile/azureDisk volumes, no reference to the CSI
//     drivers' storage key Secrets, and priority classes and Kueue
//     priority labels only from Team.Priorities.
//   - Access. A Role, MemberRoleName, that lets a member create and delete
//     Jobs, CronJobs, PyTorchJobs, TFJobs and KAITO Workspaces and read pods,
//     logs, events, claims, the team's LocalQueue, ResourceQuota and
//     NetworkPolicies (MemberRules), and a RoleBinding of it to the team's
//     Microsoft Entra groups by object ID ("Control access to cluster
//     resources using Kubernetes RBAC and Microsoft Entra identities",
//     https://learn.microsoft.com/azure/aks/azure-ad-rbac). A namespaced
//     Role cannot reach cluster-scoped objects, so ClusterQueues,
//     ResourceFlavors, Cohorts and PriorityClasses stay out of reach;
//     platform admins keep cluster-admin through the cluster's admin groups.
//     With Entra ID and Azure RBAC (AuthorizationAzureRBAC) AKS authorizes a
//     request when either Kubernetes RBAC or Azure RBAC allows it ("Use
//     Azure RBAC for Kubernetes authorization",
//     https://learn.microsoft.com/azure/aks/manage-azure-rbac), so the
//     RoleBinding still applies, and each group also gets the "Azure
//     Kubernetes Service Cluster User Role" on the cluster (to download the
//     user kubeconfig) and the namespace-scoped built-in "Azure Kubernetes
//     Service RBAC Reader" at `<clusterId>/namespaces/<team>`. aksml does not
//     hand out the built-in RBAC Writer: it can write NetworkPolicies, which
//     would let a member undo the default deny, and it covers no custom
//     resources (see NamespaceRoleID).
//   - Network isolation. NetworkPolicies are additive allow lists
//     (https://kubernetes.io/docs/concepts/services-networking/network-policies/):
//     DefaultDenyPolicy selects every pod and denies ingress and egress,
//     for every team; TeamAllowPolicy holds the allowances, one rule each:
//     the namespace's pods reach each other (NCCL between the replicas of
//     one job); the managed Prometheus replica (`rsName: ama-metrics` in
//     kube-system) scrapes the `metrics` port; CoreDNS (`k8s-app: kube-dns`
//     in kube-system) on port 53; and port 443 (Restricted) or every port
//     (Unrestricted) to addresses outside the cluster's pod and service
//     ranges and never IMDS (IMDSCIDR): Azure Storage REST, the Entra token
//     endpoint of workload identity, registries. SMB (445) and NFS (2049)
//     are not opened to pods: the Azure Files and Blob CSI drivers mount
//     volumes from the node, not from the pod's network namespace.
//   - Platform namespaces. NewPlatformIsolation
//     (`aksml:tenancy:PlatformIsolation`) gives each namespace aksml
//     creates for a platform component (gpu-operator, kueue-system,
//     volcano-system, kubeflow) its own default deny with the allowances
//     the component needs: same namespace, DNS, the API server on 443
//     (APIServerPolicy) and in from kube-system and from outside the pod
//     range (ControlPlanePolicy). No team pod matches.
//   - Keyless data access (with AzureArgs). One ARM deployment stack
//     (components/armdeploy; the azure-native managedidentity module is not
//     served at v2.88.0) holds per team a user-assigned managed identity and
//     a federated identity credential (API 2023-01-31: issuer, subject,
//     audiences) trusting the cluster's OIDC issuer for
//     `system:serviceaccount:<team>:training`. The ServiceAccount
//     TrainingServiceAccount carries `azure.workload.identity/client-id`;
//     workloads that run as it carry `azure.workload.identity/use: "true"`
//     (components/workloads WorkloadIdentity) ("Use Microsoft Entra Workload
//     ID with AKS", https://learn.microsoft.com/azure/aks/workload-identity-overview).
//     With a Blob account, each team gets a container named after it and
//     "Storage Blob Data Contributor" on that container only. Azure Files
//     gets no per-team role: the Azure Files CSI driver mounts SMB shares
//     with the account key ("Use the Azure Files CSI driver in AKS",
//     https://learn.microsoft.com/azure/aks/azure-files-csi), so an identity
//     role would not govern the mount, and an account-scope data role would
//     open every team's shares.
//
// Validation: ValidateNames checks the team names (a DNS label of at most
// MaxTeamNameLength characters, unique), ValidateTeams the rest of what a
// namespace needs: a name no part of the platform reserves (kube-*,
// default, the schedulers', the GPU stack's, the Training Operator's,
// Gatekeeper's and KAITO's namespaces: vocab.PlatformNamespaceOwner), the
// Pod Security level, the Entra groups, the egress policy and the quota
// quantities. NewTenancy runs both; the aksml stacks run ValidateTeams
// only, because components/queues already checks the same names as queue
// names.
//
// Guardrails AKSML-TEN-001 (every team namespace has a default-deny
// ingress policy), AKSML-TEN-002 (every Role that records groups is
// bound to exactly those groups), AKSML-TEN-003 (no team namespace in a
// name the platform reserves), AKSML-TEN-004 (every team namespace covered
// by a Deny admission binding) and AKSML-TEN-005 (a quota on cpu, memory
// and pods) check the result (policy/rules).
package tenancy
