package workloads

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/apiextensions"
	appsv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/apps/v1"
	autoscalingv2 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/autoscaling/v2"
	corev1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/core/v1"
	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
	networkingv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/networking/v1"
	policyv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/policy/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
)

// kindInferenceServer is the component label of an InferenceServer.
const kindInferenceServer = "inference-server"

// InferenceServerArgs describe a real-time model server (SPEC C7; AKS MLOps
// best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops)
// "Configure training and inference priorities" and "never use spot for
// inference serving"): a Deployment of an OpenAI-compatible server such as
// vLLM on a Regular GPU pool for inference, a ClusterIP Service, a
// PodDisruptionBudget and an autoscaler on the server's own load metric: by
// default a KEDA ScaledObject whose prometheus trigger reads the metric
// from the Azure Monitor workspace managed Prometheus scrapes it into
// (Autoscaling.Scaler, KEDA).
//
// The Deployment is not queued: a serving replica must start when the
// autoscaler asks for it, not when a batch quota frees up, so Scheduler
// must be none. Its GPUs still count against the team namespace's
// ResourceQuota (requests.nvidia.com/gpu), which the stacks size to the
// team's quota.
//
// The model is read from the team's storage: DataPVC (default the team's
// model-checkpoints claim, where fine-tuning writes its output) is mounted
// read-only at DataDir (default /models) and passed in DATA_DIR. Nothing is
// downloaded at start unless the container is told to.
type InferenceServerArgs struct {
	Common
	// Pool is the GPU pool the server runs on. Required: a Regular pool
	// (spot pools are refused: an eviction drops every request in flight)
	// whose workload class is inference.
	Pool *gpupool.Resolved
	// Serving says the team is declared a serving team (the stacks'
	// `aksml:teams[].serving`): only then may the pods use the
	// inference-critical PriorityClass, which preempts batch training.
	// Default false. With Serving the default PriorityClass is
	// inference-critical; without, training-batch.
	Serving bool
	// Port is the container port the server listens on, named "http" and
	// exposed by the Service under the same number. Default 8000 (vLLM's).
	Port int
	// HealthPath is the HTTP path the startup, readiness and liveness
	// probes GET on Port. Default "/health" (vLLM's). Must start with "/".
	HealthPath string
	// ModelLoadSeconds is how long a starting replica may take to load its
	// model before the liveness probe applies (startup probe budget).
	// Default 1800; 60..7200.
	ModelLoadSeconds int
	// MinReplicas is the autoscaler's minimum. Default: the
	// replicas the pool's warm nodes hold (pool minimum × replicas per
	// node), at least 1, so that the warm minimum and the serving minimum
	// agree: fewer would pay for idle warm GPUs, more would wait for a node
	// to boot on every deployment.
	MinReplicas int
	// MaxReplicas is the autoscaler's maximum. Default: the
	// replicas the pool holds at its node ceiling. At most that.
	MaxReplicas int
	// Autoscaling is the load signal the autoscaler follows and which
	// autoscaler follows it.
	Autoscaling InferenceAutoscaling
	// KEDA is where the keda scaler reads the metric: the Azure Monitor
	// workspace's Prometheus query endpoint and the ClusterTriggerAuthentication
	// whose workload identity may read it. Required with Autoscaling.Scaler
	// keda (the aksml stacks pass the platform's: the workspace of
	// observability.NewAzureMonitor and the ClusterTriggerAuthentication of
	// observability.NewKEDATriggerAuth); ignored with metricsAdapter.
	KEDA *KEDASource
}

// Scalers an InferenceServer's Autoscaling.Scaler may name.
const (
	// ScalerKEDA scales with a KEDA ScaledObject (keda.sh/v1alpha1) whose
	// prometheus trigger queries the Azure Monitor workspace for the
	// metric summed over the server's pods, with the platform's
	// ClusterTriggerAuthentication (workload identity): the route AKS
	// documents from Azure Monitor managed Prometheus to pod autoscaling
	// ("Integrate KEDA with your Azure Kubernetes Service cluster",
	// https://learn.microsoft.com/azure/azure-monitor/containers/integrate-keda;
	// "Autoscale GPU Workloads on AKS Using DCGM Metrics and KEDA",
	// https://learn.microsoft.com/azure/aks/autoscale-gpu-workloads-with-keda).
	// KEDA creates and owns the HorizontalPodAutoscaler itself, so the
	// server registers none (two autoscalers on one Deployment fight). The
	// server also registers the PodMonitor that makes managed Prometheus
	// scrape the metric, and a NetworkPolicy that lets the scraper reach
	// the serving port.
	ScalerKEDA = "keda"
	// ScalerMetricsAdapter scales with an autoscaling/v2
	// HorizontalPodAutoscaler on a Pods metric of the custom metrics API
	// (custom.metrics.k8s.io), for a cluster that runs its own adapter
	// serving it (e.g. prometheus-adapter over a Prometheus that scrapes
	// the pods). aksml installs no adapter: without one the HPA reports
	// FailedGetPodsMetric and holds MinReplicas.
	ScalerMetricsAdapter = "metricsAdapter"
)

