package workloads

import (
	"regexp"
	"testing"

	corev1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/core/v1"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/field/fieldtest"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/internal/mocktest"
)

const (
	deploymentType = "kubernetes:apps/v1:Deployment"
	serviceType    = "kubernetes:core/v1:Service"
	pdbType        = "kubernetes:policy/v1:PodDisruptionBudget"
	hpaType        = "kubernetes:autoscaling/v2:HorizontalPodAutoscaler"
	scaledObjType  = "kubernetes:keda.sh/v1alpha1:ScaledObject"
	podMonitorType = "kubernetes:azmonitoring.coreos.com/v1:PodMonitor"
	netpolType     = "kubernetes:networking.k8s.io/v1:NetworkPolicy"
	testEndpoint   = "https://amw-dev-abcd.eastus.prometheus.monitor.azure.com"
)

// vllmServer is the README's vLLM example on a two-node A100 inference
// pool with one warm node, for a serving team.
func vllmServer() *InferenceServerArgs {
	c := Common{
		Namespace: pulumi.String("serving"),
		Team:      "serving",
		Image:     "vllm/vllm-openai:v0.8.5",
		Command:   []string{"vllm", "serve", "/models/llama-3.1-8b-instruct"},
		Args:      []string{"--port", "8000"},
		Resources: Resources{CPU: "20", Memory: "180Gi", GPUs: 1},
		Env:       map[string]string{"HF_HUB_OFFLINE": "1"},
	}
	return &InferenceServerArgs{Common: c, Serving: true, Pool: with(inferencePool(), func(s *gpupool.Spec) { one := 1; s.MinCount = &one }),
		KEDA: &KEDASource{QueryEndpoint: pulumi.String(testEndpoint)}}
}

