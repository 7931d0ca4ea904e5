package workloads

import (
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/apiextensions"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
)

// TFJobArgs describe a distributed Kubeflow TFJob (SPEC C7.4; AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops)
// "Run a TFJob"): Workers GPU workers (MultiWorkerMirroredStrategy),
// and for parameter-server training a Chief and PS replicas. Chief and
// Workers get Resources (GPUs included) on the pool; PS replicas are
// CPU-only and run off the GPU pool with PSResources.
type TFJobArgs struct {
	Common
	Distributed
	// Workers is the number of GPU workers. Default 2 (AKS MLOps best practices).
	Workers int
	// Chief is 1 to add a Chief replica (parameter-server strategy), else 0.
	Chief int
	// PS is the number of CPU parameter servers. Default 0.
	PS int
	// PSResources are the CPU and memory of each PS replica; required when
	// PS > 0. GPUs must be 0.
	PSResources Resources
}

// Default fills unset fields with their documented defaults.
func (a *TFJobArgs) Default(name string) {
	a.Distributed.applyDefaults()
	a.Common.applyDefaults(name, commonDefaults{gpu: true, checkpoint: true, shm: DefaultShmSize})
	a.Workers = orDefault(a.Workers, DefaultTFWorkers)
}

// Validate checks defaulted args and returns every problem.
func (a *TFJobArgs) Validate(p field.Path) field.ErrorList {
	errs := a.Common.validate(p, true, kubeflowMaxName(max(a.Workers, a.PS)))
	errs = append(errs, validateKubeflowName(a.Name, p.Child("name"))...)
	if a.Workers < 1 {
		errs = append(errs, field.Invalid(p.Child("workers"), "%d must be at least 1", a.Workers))
	}
	if a.Chief != 0 && a.Chief != 1 {
		errs = append(errs, field.Invalid(p.Child("chief"), "%d is not 0 or 1; a TFJob has at most one Chief", a.Chief))
	}
	if a.PS < 0 {
		errs = append(errs, field.Invalid(p.Child("ps"), "%d is negative", a.PS))
	}
	if a.PS > 0 {
		pp := p.Child("psResources")
		_, cerrs := validateQuantity(a.PSResources.CPU, `"4"`, pp.Child("cpu"))
		errs = append(errs, cerrs...)
		mem, merrs := validateQuantity(a.PSResources.Memory, `"16Gi"`, pp.Child("memory"))
		errs = append(errs, merrs...)
		if a.PSResources.GPUs != 0 {
			errs = append(errs, field.Forbidden(pp.Child("gpus"), "parameter servers run on CPU; leave gpus 0"))
		}
		if shm, ok := parseQuantity(a.ShmSize); ok && len(merrs) == 0 && a.ShmSize != ShmDisabled {
			if minProc, _ := parseQuantity(MinProcessMemory); shm > mem-minProc {
				errs = append(errs, field.Invalid(pp.Child("memory"), "%s does not hold /dev/shm of %s plus %s for the process; raise it or lower shmSize", a.PSResources.Memory, a.ShmSize, MinProcessMemory))
			}
		}
	}
	gpuReplicas := a.Chief + a.Workers
	return append(errs, a.Distributed.validate(&a.Common, gpuReplicas, gpuReplicas+a.PS, p)...)
}

// tfJobArgs maps defaulted args to the TFJob's provider arguments.
func tfJobArgs(a *TFJobArgs) *apiextensions.CustomResourceArgs {
	gpu := replicaPod(&a.Common, &a.Distributed, kindTFJob, "tensorflow", false)
	tmpl := podTemplate(gpu)
	replicas := map[string]any{"Worker": replicaSpec(a.Workers, tmpl)}
	if a.Chief == 1 {
		replicas["Chief"] = replicaSpec(1, tmpl)
	}
	if a.PS > 0 {
		ps := gpu
		ps.resources = a.PSResources
		ps.accelerator, ps.acceleratorCount = "", 0
		ps.nodeSelector, ps.tolerations = nil, nil
		replicas["PS"] = replicaSpec(a.PS, podTemplate(ps))
	}
	return kubeflowArgs(&a.Common, &a.Distributed, "TFJob", kindTFJob, "tfReplicaSpecs", replicas, a.Chief+a.Workers+a.PS)
}

// TFJob is a distributed TensorFlow training job with its NetworkPolicy.
type TFJob struct {
	pulumi.ResourceState
	// Object is the TFJob's name (and its pods' training-job label) and
	// namespace.
	Object
}

var tfJobKind = kind[TFJobArgs, *TFJobArgs]{
	token: TFJobType, what: "TFJobArgs", children: kubeflowChildren("tfjob", tfJobArgs),
}

// NewTFJob registers a TFJob (token aksml:workloads:TFJob), its
// kubeflow.org/v1 TFJob `name-tfjob` and NetworkPolicy `name-netpol`.
func NewTFJob(ctx *pulumi.Context, name string, args *TFJobArgs, opts ...pulumi.ResourceOption) (*TFJob, error) {
	return newWorkload(ctx, tfJobKind, name, args, &TFJob{}, opts)
}
