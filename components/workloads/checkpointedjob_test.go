package workloads

import (
	"testing"

	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/field/fieldtest"
	"github.com/aksml/aksml/components/gpupool"

	"github.com/aksml/aksml/components/internal/mocktest"
)

const jobType = "kubernetes:batch/v1:Job"

func TestCheckpointedJobOnSpotPool(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := &CheckpointedJobArgs{Common: common(), Pool: spotPool(), NonRetryableExitCodes: []int{3, 2}}
		a.MetricsPort = 9090
		a.Labels = map[string]string{"cost-center": "ml"}
		_, err := NewCheckpointedJob(ctx, "finetune", a)
		return err
	})
	comp := m.One(t, CheckpointedJobType)
	assert.Equal(t, "finetune", comp.Name)

	job := m.One(t, jobType)
	assert.Equal(t, "finetune-job", job.Name)
	in := job.Inputs
	assert.Equal(t, "batch/v1", in["apiVersion"])
	assert.Equal(t, "Job", in["kind"])

	meta := mocktest.Dig(t, in, "metadata")
	assert.Equal(t, "finetune", mocktest.Dig(t, meta, "name"))
	assert.Equal(t, "team-a", mocktest.Dig(t, meta, "namespace"))
	assert.Equal(t, map[string]any{
		"app.kubernetes.io/name":        "finetune",
		"app.kubernetes.io/part-of":     "aksml",
		"app.kubernetes.io/component":   "checkpointed-job",
		"aksml.io/team":                 "team-a",
		"cost-center":                   "ml",
		"kueue.x-k8s.io/queue-name":     "gpu-queue",
		"kueue.x-k8s.io/priority-class": "training-batch",
	}, mocktest.Dig(t, meta, "labels"))
	assert.Equal(t, map[string]any{"pulumi.com/skipAwait": "true"}, mocktest.Dig(t, meta, "annotations"))

	spec := mocktest.Dig(t, in, "spec")
	assert.EqualValues(t, 6, mocktest.Dig(t, spec, "backoffLimit"))
	assert.EqualValues(t, 86400, mocktest.Dig(t, spec, "activeDeadlineSeconds"))
	assert.EqualValues(t, 86400, mocktest.Dig(t, spec, "ttlSecondsAfterFinished"))
	assert.Equal(t, true, mocktest.Dig(t, spec, "suspend"))
	assert.Equal(t, []string{"spec.suspend"}, job.IgnoreChanges, "Kueue owns suspend once the Job exists")
	assert.False(t, has(spec, "completionMode"))

	rules := mocktest.Dig(t, spec, "podFailurePolicy", "rules").([]any)
	require.Len(t, rules, 2)
	assert.Equal(t, map[string]any{"action": "Ignore", "onPodConditions": []any{map[string]any{"type": "DisruptionTarget"}}}, rules[0])
	assert.Equal(t, map[string]any{"action": "FailJob", "onExitCodes": map[string]any{
		"containerName": "trainer", "operator": "In", "values": []any{2.0, 3.0},
	}}, rules[1])

	tmpl := mocktest.Dig(t, spec, "template")
	assert.Equal(t, map[string]any{
		"app.kubernetes.io/name":      "finetune",
		"app.kubernetes.io/part-of":   "aksml",
		"app.kubernetes.io/component": "checkpointed-job",
		"aksml.io/team":               "team-a",
		"aksml.io/metrics":            "true",
		"cost-center":                 "ml",
	}, mocktest.Dig(t, tmpl, "metadata", "labels"))

	pod := mocktest.Dig(t, tmpl, "spec")
	assert.Equal(t, "Never", mocktest.Dig(t, pod, "restartPolicy"))
	assert.EqualValues(t, 120, mocktest.Dig(t, pod, "terminationGracePeriodSeconds"))
	assert.Equal(t, "training-batch", mocktest.Dig(t, pod, "priorityClassName"))
	assert.Equal(t, false, mocktest.Dig(t, pod, "automountServiceAccountToken"))
	assert.False(t, has(pod, "schedulerName"))
	assert.Equal(t, map[string]any{
		"accelerator":                    "nvidia",
		"workload":                       "gpu-spot",
		"kubernetes.azure.com/agentpool": "spott4",
	}, mocktest.Dig(t, pod, "nodeSelector"))
	assert.Equal(t, []string{
		"sku=gpu:NoSchedule (Equal)",
		"kubernetes.azure.com/scalesetpriority=spot:NoSchedule (Equal)",
	}, tolerationStrings(t, pod))
	assert.Equal(t, map[string]any{
		"runAsNonRoot":        true,
		"runAsUser":           1000.0,
		"runAsGroup":          1000.0,
		"fsGroup":             1000.0,
		"fsGroupChangePolicy": "OnRootMismatch",
		"seccompProfile":      map[string]any{"type": "RuntimeDefault"},
	}, mocktest.Dig(t, pod, "securityContext"))

	containers := mocktest.Dig(t, pod, "containers").([]any)
	require.Len(t, containers, 1)
	ctr := containers[0]
	assert.Equal(t, "trainer", mocktest.Dig(t, ctr, "name"))
	assert.Equal(t, "pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime", mocktest.Dig(t, ctr, "image"))
	want := map[string]any{"cpu": "3", "memory": "16Gi", "nvidia.com/gpu": "1"}
	assert.Equal(t, want, mocktest.Dig(t, ctr, "resources", "requests"))
	assert.Equal(t, want, mocktest.Dig(t, ctr, "resources", "limits"))
	assert.Equal(t, map[string]any{
		"runAsNonRoot":             true,
		"allowPrivilegeEscalation": false,
		"capabilities":             map[string]any{"drop": []any{"ALL"}},
		"seccompProfile":           map[string]any{"type": "RuntimeDefault"},
	}, mocktest.Dig(t, ctr, "securityContext"))
	assert.Equal(t, map[string]string{"CHECKPOINT_DIR": "/checkpoints"}, envOf(t, ctr))
	assert.Equal(t, []any{map[string]any{"name": "metrics", "containerPort": 9090.0, "protocol": "TCP"}}, mocktest.Dig(t, ctr, "ports"))

	assert.Equal(t, map[string]string{"shared-memory": "/dev/shm", "checkpoints": "/checkpoints"}, mountPaths(t, ctr))
	assert.Equal(t, map[string]any{"medium": "Memory", "sizeLimit": "8Gi"}, volumeByName(t, pod, "shared-memory")["emptyDir"])
	assert.Equal(t, map[string]any{"claimName": "model-checkpoints"}, volumeByName(t, pod, "checkpoints")["persistentVolumeClaim"])

	assert.Empty(t, m.ByType("kubernetes:policy/v1:PodDisruptionBudget"), "restartable batch Jobs get no PDB (AKS MLOps best practices)")
}

