package rules

import (
	"fmt"
	"strings"

	"github.com/aksml/aksml/components/gpupool"
)

// isBatchWorkload reports whether r runs to completion: a Job, a CronJob, a
// Kubeflow training job or a Volcano job.
func isBatchWorkload(r Resource) bool {
	group, kind, ok := kubeKind(r)
	switch {
	case !ok:
		return false
	case group == "batch" && (kind == "Job" || kind == "CronJob"):
		return true
	case group == "kubeflow.org" && replicaSpecFields[kind] != "":
		return true
	case group == "batch.volcano.sh" && kind == "Job":
		return true
	}
	return false
}

// perGPUTemplate adapts a check over one GPU-requesting pod template to a
// Rule.Resource function.
func perGPUTemplate(check func(r Resource, t podTemplate) []string) func(Resource, *Stack) []string {
	return perResource(func(r Resource) []string {
		var out []string
		for _, t := range podTemplates(r) {
			if requestsGPU(t.spec) {
				out = append(out, check(r, t)...)
			}
		}
		return out
	})
}

// gpuNames lists the GPU resources a pod spec requests, for messages.
func gpuNames(spec map[string]any) string {
	seen := map[string]bool{}
	for _, c := range containers(spec) {
		for _, n := range gpuResourceNames(c) {
			seen[n] = true
		}
	}
	return strings.Join(sortedKeys(seen), ", ")
}

var rulePodToleration = Rule{
	ID:       "AKSML-POD-001",
	Title:    "Pods that request GPUs tolerate the sku=gpu:NoSchedule taint",
	Severity: Mandatory,
	Source:   srcMLOps + ", \"Isolate GPU workloads with taints and tolerations\"; SPEC C2 (GPU node pools: pod spec); SPEC C7.1",
	Resource: perGPUTemplate(func(r Resource, t podTemplate) []string {
		if tolerates(t.spec, gpupool.GPUTaintKey, gpupool.GPUTaintValue, gpupool.GPUTaintEffect) {
			return nil
		}
		return []string{fmt.Sprintf("%s%s requests %s but does not tolerate %s; add the toleration {key: sku, operator: Equal, value: gpu, effect: NoSchedule} to the pod spec so that it can run on the GPU nodes",
			describe(r), t.where(), gpuNames(t.spec), gpuTaint)}
	}),
}

var rulePodNodeSelector = Rule{
	ID:       "AKSML-POD-002",
	Title:    "Pods that request GPUs select GPU nodes (node selector or required node affinity)",
	Severity: Mandatory,
	Source:   srcMLOps + ": pair tolerations with a GPU resource request and a node selector; SPEC C7.1",
	Resource: perGPUTemplate(func(r Resource, t podTemplate) []string {
		if targetsGPUNodes(t.spec) || labels(r)[QueueNameLabel] != "" || t.labels[QueueNameLabel] != "" {
			return nil
		}
		return []string{fmt.Sprintf("%s%s requests %s without a node selector or required node affinity for GPU nodes; add nodeSelector accelerator: nvidia (plus workload: <class> or kubernetes.azure.com/agentpool: <pool>) — a toleration alone does not keep the pod on GPU nodes (Kueue-queued workloads get the flavor's node labels instead)",
			describe(r), t.where(), gpuNames(t.spec))}
	}),
}

var rulePodGPURequestsLimits = Rule{
	ID:       "AKSML-POD-003",
	Title:    "GPU requests equal GPU limits, both set",
	Severity: Mandatory,
	Source:   srcMLOps + ": setting both fields makes the workload intent explicit; SPEC C7.1 requests == limits (GPU too)",
	Resource: perGPUTemplate(func(r Resource, t podTemplate) []string {
		var out []string
		for _, c := range containers(t.spec) {
			for _, name := range gpuResourceNames(c) {
				req := get(c, "resources.requests")
				lim := get(c, "resources.limits")
				rq, hasReq := mapOf(req)[name]
				lm, hasLim := mapOf(lim)[name]
				rv, okR := ParseQuantity(rq)
				lv, okL := ParseQuantity(lm)
				switch {
				case !hasReq || !hasLim:
					out = append(out, fmt.Sprintf("%s%s: %s sets %s only in %s; set resources.requests and resources.limits of %s to the same value",
						describe(r), t.where(), containerName(c), name, onlySide(hasReq), name))
				case okR && okL && !sameQuantity(rv, lv):
					out = append(out, fmt.Sprintf("%s%s: %s requests %s %s but limits it to %s; set requests equal to limits (extended resources cannot be overcommitted)",
						describe(r), t.where(), containerName(c), formatQuantity(rq), name, formatQuantity(lm)))
				}
			}
		}
		return out
	}),
}

