package workloads

import (
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	pyTorchJobType    = "kubernetes:kubeflow.org/v1:PyTorchJob"
	tfJobType         = "kubernetes:kubeflow.org/v1:TFJob"
	networkPolicyType = "kubernetes:networking.k8s.io/v1:NetworkPolicy"
)

func pyTorchArgs() *PyTorchJobArgs {
	return &PyTorchJobArgs{Common: common(), Distributed: Distributed{Pool: a100Pool(), TotalGPUs: 2}}
}

func TestPyTorchJobTwoNodes(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		_, err := NewPyTorchJob(ctx, "pytorch-nccl-example", pyTorchArgs())
		return err
	})
	assert.Len(t, m.ofType(PyTorchJobType), 1)
	job := m.one(t, pyTorchJobType)
	assert.Equal(t, "pytorch-nccl-example-pytorchjob", job.name)
	in := job.inputs
	assert.Equal(t, "kubeflow.org/v1", in["apiVersion"])
	assert.Equal(t, "PyTorchJob", in["kind"])
	assert.Equal(t, []string{"spec.runPolicy.suspend"}, job.ignoreChanges)
	meta := dig(t, in, "metadata")
	assert.Equal(t, "pytorch-nccl-example", dig(t, meta, "name"))
	assert.Equal(t, "team-a", dig(t, meta, "namespace"))
	assert.Equal(t, "gpu-queue", dig(t, meta, "labels", QueueNameLabel))
	assert.Equal(t, "training-batch", dig(t, meta, "labels", WorkloadPriorityClassLabel))
	assert.Equal(t, map[string]any{"pulumi.com/skipAwait": "true"}, dig(t, meta, "annotations"))

	spec := dig(t, in, "spec")
	assert.Equal(t, map[string]any{
		"cleanPodPolicy":          "None",
		"suspend":                 true,
		"backoffLimit":            6.0,
		"activeDeadlineSeconds":   86400.0,
		"ttlSecondsAfterFinished": 86400.0,
	}, dig(t, spec, "runPolicy"))

	specs := dig(t, spec, "pytorchReplicaSpecs").(map[string]any)
	require.Len(t, specs, 2)
	for role, replicas := range map[string]float64{"Master": 1, "Worker": 1} {
		rs := specs[role]
		assert.Equal(t, replicas, dig(t, rs, "replicas"), role)
		assert.Equal(t, "OnFailure", dig(t, rs, "restartPolicy"), role)
		tmpl := dig(t, rs, "template")
		assert.Equal(t, "pytorch-nccl-example", dig(t, tmpl, "metadata", "labels", "training-job"), role)
		pod := dig(t, tmpl, "spec")
		assert.False(t, has(pod, "restartPolicy"), "the operator sets the pod restart policy")
		assert.EqualValues(t, 120, dig(t, pod, "terminationGracePeriodSeconds"))
		assert.Equal(t, "training-batch", dig(t, pod, "priorityClassName"))
		assert.Equal(t, map[string]any{"accelerator": "nvidia", "workload": "training", "kubernetes.azure.com/agentpool": "a100"}, dig(t, pod, "nodeSelector"))
		assert.Equal(t, []string{"sku=gpu:NoSchedule (Equal)"}, tolerationStrings(t, pod))
		assert.Equal(t, true, dig(t, pod, "securityContext", "runAsNonRoot"))
		ctr := dig(t, pod, "containers", 0)
		assert.Equal(t, "pytorch", dig(t, ctr, "name"))
		want := map[string]any{"cpu": "3", "memory": "16Gi", "nvidia.com/gpu": "1"}
		assert.Equal(t, want, dig(t, ctr, "resources", "requests"))
		assert.Equal(t, want, dig(t, ctr, "resources", "limits"))
		assert.Equal(t, map[string]string{
			"CHECKPOINT_DIR":                  "/checkpoints",
			"NCCL_DEBUG":                      "INFO",
			"NCCL_SOCKET_IFNAME":              "eth0",
			"NCCL_IB_DISABLE":                 "1",
			"TORCH_NCCL_ASYNC_ERROR_HANDLING": "1",
		}, envOf(t, ctr))
		assert.Equal(t, map[string]any{"medium": "Memory", "sizeLimit": "8Gi"}, volumeByName(t, pod, "shared-memory")["emptyDir"])
	}

	np := m.one(t, networkPolicyType)
	assert.Equal(t, "pytorch-nccl-example-netpol", np.name)
	assert.Equal(t, "allow-pytorch-nccl-example-nccl", dig(t, np.inputs, "metadata", "name"))
	assert.Equal(t, "team-a", dig(t, np.inputs, "metadata", "namespace"))
	job2 := map[string]any{"matchLabels": map[string]any{"training-job": "pytorch-nccl-example"}}
	assert.Equal(t, map[string]any{
		"podSelector": job2,
		"policyTypes": []any{"Ingress", "Egress"},
		"ingress":     []any{map[string]any{"from": []any{map[string]any{"podSelector": job2}}}},
		"egress": []any{
			map[string]any{"to": []any{map[string]any{"podSelector": job2}}},
			map[string]any{
				"to": []any{map[string]any{
					"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": "kube-system"}},
					"podSelector":       map[string]any{"matchLabels": map[string]any{"k8s-app": "kube-dns"}},
				}},
				"ports": []any{
					map[string]any{"protocol": "UDP", "port": 53.0},
					map[string]any{"protocol": "TCP", "port": 53.0},
				},
			},
		},
	}, dig(t, np.inputs, "spec"))
	assert.Empty(t, m.ofType("kubernetes:policy/v1:PodDisruptionBudget"))
}