func TestInferenceServer(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		// The stacks pass the namespace and queues as dependencies.
		ns, err := corev1.NewNamespace(ctx, "serving", &corev1.NamespaceArgs{})
		if err != nil {
			return err
		}
		_, err = NewInferenceServer(ctx, "chat", vllmServer(), pulumi.DependsOn([]pulumi.Resource{ns}))
		return err
	})
	assert.Len(t, m.ByType(InferenceServerType), 1)

	dep := m.One(t, deploymentType).Inputs
	assert.Equal(t, "chat", mocktest.Dig(t, dep, "metadata", "name"))
	assert.Equal(t, "serving", mocktest.Dig(t, dep, "metadata", "namespace"))
	assert.Equal(t, map[string]any{"pulumi.com/skipAwait": "true"}, mocktest.Dig(t, dep, "metadata", "annotations"))
	assert.NotContains(t, mocktest.Dig(t, dep, "metadata", "labels"), QueueNameLabel, "a serving Deployment is not queued")
	spec := mocktest.Dig(t, dep, "spec")
	assert.EqualValues(t, 1, mocktest.Dig(t, spec, "replicas"), "one warm A100 node holds one replica")
	// maxReplicas defaults to the whole pool (two nodes), so a rollout at
	// two replicas has no node for a surge replica: one at a time instead.
	assert.EqualValues(t, 1, mocktest.Dig(t, spec, "strategy", "rollingUpdate", "maxUnavailable"))
	assert.EqualValues(t, 0, mocktest.Dig(t, spec, "strategy", "rollingUpdate", "maxSurge"))
	selector := mocktest.Dig(t, spec, "selector", "matchLabels")

	pod := mocktest.Dig(t, spec, "template", "spec")
	assert.Equal(t, "inference-critical", mocktest.Dig(t, pod, "priorityClassName"))
	assert.Equal(t, map[string]any{"accelerator": "nvidia", "workload": "inference", "kubernetes.azure.com/agentpool": "serve"}, mocktest.Dig(t, pod, "nodeSelector"))
	assert.Equal(t, []string{"sku=gpu:NoSchedule (Equal)"}, tolerationStrings(t, pod), "a Regular pool: no spot toleration")
	assert.Equal(t, true, mocktest.Dig(t, pod, "securityContext", "runAsNonRoot"))
	assert.Equal(t, "RuntimeDefault", mocktest.Dig(t, pod, "securityContext", "seccompProfile", "type"))
	for k, v := range selector.(map[string]any) {
		assert.Equal(t, v, mocktest.Dig(t, spec, "template", "metadata", "labels", k), "the selector matches the pod labels")
	}

	ctr := mocktest.Dig(t, pod, "containers", 0)
	assert.Equal(t, "vllm/vllm-openai:v0.8.5", mocktest.Dig(t, ctr, "image"))
	assert.Equal(t, false, mocktest.Dig(t, ctr, "securityContext", "allowPrivilegeEscalation"))
	assert.Equal(t, []any{"ALL"}, mocktest.Dig(t, ctr, "securityContext", "capabilities", "drop"))
	assert.Equal(t, map[string]any{"name": "http", "containerPort": 8000.0, "protocol": "TCP"}, mocktest.Dig(t, ctr, "ports", 0))
	assert.Equal(t, map[string]any{"cpu": "20", "memory": "180Gi", "nvidia.com/gpu": "1"}, mocktest.Dig(t, ctr, "resources", "limits"))
	assert.Equal(t, mocktest.Dig(t, ctr, "resources", "limits"), mocktest.Dig(t, ctr, "resources", "requests"))
	for probe, failures := range map[string]float64{"startupProbe": 180, "readinessProbe": 3, "livenessProbe": 6} {
		assert.Equal(t, "/health", mocktest.Dig(t, ctr, probe, "httpGet", "path"), probe)
		assert.Equal(t, "http", mocktest.Dig(t, ctr, probe, "httpGet", "port"), probe)
		assert.Equal(t, failures, mocktest.Dig(t, ctr, probe, "failureThreshold"), probe)
	}
	assert.Equal(t, map[string]string{"DATA_DIR": "/models", "HF_HUB_OFFLINE": "1"}, envOf(t, ctr))
	models := volumeByName(t, pod, dataVolume)
	assert.Equal(t, "model-checkpoints", mocktest.Dig(t, models, "persistentVolumeClaim", "claimName"), "the model comes from the team's claim")
	assert.Equal(t, true, mocktest.Dig(t, models, "persistentVolumeClaim", "readOnly"))

	svc := m.One(t, serviceType).Inputs
	assert.Equal(t, "ClusterIP", mocktest.Dig(t, svc, "spec", "type"))
	assert.Equal(t, selector, mocktest.Dig(t, svc, "spec", "selector"))
	assert.Equal(t, map[string]any{"name": "http", "port": 8000.0, "targetPort": "http", "protocol": "TCP"}, mocktest.Dig(t, svc, "spec", "ports", 0))

	pdb := m.One(t, pdbType).Inputs
	assert.EqualValues(t, 1, mocktest.Dig(t, pdb, "spec", "maxUnavailable"))
	assert.Equal(t, selector, mocktest.Dig(t, pdb, "spec", "selector", "matchLabels"))

	// The default scaler is KEDA: a ScaledObject on the Deployment, no HPA
	// of aksml's own (KEDA creates one; two on a Deployment fight).
	assert.Empty(t, m.ByType(hpaType))
	so := m.One(t, scaledObjType).Inputs
	assert.Equal(t, "keda.sh/v1alpha1", mocktest.Dig(t, so, "apiVersion"))
	assert.Equal(t, "chat", mocktest.Dig(t, so, "metadata", "name"))
	assert.Equal(t, "serving", mocktest.Dig(t, so, "metadata", "namespace"))
	assert.Equal(t, map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "chat"}, mocktest.Dig(t, so, "spec", "scaleTargetRef"))
	// KEDA's HPA takes the name aksml's HPA had, and may adopt it, so a
	// stack that had the HPA moves to KEDA in one up.
	assert.Equal(t, "chat", mocktest.Dig(t, so, "spec", "advanced", "horizontalPodAutoscalerConfig", "name"))
	assert.Equal(t, "true", mocktest.Dig(t, so, "metadata", "annotations", "scaledobject.keda.sh/transfer-hpa-ownership"))
	assert.EqualValues(t, 1, mocktest.Dig(t, so, "spec", "minReplicaCount"))
	assert.EqualValues(t, 2, mocktest.Dig(t, so, "spec", "maxReplicaCount"), "two A100 nodes at the pool's maxCount")
	assert.Equal(t, map[string]any{
		"type":       "prometheus",
		"metricType": "AverageValue",
		"metadata": map[string]any{
			"serverAddress": testEndpoint,
			"query":         `sum(vllm:num_requests_waiting{namespace="serving",workload="chat"})`,
			"threshold":     "5",
		},
		"authenticationRef": map[string]any{"kind": "ClusterTriggerAuthentication", "name": "aksml-azure-monitor"},
	}, mocktest.Dig(t, so, "spec", "triggers", 0))
	assert.Len(t, mocktest.Dig(t, so, "spec", "triggers"), 1)
	deployment := "urn:pulumi:test::aksml::aksml:workloads:InferenceServer$kubernetes:apps/v1:Deployment::chat-deployment"
	assert.Contains(t, m.One(t, scaledObjType).Deps, deployment, "the ScaledObject waits for its Deployment")
	assert.Contains(t, m.One(t, scaledObjType).Deps, "urn:pulumi:test::aksml::kubernetes:core/v1:Namespace::serving", "and for what the server waits for")

	// The metric reaches the workspace: a PodMonitor on the serving port
	// that keeps only the scaling metric and labels it as the query selects.
	pm := m.One(t, podMonitorType).Inputs
	assert.Equal(t, selector, mocktest.Dig(t, pm, "spec", "selector", "matchLabels"))
	ep := mocktest.Dig(t, pm, "spec", "podMetricsEndpoints", 0)
	assert.Equal(t, "http", mocktest.Dig(t, ep, "port"))
	assert.Equal(t, "/metrics", mocktest.Dig(t, ep, "path"))
	assert.Equal(t, "workload", mocktest.Dig(t, ep, "relabelings", 1, "targetLabel"))
	assert.Equal(t, "__meta_kubernetes_pod_label_app_kubernetes_io_name", mocktest.Dig(t, ep, "relabelings", 1, "sourceLabels", 0))
	assert.Equal(t, map[string]any{"action": "keep", "sourceLabels": []any{"__name__"}, "regex": "vllm:num_requests_waiting"}, mocktest.Dig(t, ep, "metricRelabelings", 0))
	// ... and the scraper may reach that port.
	np := m.One(t, netpolType).Inputs
	assert.Equal(t, "chat-scrape", mocktest.Dig(t, np, "metadata", "name"))
	assert.Equal(t, selector, mocktest.Dig(t, np, "spec", "podSelector", "matchLabels"))
	assert.Equal(t, map[string]any{"rsName": "ama-metrics"}, mocktest.Dig(t, np, "spec", "ingress", 0, "from", 0, "podSelector", "matchLabels"))
	assert.Equal(t, map[string]any{"kubernetes.io/metadata.name": "kube-system"}, mocktest.Dig(t, np, "spec", "ingress", 0, "from", 0, "namespaceSelector", "matchLabels"))
	assert.Equal(t, map[string]any{"protocol": "TCP", "port": "http"}, mocktest.Dig(t, np, "spec", "ingress", 0, "ports", 0))
}

