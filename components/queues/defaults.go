package queues

import (
	"github.com/aksml/aksml/components/vocab"
)

// PriorityClasses from AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) "Configure training and inference priorities": latency-sensitive inference may preempt interruptible batch
// training, and batch training never preempts anything.
const (
	// PriorityClassTrainingBatch is the PriorityClass (and Kueue
	// WorkloadPriorityClass) of checkpointed, preemptible batch training.
	PriorityClassTrainingBatch = vocab.PriorityClassTrainingBatch
	// TrainingBatchValue is the priority of PriorityClassTrainingBatch (AKS MLOps best practices: 10000).
	TrainingBatchValue = 10000
	// TrainingBatchPreemptionPolicy is Never: training waits, it never evicts
	// other pods (AKS MLOps best practices).
	TrainingBatchPreemptionPolicy = "Never"
	// TrainingBatchDescription is the AKS MLOps best practices' description, verbatim.
	TrainingBatchDescription = "Batch training can wait and can be preempted by higher-priority workloads."

	// PriorityClassInferenceCritical is the PriorityClass (and Kueue
	// WorkloadPriorityClass) of latency-sensitive production inference.
	PriorityClassInferenceCritical = vocab.PriorityClassInferenceCritical
	// InferenceCriticalValue is the priority of PriorityClassInferenceCritical (AKS MLOps best practices: 100000).
	InferenceCriticalValue = 100000
	// InferenceCriticalPreemptionPolicy is PreemptLowerPriority (AKS MLOps best practices).
	InferenceCriticalPreemptionPolicy = "PreemptLowerPriority"
	// InferenceCriticalDescription is the AKS MLOps best practices' description, verbatim.
	InferenceCriticalDescription = "Latency-sensitive production inference can preempt lower-priority workloads."
)

// Kueue, pinned (AKS MLOps best practices "Allocate multi-tenant GPU quota with Kueue":
// install a Kueue version compatible with the cluster's Kubernetes version).
const (
	// KueueVersion is the Kueue release installed by aksml. It is a constant,
	// not a setting: the objects below are written for its API.
	KueueVersion = "0.17.0"
	// KueueChart is Kueue's official Helm chart (OCI).
	KueueChart = "oci://registry.k8s.io/kueue/charts/kueue"
	// KueueNamespace is where the Kueue controller runs.
	KueueNamespace = vocab.KueueNamespace
	// KueueAPIVersion is the storage version of Kueue's API in KueueVersion
	// (v1beta1 is deprecated). It differs from the AKS MLOps best practices' v1beta1 manifest in
	// field names: a ClusterQueue's cohort is `spec.cohortName`.
	KueueAPIVersion = "kueue.x-k8s.io/v1beta2"
	// KueueConfigAPIVersion is the API version of Kueue's controller configuration.
	KueueConfigAPIVersion = "config.kueue.x-k8s.io/v1beta2"
	// PodsReadyTimeout is how long an admitted workload may wait for all its
	// pods to be ready before Kueue evicts and requeues it, so that a
	// partially scheduled gang does not hold GPUs (AKS MLOps best practices "Use gang scheduling"). 15 minutes covers a GPU node scaling up from zero and
	// pulling a CUDA image.
	PodsReadyTimeout = "15m"
)

// DefaultKueueIntegrations are the Kueue job integrations aksml's workloads
// use (AKS MLOps best practices: enable the integrations for the workload kinds you run):
// batch Jobs (C7.1-C7.3) and Kubeflow PyTorchJob/TFJob (C7.4).
var DefaultKueueIntegrations = []string{"batch/job", "kubeflow.org/pytorchjob", "kubeflow.org/tfjob"}

// KnownKueueIntegrations are the job frameworks Kueue 0.17.0 integrates with.
var KnownKueueIntegrations = []string{
	"batch/job", "kubeflow.org/mpijob", "ray.io/rayjob", "ray.io/rayservice", "ray.io/raycluster",
	"jobset.x-k8s.io/jobset", "trainer.kubeflow.org/trainjob", "kubeflow.org/paddlejob",
	"kubeflow.org/pytorchjob", "kubeflow.org/tfjob", "kubeflow.org/xgboostjob", "kubeflow.org/jaxjob",
	"workload.codeflare.dev/appwrapper", "sparkoperator.k8s.io/sparkapplication", "pod", "deployment",
	"statefulset", "leaderworkerset.x-k8s.io/leaderworkerset",
}

// Volcano, pinned (AKS MLOps best practices "Use Volcano as an alternative").
const (
	// VolcanoVersion is the Volcano Helm chart (and release) installed by aksml.
	VolcanoVersion = "1.12.2"
	// VolcanoRepo is Volcano's Helm repository.
	VolcanoRepo = "https://volcano-sh.github.io/helm-charts"
	// VolcanoChart is the chart's name in VolcanoRepo.
	VolcanoChart = "volcano"
	// VolcanoNamespace is where the Volcano scheduler and controllers run.
	VolcanoNamespace = vocab.VolcanoNamespace
	// VolcanoAPIVersion is the API version of Volcano's Queue.
	VolcanoAPIVersion = "scheduling.volcano.sh/v1beta1"
	// VolcanoSchedulerName is the schedulerName Volcano jobs set (AKS MLOps best practices).
	VolcanoSchedulerName = "volcano"
)