func onlySide(hasRequests bool) string {
	if hasRequests {
		return "requests"
	}
	return "limits"
}

var rulePodGuaranteed = Rule{
	ID:       "AKSML-POD-004",
	Title:    "GPU pods set cpu and memory requests equal to limits (Guaranteed QoS)",
	Severity: Advisory,
	Source:   srcMLOps + ": set equal requests and limits for predictable training jobs; SPEC C7.1",
	Resource: perGPUTemplate(func(r Resource, t podTemplate) []string {
		var out []string
		for _, c := range listOf(t.spec["containers"]) {
			cm := mapOf(c)
			for _, res := range []string{"cpu", "memory"} {
				rq, okR := ParseQuantity(get(cm, "resources.requests."+res))
				lm, okL := ParseQuantity(get(cm, "resources.limits."+res))
				if okR && okL && sameQuantity(rq, lm) {
					continue
				}
				out = append(out, fmt.Sprintf("%s%s: %s does not set %s requests equal to limits; set both to the same value so that the GPU pod gets Guaranteed QoS and is not starved or evicted first",
					describe(r), t.where(), containerName(cm), res))
			}
		}
		return out
	}),
}

// selectsSpot reports whether a pod spec tolerates the spot taint or selects
// spot nodes.
func selectsSpot(spec map[string]any) bool {
	if tolerates(spec, gpupool.SpotTaintKey, gpupool.SpotTaintValue, gpupool.GPUTaintEffect) {
		return true
	}
	sel := stringMap(spec["nodeSelector"])
	return sel[gpupool.SpotTaintKey] == gpupool.SpotTaintValue || sel[gpupool.WorkloadLabel] == gpupool.SpotWorkloadValue
}

var rulePodInferenceOnSpot = Rule{
	ID:       "AKSML-POD-005",
	Title:    "Inference-critical workloads do not tolerate or select spot nodes",
	Severity: Mandatory,
	Source:   "SPEC C2.5 (never use spot for inference serving); " + srcMLOps + ": PriorityClass inference-critical",
	Resource: perResource(func(r Resource) []string {
		var out []string
		for _, t := range podTemplates(r) {
			if str(t.spec["priorityClassName"]) == InferencePriorityClass && selectsSpot(t.spec) {
				out = append(out, fmt.Sprintf("%s%s has priorityClassName %s but tolerates or selects spot nodes (kubernetes.azure.com/scalesetpriority=spot); remove the spot toleration and selector so that real-time inference never lands on evictable capacity",
					describe(r), t.where(), InferencePriorityClass))
			}
		}
		return out
	}),
}

// isMLWorkload reports whether a pod template belongs to an ML workload:
// a batch workload or a pod that requests GPUs.
func isMLWorkload(r Resource, t podTemplate) bool { return isBatchWorkload(r) || requestsGPU(t.spec) }

var rulePodDigest = Rule{
	ID:       "AKSML-POD-006",
	Title:    "ML workload images are pinned by digest in production",
	Severity: Mandatory,
	Source:   srcMLOps + ": pin the image by digest in production (Dockerfile pattern, CUDA image); SPEC C7.1",
	Resource: func(r Resource, s *Stack) []string {
		if !isProd(s) {
			return nil
		}
		var out []string
		for _, t := range podTemplates(r) {
			if !isMLWorkload(r, t) {
				continue
			}
			for _, c := range containers(t.spec) {
				image := str(c["image"])
				if image == "" || strings.Contains(image, "@sha256:") {
					continue
				}
				out = append(out, fmt.Sprintf("%s%s: %s runs %q, which is not pinned by digest in production stack %q; pin it as <image>@sha256:<digest> so that CUDA/cuDNN behaviour is reproducible",
					describe(r), t.where(), containerName(c), image, s.Name))
			}
		}
		return out
	},
}