func TestCheckpointedJobRegularPoolTolerationsAndDataClaim(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := &CheckpointedJobArgs{Common: common(), Pool: a100Pool()}
		a.DataPVC = "shared-datasets"
		a.Env = map[string]string{"Z_LAST": "z", "A_FIRST": "a"}
		a.ServiceAccountName = "trainer"
		a.WorkloadIdentity = true
		_, err := NewCheckpointedJob(ctx, "train", a)
		return err
	})
	assert.Equal(t, "true", mocktest.Dig(t, m.One(t, jobType).Inputs, "spec", "template", "metadata", "labels", WorkloadIdentityLabel))
	pod := mocktest.Dig(t, m.One(t, jobType).Inputs, "spec", "template", "spec")
	assert.Equal(t, []string{"sku=gpu:NoSchedule (Equal)"}, tolerationStrings(t, pod), "no spot toleration on a regular pool")
	assert.Equal(t, "training", mocktest.Dig(t, pod, "nodeSelector", "workload"))
	assert.Equal(t, "trainer", mocktest.Dig(t, pod, "serviceAccountName"))
	assert.Equal(t, true, mocktest.Dig(t, pod, "automountServiceAccountToken"))
	ctr := mocktest.Dig(t, pod, "containers", 0)
	assert.Equal(t, []string{"CHECKPOINT_DIR", "DATA_DIR", "A_FIRST", "Z_LAST"}, envNames(t, ctr))
	assert.Equal(t, "/data", envOf(t, ctr)["DATA_DIR"])
	assert.Equal(t, map[string]any{"claimName": "shared-datasets", "readOnly": true}, volumeByName(t, pod, "data")["persistentVolumeClaim"])
}

func TestCheckpointedJobVolcano(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := &CheckpointedJobArgs{Common: common(), Pool: a100Pool()}
		a.Scheduler = SchedulerVolcano
		a.QueueName = "team-a"
		_, err := NewCheckpointedJob(ctx, "train", a)
		return err
	})
	in := m.One(t, jobType).Inputs
	labels := mocktest.Dig(t, in, "metadata", "labels").(map[string]any)
	assert.NotContains(t, labels, QueueNameLabel)
	assert.NotContains(t, labels, WorkloadPriorityClassLabel)
	assert.Equal(t, map[string]any{
		"pulumi.com/skipAwait":                   "true",
		"scheduling.volcano.sh/queue-name":       "team-a",
		"scheduling.volcano.sh/group-min-member": "1",
	}, mocktest.Dig(t, in, "metadata", "annotations"))
	assert.False(t, has(in, "spec", "suspend"), "only Kueue creates Jobs suspended")
	assert.Empty(t, m.One(t, jobType).IgnoreChanges)
	tmpl := mocktest.Dig(t, in, "spec", "template")
	assert.Equal(t, "volcano", mocktest.Dig(t, tmpl, "spec", "schedulerName"))
	assert.Equal(t, map[string]any{"scheduling.volcano.sh/queue-name": "team-a"}, mocktest.Dig(t, tmpl, "metadata", "annotations"))
}

