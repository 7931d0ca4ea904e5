package observability

import (
	"time"

	"github.com/aksml/aksml/components/vocab"
)

// Training metrics the application exports on its /metrics endpoint (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops)
// "Export training throughput metrics"), plus the last-checkpoint
// timestamp that the recovery-point alert reads.
const (
	// MetricSamplesTotal is the counter of samples or tokens processed.
	MetricSamplesTotal = "ml_training_samples_total"
	// MetricStepsTotal is the counter of completed optimizer steps.
	MetricStepsTotal = "ml_training_steps_total"
	// MetricStepDuration is the step latency (a gauge in the AKS MLOps best practices' example;
	// a histogram or summary is kept too).
	MetricStepDuration = "ml_training_step_duration_seconds"
	// MetricCheckpointDuration is the checkpoint latency.
	MetricCheckpointDuration = "ml_training_checkpoint_duration_seconds"
	// MetricDataWait is the time spent waiting for input data.
	MetricDataWait = "ml_training_data_wait_seconds"
	// MetricLastCheckpointTimestamp is a gauge holding the Unix time, in
	// seconds, of the last successful checkpoint (AKS MLOps best practices "Monitor job progress": time of the last successful checkpoint). The
	// application sets it when a checkpoint is committed, and at start-up to
	// the time of the checkpoint it restored (or the start time when there is
	// none), so a fresh run is not reported overdue before its first save.
	MetricLastCheckpointTimestamp = "ml_training_last_checkpoint_timestamp_seconds"
)

// TrainingMetrics lists the training metrics the training PodMonitor keeps;
// every other series scraped from a training pod is dropped.
var TrainingMetrics = []string{
	MetricSamplesTotal,
	MetricStepsTotal,
	MetricStepDuration,
	MetricCheckpointDuration,
	MetricDataWait,
	MetricLastCheckpointTimestamp,
}

// Stable, low-cardinality labels kept on training metrics (AKS MLOps best practices: model name, model version, job name, run ID, replica role and team). Any other label the application emits, such as sample
// IDs, request IDs or raw dataset paths, is dropped at scrape time.
const (
	// LabelModelName is the model name.
	LabelModelName = "model_name"
	// LabelModelVersion is the model version.
	LabelModelVersion = "model_version"
	// LabelJobName is the training job name (the AKS MLOps best practices' example emits it).
	LabelJobName = "job_name"
	// LabelRunID is the run ID of one training attempt.
	LabelRunID = "run_id"
	// LabelReplicaRole is the replica role in a distributed job (master,
	// worker).
	LabelReplicaRole = "replica_role"
	// LabelTeam is the team; the training PodMonitor sets it from the pod
	// label TeamPodLabel, or else the pod's namespace (every team has its
	// own namespace).
	LabelTeam = "team"
)

// StableLabels lists the AKS MLOps best practices' stable training labels, in the order above.
var StableLabels = []string{LabelModelName, LabelModelVersion, LabelJobName, LabelRunID, LabelReplicaRole, LabelTeam}

// Pod labels the training PodMonitor reads.
const (
	// MetricsLabel marks a pod whose /metrics endpoint the training
	// PodMonitor scrapes; workload components set it to MetricsLabelValue.
	MetricsLabel = vocab.MetricsLabel
	// MetricsLabelValue is the value of MetricsLabel on scraped pods.
	MetricsLabelValue = "true"
	// MetricsPortName is the name of the container port serving /metrics on
	// training pods (AKS MLOps best practices training-metrics-demo: port `metrics`).
	MetricsPortName = "metrics"
	// MetricsPath is the HTTP path of the training metrics endpoint.
	MetricsPath = "/metrics"
	// TeamPodLabel carries the owning team on aksml workloads and team
	// namespaces (the literal the workloads and queues packages set).
	TeamPodLabel = vocab.TeamLabel
	// RunIDPodLabel, ModelNamePodLabel and ModelVersionPodLabel are optional
	// pod labels copied to run_id, model_name and model_version; when a pod
	// does not carry them the values the application emits are kept.
	RunIDPodLabel        = "aksml.io/run-id"
	ModelNamePodLabel    = "aksml.io/model-name"
	ModelVersionPodLabel = "aksml.io/model-version"
	// jobNamePodLabel is set by the Job controller on every pod of a Job.
	jobNamePodLabel = "batch.kubernetes.io/job-name"
	// kubeflowJobNamePodLabel and kubeflowReplicaTypePodLabel are set by the
	// Kubeflow Training Operator on PyTorchJob and TFJob pods.
	kubeflowJobNamePodLabel     = "training.kubeflow.org/job-name"
	kubeflowReplicaTypePodLabel = "training.kubeflow.org/replica-type"
)

