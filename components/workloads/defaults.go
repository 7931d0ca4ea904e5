package workloads

import (
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/vocab"
)

// Scheduling defaults (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) "Allocate multi-tenant GPU quota with Kueue" and "Configure training and inference priorities"). The
// queues component creates the objects these names refer to; aksml keeps
// its own copies of the names so that the two packages build independently.
const (
	// DefaultScheduler is Kueue, the AKS MLOps best practices' primary queueing system.
	DefaultScheduler = SchedulerKueue
	// DefaultQueueName is the team LocalQueue of GPU workloads: the AKS MLOps best practices'
	// `gpu-queue` in every team namespace (same value as queues.LocalQueueName).
	DefaultQueueName = vocab.LocalQueueName
	// DefaultPriorityClass is the AKS MLOps best practices' `training-batch` PriorityClass
	// (value 10000, preemptionPolicy Never).
	DefaultPriorityClass = vocab.PriorityClassTrainingBatch
)

// Storage defaults (AKS MLOps best practices "Checkpoint to persistent storage").
const (
	// DefaultCheckpointPVC is the team's checkpoint claim, `model-checkpoints`
	// (same value as storage.CheckpointsPVCName).
	DefaultCheckpointPVC = vocab.CheckpointsPVCName
	// DefaultCheckpointDir is where the checkpoint claim is mounted; the AKS MLOps best practices'
	// jobs write to /checkpoints.
	DefaultCheckpointDir = "/checkpoints"
	// DefaultDataDir is where an optional dataset claim is mounted, read-only.
	DefaultDataDir = "/data"
)

// Shared memory (AKS MLOps best practices "Increase /dev/shm for ML data loaders").
const (
	// DefaultShmSize is the sizeLimit of the memory-backed /dev/shm of GPU
	// training pods: the AKS MLOps best practices' 8Gi.
	DefaultShmSize = "8Gi"
	// DefaultMIGTrialShmSize is the /dev/shm of a MIG trial. The AKS MLOps best practices' trial
	// has 8Gi of memory in all, so 8Gi of /dev/shm would leave nothing for
	// the process; 2Gi leaves 6Gi.
	DefaultMIGTrialShmSize = "2Gi"
	// DefaultScoringShmSize is the /dev/shm of a CPU scoring pod.
	DefaultScoringShmSize = "1Gi"
	// MinProcessMemory is the memory a container must keep outside /dev/shm:
	// memory-backed emptyDir counts against the memory limit (AKS MLOps best practices), so
	// ShmSize must be at most the memory limit minus this.
	MinProcessMemory = "1Gi"
	// ShmDisabled as ShmSize mounts no /dev/shm volume (the runtime's 64Mi
	// default applies). Not allowed for multi-replica training.
	ShmDisabled = "0"
)

// Job lifecycle defaults (AKS MLOps best practices "Configure checkpoints, retries and termination": the checkpointed-batch Job).
const (
	// DefaultBackoffLimit is the AKS MLOps best practices' backoffLimit 6.
	DefaultBackoffLimit = 6
	// DefaultActiveDeadlineSeconds is the AKS MLOps best practices' 86400 (24 h, retries included).
	DefaultActiveDeadlineSeconds = 86400
	// DefaultTTLSecondsAfterFinished is the AKS MLOps best practices' 86400: finished Jobs are
	// kept a day for log collection, then removed.
	DefaultTTLSecondsAfterFinished = 86400
	// DefaultTerminationGracePeriodSeconds is the AKS MLOps best practices' 120 s to save a
	// checkpoint on SIGTERM (the cluster autoscaler's
	// max-graceful-termination-sec is 120 too).
	DefaultTerminationGracePeriodSeconds = 120
	// DefaultBackoffLimitPerIndex is the AKS MLOps best practices' shared-data-workers value 2.
	DefaultBackoffLimitPerIndex = 2
	// DefaultMaxFailedIndexes is 0: the Indexed Job fails as soon as one
	// shard has used up its retries, because a dataset with a missing shard
	// is incomplete and the other shards would burn capacity for nothing.
	DefaultMaxFailedIndexes = 0
	// DefaultMIGTrialBackoffLimit is the AKS MLOps best practices' mig-hyperparameter-trial 2.
	DefaultMIGTrialBackoffLimit = 2
	// MaxIndexedCompletions is the Kubernetes limit on completions when
	// backoffLimitPerIndex is set.
	MaxIndexedCompletions = 100000
)

