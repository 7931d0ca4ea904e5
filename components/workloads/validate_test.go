package workloads

import (
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/field"
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
		wantErr []string // empty: valid
	}{
		// CheckpointedJob.
		{"checkpointed job valid", checkpointed(func(a *CheckpointedJobArgs) {}), nil},
		{"parallel GPU shards without /dev/shm", indexed(func(a *IndexedJobArgs) { a.Parallelism, a.ShmSize = 2, ShmDisabled }),
			[]string{"shards.shmSize: parallel GPU workers need a memory-backed /dev/shm"}},
		{"one GPU shard at a time without /dev/shm", indexed(func(a *IndexedJobArgs) { a.Parallelism, a.ShmSize = 1, ShmDisabled }), nil},
		{"shm larger than the memory limit", checkpointed(func(a *CheckpointedJobArgs) { a.Resources.Memory = "8Gi" }),
			[]string{"train.shmSize: /dev/shm of 8Gi does not fit in the memory limit 8Gi"}},
		{"shm leaving 1Gi to the process", checkpointed(func(a *CheckpointedJobArgs) { a.Resources.Memory = "9Gi" }), nil},
		{"shm not a quantity", checkpointed(func(a *CheckpointedJobArgs) { a.ShmSize = "lots" }), []string{"train.shmSize"}},
		{"spot pool with an inference workload", checkpointed(func(a *CheckpointedJobArgs) {
			a.Pool = with(a.Pool, func(s *gpupool.Spec) { s.Priority, s.Workload = gpupool.PrioritySpot, gpupool.WorkloadInference })
		}), []string{"train.pool.workload: pool \"a100\" is for real-time inference serving"}},
		{"serving pool", checkpointed(func(a *CheckpointedJobArgs) { a.Pool = inferencePool() }), []string{"train.pool.workload"}},
		{"unresolved pool", checkpointed(func(a *CheckpointedJobArgs) { a.Pool = &gpupool.Resolved{Spec: a.Pool.Spec} }), []string{"train.pool: is not a resolved pool; pass the result of gpupool.Resolve"}},
		{"tag-only image with RequireDigest", checkpointed(func(a *CheckpointedJobArgs) { a.RequireDigest = true }),
			[]string{"train.image: \"pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime\" is not pinned by digest"}},
		{"digest image with RequireDigest", checkpointed(func(a *CheckpointedJobArgs) {
			a.RequireDigest, a.Image = true, "myacr.azurecr.io/train@"+digest
		}), nil},
		{"short digest with RequireDigest", checkpointed(func(a *CheckpointedJobArgs) {
			a.RequireDigest, a.Image = true, "myacr.azurecr.io/train@sha256:0123"
		}), []string{"train.image"}},
		{"missing checkpoint claim", checkpointed(func(a *CheckpointedJobArgs) {}, func(a *CheckpointedJobArgs) { a.CheckpointPVC = "" }),
			[]string{"train.checkpointPVC: is required"}},
		{"invalid checkpoint claim", checkpointed(func(a *CheckpointedJobArgs) { a.CheckpointPVC = "Model_Checkpoints" }), []string{"train.checkpointPVC"}},
		{"more GPUs than a node has", checkpointed(func(a *CheckpointedJobArgs) { a.Resources.GPUs = 2 }),
			[]string{"train.resources.gpus: 2 GPUs per pod do not fit on one Standard_NC24ads_A100_v4 node (1 GPUs)"}},
		{"no GPU on a GPU pool", checkpointed(func(a *CheckpointedJobArgs) { a.Resources.GPUs = 0 }), []string{"train.resources.gpus: 0 GPUs on GPU pool"}},
		{"GPUs without a pool", checkpointed(func(a *CheckpointedJobArgs) { a.Pool = nil }), []string{"train.pool: is required"}},
		{"more memory than a node has", checkpointed(func(a *CheckpointedJobArgs) { a.Resources.Memory = "300Gi" }), []string{"train.resources.memory"}},
		{"more CPU than a node has", checkpointed(func(a *CheckpointedJobArgs) { a.Resources.CPU = "32" }), []string{"train.resources.cpu"}},
		{"whole GPUs from a MIG pool", checkpointed(func(a *CheckpointedJobArgs) { a.Pool = migPool() }), []string{"exposes MIG instances (nvidia.com/mig-1g.10gb)"}},
		{"CPU not a quantity", checkpointed(func(a *CheckpointedJobArgs) { a.Resources.CPU = "four" }), []string{"train.resources.cpu"}},
		{"memory missing", checkpointed(func(a *CheckpointedJobArgs) { a.Resources.Memory = "" }), []string{"train.resources.memory: is required"}},
		{"missing namespace, team and image", checkpointed(func(a *CheckpointedJobArgs) { a.Namespace, a.Team, a.Image = nil, "", "" }),
			[]string{"train.namespace: is required", "train.team: is required", "train.image: is required"}},
		{"name too long", checkpointed(func(a *CheckpointedJobArgs) { a.Name = strings.Repeat("a", 64) }), []string{"train.name"}},
		{"name not DNS", checkpointed(func(a *CheckpointedJobArgs) { a.Name = "Train_1" }), []string{"train.name"}},
		{"reserved env", checkpointed(func(a *CheckpointedJobArgs) {
			a.Env = map[string]string{"CHECKPOINT_DIR": "/x", "NCCL_IB_DISABLE": "0", "bad=name": "x"}
		}), []string{`train.env["CHECKPOINT_DIR"]: CHECKPOINT_DIR is set by aksml; use checkpointDir`, `train.env["NCCL_IB_DISABLE"]`, `train.env["bad=name"]`}},
		{"reserved labels", checkpointed(func(a *CheckpointedJobArgs) {
			a.Labels = map[string]string{"kueue.x-k8s.io/queue-name": "other", "aksml.io/metrics": "true", "training-job": "x", "ok": "bad value"}
		}), []string{`train.labels["kueue.x-k8s.io/queue-name"]`, `train.labels["aksml.io/metrics"]`, `train.labels["training-job"]`, `train.labels["ok"]: "bad value" is not a valid label value`}},
		{"unknown scheduler", checkpointed(func(a *CheckpointedJobArgs) { a.Scheduler = "slurm" }), []string{`train.scheduler: "slurm" is not supported`}},
		{"CPU job with Kueue and no queue", checkpointed(func(a *CheckpointedJobArgs) {
			a.Pool, a.Resources.GPUs, a.Scheduler = nil, 0, SchedulerKueue
		}), []string{"train.queueName: is required", "CPU flavour"}},
		{"await without timeout", checkpointed(func(a *CheckpointedJobArgs) { a.Await = true }), []string{"train.awaitTimeoutSeconds: is required"}},
		{"await too long", checkpointed(func(a *CheckpointedJobArgs) { a.Await, a.AwaitTimeoutSeconds = true, 7200 }), []string{"train.awaitTimeoutSeconds: 7200 s is too long"}},
		{"timeout without await", checkpointed(func(a *CheckpointedJobArgs) { a.AwaitTimeoutSeconds = 60 }), []string{"train.awaitTimeoutSeconds: is set but await is false"}},
		{"bad exit codes", checkpointed(func(a *CheckpointedJobArgs) { a.NonRetryableExitCodes = []int{0, 3, 3} }),
			[]string{"train.nonRetryableExitCodes[0]", "train.nonRetryableExitCodes[2]: exit code 3 is listed twice"}},
		{"metrics port out of range", checkpointed(func(a *CheckpointedJobArgs) { a.MetricsPort = 70000 }), []string{"train.metricsPort"}},
		{"data dir inside checkpoint dir", checkpointed(func(a *CheckpointedJobArgs) { a.DataPVC, a.DataDir = "datasets", "/checkpoints/data" }), []string{"train.dataDir"}},
		{"checkpoint dir in /dev/shm", checkpointed(func(a *CheckpointedJobArgs) { a.CheckpointDir = "/dev/shm/ckpt" }), []string{"train.checkpointDir"}},
		{"relative checkpoint dir", checkpointed(func(a *CheckpointedJobArgs) { a.CheckpointDir = "checkpoints" }), []string{"train.checkpointDir"}},
		{"negative backoff limit", checkpointed(func(a *CheckpointedJobArgs) { a.BackoffLimit = -1 }), []string{"train.backoffLimit"}},

		// IndexedJob.
		{"indexed job valid", indexed(func(a *IndexedJobArgs) {}), nil},
		{"no shards", indexed(func(a *IndexedJobArgs) { a.Completions = 0 }), []string{"shards.completions"}},
		{"parallelism above completions", indexed(func(a *IndexedJobArgs) { a.Parallelism = 5 }), []string{"shards.parallelism"}},
		{"max failed indexes above completions", indexed(func(a *IndexedJobArgs) { a.MaxFailedIndexes = 5 }), []string{"shards.maxFailedIndexes"}},
		{"relative shard manifest", indexed(func(a *IndexedJobArgs) { a.ShardManifest = "shards.txt" }), []string{"shards.shardManifest"}},
		{"name too long for pod hostnames", indexed(func(a *IndexedJobArgs) { a.Completions, a.Name = 100000, strings.Repeat("a", 58) }), []string{"shards.name"}},

		// MIGTrial.
		{"MIG trial valid", migTrial(func(a *MIGTrialArgs) {}), nil},
		{"MIG trial on a non-MIG pool", migTrial(func(a *MIGTrialArgs) { a.Pool = a100Pool() }),
			[]string{`trial.pool.mig: pool "a100" does not partition its GPUs with MIG`}},
		{"MIG trial without a pool", migTrial(func(a *MIGTrialArgs) { a.Pool = nil }), []string{"trial.pool: is required"}},
		{"MIG trial asking whole GPUs", migTrial(func(a *MIGTrialArgs) { a.Resources.GPUs = 1 }), []string{"trial.resources.gpus"}},
		{"more MIG instances than a node has", migTrial(func(a *MIGTrialArgs) { a.MIGDevices = 8 }), []string{"trial.migDevices: 8 instances of nvidia.com/mig-1g.10gb"}},
		{"MIG trial shm above memory", migTrial(func(a *MIGTrialArgs) { a.ShmSize = "8Gi" }), []string{"trial.shmSize"}},

		// PyTorchJob.
		{"PyTorchJob valid", pytorch(func(a *PyTorchJobArgs) {}), nil},
		{"replica and GPU count mismatch", pytorch(func(a *PyTorchJobArgs) { a.TotalGPUs = 3 }),
			[]string{"pt.totalGPUs: 3 GPUs requested but 2 GPU replicas × 1 GPUs per replica = 2"}},
		{"GPUs per replica above the node", pytorch(func(a *PyTorchJobArgs) { a.Resources.GPUs, a.TotalGPUs = 2, 4 }), []string{"pt.resources.gpus"}},
		{"four GPUs per replica on a four-GPU node", pytorch(func(a *PyTorchJobArgs) {
			a.Pool, a.Resources, a.TotalGPUs = a100x4Pool(), Resources{CPU: "90", Memory: "800Gi", GPUs: 4}, 8
		}), nil},
		{"NCCL_IB_DISABLE=0 on a non-RDMA SKU", pytorch(func(a *PyTorchJobArgs) { a.NCCL.IBDisable = "0" }),
			[]string{`pt.nccl.ibDisable: NCCL_IB_DISABLE=0 needs an RDMA-capable SKU`, "Standard_NC24ads_A100_v4 has no InfiniBand"}},
		{"NCCL_IB_DISABLE=0 on an RDMA SKU", pytorch(func(a *PyTorchJobArgs) {
			a.Pool, a.Resources, a.TotalGPUs, a.NCCL.IBDisable = nd96Pool(), Resources{CPU: "90", Memory: "800Gi", GPUs: 8}, 16, "0"
		}), nil},
		{"NCCL_IB_DISABLE not 0 or 1", pytorch(func(a *PyTorchJobArgs) { a.NCCL.IBDisable = "yes" }), []string{"pt.nccl.ibDisable"}},
		{"NCCL_DEBUG unknown", pytorch(func(a *PyTorchJobArgs) { a.NCCL.Debug = "LOUD" }), []string{"pt.nccl.debug"}},
		{"NCCL ifname invalid", pytorch(func(a *PyTorchJobArgs) { a.NCCL.SocketIfname = "eth 0" }), []string{"pt.nccl.socketIfname"}},
		{"multi-replica without /dev/shm", pytorch(func(a *PyTorchJobArgs) { a.ShmSize = ShmDisabled }), []string{"pt.shmSize: multi-replica training needs"}},
		{"no replicas", pytorch(func(a *PyTorchJobArgs) { a.Replicas = -1 }), []string{"pt.replicas"}},
		{"no GPUs per replica", pytorch(func(a *PyTorchJobArgs) { a.Resources.GPUs, a.TotalGPUs = 0, 0 }), []string{"pt.resources.gpus"}},
		{"unknown clean pod policy", pytorch(func(a *PyTorchJobArgs) { a.CleanPodPolicy = "Sometimes" }), []string{"pt.cleanPodPolicy"}},
		{"bad egress CIDR", pytorch(func(a *PyTorchJobArgs) { a.AllowEgressCIDRs = []string{"10.0.8.0"} }), []string{"pt.allowEgressCIDRs[0]"}},
		{"serving workload on spot", pytorch(func(a *PyTorchJobArgs) {
			a.Pool = with(a.Pool, func(s *gpupool.Spec) { s.Priority, s.Workload = gpupool.PrioritySpot, gpupool.WorkloadInference })
		}), []string{"pt.pool.workload: pool \"a100\" is for real-time inference serving"}},
		{"no pool", pytorch(func(a *PyTorchJobArgs) { a.Pool = nil }), []string{"pt.pool: is required"}},
		{"Kubeflow name starting with a digit", pytorch(func(a *PyTorchJobArgs) { a.Name = "1st-run" }), []string{"pt.name", "must start with a letter"}},
		{"Kubeflow name too long for its Services", pytorch(func(a *PyTorchJobArgs) { a.Name = strings.Repeat("a", 55) }), []string{"pt.name", "at most 54"}},
		{"Kubeflow name at the limit", pytorch(func(a *PyTorchJobArgs) { a.Name = strings.Repeat("a", 54) }), nil},

		// TFJob.
		{"TFJob valid", tf(func(a *TFJobArgs) {}), nil},
		{"TF chief not counted", tf(func(a *TFJobArgs) { a.Chief = 1 }), []string{"tf.totalGPUs: 2 GPUs requested but 3 GPU replicas"}},
		{"TF name starting with a digit", tf(func(a *TFJobArgs) { a.Name = "9tf" }), []string{"tf.name"}},
		{"TF two chiefs", tf(func(a *TFJobArgs) { a.Chief, a.TotalGPUs = 2, 4 }), []string{"tf.chief"}},
		{"TF parameter servers without resources", tf(func(a *TFJobArgs) { a.PS = 1 }), []string{"tf.psResources.cpu: is required", "tf.psResources.memory: is required"}},
		{"TF parameter servers with GPUs", tf(func(a *TFJobArgs) { a.PS, a.PSResources = 1, Resources{CPU: "4", Memory: "16Gi", GPUs: 1} }), []string{"tf.psResources.gpus"}},
		{"TF parameter servers too small for /dev/shm", tf(func(a *TFJobArgs) { a.PS, a.PSResources = 1, Resources{CPU: "4", Memory: "8Gi"} }), []string{"tf.psResources.memory"}},

		// ScheduledScoring.
		{"scoring valid", scoring(func(a *ScheduledScoringArgs) {}), nil},
		{"scoring macro schedule", scoring(func(a *ScheduledScoringArgs) { a.Schedule = "@daily" }), nil},
		{"scoring requests a GPU", scoring(func(a *ScheduledScoringArgs) { a.Resources.GPUs = 1 }), []string{"nightly.resources.gpus: scheduled scoring runs on CPU nodes and may not request nvidia.com/gpu"}},
		{"scoring selects GPU nodes", scoring(func(a *ScheduledScoringArgs) { a.NodeSelector = map[string]string{"accelerator": "nvidia"} }), []string{`nightly.nodeSelector["accelerator"]`}},
		{"schedule with a time zone", scoring(func(a *ScheduledScoringArgs) { a.Schedule = "CRON_TZ=UTC 0 2 * * *" }), []string{"nightly.schedule", "put the zone in timeZone"}},
		{"schedule not cron", scoring(func(a *ScheduledScoringArgs) { a.Schedule = "every night" }), []string{"nightly.schedule"}},
		{"unknown time zone", scoring(func(a *ScheduledScoringArgs) { a.TimeZone = "Mars/Olympus_Mons" }), []string{"nightly.timeZone"}},
		{"unknown concurrency policy", scoring(func(a *ScheduledScoringArgs) { a.ConcurrencyPolicy = "Sometimes" }), []string{"nightly.concurrencyPolicy"}},
		{"CronJob name too long", scoring(func(a *ScheduledScoringArgs) { a.Name = strings.Repeat("a", 53) }), []string{"nightly.name", "at most 52"}},
		{"scoring with Kueue and no queue", scoring(func(a *ScheduledScoringArgs) { a.Scheduler = SchedulerKueue }), []string{"nightly.queueName: is required"}},

		// FineTuningWorkspace.
		{"workspace valid", kaito(func(a *FineTuningWorkspaceArgs) {}), nil},
		{"KAITO instance type not in the catalogue", kaito(func(a *FineTuningWorkspaceArgs) { a.InstanceType = "Standard_D4s_v5" }),
			[]string{"ws.instanceType: Standard_D4s_v5 is not a GPU SKU in the catalogue"}},
		{"KAITO NV-series", kaito(func(a *FineTuningWorkspaceArgs) { a.InstanceType = "Standard_NV6" }), []string{"ws.instanceType", "visualisation only"}},
		{"KAITO instance type case", kaito(func(a *FineTuningWorkspaceArgs) { a.InstanceType = "standard_nc24ads_a100_v4" }), []string{"ws.instanceType", "written exactly"}},
		{"KAITO no instance type", kaito(func(a *FineTuningWorkspaceArgs) { a.InstanceType = "" }), []string{"ws.instanceType: is required"}},
		{"KAITO empty URLs", kaito(func(a *FineTuningWorkspaceArgs) { a.InputURLs = nil }), []string{"ws.inputURLs: is required"}},
		{"KAITO non-https URL", kaito(func(a *FineTuningWorkspaceArgs) { a.InputURLs = []string{"http://example.com/data.json"} }), []string{"ws.inputURLs[0]", "not an https URL"}},
		{"KAITO no output", kaito(func(a *FineTuningWorkspaceArgs) { a.OutputImage, a.OutputImagePushSecret = "", "" }), []string{"ws.outputImage: is required"}},
		{"KAITO two outputs", kaito(func(a *FineTuningWorkspaceArgs) { a.OutputPVC = "model-checkpoints" }), []string{"ws.outputPVC: set either"}},
		{"KAITO image without push secret", kaito(func(a *FineTuningWorkspaceArgs) { a.OutputImagePushSecret = "" }), []string{"ws.outputImagePushSecret: is required"}},
		{"KAITO unknown method", kaito(func(a *FineTuningWorkspaceArgs) { a.Method = "full" }), []string{"ws.method"}},
		{"KAITO no preset", kaito(func(a *FineTuningWorkspaceArgs) { a.Preset = "" }), []string{"ws.preset: is required"}},
		{"KAITO missing namespace and team", kaito(func(a *FineTuningWorkspaceArgs) { a.Namespace, a.Team = nil, "" }), []string{"ws.namespace", "ws.team"}},
		{"KAITO await without timeout", kaito(func(a *FineTuningWorkspaceArgs) { a.Await = true }), []string{"ws.awaitTimeoutSeconds"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.errs().ToAggregate()
			if len(tt.wantErr) == 0 {
				require.NoError(t, err)
				return
			}
			requireErrs(t, err, tt.wantErr...)
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
	requireErrs(t, err, "invalid configuration: 4 problems:", "pt.image", "pt.shmSize", "pt.totalGPUs", "pt.nccl.ibDisable")
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
	t4 := resolved(gpupool.Spec{Name: "t4", VMSize: "Standard_NC4as_T4_v3", Workload: gpupool.WorkloadTraining, MaxCount: 2})
	tests := []struct {
		name string
		args func(a *CheckpointedJobArgs)
		want string // "" valid
	}{
		// NC4as_T4_v3: 4 vCPUs, 3860m allocatable; 28 GiB, 28672-5050-100 MiB.
		{"cpu equal to the VM's vCPUs", func(a *CheckpointedJobArgs) { a.Resources.CPU = "4" }, "train.resources.cpu: 4 CPUs can never be scheduled on a Standard_NC4as_T4_v3 node: of its 4 vCPUs it offers 3860m"},
		{"cpu equal to allocatable", func(a *CheckpointedJobArgs) { a.Resources.CPU = "3860m" }, "request less than 3860m"},
		{"cpu below allocatable", func(a *CheckpointedJobArgs) { a.Resources.CPU = "3500m" }, ""},
		{"memory equal to the VM's", func(a *CheckpointedJobArgs) { a.Resources.Memory = "28Gi" }, "train.resources.memory: 28Gi can never be scheduled on a Standard_NC4as_T4_v3 node: of its 28Gi it offers 23522Mi"},
		{"memory below allocatable", func(a *CheckpointedJobArgs) { a.Resources.Memory = "20Gi" }, ""},
		{"job on a managed pool at count 0", func(a *CheckpointedJobArgs) {
			zero := 0
			a.Pool = with(t4, func(s *gpupool.Spec) { s.GPUStack, s.MaxCount, s.Count = gpupool.GPUStackManaged, 0, &zero })
		}, `train.resources.gpus: 1 pods × 1 GPUs = 1 nvidia.com/gpu at once, but pool "t4" holds 0 at most (count 0); lower the replicas or GPUs, or raise pool.count`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &CheckpointedJobArgs{Common: common(), Pool: t4}
			a.Resources = Resources{CPU: "3", Memory: "16Gi", GPUs: 1}
			tt.args(a)
			a.Default("train")
			err := a.Validate(field.NewPath("train")).ToAggregate()
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tt.want)
		})
	}

	// A PyTorchJob gang larger than the pool, and one that fits.
	a := &PyTorchJobArgs{Common: common(), Distributed: Distributed{Pool: t4, TotalGPUs: 3}, Replicas: 3}
	a.Resources = Resources{CPU: "3", Memory: "16Gi", GPUs: 1}
	a.Default("pt")
	require.ErrorContains(t, a.Validate(field.NewPath("pt")).ToAggregate(), `pt.replicas: 3 GPU replicas × 1 GPUs = 3 nvidia.com/gpu at once, but pool "t4" holds 2 at most (maxCount 2)`)
	a.Replicas, a.TotalGPUs = 2, 2
	require.NoError(t, a.Validate(field.NewPath("pt")).ToAggregate())
}