// Scalers lists the valid values of InferenceAutoscaling.Scaler.
var Scalers = []string{ScalerKEDA, ScalerMetricsAdapter}

// KEDASource is the platform side of the keda scaler: the Azure Monitor
// workspace KEDA queries and the ClusterTriggerAuthentication it queries
// with.
type KEDASource struct {
	// QueryEndpoint is the Prometheus query endpoint of the Azure Monitor
	// workspace managed Prometheus writes the cluster's metrics to
	// (https://<workspace>-<id>.<region>.prometheus.monitor.azure.com, the
	// workspace's properties.metrics.prometheusQueryEndpoint): the trigger's
	// serverAddress. Required.
	QueryEndpoint pulumi.StringInput `pulumi:"queryEndpoint"`
	// TriggerAuthentication is the ClusterTriggerAuthentication the trigger
	// references (cluster-scoped, so that no team namespace holds an
	// identity reference). Default DefaultKEDATriggerAuthentication, the
	// one observability.NewKEDATriggerAuth creates.
	TriggerAuthentication string `pulumi:"triggerAuthentication,optional"`
}

// InferenceAutoscaling is the metric an InferenceServer scales on and the
// scaler that follows it. With Scaler keda (the default) the metric is
// read from the Azure Monitor workspace, summed over the server's pods,
// and KEDA keeps the sum at Target per replica; with metricsAdapter it is
// a per-pod metric of the custom metrics API whose average over the
// replicas a HorizontalPodAutoscaler keeps at Target (see the README's
// "Serving" section).
type InferenceAutoscaling struct {
	// Scaler is keda (ScalerKEDA, the default: what an AKS cluster with
	// aksml's managed Prometheus and the KEDA add-on needs) or
	// metricsAdapter (ScalerMetricsAdapter, for a cluster that runs its own
	// custom metrics adapter).
	Scaler string `json:"scaler,omitempty" pulumi:"scaler,optional"`
	// Metric is the server's Prometheus metric (keda) or the per-pod
	// metric name as the custom metrics API serves it (metricsAdapter).
	// With keda it must be a plain Prometheus metric name
	// ([a-zA-Z_:][a-zA-Z0-9_:]*), since it is written into the trigger's
	// PromQL. Default "vllm:num_requests_waiting": requests queued behind the
	// running batch, the queue depth of a vLLM server ("Production
	// Metrics", https://docs.vllm.ai/en/latest/serving/metrics.html). A
	// fallback that needs no server metrics is DCGM's
	// DCGM_FI_DEV_GPU_UTIL.
	Metric string `json:"metric,omitempty" pulumi:"metric,optional"`
	// Target is the value per replica: the KEDA trigger's threshold (a
	// decimal number, e.g. "5" or "2.5") or the HPA's averageValue (a
	// Kubernetes quantity). Default "5".
	Target string `json:"target,omitempty" pulumi:"target,optional"`
}

// Default fills unset fields with their documented defaults; name is the
// component name (the default object name).
func (a *InferenceServerArgs) Default(name string) {
	if a.PriorityClass == "" && a.Serving {
		a.PriorityClass = PriorityClassInferenceCritical
	}
	if a.Scheduler == "" {
		a.Scheduler = SchedulerNone
	}
	if a.DataPVC == "" {
		a.DataPVC = DefaultCheckpointPVC
	}
	if a.DataDir == "" {
		a.DataDir = DefaultModelDir
	}
	a.applyDefaults(name, commonDefaults{gpu: true, shm: DefaultShmSize})
	a.Port = orDefault(a.Port, DefaultInferencePort)
	if a.HealthPath == "" {
		a.HealthPath = DefaultHealthPath
	}
	a.ModelLoadSeconds = orDefault(a.ModelLoadSeconds, DefaultModelLoadSeconds)
	if a.Autoscaling.Scaler == "" {
		a.Autoscaling.Scaler = ScalerKEDA
	}
	if a.Autoscaling.Metric == "" {
		a.Autoscaling.Metric = DefaultScalingMetric
	}
	if a.KEDA != nil && a.KEDA.TriggerAuthentication == "" {
		k := *a.KEDA
		k.TriggerAuthentication = DefaultKEDATriggerAuthentication
		a.KEDA = &k
	}
	if a.Autoscaling.Target == "" {
		a.Autoscaling.Target = DefaultScalingTarget
	}
	warm, most := a.replicaBounds()
	a.MinReplicas = orDefault(a.MinReplicas, max(warm, 1))
	a.MaxReplicas = orDefault(a.MaxReplicas, max(most, a.MinReplicas))
}

