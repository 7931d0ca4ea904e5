package workloads

import (
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/internal/mocktest"
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
	assert.Len(t, m.ByType(PyTorchJobType), 1)
	job := m.One(t, pyTorchJobType)
	assert.Equal(t, "pytorch-nccl-example-pytorchjob", job.Name)
	in := job.Inputs
	assert.Equal(t, "kubeflow.org/v1", in["apiVersion"])
	assert.Equal(t, "PyTorchJob", in["kind"])
	assert.Equal(t, []string{"spec.runPolicy.suspend"}, job.IgnoreChanges)
	meta := mocktest.Dig(t, in, "metadata")
	assert.Equal(t, "pytorch-nccl-example", mocktest.Dig(t, meta, "name"))
	assert.Equal(t, "team-a", mocktest.Dig(t, meta, "namespace"))
	assert.Equal(t, "gpu-queue", mocktest.Dig(t, meta, "labels", QueueNameLabel))
	assert.Equal(t, "training-batch", mocktest.Dig(t, meta, "labels", WorkloadPriorityClassLabel))
	assert.Equal(t, map[string]any{"pulumi.com/skipAwait": "true"}, mocktest.Dig(t, meta, "annotations"))

	spec := mocktest.Dig(t, in, "spec")
	assert.Equal(t, map[string]any{
		"cleanPodPolicy":          "None",
		"suspend":                 true,
		"backoffLimit":            6.0,
		"activeDeadlineSeconds":   86400.0,
		"ttlSecondsAfterFinished": 86400.0,
	}, mocktest.Dig(t, spec, "runPolicy"))

	specs := mocktest.Dig(t, spec, "pytorchReplicaSpecs").(map[string]any)
	require.Len(t, specs, 2)
	for role, replicas := range map[string]float64{"Master": 1, "Worker": 1} {
		rs := specs[role]
		assert.Equal(t, replicas, mocktest.Dig(t, rs, "replicas"), role)
		assert.Equal(t, "OnFailure", mocktest.Dig(t, rs, "restartPolicy"), role)
		tmpl := mocktest.Dig(t, rs, "template")
		assert.Equal(t, "pytorch-nccl-example", mocktest.Dig(t, tmpl, "metadata", "labels", "training-job"), role)
		pod := mocktest.Dig(t, tmpl, "spec")
		assert.False(t, has(pod, "restartPolicy"), "the operator sets the pod restart policy")
		assert.EqualValues(t, 120, mocktest.Dig(t, pod, "terminationGracePeriodSeconds"))
		assert.Equal(t, "training-batch", mocktest.Dig(t, pod, "priorityClassName"))
		assert.Equal(t, map[string]any{"accelerator": "nvidia", "workload": "training", "kubernetes.azure.com/agentpool": "a100"}, mocktest.Dig(t, pod, "nodeSelector"))
		assert.Equal(t, []string{"sku=gpu:NoSchedule (Equal)"}, tolerationStrings(t, pod))
		assert.Equal(t, true, mocktest.Dig(t, pod, "securityContext", "runAsNonRoot"))
		ctr := mocktest.Dig(t, pod, "containers", 0)
		assert.Equal(t, "pytorch", mocktest.Dig(t, ctr, "name"))
		want := map[string]any{"cpu": "3", "memory": "16Gi", "nvidia.com/gpu": "1"}
		assert.Equal(t, want, mocktest.Dig(t, ctr, "resources", "requests"))
		assert.Equal(t, want, mocktest.Dig(t, ctr, "resources", "limits"))
		assert.Equal(t, map[string]string{
			"CHECKPOINT_DIR":                  "/checkpoints",
			"NCCL_DEBUG":                      "INFO",
			"NCCL_SOCKET_IFNAME":              "eth0",
			"NCCL_IB_DISABLE":                 "1",
			"TORCH_NCCL_ASYNC_ERROR_HANDLING": "1",
		}, envOf(t, ctr))
		assert.Equal(t, map[string]any{"medium": "Memory", "sizeLimit": "8Gi"}, volumeByName(t, pod, "shared-memory")["emptyDir"])
	}

	np := m.One(t, networkPolicyType)
	assert.Equal(t, "pytorch-nccl-example-netpol", np.Name)
	assert.Equal(t, "allow-pytorch-nccl-example-nccl", mocktest.Dig(t, np.Inputs, "metadata", "name"))
	assert.Equal(t, "team-a", mocktest.Dig(t, np.Inputs, "metadata", "namespace"))
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
	}, mocktest.Dig(t, np.Inputs, "spec"))
	assert.Empty(t, m.ByType("kubernetes:policy/v1:PodDisruptionBudget"))
}