// Kubernetes and Kueue metrics the alerts read. kube_* come from
// kube-state-metrics (on AKS, the metrics add-on's kube-state-metrics
// target); kueue_* from Kueue's metrics endpoint (KueueServiceMonitorName).
const (
	// MetricKueuePendingWorkloads is Kueue's gauge of pending workloads per
	// cluster_queue and status (active, inadmissible), exported by Kueue
	// v0.17.0 (sigs.k8s.io/kueue pkg/metrics: kueue_pending_workloads).
	MetricKueuePendingWorkloads = "kueue_pending_workloads"
	// MetricJobFailedPods is the number of failed pods of a Job.
	MetricJobFailedPods = "kube_job_status_failed"
	// MetricContainerRestarts counts a container's restarts in its pod.
	MetricContainerRestarts = "kube_pod_container_status_restarts_total"
	// MetricNodeCondition is a node condition (condition, status labels).
	MetricNodeCondition = "kube_node_status_condition"
	// MetricJobStartTime is a Job's status.startTime (Unix seconds).
	MetricJobStartTime = "kube_job_status_start_time"
	// MetricJobActive is a Job's number of active pods.
	MetricJobActive = "kube_job_status_active"
)

// GPUHealthConditions are the node conditions AKS sets on AKS-managed GPU
// nodes when GPU software is unhealthy (AKS-managed GPU nodes,
// https://learn.microsoft.com/azure/aks/aks-managed-gpu-nodes, "GPU health
// signals").
var GPUHealthConditions = []string{"UnhealthyNvidiaDevicePlugin", "UnhealthyNvidiaDCGMServices"}

// DCGM exporter metrics the alerts and dashboard read (AKS MLOps best practices "Collect NVIDIA GPU metrics" and dashboard queries).
const (
	// MetricGPUUtil is GPU utilisation in percent.
	MetricGPUUtil = "DCGM_FI_DEV_GPU_UTIL"
	// MetricFBUsed and MetricFBFree are framebuffer memory used and free, MiB.
	MetricFBUsed = "DCGM_FI_DEV_FB_USED"
	MetricFBFree = "DCGM_FI_DEV_FB_FREE"
	// MetricXIDErrors is the last XID error code a GPU reported (0 = none).
	MetricXIDErrors = "DCGM_FI_DEV_XID_ERRORS"
)

// DCGM exporter installed by aksml's gpustack component or the NVIDIA GPU
// Operator (pools with GPUStack DriverOnly or None): defaults equal the
// AKS MLOps best practices' PodMonitor (AKS MLOps best practices "Collect NVIDIA GPU metrics").
const (
	// DefaultDCGMNamespace is the namespace of the exporter pods.
	DefaultDCGMNamespace = vocab.GPUStackNamespace
	// DefaultDCGMSelectorKey and DefaultDCGMSelectorValue form the pod
	// selector `app: nvidia-dcgm-exporter`.
	DefaultDCGMSelectorKey   = "app"
	DefaultDCGMSelectorValue = "nvidia-dcgm-exporter"
	// DefaultDCGMPortName is the exporter's container port name (port 9400).
	DefaultDCGMPortName = "metrics"
	// DCGMPodMonitorName is the name of the exporter PodMonitor (AKS MLOps best practices).
	DCGMPodMonitorName = "nvidia-dcgm-exporter"
)

