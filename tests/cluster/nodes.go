package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aksml/aksml/components/cluster"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/gpustack"
	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/policy/rules"
	"github.com/aksml/aksml/stacks"
)

// Labels and taints AKS puts on every node of a pool. Sources: "Use labels in an Azure
// Kubernetes Service (AKS) cluster", https://learn.microsoft.com/en-us/azure/aks/use-labels
// (kubernetes.azure.com/agentpool, agentpool, kubernetes.azure.com/mode,
// node.kubernetes.io/instance-type, topology.kubernetes.io/zone, kubernetes.azure.com/accelerator),
// and "Add an Azure Spot node pool to an AKS cluster",
// https://learn.microsoft.com/en-us/azure/aks/spot-node-pool (spot pools get the label and
// the NoSchedule taint kubernetes.azure.com/scalesetpriority=spot).
const (
	AgentPoolLabel       = gpupool.AgentPoolLabel
	LegacyAgentPoolLabel = "agentpool"
	ModeLabel            = "kubernetes.azure.com/mode"
	InstanceTypeLabel    = "node.kubernetes.io/instance-type"
	ZoneLabel            = "topology.kubernetes.io/zone"
	AcceleratorLabel     = "kubernetes.azure.com/accelerator"
	HostnameLabel        = "kubernetes.io/hostname"
	ScaleSetPriorityKey  = gpupool.SpotTaintKey

	// KWOKNodeAnnotation marks the simulated nodes KWOK manages
	// (--manage-nodes-with-annotation-selector); annotations do not take part in
	// scheduling, so the nodes carry no label real AKS nodes lack.
	KWOKNodeAnnotation = "kwok.x-k8s.io/node"
	kwokNodeValue      = "fake"
)

// NodePool is one node pool of a stack as AKS runs it: what every node of the pool is
// labelled, tainted and able to allocate.
type NodePool struct {
	// Name is the AKS pool name.
	Name string
	// Mode is System or User.
	Mode string
	// VMSize is the pool's VM size.
	VMSize string
	// Count is the number of nodes to simulate (the pool's maxCount unless changed).
	Count int
	// Zones are the pool's availability zones; nodes are spread over them in order.
	Zones []string
	// Location is the Azure region (zonal nodes are labelled <location>-<zone>).
	Location string
	// Spot is true on spot pools.
	Spot bool
	// GPU is true on pools whose VM size has GPUs.
	GPU bool
	// Labels are the labels of every node of the pool (AKS's and the pool's nodeLabels).
	Labels map[string]string
	// Taints are the taints of every node (the pool's nodeTaints and AKS's spot taint).
	Taints []corev1.Taint
	// Allocatable is what one node offers to pods.
	Allocatable corev1.ResourceList
	// Tags are the tags the stack sends with the pool, which AKS puts on its scale set
	// (the cluster autoscaler's scale-from-zero hints among them, gpupool.ScaleFromZeroTags).
	Tags map[string]string
}

// existingClusterLocation labels the nodes of an existing-cluster stack, whose region the
// stack does not know.
const existingClusterLocation = "local"

