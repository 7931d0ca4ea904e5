package workloads

import (
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"

	"github.com/aksml/aksml/components/field/fieldtest"
	"github.com/aksml/aksml/components/gpupool"

	"github.com/aksml/aksml/components/internal/mocktest"
)

const cronJobType = "kubernetes:batch/v1:CronJob"

func TestIndexedJobShards(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := &IndexedJobArgs{Common: common(), Completions: 4, ShardManifest: "/data/manifests/shards.txt", NonRetryableExitCodes: []int{42}}
		a.Resources = Resources{CPU: "2", Memory: "4Gi"}
		a.ShmSize = "1Gi"
		a.DataPVC = "shared-training-data"
		_, err := NewIndexedJob(ctx, "shards", a)
		return err
	})
	assert.Len(t, m.ByType(IndexedJobType), 1)
	in := m.One(t, jobType).Inputs
	assert.Equal(t, map[string]any{"pulumi.com/skipAwait": "true"}, mocktest.Dig(t, in, "metadata", "annotations"))
	spec := mocktest.Dig(t, in, "spec")
	assert.Equal(t, "Indexed", mocktest.Dig(t, spec, "completionMode"))
	assert.EqualValues(t, 4, mocktest.Dig(t, spec, "completions"))
	assert.EqualValues(t, 4, mocktest.Dig(t, spec, "parallelism"), "parallelism defaults to completions")
	assert.EqualValues(t, 2, mocktest.Dig(t, spec, "backoffLimitPerIndex"))
	assert.EqualValues(t, 0, mocktest.Dig(t, spec, "maxFailedIndexes"))
	assert.False(t, has(spec, "backoffLimit"), "Indexed Jobs retry per index")
	assert.EqualValues(t, 86400, mocktest.Dig(t, spec, "activeDeadlineSeconds"))
	assert.EqualValues(t, 86400, mocktest.Dig(t, spec, "ttlSecondsAfterFinished"))
	assert.Equal(t, "FailIndex", mocktest.Dig(t, spec, "podFailurePolicy", "rules", 1, "action"))
	assert.Equal(t, "DisruptionTarget", mocktest.Dig(t, spec, "podFailurePolicy", "rules", 0, "onPodConditions", 0, "type"))

	pod := mocktest.Dig(t, spec, "template", "spec")
	assert.Equal(t, "Never", mocktest.Dig(t, pod, "restartPolicy"))
	assert.EqualValues(t, 1000, mocktest.Dig(t, pod, "securityContext", "runAsUser"))
	assert.EqualValues(t, 1000, mocktest.Dig(t, pod, "securityContext", "runAsGroup"))
	assert.EqualValues(t, 1000, mocktest.Dig(t, pod, "securityContext", "fsGroup"))
	assert.False(t, has(pod, "tolerations"))
	ctr := mocktest.Dig(t, pod, "containers", 0)
	assert.Equal(t, "worker", mocktest.Dig(t, ctr, "name"))
	assert.Equal(t, map[string]string{
		"CHECKPOINT_DIR": "/checkpoints",
		"DATA_DIR":       "/data",
		"SHARD_INDEX":    "fieldRef:metadata.annotations['batch.kubernetes.io/job-completion-index']",
		"SHARD_COUNT":    "4",
		"SHARD_MANIFEST": "/data/manifests/shards.txt",
	}, envOf(t, ctr))
}

func TestIndexedJobOnGPUPoolWithKueue(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		_, err := NewIndexedJob(ctx, "embed", &IndexedJobArgs{Common: common(), Pool: a100Pool(), Completions: 8, Parallelism: 2, MaxFailedIndexes: 1})
		return err
	})
	in := m.One(t, jobType).Inputs
	assert.Equal(t, "gpu-queue", mocktest.Dig(t, in, "metadata", "labels", QueueNameLabel))
	assert.Equal(t, true, mocktest.Dig(t, in, "spec", "suspend"))
	assert.Equal(t, []string{"spec.suspend"}, m.One(t, jobType).IgnoreChanges)
	assert.EqualValues(t, 2, mocktest.Dig(t, in, "spec", "parallelism"))
	assert.EqualValues(t, 1, mocktest.Dig(t, in, "spec", "maxFailedIndexes"))
	assert.Equal(t, "1", mocktest.Dig(t, in, "spec", "template", "spec", "containers", 0, "resources", "limits", "nvidia.com/gpu"))
	assert.NotContains(t, envOf(t, mocktest.Dig(t, in, "spec", "template", "spec", "containers", 0)), EnvShardManifest)
}