// Security context (AKS MLOps best practices "Share training data with Azure Files": runAsUser/runAsGroup/fsGroup 1000, matching the Azure Files
// mount options uid=1000,gid=1000).
const (
	// RunAsUser is the UID every workload container runs as.
	RunAsUser = 1000
	// RunAsGroup is the primary GID every workload container runs as.
	RunAsGroup = 1000
	// FSGroup owns mounted volumes.
	FSGroup = 1000
)

// MIG trial defaults (AKS MLOps best practices "Partition A100 and H100 GPUs with MIG": the
// mig-hyperparameter-trial Job).
const (
	// DefaultMIGTrialCPU is the AKS MLOps best practices' cpu "2".
	DefaultMIGTrialCPU = "2"
	// DefaultMIGTrialMemory is the AKS MLOps best practices' memory 8Gi.
	DefaultMIGTrialMemory = "8Gi"
	// DefaultMIGDevices is the AKS MLOps best practices' one MIG instance per trial.
	DefaultMIGDevices = 1
	// MIGConfigStateSuccess is the value the MIG manager sets on
	// nvidia.com/mig.config.state once a layout is applied.
	MIGConfigStateSuccess = gpupool.MIGConfigStateSuccess
	// HyperparameterTuningWorkload is the AKS MLOps best practices' `workload` label value of
	// a trial Job and its pods.
	HyperparameterTuningWorkload = "hyperparameter-tuning"
)

// Scheduled scoring defaults (AKS MLOps best practices "Best practices for running batch jobs": a CronJob for scheduled work, with
// history limits for cleanup).
const (
	// DefaultScoringSchedule is nightly at 02:00 (in TimeZone, else the
	// controller's zone, UTC on AKS).
	DefaultScoringSchedule = "0 2 * * *"
	// DefaultConcurrencyPolicy is Forbid: a slow night never overlaps the next.
	DefaultConcurrencyPolicy = "Forbid"
	// DefaultStartingDeadlineSeconds skips a run the controller could not
	// start within 10 minutes of its schedule, instead of starting it late.
	DefaultStartingDeadlineSeconds = 600
	// DefaultSuccessfulJobsHistoryLimit keeps the Kubernetes default 3.
	DefaultSuccessfulJobsHistoryLimit = 3
	// DefaultFailedJobsHistoryLimit keeps 3 failed runs (Kubernetes keeps 1)
	// for incident investigation, as AKS MLOps best practices asks.
	DefaultFailedJobsHistoryLimit = 3
	// DefaultScoringBackoffLimit retries a failed night twice.
	DefaultScoringBackoffLimit = 2
	// DefaultScoringActiveDeadlineSeconds stops a run after 6 h so that it
	// cannot run into the next night.
	DefaultScoringActiveDeadlineSeconds = 21600
	// MaxCronJobNameLength is the Kubernetes limit: the controller appends
	// an 11-character suffix to the Job names.
	MaxCronJobNameLength = 52
)

// Distributed training defaults (AKS MLOps best practices "Run a PyTorchJob",
// "Run a TFJob", "Configure NCCL communication with the AKS CNI").
const (
	// TrainingOperatorVersion is the pinned Kubeflow Training Operator release.
	TrainingOperatorVersion = "v1.8.1"
	// TrainingOperatorManifests is the kustomize overlay of the standalone
	// install at TrainingOperatorVersion (%s is the version).
	TrainingOperatorManifests = "https://github.com/kubeflow/training-operator.git//manifests/overlays/standalone?ref=%s"
	// TrainingOperatorNamespace is where the standalone overlay installs the
	// operator.
	TrainingOperatorNamespace = vocab.TrainingOperatorNamespace
	// KubeflowAPIVersion is the API version of PyTorchJob and TFJob.
	KubeflowAPIVersion = "kubeflow.org/v1"
	// DefaultPyTorchReplicas is the AKS MLOps best practices' two replicas: Master + 1 Worker.
	DefaultPyTorchReplicas = 2
	// DefaultTFWorkers is the AKS MLOps best practices' two TF workers.
	DefaultTFWorkers = 2
	// DefaultCleanPodPolicy is the AKS MLOps best practices' `cleanPodPolicy: None`: pods stay
	// for logs until the Job's TTL removes them.
	DefaultCleanPodPolicy = "None"
	// KubeflowRestartPolicy is the AKS MLOps best practices' replica restartPolicy OnFailure.
	KubeflowRestartPolicy = "OnFailure"
	// DefaultNCCLSocketIfname is the pod interface on AKS CNI.
	DefaultNCCLSocketIfname = "eth0"
	// DefaultNCCLIBDisable is "1": TCP sockets, the portable baseline.
	DefaultNCCLIBDisable = "1"
	// DefaultNCCLDebug is the AKS MLOps best practices' INFO; lower it after tuning.
	DefaultNCCLDebug = "INFO"
	// TrainingJobLabel is the pod label the AKS MLOps best practices' NCCL NetworkPolicy
	// selects replicas of one job by.
	TrainingJobLabel = "training-job"
)