// replicaBounds are the replicas the pool's warm nodes hold and the most it
// holds at its node ceiling; 0 when the pool or the GPU count is unknown.
func (a *InferenceServerArgs) replicaBounds() (warm, most int) {
	if !a.Pool.IsResolved() || !a.Pool.Sized || a.Resources.GPUs < 1 {
		return 0, 0
	}
	sku, _ := a.Pool.SKU()
	perNode := sku.GPUsPerNode / a.Resources.GPUs
	return a.Pool.MinNodes * perNode, a.Pool.MaxNodes * perNode
}

// Validate checks defaulted args and returns every problem, each naming its
// path below p.
func (a *InferenceServerArgs) Validate(p field.Path) field.ErrorList {
	errs := a.validate(p, true, 63)
	// The server's ClusterIP Service carries the workload's name, and a
	// Service name is a DNS-1035 label: it starts with a letter
	// (ValidateServiceName = NameIsDNS1035Label, k8s.io/kubernetes v1.37.2
	// pkg/apis/core/validation/validation.go; "The name of a Service object
	// must be a valid RFC 1035 label name", Kubernetes documentation,
	// Service, https://kubernetes.io/docs/concepts/services-networking/service/).
	// A name the Deployment accepts (a DNS-1123 label may start with a
	// digit) would fail the Service at `pulumi up`, after the Deployment.
	if a.Name != "" && !startsWithLetter(a.Name) {
		errs = append(errs, field.Invalid(p.Child("name"), "%q starts with a digit, but it also names the server's Service, and a Service name must start with a letter (RFC 1035 label); rename the workload, e.g. m%s", a.Name, a.Name))
	}
	poolErrs := validateServingPool(a.Pool, p.Child("pool"))
	errs = append(errs, poolErrs...)
	if a.Scheduler != SchedulerNone {
		errs = append(errs, field.Invalid(p.Child("scheduler"), "%q: a serving Deployment is not queued (a replica the autoscaler asks for must start at once, and Kueue would hold it behind batch quota); use none", a.Scheduler))
	}
	if a.PriorityClass == PriorityClassInferenceCritical && !a.Serving {
		errs = append(errs, field.Forbidden(p.Child("priorityClass"), "%s preempts batch training and is reserved for teams declared serving; declare the team serving (aksml:teams[].serving: true) or use %s", PriorityClassInferenceCritical, DefaultPriorityClass))
	}
	rp := p.Child("resources")
	if a.Resources.GPUs < 1 {
		errs = append(errs, field.Invalid(rp.Child("gpus"), "%d GPUs: a model server on a GPU pool needs at least 1", a.Resources.GPUs))
	} else if len(poolErrs) == 0 {
		errs = append(errs, validateFit(a.Pool, a.Resources, rp)...)
		errs = append(errs, validateGang(a.Pool, a.MaxReplicas*a.Resources.GPUs, fmt.Sprintf("maxReplicas %d × %d GPUs", a.MaxReplicas, a.Resources.GPUs), p.Child("maxReplicas"))...)
	}
	if a.Port < 1 || a.Port > 65535 {
		errs = append(errs, field.Invalid(p.Child("port"), "%d is not a port; use 1..65535", a.Port))
	} else if a.Port == a.MetricsPort {
		errs = append(errs, field.Invalid(p.Child("metricsPort"), "%d is the serving port; leave metricsPort 0 (the server's /metrics is on port) or use another port", a.MetricsPort))
	}
	if !strings.HasPrefix(a.HealthPath, "/") || strings.ContainsAny(a.HealthPath, " \t\n?#") {
		errs = append(errs, field.Invalid(p.Child("healthPath"), "%q is not an HTTP path; write e.g. /health", a.HealthPath))
	}
	if a.ModelLoadSeconds < MinModelLoadSeconds || a.ModelLoadSeconds > MaxModelLoadSeconds {
		errs = append(errs, field.Invalid(p.Child("modelLoadSeconds"), "%d s is out of range; allow %d..%d s for the model to load", a.ModelLoadSeconds, MinModelLoadSeconds, MaxModelLoadSeconds))
	}
	if a.MinReplicas < 1 {
		errs = append(errs, field.Invalid(p.Child("minReplicas"), "%d: a server needs at least 1 replica", a.MinReplicas))
	}
	if a.MaxReplicas < a.MinReplicas {
		errs = append(errs, field.Invalid(p.Child("maxReplicas"), "%d is below minReplicas %d; raise maxReplicas or lower minReplicas", a.MaxReplicas, a.MinReplicas))
	}
	return append(errs, a.validateAutoscaling(p)...)
}

// promMetricNamePattern is a Prometheus metric name, unanchored.
const promMetricNamePattern = `[a-zA-Z_:][a-zA-Z0-9_:]*`

// promMetricName is a Prometheus metric name ("Metric names and labels",
// https://prometheus.io/docs/concepts/data_model/#metric-names-and-labels):
// the only form the keda scaler writes into its PromQL, so a metric can
// never smuggle a selector or a second expression into the query.
var promMetricName = regexp.MustCompile(`^` + promMetricNamePattern + `$`)

