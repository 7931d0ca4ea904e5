// Package observability builds the GPU and training observability of an
// aksml cluster (SPEC C6), following AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) "Monitor GPU utilization and training throughput" (its subsections "Collect NVIDIA GPU metrics", "Export training throughput metrics" and
// "Create GPU and throughput dashboards"), AKS MLOps best practices "Monitor job progress and recovery", and AKS-managed GPU nodes (https://learn.microsoft.com/azure/aks/aks-managed-gpu-nodes) (the AKS-managed DCGM
// exporter).
//
// It has three components, so that an existing (non-AKS) cluster registers
// no Azure resources, and two for KEDA, which InferenceServers scale with
// (keda.go: NewKEDAAccess, Azure layer, KEDA's identity with Monitoring
// Data Reader on the workspace; NewKEDATriggerAuth, Kubernetes layer, the
// platform's ClusterTriggerAuthentication):
//
//   - NewMonitors (Kubernetes layer, `aksml:observability:Monitors`): the
//     DCGM exporter scrape, the training PodMonitor, a Grafana dashboard
//     ConfigMap and, with Spec.PrometheusRule, a monitoring.coreos.com/v1
//     PrometheusRule holding Rules.
//   - NewAzureMonitor (Azure layer, `aksml:observability:AzureMonitor`):
//     where the cluster's managed Prometheus metrics go (below).
//   - NewAlertRules (Azure layer, `aksml:observability:AlertRules`): Rules as
//     an Azure Monitor managed Prometheus rule group
//     (Microsoft.AlertsManagement/prometheusRuleGroups, API 2023-03-01)
//     scoped to the workspace NewAzureMonitor wired and to the cluster, in
//     the workspace's region, deployed through components/armdeploy because
//     the azure-native alertsmanagement module is not served at v2.88.0.
//
// # Managed Prometheus end to end
//
// The cluster's azureMonitorProfile.metrics.enabled only starts the metrics
// add-on; without a data collection rule and its association the add-on
// writes nowhere and every rule group evaluates no data. NewAzureMonitor
// lays the missing pieces out as Microsoft's onboarding template does
// (Azure/prometheus-collector AddonArmTemplate/FullAzureMonitorMetricsProfile.json),
// in ONE deployment stack `<name>-stack` in the cluster's resource group
// (components/armdeploy; the azure-native monitor, insights and dashboard
// modules are not served at v2.88.0). API versions are those of the
// published specs the bodies are checked against: Microsoft.Monitor/accounts
// 2023-04-03, Microsoft.Insights 2024-03-11 (dataCollection.json),
// Microsoft.Dashboard/grafana 2025-08-01.
//
//   - Azure Monitor workspace (Microsoft.Monitor/accounts): created as
//     Spec.AzureMonitorWorkspaceName (default amw-<cluster>) in the
//     workspace region (Spec.AzureMonitorWorkspaceLocation, default the
//     cluster's), unless Spec.AzureMonitorWorkspaceID names an existing one,
//     which is only referenced.
//   - Data collection endpoint and rule, MSProm-<workspace region>-<cluster>
//     (cut to 44 characters), kind Linux, in the workspace's region: the
//     rule's prometheusForwarder data source takes the
//     Microsoft-PrometheusMetrics stream and its data flow sends it to the
//     workspace (destinations.monitoringAccounts).
//   - Data collection rule association MSProm-<cluster region>-<cluster> on
//     the cluster (Microsoft.ContainerService/managedClusters/providers/
//     dataCollectionRuleAssociations, as in Microsoft's template).
//   - With Spec.Grafana: an Azure Managed Grafana (SKU Standard,
//     system-assigned identity) whose azureMonitorWorkspaceIntegrations name
//     the workspace, and a typed role assignment (azure-native
//     authorization) giving its identity "Monitoring Data Reader"
//     (b0d8363b-8ddd-447d-831f-62ca05bff136) on the workspace, which
//     Grafana needs to query it. People still need a Grafana role on the
//     Grafana resource (Grafana Admin, Editor or Viewer) to sign in: aksml
//     gives each of the cluster's Entra ID admin groups Grafana Admin
//     (22926164-76b3-42b3-bc55-97df8dab3e41, "Azure built-in roles"), one
//     assignment per group, scoped to the Grafana; others are granted by
//     hand.
//
// The aksml dashboard is NOT imported into Grafana: Grafana dashboards are
// Grafana's own HTTP API (data plane), not an ARM resource of
// Microsoft.Dashboard/grafana 2025-08-01 (its Microsoft.Dashboard/dashboards
// type is a different product), so no template or typed resource can
// create one. The stack exports the JSON (output grafanaDashboard); import
// it with `az grafana dashboard import --name <grafana> --definition
// @dashboard.json`.
//
// What happens to each resource:
//
//   - on update: a resource that leaves the template (Grafana turned off,
//     or the whole template emptied because Spec.Enabled is false) is
//     deleted by Azure in that update (actionOnUnmanage delete). The stack
//     is registered on every run for as long as the cluster lives, even
//     with observability off, so that switching it off deletes rather than
//     orphans. Switching from a created workspace to a configured one
//     deletes the created workspace and its metrics.
//   - on `pulumi destroy`: the role assignment is deleted by Pulumi; the
//     stack is deleted with a plain DELETE, which detaches (does not
//     delete) what it created (see components/armdeploy). Then the cluster
//     is deleted, which deletes the association (an extension resource of
//     the cluster). When aksml created the resource group, deleting it
//     deletes the workspace, endpoint, rule and Grafana. With an existing
//     resource group (cluster.resourceGroup.existing) they stay, detached
//     and billed (the workspace by ingestion, Grafana by the hour): delete
//     them by hand, or set observability.enabled false and run `pulumi up`
//     before the destroy. A configured existing workspace is never changed.
//   - the Prometheus rule groups (NewAlertRules) follow the same rules in
//     their own stack.
//
// # DCGM exporter: which one is scraped
//
// AKS MLOps best practices says not to run a duplicate exporter but to scrape the one that is
// installed. DCGMTargets decides from the pools' GPUStack:
//
//   - None pools bring their own GPU stack (e.g. the NVIDIA GPU Operator)
//     and its monitoring: aksml registers no scrape for them, because it
//     does not know the exporter's namespace and a PodMonitor in a
//     namespace nothing creates is rejected by the API server.
//   - DriverOnly pools run aksml's exporter as pods (the gpustack component,
//     in the namespace it creates). They get the AKS MLOps best practices' PodMonitor:
//     namespace gpu-operator, selector `app: nvidia-dcgm-exporter`, port
//     `metrics` (9400), interval 30s, scrapeTimeout 10s; DCGMExporter
//     overrides each. honorLabels is set so the exporter's namespace, pod and
//     container labels, which name the workload using each GPU, win over the
//     exporter pod's own target labels; without it the AKS MLOps best practices'
//     `avg by (namespace, pod, gpu)` query would group by exporter pod.
//   - Managed pools run the exporter AKS installs as a systemd service on the
//     node, listening on port 19400, on nodes labelled
//     kubernetes.azure.com/dcgm-exporter=enabled (AKS-managed GPU nodes). No pod exposes
//     it, so a PodMonitor (which selects pods) cannot reach it, and a
//     headless Service with hand-written Endpoints would go stale as the
//     autoscaler adds and removes nodes. It is scraped instead through the
//     Azure Monitor metrics add-on's documented custom-scrape ConfigMap,
//     `ama-metrics-prometheus-config` in kube-system (key
//     `prometheus-config`), which the add-on's cluster-wide collector reads:
//     a job with Kubernetes node discovery that keeps nodes carrying the
//     managed-exporter label and scrapes <InternalIP>:19400/metrics. It is
//     one ConfigMap per cluster; when the cluster already has one, set
//     Spec.ManagedDCGMScrapeConfig to false and merge the job from the
//     Monitors.ManagedDCGMScrapeConfig output into it.
//
// # Kueue metrics
//
// With MonitorsArgs.KueueNamespace (the stack sets it when aksml installs
// Kueue from its chart) a ServiceMonitor `kueue-metrics` in that namespace
// (group Spec.PodMonitorGroup, the one the DCGM PodMonitor uses) scrapes
// Kueue's metrics Service as the Kueue v0.17.0 chart creates it
// (kueue-controller-manager-metrics-service, labels
// app.kubernetes.io/component=metrics-service and app.kubernetes.io/name=kueue,
// port `https` 8443). The endpoint is HTTPS behind controller-runtime's
// authentication and authorization filter, so the endpoint presents the
// scraper's service account token (bearerTokenFile) and does not verify
// Kueue's self-signed certificate, as Kueue's own chart ServiceMonitor
// does; the metrics add-on's ama-metrics identity may GET /metrics (its
// ClusterRole ama-metrics-reader, Azure/prometheus-collector
// addon-chart templates/ama-metrics-clusterRole.yaml). Only kueue_* series
// are kept. Network policies do not block it: aksml puts NetworkPolicies
// only in team namespaces (components/tenancy) and on distributed jobs,
// none in kueue-system or on the ama-metrics pods in kube-system, and the
// Kueue chart ships none. A Kueue that the cluster already runs is not
// scraped (its Service labels are unknown to aksml).
//
// # Training metrics
//
// The training PodMonitor selects pods labelled aksml.io/metrics=true (set by
// the workloads package) in the team namespaces and scrapes port `metrics`,
// path /metrics, every 30s. Only the AKS MLOps best practices' metrics are kept
// (ml_training_samples_total, ml_training_steps_total,
// ml_training_step_duration_seconds, ml_training_checkpoint_duration_seconds,
// ml_training_data_wait_seconds) plus ml_training_last_checkpoint_timestamp_seconds
// and Spec.AdditionalTrainingMetrics, and only the AKS MLOps best practices' stable labels
// (model_name, model_version, job_name, run_id, replica_role, team) next to
// the target labels; sample IDs, request IDs, dataset paths and any other
// label are dropped at scrape time, because high-cardinality labels raise
// monitoring cost and query latency (AKS MLOps best practices). team comes from the pod label
// aksml.io/team, or else the namespace; job_name and replica_role from the
// Job controller's and the Kubeflow Training Operator's pod labels; run_id,
// model_name and model_version from optional aksml.io/* pod labels. Where a
// pod label is absent the value the application emits is kept.
//
// The recovery-point alert needs one metric AKS MLOps best practices names only in prose
// (time of the last successful checkpoint): applications must
// export ml_training_last_checkpoint_timestamp_seconds, a gauge with the
// Unix time of the last committed checkpoint (set at start-up to the restored
// checkpoint's time, or the start time). A gauge was chosen over
// `increase(ml_training_checkpoint_duration_seconds_count[rpo]) == 0`
// because it also works when the checkpoint latency is a gauge (as in the
// AKS MLOps best practices' example) and because a restarted pod reports the age of the
// checkpoint it resumed from rather than an empty counter.
//
// # Alerts
//
// Rules returns the rule table: GPUUnderutilized, GPUMemoryNearCapacity,
// GPUXIDError, TrainingThroughputStalled, TrainingCheckpointOverdue,
// JobFailed, GangWorkloadsPending, PodsPending, JobPodsReplacedRepeatedly,
// ContainersRestartingRepeatedly, GPUNodeUnhealthy and one
// WorkloadDurationOverrun per WorkloadDuration, each with a severity and
// annotations that say what to do. The job, pod and node rules read
// kube-state-metrics (on AKS the add-on's default kube-state-metrics
// target, whose ingestion keep-list must include them): kube_job_failed,
// kube_pod_status_phase, kube_job_status_failed,
// kube_pod_container_status_restarts_total, kube_node_status_condition,
// kube_job_status_start_time and kube_job_status_active.
// GangWorkloadsPending reads Kueue's kueue_pending_workloads (registered by
// Kueue v0.17.0, sigs.k8s.io/kueue pkg/metrics/metrics.go, labels
// cluster_queue and status), which requires Kueue's metrics endpoint to be
// scraped. JobFailed uses the Job's Failed condition (kube_job_failed)
// rather than kube_job_status_failed, which counts failed pods and so also
// fires for jobs that retried and then succeeded; that count is what
// JobPodsReplacedRepeatedly reads instead, over an hour.
//
// GPUNodeUnhealthy: AKS-managed GPU nodes
// (https://learn.microsoft.com/azure/aks/aks-managed-gpu-nodes, "GPU health
// signals") set the node conditions UnhealthyNvidiaDevicePlugin and
// UnhealthyNvidiaDCGMServices through the node problem detector ("GPU
// health monitoring in Node Problem Detector (NPD) in AKS nodes",
// https://learn.microsoft.com/azure/aks/gpu-health-monitoring); True is
// the alarm. On DriverOnly and None pools nothing sets them and the rule
// stays silent.
//
// WorkloadDurationOverrun is one rule per workload because the threshold
// must live in the rule: no exporter turns a per-workload setting into a
// series (kube-state-metrics exports Job labels and annotations only when
// allow-listed in its --metric-labels-allowlist, which the AKS add-on
// exposes only through its own settings ConfigMap; Kueue's metrics are per
// queue). It compares the Job's status.startTime (kube_job_status_start_time;
// Kubernetes sets it when a suspended Job is resumed, so Kueue queueing time
// is not counted, "Jobs", https://kubernetes.io/docs/concepts/workloads/controllers/job/#suspending-a-job)
// with the expected duration while the Job has active pods. PyTorchJob,
// TFJob and KAITO Workspaces run no batch/v1 Job, so the stack rejects
// expectedDuration on them.
//
// Removing NewAlertRules deletes its deployment stack but, as documented in
// components/armdeploy, leaves the rule group behind unless its resource
// group is deleted too; delete the `<cluster>-aksml-gpu-training` rule group
// in Azure afterwards when it must go.
//
// # Dashboard
//
// DashboardJSON is a Grafana dashboard with the AKS MLOps best practices' four queries verbatim
// (GPU utilisation, framebuffer %, samples per second, step duration). The
// stack exports it for import into Azure Managed Grafana; the ConfigMap
// labelled grafana_dashboard: "1" serves Grafana dashboard sidecars on
// existing clusters.
package observability
