package workloads

import (
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/apiextensions"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
)

// PyTorchJobArgs describe a distributed Kubeflow PyTorchJob (SPEC C7.4;
// AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) "Run a PyTorchJob"): one Master and Replicas-1 Workers,
// each with Resources.GPUs GPUs, the NCCL baseline environment and a
// NetworkPolicy that lets the replicas talk to each other. The Kubeflow
// Training Operator must be installed (NewTrainingOperator).
type PyTorchJobArgs struct {
	Common
	Distributed
	// Replicas is the total replica count, Master included. Default 2 (AKS MLOps best practices).
	Replicas int
}

// Default fills unset fields with their documented defaults.
func (a *PyTorchJobArgs) Default(name string) {
	a.Distributed.applyDefaults()
	a.Common.applyDefaults(name, commonDefaults{gpu: true, checkpoint: true, shm: DefaultShmSize})
	a.Replicas = orDefault(a.Replicas, DefaultPyTorchReplicas)
}

// Validate checks defaulted args and returns every problem.
func (a *PyTorchJobArgs) Validate(p field.Path) field.ErrorList {
	errs := a.Common.validate(p, true, kubeflowMaxName(a.Replicas))
	errs = append(errs, validateKubeflowName(a.Name, p.Child("name"))...)
	if a.Replicas < 1 {
		errs = append(errs, field.Invalid(p.Child("replicas"), "%d must be at least 1 (the Master)", a.Replicas))
	}
	return append(errs, a.Distributed.validate(&a.Common, a.Replicas, a.Replicas, p)...)
}

// pyTorchJobArgs maps defaulted args to the PyTorchJob's provider arguments.
func pyTorchJobArgs(a *PyTorchJobArgs) *apiextensions.CustomResourceArgs {
	tmpl := podTemplate(replicaPod(&a.Common, &a.Distributed, kindPyTorchJob, "pytorch", true))
	replicas := map[string]any{"Master": replicaSpec(1, tmpl)}
	if a.Replicas > 1 {
		replicas["Worker"] = replicaSpec(a.Replicas-1, tmpl)
	}
	return kubeflowArgs(&a.Common, &a.Distributed, "PyTorchJob", kindPyTorchJob, "pytorchReplicaSpecs", replicas, a.Replicas)
}

// PyTorchJob is a distributed PyTorch training job with its NCCL
// NetworkPolicy.
type PyTorchJob struct {
	pulumi.ResourceState
	// Object is the PyTorchJob's name (and its pods' training-job label)
	// and namespace.
	Object
}

var pyTorchJobKind = kind[PyTorchJobArgs, *PyTorchJobArgs]{
	token: PyTorchJobType, what: "PyTorchJobArgs", children: kubeflowChildren("pytorchjob", pyTorchJobArgs),
}

// NewPyTorchJob registers a PyTorchJob (token aksml:workloads:PyTorchJob),
// its kubeflow.org/v1 PyTorchJob `name-pytorchjob` and NetworkPolicy
// `name-netpol`. Pass pulumi.DependsOn with the TrainingOperator when the
// same stack installs it.
func NewPyTorchJob(ctx *pulumi.Context, name string, args *PyTorchJobArgs, opts ...pulumi.ResourceOption) (*PyTorchJob, error) {
	return newWorkload(ctx, pyTorchJobKind, name, args, &PyTorchJob{}, opts)
}
