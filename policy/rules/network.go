package rules

import (
	"fmt"
	"strings"
)

// ncclEnv are the NCCL environment variables of the AKS MLOps best practices' TCP baseline.
var ncclEnv = []string{"NCCL_SOCKET_IFNAME", "NCCL_IB_DISABLE", "TORCH_NCCL_ASYNC_ERROR_HANDLING"}

// isDistributedTraining reports whether r is a PyTorchJob or TFJob with more
// than one replica.
func isDistributedTraining(r Resource) bool {
	return (isKind(r, "kubeflow.org", "PyTorchJob") || isKind(r, "kubeflow.org", "TFJob")) && workers(r) > 1
}

// selectsAll reports whether a label selector selects the pods of every
// template.
func selectsAll(sel map[string]any, ts []podTemplate) bool {
	for _, t := range ts {
		if !selectorMatches(sel, t.labels) {
			return false
		}
	}
	return len(ts) > 0
}

// peersAllowed reports whether a NetworkPolicy rule (ingress or egress)
// allows all ports to or from the job's own pods in the same namespace.
func peersAllowed(rule map[string]any, peerField string, ts []podTemplate) bool {
	if len(listOf(rule["ports"])) > 0 {
		return false
	}
	peers := listOf(rule[peerField])
	if len(peers) == 0 {
		return true
	}
	for _, p := range peers {
		pm := mapOf(p)
		if pm["namespaceSelector"] == nil && pm["ipBlock"] == nil && selectsAll(mapOf(pm["podSelector"]), ts) {
			return true
		}
	}
	return false
}

// allowsDNS reports whether an egress rule allows port 53.
func allowsDNS(rule map[string]any) bool {
	ports := listOf(rule["ports"])
	if len(ports) == 0 {
		return len(listOf(rule["to"])) == 0
	}
	for _, p := range ports {
		if port, ok := num(mapOf(p)["port"]); ok && port == 53 {
			return true
		}
		if str(mapOf(p)["port"]) == "dns" || str(mapOf(p)["port"]) == "dns-tcp" {
			return true
		}
	}
	return false
}

var ruleNetNCCLPolicy = Rule{
	ID:       "AKSML-NET-001",
	Title:    "Distributed PyTorchJobs and TFJobs have a NetworkPolicy allowing NCCL between their pods and DNS",
	Severity: Mandatory,
	Source:   srcMLOps + ", \"Configure NCCL communication with the AKS CNI\" (allow-pytorch-nccl); SPEC C7.4",
	Stack: func(s *Stack) []Finding {
		var out []Finding
		for _, job := range s.Resources {
			if !isDistributedTraining(job) {
				continue
			}
			ts := podTemplates(job)
			var selecting int
			var ingress, egress, dns bool
			for _, np := range s.Resources {
				if !isKind(np, "networking.k8s.io", "NetworkPolicy") || objNamespace(np) != objNamespace(job) ||
					!selectsAll(mapOf(np.Get("spec.podSelector")), ts) {
					continue
				}
				selecting++
				for _, rule := range listOf(np.Get("spec.ingress")) {
					ingress = ingress || peersAllowed(mapOf(rule), "from", ts)
				}
				for _, rule := range listOf(np.Get("spec.egress")) {
					egress = egress || peersAllowed(mapOf(rule), "to", ts)
					dns = dns || allowsDNS(mapOf(rule))
				}
			}
			var missing []string
			switch {
			case selecting == 0:
				missing = append(missing, "no NetworkPolicy in namespace "+objNamespace(job)+" selects its pods")
			default:
				if !ingress {
					missing = append(missing, "no ingress rule allows all ports from the job's own pods")
				}
				if !egress {
					missing = append(missing, "no egress rule allows all ports to the job's own pods")
				}
				if !dns {
					missing = append(missing, "no egress rule allows DNS (port 53)")
				}
			}
			if len(missing) > 0 {
				out = append(out, Finding{URN: resourceRef(job), Message: fmt.Sprintf(
					"%s runs %d workers but %s; add a NetworkPolicy selecting the job's pods (e.g. by a training-job label) with policyTypes Ingress and Egress, ingress from and egress to those pods on all ports (NCCL negotiates dynamic ports), and egress to kube-dns on port 53",
					describe(job), workers(job), strings.Join(missing, ", "))})
			}
		}
		return out
	},
}

var ruleNetNCCLEnv = Rule{
	ID:       "AKSML-NET-002",
	Title:    "PyTorchJob GPU containers set the NCCL baseline environment",
	Severity: Advisory,
	Source:   srcMLOps + ": NCCL baseline (NCCL_SOCKET_IFNAME=eth0, NCCL_IB_DISABLE=1, TORCH_NCCL_ASYNC_ERROR_HANDLING=1); SPEC C7.4",
	Resource: perResource(func(r Resource) []string {
		if !isKind(r, "kubeflow.org", "PyTorchJob") {
			return nil
		}
		var out []string
		for _, t := range podTemplates(r) {
			for _, c := range listOf(t.spec["containers"]) {
				cm := mapOf(c)
				if len(gpuResourceNames(cm)) == 0 || cm["envFrom"] != nil {
					continue
				}
				set := map[string]bool{}
				for _, e := range listOf(cm["env"]) {
					set[str(mapOf(e)["name"])] = true
				}
				var missing []string
				for _, name := range ncclEnv {
					if !set[name] {
						missing = append(missing, name)
					}
				}
				if len(missing) > 0 {
					out = append(out, fmt.Sprintf("%s%s: %s does not set %s; set NCCL_SOCKET_IFNAME=eth0, NCCL_IB_DISABLE=1 (0 only on validated RDMA sizes) and TORCH_NCCL_ASYNC_ERROR_HANDLING=1 so that NCCL uses the pod network and fails instead of hanging",
						describe(r), t.where(), containerName(cm), strings.Join(missing, ", ")))
				}
			}
		}
		return out
	}),
}