// validateAutoscaling checks Autoscaling and, with keda, KEDA.
func (a *InferenceServerArgs) validateAutoscaling(p field.Path) field.ErrorList {
	ap := p.Child("autoscaling")
	var errs field.ErrorList
	as := a.Autoscaling
	switch as.Scaler {
	case ScalerKEDA:
		if !promMetricName.MatchString(as.Metric) {
			errs = append(errs, field.Invalid(ap.Child("metric"), "%q is not a Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*), which the keda scaler writes into its query; use e.g. %s", as.Metric, DefaultScalingMetric))
		}
		// KEDA parses a trigger's threshold as a float (prometheus scaler,
		// "threshold - Value to start scaling for. (This value can be a
		// float)", https://keda.sh/docs/2.17/scalers/prometheus/).
		if v, err := strconv.ParseFloat(as.Target, 64); err != nil || v <= 0 {
			errs = append(errs, field.Invalid(ap.Child("target"), "%q: KEDA's threshold is a positive decimal number; write e.g. \"5\" or \"2.5\"", as.Target))
		}
		switch {
		case a.KEDA == nil || a.KEDA.QueryEndpoint == nil:
			errs = append(errs, field.Required(p.Child("keda").Child("queryEndpoint"), "the Azure Monitor workspace query endpoint KEDA reads the metric from (the aksml stacks pass the platform's); or use autoscaling.scaler: "+ScalerMetricsAdapter+" on a cluster with its own custom metrics adapter"))
		case !field.IsDNSSubdomain(a.KEDA.TriggerAuthentication):
			errs = append(errs, field.Invalid(p.Child("keda").Child("triggerAuthentication"), "%q is not a ClusterTriggerAuthentication name (a DNS-1123 subdomain)", a.KEDA.TriggerAuthentication))
		}
	case ScalerMetricsAdapter:
		if as.Metric == "" || strings.ContainsAny(as.Metric, " \t\n/") {
			errs = append(errs, field.Invalid(ap.Child("metric"), "%q is not a metric name; use e.g. %s", as.Metric, DefaultScalingMetric))
		}
		_, terrs := validateQuantity(as.Target, `"5"`, ap.Child("target"))
		errs = append(errs, terrs...)
	default:
		errs = append(errs, field.NotSupported(ap.Child("scaler"), as.Scaler, Scalers))
	}
	return errs
}

// validateServingPool checks the pool of a model server: resolved,
// Regular (not spot) and meant for inference.
func validateServingPool(pool *gpupool.Resolved, p field.Path) field.ErrorList {
	switch {
	case pool == nil:
		return field.ErrorList{field.Required(p, "the Regular GPU pool with workload inference the server runs on")}
	case !pool.IsResolved():
		return field.ErrorList{field.Invalid(p, "is not a resolved pool; pass the result of gpupool.Resolve or gpupool.ResolveOne, which defaults and validates the pool")}
	case pool.IsSpot():
		return field.ErrorList{field.Forbidden(p, "pool %q is a spot pool: an eviction drops every request in flight and Azure may not return the capacity (SPEC C2.5, never use spot for inference serving); run the server on a Regular pool with workload inference", pool.Name)}
	case pool.Workload != gpupool.WorkloadInference:
		return field.ErrorList{field.Invalid(p.Child("workload"), "pool %q is for %s; run the server on a pool with workload inference, whose warm minimum and priority are set for serving", pool.Name, pool.Workload)}
	}
	return nil
}

// inferencePodSpec is the server's pod: on the pool, port "http", and the
// startup, readiness and liveness probes on HealthPath.
func inferencePodSpec(a *InferenceServerArgs) podSpec {
	ps := gpuPodSpec(podSpec{
		common:      &a.Common,
		kind:        kindInferenceServer,
		container:   "server",
		resources:   a.Resources,
		gracePeriod: DefaultTerminationGracePeriodSeconds,
	}, a.Pool, a.Resources.GPUs)
	ps.ports = corev1.ContainerPortArray{corev1.ContainerPortArgs{
		Name: pulumi.String(ServingPortName), ContainerPort: pulumi.Int(a.Port), Protocol: pulumi.String("TCP"),
	}}
	get := func(period, failures int) corev1.ProbeArgs {
		return corev1.ProbeArgs{
			HttpGet:          corev1.HTTPGetActionArgs{Path: pulumi.String(a.HealthPath), Port: pulumi.String(ServingPortName)},
			PeriodSeconds:    pulumi.Int(period),
			TimeoutSeconds:   pulumi.Int(ProbeTimeoutSeconds),
			FailureThreshold: pulumi.Int(failures),
		}
	}
	ps.probes = &probes{
		startup:   get(ProbePeriodSeconds, (a.ModelLoadSeconds+ProbePeriodSeconds-1)/ProbePeriodSeconds),
		readiness: get(ProbePeriodSeconds, ReadinessFailureThreshold),
		liveness:  get(ProbePeriodSeconds, LivenessFailureThreshold),
	}
	return ps
}