// Names and labels shared with the workloads that use the queues.
const (
	// LocalQueueName is the Kueue LocalQueue in every team namespace (AKS MLOps best practices:
	// `gpu-queue`). Jobs select it with the QueueNameLabel.
	LocalQueueName = vocab.LocalQueueName
	// DefaultLocalQueueName is the second LocalQueue of every team
	// namespace, pointing at the same ClusterQueue as LocalQueueName: the
	// name Kueue's job webhooks give a job created without QueueNameLabel
	// in a namespace that has a LocalQueue of this name (Kueue v0.17.0
	// pkg/controller/constants DefaultLocalQueueName "default",
	// pkg/controller/jobframework/defaults.go ApplyDefaultLocalQueue,
	// called by the batch/job, Kubeflow and every other job webhook's
	// Default; feature gate LocalQueueDefaulting, GA and locked on since
	// 0.17, pkg/features/kube_features.go; KEP-2936 "LocalQueue
	// defaulting"; "Enforce Kueue Management of Workloads", "Setup default
	// LocalQueue", https://kueue.sigs.k8s.io/docs/tasks/manage/enforce_job_management/).
	// It is how a Job that a controller creates without the label (KAITO's
	// tuning Job) reaches the team's queue. It is a fixed name: no config
	// key names a LocalQueue, so nothing else aksml declares can take it.
	DefaultLocalQueueName = "default"
	// QueueNameLabel is the label a Kueue-managed job carries with its LocalQueue.
	QueueNameLabel = vocab.QueueNameLabel
	// WorkloadPriorityClassLabel is the label a Kueue-managed job carries with
	// its WorkloadPriorityClass.
	WorkloadPriorityClassLabel = vocab.WorkloadPriorityClassLabel
	// CPUFlavorName is the ResourceFlavor that carries cpu and memory quota.
	// It has no node labels or taints: it matches any schedulable node.
	CPUFlavorName = "cpu"
	// TeamLabel carries the team's name on its namespace and objects.
	TeamLabel = vocab.TeamLabel
	// PartOfLabel marks every object aksml creates, with PartOfValue.
	PartOfLabel = vocab.PartOfLabel
	// PartOfValue is the value of PartOfLabel.
	PartOfValue = vocab.PartOfValue
	// NamespaceNameLabel is set by Kubernetes on every namespace; ClusterQueues
	// select their team namespace with it (AKS MLOps best practices).
	NamespaceNameLabel = "kubernetes.io/metadata.name"
	// CPUResource is the core cpu resource teams get quota for.
	CPUResource = "cpu"
	// MemoryResource is the core memory resource teams get quota for.
	MemoryResource = "memory"
	// MaxTeamNameLength keeps derived names (`<team>-gpu`) well inside the
	// 63-character limit of Kubernetes names.
	MaxTeamNameLength = 30
)

// Pod Security admission labels, set on the schedulers' namespaces (C5.1).
const (
	// PodSecurityEnforceLabel rejects pods that break the level it names.
	PodSecurityEnforceLabel = vocab.PodSecurityEnforceLabel
	// PodSecurityWarnLabel warns the client about pods that break its level.
	PodSecurityWarnLabel = vocab.PodSecurityWarnLabel
	// PodSecurityAuditLabel records pods that break its level in the audit log.
	PodSecurityAuditLabel = vocab.PodSecurityAuditLabel
)

// Defaults applied by Default.
const (
	// DefaultSystem is Kueue, the AKS MLOps best practices' primary recommendation.
	DefaultSystem = SystemKueue
	// DefaultCohort is the Kueue cohort every team's ClusterQueue joins, so
	// that teams can borrow each other's unused quota (AKS MLOps best practices: use cohorts
	// and fair sharing when teams can borrow).
	DefaultCohort = "aksml"
	// DefaultOvercommitRatio is 1.0: the GPU quota handed out on a pool may not
	// exceed what the pool holds at maxCount (C5.4).
	DefaultOvercommitRatio = 1.0
	// OvercommitAnnotation on a ResourceFlavor carries a deliberate
	// overcommit ratio (aksml:scheduler.overcommitRatio > 1) for the
	// guardrail that checks quota against pool capacity.
	OvercommitAnnotation = vocab.GPUOvercommitAnnotation
	// DefaultWeight is the fair-sharing weight of a team (Kueue's default, 1).
	DefaultWeight = 1
	// MaxWeight is the largest weight Volcano accepts on a Queue.
	MaxWeight = 65535
	// QueueingStrategy is the AKS MLOps best practices' ClusterQueue queueing strategy.
	QueueingStrategy = "BestEffortFIFO"
)

// criticalAddonsToleration lets the Kueue and Volcano controllers run on an
// AKS system pool (`CriticalAddonsOnly=true:NoSchedule`, C1.3): they sit on
// the admission path of every job, and GPU pools are tainted, so without it a
// cluster with only system and GPU pools has nowhere to run them. It is
// inert on clusters without that taint.
var criticalAddonsToleration = map[string]any{"key": "CriticalAddonsOnly", "operator": "Exists", "effect": "NoSchedule"}
