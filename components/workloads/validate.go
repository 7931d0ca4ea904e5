package workloads

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
)

var (
	envNameRE = regexp.MustCompile(`^[-._a-zA-Z][-._a-zA-Z0-9]*$`)
	digestRE  = regexp.MustCompile(`@sha256:[0-9a-f]{64}$`)
)

// reservedEnv are the variables aksml sets, with the field to use instead.
var reservedEnv = map[string]string{
	EnvCheckpointDir:           "checkpointDir",
	EnvDataDir:                 "dataDir",
	EnvShardIndex:              "the job completion index",
	EnvShardCount:              "completions",
	EnvShardManifest:           "shardManifest",
	EnvNCCLSocketIfname:        "nccl.socketIfname",
	EnvNCCLIBDisable:           "nccl.ibDisable",
	EnvNCCLDebug:               "nccl.debug",
	EnvTorchAsyncErrorHandling: "the PyTorchJob component (always 1)",
	"JOB_COMPLETION_INDEX":     "the Job controller",
}

// reservedLabelPrefixes are label key prefixes only aksml, Kueue or the Job
// controller set.
var reservedLabelPrefixes = []string{"aksml.io/", "kueue.x-k8s.io/", "batch.kubernetes.io/"}

// reservedLabels are label keys aksml sets.
var reservedLabels = []string{NameLabel, PartOfLabel, WorkloadKindLabel, TrainingJobLabel, gpupool.WorkloadLabel, WorkspaceSelectorLabel}

// validateDNSLabel checks a DNS-1123 label of at most max characters.
func validateDNSLabel(v string, max int, p field.Path) field.ErrorList {
	if len(v) > max || !field.IsDNSLabel(v) {
		return field.ErrorList{field.Invalid(p, "%q is not a valid name: use at most %d lowercase letters, digits and '-', starting and ending with a letter or digit", v, max)}
	}
	return nil
}

// validateSubdomain checks a DNS-1123 subdomain (object names such as
// claims, priority classes and service accounts).
func validateSubdomain(v string, p field.Path) field.ErrorList {
	if !field.IsDNSSubdomain(v) {
		return field.ErrorList{field.Invalid(p, "%q is not a valid object name: use lowercase letters, digits, '-' and '.', starting and ending with a letter or digit", v)}
	}
	return nil
}

// validateLabelValue checks a Kubernetes label value.
func validateLabelValue(v string, p field.Path) field.ErrorList {
	if !field.IsLabelValue(v) {
		return field.ErrorList{field.Invalid(p, "%q is not a valid label value: at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit", v)}
	}
	return nil
}

// validateLabelKey checks a Kubernetes label key: [prefix/]name.
func validateLabelKey(k string, p field.Path) field.ErrorList {
	if field.LabelKeyProblem(k) != "" {
		return field.ErrorList{field.Invalid(p, "%q is not a valid label key: use [prefix/]name, name at most 63 letters, digits, '-', '_' and '.'", k)}
	}
	return nil
}

// validateLabels checks user labels: syntax, and no key aksml, Kueue or the
// Job controller sets.
func validateLabels(labels map[string]string, p field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range sortedKeys(labels) {
		kp := p.Key(k)
		switch {
		case slices.Contains(reservedLabels, k) || hasReservedPrefix(k):
			errs = append(errs, field.Forbidden(kp, "label %q is set by aksml, Kueue or the Job controller and cannot be overridden", k))
		default:
			errs = append(errs, validateLabelKey(k, kp)...)
			errs = append(errs, validateLabelValue(labels[k], kp)...)
		}
	}
	return errs
}

func hasReservedPrefix(k string) bool {
	for _, pre := range reservedLabelPrefixes {
		if strings.HasPrefix(k, pre) {
			return true
		}
	}
	return false
}

// validateQuantity checks a required Kubernetes quantity and returns its
// value in base units.
func validateQuantity(v, example string, p field.Path) (float64, field.ErrorList) {
	if v == "" {
		return 0, field.ErrorList{field.Required(p, "a Kubernetes quantity such as "+example)}
	}
	q, ok := parseQuantity(v)
	if !ok || q <= 0 {
		return 0, field.ErrorList{field.Invalid(p, "%q is not a positive Kubernetes quantity; write e.g. %s", v, example)}
	}
	return q, nil
}