// selectorLabels select the server's pods (Service, PDB, Deployment).
func selectorLabels(c *Common) map[string]string {
	return map[string]string{NameLabel: c.Name, WorkloadKindLabel: kindInferenceServer, TeamLabel: c.Team}
}

// inferenceDeploymentArgs maps defaulted args to the Deployment: MinReplicas
// to start with (the autoscaler owns the count afterwards), a rolling
// update that starts a new replica before stopping an old one where the
// pool has room for it (RollingSurge), and otherwise replaces one replica
// at a time.
func inferenceDeploymentArgs(a *InferenceServerArgs) *appsv1.DeploymentArgs {
	c := &a.Common
	surge, unavailable := 1, 0
	if !a.RollingSurge() {
		surge, unavailable = 0, 1
	}
	return &appsv1.DeploymentArgs{
		Metadata: objectMeta(c, objectLabels(c, kindInferenceServer), awaitAnnotations(c)),
		Spec: appsv1.DeploymentSpecArgs{
			Replicas: pulumi.Int(a.MinReplicas),
			Selector: metav1.LabelSelectorArgs{MatchLabels: pulumi.ToStringMap(selectorLabels(c))},
			Strategy: appsv1.DeploymentStrategyArgs{
				Type: pulumi.String("RollingUpdate"),
				RollingUpdate: appsv1.RollingUpdateDeploymentArgs{
					MaxSurge:       pulumi.Int(surge),
					MaxUnavailable: pulumi.Int(unavailable),
				},
			},
			Template: podTemplate(inferencePodSpec(a)),
		},
	}
}

// inferenceServiceArgs maps defaulted args to the ClusterIP Service.
func inferenceServiceArgs(a *InferenceServerArgs) *corev1.ServiceArgs {
	c := &a.Common
	return &corev1.ServiceArgs{
		Metadata: objectMeta(c, objectLabels(c, kindInferenceServer), map[string]string{SkipAwaitAnnotation: "true"}),
		Spec: corev1.ServiceSpecArgs{
			Type:     pulumi.String("ClusterIP"),
			Selector: pulumi.ToStringMap(selectorLabels(c)),
			Ports: corev1.ServicePortArray{corev1.ServicePortArgs{
				Name: pulumi.String(ServingPortName), Port: pulumi.Int(a.Port),
				TargetPort: pulumi.String(ServingPortName), Protocol: pulumi.String("TCP"),
			}},
		},
	}
}

// inferencePDBArgs maps defaulted args to the PodDisruptionBudget: one
// replica at a time may be evicted by a drain or an upgrade.
func inferencePDBArgs(a *InferenceServerArgs) *policyv1.PodDisruptionBudgetArgs {
	c := &a.Common
	return &policyv1.PodDisruptionBudgetArgs{
		Metadata: objectMeta(c, objectLabels(c, kindInferenceServer), nil),
		Spec: policyv1.PodDisruptionBudgetSpecArgs{
			MaxUnavailable: pulumi.Int(DefaultServingMaxUnavailable),
			Selector:       metav1.LabelSelectorArgs{MatchLabels: pulumi.ToStringMap(selectorLabels(c))},
		},
	}
}

// inferenceHPAArgs maps defaulted args to the autoscaling/v2
// HorizontalPodAutoscaler on the Deployment.
func inferenceHPAArgs(a *InferenceServerArgs) *autoscalingv2.HorizontalPodAutoscalerArgs {
	c := &a.Common
	return &autoscalingv2.HorizontalPodAutoscalerArgs{
		Metadata: objectMeta(c, objectLabels(c, kindInferenceServer), nil),
		Spec: autoscalingv2.HorizontalPodAutoscalerSpecArgs{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReferenceArgs{
				ApiVersion: pulumi.String("apps/v1"), Kind: pulumi.String("Deployment"), Name: pulumi.String(c.Name),
			},
			MinReplicas: pulumi.Int(a.MinReplicas),
			MaxReplicas: pulumi.Int(a.MaxReplicas),
			Metrics: autoscalingv2.MetricSpecArray{autoscalingv2.MetricSpecArgs{
				Type: pulumi.String("Pods"),
				Pods: autoscalingv2.PodsMetricSourceArgs{
					Metric: autoscalingv2.MetricIdentifierArgs{Name: pulumi.String(a.Autoscaling.Metric)},
					Target: autoscalingv2.MetricTargetArgs{Type: pulumi.String("AverageValue"), AverageValue: pulumi.String(a.Autoscaling.Target)},
				},
			}},
		},
	}
}