// StackNodePools returns the node pools of a synthesized stack s with its parsed config
// cfg: the system and CPU pools from the ManagedCluster's agentPoolProfiles, the GPU pools
// from the typed AgentPools and the agentPools of the pools' ARM template, each with the
// properties the stack sends to ARM. An existing-cluster stack (local) has no Azure
// resources: its GPU pools are the properties aksml would send for its config
// (gpupool.TemplateProperties), and the cluster stands for one aksml creates with the
// default system and CPU pools (components/cluster defaults).
//
// Allocatable CPU and memory come from gpupool.NodeAllocatable (AKS's documented
// reservations); GPU resources are what the pool's GPU stack advertises (see gpuResources).
func StackNodePools(s *rules.Stack, cfg *stacks.Config) ([]NodePool, error) {
	props, location, err := poolProperties(s, cfg)
	if err != nil {
		return nil, err
	}
	specs := map[string]gpupool.Spec{}
	for _, p := range cfg.GPUPools {
		specs[p.Name] = p
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	var (
		pools []NodePool
		errs  []error
	)
	for _, name := range names {
		p, err := nodePool(name, location, props[name], specs, cfg.GPUStack)
		if err != nil {
			errs = append(errs, fmt.Errorf("pool %s: %w", name, err))
			continue
		}
		pools = append(pools, p)
	}
	for name := range specs {
		if _, ok := props[name]; !ok {
			errs = append(errs, fmt.Errorf("GPU pool %s of the config has no agent pool in the synthesized stack", name))
		}
	}
	return pools, errors.Join(errs...)
}

// poolProperties returns the properties of every agent pool of the stack by name (read by
// rules.AgentPools, the guardrails' pool reader), and the cluster's location.
func poolProperties(s *rules.Stack, cfg *stacks.Config) (map[string]map[string]any, string, error) {
	props := map[string]map[string]any{}
	location := ""
	for _, r := range s.Resources {
		if strings.HasPrefix(r.Type, "azure-native:containerservice") && strings.HasSuffix(r.Type, ":ManagedCluster") {
			location, _ = r.Inputs["location"].(string)
		}
	}
	for _, p := range rules.AgentPools(s) {
		if p.Name == "" || p.Props == nil {
			return nil, "", fmt.Errorf("%s: agent pool %q has no recognisable name or properties", p.Resource.URN, p.Name)
		}
		props[p.Name] = p.Props
	}
	if cfg.ExistingCluster != nil {
		if len(props) > 0 {
			return nil, "", errors.New("an existing-cluster stack registers agent pools")
		}
		// The cluster aksml would create with its defaults: the system pool with the
		// CriticalAddonsOnly taint and the CPU pool labelled workload=cpu.
		props[cluster.SystemPoolName] = map[string]any{
			"mode": "System", "vmSize": cluster.DefaultSystemVMSize,
			"maxCount": float64(cluster.DefaultSystemMaxCount), "nodeTaints": []any{cluster.SystemPoolTaint},
		}
		props[cluster.CPUPoolName] = map[string]any{
			"mode": "User", "vmSize": cluster.DefaultCPUVMSize,
			"maxCount": float64(cluster.DefaultCPUMaxCount), "nodeLabels": map[string]any{"workload": cluster.CPUWorkloadLabel},
		}
		for _, p := range cfg.GPUPools {
			props[p.Name] = normalise(gpupool.TemplateProperties(p, nil))
		}
		location = existingClusterLocation
	}
	if len(props) == 0 {
		return nil, "", errors.New("the stack has no agent pools")
	}
	return props, location, nil
}

// normalise turns typed Go values (map[string]string, []string, int) into the JSON-like
// form synth records (map[string]any, []any, float64).
func normalise(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		switch t := v.(type) {
		case map[string]string:
			mm := map[string]any{}
			for kk, vv := range t {
				mm[kk] = vv
			}
			out[k] = mm
		case []string:
			l := make([]any, len(t))
			for i, s := range t {
				l[i] = s
			}
			out[k] = l
		case int:
			out[k] = float64(t)
		case map[string]any:
			out[k] = normalise(t)
		default:
			out[k] = v
		}
	}
	return out
}