// validateImage checks the image reference and, with requireDigest, that
// it is pinned by digest.
func validateImage(image string, requireDigest bool, p field.Path) field.ErrorList {
	switch {
	case image == "":
		return field.ErrorList{field.Required(p, "the container image, e.g. myregistry.azurecr.io/train@sha256:<digest>")}
	case strings.ContainsAny(image, " \t\n"):
		return field.ErrorList{field.Invalid(p, "%q contains whitespace", image)}
	case field.ImageReferenceProblem(image) != "":
		return field.ErrorList{field.Invalid(p, "%q is not an image reference the container runtime pulls: %s; write registry/repository:tag or registry/repository@sha256:<digest>", image, field.ImageReferenceProblem(image))}
	case requireDigest && !digestRE.MatchString(image):
		return field.ErrorList{field.Invalid(p, "%q is not pinned by digest; production images must end in @sha256:<64 hex digits> (AKS MLOps best practices: pin the image by an immutable digest)", image)}
	}
	return nil
}

// validateMountPath checks an absolute container path other than /dev/shm.
func validateMountPath(v string, p field.Path) field.ErrorList {
	if !strings.HasPrefix(v, "/") || path.Clean(v) != v || v == "/" {
		return field.ErrorList{field.Invalid(p, "%q is not a clean absolute path such as /checkpoints", v)}
	}
	if v == shmMountPath || strings.HasPrefix(v, shmMountPath+"/") {
		return field.ErrorList{field.Invalid(p, "%q is under /dev/shm, which is memory; use a path such as /checkpoints", v)}
	}
	return nil
}

// validateAwait checks the opt-in wait of `pulumi up`.
func validateAwait(await bool, timeout int, p field.Path) field.ErrorList {
	tp := p.Child("awaitTimeoutSeconds")
	switch {
	case await && timeout <= 0:
		return field.ErrorList{field.Required(tp, fmt.Sprintf("a bounded wait in seconds (1..%d) when await is true", MaxAwaitTimeoutSeconds))}
	case await && timeout > MaxAwaitTimeoutSeconds:
		return field.ErrorList{field.Invalid(tp, "%d s is too long; wait at most %d s, or leave await false and watch the Job with kubectl", timeout, MaxAwaitTimeoutSeconds)}
	case !await && timeout != 0:
		return field.ErrorList{field.Forbidden(tp, "is set but await is false; set await true or remove the timeout")}
	}
	return nil
}