func TestIndexedJobVolcanoGangsParallelPods(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := &IndexedJobArgs{Common: common(), Pool: a100Pool(), Completions: 8, Parallelism: 4}
		a.Scheduler, a.QueueName = SchedulerVolcano, "team-a"
		_, err := NewIndexedJob(ctx, "embed", a)
		return err
	})
	assert.Equal(t, "4", mocktest.Dig(t, m.One(t, jobType).Inputs, "metadata", "annotations", VolcanoMinMemberAnnotation))
}

func TestScheduledScoring(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := &ScheduledScoringArgs{Common: common(), TimeZone: "Europe/Lisbon", NodeSelector: map[string]string{"kubernetes.azure.com/agentpool": "cpu"}}
		a.Resources = Resources{CPU: "4", Memory: "8Gi"}
		_, err := NewScheduledScoring(ctx, "nightly", a)
		return err
	})
	assert.Len(t, m.ByType(ScheduledScoringType), 1)
	assert.Empty(t, m.ByType(jobType))
	cj := m.One(t, cronJobType)
	assert.Equal(t, "nightly-cronjob", cj.Name)
	in := cj.Inputs
	assert.Equal(t, "nightly", mocktest.Dig(t, in, "metadata", "name"))
	assert.Equal(t, map[string]any{"pulumi.com/skipAwait": "true"}, mocktest.Dig(t, in, "metadata", "annotations"))
	spec := mocktest.Dig(t, in, "spec")
	assert.Equal(t, "0 2 * * *", mocktest.Dig(t, spec, "schedule"))
	assert.Equal(t, "Europe/Lisbon", mocktest.Dig(t, spec, "timeZone"))
	assert.Equal(t, "Forbid", mocktest.Dig(t, spec, "concurrencyPolicy"))
	assert.EqualValues(t, 600, mocktest.Dig(t, spec, "startingDeadlineSeconds"))
	assert.EqualValues(t, 3, mocktest.Dig(t, spec, "successfulJobsHistoryLimit"))
	assert.EqualValues(t, 3, mocktest.Dig(t, spec, "failedJobsHistoryLimit"))

	jt := mocktest.Dig(t, spec, "jobTemplate")
	assert.NotContains(t, mocktest.Dig(t, jt, "metadata", "labels"), QueueNameLabel, "scoring defaults to no scheduler")
	js := mocktest.Dig(t, jt, "spec")
	assert.EqualValues(t, 2, mocktest.Dig(t, js, "backoffLimit"))
	assert.EqualValues(t, 21600, mocktest.Dig(t, js, "activeDeadlineSeconds"))
	assert.EqualValues(t, 86400, mocktest.Dig(t, js, "ttlSecondsAfterFinished"))
	assert.False(t, has(js, "suspend"))
	pod := mocktest.Dig(t, js, "template", "spec")
	assert.False(t, has(pod, "tolerations"), "scoring never tolerates the GPU taint")
	assert.Equal(t, map[string]any{"kubernetes.azure.com/agentpool": "cpu"}, mocktest.Dig(t, pod, "nodeSelector"))
	ctr := mocktest.Dig(t, pod, "containers", 0)
	assert.Equal(t, "scorer", mocktest.Dig(t, ctr, "name"))
	assert.Equal(t, map[string]any{"cpu": "4", "memory": "8Gi"}, mocktest.Dig(t, ctr, "resources", "limits"))
	assert.Equal(t, map[string]any{"cpu": "4", "memory": "8Gi"}, mocktest.Dig(t, ctr, "resources", "requests"))
	assert.Equal(t, map[string]any{"medium": "Memory", "sizeLimit": "1Gi"}, volumeByName(t, pod, "shared-memory")["emptyDir"])
}