func TestPyTorchJobFourReplicasRDMAAndMetrics(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := &PyTorchJobArgs{Common: common(), Distributed: Distributed{Pool: nd96Pool(), TotalGPUs: 32, NCCL: NCCL{IBDisable: "0", Debug: "WARN"}, AllowEgressCIDRs: []string{"10.0.8.0/24"}}, Replicas: 4}
		a.Resources = Resources{CPU: "90", Memory: "800Gi", GPUs: 8}
		a.MetricsPort = 8080
		_, err := NewPyTorchJob(ctx, "llm", a)
		return err
	})
	specs := dig(t, m.one(t, pyTorchJobType).inputs, "spec", "pytorchReplicaSpecs")
	assert.EqualValues(t, 1, dig(t, specs, "Master", "replicas"))
	assert.EqualValues(t, 3, dig(t, specs, "Worker", "replicas"))
	ctr := dig(t, specs, "Worker", "template", "spec", "containers", 0)
	env := envOf(t, ctr)
	assert.Equal(t, "0", env["NCCL_IB_DISABLE"])
	assert.Equal(t, "WARN", env["NCCL_DEBUG"])
	assert.Equal(t, "8", dig(t, ctr, "resources", "limits", "nvidia.com/gpu"))
	assert.Equal(t, "true", dig(t, specs, "Worker", "template", "metadata", "labels", MetricsLabel))

	np := dig(t, m.one(t, networkPolicyType).inputs, "spec")
	assert.Equal(t, map[string]any{
		"from":  []any{map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": "kube-system"}}}},
		"ports": []any{map[string]any{"protocol": "TCP", "port": 8080.0}},
	}, dig(t, np, "ingress", 1), "managed Prometheus in kube-system may scrape the metrics port")
	assert.Equal(t, map[string]any{"to": []any{map[string]any{"ipBlock": map[string]any{"cidr": "10.0.8.0/24"}}}}, dig(t, np, "egress", 2))
}

