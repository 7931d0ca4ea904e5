package workloads

import (
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/gpupool"
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
	assert.Len(t, m.ofType(IndexedJobType), 1)
	in := m.one(t, jobType).inputs
	assert.Equal(t, map[string]any{"pulumi.com/skipAwait": "true"}, dig(t, in, "metadata", "annotations"))
	spec := dig(t, in, "spec")
	assert.Equal(t, "Indexed", dig(t, spec, "completionMode"))
	assert.EqualValues(t, 4, dig(t, spec, "completions"))
	assert.EqualValues(t, 4, dig(t, spec, "parallelism"), "parallelism defaults to completions")
	assert.EqualValues(t, 2, dig(t, spec, "backoffLimitPerIndex"))
	assert.EqualValues(t, 0, dig(t, spec, "maxFailedIndexes"))
	assert.False(t, has(spec, "backoffLimit"), "Indexed Jobs retry per index")
	assert.EqualValues(t, 86400, dig(t, spec, "activeDeadlineSeconds"))
	assert.EqualValues(t, 86400, dig(t, spec, "ttlSecondsAfterFinished"))
	assert.Equal(t, "FailIndex", dig(t, spec, "podFailurePolicy", "rules", 1, "action"))
	assert.Equal(t, "DisruptionTarget", dig(t, spec, "podFailurePolicy", "rules", 0, "onPodConditions", 0, "type"))

	pod := dig(t, spec, "template", "spec")
	assert.Equal(t, "Never", dig(t, pod, "restartPolicy"))
	assert.EqualValues(t, 1000, dig(t, pod, "securityContext", "runAsUser"))
	assert.EqualValues(t, 1000, dig(t, pod, "securityContext", "runAsGroup"))
	assert.EqualValues(t, 1000, dig(t, pod, "securityContext", "fsGroup"))
	assert.False(t, has(pod, "tolerations"))
	ctr := dig(t, pod, "containers", 0)
	assert.Equal(t, "worker", dig(t, ctr, "name"))
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
	in := m.one(t, jobType).inputs
	assert.Equal(t, "gpu-queue", dig(t, in, "metadata", "labels", QueueNameLabel))
	assert.Equal(t, true, dig(t, in, "spec", "suspend"))
	assert.Equal(t, []string{"spec.suspend"}, m.one(t, jobType).ignoreChanges)
	assert.EqualValues(t, 2, dig(t, in, "spec", "parallelism"))
	assert.EqualValues(t, 1, dig(t, in, "spec", "maxFailedIndexes"))
	assert.Equal(t, "1", dig(t, in, "spec", "template", "spec", "containers", 0, "resources", "limits", "nvidia.com/gpu"))
	assert.NotContains(t, envOf(t, dig(t, in, "spec", "template", "spec", "containers", 0)), EnvShardManifest)
}

func TestIndexedJobVolcanoGangsParallelPods(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := &IndexedJobArgs{Common: common(), Pool: a100Pool(), Completions: 8, Parallelism: 4}
		a.Scheduler, a.QueueName = SchedulerVolcano, "team-a"
		_, err := NewIndexedJob(ctx, "embed", a)
		return err
	})
	assert.Equal(t, "4", dig(t, m.one(t, jobType).inputs, "metadata", "annotations", VolcanoMinMemberAnnotation))
}