// ScalingQuery is the PromQL of the keda scaler's prometheus trigger: the
// metric summed over the pods of the server `name` in namespace, selected
// by the namespace and workload labels its PodMonitor sets. The sum, not
// the average: KEDA divides the trigger's value by the threshold to get
// the replicas (metricType AverageValue, KEDA "Scaling Deployments"
// https://keda.sh/docs/2.17/concepts/scaling-deployments/), which keeps
// the per-replica load at the threshold as the HPA's Pods average did.
// metric is a Prometheus metric name and namespace and name are DNS
// labels (validated), so nothing in them needs escaping. An Azure Monitor
// workspace shared by several clusters that all run a server of this name
// in a namespace of this name would sum their pods together: give each
// cluster its own workspace (aksml's default) for such servers.
func ScalingQuery(metric, namespace, name string) string {
	return "sum(" + metric + "{" + ScalingNamespaceLabel + `="` + namespace + `",` + ScalingWorkloadLabel + `="` + name + `"})`
}

// ScalingQueryPattern is the RE2 pattern that every ScalingQuery of
// namespace matches and that no query reading another namespace, another
// label or a second expression does: one metric, summed, selected by
// exactly namespace and a workload name. components/tenancy's admission
// policy holds every ScaledObject and ScaledJob in a team namespace that
// uses the platform's ClusterTriggerAuthentication to it, so KEDA's
// identity, which may read the whole workspace, answers a team only about
// its own namespace.
func ScalingQueryPattern(namespace string) string {
	return `^sum\(` + promMetricNamePattern + `\{` + ScalingNamespaceLabel + `="` + regexp.QuoteMeta(namespace) + `",` +
		ScalingWorkloadLabel + `="[a-z0-9]([-a-z0-9]*[a-z0-9])?"\}\)$`
}

// QueryEndpointPattern is the RE2 pattern of an Azure Monitor workspace
// query endpoint (https://<workspace>-<id>.<region>.prometheus.monitor.azure.com,
// "Query Prometheus metrics using the API and PromQL",
// https://learn.microsoft.com/azure/azure-monitor/metrics/prometheus-api-promql).
// KEDA sends its identity's bearer token to the trigger's serverAddress, so
// the admission policy lets a trigger with the platform's authentication
// name no other host.
const QueryEndpointPattern = `^https://[a-zA-Z0-9-]+(\.[a-zA-Z0-9-]+)*\.prometheus\.monitor\.azure\.com/?$`

// inferenceScaledObjectArgs maps defaulted args with Scaler keda to the
// KEDA ScaledObject on the Deployment: MinReplicas..MaxReplicas, one
// prometheus trigger on the workspace's query endpoint with ScalingQuery
// and threshold Target, authenticated by the platform's
// ClusterTriggerAuthentication (the form of the managed Prometheus KEDA
// example, https://learn.microsoft.com/azure/azure-monitor/containers/integrate-keda#scalers).
// Not awaited: its Ready condition depends on KEDA reaching the workspace,
// which the deployment does not need to wait for.
//
// The HPA KEDA creates is named after the server (advanced.horizontalPodAutoscalerConfig.name),
// as aksml's own HPA was, and the ScaledObject asks to take that HPA over
// (KEDATransferHPAAnnotation). KEDA's admission webhook refuses a
// ScaledObject whose Deployment another HPA already scales ("Admission
// Webhooks", https://keda.sh/docs/2.17/concepts/admission-webhooks/), and
// on a stack deployed before the keda scaler `up` creates the ScaledObject
// while the old `<name>-hpa` still exists (Pulumi deletes replaced
// resources last); with the annotation and the same name KEDA adopts it
// (kedacore/keda v2.17.2 apis/keda/v1alpha1/scaledobject_webhook.go
// verifyHpas). When Pulumi then deletes the old HPA object, KEDA recreates
// its HPA on its next reconcile.
func inferenceScaledObjectArgs(a *InferenceServerArgs) *apiextensions.CustomResourceArgs {
	c := &a.Common
	query := c.Namespace.ToStringOutput().ApplyT(func(ns string) string {
		return ScalingQuery(a.Autoscaling.Metric, ns, c.Name)
	}).(pulumi.StringOutput)
	return &apiextensions.CustomResourceArgs{
		ApiVersion: pulumi.String(KEDAAPIVersion),
		Kind:       pulumi.String("ScaledObject"),
		Metadata:   objectMeta(c, objectLabels(c, kindInferenceServer), map[string]string{SkipAwaitAnnotation: "true", KEDATransferHPAAnnotation: "true"}),
		OtherFields: kubernetes.UntypedArgs{"spec": pulumi.Map{
			"scaleTargetRef":  pulumi.Map{"apiVersion": pulumi.String("apps/v1"), "kind": pulumi.String("Deployment"), "name": pulumi.String(c.Name)},
			"advanced":        pulumi.Map{"horizontalPodAutoscalerConfig": pulumi.Map{"name": pulumi.String(c.Name)}},
			"minReplicaCount": pulumi.Int(a.MinReplicas),
			"maxReplicaCount": pulumi.Int(a.MaxReplicas),
			"triggers": pulumi.Array{pulumi.Map{
				"type":       pulumi.String("prometheus"),
				"metricType": pulumi.String("AverageValue"),
				"metadata": pulumi.Map{
					"serverAddress": a.KEDA.QueryEndpoint,
					"query":         query,
					"threshold":     pulumi.String(a.Autoscaling.Target),
				},
				"authenticationRef": pulumi.Map{
					"kind": pulumi.String("ClusterTriggerAuthentication"),
					"name": pulumi.String(a.KEDA.TriggerAuthentication),
				},
			}},
		}},
	}
}