func TestCheckpointedJobAwaitOptIn(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := &CheckpointedJobArgs{Common: common(), Pool: a100Pool()}
		a.Await, a.AwaitTimeoutSeconds = true, 600
		_, err := NewCheckpointedJob(ctx, "train", a)
		return err
	})
	assert.Equal(t, map[string]any{"pulumi.com/timeoutSeconds": "600"}, mocktest.Dig(t, m.One(t, jobType).Inputs, "metadata", "annotations"))
}

func TestCheckpointedJobCPUBatch(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := &CheckpointedJobArgs{Common: common()}
		a.Resources = Resources{CPU: "1", Memory: "2Gi"}
		a.ShmSize = ShmDisabled
		a.Image = "ubuntu:24.04"
		_, err := NewCheckpointedJob(ctx, "batch", a)
		return err
	})
	in := m.One(t, jobType).Inputs
	assert.NotContains(t, mocktest.Dig(t, in, "metadata", "labels"), QueueNameLabel, "CPU jobs default to no scheduler")
	pod := mocktest.Dig(t, in, "spec", "template", "spec")
	assert.False(t, has(pod, "tolerations"), "CPU batch jobs never tolerate the GPU taint")
	assert.False(t, has(pod, "nodeSelector"))
	assert.Equal(t, map[string]any{"cpu": "1", "memory": "2Gi"}, mocktest.Dig(t, pod, "containers", 0, "resources", "limits"))
	assert.Equal(t, map[string]string{"checkpoints": "/checkpoints"}, mountPaths(t, mocktest.Dig(t, pod, "containers", 0)))
}

func TestCheckpointedJobInheritsProvider(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		p, err := kubernetes.NewProvider(ctx, "cluster", &kubernetes.ProviderArgs{})
		if err != nil {
			return err
		}
		a := &CheckpointedJobArgs{Common: common(), Pool: a100Pool()}
		a.Provider = p
		_, err = NewCheckpointedJob(ctx, "train", a)
		return err
	})
	assert.Contains(t, m.One(t, jobType).Provider, "pulumi:providers:kubernetes::cluster")
}

func TestCheckpointedJobPassesDependenciesToTheJob(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		dep, err := kubernetes.NewProvider(ctx, "other", &kubernetes.ProviderArgs{})
		if err != nil {
			return err
		}
		_, err = NewCheckpointedJob(ctx, "train", &CheckpointedJobArgs{Common: common(), Pool: a100Pool()}, pulumi.DependsOn([]pulumi.Resource{dep}))
		return err
	})
	deps := m.One(t, jobType).Deps
	require.Len(t, deps, 1)
	assert.Contains(t, deps[0], "pulumi:providers:kubernetes::other")
}

func TestCheckpointedJobOutputs(t *testing.T) {
	mustRun(t, func(ctx *pulumi.Context) error {
		a := &CheckpointedJobArgs{Common: common(), Pool: a100Pool()}
		a.Name = "train-v2"
		j, err := NewCheckpointedJob(ctx, "train", a)
		if err != nil {
			return err
		}
		pulumi.All(j.Name, j.Namespace).ApplyT(func(v []any) error {
			assert.Equal(t, "train-v2", v[0])
			assert.Equal(t, "team-a", v[1])
			return nil
		})
		return nil
	})
}

func TestCheckpointedJobRefusesBeforeRegistering(t *testing.T) {
	m, err := run(t, func(ctx *pulumi.Context) error {
		pool, _ := gpupool.ResolveOne(with(spotPool(), func(s *gpupool.Spec) { s.Workload = "inference" }).Spec, field.NewPath("serve.pool"))
		_, err := NewCheckpointedJob(ctx, "serve", &CheckpointedJobArgs{Common: common(), Pool: pool})
		return err
	})
	fieldtest.Equal(t, err, fieldtest.Forbidden("serve.pool.priority"), fieldtest.Forbidden("serve.pool.workload"))
	assert.Empty(t, m.All(), "nothing is registered when validation fails")
}

func TestCheckpointedJobDoesNotMutateArgs(t *testing.T) {
	a := &CheckpointedJobArgs{Common: common(), Pool: a100Pool()}
	pool := a.Pool.Spec
	mustRun(t, func(ctx *pulumi.Context) error {
		_, err := NewCheckpointedJob(ctx, "train", a)
		return err
	})
	assert.Empty(t, a.Name)
	assert.Empty(t, a.CheckpointPVC)
	assert.Zero(t, a.BackoffLimit)
	assert.Equal(t, pool, a.Pool.Spec, "the resolved pool is used as it is")
}

func TestWorkloadIdentityNeedsServiceAccount(t *testing.T) {
	a := &CheckpointedJobArgs{Common: common(), Pool: a100Pool()}
	a.WorkloadIdentity = true
	a.Default("train")
	errs := a.Validate(field.NewPath("job"))
	require.Len(t, errs, 1)
	assert.Equal(t, field.Path("job.serviceAccountName"), errs[0].Path)

	a.ServiceAccountName = "training"
	assert.Empty(t, a.Validate(field.NewPath("job")))
}