func TestScheduledScoringWithKueue(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := &ScheduledScoringArgs{Common: common()}
		a.Resources = Resources{CPU: "4", Memory: "8Gi"}
		a.Scheduler, a.QueueName = SchedulerKueue, "cpu-queue"
		_, err := NewScheduledScoring(ctx, "nightly", a)
		return err
	})
	jt := mocktest.Dig(t, m.One(t, cronJobType).Inputs, "spec", "jobTemplate")
	assert.Equal(t, "cpu-queue", mocktest.Dig(t, jt, "metadata", "labels", QueueNameLabel))
	assert.Equal(t, "training-batch", mocktest.Dig(t, jt, "metadata", "labels", WorkloadPriorityClassLabel))
	assert.Equal(t, true, mocktest.Dig(t, jt, "spec", "suspend"))
}

func TestMIGTrial(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := &MIGTrialArgs{Common: common(), Pool: migPool()}
		a.Resources = Resources{}
		a.Image = "nvcr.io/nvidia/cuda:12.4.1-runtime-ubuntu22.04"
		trial, err := NewMIGTrial(ctx, "mig-hyperparameter-trial", a)
		if err != nil {
			return err
		}
		trial.MIGResource.ApplyT(func(r string) error {
			assert.Equal(t, "nvidia.com/mig-1g.10gb", r)
			return nil
		})
		return nil
	})
	assert.Len(t, m.ByType(MIGTrialType), 1)
	in := m.One(t, jobType).Inputs
	assert.Equal(t, "hyperparameter-tuning", mocktest.Dig(t, in, "metadata", "labels", "workload"))
	assert.Equal(t, map[string]any{"pulumi.com/skipAwait": "true"}, mocktest.Dig(t, in, "metadata", "annotations"))
	assert.EqualValues(t, 2, mocktest.Dig(t, in, "spec", "backoffLimit"))
	assert.Equal(t, true, mocktest.Dig(t, in, "spec", "suspend"))
	tmpl := mocktest.Dig(t, in, "spec", "template")
	assert.Equal(t, "hyperparameter-tuning", mocktest.Dig(t, tmpl, "metadata", "labels", "workload"))
	pod := mocktest.Dig(t, tmpl, "spec")
	assert.Equal(t, "Never", mocktest.Dig(t, pod, "restartPolicy"))
	assert.Equal(t, map[string]any{
		"accelerator":                 "nvidia",
		"nvidia.com/mig.config":       "hptuning-1g10gb",
		"nvidia.com/mig.config.state": "success",
	}, mocktest.Dig(t, pod, "nodeSelector"))
	assert.Equal(t, []string{"sku=gpu:NoSchedule (Equal)"}, tolerationStrings(t, pod))
	ctr := mocktest.Dig(t, pod, "containers", 0)
	assert.Equal(t, "trial", mocktest.Dig(t, ctr, "name"))
	want := map[string]any{"cpu": "2", "memory": "8Gi", "nvidia.com/mig-1g.10gb": "1"}
	assert.Equal(t, want, mocktest.Dig(t, ctr, "resources", "requests"))
	assert.Equal(t, want, mocktest.Dig(t, ctr, "resources", "limits"))
	assert.Equal(t, map[string]any{"medium": "Memory", "sizeLimit": "2Gi"}, volumeByName(t, pod, "shared-memory")["emptyDir"])
	assert.NotContains(t, mountPaths(t, ctr), "checkpoints", "trials mount checkpoints only when asked")
}

// TestMIGTrialUnderSingleStrategyRequestsGPU: under the Single strategy the
// device plugin advertises every MIG device as nvidia.com/gpu, so the trial
// requests that, still on nodes whose layout the MIG Manager applied.
func TestMIGTrialUnderSingleStrategyRequestsGPU(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		pool := migPool()
		pool.MIG.Strategy = gpupool.MIGStrategySingle
		a := &MIGTrialArgs{Common: common(), Pool: pool}
		a.Resources = Resources{}
		_, err := NewMIGTrial(ctx, "trial", a)
		return err
	})
	pod := mocktest.Dig(t, m.One(t, jobType).Inputs, "spec", "template", "spec")
	assert.Equal(t, "success", mocktest.Dig(t, pod, "nodeSelector", "nvidia.com/mig.config.state"))
	want := map[string]any{"cpu": "2", "memory": "8Gi", "nvidia.com/gpu": "1"}
	assert.Equal(t, want, mocktest.Dig(t, pod, "containers", 0, "resources", "limits"))
}

