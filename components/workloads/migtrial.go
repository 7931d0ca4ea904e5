package workloads

import (
	"fmt"
	batchv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/batch/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
)

// MIGTrialArgs describe one hyperparameter trial on a MIG instance (SPEC
// C7.6; AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) "Partition A100 and H100 GPUs with MIG": the
// mig-hyperparameter-trial Job). Resources default to the AKS MLOps best practices' cpu 2 and
// memory 8Gi; Resources.GPUs must stay 0 (the trial requests MIG devices).
type MIGTrialArgs struct {
	Common
	// Pool is the MIG-enabled GPU pool. Required; a pool without MIG is
	// refused.
	Pool *gpupool.Resolved
	// MIGDevices is the number of MIG instances (pool.MIGResourceName(),
	// e.g. nvidia.com/mig-1g.10gb) requested. Default 1 (AKS MLOps best practices).
	MIGDevices int
	// BackoffLimit is the trial's retry budget. Default 2 (AKS MLOps best practices).
	BackoffLimit int
	// ActiveDeadlineSeconds bounds the trial. Default 86400.
	ActiveDeadlineSeconds int
	// TTLSecondsAfterFinished removes the finished Job. Default 86400.
	TTLSecondsAfterFinished int
	// TerminationGracePeriodSeconds is the SIGTERM-to-SIGKILL time. Default 120.
	TerminationGracePeriodSeconds int
	// NonRetryableExitCodes fail the trial at once. Default none; 1..255.
	NonRetryableExitCodes []int
}

// Default fills unset fields with their documented defaults.
func (a *MIGTrialArgs) Default(name string) {
	a.applyDefaults(name, commonDefaults{gpu: true, shm: DefaultMIGTrialShmSize})
	if a.Resources.CPU == "" {
		a.Resources.CPU = DefaultMIGTrialCPU
	}
	if a.Resources.Memory == "" {
		a.Resources.Memory = DefaultMIGTrialMemory
	}
	a.MIGDevices = orDefault(a.MIGDevices, DefaultMIGDevices)
	a.BackoffLimit = orDefault(a.BackoffLimit, DefaultMIGTrialBackoffLimit)
	a.ActiveDeadlineSeconds = orDefault(a.ActiveDeadlineSeconds, DefaultActiveDeadlineSeconds)
	a.TTLSecondsAfterFinished = orDefault(a.TTLSecondsAfterFinished, DefaultTTLSecondsAfterFinished)
	a.TerminationGracePeriodSeconds = orDefault(a.TerminationGracePeriodSeconds, DefaultTerminationGracePeriodSeconds)
}

// Validate checks defaulted args and returns every problem.
func (a *MIGTrialArgs) Validate(p field.Path) field.ErrorList {
	errs := a.validate(p, true, 63)
	pp := p.Child("pool")
	errs = append(errs, validateTrainingPool(a.Pool, pp)...)
	if a.Pool != nil {
		if !a.Pool.MIGEnabled() {
			errs = append(errs, field.Invalid(pp.Child("mig"), "pool %q does not partition its GPUs with MIG; run the trial on a MIG pool (A100/H100 with mig.strategy Single or Mixed), or use CheckpointedJob for whole GPUs", a.Pool.Name))
		} else {
			_, perGPU := a.Pool.MIGDevicesPerGPU()
			if sku, ok := a.Pool.SKU(); ok && a.MIGDevices > perGPU*sku.GPUsPerNode {
				errs = append(errs, field.Invalid(p.Child("migDevices"), "%d instances of %s do not fit on one %s node (%d); lower migDevices", a.MIGDevices, a.Pool.MIGResourceName(), sku.VMSize, perGPU*sku.GPUsPerNode))
			}
		}
		errs = append(errs, validateGang(a.Pool, a.MIGDevices, fmt.Sprintf("%d MIG instances", a.MIGDevices), p.Child("migDevices"))...)
		errs = append(errs, validateFit(a.Pool, Resources{CPU: a.Resources.CPU, Memory: a.Resources.Memory}, p.Child("resources"))...)
	}
	if a.Resources.GPUs != 0 {
		errs = append(errs, field.Forbidden(p.Child("resources").Child("gpus"), "a MIG trial requests MIG instances, not whole GPUs; set migDevices and leave gpus 0"))
	}
	errs = append(errs, validatePositive(a.MIGDevices, p.Child("migDevices"))...)
	errs = append(errs, validateJobLifecycle(a.BackoffLimit, a.ActiveDeadlineSeconds, a.TTLSecondsAfterFinished, a.TerminationGracePeriodSeconds, p)...)
	errs = append(errs, validateExitCodes(a.NonRetryableExitCodes, p.Child("nonRetryableExitCodes"))...)
	return errs
}

