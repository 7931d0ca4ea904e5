package workloads

import (
	"fmt"
	"strings"

	appsv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/apps/v1"
	autoscalingv2 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/autoscaling/v2"
	corev1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/core/v1"
	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
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
// PodDisruptionBudget and a HorizontalPodAutoscaler on the server's own
// load metric.
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
	// MinReplicas is the HorizontalPodAutoscaler's minimum. Default: the
	// replicas the pool's warm nodes hold (pool minimum × replicas per
	// node), at least 1, so that the warm minimum and the serving minimum
	// agree: fewer would pay for idle warm GPUs, more would wait for a node
	// to boot on every deployment.
	MinReplicas int
	// MaxReplicas is the HorizontalPodAutoscaler's maximum. Default: the
	// replicas the pool holds at its node ceiling. At most that.
	MaxReplicas int
	// Autoscaling is the load signal the HorizontalPodAutoscaler follows.
	Autoscaling InferenceAutoscaling
}

// InferenceAutoscaling is the metric an InferenceServer scales on: a
// per-pod metric of the custom metrics API (custom.metrics.k8s.io), whose
// average over the replicas the HorizontalPodAutoscaler keeps at Target.
// Something must serve that API from the server's Prometheus metrics (see
// the README's "Serving" section: aksml does not install a metrics adapter).
type InferenceAutoscaling struct {
	// Metric is the per-pod metric name as the custom metrics API serves
	// it. Default "vllm:num_requests_waiting": requests queued behind the
	// running batch, the queue depth of a vLLM server ("Production
	// Metrics", https://docs.vllm.ai/en/latest/serving/metrics.html). A
	// fallback that needs no server metrics is DCGM's
	// DCGM_FI_DEV_GPU_UTIL.
	Metric string `json:"metric,omitempty" pulumi:"metric,optional"`
	// Target is the average value per replica, a Kubernetes quantity.
	// Default "5".
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
	if a.Autoscaling.Metric == "" {
		a.Autoscaling.Metric = DefaultScalingMetric
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
	ap := p.Child("autoscaling")
	if a.Autoscaling.Metric == "" || strings.ContainsAny(a.Autoscaling.Metric, " \t\n/") {
		errs = append(errs, field.Invalid(ap.Child("metric"), "%q is not a metric name; use e.g. %s", a.Autoscaling.Metric, DefaultScalingMetric))
	}
	_, terrs := validateQuantity(a.Autoscaling.Target, `"5"`, ap.Child("target"))
	return append(errs, terrs...)
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

// InferenceServer is a model server: Deployment, Service,
// PodDisruptionBudget and HorizontalPodAutoscaler of one name.
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
// `name-service`, `name-pdb` and `name-hpa`. The Deployment's replica count
// is left to the autoscaler once created (ignoreChanges spec.replicas).
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
			if _, err := autoscalingv2.NewHorizontalPodAutoscaler(ctx, name+"-hpa", inferenceHPAArgs(a), append(child, pulumi.DependsOn([]pulumi.Resource{d}))...); err != nil {
				return nil, err
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