func TestScheduledScoring(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := &ScheduledScoringArgs{Common: common(), TimeZone: "Europe/Lisbon", NodeSelector: map[string]string{"kubernetes.azure.com/agentpool": "cpu"}}
		a.Resources = Resources{CPU: "4", Memory: "8Gi"}
		_, err := NewScheduledScoring(ctx, "nightly", a)
		return err
	})
	assert.Len(t, m.ofType(ScheduledScoringType), 1)
	assert.Empty(t, m.ofType(jobType))
	cj := m.one(t, cronJobType)
	assert.Equal(t, "nightly-cronjob", cj.name)
	in := cj.inputs
	assert.Equal(t, "nightly", dig(t, in, "metadata", "name"))
	assert.Equal(t, map[string]any{"pulumi.com/skipAwait": "true"}, dig(t, in, "metadata", "annotations"))
	spec := dig(t, in, "spec")
	assert.Equal(t, "0 2 * * *", dig(t, spec, "schedule"))
	assert.Equal(t, "Europe/Lisbon", dig(t, spec, "timeZone"))
	assert.Equal(t, "Forbid", dig(t, spec, "concurrencyPolicy"))
	assert.EqualValues(t, 600, dig(t, spec, "startingDeadlineSeconds"))
	assert.EqualValues(t, 3, dig(t, spec, "successfulJobsHistoryLimit"))
	assert.EqualValues(t, 3, dig(t, spec, "failedJobsHistoryLimit"))

	jt := dig(t, spec, "jobTemplate")
	assert.NotContains(t, dig(t, jt, "metadata", "labels"), QueueNameLabel, "scoring defaults to no scheduler")
	js := dig(t, jt, "spec")
	assert.EqualValues(t, 2, dig(t, js, "backoffLimit"))
	assert.EqualValues(t, 21600, dig(t, js, "activeDeadlineSeconds"))
	assert.EqualValues(t, 86400, dig(t, js, "ttlSecondsAfterFinished"))
	assert.False(t, has(js, "suspend"))
	pod := dig(t, js, "template", "spec")
	assert.False(t, has(pod, "tolerations"), "scoring never tolerates the GPU taint")
	assert.Equal(t, map[string]any{"kubernetes.azure.com/agentpool": "cpu"}, dig(t, pod, "nodeSelector"))
	ctr := dig(t, pod, "containers", 0)
	assert.Equal(t, "scorer", dig(t, ctr, "name"))
	assert.Equal(t, map[string]any{"cpu": "4", "memory": "8Gi"}, dig(t, ctr, "resources", "limits"))
	assert.Equal(t, map[string]any{"cpu": "4", "memory": "8Gi"}, dig(t, ctr, "resources", "requests"))
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
	jt := dig(t, m.one(t, cronJobType).inputs, "spec", "jobTemplate")
	assert.Equal(t, "cpu-queue", dig(t, jt, "metadata", "labels", QueueNameLabel))
	assert.Equal(t, "training-batch", dig(t, jt, "metadata", "labels", WorkloadPriorityClassLabel))
	assert.Equal(t, true, dig(t, jt, "spec", "suspend"))
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
	assert.Len(t, m.ofType(MIGTrialType), 1)
	in := m.one(t, jobType).inputs
	assert.Equal(t, "hyperparameter-tuning", dig(t, in, "metadata", "labels", "workload"))
	assert.Equal(t, map[string]any{"pulumi.com/skipAwait": "true"}, dig(t, in, "metadata", "annotations"))
	assert.EqualValues(t, 2, dig(t, in, "spec", "backoffLimit"))
	assert.Equal(t, true, dig(t, in, "spec", "suspend"))
	tmpl := dig(t, in, "spec", "template")
	assert.Equal(t, "hyperparameter-tuning", dig(t, tmpl, "metadata", "labels", "workload"))
	pod := dig(t, tmpl, "spec")
	assert.Equal(t, "Never", dig(t, pod, "restartPolicy"))
	assert.Equal(t, map[string]any{
		"accelerator":                 "nvidia",
		"nvidia.com/mig.config":       "hptuning-1g10gb",
		"nvidia.com/mig.config.state": "success",
	}, dig(t, pod, "nodeSelector"))
	assert.Equal(t, []string{"sku=gpu:NoSchedule (Equal)"}, tolerationStrings(t, pod))
	ctr := dig(t, pod, "containers", 0)
	assert.Equal(t, "trial", dig(t, ctr, "name"))
	want := map[string]any{"cpu": "2", "memory": "8Gi", "nvidia.com/mig-1g.10gb": "1"}
	assert.Equal(t, want, dig(t, ctr, "resources", "requests"))
	assert.Equal(t, want, dig(t, ctr, "resources", "limits"))
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
	pod := dig(t, m.one(t, jobType).inputs, "spec", "template", "spec")
	assert.Equal(t, "success", dig(t, pod, "nodeSelector", "nvidia.com/mig.config.state"))
	want := map[string]any{"cpu": "2", "memory": "8Gi", "nvidia.com/gpu": "1"}
	assert.Equal(t, want, dig(t, pod, "containers", 0, "resources", "limits"))
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
	}, dig(t, m.one(t, jobType).inputs, "spec", "template", "spec", "nodeSelector"))
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
	assert.Len(t, m.ofType(TrainingOperatorType), 1)
	dir := m.one(t, "kubernetes:kustomize/v2:Directory")
	assert.Equal(t, "training-operator-manifests", dir.name)
	assert.Equal(t, "https://github.com/kubeflow/training-operator.git//manifests/overlays/standalone?ref=v1.8.1", dir.inputs["directory"])
}

func TestTrainingOperatorRejectsUnpinnedVersion(t *testing.T) {
	_, err := run(t, func(ctx *pulumi.Context) error {
		_, err := NewTrainingOperator(ctx, "op", &TrainingOperatorArgs{Version: "master"})
		return err
	})
	requireErrs(t, err, "op.version")
	require.ErrorContains(t, err, "pin a version")
}
