package observability

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/aksml/aksml/components/gpupool"
)

// DCGMExporter locates the DCGM exporter pods installed on pools whose
// GPUStack is DriverOnly (aksml's gpustack component) or None (e.g. the
// NVIDIA GPU Operator). The stack passes gpustack's values; zero fields take
// the AKS MLOps best practices' PodMonitor values.
type DCGMExporter struct {
	// Namespace of the exporter pods. Default gpu-operator.
	Namespace string `pulumi:"namespace,optional"`
	// Selector is the exporter pods' labels. Default
	// `app: nvidia-dcgm-exporter`.
	Selector map[string]string `pulumi:"selector,optional"`
	// PortName is the exporter's container port name (port 9400). Default
	// metrics.
	PortName string `pulumi:"portName,optional"`
}

// Default fills unset fields with the AKS MLOps best practices' values.
func (d *DCGMExporter) Default() {
	if d.Namespace == "" {
		d.Namespace = DefaultDCGMNamespace
	}
	if len(d.Selector) == 0 {
		d.Selector = map[string]string{DefaultDCGMSelectorKey: DefaultDCGMSelectorValue}
	}
	if d.PortName == "" {
		d.PortName = DefaultDCGMPortName
	}
}

// DCGMTargets says which DCGM exporters the pools run that aksml scrapes:
// managed is true when a pool uses the AKS-managed stack (scraped on port
// 19400 through node discovery), pod is true when a pool uses DriverOnly
// (aksml's gpustack runs the exporter as pods in the namespace it creates;
// scraped with a PodMonitor). None pools bring their own GPU stack and its
// monitoring (the NVIDIA GPU Operator ships its own exporter monitor): aksml
// does not know where that exporter runs, and a PodMonitor in a namespace
// nothing creates is rejected by the API server, so None pools add no
// target. With no pools listed (an existing cluster whose pools aksml does
// not know) only the PodMonitor is wanted: it selects nothing when no
// exporter pod exists.
func DCGMTargets(stacks []gpupool.GPUStack) (managed, pod bool) {
	if len(stacks) == 0 {
		return false, true
	}
	for _, s := range stacks {
		switch s {
		case gpupool.GPUStackManaged:
			managed = true
		case gpupool.GPUStackDriverOnly:
			pod = true
		}
	}
	return managed, pod
}

// dcgmPodMonitorSpec is the spec of the azmonitoring.coreos.com/v1 PodMonitor
// for an exporter running as pods (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) PodMonitor). honorLabels keeps
// the exporter's own namespace, pod and container labels, which name the
// workload using each GPU, so the AKS MLOps best practices' `avg by (namespace, pod, gpu)`
// dashboard query groups by workload rather than by exporter pod.
func dcgmPodMonitorSpec(d DCGMExporter, s Spec) map[string]any {
	return map[string]any{
		"selector": map[string]any{"matchLabels": stringMap(d.Selector)},
		"podMetricsEndpoints": []any{map[string]any{
			"port":          d.PortName,
			"interval":      s.ScrapeInterval,
			"scrapeTimeout": s.ScrapeTimeout,
			"honorLabels":   true,
			"relabelings": []any{
				relabel("__meta_kubernetes_pod_node_name", "(.*)", "node"),
			},
		}},
	}
}