// KAITO fine-tuning defaults (AKS MLOps best practices "Fine-tune a model with KAITO").
const (
	// KAITOAPIVersion is the AKS MLOps best practices' Workspace API version.
	KAITOAPIVersion = "kaito.sh/v1alpha1"
	// DefaultTuningMethod is the AKS MLOps best practices' QLoRA.
	DefaultTuningMethod = TuningQLoRA
	// DefaultWorkspaceNodeCount is the KAITO default of one GPU node.
	DefaultWorkspaceNodeCount = 1
	// WorkspaceSelectorLabel is the AKS MLOps best practices' node label key (`apps`) KAITO
	// puts on the nodes of a workspace.
	WorkspaceSelectorLabel = "apps"
)

// KAITO, pinned (issue 29: "a pinned KAITO release installed by the
// program"). The chart and its repository are those of KAITO's install
// guides ("Bring Your Own GPU Nodes",
// https://kaito-project.github.io/kaito/docs/kaito-on-byo-gpu-nodes:
// `helm repo add kaito https://kaito-project.github.io/kaito/charts/kaito`,
// `helm install workspace kaito/workspace --set
// featureGates.disableNodeAutoProvisioning=true`).
const (
	// KAITOVersion is the KAITO workspace chart (and controller) release
	// aksml installs: 0.10.0, the release whose chart values were read
	// (kaito-project/kaito charts/kaito/workspace/values.yaml with image tag
	// 0.10.0: featureGates.disableNodeAutoProvisioning, nvidiaDevicePlugin,
	// localCSIDriver, spotInstance). The chart's Workspace CRD
	// (templates/kaito.sh_workspaces.yaml) declares kaito.sh/v1alpha1,
	// KAITOAPIVersion, besides v1beta1. The cluster tier applies aksml's
	// Workspaces to the pinned CRD (tools/deps/fetch.sh, an upstream commit
	// whose chart template is the same blob) and they are accepted
	// (tests/cluster/kaito_test.go); the 0.10.0 tag itself could not be
	// fetched (the Go module proxy does not serve the module).
	KAITOVersion = "0.10.0"
	// KAITORepo is KAITO's Helm repository.
	KAITORepo = "https://kaito-project.github.io/kaito/charts/kaito"
	// KAITOChart is the workspace controller's chart in KAITORepo, also
	// the release name of aksml's install.
	KAITOChart = "workspace"
	// KAITONamespace is where the workspace controller runs (the install
	// guides' kaito-workspace).
	KAITONamespace = vocab.KAITONamespace
)

// Await behaviour of `pulumi up` (pulumi-kubernetes annotations).
const (
	// SkipAwaitAnnotation tells pulumi-kubernetes not to wait for the object
	// to become ready. Every Job, CronJob and operator custom resource gets it
	// unless the caller sets Await: a Kueue-suspended Job completes only after
	// admission plus a whole training run, and two suspended Jobs were seen
	// holding `pulumi up` for 200 s until it was cancelled.
	SkipAwaitAnnotation = vocab.SkipAwaitAnnotation
	// TimeoutSecondsAnnotation bounds the wait when the caller opts back in.
	TimeoutSecondsAnnotation = "pulumi.com/timeoutSeconds"
	// MaxAwaitTimeoutSeconds is the longest wait a caller may ask for (1 h).
	MaxAwaitTimeoutSeconds = 3600
)

