package workloads

import (
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/field/fieldtest"
	"github.com/aksml/aksml/components/gpupool"
)

// Builders: each returns the validation result of valid args changed by
// before (applied before Default) and after (applied after Default).

func checkpointed(before func(*CheckpointedJobArgs), after ...func(*CheckpointedJobArgs)) func() field.ErrorList {
	return func() field.ErrorList {
		a := &CheckpointedJobArgs{Common: common(), Pool: a100Pool()}
		before(a)
		a.Default("train")
		for _, f := range after {
			f(a)
		}
		return a.Validate(field.NewPath("train"))
	}
}

func indexed(before func(*IndexedJobArgs)) func() field.ErrorList {
	return func() field.ErrorList {
		a := &IndexedJobArgs{Common: common(), Pool: a100Pool(), Completions: 4}
		before(a)
		a.Default("shards")
		return a.Validate(field.NewPath("shards"))
	}
}

func migTrial(before func(*MIGTrialArgs)) func() field.ErrorList {
	return func() field.ErrorList {
		a := &MIGTrialArgs{Common: common(), Pool: migPool()}
		a.Resources = Resources{}
		before(a)
		a.Default("trial")
		return a.Validate(field.NewPath("trial"))
	}
}

func pytorch(before func(*PyTorchJobArgs)) func() field.ErrorList {
	return func() field.ErrorList {
		a := pyTorchArgs()
		before(a)
		a.Default("pt")
		return a.Validate(field.NewPath("pt"))
	}
}

func tf(before func(*TFJobArgs)) func() field.ErrorList {
	return func() field.ErrorList {
		a := &TFJobArgs{Common: common(), Distributed: Distributed{Pool: a100Pool(), TotalGPUs: 2}}
		before(a)
		a.Default("tf")
		return a.Validate(field.NewPath("tf"))
	}
}

func scoring(before func(*ScheduledScoringArgs)) func() field.ErrorList {
	return func() field.ErrorList {
		a := &ScheduledScoringArgs{Common: common()}
		a.Resources = Resources{CPU: "4", Memory: "8Gi"}
		before(a)
		a.Default("nightly")
		return a.Validate(field.NewPath("nightly"))
	}
}

func kaito(before func(*FineTuningWorkspaceArgs)) func() field.ErrorList {
	return func() field.ErrorList {
		a := workspace()
		before(a)
		a.Default("ws")
		return a.Validate(field.NewPath("ws"))
	}
}