// migNodeSelector selects nodes of a MIG pool whose layout is applied: the
// AKS MLOps best practices' accelerator=nvidia, nvidia.com/mig.config=<layout> and
// nvidia.com/mig.config.state=success when the MIG manager labels the
// nodes (DriverOnly or None stacks). With the Managed stack AKS partitions
// the GPUs itself and sets no such labels, so the trial selects the pool
// by name instead.
func migNodeSelector(pool *gpupool.Resolved) map[string]string {
	sel := map[string]string{gpupool.AcceleratorLabel: gpupool.AcceleratorValue}
	if layout, ok := pool.Labels()[gpupool.MIGConfigLabel]; ok {
		sel[gpupool.MIGConfigLabel] = layout
		sel[gpupool.MIGConfigStateLabel] = MIGConfigStateSuccess
		return sel
	}
	sel[gpupool.AgentPoolLabel] = pool.Name
	return sel
}

// migTrialArgs maps defaulted args to the Job's provider arguments.
func migTrialArgs(a *MIGTrialArgs) *batchv1.JobArgs {
	c := &a.Common
	workload := map[string]string{gpupool.WorkloadLabel: HyperparameterTuningWorkload}
	ps := podSpec{
		common:           c,
		kind:             kindMIGTrial,
		container:        "trial",
		resources:        a.Resources,
		accelerator:      a.Pool.MIGResourceName(),
		acceleratorCount: a.MIGDevices,
		nodeSelector:     migNodeSelector(a.Pool),
		tolerations:      a.Pool.Taints(),
		labels:           workload,
	}
	run := jobRun{a.BackoffLimit, a.ActiveDeadlineSeconds, a.TTLSecondsAfterFinished, a.TerminationGracePeriodSeconds, a.NonRetryableExitCodes}
	return batchJobArgs(c, kindMIGTrial, workload, 1, batchJob(ps, run, actionFailJob))
}

// MIGTrial is a hyperparameter-trial Job on a MIG instance.
type MIGTrial struct {
	pulumi.ResourceState
	// Object is the Job's name and namespace.
	Object
	// MIGResource is the extended resource requested, e.g. nvidia.com/mig-1g.10gb.
	MIGResource pulumi.StringOutput `pulumi:"migResource"`
}

// NewMIGTrial registers a MIGTrial (token aksml:workloads:MIGTrial) and its
// Job child `name-job`.
func NewMIGTrial(ctx *pulumi.Context, name string, args *MIGTrialArgs, opts ...pulumi.ResourceOption) (*MIGTrial, error) {
	c := &MIGTrial{}
	kind := kind[MIGTrialArgs, *MIGTrialArgs]{
		token: MIGTrialType, what: "MIGTrialArgs", children: jobChildren(migTrialArgs),
		outputs: func(a *MIGTrialArgs) pulumi.Map {
			c.MIGResource = pulumi.String(a.Pool.MIGResourceName()).ToStringOutput()
			return pulumi.Map{"migResource": c.MIGResource}
		},
	}
	return newWorkload(ctx, kind, name, args, c, opts)
}

func (a *MIGTrialArgs) targetPool() *gpupool.Resolved { return a.Pool }
