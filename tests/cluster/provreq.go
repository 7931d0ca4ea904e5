package cluster

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	autoscaling "k8s.io/autoscaler/cluster-autoscaler/apis/provisioningrequest/autoscaling.x-k8s.io/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aksml/aksml/components/gpupool"
)

// Reasons the stand-in gives on a ProvisioningRequest's Provisioned condition. The
// cluster autoscaler on AKS reports CapacityIsNotFound when a pool cannot reach the
// requested size ("Provision capacity for Kueue batch jobs with the cluster autoscaler on
// AKS", Troubleshooting, https://learn.microsoft.com/azure/aks/configure-kueue-with-cluster-autoscaler).
const (
	ReasonProvisioned        = "Provisioned"
	ReasonCapacityIsNotFound = "CapacityIsNotFound"
)

// NodeProvisioner stands in for the cluster autoscaler's best-effort-atomic-scale-up
// provisioning class on a control plane without an autoscaler, the way
// RunVolumeProvisioner stands in for the CSI provisioners: for each ProvisioningRequest
// of that class not yet Provisioned, it finds the pool its pods select (the AKS agentpool
// label Kueue's ResourceFlavor puts into the request's PodTemplates), checks the pods
// against the pool's template node, as the autoscaler's Azure provider builds it for a
// scale set without nodes (the pool's labels, taints and VM size, plus the
// scale-from-zero tags: `k8s.io_cluster-autoscaler_node-template_label_<key>` and
// `..._resources_<name>`, '_' for '/'; "Cluster Autoscaler on Azure", "Scaling a VMSS node
// group to and from 0",
// https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/cloudprovider/azure/README.md):
// every node selector matched, every NoSchedule/NoExecute taint tolerated, and counts the
// nodes the pods need (whole pods per node by their requests and the template's
// allocatable). Then it either adds all those nodes
// to the pool at once and sets Accepted and Provisioned True, or, when the pool would
// exceed its maximum (Pools' Count) or the cloud has fewer nodes left (Available), adds
// none and sets Provisioned False with reason CapacityIsNotFound ("Provisioning Request"
// proposal, best-effort-atomic-scale-up: all or nothing,
// https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/proposals/provisioning-request.md).
// It does not pack pods onto nodes that already run other pods: every request gets new
// nodes. Requests of other classes are left alone.
type NodeProvisioner struct {
	// Env is where the nodes are created.
	Env *Env
	// Pools are the pools nodes can be added to, each with Count its maximum node count.
	Pools []NodePool
	// Available limits, by pool name, how many nodes the cloud can still add (regional
	// capacity or quota); a pool not listed is limited by its maximum only.
	Available map[string]int
	// IgnoreTemplateTags builds template nodes without the scale-from-zero tags, as an
	// autoscaler that does not read them would.
	IgnoreTemplateTags bool
}

// Scale-set tag prefixes the autoscaler's Azure provider reads into a template node,
// written as components/gpupool writes them.
const (
	templateLabelTag    = gpupool.NodeTemplateLabelTagPrefix
	templateResourceTag = gpupool.NodeTemplateResourcesTagPrefix
)

// template returns the labels and allocatable of pool's template node.
func (p *NodeProvisioner) template(pool NodePool) (map[string]string, corev1.ResourceList, error) {
	labels := maps.Clone(pool.Labels)
	alloc := pool.Allocatable.DeepCopy()
	if p.IgnoreTemplateTags {
		return labels, alloc, nil
	}
	for k, v := range pool.Tags {
		if key, ok := strings.CutPrefix(k, templateLabelTag); ok {
			labels[strings.ReplaceAll(key, "_", "/")] = v
		}
		if name, ok := strings.CutPrefix(k, templateResourceTag); ok {
			q, err := resource.ParseQuantity(v)
			if err != nil {
				return nil, nil, fmt.Errorf("pool %s: tag %s: %w", pool.Name, k, err)
			}
			alloc[corev1.ResourceName(strings.ReplaceAll(name, "_", "/"))] = q
		}
	}
	return labels, alloc, nil
}

