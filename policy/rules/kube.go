package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aksml/aksml/components/vocab"
)

// Kubernetes labels, annotations and names the rules read.
const (
	// TeamLabel marks a team namespace (components/queues, C5.1).
	TeamLabel = vocab.TeamLabel
	// QueueNameLabel is the Kueue queue label a workload is submitted with.
	QueueNameLabel = vocab.QueueNameLabel
	// WorkloadPriorityClassLabel names a workload's Kueue WorkloadPriorityClass.
	WorkloadPriorityClassLabel = vocab.WorkloadPriorityClassLabel
	// SkipAwaitAnnotation tells the Pulumi Kubernetes provider not to wait
	// for an object to become ready (for a Job: to complete).
	SkipAwaitAnnotation = vocab.SkipAwaitAnnotation
	// GPUOvercommitAnnotation, on a Kueue ResourceFlavor (or ClusterQueue),
	// declares a deliberate GPU overcommit: the nvidia.com/gpu quota handed
	// out on a flavor may reach pool capacity × this ratio, e.g. "1.5".
	GPUOvercommitAnnotation = vocab.GPUOvercommitAnnotation
	// SafeToEvictAnnotation is the cluster autoscaler's eviction annotation.
	SafeToEvictAnnotation = "cluster-autoscaler.kubernetes.io/safe-to-evict"
	// InferencePriorityClass is the PriorityClass of latency-sensitive
	// inference (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) priorities section).
	InferencePriorityClass = vocab.PriorityClassInferenceCritical
	// GPUResourcePrefix prefixes every NVIDIA extended resource:
	// nvidia.com/gpu, nvidia.com/mig-1g.10gb, ...
	GPUResourcePrefix = "nvidia.com/"
	// ShmPath is where multi-process training needs a large shared memory.
	ShmPath = "/dev/shm"
	// VolcanoScheduler is the schedulerName of Volcano-scheduled pods.
	VolcanoScheduler = "volcano"
)

// gpuTargetingLabels are node labels whose selection puts a pod on GPU nodes.
var gpuTargetingLabels = []string{
	"accelerator", "workload", "kubernetes.azure.com/agentpool", "agentpool",
	"kubernetes.azure.com/accelerator", "node.kubernetes.io/instance-type",
	"beta.kubernetes.io/instance-type",
}

// kubeKind splits a Kubernetes type token `kubernetes:<group>/<version>:<Kind>`
// into group ("" for core) and kind.
func kubeKind(r Resource) (group, kind string, ok bool) {
	parts := strings.Split(r.Type, ":")
	if len(parts) != 3 || parts[0] != "kubernetes" {
		return "", "", false
	}
	group, _, _ = strings.Cut(parts[1], "/")
	if group == "core" {
		group = ""
	}
	return group, parts[2], true
}

// isKind reports whether r is a Kubernetes object of the group and kind, in
// any API version.
func isKind(r Resource, group, kind string) bool {
	g, k, ok := kubeKind(r)
	return ok && g == group && k == kind
}

// objName is the Kubernetes name of r, or its Pulumi name when the
// provider will generate one.
func objName(r Resource) string {
	if n := str(r.Get("metadata.name")); n != "" {
		return n
	}
	return r.Name
}

// objNamespace is the namespace of r; "default" when unset.
func objNamespace(r Resource) string {
	if ns := str(r.Get("metadata.namespace")); ns != "" {
		return ns
	}
	return "default"
}

// labels and annotations of r.
func labels(r Resource) map[string]string      { return stringMap(r.Get("metadata.labels")) }
func annotations(r Resource) map[string]string { return stringMap(r.Get("metadata.annotations")) }

// describe names r in messages: `Job team-a/trainer`, `StorageClass x`,
// `AgentPool gpua100`.
func describe(r Resource) string {
	_, kind, ok := kubeKind(r)
	if !ok {
		_, kind = azureType(r)
		if kind == "" {
			kind = r.Type
		}
		return kind + " " + r.Name
	}
	if ns := str(r.Get("metadata.namespace")); ns != "" {
		return kind + " " + ns + "/" + objName(r)
	}
	return kind + " " + objName(r)
}

// podTemplate is one pod template of a workload.
type podTemplate struct {
	// role is the replica type of a Kubeflow/Volcano job ("Worker"), or "".
	role string
	// replicas is how many pods run this template at once (parallelism).
	replicas int
	// labels are the template's labels plus those the controller adds.
	labels map[string]string
	// annotations are the template's annotations.
	annotations map[string]string
	// spec is the pod spec.
	spec map[string]any
}

// where names the template in messages: "" or " (Worker)".
func (t podTemplate) where() string {
	if t.role == "" {
		return ""
	}
	return " (" + t.role + ")"
}