const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestValidation(t *testing.T) {
	tests := []struct {
		name    string
		errs    func() field.ErrorList
		wantErr []fieldtest.Want // the problems, exactly; nil means valid
		// detail is one phrase the message must hold where the wording is
		// the point (the fix, the numbers, the resource name).
		detail string
	}{
		// CheckpointedJob.
		{"checkpointed job valid", checkpointed(func(a *CheckpointedJobArgs) {}), nil, ""},
		{"parallel GPU shards without /dev/shm", indexed(func(a *IndexedJobArgs) { a.Parallelism, a.ShmSize = 2, ShmDisabled }),
			[]fieldtest.Want{fieldtest.Invalid("shards.shmSize")}, ""},
		{"one GPU shard at a time without /dev/shm", indexed(func(a *IndexedJobArgs) { a.Parallelism, a.ShmSize = 1, ShmDisabled }), nil, ""},
		{"shm larger than the memory limit", checkpointed(func(a *CheckpointedJobArgs) { a.Resources.Memory = "8Gi" }),
			[]fieldtest.Want{fieldtest.Invalid("train.shmSize")}, "/dev/shm of 8Gi does not fit in the memory limit 8Gi"},
		{"shm leaving 1Gi to the process", checkpointed(func(a *CheckpointedJobArgs) { a.Resources.Memory = "9Gi" }), nil, ""},
		{"shm not a quantity", checkpointed(func(a *CheckpointedJobArgs) { a.ShmSize = "lots" }), []fieldtest.Want{fieldtest.Invalid("train.shmSize")}, ""},
		{"spot pool with an inference workload", checkpointed(func(a *CheckpointedJobArgs) {
			a.Pool = with(a.Pool, func(s *gpupool.Spec) { s.Priority, s.Workload = gpupool.PrioritySpot, gpupool.WorkloadInference })
		}), []fieldtest.Want{fieldtest.Forbidden("train.pool.workload")}, ""},
		{"serving pool", checkpointed(func(a *CheckpointedJobArgs) { a.Pool = inferencePool() }), []fieldtest.Want{fieldtest.Forbidden("train.pool.workload")}, ""},
		{"unresolved pool", checkpointed(func(a *CheckpointedJobArgs) { a.Pool = &gpupool.Resolved{Spec: a.Pool.Spec} }), []fieldtest.Want{fieldtest.Invalid("train.pool")}, "pass the result of gpupool.Resolve"},
		{"tag-only image with RequireDigest", checkpointed(func(a *CheckpointedJobArgs) { a.RequireDigest = true }),
			[]fieldtest.Want{fieldtest.Invalid("train.image")}, ""},
		{"digest image with RequireDigest", checkpointed(func(a *CheckpointedJobArgs) {
			a.RequireDigest, a.Image = true, "myacr.azurecr.io/train@"+digest
		}), nil, ""},
		{"short digest with RequireDigest", checkpointed(func(a *CheckpointedJobArgs) {
			a.RequireDigest, a.Image = true, "myacr.azurecr.io/train@sha256:0123"
		}), []fieldtest.Want{fieldtest.Invalid("train.image")}, ""},
		{"missing checkpoint claim", checkpointed(func(a *CheckpointedJobArgs) {}, func(a *CheckpointedJobArgs) { a.CheckpointPVC = "" }),
			[]fieldtest.Want{fieldtest.Required("train.checkpointPVC")}, ""},
		{"invalid checkpoint claim", checkpointed(func(a *CheckpointedJobArgs) { a.CheckpointPVC = "Model_Checkpoints" }), []fieldtest.Want{fieldtest.Invalid("train.checkpointPVC")}, ""},
		{"more GPUs than a node has", checkpointed(func(a *CheckpointedJobArgs) { a.Resources.GPUs = 2 }),
			[]fieldtest.Want{fieldtest.Invalid("train.resources.gpus")}, "do not fit on one Standard_NC24ads_A100_v4 node (1 GPUs)"},
		{"no GPU on a GPU pool", checkpointed(func(a *CheckpointedJobArgs) { a.Resources.GPUs = 0 }), []fieldtest.Want{fieldtest.Invalid("train.resources.gpus")}, ""},
		{"GPUs without a pool", checkpointed(func(a *CheckpointedJobArgs) { a.Pool = nil }), []fieldtest.Want{fieldtest.Required("train.pool")}, ""},
		{"more memory than a node has", checkpointed(func(a *CheckpointedJobArgs) { a.Resources.Memory = "300Gi" }), []fieldtest.Want{fieldtest.Invalid("train.resources.memory")}, ""},
		{"more CPU than a node has", checkpointed(func(a *CheckpointedJobArgs) { a.Resources.CPU = "32" }), []fieldtest.Want{fieldtest.Invalid("train.resources.cpu")}, ""},
		{"whole GPUs from a MIG pool", checkpointed(func(a *CheckpointedJobArgs) { a.Pool = migPool() }), []fieldtest.Want{fieldtest.Invalid("train.resources.gpus")}, "exposes MIG instances (nvidia.com/mig-1g.10gb)"},
		{"CPU not a quantity", checkpointed(func(a *CheckpointedJobArgs) { a.Resources.CPU = "four" }), []fieldtest.Want{fieldtest.Invalid("train.resources.cpu")}, ""},
		{"memory missing", checkpointed(func(a *CheckpointedJobArgs) { a.Resources.Memory = "" }), []fieldtest.Want{fieldtest.Required("train.resources.memory")}, ""},
		{"missing namespace, team and image", checkpointed(func(a *CheckpointedJobArgs) { a.Namespace, a.Team, a.Image = nil, "", "" }),
			[]fieldtest.Want{fieldtest.Required("train.namespace"), fieldtest.Required("train.team"), fieldtest.Required("train.image")}, ""},
		{"name too long", checkpointed(func(a *CheckpointedJobArgs) { a.Name = strings.Repeat("a", 64) }), []fieldtest.Want{fieldtest.Invalid("train.name")}, ""},
		{"name not DNS", checkpointed(func(a *CheckpointedJobArgs) { a.Name = "Train_1" }), []fieldtest.Want{fieldtest.Invalid("train.name")}, ""},
		{"reserved env", checkpointed(func(a *CheckpointedJobArgs) {
			a.Env = map[string]string{"CHECKPOINT_DIR": "/x", "NCCL_IB_DISABLE": "0", "bad=name": "x"}
		}), []fieldtest.Want{fieldtest.Forbidden(`train.env["CHECKPOINT_DIR"]`), fieldtest.Forbidden(`train.env["NCCL_IB_DISABLE"]`), fieldtest.Invalid(`train.env["bad=name"]`)}, "use checkpointDir"},
		{"reserved labels", checkpointed(func(a *CheckpointedJobArgs) {
			a.Labels = map[string]string{"kueue.x-k8s.io/queue-name": "other", "aksml.io/metrics": "true", "training-job": "x", "ok": "bad value"}
		}), []fieldtest.Want{fieldtest.Forbidden(`train.labels["aksml.io/metrics"]`), fieldtest.Forbidden(`train.labels["kueue.x-k8s.io/queue-name"]`), fieldtest.Invalid(`train.labels["ok"]`), fieldtest.Forbidden(`train.labels["training-job"]`)}, ""},
		{"unknown scheduler", checkpointed(func(a *CheckpointedJobArgs) { a.Scheduler = "slurm" }), []fieldtest.Want{fieldtest.NotSupported("train.scheduler")}, ""},
		{"CPU job with Kueue and no queue", checkpointed(func(a *CheckpointedJobArgs) {
			a.Pool, a.Resources.GPUs, a.Scheduler = nil, 0, SchedulerKueue
		}), []fieldtest.Want{fieldtest.Required("train.queueName")}, "CPU flavour"},
		{"await without timeout", checkpointed(func(a *CheckpointedJobArgs) { a.Await = true }), []fieldtest.Want{fieldtest.Required("train.awaitTimeoutSeconds")}, ""},
		{"await too long", checkpointed(func(a *CheckpointedJobArgs) { a.Await, a.AwaitTimeoutSeconds = true, 7200 }), []fieldtest.Want{fieldtest.Invalid("train.awaitTimeoutSeconds")}, "7200 s is too long"},
		{"timeout without await", checkpointed(func(a *CheckpointedJobArgs) { a.AwaitTimeoutSeconds = 60 }), []fieldtest.Want{fieldtest.Forbidden("train.awaitTimeoutSeconds")}, ""},
		{"bad exit codes", checkpointed(func(a *CheckpointedJobArgs) { a.NonRetryableExitCodes = []int{0, 3, 3} }),
			[]fieldtest.Want{fieldtest.Invalid("train.nonRetryableExitCodes[0]"), fieldtest.Duplicate("train.nonRetryableExitCodes[2]")}, ""},
		{"metrics port out of range", checkpointed(func(a *CheckpointedJobArgs) { a.MetricsPort = 70000 }), []fieldtest.Want{fieldtest.Invalid("train.metricsPort")}, ""},
		{"data dir inside checkpoint dir", checkpointed(func(a *CheckpointedJobArgs) { a.DataPVC, a.DataDir = "datasets", "/checkpoints/data" }), []fieldtest.Want{fieldtest.Invalid("train.dataDir")}, ""},
		{"checkpoint dir in /dev/shm", checkpointed(func(a *CheckpointedJobArgs) { a.CheckpointDir = "/dev/shm/ckpt" }), []fieldtest.Want{fieldtest.Invalid("train.checkpointDir")}, ""},
		{"relative checkpoint dir", checkpointed(func(a *CheckpointedJobArgs) { a.CheckpointDir = "checkpoints" }), []fieldtest.Want{fieldtest.Invalid("train.checkpointDir")}, ""},
		{"negative backoff limit", checkpointed(func(a *CheckpointedJobArgs) { a.BackoffLimit = -1 }), []fieldtest.Want{fieldtest.Invalid("train.backoffLimit")}, ""},

		// IndexedJob.
		{"indexed job valid", indexed(func(a *IndexedJobArgs) {}), nil, ""},
		{"no shards", indexed(func(a *IndexedJobArgs) { a.Completions = 0 }), []fieldtest.Want{fieldtest.Invalid("shards.completions"), fieldtest.Invalid("shards.parallelism")}, ""},
		{"parallelism above completions", indexed(func(a *IndexedJobArgs) { a.Parallelism = 5 }), []fieldtest.Want{fieldtest.Invalid("shards.resources.gpus"), fieldtest.Invalid("shards.parallelism")}, ""},
		{"max failed indexes above completions", indexed(func(a *IndexedJobArgs) { a.MaxFailedIndexes = 5 }), []fieldtest.Want{fieldtest.Invalid("shards.maxFailedIndexes")}, ""},
		{"relative shard manifest", indexed(func(a *IndexedJobArgs) { a.ShardManifest = "shards.txt" }), []fieldtest.Want{fieldtest.Invalid("shards.shardManifest")}, ""},
		{"name too long for pod hostnames", indexed(func(a *IndexedJobArgs) { a.Completions, a.Name = 100000, strings.Repeat("a", 58) }), []fieldtest.Want{fieldtest.Invalid("shards.name"), fieldtest.Invalid("shards.resources.gpus")}, ""},

		// MIGTrial.
		{"MIG trial valid", migTrial(func(a *MIGTrialArgs) {}), nil, ""},
		{"MIG trial on a non-MIG pool", migTrial(func(a *MIGTrialArgs) { a.Pool = a100Pool() }),
			[]fieldtest.Want{fieldtest.Invalid("trial.pool.mig")}, ""},
		{"MIG trial without a pool", migTrial(func(a *MIGTrialArgs) { a.Pool = nil }), []fieldtest.Want{fieldtest.Required("trial.pool")}, ""},
		{"MIG trial asking whole GPUs", migTrial(func(a *MIGTrialArgs) { a.Resources.GPUs = 1 }), []fieldtest.Want{fieldtest.Forbidden("trial.resources.gpus")}, ""},
		{"more MIG instances than a node has", migTrial(func(a *MIGTrialArgs) { a.MIGDevices = 8 }), []fieldtest.Want{fieldtest.Invalid("trial.migDevices")}, "8 instances of nvidia.com/mig-1g.10gb"},
		{"MIG trial shm above memory", migTrial(func(a *MIGTrialArgs) { a.ShmSize = "8Gi" }), []fieldtest.Want{fieldtest.Invalid("trial.shmSize")}, ""},

		// PyTorchJob.
		{"PyTorchJob valid", pytorch(func(a *PyTorchJobArgs) {}), nil, ""},
		{"replica and GPU count mismatch", pytorch(func(a *PyTorchJobArgs) { a.TotalGPUs = 3 }),
			[]fieldtest.Want{fieldtest.Invalid("pt.totalGPUs")}, "3 GPUs requested but 2 GPU replicas × 1 GPUs per replica = 2"},
		{"GPUs per replica above the node", pytorch(func(a *PyTorchJobArgs) { a.Resources.GPUs, a.TotalGPUs = 2, 4 }), []fieldtest.Want{fieldtest.Invalid("pt.resources.gpus")}, ""},
		{"four GPUs per replica on a four-GPU node", pytorch(func(a *PyTorchJobArgs) {
			a.Pool, a.Resources, a.TotalGPUs = a100x4Pool(), Resources{CPU: "90", Memory: "800Gi", GPUs: 4}, 8
		}), nil, ""},
		{"NCCL_IB_DISABLE=0 on a non-RDMA SKU", pytorch(func(a *PyTorchJobArgs) { a.NCCL.IBDisable = "0" }),
			[]fieldtest.Want{fieldtest.Invalid("pt.nccl.ibDisable")}, "Standard_NC24ads_A100_v4 has no InfiniBand"},
		{"NCCL_IB_DISABLE=0 on an RDMA SKU without RDMA in the pods", pytorch(func(a *PyTorchJobArgs) {
			a.Pool, a.Resources, a.TotalGPUs, a.NCCL.IBDisable = nd96Pool(), Resources{CPU: "90", Memory: "800Gi", GPUs: 8}, 16, "0"
		}), []fieldtest.Want{fieldtest.Invalid("pt.nccl.ibDisable")}, "does not expose InfiniBand to pods"},
		{"NCCL_IB_DISABLE=1 on an RDMA SKU", pytorch(func(a *PyTorchJobArgs) {
			a.Pool, a.Resources, a.TotalGPUs, a.NCCL.IBDisable = nd96Pool(), Resources{CPU: "90", Memory: "800Gi", GPUs: 8}, 16, "1"
		}), nil, ""},
		{"NCCL_IB_DISABLE not 0 or 1", pytorch(func(a *PyTorchJobArgs) { a.NCCL.IBDisable = "yes" }), []fieldtest.Want{fieldtest.NotSupported("pt.nccl.ibDisable")}, ""},
		{"NCCL_DEBUG unknown", pytorch(func(a *PyTorchJobArgs) { a.NCCL.Debug = "LOUD" }), []fieldtest.Want{fieldtest.NotSupported("pt.nccl.debug")}, ""},
		{"NCCL ifname invalid", pytorch(func(a *PyTorchJobArgs) { a.NCCL.SocketIfname = "eth 0" }), []fieldtest.Want{fieldtest.Invalid("pt.nccl.socketIfname")}, ""},
		{"multi-replica without /dev/shm", pytorch(func(a *PyTorchJobArgs) { a.ShmSize = ShmDisabled }), []fieldtest.Want{fieldtest.Invalid("pt.shmSize")}, ""},
		{"no replicas", pytorch(func(a *PyTorchJobArgs) { a.Replicas = -1 }), []fieldtest.Want{fieldtest.Invalid("pt.replicas"), fieldtest.Invalid("pt.totalGPUs")}, ""},
		{"no GPUs per replica", pytorch(func(a *PyTorchJobArgs) { a.Resources.GPUs, a.TotalGPUs = 0, 0 }), []fieldtest.Want{fieldtest.Invalid("pt.resources.gpus")}, ""},
		{"unknown clean pod policy", pytorch(func(a *PyTorchJobArgs) { a.CleanPodPolicy = "Sometimes" }), []fieldtest.Want{fieldtest.NotSupported("pt.cleanPodPolicy")}, ""},
		{"bad egress CIDR", pytorch(func(a *PyTorchJobArgs) { a.AllowEgressCIDRs = []string{"10.0.8.0"} }), []fieldtest.Want{fieldtest.Invalid("pt.allowEgressCIDRs[0]")}, ""},
		{"serving workload on spot", pytorch(func(a *PyTorchJobArgs) {
			a.Pool = with(a.Pool, func(s *gpupool.Spec) { s.Priority, s.Workload = gpupool.PrioritySpot, gpupool.WorkloadInference })
		}), []fieldtest.Want{fieldtest.Forbidden("pt.pool.workload")}, ""},
		{"no pool", pytorch(func(a *PyTorchJobArgs) { a.Pool = nil }), []fieldtest.Want{fieldtest.Required("pt.pool")}, ""},
		{"Kubeflow name starting with a digit", pytorch(func(a *PyTorchJobArgs) { a.Name = "1st-run" }), []fieldtest.Want{fieldtest.Invalid("pt.name")}, "must start with a letter"},
		{"Kubeflow name too long for its Services", pytorch(func(a *PyTorchJobArgs) { a.Name = strings.Repeat("a", 55) }), []fieldtest.Want{fieldtest.Invalid("pt.name")}, "at most 54"},
		{"Kubeflow name at the limit", pytorch(func(a *PyTorchJobArgs) { a.Name = strings.Repeat("a", 54) }), nil, ""},

		// TFJob.
		{"TFJob valid", tf(func(a *TFJobArgs) {}), nil, ""},
		{"TF chief not counted", tf(func(a *TFJobArgs) { a.Chief = 1 }), []fieldtest.Want{fieldtest.Invalid("tf.totalGPUs")}, "2 GPUs requested but 3 GPU replicas"},
		{"TF name starting with a digit", tf(func(a *TFJobArgs) { a.Name = "9tf" }), []fieldtest.Want{fieldtest.Invalid("tf.name")}, ""},
		{"TF two chiefs", tf(func(a *TFJobArgs) { a.Chief, a.TotalGPUs = 2, 4 }), []fieldtest.Want{fieldtest.Invalid("tf.chief")}, ""},
		{"TF parameter servers without resources", tf(func(a *TFJobArgs) { a.PS = 1 }), []fieldtest.Want{fieldtest.Required("tf.psResources.cpu"), fieldtest.Required("tf.psResources.memory")}, ""},
		{"TF parameter servers with GPUs", tf(func(a *TFJobArgs) { a.PS, a.PSResources = 1, Resources{CPU: "4", Memory: "16Gi", GPUs: 1} }), []fieldtest.Want{fieldtest.Forbidden("tf.psResources.gpus")}, ""},
		{"TF parameter servers too small for /dev/shm", tf(func(a *TFJobArgs) { a.PS, a.PSResources = 1, Resources{CPU: "4", Memory: "8Gi"} }), []fieldtest.Want{fieldtest.Invalid("tf.psResources.memory")}, ""},

		// ScheduledScoring.
		{"scoring valid", scoring(func(a *ScheduledScoringArgs) {}), nil, ""},
		{"scoring macro schedule", scoring(func(a *ScheduledScoringArgs) { a.Schedule = "@daily" }), nil, ""},
		{"scoring requests a GPU", scoring(func(a *ScheduledScoringArgs) { a.Resources.GPUs = 1 }), []fieldtest.Want{fieldtest.Forbidden("nightly.resources.gpus")}, ""},
		{"scoring selects GPU nodes", scoring(func(a *ScheduledScoringArgs) { a.NodeSelector = map[string]string{"accelerator": "nvidia"} }), []fieldtest.Want{fieldtest.Forbidden(`nightly.nodeSelector["accelerator"]`)}, ""},
		{"schedule with a time zone", scoring(func(a *ScheduledScoringArgs) { a.Schedule = "CRON_TZ=UTC 0 2 * * *" }), []fieldtest.Want{fieldtest.Invalid("nightly.schedule")}, "put the zone in timeZone"},
		{"schedule not cron", scoring(func(a *ScheduledScoringArgs) { a.Schedule = "every night" }), []fieldtest.Want{fieldtest.Invalid("nightly.schedule")}, ""},
		{"unknown time zone", scoring(func(a *ScheduledScoringArgs) { a.TimeZone = "Mars/Olympus_Mons" }), []fieldtest.Want{fieldtest.Invalid("nightly.timeZone")}, ""},
		{"unknown concurrency policy", scoring(func(a *ScheduledScoringArgs) { a.ConcurrencyPolicy = "Sometimes" }), []fieldtest.Want{fieldtest.NotSupported("nightly.concurrencyPolicy")}, ""},
		{"CronJob name too long", scoring(func(a *ScheduledScoringArgs) { a.Name = strings.Repeat("a", 53) }), []fieldtest.Want{fieldtest.Invalid("nightly.name")}, "at most 52"},
		{"scoring with Kueue and no queue", scoring(func(a *ScheduledScoringArgs) { a.Scheduler = SchedulerKueue }), []fieldtest.Want{fieldtest.Required("nightly.queueName")}, ""},

		// FineTuningWorkspace.
		{"workspace valid", kaito(func(a *FineTuningWorkspaceArgs) {}), nil, ""},
		{"KAITO instance type not in the catalogue", kaito(func(a *FineTuningWorkspaceArgs) { a.InstanceType = "Standard_D4s_v5" }),
			[]fieldtest.Want{fieldtest.Invalid("ws.instanceType")}, ""},
		{"KAITO NV-series", kaito(func(a *FineTuningWorkspaceArgs) { a.InstanceType = "Standard_NV6" }), []fieldtest.Want{fieldtest.Invalid("ws.instanceType")}, "visualisation only"},
		{"KAITO instance type case", kaito(func(a *FineTuningWorkspaceArgs) { a.InstanceType = "standard_nc24ads_a100_v4" }), []fieldtest.Want{fieldtest.Invalid("ws.instanceType")}, "written exactly"},
		{"KAITO no instance type", kaito(func(a *FineTuningWorkspaceArgs) { a.InstanceType = "" }), []fieldtest.Want{fieldtest.Required("ws.instanceType")}, ""},
		{"KAITO empty URLs", kaito(func(a *FineTuningWorkspaceArgs) { a.InputURLs = nil }), []fieldtest.Want{fieldtest.Required("ws.inputURLs")}, ""},
		{"KAITO non-https URL", kaito(func(a *FineTuningWorkspaceArgs) { a.InputURLs = []string{"http://example.com/data.json"} }), []fieldtest.Want{fieldtest.Invalid("ws.inputURLs[0]")}, ""},
		{"KAITO no output", kaito(func(a *FineTuningWorkspaceArgs) { a.OutputImage, a.OutputImagePushSecret = "", "" }), []fieldtest.Want{fieldtest.Required("ws.outputImage")}, ""},
		{"KAITO two outputs", kaito(func(a *FineTuningWorkspaceArgs) { a.OutputPVC = "model-checkpoints" }), []fieldtest.Want{fieldtest.Forbidden("ws.outputPVC")}, ""},
		{"KAITO image without push secret", kaito(func(a *FineTuningWorkspaceArgs) { a.OutputImagePushSecret = "" }), []fieldtest.Want{fieldtest.Required("ws.outputImagePushSecret")}, ""},
		{"KAITO unknown method", kaito(func(a *FineTuningWorkspaceArgs) { a.Method = "full" }), []fieldtest.Want{fieldtest.NotSupported("ws.method")}, ""},
		{"KAITO no preset", kaito(func(a *FineTuningWorkspaceArgs) { a.Preset = "" }), []fieldtest.Want{fieldtest.Required("ws.preset")}, ""},
		{"KAITO missing namespace and team", kaito(func(a *FineTuningWorkspaceArgs) { a.Namespace, a.Team = nil, "" }), []fieldtest.Want{fieldtest.Required("ws.namespace"), fieldtest.Required("ws.team")}, ""},
		{"KAITO await without timeout", kaito(func(a *FineTuningWorkspaceArgs) { a.Await = true }), []fieldtest.Want{fieldtest.Required("ws.awaitTimeoutSeconds")}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.errs().ToAggregate()
			if fieldtest.Equal(t, err, tt.wantErr...) && tt.detail != "" {
				assert.Contains(t, err.Error(), tt.detail)
			}
		})
	}
}

