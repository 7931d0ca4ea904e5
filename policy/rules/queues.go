package rules

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/aksml/aksml/components/gpupool"
)

// KueueGroup is the API group of Kueue's resources.
const KueueGroup = "kueue.x-k8s.io"

// flavorQuota is the quota of one NVIDIA resource (nvidia.com/gpu or a MIG
// instance resource) handed out on one ResourceFlavor.
type flavorQuota struct {
	flavor, resource string
	total            float64
	// parts lists "<ClusterQueue>: <quota>" for messages.
	parts []string
	// ratio is the largest overcommit ratio declared on a ClusterQueue that
	// hands out this quota (0 when none).
	ratio float64
}

// gpuQuotas sums the nominal quotas of NVIDIA resources of every
// ClusterQueue per flavor and resource, in the order first seen.
func gpuQuotas(s *Stack) []*flavorQuota {
	var out []*flavorQuota
	index := map[[2]string]*flavorQuota{}
	for _, cq := range s.Resources {
		if !isKind(cq, KueueGroup, "ClusterQueue") {
			continue
		}
		ratio, _ := overcommitRatio(cq)
		for _, group := range listOf(cq.Get("spec.resourceGroups")) {
			for _, flavor := range listOf(mapOf(group)["flavors"]) {
				fm := mapOf(flavor)
				for _, res := range listOf(fm["resources"]) {
					rm := mapOf(res)
					name := str(rm["name"])
					q, ok := ParseQuantity(rm["nominalQuota"])
					if !strings.HasPrefix(name, GPUResourcePrefix) || !ok || q == 0 {
						continue
					}
					key := [2]string{str(fm["name"]), name}
					fq := index[key]
					if fq == nil {
						fq = &flavorQuota{flavor: key[0], resource: name}
						index[key] = fq
						out = append(out, fq)
					}
					fq.total += q
					fq.parts = append(fq.parts, fmt.Sprintf("%s: %s", objName(cq), formatQuantity(rm["nominalQuota"])))
					fq.ratio = math.Max(fq.ratio, ratio)
				}
			}
		}
	}
	return out
}

// overcommitRatio reads the aksml.io/gpu-overcommit-ratio annotation.
func overcommitRatio(r Resource) (float64, bool) {
	raw, ok := annotations(r)[GPUOvercommitAnnotation]
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
	if err != nil || f <= 0 {
		return 0, false
	}
	return f, true
}

// resourceFlavors returns the stack's ResourceFlavors by name.
func resourceFlavors(s *Stack) map[string]Resource {
	out := map[string]Resource{}
	for _, r := range s.Resources {
		if isKind(r, KueueGroup, "ResourceFlavor") {
			out[objName(r)] = r
		}
	}
	return out
}

// flavorPools returns the GPU pools whose nodes carry all the flavor's node
// labels.
func flavorPools(rf Resource, pools []Pool) []Pool {
	want := stringMap(rf.Get("spec.nodeLabels"))
	var out []Pool
	for _, p := range pools {
		have := p.NodeLabels()
		match := true
		for k, v := range want {
			if have[k] != v {
				match = false
				break
			}
		}
		if match {
			out = append(out, p)
		}
	}
	return out
}

var ruleQueueCapacity = Rule{
	ID:       "AKSML-QUE-001",
	Title:    "Kueue GPU quota per flavor fits the GPU capacity of the pools behind it",
	Severity: Mandatory,
	Source:   srcMLOps + ": a ClusterQueue quota is a scheduling quota, so check that the AKS cluster can provision the capacity; SPEC C5.4",
	Stack: func(s *Stack) []Finding {
		flavors := resourceFlavors(s)
		pools := gpuPools(s)
		var out []Finding
		for _, q := range gpuQuotas(s) {
			rf, ok := flavors[q.flavor]
			if !ok {
				continue
			}
			behind := flavorPools(rf, pools)
			capacity, known := 0, len(behind) > 0
			var names []string
			for _, p := range behind {
				units, ok := p.Capacity()
				if !ok {
					known = false
					break
				}
				capacity += units
				names = append(names, p.capacityText())
			}
			if !known {
				continue
			}
			ratio, declared := overcommitRatio(rf)
			if !declared {
				ratio = math.Max(1, q.ratio)
			}
			if q.total <= float64(capacity)*ratio {
				continue
			}
			allowed := fmt.Sprintf("%d at maxCount", capacity)
			if ratio != 1 {
				allowed += fmt.Sprintf(", %g with the declared overcommit ratio %g", float64(capacity)*ratio, ratio)
			}
			out = append(out, Finding{URN: resourceRef(rf), Message: fmt.Sprintf(
				"ClusterQueues hand out %g %s on %s (%s) but its pools (%s) hold %s; lower the nominalQuota, raise the pools' maxCount, or declare a deliberate overcommit with the annotation %s: \"<ratio>\" on the ResourceFlavor",
				q.total, q.resource, describe(rf), strings.Join(q.parts, ", "), strings.Join(names, ", "), allowed, GPUOvercommitAnnotation)})
		}
		return out
	},
}