func TestPyTorchJobFourReplicasOnRDMASKUAndMetrics(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := &PyTorchJobArgs{Common: common(), Distributed: Distributed{Pool: nd96Pool(), TotalGPUs: 32, NCCL: NCCL{IBDisable: "1", Debug: "WARN"}, AllowEgressCIDRs: []string{"10.0.8.0/24"}}, Replicas: 4}
		a.Resources = Resources{CPU: "90", Memory: "800Gi", GPUs: 8}
		a.MetricsPort = 8080
		_, err := NewPyTorchJob(ctx, "llm", a)
		return err
	})
	specs := mocktest.Dig(t, m.One(t, pyTorchJobType).Inputs, "spec", "pytorchReplicaSpecs")
	assert.EqualValues(t, 1, mocktest.Dig(t, specs, "Master", "replicas"))
	assert.EqualValues(t, 3, mocktest.Dig(t, specs, "Worker", "replicas"))
	ctr := mocktest.Dig(t, specs, "Worker", "template", "spec", "containers", 0)
	env := envOf(t, ctr)
	assert.Equal(t, "1", env["NCCL_IB_DISABLE"], "no RDMA device in the pod: NCCL over TCP")
	assert.Equal(t, "WARN", env["NCCL_DEBUG"])
	assert.Equal(t, "8", mocktest.Dig(t, ctr, "resources", "limits", "nvidia.com/gpu"))
	assert.Equal(t, "true", mocktest.Dig(t, specs, "Worker", "template", "metadata", "labels", MetricsLabel))

	np := mocktest.Dig(t, m.One(t, networkPolicyType).Inputs, "spec")
	assert.Equal(t, map[string]any{
		"from":  []any{map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": "kube-system"}}}},
		"ports": []any{map[string]any{"protocol": "TCP", "port": 8080.0}},
	}, mocktest.Dig(t, np, "ingress", 1), "managed Prometheus in kube-system may scrape the metrics port")
	assert.Equal(t, map[string]any{"to": []any{map[string]any{"ipBlock": map[string]any{"cidr": "10.0.8.0/24"}}}}, mocktest.Dig(t, np, "egress", 2))
}

func TestPyTorchJobVolcanoGang(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := pyTorchArgs()
		a.Scheduler, a.QueueName = SchedulerVolcano, "team-a"
		_, err := NewPyTorchJob(ctx, "pt", a)
		return err
	})
	in := m.One(t, pyTorchJobType).Inputs
	assert.NotContains(t, mocktest.Dig(t, in, "metadata", "labels"), QueueNameLabel)
	rp := mocktest.Dig(t, in, "spec", "runPolicy")
	assert.False(t, has(rp, "suspend"))
	assert.Equal(t, map[string]any{"queue": "team-a", "minAvailable": 2.0, "priorityClass": "training-batch"}, mocktest.Dig(t, rp, "schedulingPolicy"))
	assert.Equal(t, "volcano", mocktest.Dig(t, in, "spec", "pytorchReplicaSpecs", "Master", "template", "spec", "schedulerName"))
}

func TestTFJobWorkers(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := &TFJobArgs{Common: common(), Distributed: Distributed{Pool: a100Pool(), TotalGPUs: 2}}
		a.Image = "tensorflow/tensorflow:2.16.1-gpu"
		_, err := NewTFJob(ctx, "tensorflow-multiworker-example", a)
		return err
	})
	assert.Len(t, m.ByType(TFJobType), 1)
	in := m.One(t, tfJobType).Inputs
	assert.Equal(t, "TFJob", in["kind"])
	assert.Equal(t, map[string]any{"pulumi.com/skipAwait": "true"}, mocktest.Dig(t, in, "metadata", "annotations"))
	assert.Equal(t, "None", mocktest.Dig(t, in, "spec", "runPolicy", "cleanPodPolicy"))
	assert.Equal(t, true, mocktest.Dig(t, in, "spec", "runPolicy", "suspend"))
	specs := mocktest.Dig(t, in, "spec", "tfReplicaSpecs").(map[string]any)
	require.Len(t, specs, 1)
	w := specs["Worker"]
	assert.EqualValues(t, 2, mocktest.Dig(t, w, "replicas"))
	assert.Equal(t, "OnFailure", mocktest.Dig(t, w, "restartPolicy"))
	assert.Equal(t, "tensorflow-multiworker-example", mocktest.Dig(t, w, "template", "metadata", "labels", "training-job"))
	ctr := mocktest.Dig(t, w, "template", "spec", "containers", 0)
	assert.Equal(t, "tensorflow", mocktest.Dig(t, ctr, "name"))
	env := envOf(t, ctr)
	assert.Equal(t, "eth0", env["NCCL_SOCKET_IFNAME"])
	assert.Equal(t, "1", env["NCCL_IB_DISABLE"])
	assert.Equal(t, "INFO", env["NCCL_DEBUG"])
	assert.NotContains(t, env, "TORCH_NCCL_ASYNC_ERROR_HANDLING")
	assert.Equal(t, "tensorflow-multiworker-example", mocktest.Dig(t, m.One(t, networkPolicyType).Inputs, "spec", "podSelector", "matchLabels", "training-job"))
}

func TestTFJobParameterServers(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := &TFJobArgs{Common: common(), Distributed: Distributed{Pool: a100Pool(), TotalGPUs: 3}, Chief: 1, PS: 2, PSResources: Resources{CPU: "4", Memory: "16Gi"}}
		_, err := NewTFJob(ctx, "ps", a)
		return err
	})
	in := m.One(t, tfJobType).Inputs
	specs := mocktest.Dig(t, in, "spec", "tfReplicaSpecs")
	assert.EqualValues(t, 1, mocktest.Dig(t, specs, "Chief", "replicas"))
	assert.EqualValues(t, 2, mocktest.Dig(t, specs, "Worker", "replicas"))
	assert.EqualValues(t, 2, mocktest.Dig(t, specs, "PS", "replicas"))
	assert.Equal(t, "1", mocktest.Dig(t, specs, "Chief", "template", "spec", "containers", 0, "resources", "limits", "nvidia.com/gpu"))
	ps := mocktest.Dig(t, specs, "PS", "template", "spec")
	assert.False(t, has(ps, "tolerations"), "parameter servers stay off GPU nodes")
	assert.False(t, has(ps, "nodeSelector"))
	assert.Equal(t, map[string]any{"cpu": "4", "memory": "16Gi"}, mocktest.Dig(t, ps, "containers", 0, "resources", "limits"))
	assert.Equal(t, "ps", mocktest.Dig(t, specs, "PS", "template", "metadata", "labels", "training-job"), "the NetworkPolicy covers parameter servers too")
}
