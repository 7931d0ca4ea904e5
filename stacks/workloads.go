package stacks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/cluster"
	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/observability"
	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/storage"
	"github.com/aksml/aksml/components/tenancy"
	"github.com/aksml/aksml/components/workloads"
)

// WorkloadKind is the component a declared workload is built with.
type WorkloadKind string

// Valid workload kinds (SPEC C7).
const (
	KindCheckpointedJob     WorkloadKind = "CheckpointedJob"
	KindIndexedJob          WorkloadKind = "IndexedJob"
	KindScheduledScoring    WorkloadKind = "ScheduledScoring"
	KindPyTorchJob          WorkloadKind = "PyTorchJob"
	KindTFJob               WorkloadKind = "TFJob"
	KindFineTuningWorkspace WorkloadKind = "FineTuningWorkspace"
	KindMIGTrial            WorkloadKind = "MIGTrial"
)

// WorkloadKinds lists the valid kinds.
var WorkloadKinds = []WorkloadKind{KindCheckpointedJob, KindIndexedJob, KindScheduledScoring, KindPyTorchJob, KindTFJob, KindFineTuningWorkspace, KindMIGTrial}

// WorkloadSpec is one entry of `aksml:workloads`: an example workload a
// team runs, built with the matching components/workloads component. The
// team's namespace, queue, priority class and checkpoint claim, the stack's
// scheduler and the prod digest rule are filled in by the stack.
type WorkloadSpec struct {
	// Kind is the component: CheckpointedJob, IndexedJob, ScheduledScoring,
	// PyTorchJob, TFJob, FineTuningWorkspace or MIGTrial. Required.
	Kind WorkloadKind `json:"kind"`
	// Name is the object name (DNS-1123 label). Required.
	Name string `json:"name"`
	// Team runs the workload in its namespace and queue. Required; must be
	// one of aksml:teams.
	Team string `json:"team"`
	// Pool is the GPU pool (aksml:gpuPools name) the workload runs on.
	// Required for GPU kinds; empty for ScheduledScoring (CPU nodes).
	Pool string `json:"pool,omitempty"`
	// Image is the container image. Required except for
	// FineTuningWorkspace; pinned by digest in prod.
	Image string `json:"image,omitempty"`
	// Command and Args override the image entrypoint and arguments.
	Command []string `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	// Resources are the per-pod cpu, memory and gpus (per replica for
	// PyTorchJob/TFJob); requests == limits.
	Resources workloads.Resources `json:"resources,omitempty"`
	// ShmSize is the memory-backed /dev/shm size. Default 8Gi for GPU
	// training (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops)).
	ShmSize string `json:"shmSize,omitempty"`
	// Replicas is the PyTorchJob replica count (Master + Workers). Default 2.
	Replicas int `json:"replicas,omitempty"`
	// Workers is the TFJob worker count. Default 2.
	Workers int `json:"workers,omitempty"`
	// Completions is the IndexedJob shard count. Required for IndexedJob.
	Completions int `json:"completions,omitempty"`
	// NCCL overrides the NCCL settings of PyTorchJob/TFJob (AKS MLOps best practices
	// defaults: eth0, IB disabled, INFO).
	NCCL workloads.NCCL `json:"nccl,omitempty"`
	// Schedule is the ScheduledScoring cron schedule, e.g. "0 2 * * *".
	Schedule string `json:"schedule,omitempty"`
	// MetricsPort exposes /metrics for the training PodMonitor. Default 0.
	MetricsPort int `json:"metricsPort,omitempty"`
	// Env are extra environment variables.
	Env map[string]string `json:"env,omitempty"`
	// Priority names a level of aksml:scheduler.priorities: the pods'
	// PriorityClass and, with Kueue, the Workload's WorkloadPriorityClass.
	// Default training-batch (workloads.DefaultPriorityClass), which must
	// then be a defined level. Not for FineTuningWorkspace (a KAITO
	// Workspace has no priority).
	Priority string `json:"priority,omitempty"`
	// ExpectedDuration is how long one run should take, a duration in whole
	// minutes ("4h", "90m"), 5m to 720h: an active run older than this
	// raises WorkloadDurationOverrun (a rule per workload in both alert
	// routes). Default none (no rule). Job kinds only (CheckpointedJob,
	// IndexedJob, MIGTrial, ScheduledScoring per run); see
	// components/observability for why PyTorchJob, TFJob and
	// FineTuningWorkspace are not supported.
	ExpectedDuration string `json:"expectedDuration,omitempty"`
	// InstanceType, Preset, InputURLs, OutputImage and OutputImagePushSecret
	// configure a FineTuningWorkspace (KAITO, AKS MLOps best practices).
	InstanceType          string   `json:"instanceType,omitempty"`
	Preset                string   `json:"preset,omitempty"`
	InputURLs             []string `json:"inputURLs,omitempty"`
	OutputImage           string   `json:"outputImage,omitempty"`
	OutputImagePushSecret string   `json:"outputImagePushSecret,omitempty"`
}

// workloadTarget is what the stack fills into every workload.
type workloadTarget struct {
	common workloads.Common
	pool   *gpupool.Spec
}

// target resolves a workload's team, pool and queue against the config.
func (c *Config) target(w WorkloadSpec, ns pulumi.StringInput, provider *kubernetes.Provider) workloadTarget {
	t := workloadTarget{common: workloads.Common{
		Provider:      provider,
		Namespace:     ns,
		Name:          w.Name,
		Team:          w.Team,
		Image:         w.Image,
		RequireDigest: c.DigestRequired(),
		Command:       w.Command,
		Args:          w.Args,
		Resources:     w.Resources,
		ShmSize:       w.ShmSize,
		Env:           w.Env,
		MetricsPort:   w.MetricsPort,
		PriorityClass: w.Priority,
	}}
	if c.Cluster != nil {
		// components/tenancy federates this service account with the
		// team's managed identity on AKS.
		t.common.ServiceAccountName = tenancy.TrainingServiceAccount
		t.common.WorkloadIdentity = true
	}
	switch c.Scheduler.System {
	case queues.SystemVolcano:
		t.common.Scheduler = workloads.SchedulerVolcano
		t.common.QueueName = queues.ClusterQueueName(w.Team)
	case queues.SystemNone:
		t.common.Scheduler = workloads.SchedulerNone
	default:
		t.common.Scheduler = workloads.SchedulerKueue
		t.common.QueueName = queues.LocalQueueName
	}
	for i := range c.GPUPools {
		if c.GPUPools[i].Name == w.Pool {
			p := c.GPUPools[i]
			t.pool = &p
		}
	}
	return t
}

// distributed fills the Distributed settings of a PyTorchJob or TFJob. The
// total GPU count is derived from the replicas, so config cannot disagree
// with itself; the component still checks the GPUs fit one node.
func (c *Config) distributed(w WorkloadSpec, pool *gpupool.Spec, replicas, def int) workloads.Distributed {
	if replicas == 0 {
		replicas = def
	}
	return workloads.Distributed{Pool: pool, TotalGPUs: replicas * w.Resources.GPUs, NCCL: w.NCCL}
}

// workloadArgs is the built args of one workload, ready to validate or
// register.
type workloadArgs interface {
	Validate(field.Path) field.ErrorList
}

// buildWorkload maps a WorkloadSpec to its component's defaulted args;
// provider may be nil (validation only).
func (c *Config) buildWorkload(w WorkloadSpec, ns pulumi.StringInput, provider *kubernetes.Provider) workloadArgs {
	t := c.target(w, ns, provider)
	common := t.common
	switch w.Kind {
	case KindCheckpointedJob:
		common.CheckpointPVC = storage.CheckpointsPVCName
		a := &workloads.CheckpointedJobArgs{Common: common, Pool: t.pool}
		a.Default(w.Name)
		return a
	case KindIndexedJob:
		a := &workloads.IndexedJobArgs{Common: common, Pool: t.pool, Completions: w.Completions}
		a.Default(w.Name)
		return a
	case KindScheduledScoring:
		a := &workloads.ScheduledScoringArgs{Common: common, Schedule: w.Schedule}
		a.Default(w.Name)
		return a
	case KindPyTorchJob:
		common.CheckpointPVC = storage.CheckpointsPVCName
		a := &workloads.PyTorchJobArgs{Common: common, Distributed: c.distributed(w, t.pool, w.Replicas, workloads.DefaultPyTorchReplicas), Replicas: w.Replicas}
		a.Default(w.Name)
		return a
	case KindTFJob:
		common.CheckpointPVC = storage.CheckpointsPVCName
		a := &workloads.TFJobArgs{Common: common, Distributed: c.distributed(w, t.pool, w.Workers, workloads.DefaultTFWorkers), Workers: w.Workers}
		a.Default(w.Name)
		return a
	case KindMIGTrial:
		a := &workloads.MIGTrialArgs{Common: common, Pool: t.pool}
		a.Default(w.Name)
		return a
	case KindFineTuningWorkspace:
		a := &workloads.FineTuningWorkspaceArgs{
			Provider: provider, Namespace: ns, Name: w.Name, Team: w.Team, InstanceType: w.InstanceType, Preset: w.Preset,
			Method: workloads.TuningQLoRA, InputURLs: w.InputURLs, OutputImage: w.OutputImage, OutputImagePushSecret: w.OutputImagePushSecret,
		}
		a.Default(w.Name)
		return a
	}
	return nil
}

// validateWorkloads checks each declared workload against the teams and
// pools, then with its component's own validation.
func (c *Config) validateWorkloads() field.ErrorList {
	var errs field.ErrorList
	teams := map[string]bool{}
	for _, t := range c.Teams {
		teams[t.Name] = true
	}
	pools := map[string]bool{}
	for _, p := range c.GPUPools {
		pools[p.Name] = true
	}
	seen := map[string]int{}
	for i, w := range c.Workloads {
		p := key("workloads").Index(i)
		if !slices.Contains(WorkloadKinds, w.Kind) {
			errs = append(errs, field.NotSupported(p.Child("kind"), w.Kind, WorkloadKinds))
			continue
		}
		if !teams[w.Team] {
			errs = append(errs, field.Invalid(p.Child("team"), "%q is not one of aksml:teams; declare the team or fix the name", w.Team))
		}
		if w.Pool != "" && !pools[w.Pool] {
			errs = append(errs, field.Invalid(p.Child("pool"), "%q is not one of aksml:gpuPools", w.Pool))
			continue
		}
		errs = append(errs, c.validatePriority(w, p.Child("priority"))...)
		id := w.Team + "/" + w.Name
		if j, dup := seen[id]; dup {
			errs = append(errs, field.Invalid(p.Child("name"), "%q is already used in team %q by %s", w.Name, w.Team, key("workloads").Index(j)))
		}
		seen[id] = i
		errs = append(errs, c.validateOperator(w, p)...)
		errs = append(errs, validateExpectedDuration(w, p.Child("expectedDuration"))...)
		errs = append(errs, c.buildWorkload(w, pulumi.String(w.Team), nil).Validate(p)...)
	}
	if c.TrainingOperator.Enabled && c.ExistingCluster != nil && c.ExistingCluster.Has(cluster.InstalledTrainingOperator) {
		errs = append(errs, field.Invalid(key("trainingOperator").Child("enabled"), "aksml:existingCluster.installed says the cluster already runs the Training Operator; two installs would fight over its CRDs and webhook, so set enabled: false or remove trainingOperator from installed"))
	}
	return errs
}

// durationKinds are the workload kinds whose runs are batch/v1 Jobs, which
// kube-state-metrics reports with a start time (kube_job_status_start_time).
var durationKinds = []WorkloadKind{KindCheckpointedJob, KindIndexedJob, KindMIGTrial, KindScheduledScoring}

// validateExpectedDuration checks a workload's expectedDuration: its
// format and range, and that the kind runs as a Job whose start time
// kube-state-metrics exports.
func validateExpectedDuration(w WorkloadSpec, path field.Path) field.ErrorList {
	if w.ExpectedDuration == "" {
		return nil
	}
	if !slices.Contains(durationKinds, w.Kind) {
		return field.ErrorList{field.Invalid(path, "%s runs no batch/v1 Job, so no metric records when its run started (kube-state-metrics has no PyTorchJob, TFJob or KAITO Workspace start time, and replaced pods reset theirs); remove expectedDuration, or bound the run with the job's own deadline", w.Kind)}
	}
	_, errs := observability.ParseExpectedDuration(w.ExpectedDuration, path)
	return errs
}

// workloadDurations returns the expected durations of the declared
// workloads, for the WorkloadDurationOverrun rules. Invalid entries were
// rejected by Validate.
func (c *Config) workloadDurations() []observability.WorkloadDuration {
	var out []observability.WorkloadDuration
	for _, w := range c.Workloads {
		if w.ExpectedDuration == "" {
			continue
		}
		d, errs := observability.ParseExpectedDuration(w.ExpectedDuration, key("workloads"))
		if len(errs) > 0 {
			continue
		}
		out = append(out, observability.WorkloadDuration{Namespace: w.Team, Name: w.Name, CronJob: w.Kind == KindScheduledScoring, Expected: d})
	}
	return out
}

// validatePriority checks that a workload names a defined priority level
// (or leaves it unset while the default level is defined): a Job whose
// WorkloadPriorityClass does not exist stays suspended with nothing but a
// Kueue log line, and a Pod whose PriorityClass does not exist is rejected.
func (c *Config) validatePriority(w WorkloadSpec, path field.Path) field.ErrorList {
	levels := queues.PriorityNames(c.Scheduler.Priorities)
	if w.Kind == KindFineTuningWorkspace {
		if w.Priority != "" {
			return field.ErrorList{field.Invalid(path, "a FineTuningWorkspace (KAITO Workspace) has no priority: KAITO creates and schedules its own tuning job; remove priority")}
		}
		return nil
	}
	switch {
	case w.Priority == "" && !slices.Contains(levels, workloads.DefaultPriorityClass):
		return field.ErrorList{field.Required(path, fmt.Sprintf("a priority level: the default %q is not in aksml:scheduler.priorities; use one of %s", workloads.DefaultPriorityClass, strings.Join(levels, ", ")))}
	case w.Priority != "" && !slices.Contains(levels, w.Priority):
		return field.ErrorList{field.Invalid(path, "%q is not a level of aksml:scheduler.priorities; use one of %s, or define the level", w.Priority, strings.Join(levels, ", "))}
	}
	return nil
}

// validateOperator checks that the operator whose custom resource the
// workload creates is installed, so that pulumi up never fails after the
// cluster exists for want of a CRD.
//
// KAITO: the managed cluster API aksml uses (containerservice 2024-10-01,
// the typed SDK's newest GA) has no aiToolchainOperatorProfile (published
// spec aks/stable/2024-10-01/managedClusters.json; it appears only in
// preview versions), and the KAITO Helm chart's node provisioner needs an
// Azure managed identity with a federated credential and a role on the
// cluster's resource group, which aksml does not create. So aksml cannot
// install KAITO honestly and accepts a FineTuningWorkspace only on an
// existing cluster that declares it in aksml:existingCluster.installed.
func (c *Config) validateOperator(w WorkloadSpec, p field.Path) field.ErrorList {
	switch w.Kind {
	case KindPyTorchJob, KindTFJob:
		if c.TrainingOperator.Enabled || (c.ExistingCluster != nil && c.ExistingCluster.Has(cluster.InstalledTrainingOperator)) {
			return nil
		}
		return field.ErrorList{field.Invalid(p.Child("kind"), "%s needs the Kubeflow Training Operator's CRDs, which aksml:trainingOperator.enabled is false and nothing else provides; set aksml:trainingOperator.enabled: true (aksml installs v1.8.1), or, on an existing cluster that already runs it, declare aksml:existingCluster.installed: [%s]", w.Kind, cluster.InstalledTrainingOperator)}
	case KindFineTuningWorkspace:
		if c.ExistingCluster != nil && c.ExistingCluster.Has(cluster.InstalledKAITO) {
			return nil
		}
		if c.ExistingCluster != nil {
			return field.ErrorList{field.Invalid(p.Child("kind"), "%s needs the KAITO operator (kaito.sh Workspace CRD); install KAITO on the cluster and declare aksml:existingCluster.installed: [%s], or remove the workload", w.Kind, cluster.InstalledKAITO)}
		}
		return field.ErrorList{field.Invalid(p.Child("kind"), "%s needs the KAITO operator, which aksml cannot install on a cluster it creates: the AKS API it uses (2024-10-01) has no aiToolchainOperatorProfile and the KAITO chart's node provisioner needs an Azure identity aksml does not create; remove the workload, or deploy it with aksml:existingCluster on a cluster that runs KAITO and declare aksml:existingCluster.installed: [%s]", w.Kind, cluster.InstalledKAITO)}
	}
	return nil
}

// workloads registers the declared example workloads in their teams'
// namespaces, after the queues (Kueue's webhooks and queues) and, for
// PyTorchJob and TFJob, after the Training Operator's CRDs.
func (p *platform) workloads(ctx *pulumi.Context) error {
	for _, w := range p.cfg.Workloads {
		ns := p.queues.Namespaces.MapIndex(pulumi.String(w.Team))
		name := w.Team + "-" + w.Name
		deps := p.queues.Resources()
		if p.operator != nil && (w.Kind == KindPyTorchJob || w.Kind == KindTFJob) {
			deps = append(deps[:len(deps):len(deps)], p.operator.Resources()...)
		}
		opt := pulumi.DependsOn(deps)
		var err error
		switch a := p.cfg.buildWorkload(w, ns, p.provider).(type) {
		case *workloads.CheckpointedJobArgs:
			_, err = workloads.NewCheckpointedJob(ctx, name, a, opt)
		case *workloads.IndexedJobArgs:
			_, err = workloads.NewIndexedJob(ctx, name, a, opt)
		case *workloads.ScheduledScoringArgs:
			_, err = workloads.NewScheduledScoring(ctx, name, a, opt)
		case *workloads.PyTorchJobArgs:
			_, err = workloads.NewPyTorchJob(ctx, name, a, opt)
		case *workloads.TFJobArgs:
			_, err = workloads.NewTFJob(ctx, name, a, opt)
		case *workloads.MIGTrialArgs:
			_, err = workloads.NewMIGTrial(ctx, name, a, opt)
		case *workloads.FineTuningWorkspaceArgs:
			_, err = workloads.NewFineTuningWorkspace(ctx, name, a, opt)
		default:
			err = fmt.Errorf("workload %s: unknown kind %q", w.Name, w.Kind)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