var ruleQueueFlavorPools = Rule{
	ID:       "AKSML-QUE-002",
	Title:    "Every Kueue flavor with GPU quota selects a GPU pool of the stack",
	Severity: Advisory,
	Source:   srcMLOps + ": Kueue ResourceFlavor nodeLabels; SPEC C5.3 (a flavor per GPU pool)",
	Stack: func(s *Stack) []Finding {
		pools := gpuPools(s)
		if len(pools) == 0 {
			return nil
		}
		flavors := resourceFlavors(s)
		reported := map[string]bool{}
		var out []Finding
		for _, q := range gpuQuotas(s) {
			rf, ok := flavors[q.flavor]
			if !ok || reported[q.flavor] || len(flavorPools(rf, pools)) > 0 {
				continue
			}
			reported[q.flavor] = true
			out = append(out, Finding{URN: resourceRef(rf), Message: fmt.Sprintf(
				"%s carries %g %s of quota but its nodeLabels %v match no GPU pool of this stack; select a pool with %s: <pool name>",
				describe(rf), q.total, q.resource, stringMap(rf.Get("spec.nodeLabels")), gpupool.AgentPoolLabel)})
		}
		return out
	},
}

// queueingSystem says which batch queueing system a resource belongs to:
// "Kueue", "Volcano" or "".
func queueingSystem(r Resource) string {
	group, _, _ := kubeKind(r)
	chart := strings.ToLower(str(r.Inputs["chart"]) + " " + str(r.Inputs["name"]))
	isChart := strings.Contains(r.Type, ":helm.sh/")
	switch {
	case group == KueueGroup, isChart && strings.Contains(chart, "kueue"):
		return "Kueue"
	case strings.HasSuffix(group, "volcano.sh"), isChart && strings.Contains(chart, "volcano"):
		return "Volcano"
	}
	return ""
}

var ruleQueueSingleSystem = Rule{
	ID:       "AKSML-QUE-003",
	Title:    "One primary queueing system: not both Kueue and Volcano",
	Severity: Advisory,
	Source:   srcMLOps + ": standardize on one primary queueing and gang-scheduling system; SPEC C5.5",
	Stack: func(s *Stack) []Finding {
		var kueue, volcano *Resource
		for i, r := range s.Resources {
			switch queueingSystem(r) {
			case "Kueue":
				if kueue == nil {
					kueue = &s.Resources[i]
				}
			case "Volcano":
				if volcano == nil {
					volcano = &s.Resources[i]
				}
			}
		}
		if kueue == nil || volcano == nil {
			return nil
		}
		return []Finding{{URN: resourceRef(*volcano), Message: fmt.Sprintf(
			"the stack runs both Kueue (%s) and Volcano (%s); pick one primary queueing and gang-scheduling system per cluster unless you have a tested interoperability design",
			describe(*kueue), describe(*volcano))}}
	},
}

var ruleQueuePriorityClasses = Rule{
	ID:       "AKSML-QUE-004",
	Title:    "Workloads name priority classes the stack defines",
	Severity: Mandatory,
	Source:   srcMLOps + ", \"Configure training and inference priorities\" (PriorityClass and WorkloadPriorityClass pairs); SPEC C5.2, C5.3",
	Stack: func(s *Stack) []Finding {
		// Checked only against a stack that defines priority classes itself: a
		// stack of workloads alone relies on the platform stack's classes.
		pcs, wpcs := map[string]bool{}, map[string]bool{}
		for _, r := range s.Resources {
			switch {
			case isKind(r, "scheduling.k8s.io", "PriorityClass"):
				pcs[objName(r)] = true
			case isKind(r, KueueGroup, "WorkloadPriorityClass"):
				wpcs[objName(r)] = true
			}
		}
		var out []Finding
		for _, r := range s.Resources {
			if want := workloadLabels(r)[WorkloadPriorityClassLabel]; want != "" && len(wpcs) > 0 && !wpcs[want] {
				out = append(out, Finding{URN: resourceRef(r), Message: fmt.Sprintf(
					"%s names WorkloadPriorityClass %q (label %s), which the stack does not define (it defines %s); Kueue keeps such a job suspended with only a log line: name a defined level or add the level",
					describe(r), want, WorkloadPriorityClassLabel, strings.Join(sortedKeys(wpcs), ", "))})
			}
			if len(pcs) == 0 {
				continue
			}
			for _, t := range podTemplates(r) {
				pc := str(t.spec["priorityClassName"])
				if pc == "" || strings.HasPrefix(pc, "system-") || pcs[pc] {
					continue
				}
				out = append(out, Finding{URN: resourceRef(r), Message: fmt.Sprintf(
					"%s%s sets priorityClassName %q, which the stack does not define (it defines %s); the API server rejects its pods: name a defined PriorityClass or add it",
					describe(r), t.where(), pc, strings.Join(sortedKeys(pcs), ", "))})
			}
		}
		return out
	},
}