// trainingPodMonitorSpec is the spec of the azmonitoring.coreos.com/v1
// PodMonitor for training pods labelled MetricsLabel=true. Target
// relabelings set the stable labels from pod metadata (team from the
// aksml.io/team pod label or else the namespace; job name, replica role, run ID and model from the Job
// controller's, Kubeflow's and aksml's pod labels when present); metric
// relabelings keep only the training metrics and only the stable labels, so
// high-cardinality labels such as sample_id, request_id or dataset_path never
// reach the workspace.
func trainingPodMonitorSpec(s Spec, teamNamespaces []string) map[string]any {
	nsSel := map[string]any{"any": true}
	if len(teamNamespaces) > 0 {
		nsSel = map[string]any{"matchNames": stringSlice(teamNamespaces)}
	}
	return map[string]any{
		"selector":          map[string]any{"matchLabels": map[string]any{MetricsLabel: MetricsLabelValue}},
		"namespaceSelector": nsSel,
		"podMetricsEndpoints": []any{map[string]any{
			"port":          MetricsPortName,
			"path":          MetricsPath,
			"interval":      s.ScrapeInterval,
			"scrapeTimeout": s.ScrapeTimeout,
			"relabelings": []any{
				relabel("__meta_kubernetes_namespace", "(.*)", LabelTeam),
				relabel(podLabelMeta(TeamPodLabel), "(.+)", LabelTeam),
				relabel(podLabelMeta(jobNamePodLabel), "(.+)", LabelJobName),
				relabel(podLabelMeta(kubeflowJobNamePodLabel), "(.+)", LabelJobName),
				relabel(podLabelMeta(kubeflowReplicaTypePodLabel), "(.+)", LabelReplicaRole),
				relabel(podLabelMeta(RunIDPodLabel), "(.+)", LabelRunID),
				relabel(podLabelMeta(ModelNamePodLabel), "(.+)", LabelModelName),
				relabel(podLabelMeta(ModelVersionPodLabel), "(.+)", LabelModelVersion),
			},
			"metricRelabelings": []any{
				map[string]any{
					"action":       "keep",
					"sourceLabels": []any{"__name__"},
					"regex":        TrainingMetricsRegex(s.AdditionalTrainingMetrics),
				},
				map[string]any{
					"action": "labelkeep",
					"regex":  KeptLabelsRegex(),
				},
			},
		}},
	}
}

// relabel is a replace relabeling from one source label.
func relabel(source, regex, target string) map[string]any {
	return map[string]any{
		"action":       "replace",
		"sourceLabels": []any{source},
		"regex":        regex,
		"replacement":  "$1",
		"targetLabel":  target,
	}
}

var metaUnsafe = regexp.MustCompile(`[^a-zA-Z0-9_]`)

// podLabelMeta is the discovery meta label of a pod label:
// batch.kubernetes.io/job-name → __meta_kubernetes_pod_label_batch_kubernetes_io_job_name.
func podLabelMeta(podLabel string) string {
	return "__meta_kubernetes_pod_label_" + metaUnsafe.ReplaceAllString(podLabel, "_")
}

// TrainingMetricsRegex is the `keep` regex on __name__ of the training
// PodMonitor: TrainingMetrics and the additional names, each optionally with
// the _bucket, _count or _sum suffix of a histogram or summary.
func TrainingMetricsRegex(additional []string) string {
	names := slices.Concat(TrainingMetrics, additional)
	return "(" + strings.Join(names, "|") + ")(_bucket|_count|_sum)?"
}

// targetLabels are the labels the Prometheus Operator puts on every
// PodMonitor target, and the histogram and summary labels; KeptLabelsRegex
// keeps them next to StableLabels.
var targetLabels = []string{"__name__", "le", "quantile", "job", "instance", "namespace", "pod", "container", "endpoint"}

// KeptLabelsRegex is the `labelkeep` regex of the training PodMonitor: the
// metric name, the target and histogram labels, and StableLabels.
func KeptLabelsRegex() string {
	return strings.Join(slices.Concat(targetLabels, StableLabels), "|")
}

// scrapeConfigFile is the Azure Monitor metrics add-on's custom scrape
// configuration: Prometheus `scrape_configs`.
type scrapeConfigFile struct {
	ScrapeConfigs []scrapeConfig `yaml:"scrape_configs"`
}

type scrapeConfig struct {
	JobName             string          `yaml:"job_name"`
	ScrapeInterval      string          `yaml:"scrape_interval"`
	ScrapeTimeout       string          `yaml:"scrape_timeout"`
	HonorLabels         bool            `yaml:"honor_labels"`
	Scheme              string          `yaml:"scheme"`
	MetricsPath         string          `yaml:"metrics_path"`
	KubernetesSDConfigs []sdConfig      `yaml:"kubernetes_sd_configs"`
	RelabelConfigs      []relabelConfig `yaml:"relabel_configs"`
}

type sdConfig struct {
	Role string `yaml:"role"`
}

type relabelConfig struct {
	SourceLabels []string `yaml:"source_labels,flow"`
	Regex        string   `yaml:"regex"`
	Replacement  string   `yaml:"replacement,omitempty"`
	TargetLabel  string   `yaml:"target_label,omitempty"`
	Action       string   `yaml:"action"`
}