// validate checks a defaulted Common. gpu says the workload runs on a GPU
// pool; maxNameLen is the longest object name the kind allows.
func (c *Common) validate(p field.Path, gpu bool, maxNameLen int) field.ErrorList {
	var errs field.ErrorList
	if c.Namespace == nil {
		errs = append(errs, field.Required(p.Child("namespace"), "the team namespace (pass the namespace component's output)"))
	}
	errs = append(errs, validateDNSLabel(c.Name, maxNameLen, p.Child("name"))...)
	if c.Team == "" {
		errs = append(errs, field.Required(p.Child("team"), "the owning team (it becomes the aksml.io/team label)"))
	} else {
		errs = append(errs, validateLabelValue(c.Team, p.Child("team"))...)
	}

	if !slices.Contains(Schedulers, c.Scheduler) {
		errs = append(errs, field.NotSupported(p.Child("scheduler"), c.Scheduler, Schedulers))
	} else if c.Scheduler != SchedulerNone {
		if c.QueueName == "" {
			why := "the LocalQueue (Kueue) or Queue (Volcano) to admit the workload through"
			if !gpu {
				why += "; a CPU workload needs a queue with a CPU flavour, because gpu-queue's flavour pins pods to GPU nodes"
			}
			errs = append(errs, field.Required(p.Child("queueName"), why))
		} else {
			errs = append(errs, validateLabelValue(c.QueueName, p.Child("queueName"))...)
		}
	}
	errs = append(errs, validateSubdomain(c.PriorityClass, p.Child("priorityClass"))...)
	if c.Scheduler == SchedulerKueue {
		errs = append(errs, validateLabelValue(c.WorkloadPriorityClass, p.Child("workloadPriorityClass"))...)
	}

	errs = append(errs, validateImage(c.Image, c.RequireDigest, p.Child("image"))...)

	rp := p.Child("resources")
	_, cerrs := validateQuantity(c.Resources.CPU, `"4" or "500m"`, rp.Child("cpu"))
	errs = append(errs, cerrs...)
	mem, merrs := validateQuantity(c.Resources.Memory, `"16Gi"`, rp.Child("memory"))
	errs = append(errs, merrs...)
	if len(merrs) == 0 && mem < field.MinContainerMemory {
		errs = append(errs, field.Invalid(rp.Child("memory"), "%s is below the %s a container needs to start (the runtime refuses it with CreateContainerError); did you leave off the unit? write e.g. \"16Gi\"", c.Resources.Memory, field.MinContainerMemoryText))
	}
	if c.Resources.GPUs < 0 {
		errs = append(errs, field.Invalid(rp.Child("gpus"), "%d is negative; request 0 or more GPUs", c.Resources.GPUs))
	}
	if c.ShmSize != ShmDisabled {
		shm, serrs := validateQuantity(c.ShmSize, `"8Gi", or "0" for no /dev/shm volume`, p.Child("shmSize"))
		errs = append(errs, serrs...)
		minProc, _ := parseQuantity(MinProcessMemory)
		if len(serrs) == 0 && len(merrs) == 0 && shm > mem-minProc {
			errs = append(errs, field.Invalid(p.Child("shmSize"), "/dev/shm of %s does not fit in the memory limit %s: memory-backed /dev/shm counts against the limit (AKS MLOps best practices), so leave at least %s to the process; raise resources.memory or lower shmSize", c.ShmSize, c.Resources.Memory, MinProcessMemory))
		}
	}

	if c.CheckpointPVC != "" {
		errs = append(errs, validateSubdomain(c.CheckpointPVC, p.Child("checkpointPVC"))...)
		errs = append(errs, validateMountPath(c.CheckpointDir, p.Child("checkpointDir"))...)
	}
	if c.DataPVC != "" {
		errs = append(errs, validateSubdomain(c.DataPVC, p.Child("dataPVC"))...)
		errs = append(errs, validateMountPath(c.DataDir, p.Child("dataDir"))...)
		if c.CheckpointPVC != "" && (c.DataDir == c.CheckpointDir || strings.HasPrefix(c.DataDir, c.CheckpointDir+"/") || strings.HasPrefix(c.CheckpointDir, c.DataDir+"/")) {
			errs = append(errs, field.Invalid(p.Child("dataDir"), "%q overlaps checkpointDir %q; mount the two claims at separate paths", c.DataDir, c.CheckpointDir))
		}
	}

	for _, k := range sortedKeys(c.Env) {
		kp := p.Child("env").Key(k)
		if use, ok := reservedEnv[k]; ok {
			errs = append(errs, field.Forbidden(kp, "%s is set by aksml; use %s instead", k, use))
		} else if !envNameRE.MatchString(k) {
			errs = append(errs, field.Invalid(kp, "%q is not a valid environment variable name", k))
		}
	}
	errs = append(errs, validateLabels(c.Labels, p.Child("labels"))...)

	if c.MetricsPort < 0 || c.MetricsPort > 65535 {
		errs = append(errs, field.Invalid(p.Child("metricsPort"), "%d is not a port; use 1..65535, or 0 for no metrics", c.MetricsPort))
	}
	if c.ServiceAccountName != "" {
		errs = append(errs, validateSubdomain(c.ServiceAccountName, p.Child("serviceAccountName"))...)
	} else if c.WorkloadIdentity {
		errs = append(errs, field.Required(p.Child("serviceAccountName"), "workload identity needs the service account that carries the managed identity's client ID"))
	}
	errs = append(errs, validateAwait(c.Await, c.AwaitTimeoutSeconds, p)...)
	return errs
}

// validateTrainingPool checks the target GPU pool: resolved by
// gpupool.Resolve (which validated it once; its problems are not repeated
// here, the constructor stops on them), and not a serving pool.
func validateTrainingPool(pool *gpupool.Resolved, p field.Path) field.ErrorList {
	switch {
	case pool == nil:
		return field.ErrorList{field.Required(p, "the GPU pool the workload runs on (gpupool.Resolve or gpupool.ResolveOne of its spec)")}
	case !pool.IsResolved():
		return field.ErrorList{field.Invalid(p, "is not a resolved pool; pass the result of gpupool.Resolve or gpupool.ResolveOne, which defaults and validates the pool")}
	case pool.Workload == gpupool.WorkloadInference:
		return field.ErrorList{field.Forbidden(p.Child("workload"), "pool %q is for real-time inference serving; run training on a training, fine-tuning or batch-inference pool", pool.Name)}
	}
	return nil
}

// validateFit checks that one pod fits on one node of the pool's SKU:
// GPUs per pod at most the SKU's GPUs per node, CPU and memory below what
// a node offers to pods once AKS has reserved its share
// (gpupool.NodeAllocatable, "Node resource reservations in AKS",
// https://learn.microsoft.com/en-us/azure/aks/node-resource-reservations;
// equal is refused too, the node's DaemonSets need some), and whole GPUs
// not requested from a mixed-strategy MIG pool, which exposes only MIG
// instances.
func validateFit(pool *gpupool.Resolved, r Resources, p field.Path) field.ErrorList {
	sku, ok := pool.SKU()
	if !ok || !pool.IsResolved() {
		return nil
	}
	var errs field.ErrorList
	if r.GPUs > sku.GPUsPerNode {
		errs = append(errs, field.Invalid(p.Child("gpus"), "%d GPUs per pod do not fit on one %s node (%d GPUs); lower it or use a larger SKU", r.GPUs, sku.VMSize, sku.GPUsPerNode))
	}
	if pool.MIGEnabled() && pool.MIG.Strategy == gpupool.MIGStrategyMixed && r.GPUs > 0 {
		errs = append(errs, field.Invalid(p.Child("gpus"), "pool %q exposes MIG instances (%s), not whole GPUs; use MIGTrial or a pool without MIG", pool.Name, pool.MIGResourceName()))
	}
	return append(errs, ValidateAllocatable(r, sku.VMSize, pool.Allocatable, p)...)
}