// TestInferenceServerMetricsAdapter: the explicit metricsAdapter scaler
// registers today's HorizontalPodAutoscaler on a custom-metrics Pods metric
// and none of the KEDA objects.
func TestInferenceServerMetricsAdapter(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := vllmServer()
		a.KEDA = nil
		a.Autoscaling.Scaler = ScalerMetricsAdapter
		_, err := NewInferenceServer(ctx, "chat", a)
		return err
	})
	assert.Empty(t, m.ByType(scaledObjType))
	assert.Empty(t, m.ByType(podMonitorType))
	assert.Empty(t, m.ByType(netpolType))
	hpa := m.One(t, hpaType).Inputs
	assert.Equal(t, map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "chat"}, mocktest.Dig(t, hpa, "spec", "scaleTargetRef"))
	assert.EqualValues(t, 1, mocktest.Dig(t, hpa, "spec", "minReplicas"))
	assert.EqualValues(t, 2, mocktest.Dig(t, hpa, "spec", "maxReplicas"), "two A100 nodes at the pool's maxCount")
	assert.Equal(t, "Pods", mocktest.Dig(t, hpa, "spec", "metrics", 0, "type"))
	assert.Equal(t, "vllm:num_requests_waiting", mocktest.Dig(t, hpa, "spec", "metrics", 0, "pods", "metric", "name"))
	assert.Equal(t, map[string]any{"type": "AverageValue", "averageValue": "5"}, mocktest.Dig(t, hpa, "spec", "metrics", 0, "pods", "target"))
}

