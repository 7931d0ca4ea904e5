package stacks

import (
	"fmt"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/workloads"
)

// inferenceServerConfig is the config of an InferenceServer: the container
// fields (the pool, a Regular inference pool, is required) and the
// serving settings. The model is read from the team's model-checkpoints
// claim at /models.
type inferenceServerConfig struct {
	ContainerSpec
	// Port is the server's port. Default 8000 (vLLM's).
	Port int `json:"port,omitempty"`
	// HealthPath is what the probes GET. Default /health (vLLM's).
	HealthPath string `json:"healthPath,omitempty"`
	// ModelLoadSeconds is the startup probe's budget. Default 1800.
	ModelLoadSeconds int `json:"modelLoadSeconds,omitempty"`
	// MinReplicas and MaxReplicas bound the autoscaler. Defaults: the
	// replicas the pool's warm nodes hold (at least 1), and those it holds
	// at maxCount.
	MinReplicas int `json:"minReplicas,omitempty"`
	MaxReplicas int `json:"maxReplicas,omitempty"`
	// Autoscaling is the scaler, and the metric and per-replica target it
	// follows. Default scaler keda (KEDA reads the metric from the stack's
	// Azure Monitor workspace: aksml:cluster with aksml:observability on),
	// vllm:num_requests_waiting, 5 per replica; metricsAdapter for a
	// HorizontalPodAutoscaler on a custom metrics adapter you run.
	Autoscaling workloads.InferenceAutoscaling `json:"autoscaling,omitempty"`
}

// KindInferenceServer is an autoscaled serving Deployment
// (workloads.InferenceServer).
const KindInferenceServer WorkloadKind = "InferenceServer"

func init() {
	registerKind(&workloadKind{
		// Serving replicas are not queued (workloads.InferenceServerArgs).
		kind: KindInferenceServer, pool: true, unqueued: true,
		config: func() any { return &inferenceServerConfig{} },
		zeroDefaults: map[string]string{
			"port":               fmt.Sprint(workloads.DefaultInferencePort),
			"modelLoadSeconds":   fmt.Sprint(workloads.DefaultModelLoadSeconds),
			"minReplicas":        "the replicas the pool's warm nodes hold, at least 1",
			"maxReplicas":        "the replicas the pool holds at its maxCount",
			"autoscaling.scaler": workloads.ScalerKEDA,
		},
		build: func(c *Config, w WorkloadSpec, t workloadTarget) workloadArgs {
			cfg := w.Config.(*inferenceServerConfig)
			a := &workloads.InferenceServerArgs{
				Common: t.common, Pool: t.pool, Serving: c.teamServing(w.Team),
				Port: cfg.Port, HealthPath: cfg.HealthPath, ModelLoadSeconds: cfg.ModelLoadSeconds,
				MinReplicas: cfg.MinReplicas, MaxReplicas: cfg.MaxReplicas, Autoscaling: cfg.Autoscaling,
				KEDA: c.kedaSource(),
			}
			a.Default(w.Name)
			return a
		},
		register: register(workloads.NewInferenceServer),
	})
}

// usesKEDA reports whether the workload is an InferenceServer whose scaler
// is keda (written or by default).
func (w WorkloadSpec) usesKEDA() bool {
	cfg, ok := w.Config.(*inferenceServerConfig)
	return ok && (cfg.Autoscaling.Scaler == "" || cfg.Autoscaling.Scaler == workloads.ScalerKEDA)
}

// usesKEDA reports whether any workload scales with KEDA: only then does
// the stack register KEDA's identity, role and ClusterTriggerAuthentication.
func (c *Config) usesKEDA() bool {
	for _, w := range c.Workloads {
		if w.usesKEDA() {
			return true
		}
	}
	return false
}

// kedaProvided reports whether the stack sets up what the keda scaler
// reads through: an Azure Monitor workspace that managed Prometheus writes
// to and KEDA's identity on it, which aksml registers on a cluster it
// creates with observability on (the AKS KEDA add-on is on every cluster
// aksml creates, components/cluster).
func (c *Config) kedaProvided() bool {
	return c.Cluster != nil && c.Observability.IsEnabled()
}

// kedaSource is the KEDA source InferenceServers are built with: the
// deployment's once registered, and while validating a stand-in whose
// endpoint is not read (validateScaler reports a stack that provides none).
func (c *Config) kedaSource() *workloads.KEDASource {
	if c.keda != nil {
		return c.keda
	}
	return &workloads.KEDASource{QueryEndpoint: pulumi.String("")}
}

// validateScaler refuses the keda scaler where the stack sets up no KEDA
// access to an Azure Monitor workspace, naming what to do instead.
func (c *Config) validateScaler(w WorkloadSpec, p field.Path) field.ErrorList {
	if !w.usesKEDA() || c.kedaProvided() {
		return nil
	}
	sp := p.Child("autoscaling").Child("scaler")
	cfg := w.Config.(*inferenceServerConfig)
	metric := cfg.Autoscaling.Metric
	if metric == "" {
		metric = workloads.DefaultScalingMetric
	}
	if c.Cluster == nil {
		// components/cluster/existing.go: aksml registers no Azure resource
		// on a cluster it does not create, so it can neither enable the KEDA
		// add-on nor give KEDA an identity on a workspace there.
		return field.ErrorList{field.Invalid(sp, "keda (the default) reads %s from the Azure Monitor workspace through the AKS KEDA add-on and an identity aksml registers only on a cluster it creates (aksml:cluster); on aksml:existingCluster set autoscaling.scaler: %s and run a custom metrics adapter that serves %s per pod (e.g. prometheus-adapter), or create the server from the stack that owns the cluster", metric, workloads.ScalerMetricsAdapter, metric)}
	}
	return field.ErrorList{field.Invalid(sp, "keda (the default) reads %s from the stack's Azure Monitor workspace, and aksml:observability.enabled is false, so there is none; turn observability on, or set autoscaling.scaler: %s and run a custom metrics adapter that serves the metric per pod", metric, workloads.ScalerMetricsAdapter)}
}