func TestMIGTrialOnManagedStackSelectsPool(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		one := 1
		pool := with(migPool(), func(s *gpupool.Spec) { s.GPUStack, s.MaxCount, s.MinCount, s.Count = "Managed", 0, nil, &one })
		a := &MIGTrialArgs{Common: common(), Pool: pool}
		a.Resources = Resources{}
		_, err := NewMIGTrial(ctx, "trial", a)
		return err
	})
	assert.Equal(t, map[string]any{
		"accelerator":                    "nvidia",
		"kubernetes.azure.com/agentpool": "mig",
	}, mocktest.Dig(t, m.One(t, jobType).Inputs, "spec", "template", "spec", "nodeSelector"))
}

func TestTrainingOperator(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		op, err := NewTrainingOperator(ctx, "training-operator", nil)
		if err != nil {
			return err
		}
		pulumi.All(op.Namespace, op.Version).ApplyT(func(v []any) error {
			assert.Equal(t, "kubeflow", v[0])
			assert.Equal(t, "v1.8.1", v[1])
			return nil
		})
		return nil
	})
	assert.Len(t, m.ByType(TrainingOperatorType), 1)
	dir := m.One(t, "kubernetes:kustomize/v2:Directory")
	assert.Equal(t, "training-operator-manifests", dir.Name)
	assert.Equal(t, "https://github.com/kubeflow/training-operator.git//manifests/overlays/standalone?ref=v1.8.1", dir.Inputs["directory"])
}

func TestTrainingOperatorRejectsUnpinnedVersion(t *testing.T) {
	_, err := run(t, func(ctx *pulumi.Context) error {
		_, err := NewTrainingOperator(ctx, "op", &TrainingOperatorArgs{Version: "master"})
		return err
	})
	if fieldtest.Equal(t, err, fieldtest.Invalid("op.version")) {
		assert.Contains(t, err.Error(), "pin a version")
	}
}

func TestKAITOInstallsPinnedChartWithoutNodeProvisioning(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		k, err := NewKAITO(ctx, "kaito", nil)
		if err != nil {
			return err
		}
		pulumi.All(k.Namespace, k.Version).ApplyT(func(v []any) error {
			assert.Equal(t, "kaito-workspace", v[0])
			assert.Equal(t, KAITOVersion, v[1])
			return nil
		})
		return nil
	})
	assert.Len(t, m.ByType(KAITOType), 1)
	chart := m.One(t, "kubernetes:helm.sh/v4:Chart")
	assert.Equal(t, "workspace", chart.Inputs["chart"])
	assert.Equal(t, "0.10.0", chart.Inputs["version"])
	assert.Equal(t, "https://kaito-project.github.io/kaito/charts/kaito", mocktest.Dig(t, chart.Inputs, "repositoryOpts", "repo"))
	assert.Equal(t, true, mocktest.Dig(t, chart.Inputs, "values", "featureGates", "disableNodeAutoProvisioning"))
	assert.Equal(t, false, mocktest.Dig(t, chart.Inputs, "values", "nvidiaDevicePlugin", "enabled"))
}

func TestKAITORejectsUnpinnedVersion(t *testing.T) {
	for _, v := range []string{"^0.10.0", "0.13.0-rc.0", "latest"} {
		_, err := run(t, func(ctx *pulumi.Context) error {
			_, err := NewKAITO(ctx, "kaito", &KAITOArgs{Version: v})
			return err
		})
		if fieldtest.Equal(t, err, fieldtest.Invalid("kaito.version")) {
			assert.Contains(t, err.Error(), "pin one such as 0.10.0")
		}
	}
}