// replicaSpecFields are the replica maps of the Kubeflow training jobs.
var replicaSpecFields = map[string]string{
	"PyTorchJob": "pytorchReplicaSpecs",
	"TFJob":      "tfReplicaSpecs",
	"MPIJob":     "mpiReplicaSpecs",
	"XGBoostJob": "xgbReplicaSpecs",
	"PaddleJob":  "paddleReplicaSpecs",
	"JAXJob":     "jaxReplicaSpecs",
}

// podTemplates returns the pod templates of a workload object: Pod,
// Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, the Kubeflow
// training jobs and Volcano jobs. Anything else has none.
func podTemplates(r Resource) []podTemplate {
	group, kind, ok := kubeKind(r)
	if !ok {
		return nil
	}
	fromTemplate := func(tpl any, role string, replicas int, extra map[string]string) podTemplate {
		t := mapOf(tpl)
		l := stringMap(get(t, "metadata.labels"))
		for k, v := range extra {
			l[k] = v
		}
		return podTemplate{role: role, replicas: replicas, labels: l,
			annotations: stringMap(get(t, "metadata.annotations")), spec: mapOf(t["spec"])}
	}
	name := objName(r)
	switch {
	case group == "" && kind == "Pod":
		return []podTemplate{{replicas: 1, labels: labels(r), annotations: annotations(r), spec: mapOf(r.Get("spec"))}}
	case group == "" && kind == "PodTemplate":
		return []podTemplate{fromTemplate(r.Get("template"), "", 1, nil)}
	case group == "apps" && (kind == "Deployment" || kind == "StatefulSet" || kind == "ReplicaSet"):
		return []podTemplate{fromTemplate(r.Get("spec.template"), "", intOr(r.Get("spec.replicas"), 1), nil)}
	case group == "apps" && kind == "DaemonSet":
		return []podTemplate{fromTemplate(r.Get("spec.template"), "", 1, nil)}
	case group == "batch" && kind == "Job":
		return []podTemplate{fromTemplate(r.Get("spec.template"), "", intOr(r.Get("spec.parallelism"), 1), jobLabels(name))}
	case group == "batch" && kind == "CronJob":
		return []podTemplate{fromTemplate(r.Get("spec.jobTemplate.spec.template"), "", intOr(r.Get("spec.jobTemplate.spec.parallelism"), 1), nil)}
	case group == "kubeflow.org" && replicaSpecFields[kind] != "":
		specs := mapOf(r.Get("spec." + replicaSpecFields[kind]))
		var out []podTemplate
		for _, role := range sortedKeys(specs) {
			rs := mapOf(specs[role])
			extra := map[string]string{
				"training.kubeflow.org/job-name":     name,
				"training.kubeflow.org/replica-type": strings.ToLower(role),
			}
			out = append(out, fromTemplate(rs["template"], role, intOr(rs["replicas"], 1), extra))
		}
		return out
	case group == "batch.volcano.sh" && kind == "Job":
		var out []podTemplate
		for i, task := range listOf(r.Get("spec.tasks")) {
			tm := mapOf(task)
			role := str(tm["name"])
			if role == "" {
				role = "task " + strconv.Itoa(i)
			}
			out = append(out, fromTemplate(tm["template"], role, intOr(tm["replicas"], 1), nil))
		}
		return out
	}
	return nil
}

// jobLabels are the labels the Job controller puts on a Job's pods.
func jobLabels(name string) map[string]string {
	return map[string]string{"batch.kubernetes.io/job-name": name, "job-name": name}
}

// intOr returns v as an int, or def when v is not a number.
func intOr(v any, def int) int {
	if n, ok := num(v); ok {
		return int(n)
	}
	return def
}

// containers returns the init containers and containers of a pod spec.
func containers(spec map[string]any) []map[string]any {
	var out []map[string]any
	for _, field := range []string{"initContainers", "containers"} {
		for _, c := range listOf(spec[field]) {
			if m := mapOf(c); m != nil {
				out = append(out, m)
			}
		}
	}
	return out
}

// gpuResourceNames returns the NVIDIA extended resources a container names
// in requests or limits, sorted.
func gpuResourceNames(c map[string]any) []string {
	seen := map[string]bool{}
	for _, kind := range []string{"requests", "limits"} {
		for name := range mapOf(get(c, "resources."+kind)) {
			if strings.HasPrefix(name, GPUResourcePrefix) {
				seen[name] = true
			}
		}
	}
	return sortedKeys(seen)
}

// requestsGPU reports whether any container of the pod spec asks for an
// NVIDIA GPU or MIG instance.
func requestsGPU(spec map[string]any) bool {
	for _, c := range containers(spec) {
		if len(gpuResourceNames(c)) > 0 {
			return true
		}
	}
	return false
}

