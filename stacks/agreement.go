package stacks

import (
	"strings"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/queues"
)

// The program and the policy pack decide once (issue 33, class 1): a shape
// that a mandatory guardrail refuses is refused here first, naming the
// config key, so that no config synthesises and then fails every preview.
// Each rule below is the config-side statement of one mandatory guardrail.

// validatePackAgreement returns the problems a mandatory guardrail would
// otherwise report on the synthesised stack, by config key.
func (c *Config) validatePackAgreement() field.ErrorList {
	var errs field.ErrorList
	if !c.IsProd() {
		errs = append(errs, c.validateScaleToZero()...)
	}
	errs = append(errs, c.validateQueuedGPUJobs()...)
	if c.IsProd() {
		errs = append(errs, c.validateRegistryImages()...)
	}
	return errs
}

// validateScaleToZero is AKSML-GPU-002 (SPEC C2.2, GPU node pools, common
// mistakes: min-count > 0 for intermittent workloads): in a dev stack no GPU
// node runs while idle, so an autoscaled pool's minCount and a Managed
// pool's count are 0 (the resolved pools' MinNodes).
func (c *Config) validateScaleToZero() field.ErrorList {
	var errs field.ErrorList
	for _, p := range c.res.pools {
		switch {
		case p.IsManaged() && p.MinNodes > 0:
			errs = append(errs, field.Invalid(p.Path.Child("count"), "%d keeps GPU nodes billing while idle in the dev stack %q (SPEC C2.2, guardrail AKSML-GPU-002); set count: 0 in dev, and use a DriverOnly pool, which scales from zero, for work in dev", p.MinNodes, c.Stack))
		case p.MinNodes > 0:
			errs = append(errs, field.Invalid(p.Path.Child("minCount"), "%d keeps GPU nodes billing while idle in the dev stack %q (SPEC C2.2, guardrail AKSML-GPU-002); remove minCount (dev GPU pools scale to zero), or keep warm nodes in a prod stack", p.MinNodes, c.Stack))
		}
	}
	return errs
}

// validateQueuedGPUJobs is AKSML-JOB-007 ("Allocate multi-tenant GPU quota
// with Kueue", AKS MLOps best practices,
// https://learn.microsoft.com/azure/aks/best-practices-ml-ops): a batch
// workload on a GPU pool goes through its team's queue, which
// aksml:scheduler.system none does not create.
func (c *Config) validateQueuedGPUJobs() field.ErrorList {
	if c.Scheduler.System != queues.SystemNone {
		return nil
	}
	var errs field.ErrorList
	for i, w := range c.Workloads {
		k := lookupKind(w.Kind)
		if k == nil || !k.pool || k.unqueued {
			continue
		}
		errs = append(errs, field.Invalid(key("workloads").Index(i).Child("kind"), "%s runs GPU jobs, which go through the team's queue so that its GPU quota admits them (guardrail AKSML-JOB-007), but aksml:scheduler.system is none, which creates no queues; set aksml:scheduler.system to kueue or volcano, or remove the workload", w.Kind))
	}
	return errs
}

// validateRegistryImages is AKSML-SEC-003 ("Authenticate with Azure
// Container Registry (ACR) from Azure Kubernetes Service (AKS)",
// https://learn.microsoft.com/azure/aks/cluster-container-registry-integration):
// prod workload images come from the stack's registry, which the kubelet
// identity pulls from with AcrPull.
func (c *Config) validateRegistryImages() field.ErrorList {
	var errs field.ErrorList
	for i, w := range c.Workloads {
		ct := w.container()
		if ct == nil || ct.Image == "" {
			continue
		}
		path := key("workloads").Index(i).Child("image")
		switch {
		case c.Cluster == nil:
			errs = append(errs, field.Invalid(path, "prod images come from the stack's container registry (guardrail AKSML-SEC-003), and an aksml:existingCluster stack declares none; deploy the workload from the stack that owns aksml:cluster and its registry"))
		case c.Cluster.Registry == nil:
			return append(errs, field.Required(key("cluster").Child("registry"), "prod workload images come from a container registry the cluster pulls from with its kubelet identity (guardrail AKSML-SEC-003); set name (to create one) or id (an existing one) and push the images there"))
		case !strings.HasPrefix(strings.ToLower(ct.Image), c.Cluster.Registry.LoginServer()+"/"):
			errs = append(errs, field.Invalid(path, "%q is not in the stack's registry %s (guardrail AKSML-SEC-003); push it there and write %s/<repository>@sha256:<digest>", ct.Image, c.Cluster.Registry.LoginServer(), c.Cluster.Registry.LoginServer()))
		}
	}
	return errs
}