// ValidateAllocatable checks that cpu and memory requests r stay below
// what one node of vmSize offers to pods (alloc, gpupool.NodeAllocatable):
// a request equal to or above it can never be scheduled, because AKS
// reserves part of the VM for the kubelet and the node's own DaemonSets
// need the rest. Requests that do not parse are left to their own checks.
func ValidateAllocatable(r Resources, vmSize string, alloc gpupool.Allocatable, p field.Path) field.ErrorList {
	var errs field.ErrorList
	shape, _ := gpupool.LookupVMShape(vmSize)
	if cpu, ok := parseQuantity(r.CPU); ok && alloc.CPUMilli > 0 && cpu*1000 >= float64(alloc.CPUMilli) {
		errs = append(errs, field.Invalid(p.Child("cpu"), "%s CPUs can never be scheduled on a %s node: of its %d vCPUs it offers %dm to pods once AKS reserves its share, and the node's DaemonSets need part of that; request less than %dm, or use a larger VM size", r.CPU, vmSize, shape.VCPUs, alloc.CPUMilli, alloc.CPUMilli))
	}
	if mem, ok := parseQuantity(r.Memory); ok && alloc.MemoryMiB > 0 && mem >= float64(alloc.MemoryMiB)*mib {
		errs = append(errs, field.Invalid(p.Child("memory"), "%s can never be scheduled on a %s node: of its %dGi it offers %dMi to pods once AKS reserves its share, and the node's DaemonSets need part of that; request less than %dMi, or use a larger VM size", r.Memory, vmSize, shape.MemoryGiB, alloc.MemoryMiB, alloc.MemoryMiB))
	}
	return errs
}

// validateGang checks that the units a workload needs at once (replicas ×
// GPUs per replica, parallel shards × GPUs per shard, or MIG instances; the
// pool's unit, gpupool.Resolved.Capacity) fit in what the pool holds at its
// node ceiling: a gang larger than that is never admitted whole (Kueue
// admits a workload all or nothing) nor scheduled. what describes the gang.
func validateGang(pool *gpupool.Resolved, units int, what string, p field.Path) field.ErrorList {
	if !pool.IsResolved() || !pool.Sized || units <= pool.Capacity {
		return nil
	}
	nodes, ceiling := pool.NodeCeiling()
	return field.ErrorList{field.Invalid(p, "%s = %d %s at once, but pool %q holds %d at most (%s %d); lower the replicas or GPUs, or raise %s", what, units, pool.GPUResource, pool.Name, pool.Capacity, ceiling, nodes, pool.NodeCeilingPath())}
}

// validateExitCodes checks declared non-retryable exit codes: 1..255,
// unique, at most 255 of them.
func validateExitCodes(codes []int, p field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(codes) > 255 {
		errs = append(errs, field.Invalid(p, "%d codes; declare at most 255", len(codes)))
	}
	errs = append(errs, field.Unique(p, codes, "exit code %d", func(p field.Path, code int) *field.Error {
		if code < 1 || code > 255 {
			return field.Invalid(p, "%d is not a failure exit code; use 1..255", code)
		}
		return nil
	})...)
	return errs
}

// validatePositive checks a defaulted count or duration.
func validatePositive(v int, p field.Path) field.ErrorList {
	if v < 1 {
		return field.ErrorList{field.Invalid(p, "%d must be at least 1", v)}
	}
	return nil
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// GangUnits is the GPU units (in the pool's unit) a defaulted
// CheckpointedJob needs at once: its one pod's GPUs.
func (a *CheckpointedJobArgs) GangUnits() int { return a.Resources.GPUs }

// GangUnits is the GPU units a defaulted IndexedJob needs at once: its
// parallel shards × GPUs per shard (Kueue admits the Job's parallelism).
func (a *IndexedJobArgs) GangUnits() int { return a.Parallelism * a.Resources.GPUs }

// GangUnits is the MIG instances a defaulted MIGTrial needs.
func (a *MIGTrialArgs) GangUnits() int { return a.MIGDevices }

// GangUnits is the GPUs of the whole job (all replicas at once).
func (d *Distributed) GangUnits() int { return d.TotalGPUs }