// tolerates reports whether the pod spec tolerates the taint key=value:effect.
func tolerates(spec map[string]any, key, value, effect string) bool {
	for _, t := range listOf(spec["tolerations"]) {
		tm := mapOf(t)
		if e := str(tm["effect"]); e != "" && e != effect {
			continue
		}
		op := str(tm["operator"])
		k := str(tm["key"])
		switch {
		case k == "" && op == "Exists":
			return true
		case k != key:
			continue
		case op == "Exists":
			return true
		case (op == "" || op == "Equal") && str(tm["value"]) == value:
			return true
		}
	}
	return false
}

// toleratesTaintString is tolerates for a taint written key=value:Effect.
func toleratesTaintString(spec map[string]any, taint string) bool {
	kv, effect, _ := strings.Cut(taint, ":")
	k, v, _ := strings.Cut(kv, "=")
	return tolerates(spec, k, v, effect)
}

// targetsGPUNodes reports whether the pod spec selects GPU nodes by a node
// selector or a required node affinity on a GPU node label.
func targetsGPUNodes(spec map[string]any) bool {
	isGPULabel := func(k string) bool {
		return slices.Contains(gpuTargetingLabels, k) || strings.HasPrefix(k, GPUResourcePrefix)
	}
	for k := range stringMap(spec["nodeSelector"]) {
		if isGPULabel(k) {
			return true
		}
	}
	for _, term := range requiredNodeTerms(spec) {
		for _, e := range listOf(mapOf(term)["matchExpressions"]) {
			if isGPULabel(str(mapOf(e)["key"])) {
				return true
			}
		}
	}
	return false
}

// requiredNodeTerms returns the required node affinity terms of a pod spec.
func requiredNodeTerms(spec map[string]any) []any {
	return listOf(get(spec, "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"))
}

// schedulableOn reports whether a pod with this spec may be placed on nodes
// with the given labels and taints (key=value:Effect): its node selector and
// required node affinity match, and it tolerates every NoSchedule and
// NoExecute taint.
func schedulableOn(spec map[string]any, nodeLabels map[string]string, taints []string) bool {
	for k, v := range stringMap(spec["nodeSelector"]) {
		if nodeLabels[k] != v {
			return false
		}
	}
	if terms := requiredNodeTerms(spec); len(terms) > 0 {
		matched := false
		for _, term := range terms {
			if requirementsMatch(listOf(mapOf(term)["matchExpressions"]), nodeLabels) {
				matched = true
				break
			}
		}
		if !matched {
			return false
		}
	}
	for _, t := range taints {
		if strings.HasSuffix(t, ":PreferNoSchedule") {
			continue
		}
		if !toleratesTaintString(spec, t) {
			return false
		}
	}
	return true
}

// requirementsMatch evaluates label requirements (matchExpressions of a label
// or node selector) against labels.
func requirementsMatch(exprs []any, l map[string]string) bool {
	for _, e := range exprs {
		em := mapOf(e)
		key := str(em["key"])
		values := stringList(em["values"])
		v, has := l[key]
		switch str(em["operator"]) {
		case "In":
			if !has || !slices.Contains(values, v) {
				return false
			}
		case "NotIn":
			if has && slices.Contains(values, v) {
				return false
			}
		case "Exists":
			if !has {
				return false
			}
		case "DoesNotExist":
			if has {
				return false
			}
		case "Gt", "Lt":
			if !has || len(values) != 1 {
				return false
			}
			got, err1 := strconv.Atoi(v)
			want, err2 := strconv.Atoi(values[0])
			if err1 != nil || err2 != nil {
				return false
			}
			if (str(em["operator"]) == "Gt") != (got > want) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// selectorMatches evaluates a Kubernetes label selector (matchLabels and
// matchExpressions) against labels. An empty selector selects everything;
// a nil one nothing.
func selectorMatches(sel map[string]any, l map[string]string) bool {
	if sel == nil {
		return false
	}
	for k, v := range stringMap(sel["matchLabels"]) {
		if l[k] != v {
			return false
		}
	}
	return requirementsMatch(listOf(sel["matchExpressions"]), l)
}

// volumeByName returns the pod volume with the given name.
func volumeByName(spec map[string]any, name string) map[string]any {
	for _, v := range listOf(spec["volumes"]) {
		if vm := mapOf(v); str(vm["name"]) == name {
			return vm
		}
	}
	return nil
}

// mountsOf returns the volume mounts of a container.
func mountsOf(c map[string]any) []map[string]any {
	var out []map[string]any
	for _, m := range listOf(c["volumeMounts"]) {
		if mm := mapOf(m); mm != nil {
			out = append(out, mm)
		}
	}
	return out
}

// containerName names a container in messages.
func containerName(c map[string]any) string {
	if n := str(c["name"]); n != "" {
		return fmt.Sprintf("container %q", n)
	}
	return "a container"
}
