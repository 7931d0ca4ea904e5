package rules

import (
	"fmt"
	"strings"
)

// Image fragments that identify the GPU software DaemonSets.
const (
	// DevicePluginImage identifies the NVIDIA device plugin
	// (nvcr.io/nvidia/k8s-device-plugin, AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops)).
	DevicePluginImage = "k8s-device-plugin"
	// DCGMExporterImage identifies the NVIDIA DCGM exporter.
	DCGMExporterImage = "dcgm-exporter"
)

// daemonSetsWithImage returns the DaemonSets of the stack that run an image
// containing fragment.
func daemonSetsWithImage(s *Stack, fragment string) []Resource {
	var out []Resource
	for _, r := range s.Resources {
		if !isKind(r, "apps", "DaemonSet") {
			continue
		}
		for _, t := range podTemplates(r) {
			if runsImage(t.spec, fragment) {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// runsImage reports whether a container of the pod spec runs an image
// containing fragment.
func runsImage(spec map[string]any, fragment string) bool {
	for _, c := range containers(spec) {
		if strings.Contains(str(c["image"]), fragment) {
			return true
		}
	}
	return false
}

// landsOn reports whether the DaemonSet's pods may run on the pool's nodes.
func landsOn(ds Resource, p Pool) bool {
	for _, t := range podTemplates(ds) {
		if schedulableOn(t.spec, p.NodeLabels(), p.NodeTaints()) {
			return true
		}
	}
	return false
}

// onManagedPools reports each DaemonSet of the list that may run on a GPU
// pool whose GPU stack AKS manages.
func onManagedPools(s *Stack, dss []Resource, what, fix string) []Finding {
	var out []Finding
	for _, ds := range dss {
		for _, p := range gpuPools(s) {
			if p.IsManaged() && landsOn(ds, p) {
				out = append(out, Finding{URN: resourceRef(ds), Message: fmt.Sprintf(
					"%s can run on %s, whose GPU stack AKS manages (gpuProfile.nvidia.managementMode Managed) and which already runs the AKS %s; %s",
					describe(ds), p.Describe(), what, fix)})
			}
		}
	}
	return out
}

var ruleDevicePluginManaged = Rule{
	ID:       "AKSML-DEV-001",
	Title:    "No NVIDIA device plugin DaemonSet can land on a Managed GPU pool",
	Severity: Mandatory,
	Source:   srcManagedGPU + " (managed GPU stack); " + srcMLOps + ": do not run several NVIDIA device plugin DaemonSets on the same nodes; SPEC C4.4",
	Stack: func(s *Stack) []Finding {
		return onManagedPools(s, daemonSetsWithImage(s, DevicePluginImage), "device plugin",
			"keep it off that pool with a node affinity on kubernetes.azure.com/agentpool (In the DriverOnly pools, or NotIn the Managed ones), or do not install it when every pool is Managed")
	},
}

var ruleDevicePluginTwice = Rule{
	ID:       "AKSML-DEV-002",
	Title:    "At most one NVIDIA device plugin DaemonSet can land on any GPU node",
	Severity: Mandatory,
	Source:   srcMLOps + ": do not run several NVIDIA device plugin DaemonSets on the same nodes; SPEC C4.4",
	Stack: func(s *Stack) []Finding {
		plugins := daemonSetsWithImage(s, DevicePluginImage)
		if len(plugins) < 2 {
			return nil
		}
		var out []Finding
		pools := gpuPools(s)
		for i, b := range plugins {
			for _, a := range plugins[:i] {
				if shared := sharedPools(a, b, pools); shared != "" {
					out = append(out, Finding{URN: resourceRef(b), Message: fmt.Sprintf(
						"%s and %s are both NVIDIA device plugins and can both run on %s; keep one device plugin per node by giving them disjoint node selectors, or remove one",
						describe(b), describe(a), shared)})
				}
			}
		}
		return out
	},
}

// sharedPools names the GPU pools both DaemonSets may run on; without pools
// in the stack, "the same GPU nodes" unless their node selectors exclude
// each other.
func sharedPools(a, b Resource, pools []Pool) string {
	if len(pools) == 0 {
		if disjointNodeSelectors(a, b) {
			return ""
		}
		return "the same GPU nodes"
	}
	var names []string
	for _, p := range pools {
		if landsOn(a, p) && landsOn(b, p) {
			names = append(names, p.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "pool(s) " + strings.Join(names, ", ")
}

// disjointNodeSelectors reports whether two workloads' node selectors ask
// for different values of the same label.
func disjointNodeSelectors(a, b Resource) bool {
	for _, ta := range podTemplates(a) {
		for _, tb := range podTemplates(b) {
			sb := stringMap(tb.spec["nodeSelector"])
			for k, v := range stringMap(ta.spec["nodeSelector"]) {
				if w, ok := sb[k]; ok && w != v {
					return true
				}
			}
		}
	}
	return false
}

var ruleDCGMManaged = Rule{
	ID:       "AKSML-DEV-003",
	Title:    "No DCGM exporter DaemonSet duplicates the AKS-managed exporter on a Managed GPU pool",
	Severity: Advisory,
	Source:   srcManagedGPU + " (managed DCGM exporter, port 19400); " + srcMLOps + ": do not deploy a duplicate exporter; SPEC C4.4, C6.1",
	Stack: func(s *Stack) []Finding {
		return onManagedPools(s, daemonSetsWithImage(s, DCGMExporterImage), "DCGM exporter",
			"keep it off that pool with a node affinity on kubernetes.azure.com/agentpool and scrape the managed exporter on port 19400 instead")
	},
}