// metricsPortName is the container port the server's /metrics is on: the
// serving port, or MetricsPort's when set.
func (a *InferenceServerArgs) metricsPortName() string {
	if a.MetricsPort > 0 {
		return MetricsPortName
	}
	return ServingPortName
}

// inferencePodMonitorArgs maps defaulted args with Scaler keda to the
// azmonitoring.coreos.com/v1 PodMonitor through which the managed
// Prometheus add-on scrapes the server's pods ("Create custom Prometheus
// scrape job from your Kubernetes cluster using CRDs",
// https://learn.microsoft.com/azure/azure-monitor/containers/prometheus-metrics-scrape-crd):
// /metrics on metricsPortName, target labels namespace and workload (the
// pod's NameLabel) for ScalingQuery, and only the scaling metric kept, so
// the workspace ingests one series per pod and model rather than every
// vLLM metric. The training PodMonitor does not select the server (it
// keeps training metrics only).
func inferencePodMonitorArgs(a *InferenceServerArgs) *apiextensions.CustomResourceArgs {
	c := &a.Common
	return &apiextensions.CustomResourceArgs{
		ApiVersion: pulumi.String(PodMonitorAPIVersion),
		Kind:       pulumi.String("PodMonitor"),
		Metadata:   objectMeta(c, objectLabels(c, kindInferenceServer), nil),
		OtherFields: kubernetes.UntypedArgs{"spec": map[string]any{
			"selector": map[string]any{"matchLabels": toAnyMap(selectorLabels(c))},
			"podMetricsEndpoints": []any{map[string]any{
				"port": a.metricsPortName(),
				"path": "/metrics",
				"relabelings": []any{
					map[string]any{"action": "replace", "sourceLabels": []any{"__meta_kubernetes_namespace"}, "targetLabel": ScalingNamespaceLabel},
					map[string]any{"action": "replace", "sourceLabels": []any{podLabelMetaName}, "targetLabel": ScalingWorkloadLabel},
				},
				"metricRelabelings": []any{map[string]any{
					"action": "keep", "sourceLabels": []any{"__name__"}, "regex": regexp.QuoteMeta(a.Autoscaling.Metric),
				}},
			}},
		}},
	}
}

// podLabelMetaName is the discovery meta label of the pods' NameLabel
// (app.kubernetes.io/name), which Prometheus relabeling reads.
const podLabelMetaName = "__meta_kubernetes_pod_label_app_kubernetes_io_name"

func toAnyMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// inferenceScrapePolicyArgs maps defaulted args with Scaler keda to the
// NetworkPolicy that lets the managed Prometheus scraper (the ama-metrics
// replica in kube-system, label ScraperPodLabel=ScraperPodValue) reach the
// server's pods on metricsPortName. The team namespace's own scrape
// allowance opens only the port named metrics, and vLLM serves /metrics on
// its serving port.
func inferenceScrapePolicyArgs(a *InferenceServerArgs) *networkingv1.NetworkPolicyArgs {
	c := &a.Common
	meta := objectMeta(c, objectLabels(c, kindInferenceServer), nil)
	meta.Name = pulumi.String(c.Name + "-scrape")
	return &networkingv1.NetworkPolicyArgs{
		Metadata: meta,
		Spec: networkingv1.NetworkPolicySpecArgs{
			PodSelector: metav1.LabelSelectorArgs{MatchLabels: pulumi.ToStringMap(selectorLabels(c))},
			PolicyTypes: pulumi.ToStringArray([]string{"Ingress"}),
			Ingress: networkingv1.NetworkPolicyIngressRuleArray{networkingv1.NetworkPolicyIngressRuleArgs{
				From: networkingv1.NetworkPolicyPeerArray{networkingv1.NetworkPolicyPeerArgs{
					NamespaceSelector: metav1.LabelSelectorArgs{MatchLabels: pulumi.StringMap{"kubernetes.io/metadata.name": pulumi.String("kube-system")}},
					PodSelector:       metav1.LabelSelectorArgs{MatchLabels: pulumi.StringMap{ScraperPodLabel: pulumi.String(ScraperPodValue)}},
				}},
				Ports: networkingv1.NetworkPolicyPortArray{networkingv1.NetworkPolicyPortArgs{Protocol: pulumi.String("TCP"), Port: pulumi.String(a.metricsPortName())}},
			}},
		},
	}
}

