// Package vocab is the vocabulary the aksml components share: the label and
// annotation keys, queue, priority and claim names, Azure resource types and
// platform-owned namespaces that more than one package writes or reads.
// Each name is declared here once; the packages that own a name re-export it
// under their own constant (queues.TeamLabel = vocab.TeamLabel) so their
// documentation reads in place, and a rename happens in one file.
//
// It follows Kueue's constants packages (sigs.k8s.io/kueue/pkg/constants and
// pkg/controller/constants, https://github.com/kubernetes-sigs/kueue): a
// leaf package with no dependencies that every side imports. The syntax
// checks that go with these names (DNS labels, label keys, quantities,
// cron) are in components/field.
package vocab

import (
	"sort"
	"strings"
)

// Labels aksml puts on Kubernetes objects.
const (
	// TeamLabel carries the owning team on its namespace and every object
	// of that team (SPEC C5.1).
	TeamLabel = "aksml.io/team"
	// PartOfLabel marks every Kubernetes object aksml creates, with
	// PartOfValue ("Recommended Labels",
	// https://kubernetes.io/docs/concepts/overview/working-with-objects/common-labels/).
	PartOfLabel = "app.kubernetes.io/part-of"
	// PartOfValue is the value of PartOfLabel.
	PartOfValue = "aksml"
	// MetricsLabel marks pods the training PodMonitor scrapes (value "true").
	MetricsLabel = "aksml.io/metrics"
	// GPUOvercommitAnnotation on a Kueue ResourceFlavor carries a deliberate
	// overcommit ratio for the guardrail that checks quota against capacity.
	GPUOvercommitAnnotation = "aksml.io/gpu-overcommit-ratio"
	// LabelPrefix is the prefix of every aksml label and annotation key.
	LabelPrefix = "aksml.io/"
)

// Kueue labels ("Run a Kubernetes Job",
// https://kueue.sigs.k8s.io/docs/tasks/run/jobs/).
const (
	// QueueNameLabel routes a job to a Kueue LocalQueue.
	QueueNameLabel = "kueue.x-k8s.io/queue-name"
	// WorkloadPriorityClassLabel names a job's Kueue WorkloadPriorityClass.
	WorkloadPriorityClassLabel = "kueue.x-k8s.io/priority-class"
)

// Managed Prometheus and KEDA names that tenancy, observability and
// workloads share.
const (
	// ScraperPodLabel/ScraperPodValue select the ama-metrics replica that
	// runs custom scrape jobs (PodMonitors); the per-node DaemonSet
	// (ama-metrics-node) only scrapes node targets ("Customize scraping of
	// Prometheus metrics in Azure Monitor managed service for Prometheus",
	// https://learn.microsoft.com/azure/azure-monitor/containers/prometheus-metrics-scrape-configuration).
	ScraperPodLabel = "rsName"
	ScraperPodValue = "ama-metrics"
	// KEDATriggerAuthentication is the platform's ClusterTriggerAuthentication:
	// KEDA's workload identity with Monitoring Data Reader on the Azure
	// Monitor workspace (observability.NewKEDAAccess), which InferenceServers
	// with the keda scaler reference and tenancy's admission policy keeps
	// out of team hands.
	KEDATriggerAuthentication = "aksml-azure-monitor"
)

// Pulumi type tokens more than one component names.
const (
	// QueuesComponentType is the type token of the Queues component
	// (components/queues). components/tenancy names it in the aliases of
	// the team namespaces and quotas that moved from Queues to Tenancy.
	QueuesComponentType = "aksml:queues:Queues"
)

// Pulumi Kubernetes provider annotations ("Managing resources with
// server-side apply", https://www.pulumi.com/registry/packages/kubernetes/how-to-guides/managing-resources-with-server-side-apply/
// and the provider's await logic).
const (
	// SkipAwaitAnnotation tells the provider not to wait for the object to
	// become ready (for a Job: to complete).
	SkipAwaitAnnotation = "pulumi.com/skipAwait"
)

// Names of the objects every team namespace holds (SPEC C3, C5; AKS MLOps
// best practices, https://learn.microsoft.com/azure/aks/best-practices-ml-ops).
const (
	// LocalQueueName is the Kueue LocalQueue of every team namespace.
	LocalQueueName = "gpu-queue"
	// PriorityClassTrainingBatch is the PriorityClass of batch training.
	PriorityClassTrainingBatch = "training-batch"
	// PriorityClassInferenceCritical is the PriorityClass of latency-
	// sensitive inference.
	PriorityClassInferenceCritical = "inference-critical"
	// CheckpointsPVCName is the checkpoint claim of every team namespace.
	CheckpointsPVCName = "model-checkpoints"
)

// Node labels and taints AKS sets ("Use labels in an AKS cluster",
// https://learn.microsoft.com/azure/aks/use-labels; "Add a spot node pool",
// https://learn.microsoft.com/azure/aks/spot-node-pool).
const (
	// AKSLabelPrefix is the prefix AKS reserves for the labels and taints it
	// sets on nodes; pools may not set their own under it.
	AKSLabelPrefix = "kubernetes.azure.com/"
	// AgentPoolLabel carries a node's pool name.
	AgentPoolLabel = "kubernetes.azure.com/agentpool"
	// SpotTaintKey is the taint AKS puts on spot nodes
	// (`kubernetes.azure.com/scalesetpriority=spot:NoSchedule`), the one
	// key under AKSLabelPrefix a pool spec names.
	SpotTaintKey = "kubernetes.azure.com/scalesetpriority"
	// GPUResource is the extended resource the NVIDIA device plugin registers.
	GPUResource = "nvidia.com/gpu"
)