// nodePool builds the NodePool of one agent pool from its ARM properties.
func nodePool(name, location string, p map[string]any, specs map[string]gpupool.Spec, stack gpustack.Spec) (NodePool, error) {
	np := NodePool{Name: name, Location: location, Labels: map[string]string{}}
	np.Mode, _ = p["mode"].(string)
	np.VMSize, _ = p["vmSize"].(string)
	// Autoscaled pools are simulated at maxCount; AKS-managed GPU pools have
	// no autoscaler and run exactly their count, which may be 0.
	fixed, isFixed := p["count"].(float64)
	isFixed = isFixed && p["enableAutoScaling"] == false
	if mc, ok := p["maxCount"].(float64); ok {
		np.Count = int(mc)
	} else if isFixed {
		np.Count = int(fixed)
	}
	for _, z := range asSlice(p["availabilityZones"]) {
		np.Zones = append(np.Zones, fmt.Sprint(z))
	}
	np.Spot = p["scaleSetPriority"] == string(gpupool.PrioritySpot)
	if labels, ok := p["nodeLabels"].(map[string]any); ok {
		for k, v := range labels {
			np.Labels[k] = fmt.Sprint(v)
		}
	}
	if tags, ok := p["tags"].(map[string]any); ok {
		np.Tags = map[string]string{}
		for k, v := range tags {
			np.Tags[k] = fmt.Sprint(v)
		}
	}
	var errs []error
	for _, raw := range asSlice(p["nodeTaints"]) {
		t, err := gpupool.ParseTaint(fmt.Sprint(raw))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		np.Taints = append(np.Taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)})
	}
	np.Labels[AgentPoolLabel] = name
	np.Labels[LegacyAgentPoolLabel] = name
	np.Labels[ModeLabel] = strings.ToLower(np.Mode)
	np.Labels[InstanceTypeLabel] = np.VMSize
	np.Labels[corev1.LabelOSStable] = "linux"
	np.Labels[corev1.LabelArchStable] = "amd64"
	if np.Spot {
		np.Labels[ScaleSetPriorityKey] = gpupool.SpotTaintValue
		spot := corev1.Taint{Key: ScaleSetPriorityKey, Value: gpupool.SpotTaintValue, Effect: corev1.TaintEffectNoSchedule}
		if !hasTaint(np.Taints, spot) {
			np.Taints = append(np.Taints, spot)
		}
	}

	alloc, err := gpupool.NodeAllocatable(np.VMSize, 0)
	if err != nil {
		errs = append(errs, err)
	}
	np.Allocatable = corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewMilliQuantity(alloc.CPUMilli, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(alloc.MemoryMiB*1024*1024, resource.BinarySI),
		corev1.ResourcePods:   *resource.NewQuantity(int64(alloc.Pods), resource.DecimalSI),
	}
	shape, _ := gpupool.LookupVMShape(np.VMSize)
	if shape.GPUs > 0 {
		np.GPU = true
		np.Labels[AcceleratorLabel] = "nvidia"
		spec, ok := specs[name]
		if !ok {
			errs = append(errs, fmt.Errorf("GPU VM size %s but no GPU pool %s in the config", np.VMSize, name))
		}
		for res, n := range gpuResources(spec, shape.GPUs, stack) {
			np.Allocatable[res] = *resource.NewQuantity(n, resource.DecimalSI)
		}
	}
	if np.Count < 1 && !isFixed {
		errs = append(errs, fmt.Errorf("maxCount %v", p["maxCount"]))
	}
	return np, errors.Join(errs...)
}