// AKS-managed DCGM exporter (pools with GPUStack Managed, AKS-managed GPU nodes (https://learn.microsoft.com/azure/aks/aks-managed-gpu-nodes)). It runs
// as a systemd service on each GPU node, not as a pod, so it is scraped
// through node discovery in the Azure Monitor metrics add-on's custom scrape
// configuration instead of a PodMonitor.
const (
	// ManagedDCGMPort is the port the AKS-managed exporter listens on (AKS-managed
	// GPU nodes: the exporter listens on port 19400).
	ManagedDCGMPort = 19400
	// ManagedDCGMNodeLabel and ManagedDCGMNodeLabelValue form the node label
	// AKS sets where the managed exporter runs (AKS-managed GPU nodes:
	// `kubernetes.azure.com/dcgm-exporter=enabled`).
	ManagedDCGMNodeLabel      = "kubernetes.azure.com/dcgm-exporter"
	ManagedDCGMNodeLabelValue = "enabled"
	// ManagedDCGMJobName is the scrape job name of the managed exporter.
	ManagedDCGMJobName = "aks-managed-dcgm-exporter"
	// AMAPrometheusConfigMapName is the Azure Monitor metrics add-on's
	// cluster-wide custom scrape ConfigMap; it must live in kube-system.
	AMAPrometheusConfigMapName = "ama-metrics-prometheus-config"
	// AMAPrometheusConfigKey is the data key holding the scrape config.
	AMAPrometheusConfigKey = "prometheus-config"
	// AMANamespace is the namespace the add-on reads its ConfigMaps from.
	AMANamespace = "kube-system"
	// AMASettingsConfigMapName is the add-on's settings ConfigMap, whose
	// `default-targets-metrics-keep-list` adds series to the minimal
	// ingestion profile ("Customize scraping of Prometheus metrics in Azure
	// Monitor managed service for Prometheus",
	// https://learn.microsoft.com/azure/azure-monitor/containers/prometheus-metrics-scrape-configmap;
	// "Minimal ingestion profile for Prometheus metrics in Azure Monitor",
	// https://learn.microsoft.com/azure/azure-monitor/containers/prometheus-metrics-scrape-configuration-minimal:
	// with the profile on, a keep-list is ingested in addition to it).
	AMASettingsConfigMapName = "ama-metrics-settings-configmap"
)

// KubeStateKeepList is the kube-state-metrics keep-list aksml adds through
// the settings ConfigMap: the series its alerts read that the minimal
// ingestion profile does not ingest (JobPodsReplacedRepeatedly reads
// kube_job_status_failed). A regex over metric names, as the add-on takes
// it.
var KubeStateKeepList = []string{MetricJobFailedPods}

// MinimalKubeStateMetrics are the kube-state-metrics series the add-on's
// minimal ingestion profile keeps that aksml's alerts read (the profile's
// kubestate keep-list, Azure/prometheus-collector
// otelcollector/shared/configmap/mp/definitions.go, DefaultScrapeJobs
// "kubestate" MinimalKeepListRegex; the article "Minimal ingestion profile
// for Prometheus metrics in Azure Monitor" lists the same).
var MinimalKubeStateMetrics = []string{
	"kube_job_failed", "kube_job_status_active", "kube_job_status_start_time",
	MetricContainerRestarts, MetricNodeCondition, "kube_pod_status_phase",
}

// Kueue's metrics endpoint as the Kueue v0.17.0 Helm chart (release
// "kueue", sigs.k8s.io/kueue charts/kueue) serves it: the Service
// kueue-controller-manager-metrics-service (templates/manager/auth_proxy_service.yaml)
// labelled app.kubernetes.io/component=metrics-service and
// app.kubernetes.io/name=kueue, port `https` (8443), HTTPS with a
// self-signed certificate and controller-runtime's authentication and
// authorization filter (cmd/kueue/main.go: SecureServing,
// filters.WithAuthenticationAndAuthorization). The scraper presents its
// service account token, as the chart's own ServiceMonitor does
// (templates/prometheus/monitor.yaml: bearerTokenFile, insecureSkipVerify);
// the metrics add-on's ama-metrics service account may GET /metrics
// (ClusterRole ama-metrics-reader, Azure/prometheus-collector
// otelcollector/deploy/addon-chart templates/ama-metrics-clusterRole.yaml:
// nonResourceURLs ["/metrics"]).
const (
	// KueueServiceMonitorName is the ServiceMonitor aksml creates in
	// Kueue's namespace.
	KueueServiceMonitorName = "kueue-metrics"
	// KueueMetricsPortName is the metrics Service's port name.
	KueueMetricsPortName = "https"
	// KueueMetricsComponentLabel / Value and KueueNameLabel / Value select
	// the metrics Service.
	KueueMetricsComponentLabel = "app.kubernetes.io/component"
	KueueMetricsComponentValue = "metrics-service"
	KueueNameLabel             = "app.kubernetes.io/name"
	KueueNameValue             = "kueue"
	// ServiceAccountTokenFile is the scraper's own service account token.
	ServiceAccountTokenFile = "/var/run/secrets/kubernetes.io/serviceaccount/token"
)

// Names of the other Kubernetes objects NewMonitors creates.
const (
	// TrainingPodMonitorName is the name of the training PodMonitor.
	TrainingPodMonitorName = "aksml-training-metrics"
	// PrometheusRuleName is the name of the PrometheusRule.
	PrometheusRuleName = "aksml-gpu-training-alerts"
	// DashboardConfigMapName is the name of the dashboard ConfigMap.
	DashboardConfigMapName = "aksml-gpu-training-dashboard"
	// DashboardConfigMapKey is the data key holding the dashboard JSON.
	DashboardConfigMapKey = "aksml-gpu-training.json"
	// DashboardLabel and DashboardLabelValue mark the ConfigMap for Grafana
	// dashboard sidecars (`grafana_dashboard: "1"`).
	DashboardLabel      = "grafana_dashboard"
	DashboardLabelValue = "1"
	// DashboardUID is the Grafana dashboard UID.
	DashboardUID = "aksml-gpu-training"
	// RuleGroupName is the name of the rule group inside the PrometheusRule.
	RuleGroupName = "aksml-gpu-training"
)