// Labels and annotations aksml puts on workloads.
const (
	// QueueNameLabel routes a Job or training job to a Kueue LocalQueue.
	QueueNameLabel = vocab.QueueNameLabel
	// WorkloadPriorityClassLabel names the Kueue WorkloadPriorityClass.
	WorkloadPriorityClassLabel = vocab.WorkloadPriorityClassLabel
	// VolcanoSchedulerName is the schedulerName of Volcano-scheduled pods.
	VolcanoSchedulerName = "volcano"
	// VolcanoQueueAnnotation names the Volcano Queue of a pod (read by the
	// Volcano PodGroup controller).
	VolcanoQueueAnnotation = "scheduling.volcano.sh/queue-name"
	// VolcanoMinMemberAnnotation on a Job sets the minMember of the PodGroup
	// Volcano creates for its pods (all-or-nothing admission).
	VolcanoMinMemberAnnotation = "scheduling.volcano.sh/group-min-member"
	// MetricsLabel marks pods the training PodMonitor scrapes (the same
	// literal the observability package selects on).
	MetricsLabel = vocab.MetricsLabel
	// WorkloadIdentityLabel opts a pod into Microsoft Entra Workload ID ("Use
	// Microsoft Entra Workload ID with AKS",
	// https://learn.microsoft.com/azure/aks/workload-identity-overview).
	WorkloadIdentityLabel = "azure.workload.identity/use"
	// MetricsLabelValue is the value of MetricsLabel.
	MetricsLabelValue = "true"
	// MetricsPortName is the container port name the PodMonitor scrapes.
	MetricsPortName = "metrics"
	// TeamLabel carries the owning team on every object.
	TeamLabel = vocab.TeamLabel
	// NameLabel is the standard app name label.
	NameLabel = "app.kubernetes.io/name"
	// PartOfLabel is the standard part-of label, always "aksml".
	PartOfLabel = vocab.PartOfLabel
	// WorkloadKindLabel is the standard component label, set to the aksml kind.
	WorkloadKindLabel = "app.kubernetes.io/component"
	// JobCompletionIndexAnnotation is the annotation the Job controller puts
	// on each pod of an Indexed Job.
	JobCompletionIndexAnnotation = "batch.kubernetes.io/job-completion-index"
)

// Environment variables aksml sets in workload containers.
const (
	// EnvCheckpointDir is the mount path of the checkpoint claim.
	EnvCheckpointDir = "CHECKPOINT_DIR"
	// EnvDataDir is the mount path of the dataset claim.
	EnvDataDir = "DATA_DIR"
	// EnvShardIndex is this pod's shard, from the job completion index.
	EnvShardIndex = "SHARD_INDEX"
	// EnvShardCount is the number of shards (the Job's completions).
	EnvShardCount = "SHARD_COUNT"
	// EnvShardManifest is the path of the manifest that lists each shard's
	// objects, so that no worker lists the dataset.
	EnvShardManifest = "SHARD_MANIFEST"
	// EnvNCCLSocketIfname, EnvNCCLIBDisable, EnvNCCLDebug and
	// EnvTorchAsyncErrorHandling are the AKS MLOps best practices' NCCL baseline variables.
	EnvNCCLSocketIfname        = "NCCL_SOCKET_IFNAME"
	EnvNCCLIBDisable           = "NCCL_IB_DISABLE"
	EnvNCCLDebug               = "NCCL_DEBUG"
	EnvTorchAsyncErrorHandling = "TORCH_NCCL_ASYNC_ERROR_HANDLING"
)