// Azure resource types.
const (
	// AgentPoolResourceType is the ARM type of an AKS node pool.
	AgentPoolResourceType = "Microsoft.ContainerService/managedClusters/agentPools"
)

// Namespaces that a part of the platform other than the team layer owns.
const (
	// KueueNamespace is Kueue's namespace (its Helm chart's default).
	KueueNamespace = "kueue-system"
	// VolcanoNamespace is Volcano's namespace (its Helm chart's default).
	VolcanoNamespace = "volcano-system"
	// TrainingOperatorNamespace is the Kubeflow Training Operator's
	// namespace (its standalone manifests).
	TrainingOperatorNamespace = "kubeflow"
	// GPUStackNamespace is the default namespace of the DCGM exporter and
	// MIG layouts (AKS MLOps best practices, "Collect NVIDIA GPU metrics").
	GPUStackNamespace = "gpu-operator"
	// GatekeeperNamespace is where the Azure Policy add-on for AKS runs
	// Gatekeeper ("Understand Azure Policy for Kubernetes clusters",
	// https://learn.microsoft.com/azure/governance/policy/concepts/policy-for-kubernetes).
	GatekeeperNamespace = "gatekeeper-system"
	// KAITONamespace is the namespace KAITO's workspace controller is
	// installed into by its Helm chart ("Kubernetes AI Toolchain Operator",
	// https://github.com/kaito-project/kaito, installation).
	KAITONamespace = "kaito-workspace"
	// DefaultNamespace is Kubernetes' default namespace.
	DefaultNamespace = "default"
	// SystemNamespacePrefix prefixes the namespaces Kubernetes itself owns
	// (kube-system, kube-public, kube-node-lease; "Namespaces",
	// https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/).
	SystemNamespacePrefix = "kube-"
	// SystemNamespace is the namespace every cluster has from its start;
	// OwnerAnnotation on it names the aksml stack that owns the cluster.
	SystemNamespace = "kube-system"
)

// One aksml stack owns a cluster's platform objects (its StorageClasses,
// PriorityClasses, Kueue's cluster queues and flavors, the device plugin
// DaemonSet, the platform namespaces): each has one name per cluster, so a
// second stack declaring them would overwrite the first's and its destroy
// would delete them (issue 27, lifecycle tier scenario d; "one owner per
// name"). The owner writes OwnerAnnotation on SystemNamespace, and every
// stack reads it at preview through a read named OwnerRead before it
// registers a Kubernetes object.
const (
	// OwnerAnnotation holds the owning stack as <organization>/<project>/<stack>.
	OwnerAnnotation = "aksml.io/owner"
	// OwnerRead is the logical name of the read of SystemNamespace (a
	// `get` of an existing object, not a resource the stack creates).
	OwnerRead = "cluster-owner-read"
	// OwnerClaim is the logical name of the patch that writes
	// OwnerAnnotation.
	OwnerClaim = "cluster-owner"
)

// PlatformNamespaces maps each namespace owned by a part of the platform to
// a short description of its owner, for messages. Namespaces starting with
// SystemNamespacePrefix are Kubernetes' own and reserved too (see
// PlatformNamespaceOwner).
var PlatformNamespaces = map[string]string{
	DefaultNamespace:          "Kubernetes",
	KueueNamespace:            "Kueue",
	VolcanoNamespace:          "Volcano",
	TrainingOperatorNamespace: "the Kubeflow Training Operator",
	GPUStackNamespace:         "the GPU stack (DCGM exporter, MIG layouts)",
	GatekeeperNamespace:       "the Azure Policy add-on (Gatekeeper)",
	KAITONamespace:            "KAITO",
}

// ReservedNamespaceNames lists the reserved namespaces for messages:
// kube-* first, then PlatformNamespaces sorted.
func ReservedNamespaceNames() []string {
	out := make([]string, 0, len(PlatformNamespaces))
	for ns := range PlatformNamespaces {
		out = append(out, ns)
	}
	sort.Strings(out)
	return append([]string{SystemNamespacePrefix + "*"}, out...)
}

// PlatformNamespaceOwner returns the owner of ns when a part of the platform
// other than a team owns it, or "" when ns is free for a team.
func PlatformNamespaceOwner(ns string) string {
	if owner, ok := PlatformNamespaces[ns]; ok {
		return owner
	}
	if strings.HasPrefix(ns, SystemNamespacePrefix) {
		return "Kubernetes"
	}
	return ""
}

// Pod Security admission ("Pod Security Admission",
// https://kubernetes.io/docs/concepts/security/pod-security-admission/):
// the namespace labels and the levels aksml sets on the team namespaces
// (components/tenancy) and the schedulers' namespaces (components/queues).
const (
	// PodSecurityEnforceLabel rejects pods that break the level it names.
	PodSecurityEnforceLabel = "pod-security.kubernetes.io/enforce"
	// PodSecurityWarnLabel warns the client about pods that break its level.
	PodSecurityWarnLabel = "pod-security.kubernetes.io/warn"
	// PodSecurityAuditLabel records pods that break its level in the audit log.
	PodSecurityAuditLabel = "pod-security.kubernetes.io/audit"
)

// PodSecurityLevel is a Pod Security Standards level.
type PodSecurityLevel string

// The levels aksml sets. Privileged is not offered to teams: team
// namespaces run untrusted job code next to shared GPU nodes.
const (
	// PodSecurityRestricted: non-root, no privilege escalation, all
	// capabilities dropped, RuntimeDefault seccomp.
	PodSecurityRestricted PodSecurityLevel = "restricted"
	// PodSecurityBaseline: blocks known privilege escalations but allows
	// root containers (e.g. stock CUDA images that run as root).
	PodSecurityBaseline PodSecurityLevel = "baseline"
)