// gpuResources is what the device plugin of a GPU pool advertises on one node with gpus
// physical GPUs:
//
//   - None: nothing; the pool brings its own GPU stack, which the stack does not install.
//   - Managed: AKS's device plugin, nvidia.com/gpu per GPU, or per MIG instance under
//     migStrategy Single, or nvidia.com/mig-<profile> under Mixed (Create a fully managed
//     GPU node pool, https://learn.microsoft.com/en-us/azure/aks/aks-managed-gpu-nodes).
//   - DriverOnly: aksml's device plugin (components/gpustack) with the pool's
//     --mig-strategy; time-slicing advertises every nvidia.com/gpu Replicas times
//     (gpustack.Spec.GPUReplicas). A MIG pool advertises nothing when its node is
//     created: its MIG devices come once NVIDIA's MIG Manager, which aksml installs
//     there, has applied the layout and the device plugin restarted on it, which the
//     placement tier emulates (requireMIGManager) from the stack's mig-parted-config.
func gpuResources(spec gpupool.Spec, gpus int, stack gpustack.Spec) map[corev1.ResourceName]int64 {
	if spec.GPUStack == gpupool.GPUStackNone || gpustack.NeedsMIGManager(spec) {
		return nil
	}
	res := corev1.ResourceName(gpupool.GPUResource)
	n := int64(gpus)
	if spec.MIGEnabled() {
		_, perGPU := spec.MIGDevicesPerGPU()
		res = corev1.ResourceName(spec.MIGResourceName())
		n = int64(gpus * perGPU)
	}
	if spec.GPUStack == gpupool.GPUStackDriverOnly && res == gpupool.GPUResource {
		n *= int64(stack.GPUReplicas())
	}
	return map[corev1.ResourceName]int64{res: n}
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func hasTaint(taints []corev1.Taint, t corev1.Taint) bool {
	for _, x := range taints {
		if x.Key == t.Key && x.Value == t.Value && x.Effect == t.Effect {
			return true
		}
	}
	return false
}

// Zone returns the topology.kubernetes.io/zone value of the i-th node: <location>-<zone>
// for zonal pools and "0" for regional ones, as AKS labels them.
func (p NodePool) Zone(i int) string {
	if len(p.Zones) == 0 {
		return "0"
	}
	return p.Location + "-" + p.Zones[i%len(p.Zones)]
}

// NodeName returns the name of the i-th node, in AKS's VM scale set form.
func (p NodePool) NodeName(i int) string {
	return fmt.Sprintf("aks-%s-00000000-vmss%06d", p.Name, i)
}

// Nodes returns the Node objects of the pool (Count of them), annotated for KWOK.
func (p NodePool) Nodes() []*corev1.Node { return p.nodeRange(0, p.Count) }

// nodeRange returns the pool's nodes first to first+n-1 (NodeName numbering).
func (p NodePool) nodeRange(first, n int) []*corev1.Node {
	nodes := make([]*corev1.Node, 0, n)
	for i := first; i < first+n; i++ {
		name := p.NodeName(i)
		labels := map[string]string{HostnameLabel: name, ZoneLabel: p.Zone(i)}
		for k, v := range p.Labels {
			labels[k] = v
		}
		nodes = append(nodes, &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name:        name,
				Labels:      labels,
				Annotations: map[string]string{KWOKNodeAnnotation: kwokNodeValue},
			},
			Spec: corev1.NodeSpec{Taints: append([]corev1.Taint(nil), p.Taints...), ProviderID: "azure:///simulated/" + name},
			Status: corev1.NodeStatus{
				Capacity:    p.Allocatable.DeepCopy(),
				Allocatable: p.Allocatable.DeepCopy(),
			},
		})
	}
	return nodes
}

// nodePoll is how often CreateNodes looks at a node it waits for.
const nodePoll = 100 * time.Millisecond

// CreateNodes creates the nodes of pools, sets their capacity and allocatable (a merge
// patch of the status subresource, which KWOK's node-initialize stage keeps), and waits
// until KWOK reports every node Ready with that allocatable. The API server's
// TaintNodesByCondition admission taints every new node node.kubernetes.io/not-ready,
// which the node lifecycle controller removes once the node is Ready; that controller
// does not run here (it would also evict pods from nodes whose heartbeats KWOK does not
// simulate), so CreateNodes restores the pool's own taints once KWOK reports Ready.
func (e *Env) CreateNodes(ctx context.Context, pools []NodePool) error {
	var nodes []*corev1.Node
	for _, p := range pools {
		nodes = append(nodes, p.Nodes()...)
	}
	return e.createNodes(ctx, nodes)
}

