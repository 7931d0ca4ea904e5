package queues

import (
	"slices"
	"sort"
	"strings"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
)

// All-or-nothing scale-up for gangs: Kueue's ProvisioningRequest admission
// check. Kueue reserves quota for a workload, creates a ProvisioningRequest
// (autoscaling.x-k8s.io/v1) for its pods and admits it only once the cluster
// autoscaler reports the request Provisioned, so a gang on a pool at zero
// nodes gets its nodes as one scale-up before any pod exists ("Provision
// capacity for Kueue batch jobs with the cluster autoscaler on AKS",
// https://learn.microsoft.com/azure/aks/configure-kueue-with-cluster-autoscaler;
// Kueue "Provisioning Admission Check Controller",
// https://kueue.sigs.k8s.io/docs/admission-check-controllers/provisioning/).
//
// What AKS requires, by its sources: the how-to lists a node pool with the
// cluster autoscaler enabled and no other setting, and the managed
// autoscaler has no ARM property for ProvisioningRequest to set (the
// ManagedCluster autoScalerProfile has no enable-provisioning-requests in
// Microsoft.ContainerService 2024-10-01 nor 2026-02-02-preview,
// managedClusters.json of the published REST specs), and its sample (Azure/AKS,
// examples/kueue-and-ray-on-aks/3-workloads/cas-batch-job/README.md) names
// Kubernetes 1.30 or later (ProvisioningRequestMinKubernetes). In February
// 2026 an AKS engineer wrote that the managed autoscaler did not process
// ProvisioningRequests and could not be made to (Azure/AKS#5492); the how-to
// dated July 2026 documents that it does. Kueue v0.17.0 has no feature gate
// for the check (ProvisioningACC went GA in v0.14 and was removed in v0.15):
// its controller starts when the API server serves
// provisioningrequests.autoscaling.x-k8s.io/v1 at Kueue's start
// (cmd/kueue/main.go, ServerSupportsProvisioningRequest), which the how-to
// expects of the cluster and aksml does not install.

// ProvisioningClass is the ProvisioningRequest class Kueue asks the cluster
// autoscaler for ("Provisioning Request" proposal,
// https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/proposals/provisioning-request.md).
type ProvisioningClass string

// Valid provisioning classes.
const (
	// ProvisioningAtomicScaleUp scales the pool up by the whole request at
	// once or not at all (the class the AKS how-to uses).
	ProvisioningAtomicScaleUp ProvisioningClass = "best-effort-atomic-scale-up.autoscaling.x-k8s.io"
	// ProvisioningCheckCapacity only checks that the pool's nodes can hold
	// the request now; it never scales up.
	ProvisioningCheckCapacity ProvisioningClass = "check-capacity.autoscaling.x-k8s.io"
)

// ProvisioningClasses lists the valid provisioning classes.
var ProvisioningClasses = []ProvisioningClass{ProvisioningAtomicScaleUp, ProvisioningCheckCapacity}

// DefaultProvisioningClass is the class of a ProvisioningPool without one:
// atomic scale-up, as in the AKS how-to.
const DefaultProvisioningClass = ProvisioningAtomicScaleUp

// ProvisioningRequestMinKubernetes is the oldest Kubernetes minor the AKS
// sample for ProvisioningRequest names (Azure/AKS,
// examples/kueue-and-ray-on-aks/3-workloads/cas-batch-job/README.md:
// "Kubernetes 1.30+ with the cluster autoscaler enabled"). Every minor
// aksml accepts for a cluster it creates (components/cluster
// KubernetesCalendar) is newer; a test keeps it that way.
const ProvisioningRequestMinKubernetes = "1.30"

// ProvisioningRequestController is the controllerName of Kueue's
// ProvisioningRequest admission check.
const ProvisioningRequestController = "kueue.x-k8s.io/provisioning-request"

// ProvisioningPool opts the flavor of one GPU pool into the ProvisioningRequest
// admission check, `aksml:scheduler.provisioning[i]`. Kueue only.
type ProvisioningPool struct {
	// Pool is the name of a GPU pool in `aksml:gpuPools` whose node count
	// the cluster autoscaler owns (DriverOnly or None; a Managed pool has
	// no autoscaler). Required.
	Pool string `json:"pool" pulumi:"pool"`
	// Class is the ProvisioningRequest class: best-effort-atomic-scale-up.autoscaling.x-k8s.io
	// (default) or check-capacity.autoscaling.x-k8s.io, which never scales
	// up and is therefore refused on a pool at minCount 0.
	Class ProvisioningClass `json:"class,omitempty" pulumi:"class,optional"`
}

// provisioningName names the AdmissionCheck and ProvisioningRequestConfig of
// a class: `aksml-<class up to its first dot>`, e.g.
// aksml-best-effort-atomic-scale-up.
func provisioningName(c ProvisioningClass) string {
	name, _, _ := strings.Cut(string(c), ".")
	return "aksml-" + name
}