// Run provisions every interval until ctx ends.
func (p *NodeProvisioner) Run(ctx context.Context, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := p.provisionAll(ctx); err != nil && ctx.Err() == nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// provisionAll handles every ProvisioningRequest of the atomic class that is not
// Provisioned yet, once.
func (p *NodeProvisioner) provisionAll(ctx context.Context) error {
	var requests autoscaling.ProvisioningRequestList
	if err := p.Env.Client.List(ctx, &requests); err != nil {
		return err
	}
	for i := range requests.Items {
		pr := &requests.Items[i]
		if pr.Spec.ProvisioningClassName != autoscaling.ProvisioningClassBestEffortAtomicScaleUp ||
			apimeta.IsStatusConditionTrue(pr.Status.Conditions, autoscaling.Provisioned) {
			continue
		}
		if err := p.provision(ctx, pr); err != nil {
			return fmt.Errorf("ProvisioningRequest %s/%s: %w", pr.Namespace, pr.Name, err)
		}
	}
	return nil
}

// provision adds the nodes pr needs, all or none, and records the outcome on pr.
func (p *NodeProvisioner) provision(ctx context.Context, pr *autoscaling.ProvisioningRequest) error {
	needed := map[string]int{}
	for _, ps := range pr.Spec.PodSets {
		tmpl := &corev1.PodTemplate{}
		if err := p.Env.Client.Get(ctx, client.ObjectKey{Namespace: pr.Namespace, Name: ps.PodTemplateRef.Name}, tmpl); err != nil {
			return err
		}
		pool, perNode, why, err := p.fit(&tmpl.Template.Spec)
		if err != nil {
			return err
		}
		if why != "" {
			return p.record(ctx, pr, false, ReasonCapacityIsNotFound, why)
		}
		needed[pool.Name] += (int(ps.Count) + perNode - 1) / perNode
	}
	var nodes []*corev1.Node
	var added []string
	for _, pool := range p.Pools {
		n := needed[pool.Name]
		if n == 0 {
			continue
		}
		var existing corev1.NodeList
		if err := p.Env.Client.List(ctx, &existing, client.MatchingLabels{AgentPoolLabel: pool.Name}); err != nil {
			return err
		}
		have := len(existing.Items)
		if have+n > pool.Count {
			return p.record(ctx, pr, false, ReasonCapacityIsNotFound, fmt.Sprintf("pool %s needs %d more nodes but has %d of its maximum %d", pool.Name, n, have, pool.Count))
		}
		if left, limited := p.Available[pool.Name]; limited && n > left {
			return p.record(ctx, pr, false, ReasonCapacityIsNotFound, fmt.Sprintf("pool %s needs %d more nodes but the cloud has %d", pool.Name, n, left))
		}
		nodes = append(nodes, pool.nodeRange(have, n)...)
		added = append(added, fmt.Sprintf("%d × %s", n, pool.Name))
	}
	if err := p.Env.createNodes(ctx, nodes); err != nil {
		return err
	}
	return p.record(ctx, pr, true, ReasonProvisioned, "added "+strings.Join(added, ", "))
}

// fit returns the pool whose nodes a pod of spec selects and how many such pods its
// template node holds, or why none can.
func (p *NodeProvisioner) fit(spec *corev1.PodSpec) (NodePool, int, string, error) {
	name := spec.NodeSelector[AgentPoolLabel]
	i := slices.IndexFunc(p.Pools, func(pool NodePool) bool { return pool.Name == name })
	if i < 0 {
		return NodePool{}, 0, fmt.Sprintf("the pods select no known pool (%s=%q)", AgentPoolLabel, name), nil
	}
	pool := p.Pools[i]
	labels, alloc, err := p.template(pool)
	if err != nil {
		return pool, 0, "", err
	}
	for k, v := range spec.NodeSelector {
		if labels[k] != v {
			return pool, 0, fmt.Sprintf("the pods select %s=%s, which pool %s's template node does not carry", k, v, pool.Name), nil
		}
	}
	for _, taint := range pool.Taints {
		if (taint.Effect == corev1.TaintEffectNoSchedule || taint.Effect == corev1.TaintEffectNoExecute) &&
			!slices.ContainsFunc(spec.Tolerations, func(t corev1.Toleration) bool { return t.ToleratesTaint(klog.Background(), &taint, false) }) {
			return pool, 0, fmt.Sprintf("the pods do not tolerate pool %s's taint %s", pool.Name, taint.ToString()), nil
		}
	}
	requests := corev1.ResourceList{}
	for _, c := range spec.Containers {
		for r, q := range c.Resources.Requests {
			sum := requests[r]
			sum.Add(q)
			requests[r] = sum
		}
	}
	perNode := -1
	var names []string
	for r := range requests {
		names = append(names, string(r))
	}
	sort.Strings(names)
	for _, r := range names {
		req, offer := requests[corev1.ResourceName(r)], alloc[corev1.ResourceName(r)]
		if req.IsZero() {
			continue
		}
		n := int(offer.MilliValue() / req.MilliValue())
		if n == 0 {
			return pool, 0, fmt.Sprintf("a pod requests %s %s, more than pool %s's template node offers (%s)", req.String(), r, pool.Name, offer.String()), nil
		}
		if perNode < 0 || n < perNode {
			perNode = n
		}
	}
	if perNode < 0 {
		return pool, 0, "the pods request no resources", nil
	}
	return pool, perNode, "", nil
}

// record sets pr's Provisioned condition (and Accepted) unless it already says so.
func (p *NodeProvisioner) record(ctx context.Context, pr *autoscaling.ProvisioningRequest, provisioned bool, reason, message string) error {
	status := metav1.ConditionFalse
	if provisioned {
		status = metav1.ConditionTrue
	}
	if c := apimeta.FindStatusCondition(pr.Status.Conditions, autoscaling.Provisioned); c != nil &&
		c.Status == status && c.Reason == reason && c.Message == message {
		return nil
	}
	orig := pr.DeepCopy()
	apimeta.SetStatusCondition(&pr.Status.Conditions, metav1.Condition{Type: autoscaling.Accepted, Status: metav1.ConditionTrue, Reason: "Accepted", ObservedGeneration: pr.Generation})
	apimeta.SetStatusCondition(&pr.Status.Conditions, metav1.Condition{Type: autoscaling.Provisioned, Status: status, Reason: reason, Message: message, ObservedGeneration: pr.Generation})
	return p.Env.Client.Status().Patch(ctx, pr, client.MergeFrom(orig))
}
