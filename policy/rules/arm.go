package rules

import (
	"fmt"
	"slices"
)

// Rules over what aksml sends to Azure Resource Manager in ARM templates
// (deployment stacks), for invariants AKS enforces only on a real
// subscription, in the middle of `pulumi up`.

// perTemplatePool adapts a check over one agentPools resource of an ARM
// template to a Rule.Resource function.
func perTemplatePool(check func(p Pool, all []Pool) []string) func(Resource, *Stack) []string {
	return func(r Resource, _ *Stack) []string {
		var out []string
		pools := poolsOf(r)
		for _, p := range pools {
			if p.InTemplate {
				out = append(out, check(p, pools)...)
			}
		}
		return out
	}
}

// dependsOnPool reports whether p's dependsOn names the pool other.
func dependsOnPool(p Pool, other string) bool { return slices.Contains(p.DependsOn, other) }

var ruleARMSerialPools = Rule{
	ID:       "AKSML-ARM-001",
	Title:    "Agent pools in one ARM template are written one at a time (a dependsOn chain)",
	Severity: Mandatory,
	Source:   "AKS refuses a second agent-pool operation while one runs (409 OperationNotAllowed; Azure/AKS#1913, cilium/cilium#25944); ARM deploys template resources in parallel unless dependsOn orders them; SPEC C2.3",
	Resource: perTemplatePool(func(p Pool, all []Pool) []string {
		successors := 0
		for _, other := range all {
			if other.InTemplate && other.Name != p.Name && dependsOnPool(other, p.Name) {
				successors++
			}
		}
		var out []string
		if len(predecessors(p, all)) == 0 && p.Name != firstTemplatePool(all) {
			out = append(out, fmt.Sprintf("%s does not depend on another pool of its template, so ARM writes it in parallel with them and AKS refuses the second write; add dependsOn: [resourceId('Microsoft.ContainerService/managedClusters/agentPools', <cluster>, '<previous pool>')] so the pools form one chain", p.Describe()))
		}
		if successors > 1 {
			out = append(out, fmt.Sprintf("%s is the dependsOn of %d pools, which ARM then writes in parallel; chain them one after another", p.Describe(), successors))
		}
		return out
	}),
}

// predecessors returns the names of the other template pools p depends on.
func predecessors(p Pool, all []Pool) []string {
	var out []string
	for _, other := range all {
		if other.InTemplate && other.Name != p.Name && dependsOnPool(p, other.Name) {
			out = append(out, other.Name)
		}
	}
	return out
}

// firstTemplatePool is the name of the first template pool (in template
// order) that depends on no other pool: the head of the chain.
func firstTemplatePool(all []Pool) string {
	for _, p := range all {
		if p.InTemplate && len(predecessors(p, all)) == 0 {
			return p.Name
		}
	}
	return ""
}

var ruleARMAutoscaledNoCount = Rule{
	ID:       "AKSML-ARM-002",
	Title:    "Autoscaled agent pools in ARM templates send no count",
	Severity: Mandatory,
	Source:   "Azure Verified Module for AKS sends no count when minCount/maxCount are set; every stack update PUTs every pool of its template, so a count resets the autoscaler's choice",
	Resource: perTemplatePool(func(p Pool, _ []Pool) []string {
		if !p.AutoScaling || p.Count == nil {
			return nil
		}
		return []string{fmt.Sprintf("%s enables the cluster autoscaler and also sends count %d; every update of the template would reset the node count the autoscaler chose, so remove count", p.Describe(), *p.Count)}
	}),
}

var ruleARMManagedCount = Rule{
	ID:       "AKSML-ARM-003",
	Title:    "AKS-managed GPU pools run an explicit count with the cluster autoscaler off",
	Severity: Mandatory,
	Source:   "\"Create a fully managed GPU node pool on AKS (preview)\", https://learn.microsoft.com/azure/aks/aks-managed-gpu-nodes: the cluster autoscaler is not supported on managed GPU pools in preview; SPEC C2.3",
	Resource: perGPUPool(func(p Pool, _ *Stack) []string {
		if !p.IsManaged() {
			return nil
		}
		var out []string
		if p.AutoScaling {
			out = append(out, fmt.Sprintf("%s is an AKS-managed GPU pool (gpuProfile.nvidia.managementMode Managed) with the cluster autoscaler on, which AKS does not support for managed GPU pools in preview; set enableAutoScaling false and an explicit count", p.Describe()))
		}
		if p.Count == nil && !p.IsUnknown("count") {
			out = append(out, fmt.Sprintf("%s is an AKS-managed GPU pool without count; set the node count it should run (0 while idle), since no autoscaler sets it", p.Describe()))
		}
		return out
	}),
}