// imageTag returns the tag of an image reference ("" without one).
func imageTag(image string) string {
	ref, _, _ := strings.Cut(image, "@")
	last := ref[strings.LastIndex(ref, "/")+1:]
	_, tag, _ := strings.Cut(last, ":")
	return tag
}

var rulePodImageTag = Rule{
	ID:       "AKSML-POD-007",
	Title:    "Images name an explicit version (no missing or latest tag)",
	Severity: Advisory,
	Source:   srcMLOps + ": use an explicit base image tag instead of an untagged base image reference",
	Resource: perResource(func(r Resource) []string {
		var out []string
		for _, t := range podTemplates(r) {
			for _, c := range containers(t.spec) {
				image := str(c["image"])
				if image == "" || strings.Contains(image, "@sha256:") {
					continue
				}
				if tag := imageTag(image); tag == "" || tag == "latest" {
					out = append(out, fmt.Sprintf("%s%s: %s runs %q without a version tag; use an explicit tag such as pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime (or a digest)",
						describe(r), t.where(), containerName(c), image))
				}
			}
		}
		return out
	}),
}

// workers is how many pods of a batch workload run at once.
func workers(r Resource) int {
	n := 0
	for _, t := range podTemplates(r) {
		n += t.replicas
	}
	return n
}

// shmMount returns the volume mounted at /dev/shm by the container, or nil.
func shmMount(spec, c map[string]any) (mount map[string]any, volume map[string]any) {
	for _, m := range mountsOf(c) {
		if strings.TrimSuffix(str(m["mountPath"]), "/") == ShmPath {
			return m, volumeByName(spec, str(m["name"]))
		}
	}
	return nil, nil
}

var rulePodShmMissing = Rule{
	ID:       "AKSML-POD-008",
	Title:    "Multi-worker GPU training mounts a memory-backed /dev/shm",
	Severity: Mandatory,
	Source:   srcMLOps + ", \"Increase /dev/shm for ML data loaders\"; SPEC C7.1, C7.4",
	Resource: perResource(func(r Resource) []string {
		if !isBatchWorkload(r) || workers(r) < 2 {
			return nil
		}
		var out []string
		for _, t := range podTemplates(r) {
			for _, c := range listOf(t.spec["containers"]) {
				cm := mapOf(c)
				if len(gpuResourceNames(cm)) == 0 {
					continue
				}
				if m, _ := shmMount(t.spec, cm); m == nil {
					out = append(out, fmt.Sprintf("%s%s runs %d workers but %s mounts nothing at /dev/shm; mount an emptyDir {medium: Memory, sizeLimit: <size>} at /dev/shm — the runtime's small default breaks PyTorch data loaders and NCCL",
						describe(r), t.where(), workers(r), containerName(cm)))
				}
			}
		}
		return out
	}),
}

var rulePodShmSize = Rule{
	ID:       "AKSML-POD-009",
	Title:    "/dev/shm is a memory-backed emptyDir whose sizeLimit fits in the container's memory limit",
	Severity: Mandatory,
	Source:   srcMLOps + ": memory-backed emptyDir usage counts toward the pod's memory consumption; SPEC C7.1",
	Resource: perResource(func(r Resource) []string {
		var out []string
		for _, t := range podTemplates(r) {
			for _, c := range containers(t.spec) {
				_, vol := shmMount(t.spec, c)
				if vol == nil {
					continue
				}
				if msg := shmProblem(vol, c); msg != "" {
					out = append(out, fmt.Sprintf("%s%s: %s mounts /dev/shm from volume %q, which %s", describe(r), t.where(), containerName(c), str(vol["name"]), msg))
				}
			}
		}
		return out
	}),
}