// validateProvisioning checks aksml:scheduler.provisioning against the
// pools and the selected system.
func validateProvisioning(sched SchedulerSpec, pools []gpupool.Resolved, paths Paths) field.ErrorList {
	path := paths.Scheduler.Child("provisioning")
	if len(sched.Provisioning) == 0 {
		return nil
	}
	if !sched.Kueue() {
		return field.ErrorList{kueueOnly(path, "provisioning", sched, paths)}
	}
	names := make([]string, len(sched.Provisioning))
	for i, p := range sched.Provisioning {
		names[i] = p.Pool
	}
	poolNames := make([]string, len(pools))
	for i, p := range pools {
		poolNames[i] = p.Name
	}
	errs := field.Unique(path, names, "pool %q", func(p field.Path, name string) *field.Error {
		if name == "" {
			return field.Required(p.Child("pool"), "the name of a GPU pool in "+paths.Pools.String())
		}
		if !slices.Contains(poolNames, name) {
			return field.Invalid(p.Child("pool"), "%q is not a GPU pool in %s; use one of %s", name, paths.Pools, listOrNone(poolNames))
		}
		return nil
	})
	for i, pp := range sched.Provisioning {
		p := path.Index(i)
		if !slices.Contains(ProvisioningClasses, pp.Class) {
			errs = append(errs, field.NotSupported(p.Child("class"), pp.Class, ProvisioningClasses))
			continue
		}
		pool := gpupool.Lookup(pools, pp.Pool)
		if pool == nil {
			continue
		}
		switch {
		case !pool.IsAutoscaled():
			// AKS does not run the cluster autoscaler on AKS-managed GPU
			// pools in preview (gpupool.Spec.Count), and only the
			// autoscaler provisions a ProvisioningRequest.
			errs = append(errs, field.Invalid(p.Child("pool"), "pool %q is gpuStack Managed: it runs a fixed count without the cluster autoscaler, so no one provisions its ProvisioningRequests and Kueue would never admit a workload on it; remove this entry, or use a DriverOnly or None pool", pp.Pool))
		case pp.Class == ProvisioningCheckCapacity && pool.MinNodes == 0:
			errs = append(errs, field.Invalid(p.Child("class"), "%s only checks the nodes pool %q has and never scales it up; at minCount 0 the pool has none, so Kueue would never admit a workload on it: use %s, or raise %s.minCount", pp.Class, pp.Pool, ProvisioningAtomicScaleUp, pool.Path))
		}
	}
	return errs
}

// provisioningFlavors are, per class, the flavors of the pools in
// provisioning that team t has quota on, in the ClusterQueue's flavor order.
func provisioningFlavors(sched SchedulerSpec, t Team, pools []gpupool.Resolved) map[ProvisioningClass][]any {
	out := map[ProvisioningClass][]any{}
	for _, p := range teamPools(t, pools) {
		for _, pp := range sched.Provisioning {
			if pp.Pool == p.Name {
				out[pp.Class] = append(out[pp.Class], FlavorName(p.Name))
			}
		}
	}
	return out
}

// admissionChecksStrategy is the ClusterQueue's admissionChecksStrategy:
// each class's AdmissionCheck on the flavors of the team's pools that use
// it (Kueue "Admission Check", onFlavors,
// https://kueue.sigs.k8s.io/docs/concepts/admission_check/). nil when the
// team has quota on no such pool.
func admissionChecksStrategy(sched SchedulerSpec, t Team, pools []gpupool.Resolved) map[string]any {
	byClass := provisioningFlavors(sched, t, pools)
	if len(byClass) == 0 {
		return nil
	}
	var checks []any
	for _, c := range ProvisioningClasses {
		if flavors, ok := byClass[c]; ok {
			checks = append(checks, map[string]any{"name": provisioningName(c), "onFlavors": flavors})
		}
	}
	return map[string]any{"admissionChecks": checks}
}

// provisioningConfigSpec is the spec of the ProvisioningRequestConfig of
// class c: the class, and as managedResources the GPU resources of the pools
// that use it, so that a pod set asking for no GPU (a launcher, cpu-only
// work) needs no ProvisioningRequest.
func provisioningConfigSpec(c ProvisioningClass, sched SchedulerSpec, pools []gpupool.Resolved) map[string]any {
	var resources []string
	for _, pp := range sched.Provisioning {
		if p := gpupool.Lookup(pools, pp.Pool); p != nil && pp.Class == c && !slices.Contains(resources, p.GPUResource) {
			resources = append(resources, p.GPUResource)
		}
	}
	sort.Strings(resources)
	managed := make([]any, len(resources))
	for i, r := range resources {
		managed[i] = r
	}
	return map[string]any{"provisioningClassName": string(c), "managedResources": managed}
}

// admissionCheckSpec is the spec of the AdmissionCheck of class c, which
// points Kueue's ProvisioningRequest controller at its config.
func admissionCheckSpec(c ProvisioningClass) map[string]any {
	return map[string]any{
		"controllerName": ProvisioningRequestController,
		"parameters": map[string]any{
			"apiGroup": "kueue.x-k8s.io",
			"kind":     "ProvisioningRequestConfig",
			"name":     provisioningName(c),
		},
	}
}

// provisioningClasses are the classes sched.Provisioning uses, in
// ProvisioningClasses order.
func (s SchedulerSpec) provisioningClasses() []ProvisioningClass {
	var out []ProvisioningClass
	for _, c := range ProvisioningClasses {
		if slices.ContainsFunc(s.Provisioning, func(p ProvisioningPool) bool { return p.Class == c }) {
			out = append(out, c)
		}
	}
	return out
}
