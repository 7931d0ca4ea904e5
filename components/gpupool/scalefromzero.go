package gpupool

import (
	"maps"
	"strconv"
	"strings"
)

// Scale-from-zero hints of the cluster autoscaler's Azure provider
// ("Cluster Autoscaler on Azure", section "Scaling a VMSS node group to
// and from 0", https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/cloudprovider/azure/README.md).
// With no node in a scale set the autoscaler builds its template node from
// the VM size (cpu, memory, nvidia.com/gpu) and the pool's labels and
// taints; what a node gains only after it boots (a MIG manager's labels,
// the device plugin's MIG resources) it reads from scale-set tags of these
// forms, a '/' in the name written as '_' (Azure tag names cannot hold
// '/'). AKS puts a node pool's tags on its scale set ("Use Azure tags in
// Azure Kubernetes Service", https://learn.microsoft.com/azure/aks/use-tags).
const (
	// NodeTemplateLabelTagPrefix prefixes a tag that adds a label to the
	// template node: `<prefix><label key>: <value>`.
	NodeTemplateLabelTagPrefix = "k8s.io_cluster-autoscaler_node-template_label_"
	// NodeTemplateResourcesTagPrefix prefixes a tag that sets a resource
	// of the template node: `<prefix><resource name>: <quantity>`
	// (kubernetes/autoscaler#3532).
	NodeTemplateResourcesTagPrefix = "k8s.io_cluster-autoscaler_node-template_resources_"
	// MIGConfigStateSuccess is the value the MIG manager sets on
	// MIGConfigStateLabel once a node's layout is applied.
	MIGConfigStateSuccess = "success"
)

// templateTagName writes a label key or resource name into a tag name
// below prefix: '/' becomes '_', which the autoscaler turns back.
func templateTagName(prefix, name string) string {
	return prefix + strings.ReplaceAll(name, "/", "_")
}

// ScaleFromZeroTags are the scale-set tags an autoscaled MIG pool needs to
// be scaled up from zero nodes, nil for other pools. From zero, the
// autoscaler's template node has the VM size's whole GPUs and the pool's
// labels, so a pod that requests MIG instances (nvidia.com/mig-1g.10gb
// under Mixed, or more nvidia.com/gpu than the SKU has under Single) or
// selects nvidia.com/mig.config.state=success (the MIG trial on a
// DriverOnly or None pool) fits no template and never triggers a scale-up:
// the tags declare the MIG resource at what one node offers (instances per
// GPU × GPUs) and, on pools whose MIG manager labels the node, the state
// label. Managed pools are not autoscaled and get none.
func (s Spec) ScaleFromZeroTags() map[string]string {
	if !s.MIGEnabled() || !s.IsAutoscaled() {
		return nil
	}
	sku, known := s.SKU()
	_, perGPU := s.MIGDevicesPerGPU()
	if !known || perGPU == 0 {
		return nil
	}
	tags := map[string]string{
		templateTagName(NodeTemplateResourcesTagPrefix, s.MIGResourceName()): strconv.Itoa(perGPU * sku.GPUsPerNode),
	}
	if _, labelled := s.Labels()[MIGConfigLabel]; labelled {
		tags[templateTagName(NodeTemplateLabelTagPrefix, MIGConfigStateLabel)] = MIGConfigStateSuccess
	}
	return tags
}

// poolTags are the tags sent with a pool: the stack's tags, then the
// pool's scale-from-zero hints, which a stack tag cannot override.
func poolTags(s Spec, tags map[string]string) map[string]string {
	hints := s.ScaleFromZeroTags()
	if len(hints) == 0 {
		return tags
	}
	out := maps.Clone(tags)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, hints)
	return out
}