func TestValidationReportsEveryProblemAtOnce(t *testing.T) {
	_, err := run(t, func(ctx *pulumi.Context) error {
		a := &PyTorchJobArgs{Common: common(), Distributed: Distributed{Pool: a100Pool(), TotalGPUs: 5, NCCL: NCCL{IBDisable: "0"}}}
		a.Resources.Memory = "4Gi"
		a.RequireDigest = true
		_, err := NewPyTorchJob(ctx, "pt", a)
		return err
	})
	fieldtest.Equal(t, err, fieldtest.Invalid("pt.image"), fieldtest.Invalid("pt.shmSize"), fieldtest.Invalid("pt.totalGPUs"), fieldtest.Invalid("pt.nccl.ibDisable"))
}

func TestConstructorsRejectNilArgs(t *testing.T) {
	_, err := run(t, func(ctx *pulumi.Context) error {
		var errs []error
		_, e := NewCheckpointedJob(ctx, "a", nil)
		errs = append(errs, e)
		_, e = NewIndexedJob(ctx, "b", nil)
		errs = append(errs, e)
		_, e = NewScheduledScoring(ctx, "c", nil)
		errs = append(errs, e)
		_, e = NewPyTorchJob(ctx, "d", nil)
		errs = append(errs, e)
		_, e = NewTFJob(ctx, "e", nil)
		errs = append(errs, e)
		_, e = NewMIGTrial(ctx, "f", nil)
		errs = append(errs, e)
		_, e = NewFineTuningWorkspace(ctx, "g", nil)
		errs = append(errs, e)
		for _, e := range errs {
			assert.ErrorContains(t, e, "Args are required")
		}
		return nil
	})
	require.NoError(t, err)
}