// Inference serving defaults (AKS MLOps best practices, "Configure training
// and inference priorities"; vLLM's OpenAI-compatible server,
// https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html).
const (
	// PriorityClassInferenceCritical is the AKS MLOps best practices'
	// `inference-critical` PriorityClass (value 100000,
	// PreemptLowerPriority), reserved for teams declared serving.
	PriorityClassInferenceCritical = vocab.PriorityClassInferenceCritical
	// DefaultInferencePort is the port `vllm serve` listens on (8000).
	DefaultInferencePort = 8000
	// DefaultHealthPath is the vLLM server's health endpoint, which
	// answers 200 once the engine is up.
	DefaultHealthPath = "/health"
	// ServingPortName names the server's container and Service port.
	ServingPortName = "http"
	// DefaultModelDir is where the model claim is mounted, read-only.
	DefaultModelDir = "/models"
	// DefaultModelLoadSeconds is the startup probe's budget for loading a
	// model (30 min: a 70B model read from Azure Files at a few hundred
	// MB/s). MinModelLoadSeconds and MaxModelLoadSeconds bound it.
	DefaultModelLoadSeconds = 1800
	MinModelLoadSeconds     = 60
	MaxModelLoadSeconds     = 7200
	// ProbePeriodSeconds, ProbeTimeoutSeconds, ReadinessFailureThreshold
	// and LivenessFailureThreshold time the probes: a replica leaves the
	// Service after 3 failed checks (30 s) and is restarted after 6 (60 s),
	// so a long generation that stalls /health briefly is not killed.
	ProbePeriodSeconds        = 10
	ProbeTimeoutSeconds       = 5
	ReadinessFailureThreshold = 3
	LivenessFailureThreshold  = 6
	// DefaultServingMaxUnavailable is the PodDisruptionBudget's
	// maxUnavailable: a drain or an upgrade evicts one replica at a time
	// and waits for its replacement to be ready before the next ("Specifying
	// a Disruption Budget for your Application",
	// https://kubernetes.io/docs/tasks/run-application/configure-pdb/). A
	// number, not minAvailable, so that a single replica never blocks an
	// AKS upgrade ("Plan for node evictions and maintenance").
	DefaultServingMaxUnavailable = 1
	// DefaultScalingMetric is vLLM's queue depth, vllm:num_requests_waiting
	// ("Production Metrics", https://docs.vllm.ai/en/latest/serving/metrics.html),
	// the demand signal the vLLM production stack's KEDA guide and the
	// Amazon EKS "Autoscale AI inference with HPA and KEDA" guide scale on.
	DefaultScalingMetric = "vllm:num_requests_waiting"
	// DefaultScalingTarget is 5 waiting requests per replica on average:
	// aksml's starting point (requests wait only once the running batch is
	// full), to be tuned per model and SLO.
	DefaultScalingTarget = "5"
)

// KEDA and managed Prometheus vocabulary of the keda scaler.
const (
	// KEDAAPIVersion is the API of KEDA's ScaledObject and
	// ClusterTriggerAuthentication (keda.sh/v1alpha1, the version the AKS
	// KEDA add-on serves; KEDA CRDs pinned by tools/deps/fetch.sh).
	KEDAAPIVersion = "keda.sh/v1alpha1"
	// DefaultKEDATriggerAuthentication is the platform's
	// ClusterTriggerAuthentication (observability.NewKEDAAccess): KEDA's
	// workload identity with Monitoring Data Reader on the Azure Monitor
	// workspace.
	DefaultKEDATriggerAuthentication = vocab.KEDATriggerAuthentication
	// KEDATransferHPAAnnotation on a ScaledObject lets KEDA take over the
	// HPA named in its advanced.horizontalPodAutoscalerConfig.name
	// (kedacore/keda apis/keda/v1alpha1 ScaledObjectTransferHpaOwnershipAnnotation).
	KEDATransferHPAAnnotation = "scaledobject.keda.sh/transfer-hpa-ownership"
	// PodMonitorAPIVersion is the managed Prometheus add-on's PodMonitor
	// API (azmonitoring.coreos.com/v1).
	PodMonitorAPIVersion = "azmonitoring.coreos.com/v1"
	// ScalingNamespaceLabel and ScalingWorkloadLabel are the target labels
	// the server's PodMonitor puts on its series and ScalingQuery selects
	// on: the pod's namespace and its NameLabel.
	ScalingNamespaceLabel = "namespace"
	ScalingWorkloadLabel  = "workload"
	// ScraperPodLabel and ScraperPodValue select the managed Prometheus
	// replica that scrapes PodMonitors (vocab.ScraperPodLabel).
	ScraperPodLabel = vocab.ScraperPodLabel
	ScraperPodValue = vocab.ScraperPodValue
)