// Defaults applied by (*Spec).Default and (*MonitorsArgs) defaulting.
const (
	// DefaultNamespace is where the training PodMonitor, the PrometheusRule
	// and the dashboard ConfigMap go. kube-system exists on every cluster, AKS
	// or not, so nothing has to be created first; the Azure Monitor metrics
	// add-on watches monitors in every namespace.
	DefaultNamespace = "kube-system"
	// DefaultScrapeInterval and DefaultScrapeTimeout are the AKS MLOps best practices' PodMonitor
	// values (`interval: 30s`, `scrapeTimeout: 10s`).
	DefaultScrapeInterval = "30s"
	DefaultScrapeTimeout  = "10s"
	// DefaultRPO is the recovery-point objective: a running job with no
	// successful checkpoint for longer raises TrainingCheckpointOverdue.
	DefaultRPO = "30m"
	// MinRPO and MaxRPO bound the RPO: shorter than two scrape intervals
	// cannot be observed, longer than a week is not a recovery objective.
	MinRPO = 5 * time.Minute
	MaxRPO = 7 * 24 * time.Hour
	// DefaultGPUIdleThresholdPercent: a GPU averaging less utilisation than
	// this over GPUIdleWindow is under-utilised (AKS MLOps best practices: sustained GPU under-utilization).
	DefaultGPUIdleThresholdPercent = 20
	// DefaultGPUMemoryThresholdPercent: framebuffer use above this is "near
	// capacity" (AKS MLOps best practices: GPU memory near capacity).
	DefaultGPUMemoryThresholdPercent = 90
	// DefaultPodReplacementThreshold: this many replaced pods (or
	// container restarts) of one job within ReplacementWindow raise the
	// repeated-replacement alerts.
	DefaultPodReplacementThreshold = 3
	// DefaultPodMonitorGroup is the Azure Monitor managed Prometheus CRD
	// group the AKS MLOps best practices' PodMonitors use.
	DefaultPodMonitorGroup = MonitorGroupAzure
	// DefaultManagedDCGMScrapeConfig is true: the add-on's custom scrape
	// ConfigMap is created when a pool runs the AKS-managed stack.
	DefaultManagedDCGMScrapeConfig = true
)

// Rule timing.
const (
	// GPUIdleWindow is the averaging window of the under-utilisation alert.
	GPUIdleWindow = 30 * time.Minute
	// ThroughputWindow is the rate window of the stalled-throughput alert.
	ThroughputWindow = 10 * time.Minute
	// PendingFor is how long workloads or pods may stay pending before the
	// pending alerts fire (AKS MLOps best practices: alert on sustained pending pods).
	PendingFor = 30 * time.Minute
	// ReplacementWindow is the window in which PodReplacementThreshold
	// replacements or restarts raise the repeated-replacement alerts.
	ReplacementWindow = time.Hour
	// GPUHealthFor is how long a GPU health condition must hold before
	// GPUNodeUnhealthy fires (the node problem detector re-checks
	// periodically; a transient flip during a driver restart is ignored).
	GPUHealthFor = 5 * time.Minute
	// MinExpectedDuration and MaxExpectedDuration bound a workload's
	// expectedDuration: shorter than the rule interval plus a scrape cannot
	// be observed; longer than 30 days is not an estimate.
	MinExpectedDuration = 5 * time.Minute
	MaxExpectedDuration = 30 * 24 * time.Hour
	// RuleGroupInterval is the evaluation interval of the rule groups (PT1M).
	RuleGroupInterval = time.Minute
	// AlertAutoResolveAfter is how long an Azure alert stays resolved-pending
	// after its condition clears.
	AlertAutoResolveAfter = 10 * time.Minute
)

// Azure Monitor managed Prometheus rule group resource.
const (
	// RuleGroupResourceType is the ARM type of a managed Prometheus rule group.
	RuleGroupResourceType = "Microsoft.AlertsManagement/prometheusRuleGroups"
	// RuleGroupAPIVersion is the ARM API version used for it.
	RuleGroupAPIVersion = "2023-03-01"
)
