package stacks

import (
	"fmt"

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
	// Autoscaling is the per-pod metric and target the autoscaler follows.
	// Default vllm:num_requests_waiting, 5 per replica.
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
			"port":             fmt.Sprint(workloads.DefaultInferencePort),
			"modelLoadSeconds": fmt.Sprint(workloads.DefaultModelLoadSeconds),
			"minReplicas":      "the replicas the pool's warm nodes hold, at least 1",
			"maxReplicas":      "the replicas the pool holds at its maxCount",
		},
		build: func(c *Config, w WorkloadSpec, t workloadTarget) workloadArgs {
			cfg := w.Config.(*inferenceServerConfig)
			a := &workloads.InferenceServerArgs{
				Common: t.common, Pool: t.pool, Serving: c.teamServing(w.Team),
				Port: cfg.Port, HealthPath: cfg.HealthPath, ModelLoadSeconds: cfg.ModelLoadSeconds,
				MinReplicas: cfg.MinReplicas, MaxReplicas: cfg.MaxReplicas, Autoscaling: cfg.Autoscaling,
			}
			a.Default(w.Name)
			return a
		},
		register: register(workloads.NewInferenceServer),
	})
}