func TestParseQuantity(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"8Gi", 8 * gib, true},
		{"16Gi", 16 * gib, true},
		{"512Mi", 512 << 20, true},
		{"1.5Gi", 1.5 * gib, true},
		{"4", 4, true},
		{"500m", 0.5, true},
		{"2k", 2000, true},
		{"1e3", 1000, true},
		{"8G", 8e9, true},
		{"", 0, false},
		{"8GB", 0, false},
		{"-1", 0, false},
		{"Gi", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseQuantity(tt.in)
		assert.Equal(t, tt.ok, ok, tt.in)
		assert.InDelta(t, tt.want, got, 1e-9, tt.in)
	}
}

// TestSchedulability checks the checks that refuse work that can never be
// scheduled, each with a passing neighbour: requests at or above a node's
// allocatable CPU and memory, and a gang larger than the pool.
func TestSchedulability(t *testing.T) {
	want := func(w fieldtest.Want) *fieldtest.Want { return &w }
	t4 := resolved(gpupool.Spec{Name: "t4", VMSize: "Standard_NC4as_T4_v3", Workload: gpupool.WorkloadTraining, MaxCount: 2})
	tests := []struct {
		name string
		args func(a *CheckpointedJobArgs)
		want *fieldtest.Want // nil: valid
		// detail is the part of the message that gives the numbers and
		// the fix, which is the point of these checks.
		detail string
	}{
		// NC4as_T4_v3: 4 vCPUs, 3860m allocatable; 28 GiB, 28672-5050-100 MiB.
		{"cpu equal to the VM's vCPUs", func(a *CheckpointedJobArgs) { a.Resources.CPU = "4" }, want(fieldtest.Invalid("train.resources.cpu")), "4 CPUs can never be scheduled on a Standard_NC4as_T4_v3 node: of its 4 vCPUs it offers 3860m"},
		{"cpu equal to allocatable", func(a *CheckpointedJobArgs) { a.Resources.CPU = "3860m" }, want(fieldtest.Invalid("train.resources.cpu")), "request less than 3860m"},
		{"cpu below allocatable", func(a *CheckpointedJobArgs) { a.Resources.CPU = "3500m" }, nil, ""},
		{"memory equal to the VM's", func(a *CheckpointedJobArgs) { a.Resources.Memory = "28Gi" }, want(fieldtest.Invalid("train.resources.memory")), "28Gi can never be scheduled on a Standard_NC4as_T4_v3 node: of its 28Gi it offers 23522Mi"},
		{"memory below allocatable", func(a *CheckpointedJobArgs) { a.Resources.Memory = "20Gi" }, nil, ""},
		{"job on a managed pool at count 0", func(a *CheckpointedJobArgs) {
			zero := 0
			a.Pool = with(t4, func(s *gpupool.Spec) { s.GPUStack, s.MaxCount, s.Count = gpupool.GPUStackManaged, 0, &zero })
		}, want(fieldtest.Invalid("train.resources.gpus")), `1 pods × 1 GPUs = 1 nvidia.com/gpu at once, but pool "t4" holds 0 at most (count 0); lower the replicas or GPUs, or raise pool.count`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &CheckpointedJobArgs{Common: common(), Pool: t4}
			a.Resources = Resources{CPU: "3", Memory: "16Gi", GPUs: 1}
			tt.args(a)
			a.Default("train")
			err := a.Validate(field.NewPath("train")).ToAggregate()
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			if fieldtest.Equal(t, err, *tt.want) {
				assert.Contains(t, err.Error(), tt.detail)
			}
		})
	}

	// A PyTorchJob gang larger than the pool, and one that fits.
	a := &PyTorchJobArgs{Common: common(), Distributed: Distributed{Pool: t4, TotalGPUs: 3}, Replicas: 3}
	a.Resources = Resources{CPU: "3", Memory: "16Gi", GPUs: 1}
	a.Default("pt")
	err := a.Validate(field.NewPath("pt")).ToAggregate()
	if fieldtest.Equal(t, err, fieldtest.Invalid("pt.replicas")) {
		assert.Contains(t, err.Error(), `3 GPU replicas × 1 GPUs = 3 nvidia.com/gpu at once, but pool "t4" holds 2 at most (maxCount 2)`)
	}
	a.Replicas, a.TotalGPUs = 2, 2
	require.NoError(t, a.Validate(field.NewPath("pt")).ToAggregate())
}