// ManagedDCGMScrapeConfig returns the custom scrape configuration for the
// AKS-managed DCGM exporter (AKS-managed GPU nodes (https://learn.microsoft.com/azure/aks/aks-managed-gpu-nodes)): it discovers nodes, keeps those
// labelled kubernetes.azure.com/dcgm-exporter=enabled, and scrapes
// <InternalIP>:19400/metrics, adding a `node` label. It is the value of the
// `prometheus-config` key of the add-on's ama-metrics-prometheus-config
// ConfigMap; merge its job into that ConfigMap when the cluster already has
// one.
func ManagedDCGMScrapeConfig(s Spec) string {
	cfg := scrapeConfigFile{ScrapeConfigs: []scrapeConfig{{
		JobName:             ManagedDCGMJobName,
		ScrapeInterval:      s.ScrapeInterval,
		ScrapeTimeout:       s.ScrapeTimeout,
		HonorLabels:         true,
		Scheme:              "http",
		MetricsPath:         "/metrics",
		KubernetesSDConfigs: []sdConfig{{Role: "node"}},
		RelabelConfigs: []relabelConfig{
			{
				SourceLabels: []string{"__meta_kubernetes_node_label_" + metaUnsafe.ReplaceAllString(ManagedDCGMNodeLabel, "_")},
				Regex:        ManagedDCGMNodeLabelValue,
				Action:       "keep",
			},
			{
				SourceLabels: []string{"__meta_kubernetes_node_address_InternalIP"},
				Regex:        "(.+)",
				Replacement:  "${1}:" + strconv.Itoa(ManagedDCGMPort),
				TargetLabel:  "__address__",
				Action:       "replace",
			},
			{
				SourceLabels: []string{"__meta_kubernetes_node_name"},
				Regex:        "(.*)",
				Replacement:  "$1",
				TargetLabel:  "node",
				Action:       "replace",
			},
		},
	}}}
	// Marshalling a struct of strings, bools and slices cannot fail.
	out, _ := yaml.Marshal(cfg)
	return string(out)
}

// stringMap converts labels to the untyped map a custom resource takes.
func stringMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// stringSlice converts names to the untyped list a custom resource takes.
func stringSlice(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// kueueServiceMonitorSpec is the spec of the ServiceMonitor for Kueue's
// metrics Service (see KueueServiceMonitorName): HTTPS on port `https`
// with the scraper's service account token; the certificate is Kueue's
// self-signed serving certificate, so it is not verified (as in Kueue's
// chart). Only Kueue's own series (kueue_*) are kept, so the controller's
// Go runtime and controller-runtime series are not paid for.
func kueueServiceMonitorSpec(s Spec) map[string]any {
	return map[string]any{
		"selector": map[string]any{"matchLabels": map[string]any{
			KueueMetricsComponentLabel: KueueMetricsComponentValue,
			KueueNameLabel:             KueueNameValue,
		}},
		"endpoints": []any{map[string]any{
			"port":            KueueMetricsPortName,
			"path":            MetricsPath,
			"scheme":          "https",
			"interval":        s.ScrapeInterval,
			"scrapeTimeout":   s.ScrapeTimeout,
			"bearerTokenFile": ServiceAccountTokenFile,
			"tlsConfig":       map[string]any{"insecureSkipVerify": true},
			"metricRelabelings": []any{map[string]any{
				"sourceLabels": []any{"__name__"},
				"regex":        "kueue_.*",
				"action":       "keep",
			}},
		}},
	}
}

// ManagedSettingsConfigMapData is the data of the add-on's settings
// ConfigMap (AMASettingsConfigMapName): schema v1, the minimal ingestion
// profile kept on, and KubeStateKeepList added to the kube-state-metrics
// target (key `kubestate`; "Customize scraping of Prometheus metrics in
// Azure Monitor managed service for Prometheus",
// https://learn.microsoft.com/azure/azure-monitor/containers/prometheus-metrics-scrape-configmap,
// and its template https://aka.ms/azureprometheus-addon-settings-configmap).
// Keys it leaves out keep the add-on's defaults.
func ManagedSettingsConfigMapData() map[string]string {
	return map[string]string{
		"schema-version": "v1",
		"config-version": "ver1",
		"default-targets-metrics-keep-list": fmt.Sprintf("kubestate = %q\nminimalingestionprofile = true\n",
			strings.Join(KubeStateKeepList, "|")),
	}
}