// TestInferenceServerMetricsOnOwnPort: with metricsPort set, the PodMonitor
// and the scrape policy use the metrics port, not the serving port.
func TestInferenceServerMetricsOnOwnPort(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := vllmServer()
		a.MetricsPort = 9090
		a.KEDA.TriggerAuthentication = "team-prom"
		_, err := NewInferenceServer(ctx, "chat", a)
		return err
	})
	assert.Equal(t, "metrics", mocktest.Dig(t, m.One(t, podMonitorType).Inputs, "spec", "podMetricsEndpoints", 0, "port"))
	assert.Equal(t, "metrics", mocktest.Dig(t, m.One(t, netpolType).Inputs, "spec", "ingress", 0, "ports", 0, "port"))
	assert.Equal(t, "team-prom", mocktest.Dig(t, m.One(t, scaledObjType).Inputs, "spec", "triggers", 0, "authenticationRef", "name"))
}

func TestInferenceServerDefaultsFollowThePool(t *testing.T) {
	cases := []struct {
		name       string
		min, max   int
		gpus       int
		wantMin    int
		wantMax    int
		wantPrio   string
		notServing bool
	}{
		{"pool at zero still runs one replica", 0, 2, 1, 1, 2, "inference-critical", false},
		{"two warm nodes hold two replicas", 2, 4, 1, 2, 4, "inference-critical", false},
		{"a team not declared serving gets training-batch", 1, 2, 1, 1, 2, "training-batch", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := vllmServer()
			a.Serving = !tc.notServing
			a.Pool = with(a.Pool, func(s *gpupool.Spec) { s.MinCount, s.MaxCount = &tc.min, tc.max })
			a.Resources.GPUs = tc.gpus
			a.Default("chat")
			assert.Equal(t, tc.wantMin, a.MinReplicas)
			assert.Equal(t, tc.wantMax, a.MaxReplicas)
			assert.Equal(t, tc.wantPrio, a.PriorityClass)
			assert.Empty(t, a.Validate(field.NewPath("chat")))
		})
	}
}

func TestInferenceServerRefusesBeforeRegistering(t *testing.T) {
	m, err := run(t, func(ctx *pulumi.Context) error {
		a := vllmServer()
		a.Pool = spotPool()
		_, err := NewInferenceServer(ctx, "chat", a)
		return err
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `chat.pool: pool "spott4" is a spot pool`)
	assert.Empty(t, m.ByType(deploymentType))
	assert.Empty(t, m.ByType(InferenceServerType))
}

func inference(before func(*InferenceServerArgs)) func() field.ErrorList {
	return func() field.ErrorList {
		a := vllmServer()
		before(a)
		a.Default("serve")
		return a.Validate(field.NewPath("serve"))
	}
}

// TestInferenceServerRollingSurge: a rolling update starts the new replica
// first only where the pool holds one more than maxReplicas, and the GPUs
// the stacks check against the quota count that replica.
func TestInferenceServerRollingSurge(t *testing.T) {
	for _, tc := range []struct {
		name               string
		maxReplicas        int
		surge, unavailable int
		peakGPUs           int
		unsized            bool
	}{
		{"at the pool's ceiling (the default)", 0, 0, 1, 2, false},
		{"room for one more", 1, 1, 0, 2, false},
		{"pool size unknown", 1, 1, 0, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := vllmServer()
			a.MaxReplicas = tc.maxReplicas
			if tc.unsized {
				a.Pool.Sized = false
			}
			m := mustRun(t, func(ctx *pulumi.Context) error {
				_, err := NewInferenceServer(ctx, "chat", a)
				return err
			})
			spec := mocktest.Dig(t, m.One(t, deploymentType).Inputs, "spec")
			assert.EqualValues(t, tc.surge, mocktest.Dig(t, spec, "strategy", "rollingUpdate", "maxSurge"))
			assert.EqualValues(t, tc.unavailable, mocktest.Dig(t, spec, "strategy", "rollingUpdate", "maxUnavailable"))
			d := vllmServer()
			d.MaxReplicas = tc.maxReplicas
			if tc.unsized {
				d.Pool.Sized = false
			}
			d.Default("chat")
			assert.Equal(t, tc.peakGPUs, d.PeakGPUs())
		})
	}
}