// InferenceServer is a model server: Deployment, Service,
// PodDisruptionBudget and its autoscaler (a KEDA ScaledObject with its
// PodMonitor and scrape NetworkPolicy, or a HorizontalPodAutoscaler).
type InferenceServer struct {
	pulumi.ResourceState
	// Object is the Deployment's name and namespace.
	Object
	// ServiceName is the ClusterIP Service clients call, on Port.
	ServiceName pulumi.StringOutput `pulumi:"serviceName"`
	// Port is the Service port.
	Port pulumi.IntOutput `pulumi:"port"`
}

// NewInferenceServer registers an InferenceServer (token
// aksml:workloads:InferenceServer) and its children `name-deployment`,
// `name-service`, `name-pdb` and, with Scaler keda, `name-scaledobject`,
// `name-podmonitor` and `name-scrape`, or with metricsAdapter `name-hpa`.
// The Deployment's replica count is left to the autoscaler once created
// (ignoreChanges spec.replicas).
func NewInferenceServer(ctx *pulumi.Context, name string, args *InferenceServerArgs, opts ...pulumi.ResourceOption) (*InferenceServer, error) {
	c := &InferenceServer{}
	k := kind[InferenceServerArgs, *InferenceServerArgs]{
		token: InferenceServerType, what: "InferenceServerArgs",
		children: func(ctx *pulumi.Context, name string, a *InferenceServerArgs, parent pulumi.ComponentResource, opts []pulumi.ResourceOption) (metaOutput, error) {
			child := childOptions(parent, opts)
			d, err := appsv1.NewDeployment(ctx, name+"-deployment", inferenceDeploymentArgs(a), append(child, pulumi.IgnoreChanges([]string{"spec.replicas"}))...)
			if err != nil {
				return nil, err
			}
			svc, err := corev1.NewService(ctx, name+"-service", inferenceServiceArgs(a), child...)
			if err != nil {
				return nil, err
			}
			if _, err := policyv1.NewPodDisruptionBudget(ctx, name+"-pdb", inferencePDBArgs(a), child...); err != nil {
				return nil, err
			}
			// A copy: the SDK's constructors append their alias options to
			// the slice they are given, which would overwrite an option
			// appended in place of child's spare capacity.
			afterDeployment := append(slices.Clip(child), pulumi.DependsOn([]pulumi.Resource{d}))
			if a.Autoscaling.Scaler == ScalerMetricsAdapter {
				if _, err := autoscalingv2.NewHorizontalPodAutoscaler(ctx, name+"-hpa", inferenceHPAArgs(a), afterDeployment...); err != nil {
					return nil, err
				}
			} else {
				if _, err := networkingv1.NewNetworkPolicy(ctx, name+"-scrape", inferenceScrapePolicyArgs(a), child...); err != nil {
					return nil, err
				}
				if _, err := apiextensions.NewCustomResource(ctx, name+"-podmonitor", inferencePodMonitorArgs(a), child...); err != nil {
					return nil, err
				}
				if _, err := apiextensions.NewCustomResource(ctx, name+"-scaledobject", inferenceScaledObjectArgs(a), afterDeployment...); err != nil {
					return nil, err
				}
			}
			c.ServiceName = svc.Metadata.Name().Elem()
			return d.Metadata, nil
		},
		outputs: func(a *InferenceServerArgs) pulumi.Map {
			c.Port = pulumi.Int(a.Port).ToIntOutput()
			return pulumi.Map{"serviceName": c.ServiceName, "port": c.Port}
		},
	}
	return newWorkload(ctx, k, name, args, c, opts)
}

func (a *InferenceServerArgs) targetPool() *gpupool.Resolved { return a.Pool }

// PeakGPUs is the GPU units a defaulted InferenceServer holds at its most:
// MaxReplicas, and during a rolling update with RollingSurge the replica
// started before an old one stops. The stacks check it against the team
// namespace's ResourceQuota, because the Deployment bypasses the queue: a
// surge replica the quota refuses stalls the rollout (maxUnavailable 0).
func (a *InferenceServerArgs) PeakGPUs() int {
	n := a.MaxReplicas
	if a.RollingSurge() {
		n++
	}
	return n * a.Resources.GPUs
}

// RollingSurge reports whether a rolling update of the defaulted server
// starts a new replica before stopping an old one (maxSurge 1,
// maxUnavailable 0): when the pool holds at least one replica more than
// MaxReplicas, or its size is unknown. At the pool's ceiling the surge
// replica could never be placed and a rollout at MaxReplicas would stall,
// so the update stops one replica before starting its replacement
// (maxSurge 0, maxUnavailable 1, which the PodDisruptionBudget allows)
// ("Deployments", rolling update,
// https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#rolling-update-deployment).
func (a *InferenceServerArgs) RollingSurge() bool {
	_, most := a.replicaBounds()
	return most == 0 || a.MaxReplicas < most
}
