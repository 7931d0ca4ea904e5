package observability

import (
	"time"

	"github.com/aksml/aksml/components/field"
)

// MonitorGroup is the API group PodMonitors are created in.
type MonitorGroup string

// Valid PodMonitor groups.
const (
	// MonitorGroupAzure is the Azure Monitor managed Prometheus group.
	MonitorGroupAzure MonitorGroup = "azmonitoring.coreos.com"
	// MonitorGroupPrometheusOperator is the Prometheus Operator's group.
	MonitorGroupPrometheusOperator MonitorGroup = "monitoring.coreos.com"
)

// MonitorGroups lists the valid PodMonitor groups.
var MonitorGroups = []MonitorGroup{MonitorGroupAzure, MonitorGroupPrometheusOperator}

// Spec is the plain-data observability configuration, decoded from stack
// config `aksml:observability`. Call Default, then Validate.
type Spec struct {
	// Enabled turns observability on. Default true. When false the stack
	// creates neither NewMonitors nor NewAlertRules.
	Enabled *bool `json:"enabled,omitempty" pulumi:"enabled,optional"`
	// RPO is the recovery-point objective, a Go duration ("30m", "1h"):
	// a running job whose last successful checkpoint is older raises
	// TrainingCheckpointOverdue. Default 30m; 5m to 168h, whole seconds.
	RPO string `json:"rpo,omitempty" pulumi:"rpo,optional"`
	// GPUIdleThresholdPercent: a GPU averaging less utilisation over 30
	// minutes raises GPUUnderutilized. Default 20; 1 to 99.
	GPUIdleThresholdPercent int `json:"gpuIdleThresholdPercent,omitempty" pulumi:"gpuIdleThresholdPercent,optional"`
	// GPUMemoryThresholdPercent: framebuffer use above it raises
	// GPUMemoryNearCapacity. Default 90; 50 to 99.
	GPUMemoryThresholdPercent int `json:"gpuMemoryThresholdPercent,omitempty" pulumi:"gpuMemoryThresholdPercent,optional"`
	// PodReplacementThreshold: this many failed pods replaced, or
	// container restarts, of one job within an hour raise
	// JobPodsReplacedRepeatedly / ContainersRestartingRepeatedly. Default 3;
	// 1 to 100.
	PodReplacementThreshold int `json:"podReplacementThreshold,omitempty" pulumi:"podReplacementThreshold,optional"`
	// ScrapeInterval and ScrapeTimeout apply to every scrape target, as
	// durations in h, m and s ("30s", "1m"), 1s to 5m. Defaults 30s and 10s
	// (AKS MLOps best practices PodMonitor); the timeout may not exceed the interval.
	ScrapeInterval string `json:"scrapeInterval,omitempty" pulumi:"scrapeInterval,optional"`
	// ScrapeTimeout is the scrape timeout, at most ScrapeInterval (see
	// there). Default 10s.
	ScrapeTimeout string `json:"scrapeTimeout,omitempty" pulumi:"scrapeTimeout,optional"`
	// AdditionalTrainingMetrics are further metric names kept from training
	// pods, e.g. loss or learning rate (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) lists them as useful). Each
	// added name is paid for in ingestion. Default none.
	AdditionalTrainingMetrics []string `json:"additionalTrainingMetrics,omitempty" pulumi:"additionalTrainingMetrics,optional"`
	// ManagedDCGMScrapeConfig creates the Azure Monitor metrics add-on's
	// `ama-metrics-prometheus-config` ConfigMap in kube-system when a pool
	// runs the AKS-managed GPU stack. Default true. Set false when the
	// cluster already has that ConfigMap, and merge the job from the
	// ManagedDCGMScrapeConfig output into it.
	ManagedDCGMScrapeConfig *bool `json:"managedDcgmScrapeConfig,omitempty" pulumi:"managedDcgmScrapeConfig,optional"`
	// ManagedSettingsConfigMap creates the Azure Monitor metrics add-on's
	// `ama-metrics-settings-configmap` in kube-system with
	// prometheusRuleGroups, adding KubeStateKeepList (the kube-state-metrics
	// series the alerts read that the add-on's minimal ingestion profile
	// drops) to the kube-state-metrics keep-list. Default true. Set false
	// when the cluster already has that ConfigMap, and add
	// KubeStateKeepList to its kubestate keep-list.
	ManagedSettingsConfigMap *bool `json:"managedSettingsConfigMap,omitempty" pulumi:"managedSettingsConfigMap,optional"`
	// AzureMonitorWorkspaceID is the ARM ID of an existing Azure Monitor
	// workspace the cluster's managed Prometheus writes to:
	// /subscriptions/<subscription-guid>/resourceGroups/<rg>/providers/Microsoft.Monitor/accounts/<name>.
	// Default none: on AKS, aksml creates a workspace
	// (AzureMonitorWorkspaceName) in the cluster's resource group.
	AzureMonitorWorkspaceID string `json:"azureMonitorWorkspaceId,omitempty" pulumi:"azureMonitorWorkspaceId,optional"`
	// AzureMonitorWorkspaceName names the workspace aksml creates when
	// AzureMonitorWorkspaceID is unset: 4-44 letters, digits or '-',
	// starting and ending with a letter or digit. Default `amw-<cluster>`.
	AzureMonitorWorkspaceName string `json:"azureMonitorWorkspaceName,omitempty" pulumi:"azureMonitorWorkspaceName,optional"`
	// AzureMonitorWorkspaceLocation is the workspace's region; the data
	// collection endpoint and rule, Grafana and the rule groups are created
	// there (Microsoft's onboarding template places them in the workspace's
	// region). Default the cluster's region; set it when
	// AzureMonitorWorkspaceID names a workspace in another region.
	AzureMonitorWorkspaceLocation string `json:"azureMonitorWorkspaceLocation,omitempty" pulumi:"azureMonitorWorkspaceLocation,optional"`
	// Grafana adds an Azure Managed Grafana linked to the workspace.
	// Default nil (off).
	Grafana *GrafanaSpec `json:"grafana,omitempty" pulumi:"grafana,optional"`
	// PrometheusRuleGroups delivers the alert rules as Azure Monitor managed
	// Prometheus rule groups (NewAlertRules), scoped to the workspace and
	// the cluster. Default false; the prod stack sets it. Not allowed on
	// existing (non-AKS) clusters, which register no Azure resources.
	PrometheusRuleGroups bool `json:"prometheusRuleGroups,omitempty" pulumi:"prometheusRuleGroups,optional"`
	// PrometheusRule delivers the alert rules as a monitoring.coreos.com/v1
	// PrometheusRule for a cluster running the Prometheus Operator (existing
	// clusters). Default false.
	PrometheusRule bool `json:"prometheusRule,omitempty" pulumi:"prometheusRule,optional"`
	// PodMonitorGroup is the API group of the PodMonitors:
	// azmonitoring.coreos.com (default; the Azure Monitor metrics add-on on
	// AKS) or monitoring.coreos.com (the Prometheus Operator, e.g. on an
	// existing non-AKS cluster). Both serve the same PodMonitor schema at v1.
	PodMonitorGroup MonitorGroup `json:"podMonitorGroup,omitempty" pulumi:"podMonitorGroup,optional"`
	// Labels are added to every Kubernetes object NewMonitors creates, so a
	// Prometheus Operator's podMonitorSelector and ruleSelector pick them up
	// (e.g. `release: kube-prometheus-stack`). They may not replace the
	// labels aksml sets (app.kubernetes.io/part-of, grafana_dashboard).
	Labels map[string]string `json:"labels,omitempty" pulumi:"labels,optional"`
	// ActionGroupIDs are ARM IDs of Azure Monitor action groups notified by
	// every rule group alert. Default none (alerts show in the portal only).
	// Only valid with PrometheusRuleGroups.
	ActionGroupIDs []string `json:"actionGroupIds,omitempty" pulumi:"actionGroupIds,optional"`
}