// createNodes creates nodes and waits for them as CreateNodes does.
func (e *Env) createNodes(ctx context.Context, nodes []*corev1.Node) error {
	var created []*corev1.Node
	for _, n := range nodes {
		want := n.DeepCopy()
		if err := e.Client.Create(ctx, n); err != nil {
			return fmt.Errorf("create node %s: %w", n.Name, err)
		}
		orig := n.DeepCopy()
		n.Status.Capacity, n.Status.Allocatable = want.Status.Capacity, want.Status.Allocatable
		if err := e.Client.Status().Patch(ctx, n, client.MergeFrom(orig)); err != nil {
			return fmt.Errorf("set node %s allocatable: %w", n.Name, err)
		}
		created = append(created, want)
	}
	for _, want := range created {
		for {
			got := &corev1.Node{}
			if err := e.Client.Get(ctx, client.ObjectKeyFromObject(want), got); err != nil {
				return err
			}
			if nodeReady(got) && equalResources(got.Status.Allocatable, want.Status.Allocatable) {
				if equalTaints(got.Spec.Taints, want.Spec.Taints) {
					break
				}
				orig := got.DeepCopy()
				got.Spec.Taints = want.Spec.Taints
				if err := e.Client.Patch(ctx, got, client.MergeFrom(orig)); err != nil {
					return fmt.Errorf("node %s taints: %w", want.Name, err)
				}
				continue
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("node %s not Ready with its allocatable (is KWOK running?): %w", want.Name, ctx.Err())
			case <-time.After(nodePoll):
			}
		}
	}
	return nil
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func equalTaints(a, b []corev1.Taint) bool {
	if len(a) != len(b) {
		return false
	}
	for _, t := range b {
		if !hasTaint(a, t) {
			return false
		}
	}
	return true
}

func equalResources(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range b {
		if q, ok := a[k]; !ok || q.Cmp(v) != 0 {
			return false
		}
	}
	return true
}

// DeleteNodes deletes every simulated node (those annotated for KWOK).
func (e *Env) DeleteNodes(ctx context.Context) error {
	nodes := &corev1.NodeList{}
	if err := e.Client.List(ctx, nodes); err != nil {
		return err
	}
	var errs []error
	for i := range nodes.Items {
		n := &nodes.Items[i]
		if n.Annotations[KWOKNodeAnnotation] != kwokNodeValue {
			continue
		}
		if err := e.Client.Delete(ctx, n); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// StackConfig parses and defaults Pulumi.<stack>.yaml of the repository at root, as the
// program does. An existing-cluster stack's kubeconfig need not exist yet (the sandbox
// writes it on start): as synth does, a kubeconfig that parses is written into
// dir/stand-in-kubeconfig instead.
func StackConfig(root, stack, dir string) (*stacks.Config, error) {
	raw, err := synth.ReadStackConfig(root, stack)
	if err != nil {
		return nil, err
	}
	if ec, ok := raw[stacks.Namespace+":existingCluster"]; ok {
		var m map[string]any
		if err := json.Unmarshal([]byte(ec), &m); err != nil {
			return nil, fmt.Errorf("%s:existingCluster: %w", stacks.Namespace, err)
		}
		// Not dir/kubeconfig: the sandbox passes its control plane's directory,
		// whose kubeconfig KWOK and the scheduler read; overwriting it left
		// every simulated node NotReady.
		m["kubeconfigPath"] = filepath.Join(dir, "stand-in-kubeconfig")
		if err := os.WriteFile(m["kubeconfigPath"].(string), []byte(synth.FakeKubeconfig), 0o600); err != nil {
			return nil, err
		}
		b, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		raw[stacks.Namespace+":existingCluster"] = string(b)
	}
	return stacks.Parse(stack, raw)
}

// NodePoolsOf synthesizes Pulumi.<stack>.yaml of the repository at root under mocks and
// returns its node pools (StackNodePools); dir receives a stand-in kubeconfig (see
// StackConfig).
func NodePoolsOf(root, stack, dir string) ([]NodePool, error) {
	cfg, err := StackConfig(root, stack, dir)
	if err != nil {
		return nil, err
	}
	s, err := synth.Synth(root, stack)
	if err != nil {
		return nil, fmt.Errorf("synthesize stack %s: %w", stack, err)
	}
	return StackNodePools(s, cfg)
}