// shmProblem says what is wrong with a /dev/shm volume of container c, or "".
func shmProblem(vol, c map[string]any) string {
	ed := mapOf(vol["emptyDir"])
	if ed == nil || str(ed["medium"]) != "Memory" {
		return "is not an emptyDir with medium Memory; use emptyDir {medium: Memory, sizeLimit: <size>}"
	}
	size, ok := ParseQuantity(ed["sizeLimit"])
	if !ok {
		return "has no sizeLimit; set sizeLimit (e.g. 8Gi) and count it in the container's memory limit"
	}
	limitRaw := get(c, "resources.limits.memory")
	limit, ok := ParseQuantity(limitRaw)
	if !ok {
		return fmt.Sprintf("holds up to %s while the container has no memory limit; set a memory limit that includes the /dev/shm size", formatQuantity(ed["sizeLimit"]))
	}
	if size > limit {
		return fmt.Sprintf("may hold %s, more than the container's memory limit %s; memory-backed emptyDir counts against the pod's memory, so lower sizeLimit or raise the limit", formatQuantity(ed["sizeLimit"]), formatQuantity(limitRaw))
	}
	return ""
}

var rulePodCheckpointVolume = Rule{
	ID:       "AKSML-POD-010",
	Title:    "Checkpoints are written to persistent volumes, not emptyDir or node-local storage",
	Severity: Mandatory,
	Source:   srcMLOps + ": store checkpoints on persistent storage, not in the container file system, emptyDir or node-local storage; SPEC C7.1",
	Resource: perResource(func(r Resource) []string {
		var out []string
		for _, t := range podTemplates(r) {
			for _, c := range containers(t.spec) {
				for _, m := range mountsOf(c) {
					vol := volumeByName(t.spec, str(m["name"]))
					path := str(m["mountPath"])
					if vol == nil || !(strings.Contains(strings.ToLower(path), "checkpoint") || strings.Contains(strings.ToLower(str(vol["name"])), "checkpoint")) {
						continue
					}
					for _, local := range []string{"emptyDir", "hostPath"} {
						if vol[local] != nil {
							out = append(out, fmt.Sprintf("%s%s: %s writes checkpoints to %s on %s volume %q, which is lost with the pod or node; mount a PersistentVolumeClaim of a Retain class (e.g. ml-checkpoints-azurefile) instead",
								describe(r), t.where(), containerName(c), path, local, str(vol["name"])))
						}
					}
				}
			}
		}
		return out
	}),
}

var rulePodSafeToEvict = Rule{
	ID:       "AKSML-POD-011",
	Title:    "Batch pods do not set safe-to-evict \"false\"",
	Severity: Advisory,
	Source:   srcMLOps + ": use cluster-autoscaler.kubernetes.io/safe-to-evict: \\\"false\\\" only for exceptional tasks that cannot be restarted",
	Resource: perResource(func(r Resource) []string {
		if !isBatchWorkload(r) {
			return nil
		}
		var out []string
		for _, t := range podTemplates(r) {
			if t.annotations[SafeToEvictAnnotation] == "false" {
				out = append(out, fmt.Sprintf("%s%s annotates its pods %s: \"false\"; remove it and rely on checkpoints — it blocks scale-down (idle GPU nodes keep billing) and does not protect against node failure",
					describe(r), t.where(), SafeToEvictAnnotation))
			}
		}
		return out
	}),
}

var rulePodPriorityClass = Rule{
	ID:       "AKSML-POD-012",
	Title:    "GPU pods name a PriorityClass",
	Severity: Advisory,
	Source:   srcMLOps + ", \"Configure training and inference priorities\"; SPEC C5.2",
	Resource: perGPUTemplate(func(r Resource, t podTemplate) []string {
		if str(t.spec["priorityClassName"]) != "" {
			return nil
		}
		return []string{fmt.Sprintf("%s%s requests GPUs without a priorityClassName; set training-batch for interruptible training or inference-critical for serving so that preemption follows business priority",
			describe(r), t.where())}
	}),
}