func TestInferenceServerValidation(t *testing.T) {
	tests := []struct {
		name    string
		errs    func() field.ErrorList
		wantErr []fieldtest.Want
		detail  string
	}{
		{"valid", inference(func(a *InferenceServerArgs) {}), nil, ""},
		{"spot pool", inference(func(a *InferenceServerArgs) { a.Pool = spotPool() }), []fieldtest.Want{fieldtest.Forbidden("serve.pool")}, "never use spot for inference serving"},
		{"training pool", inference(func(a *InferenceServerArgs) { a.Pool = a100Pool() }), []fieldtest.Want{fieldtest.Invalid("serve.pool.workload")}, `pool "a100" is for training`},
		{"no pool", inference(func(a *InferenceServerArgs) { a.Pool = nil }), []fieldtest.Want{fieldtest.Required("serve.pool")}, ""},
		{"inference-critical for a team not serving", inference(func(a *InferenceServerArgs) {
			a.Serving, a.PriorityClass = false, PriorityClassInferenceCritical
		}), []fieldtest.Want{fieldtest.Forbidden("serve.priorityClass")}, "aksml:teams[].serving"},
		{"queued through Kueue", inference(func(a *InferenceServerArgs) { a.Scheduler, a.QueueName = SchedulerKueue, "gpu-queue" }), []fieldtest.Want{fieldtest.Invalid("serve.scheduler")}, ""},
		{"no GPU", inference(func(a *InferenceServerArgs) { a.Resources.GPUs = 0 }), []fieldtest.Want{fieldtest.Invalid("serve.resources.gpus")}, ""},
		{"more GPUs than a node", inference(func(a *InferenceServerArgs) { a.Resources.GPUs = 2 }), []fieldtest.Want{fieldtest.Invalid("serve.resources.gpus")}, "do not fit on one Standard_NC24ads_A100_v4 node"},
		{"more replicas than the pool holds", inference(func(a *InferenceServerArgs) { a.MaxReplicas = 3 }), []fieldtest.Want{fieldtest.Invalid("serve.maxReplicas")}, `pool "serve" holds 2 at most`},
		{"max below min", inference(func(a *InferenceServerArgs) { a.MinReplicas, a.MaxReplicas = 2, 1 }), []fieldtest.Want{fieldtest.Invalid("serve.maxReplicas")}, "below minReplicas 2"},
		{"negative min", inference(func(a *InferenceServerArgs) { a.MinReplicas = -1 }), []fieldtest.Want{fieldtest.Invalid("serve.minReplicas")}, ""},
		{"port out of range", inference(func(a *InferenceServerArgs) { a.Port = 70000 }), []fieldtest.Want{fieldtest.Invalid("serve.port")}, ""},
		{"metrics port is the serving port", inference(func(a *InferenceServerArgs) { a.MetricsPort = 8000 }), []fieldtest.Want{fieldtest.Invalid("serve.metricsPort")}, ""},
		{"health path not a path", inference(func(a *InferenceServerArgs) { a.HealthPath = "health" }), []fieldtest.Want{fieldtest.Invalid("serve.healthPath")}, ""},
		{"model load too short", inference(func(a *InferenceServerArgs) { a.ModelLoadSeconds = 10 }), []fieldtest.Want{fieldtest.Invalid("serve.modelLoadSeconds")}, ""},
		{"bad metric and target", inference(func(a *InferenceServerArgs) { a.Autoscaling = InferenceAutoscaling{Metric: "a b", Target: "lots"} }),
			[]fieldtest.Want{fieldtest.Invalid("serve.autoscaling.metric"), fieldtest.Invalid("serve.autoscaling.target")}, ""},
		{"bad metric and target, metrics adapter", inference(func(a *InferenceServerArgs) {
			a.Autoscaling = InferenceAutoscaling{Scaler: ScalerMetricsAdapter, Metric: "a b", Target: "lots"}
		}), []fieldtest.Want{fieldtest.Invalid("serve.autoscaling.metric"), fieldtest.Invalid("serve.autoscaling.target")}, ""},
		// The metric is written into the trigger's PromQL: a selector or a
		// second expression would read another namespace's series.
		{"metric that smuggles a selector into the query", inference(func(a *InferenceServerArgs) {
			a.Autoscaling.Metric = `vllm:num_requests_waiting{namespace="other"}) or sum(up`
		}), []fieldtest.Want{fieldtest.Invalid("serve.autoscaling.metric")}, "Prometheus metric name"},
		{"a quantity is not a KEDA threshold", inference(func(a *InferenceServerArgs) { a.Autoscaling.Target = "500m" }),
			[]fieldtest.Want{fieldtest.Invalid("serve.autoscaling.target")}, "positive decimal"},
		{"a quantity is an HPA target", inference(func(a *InferenceServerArgs) {
			a.Autoscaling = InferenceAutoscaling{Scaler: ScalerMetricsAdapter, Target: "500m"}
		}), nil, ""},
		{"a fractional KEDA threshold", inference(func(a *InferenceServerArgs) { a.Autoscaling.Target = "2.5" }), nil, ""},
		{"keda without a query endpoint", inference(func(a *InferenceServerArgs) { a.KEDA = nil }),
			[]fieldtest.Want{fieldtest.Required("serve.keda.queryEndpoint")}, "metricsAdapter"},
		{"bad trigger authentication name", inference(func(a *InferenceServerArgs) { a.KEDA.TriggerAuthentication = "Not_A_Name" }),
			[]fieldtest.Want{fieldtest.Invalid("serve.keda.triggerAuthentication")}, ""},
		{"unknown scaler", inference(func(a *InferenceServerArgs) { a.Autoscaling.Scaler = "hpa" }),
			[]fieldtest.Want{fieldtest.NotSupported("serve.autoscaling.scaler")}, ""},
		{"every problem at once", inference(func(a *InferenceServerArgs) {
			a.KEDA, a.Autoscaling.Metric, a.Autoscaling.Target, a.Port = nil, "a b", "0", 70000
		}), []fieldtest.Want{fieldtest.Invalid("serve.port"), fieldtest.Invalid("serve.autoscaling.metric"), fieldtest.Invalid("serve.autoscaling.target"), fieldtest.Required("serve.keda.queryEndpoint")}, ""},
		{"tag-only image in prod", inference(func(a *InferenceServerArgs) { a.RequireDigest = true }), []fieldtest.Want{fieldtest.Invalid("serve.image")}, ""},
		{"name starting with a digit, which its Service cannot have", inference(func(a *InferenceServerArgs) { a.Name = "7b-chat" }), []fieldtest.Want{fieldtest.Invalid("serve.name")}, "e.g. m7b-chat"},
		{"name with a digit after the first letter", inference(func(a *InferenceServerArgs) { a.Name = "m7b-chat" }), nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.errs().ToAggregate()
			if fieldtest.Equal(t, err, tc.wantErr...) && tc.detail != "" {
				assert.Contains(t, err.Error(), tc.detail)
			}
		})
	}
}