func TestPyTorchJobVolcanoGang(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := pyTorchArgs()
		a.Scheduler, a.QueueName = SchedulerVolcano, "team-a"
		_, err := NewPyTorchJob(ctx, "pt", a)
		return err
	})
	in := m.one(t, pyTorchJobType).inputs
	assert.NotContains(t, dig(t, in, "metadata", "labels"), QueueNameLabel)
	rp := dig(t, in, "spec", "runPolicy")
	assert.False(t, has(rp, "suspend"))
	assert.Equal(t, map[string]any{"queue": "team-a", "minAvailable": 2.0, "priorityClass": "training-batch"}, dig(t, rp, "schedulingPolicy"))
	assert.Equal(t, "volcano", dig(t, in, "spec", "pytorchReplicaSpecs", "Master", "template", "spec", "schedulerName"))
}

func TestTFJobWorkers(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := &TFJobArgs{Common: common(), Distributed: Distributed{Pool: a100Pool(), TotalGPUs: 2}}
		a.Image = "tensorflow/tensorflow:2.16.1-gpu"
		_, err := NewTFJob(ctx, "tensorflow-multiworker-example", a)
		return err
	})
	assert.Len(t, m.ofType(TFJobType), 1)
	in := m.one(t, tfJobType).inputs
	assert.Equal(t, "TFJob", in["kind"])
	assert.Equal(t, map[string]any{"pulumi.com/skipAwait": "true"}, dig(t, in, "metadata", "annotations"))
	assert.Equal(t, "None", dig(t, in, "spec", "runPolicy", "cleanPodPolicy"))
	assert.Equal(t, true, dig(t, in, "spec", "runPolicy", "suspend"))
	specs := dig(t, in, "spec", "tfReplicaSpecs").(map[string]any)
	require.Len(t, specs, 1)
	w := specs["Worker"]
	assert.EqualValues(t, 2, dig(t, w, "replicas"))
	assert.Equal(t, "OnFailure", dig(t, w, "restartPolicy"))
	assert.Equal(t, "tensorflow-multiworker-example", dig(t, w, "template", "metadata", "labels", "training-job"))
	ctr := dig(t, w, "template", "spec", "containers", 0)
	assert.Equal(t, "tensorflow", dig(t, ctr, "name"))
	env := envOf(t, ctr)
	assert.Equal(t, "eth0", env["NCCL_SOCKET_IFNAME"])
	assert.Equal(t, "1", env["NCCL_IB_DISABLE"])
	assert.Equal(t, "INFO", env["NCCL_DEBUG"])
	assert.NotContains(t, env, "TORCH_NCCL_ASYNC_ERROR_HANDLING")
	assert.Equal(t, "tensorflow-multiworker-example", dig(t, m.one(t, networkPolicyType).inputs, "spec", "podSelector", "matchLabels", "training-job"))
}

func TestTFJobParameterServers(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := &TFJobArgs{Common: common(), Distributed: Distributed{Pool: a100Pool(), TotalGPUs: 3}, Chief: 1, PS: 2, PSResources: Resources{CPU: "4", Memory: "16Gi"}}
		_, err := NewTFJob(ctx, "ps", a)
		return err
	})
	in := m.one(t, tfJobType).inputs
	specs := dig(t, in, "spec", "tfReplicaSpecs")
	assert.EqualValues(t, 1, dig(t, specs, "Chief", "replicas"))
	assert.EqualValues(t, 2, dig(t, specs, "Worker", "replicas"))
	assert.EqualValues(t, 2, dig(t, specs, "PS", "replicas"))
	assert.Equal(t, "1", dig(t, specs, "Chief", "template", "spec", "containers", 0, "resources", "limits", "nvidia.com/gpu"))
	ps := dig(t, specs, "PS", "template", "spec")
	assert.False(t, has(ps, "tolerations"), "parameter servers stay off GPU nodes")
	assert.False(t, has(ps, "nodeSelector"))
	assert.Equal(t, map[string]any{"cpu": "4", "memory": "16Gi"}, dig(t, ps, "containers", 0, "resources", "limits"))
	assert.Equal(t, "ps", dig(t, specs, "PS", "template", "metadata", "labels", "training-job"), "the NetworkPolicy covers parameter servers too")
}