// GrafanaSpec is an Azure Managed Grafana (Microsoft.Dashboard/grafana,
// API 2025-08-01, SKU Standard, system-assigned identity) integrated with
// the Azure Monitor workspace; its identity gets Monitoring Data Reader on
// the workspace.
type GrafanaSpec struct {
	// Enabled creates the Grafana. Default false.
	Enabled bool `json:"enabled,omitempty" pulumi:"enabled,optional"`
	// Name is the Grafana name: 2-23 letters, digits or '-', starting with
	// a letter and ending with a letter or digit. Required when Enabled
	// (it is part of the Grafana's public URL, so aksml does not guess it).
	Name string `json:"name,omitempty" pulumi:"name,optional"`
}

// Default fills unset fields with their documented defaults.
func (s *Spec) Default() {
	if s.Enabled == nil {
		v := true
		s.Enabled = &v
	}
	if s.RPO == "" {
		s.RPO = DefaultRPO
	}
	if s.GPUIdleThresholdPercent == 0 {
		s.GPUIdleThresholdPercent = DefaultGPUIdleThresholdPercent
	}
	if s.GPUMemoryThresholdPercent == 0 {
		s.GPUMemoryThresholdPercent = DefaultGPUMemoryThresholdPercent
	}
	if s.PodReplacementThreshold == 0 {
		s.PodReplacementThreshold = DefaultPodReplacementThreshold
	}
	if s.ScrapeInterval == "" {
		s.ScrapeInterval = DefaultScrapeInterval
	}
	if s.ScrapeTimeout == "" {
		s.ScrapeTimeout = DefaultScrapeTimeout
	}
	if s.PodMonitorGroup == "" {
		s.PodMonitorGroup = DefaultPodMonitorGroup
	}
	if s.ManagedDCGMScrapeConfig == nil {
		v := DefaultManagedDCGMScrapeConfig
		s.ManagedDCGMScrapeConfig = &v
	}
}