// TestScalingQueryPattern: the admission policy's pattern (tenancy) accepts
// every query the keda scaler writes for a namespace and nothing that reads
// another namespace, more series or a second expression; the endpoint
// pattern accepts workspace endpoints only.
func TestScalingQueryPattern(t *testing.T) {
	re := regexp.MustCompile(ScalingQueryPattern("team-a"))
	for _, q := range []string{
		ScalingQuery(DefaultScalingMetric, "team-a", "chat"),
		ScalingQuery("vllm:num_requests_running", "team-a", "m7b-chat"),
		ScalingQuery("DCGM_FI_DEV_GPU_UTIL", "team-a", "a"),
	} {
		assert.True(t, re.MatchString(q), q)
	}
	for _, q := range []string{
		ScalingQuery(DefaultScalingMetric, "team-b", "chat"),
		ScalingQuery(DefaultScalingMetric, "team-a2", "chat"),
		`sum(vllm:num_requests_waiting{namespace="team-a",workload="chat"}) + sum(up)`,
		`sum(vllm:num_requests_waiting{namespace="team-a",workload=~".*"})`,
		`sum(vllm:num_requests_waiting{namespace="team-a",workload="chat",namespace="team-b"})`,
		`sum(vllm:num_requests_waiting{namespace=~"team-a|team-b",workload="chat"})`,
		`max(vllm:num_requests_waiting{namespace="team-a",workload="chat"})`,
	} {
		assert.False(t, re.MatchString(q), q)
	}
	ep := regexp.MustCompile(QueryEndpointPattern)
	assert.True(t, ep.MatchString("https://test-azure-monitor-workspace-name-1234.eastus.prometheus.monitor.azure.com"), "the documented form")
	for _, bad := range []string{
		"http://amw.eastus.prometheus.monitor.azure.com",
		"https://amw.eastus.prometheus.monitor.azure.com.attacker.example",
		"https://attacker.example/amw.eastus.prometheus.monitor.azure.com",
		"https://attacker.example?x=.prometheus.monitor.azure.com",
		"https://user@attacker.example#.prometheus.monitor.azure.com",
	} {
		assert.False(t, ep.MatchString(bad), bad)
	}
}
