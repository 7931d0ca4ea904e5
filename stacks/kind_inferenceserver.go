package stacks

import "github.com/aksml/aksml/components/workloads"

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

var inferenceServerKind = workloadKind{
	kind: KindInferenceServer, pool: true,
	config: func() any { return &inferenceServerConfig{} },
	build: func(c *Config, w WorkloadSpec, t workloadTarget) workloadArgs {
		cfg := w.Config.(*inferenceServerConfig)
		// Serving replicas are not queued (workloads.InferenceServerArgs).
		t.common.Scheduler, t.common.QueueName = workloads.SchedulerNone, ""
		a := &workloads.InferenceServerArgs{
			Common: t.common, Pool: t.pool, Serving: c.teamServing(w.Team),
			Port: cfg.Port, HealthPath: cfg.HealthPath, ModelLoadSeconds: cfg.ModelLoadSeconds,
			MinReplicas: cfg.MinReplicas, MaxReplicas: cfg.MaxReplicas, Autoscaling: cfg.Autoscaling,
		}
		a.Default(w.Name)
		return a
	},
	register: register(workloads.NewInferenceServer),
}