// IsEnabled reports whether observability is on (true when unset).
func (s Spec) IsEnabled() bool { return s.Enabled == nil || *s.Enabled }

// CreatesManagedSettingsConfigMap reports whether NewMonitors creates the
// add-on's settings ConfigMap: with prometheusRuleGroups, unless
// ManagedSettingsConfigMap is false.
func (s Spec) CreatesManagedSettingsConfigMap() bool {
	return s.PrometheusRuleGroups && (s.ManagedSettingsConfigMap == nil || *s.ManagedSettingsConfigMap)
}

// RuleGroupWanted reports whether the Azure Monitor rule group is deployed:
// observability on and PrometheusRuleGroups true.
func (s Spec) RuleGroupWanted() bool { return s.IsEnabled() && s.PrometheusRuleGroups }

// CreatesManagedDCGMScrapeConfig reports whether NewMonitors may create the
// add-on's scrape ConfigMap (true when unset).
func (s Spec) CreatesManagedDCGMScrapeConfig() bool {
	return s.ManagedDCGMScrapeConfig == nil || *s.ManagedDCGMScrapeConfig
}

// RPODuration returns RPO parsed, or the default when RPO is empty or
// invalid (Validate reports an invalid RPO).
func (s Spec) RPODuration() time.Duration {
	if d, err := time.ParseDuration(s.RPO); err == nil {
		return d
	}
	d, _ := time.ParseDuration(DefaultRPO)
	return d
}

// ValidateExistingCluster returns the problems specific to an existing
// (non-AKS) cluster, which registers no Azure resources. The stack calls it
// in addition to Validate when it adopts an existing cluster.
func (s Spec) ValidateExistingCluster(path field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.PrometheusRuleGroups {
		errs = append(errs, field.Invalid(path.Child("prometheusRuleGroups"), "Azure Monitor rule groups need an AKS cluster and an Azure Monitor workspace; on an existing cluster set prometheusRule: true instead"))
	}
	if s.Grafana != nil && s.Grafana.Enabled {
		errs = append(errs, field.Invalid(path.Child("grafana").Child("enabled"), "Azure Managed Grafana is created next to the AKS cluster's Azure Monitor workspace; on an existing cluster aksml registers no Azure resources, so remove grafana"))
	}
	return errs
}
