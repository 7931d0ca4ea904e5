package rules

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/vocab"
)

// The schedulability guardrails mirror the checks aksml's components make
// on config (workloads.ValidateAllocatable, the gang checks of stacks, and
// queues.CheckAdmission) on the desired state itself, so that objects
// written by hand or by a program that bypasses the components' validation
// are held to the same rules. They reuse the components' numbers: node
// allocatable from gpupool.NodeAllocatable (AKS's documented reservations)
// and pool capacity from the gpupool catalogue (Pool.Capacity).

// podRequests are the resources one pod of a template asks for: per
// resource, the larger of the sum over its containers and the largest
// init container ("Resource sharing within containers",
// https://kubernetes.io/docs/concepts/workloads/pods/init-containers/#resource-sharing-within-containers).
// A container's limit counts where it sets no request (the API server
// defaults the request to the limit). ok is false when a quantity is not
// known.
func podRequests(spec map[string]any) (req map[string]float64, ok bool) {
	sum, initMax := map[string]float64{}, map[string]float64{}
	for _, field := range []string{"initContainers", "containers"} {
		for _, c := range listOf(spec[field]) {
			cm := mapOf(c)
			values := map[string]any{}
			for name, v := range mapOf(get(cm, "resources.limits")) {
				values[name] = v
			}
			for name, v := range mapOf(get(cm, "resources.requests")) {
				values[name] = v
			}
			for name, v := range values {
				q, parsed := ParseQuantity(v)
				if !parsed {
					return nil, false
				}
				if field == "containers" {
					sum[name] += q
				} else {
					initMax[name] = math.Max(initMax[name], q)
				}
			}
		}
	}
	for name, q := range initMax {
		sum[name] = math.Max(sum[name], q)
	}
	return sum, true
}

// schedLabels are the labels a node of p carries: its pool labels plus the
// well-known labels every AKS node carries besides its
// pool's nodeLabels ("Well-Known Labels, Annotations and Taints",
// https://kubernetes.io/docs/reference/labels-annotations-taints/; "Use
// labels in AKS", https://learn.microsoft.com/azure/aks/use-labels).
func (p Pool) schedLabels() map[string]string {
	l := p.NodeLabels()
	l["agentpool"] = p.Name
	l["kubernetes.io/os"] = "linux"
	l["node.kubernetes.io/instance-type"] = p.VMSize
	l["beta.kubernetes.io/instance-type"] = p.VMSize
	mode := strings.ToLower(p.Mode)
	if mode == "" {
		mode = "user"
	}
	l["kubernetes.azure.com/mode"] = mode
	return l
}

// knownPools returns the stack's pools when the stack declares the cluster
// (so its pools are all the cluster has) and everything the schedulability
// rules read of them is known, or nil: a stack that adds pools or
// workloads to a cluster declared elsewhere is not judged on a partial
// view.
func knownPools(s *Stack) []Pool {
	if len(azureResources(s, "containerservice", "ManagedCluster")) == 0 {
		return nil
	}
	pools := AgentPools(s)
	for _, p := range pools {
		if p.VMSize == "" || p.IsUnknown("vmSize") || p.IsUnknown("nodeLabels") || p.IsUnknown("nodeTaints") || p.IsUnknown("maxCount") {
			return nil
		}
	}
	return pools
}

// selectorKeys are the node label keys a pod spec's node selector and
// required node affinity read.
func selectorKeys(spec map[string]any) []string {
	var out []string
	for k := range stringMap(spec["nodeSelector"]) {
		out = append(out, k)
	}
	for _, term := range requiredNodeTerms(spec) {
		for _, e := range listOf(mapOf(term)["matchExpressions"]) {
			out = append(out, str(mapOf(e)["key"]))
		}
	}
	return out
}

// placement is where the pods of one template may run.
type placement struct {
	t podTemplate
	// pools are the pools whose nodes the pod selects and tolerates.
	pools []Pool
}

// placements returns, for every pod template of the workload r (DaemonSets
// excepted: they run one pod per node they select), the pools the pods may
// run on. A template that selects on a node label the rules do not model
// (one no pool declares and AKS does not set) is left out: where it runs
// is not known. Queued workloads also tolerate what their Kueue flavors
// add at admission (ResourceFlavor spec.tolerations).
func placements(r Resource, pools []Pool, flavorTolerations []any) []placement {
	if isKind(r, "apps", "DaemonSet") {
		return nil
	}
	known := map[string]bool{}
	for _, p := range pools {
		for k := range p.schedLabels() {
			known[k] = true
		}
	}
	var out []placement
	for _, t := range podTemplates(r) {
		if str(t.spec["nodeName"]) != "" || slices.ContainsFunc(selectorKeys(t.spec), func(k string) bool { return !known[k] }) {
			continue
		}
		spec := t.spec
		if queued(r) && len(flavorTolerations) > 0 {
			spec = map[string]any{}
			for k, v := range t.spec {
				spec[k] = v
			}
			spec["tolerations"] = append(append([]any(nil), listOf(t.spec["tolerations"])...), flavorTolerations...)
		}
		pl := placement{t: t}
		for _, p := range pools {
			if schedulableOn(spec, p.schedLabels(), p.NodeTaints()) {
				pl.pools = append(pl.pools, p)
			}
		}
		out = append(out, pl)
	}
	return out
}

// perPlacement calls check for every workload of a stack whose pools are
// all known (knownPools), with where its pod templates may run.
func perPlacement(s *Stack, check func(r Resource, pls []placement, pools []Pool) []Finding) []Finding {
	pools := knownPools(s)
	if len(pools) == 0 {
		return nil
	}
	tolerations := flavorTolerations(s)
	var out []Finding
	for _, r := range s.Resources {
		if pls := placements(r, pools, tolerations); len(pls) > 0 {
			out = append(out, check(r, pls, pools)...)
		}
	}
	return out
}

// flavorTolerations are the tolerations of every ResourceFlavor of the
// stack, which Kueue adds to the pods it admits on that flavor.
func flavorTolerations(s *Stack) []any {
	var out []any
	for _, r := range s.Resources {
		if isKind(r, KueueGroup, "ResourceFlavor") {
			out = append(out, listOf(r.Get("spec.tolerations"))...)
		}
	}
	return out
}

// nodeOffer is what one node of p offers a pod: allocatable CPU (cores),
// memory (bytes) and, on GPU pools, its NVIDIA resource. ok is false when
// the VM size is not in the gpupool catalogue.
func (p Pool) nodeOffer() (offer map[string]float64, ok bool) {
	maxPods := 0
	if p.MaxPods != nil {
		maxPods = *p.MaxPods
	}
	alloc, err := gpupool.NodeAllocatable(p.VMSize, maxPods)
	if err != nil {
		return nil, false
	}
	offer = map[string]float64{"cpu": float64(alloc.CPUMilli) / 1000, "memory": float64(alloc.MemoryMiB) * (1 << 20)}
	if res, per := p.gpuOffer(); res != "" {
		offer[res] = float64(per)
	}
	return offer, true
}

// gpuOffer is the NVIDIA resource a node of p advertises and how many:
// nvidia.com/gpu, or the MIG instance resource of its profile.
func (p Pool) gpuOffer() (resource string, perNode int) {
	if p.GPUsPerNode() == 0 {
		return "", 0
	}
	if p.GPUInstanceProfile != "" {
		spec := p.migSpec()
		_, perGPU := spec.MIGDevicesPerGPU()
		return spec.MIGResourceName(), p.GPUsPerNode() * perGPU
	}
	return gpupool.GPUResource, p.GPUsPerNode()
}

// fitsNode returns the resources of req a node with offer cannot hold.
func fitsNode(req, offer map[string]float64) []string {
	var out []string
	for _, name := range sortedKeys(req) {
		if name != "cpu" && name != "memory" && !strings.HasPrefix(name, GPUResourcePrefix) {
			continue
		}
		if req[name] > offer[name] && !sameQuantity(req[name], offer[name]) {
			out = append(out, name)
		}
	}
	return out
}

// describeQuantities renders the named quantities for messages: "cpu
// 3.86, memory 23522Mi, nvidia.com/gpu 1".
func describeQuantities(q map[string]float64, names []string) string {
	var parts []string
	for _, name := range names {
		if name == "memory" {
			parts = append(parts, fmt.Sprintf("memory %.0fMi", q[name]/(1<<20)))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %g", name, q[name]))
	}
	return strings.Join(parts, ", ")
}

var ruleSchedAllocatable = Rule{
	ID:       "AKSML-SCH-001",
	Title:    "Every pod fits one node of a pool it may run on (allocatable after AKS's reservations), and some pool accepts it",
	Severity: Mandatory,
	Source:   "AKS \"Resource reservations\" (https://learn.microsoft.com/azure/aks/node-resource-reservations); Kubernetes \"Resource Management for Pods and Containers\"; issue 12 (work that can never be scheduled)",
	Stack: func(s *Stack) []Finding {
		return perPlacement(s, func(r Resource, pls []placement, pools []Pool) []Finding {
			var out []Finding
			for _, pl := range pls {
				if len(pl.pools) == 0 {
					if queued(r) {
						continue // Kueue's flavors place it (AKSML-QUE-006).
					}
					out = append(out, Finding{URN: resourceRef(r), Message: fmt.Sprintf(
						"%s%s selects or tolerates no node pool of the cluster (pools: %s), so its pods stay Pending; add the toleration and node selector of a pool, or add an untainted pool (aksml: enable the CPU pool)",
						describe(r), pl.t.where(), describePools(pools))})
					continue
				}
				if msg := tooLarge(pl); msg != "" {
					out = append(out, Finding{URN: resourceRef(r), Message: fmt.Sprintf(
						"%s%s requests %s per pod, more than one node of any pool it may run on offers after AKS's reservations (%s), so its pods can never be scheduled; request less than that, or run it on a pool with a larger VM size",
						describe(r), pl.t.where(), msg, strings.Join(offersOf(pl.pools), "; "))})
				}
			}
			return out
		})
	},
}

// tooLarge returns the requests of a placement's pod that no pool it may
// run on can hold on one node ("" when one can, or when a request or a
// pool's VM size is not known).
func tooLarge(pl placement) string {
	req, ok := podRequests(pl.t.spec)
	if !ok {
		return ""
	}
	var short []string
	for _, p := range pl.pools {
		offer, known := p.nodeOffer()
		if !known {
			return ""
		}
		missing := fitsNode(req, offer)
		if len(missing) == 0 {
			return ""
		}
		short = append(short, missing...)
	}
	slices.Sort(short)
	return describeQuantities(req, slices.Compact(short))
}

// offersOf describes what one node of each pool offers.
func offersOf(pools []Pool) []string {
	var out []string
	for _, p := range pools {
		if offer, ok := p.nodeOffer(); ok {
			out = append(out, fmt.Sprintf("%s (%s: %s)", p.Name, p.VMSize, describeQuantities(offer, sortedKeys(offer))))
		}
	}
	return out
}

// describePools names pools with their taints, for messages.
func describePools(pools []Pool) string {
	var parts []string
	for _, p := range pools {
		taints := "untainted"
		if t := p.NodeTaints(); len(t) > 0 {
			taints = strings.Join(t, ", ")
		}
		parts = append(parts, fmt.Sprintf("%s [%s]", p.Name, taints))
	}
	return strings.Join(parts, "; ")
}

// gangSize is how many pods of a template run at once: its replicas
// (parallelism), at most completions for a Job.
func gangSize(r Resource, t podTemplate) int {
	n := t.replicas
	if isKind(r, "batch", "Job") {
		if c, ok := num(r.Get("spec.completions")); ok && int(c) < n {
			n = int(c)
		}
	}
	return n
}

// gangUnits sums, per NVIDIA resource, what the pods of a batch workload
// hold at once (gang size × per-pod request), with the text of the sum.
func gangUnits(r Resource, pls []placement) (units map[string]float64, text map[string][]string, ok bool) {
	units, text = map[string]float64{}, map[string][]string{}
	for _, pl := range pls {
		req, known := podRequests(pl.t.spec)
		if !known {
			return nil, nil, false
		}
		n := gangSize(r, pl.t)
		for name, q := range req {
			if strings.HasPrefix(name, GPUResourcePrefix) && q > 0 {
				units[name] += float64(n) * q
				text[name] = append(text[name], fmt.Sprintf("%d pods%s × %g", n, pl.t.where(), q))
			}
		}
	}
	return units, text, true
}

var ruleSchedGangCapacity = Rule{
	ID:       "AKSML-SCH-002",
	Title:    "A batch workload's GPUs at once (pods × GPUs per pod) fit the maximum capacity of the pools it may run on",
	Severity: Mandatory,
	Source:   srcMLOps + ": size GPU pools (maxCount) for the jobs they run; Kubeflow Training Operator and Kueue gang semantics (all pods or none); issue 12",
	Stack: func(s *Stack) []Finding {
		return perPlacement(s, func(r Resource, pls []placement, _ []Pool) []Finding {
			units, text, ok := gangUnits(r, pls)
			if !isBatchWorkload(r) || !ok {
				return nil
			}
			var out []Finding
			for _, res := range sortedKeys(units) {
				capacity, names, known := poolCapacity(pls, res)
				if !known || len(names) == 0 || units[res] <= float64(capacity) {
					continue
				}
				out = append(out, Finding{URN: resourceRef(r), Message: fmt.Sprintf(
					"%s needs %g %s at once (%s), but the pools it may run on hold %d at most (%s); lower the replicas or GPUs per pod, or raise the pools' maxCount",
					describe(r), units[res], res, strings.Join(text[res], " + "), capacity, strings.Join(names, ", "))})
			}
			return out
		})
	},
}

// poolCapacity sums the capacity in res of the pools the placements may
// use, each pool once, with the text of each; known is false when a pool's
// capacity is not known.
func poolCapacity(pls []placement, res string) (capacity int, names []string, known bool) {
	seen := map[string]bool{}
	for _, pl := range pls {
		for _, p := range pl.pools {
			if offered, _ := p.gpuOffer(); offered != res || seen[p.Name] {
				continue
			}
			seen[p.Name] = true
			n, ok := p.Capacity()
			if !ok {
				return 0, nil, false
			}
			capacity += n
			names = append(names, p.capacityText())
		}
	}
	return capacity, names, true
}

// cqQuota is one flavor's quota of one resource in a ClusterQueue.
type cqQuota struct {
	flavor  string
	nominal float64
	// borrowing and lending are borrowingLimit and lendingLimit; nil
	// when unset.
	borrowing, lending *float64
}

// clusterQueueQuotas returns, per resource, the flavors a ClusterQueue
// lists with their quotas; ok is false when a quantity is not known.
func clusterQueueQuotas(cq Resource) (map[string][]cqQuota, bool) {
	out := map[string][]cqQuota{}
	for _, group := range listOf(cq.Get("spec.resourceGroups")) {
		for _, flavor := range listOf(mapOf(group)["flavors"]) {
			fm := mapOf(flavor)
			for _, res := range listOf(fm["resources"]) {
				rm := mapOf(res)
				q := cqQuota{flavor: str(fm["name"])}
				var ok bool
				if q.nominal, ok = ParseQuantity(rm["nominalQuota"]); !ok {
					return nil, false
				}
				if q.borrowing, ok = optQuantity(rm, "borrowingLimit"); !ok {
					return nil, false
				}
				if q.lending, ok = optQuantity(rm, "lendingLimit"); !ok {
					return nil, false
				}
				out[str(rm["name"])] = append(out[str(rm["name"])], q)
			}
		}
	}
	return out, true
}

// optQuantity is the quantity m holds at key, nil when unset; ok is false
// when it is set to a value that is not a known quantity.
func optQuantity(m map[string]any, key string) (q *float64, ok bool) {
	v, set := m[key]
	if !set {
		return nil, true
	}
	n, ok := ParseQuantity(v)
	return &n, ok
}

// cohortOf is the cohort a ClusterQueue belongs to (spec.cohortName in
// kueue.x-k8s.io/v1beta2, spec.cohort in v1beta1), "" for none.
func cohortOf(cq Resource) string {
	if c := str(cq.Get("spec.cohortName")); c != "" {
		return c
	}
	return str(cq.Get("spec.cohort"))
}

// admissible is the most of res on flavor a ClusterQueue can be admitted at
// once: its nominal quota plus what it may borrow from the other members of
// its cohort, with Kueue's arithmetic as components/queues states it for
// the teams it configures (queues.Lent, queues.Borrowable; "Cluster Queue",
// borrowingLimit and lendingLimit,
// https://kueue.sigs.k8s.io/docs/concepts/cluster_queue/).
func admissible(cq Resource, q cqQuota, res string, all []Resource) (most, borrow float64) {
	cohort := cohortOf(cq)
	if cohort != "" {
		for _, other := range all {
			if other.URN == cq.URN || cohortOf(other) != cohort {
				continue
			}
			quotas, ok := clusterQueueQuotas(other)
			if !ok {
				return math.Inf(1), 0
			}
			for _, oq := range quotas[res] {
				if oq.flavor != q.flavor {
					continue
				}
				borrow += queues.Lent(oq.nominal, oq.lending)
			}
		}
	}
	borrow = queues.Borrowable(borrow, q.borrowing)
	return q.nominal + borrow, borrow
}

// kueueRoute is how a queued workload reaches its quota: the LocalQueue it
// names and the ClusterQueue behind it.
type kueueRoute struct {
	localQueue, clusterQueue Resource
}

// routeOf returns the LocalQueue and ClusterQueue a workload is submitted
// to, when the stack declares both.
func routeOf(r Resource, s *Stack) (kueueRoute, bool) {
	name := workloadLabels(r)[QueueNameLabel]
	if name == "" {
		return kueueRoute{}, false
	}
	var route kueueRoute
	found := false
	for _, lq := range s.Resources {
		if isKind(lq, KueueGroup, "LocalQueue") && objName(lq) == name && objNamespace(lq) == objNamespace(r) {
			route.localQueue, found = lq, true
		}
	}
	if !found {
		return kueueRoute{}, false
	}
	cqName := str(route.localQueue.Get("spec.clusterQueue"))
	for _, cq := range s.Resources {
		if isKind(cq, KueueGroup, "ClusterQueue") && objName(cq) == cqName {
			route.clusterQueue = cq
			return route, true
		}
	}
	return kueueRoute{}, false
}

// String renders "LocalQueue team-a/gpu-queue → ClusterQueue team-a-gpu".
func (k kueueRoute) String() string {
	return fmt.Sprintf("LocalQueue %s/%s → ClusterQueue %s", objNamespace(k.localQueue), objName(k.localQueue), objName(k.clusterQueue))
}

// usableFlavors returns the flavors of a ClusterQueue's quota for res that
// put the workload's pods on a pool they may run on (the ResourceFlavor's
// nodeLabels match one of those pools), and the flavors of the stack that
// would. known is false when a flavor's ResourceFlavor is not in the stack.
func usableFlavors(quotas []cqQuota, pls []placement, flavors map[string]Resource, res string) (usable []cqQuota, wanted []string, known bool) {
	var candidates []Pool
	for _, pl := range pls {
		for _, p := range pl.pools {
			if offered, _ := p.gpuOffer(); offered == res && !slices.ContainsFunc(candidates, func(c Pool) bool { return c.Name == p.Name }) {
				candidates = append(candidates, p)
			}
		}
	}
	for _, q := range quotas {
		rf, ok := flavors[q.flavor]
		if !ok {
			return nil, nil, false
		}
		if len(flavorPools(rf, candidates)) > 0 {
			usable = append(usable, q)
		}
	}
	for _, name := range sortedKeys(flavors) {
		if ps := flavorPools(flavors[name], candidates); len(ps) > 0 {
			wanted = append(wanted, fmt.Sprintf("%s (pool %s)", name, ps[0].Name))
		}
	}
	return usable, wanted, len(candidates) > 0
}

// queuedGangs calls check for every Kueue-queued batch workload of the stack
// whose route, pools and quotas are known, once per NVIDIA resource it
// requests.
func queuedGangs(s *Stack, check func(r Resource, route kueueRoute, res string, units float64, text []string, usable []cqQuota, wanted []string) []Finding) []Finding {
	flavors := resourceFlavors(s)
	return perPlacement(s, func(r Resource, pls []placement, _ []Pool) []Finding {
		route, ok := routeOf(r, s)
		if !isBatchWorkload(r) || !ok {
			return nil
		}
		quotas, ok := clusterQueueQuotas(route.clusterQueue)
		units, text, known := gangUnits(r, pls)
		if !ok || !known {
			return nil
		}
		var out []Finding
		for _, res := range sortedKeys(units) {
			if usable, wanted, known := usableFlavors(quotas[res], pls, flavors, res); known {
				out = append(out, check(r, route, res, units[res], text[res], usable, wanted)...)
			}
		}
		return out
	})
}

var ruleQueueAdmissible = Rule{
	ID:       "AKSML-QUE-005",
	Title:    "A queued workload's GPUs at once fit what its ClusterQueue can ever be admitted on the flavor (nominal quota + borrowing limit)",
	Severity: Mandatory,
	Source:   srcMLOps + ", \"Allocate multi-tenant GPU quota with Kueue\"; Kueue \"Cluster Queue\" (borrowingLimit, https://kueue.sigs.k8s.io/docs/concepts/cluster_queue/): a workload is admitted whole or not at all; issue 12",
	Stack: func(s *Stack) []Finding {
		return queuedGangs(s, func(r Resource, route kueueRoute, res string, units float64, text []string, usable []cqQuota, _ []string) []Finding {
			if len(usable) == 0 {
				return nil
			}
			best, bestText := 0.0, ""
			for _, q := range usable {
				most, borrow := admissible(route.clusterQueue, q, res, s.Resources)
				if most >= best {
					best, bestText = most, fmt.Sprintf("%g on flavor %s: nominal %g + borrowing %g", most, q.flavor, q.nominal, borrow)
				}
			}
			if units <= best {
				return nil
			}
			return []Finding{{URN: resourceRef(r), Message: fmt.Sprintf(
				"%s needs %g %s at once (%s), but %s can be admitted at most %s, so Kueue never admits it; lower the replicas or GPUs per pod, or raise the ClusterQueue's nominalQuota or borrowingLimit (aksml: teams[].gpuQuota.<pool>, teams[].borrowingLimit)",
				describe(r), units, res, strings.Join(text, " + "), route, bestText)}}
		})
	},
}

var ruleQueueFlavorQuota = Rule{
	ID:       "AKSML-QUE-006",
	Title:    "A queued workload's ClusterQueue has quota on the flavor of a pool the workload may run on",
	Severity: Mandatory,
	Source:   srcMLOps + ", \"Allocate multi-tenant GPU quota with Kueue\"; Kueue \"Resource Flavor\" (https://kueue.sigs.k8s.io/docs/concepts/resource_flavor/): a workload is only admitted on a flavor its ClusterQueue lists; issue 12",
	Stack: func(s *Stack) []Finding {
		return queuedGangs(s, func(r Resource, route kueueRoute, res string, _ float64, _ []string, usable []cqQuota, wanted []string) []Finding {
			if len(usable) > 0 {
				return nil
			}
			want := "none of the stack's flavors selects them"
			if len(wanted) > 0 {
				want = "add quota (0 to only borrow) on " + strings.Join(wanted, " or ")
			}
			return []Finding{{URN: resourceRef(r), Message: fmt.Sprintf(
				"%s requests %s through %s, which has no %s quota on a flavor of the pools the workload may run on, so Kueue never admits it; %s (aksml: teams[].gpuQuota.<pool>), or run it on a pool the team has quota on",
				describe(r), res, route, res, want)}}
		})
	},
}

// namespaceOwners are the reserved namespaces aksml's own components create,
// by the component type that owns the Namespace object; the other reserved
// namespaces (vocab.PlatformNamespaces, kube-*) are created by Kubernetes,
// AKS or an add-on, never by a stack.
var namespaceOwners = map[string]string{
	vocab.KueueNamespace:            "aksml:queues:Queues",
	vocab.VolcanoNamespace:          "aksml:queues:Queues",
	vocab.TrainingOperatorNamespace: "aksml:workloads:TrainingOperator",
	vocab.GPUStackNamespace:         "aksml:gpustack:GPUStack",
	vocab.KAITONamespace:            "aksml:workloads:KAITO",
}

// componentOf returns the type of the nearest aksml component among r's
// ancestors ("aksml:queues:Queues"), read from the type chain of its
// parent's URN, or "" for a resource registered outside the components.
func componentOf(r Resource) string {
	chain := urnTypeChain(r.Parent)
	for i := len(chain) - 1; i >= 0; i-- {
		if strings.HasPrefix(chain[i], "aksml:") {
			return chain[i]
		}
	}
	return ""
}

// urnTypeChain splits the type part of a URN
// (urn:pulumi:<stack>::<project>::<parent types $ joined>$<type>::<name>).
func urnTypeChain(urn string) []string {
	parts := strings.SplitN(urn, "::", 4)
	if len(parts) < 4 {
		return nil
	}
	return strings.Split(parts[2], "$")
}

// teamWork reports whether r is work or configuration of a team: labelled
// with a team, a LocalQueue, or a batch workload or GPU pod.
func teamWork(r Resource) bool {
	if labels(r)[TeamLabel] != "" || isKind(r, KueueGroup, "LocalQueue") || isBatchWorkload(r) {
		return true
	}
	if isKind(r, "apps", "DaemonSet") {
		return false
	}
	return slices.ContainsFunc(podTemplates(r), func(t podTemplate) bool { return requestsGPU(t.spec) })
}

var ruleTenancyReservedNamespaces = Rule{
	ID:       "AKSML-TEN-003",
	Title:    "Platform-reserved namespaces are created only by their owner and hold no team namespace or team work",
	Severity: Mandatory,
	Source:   "issue 12 (collisions: reserved namespaces); Kubernetes \"Namespaces\" (kube-* and default, https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/); SPEC C5.1 (a namespace per team)",
	Stack: func(s *Stack) []Finding {
		var out []Finding
		for _, r := range s.Resources {
			if _, _, ok := kubeKind(r); !ok || r.Read {
				continue
			}
			if isKind(r, "", "Namespace") {
				ns := objName(r)
				owner := vocab.PlatformNamespaceOwner(ns)
				if owner == "" {
					continue
				}
				comp := componentOf(r)
				switch {
				case labels(r)[TeamLabel] != "":
					out = append(out, Finding{URN: resourceRef(r), Message: fmt.Sprintf(
						"%s holds team %q, but %s belongs to %s; choose another team name (aksml:teams[].name)",
						describe(r), labels(r)[TeamLabel], ns, owner)})
				case namespaceOwners[ns] == "":
					out = append(out, Finding{URN: resourceRef(r), Message: fmt.Sprintf(
						"%s registers namespace %s, which %s creates and owns: the stack would take it over and delete it on destroy; do not register it (aksml: gpuStack.createNamespace: false, or another gpuStack.namespace)",
						describe(r), ns, owner)})
				case comp != namespaceOwners[ns]:
					out = append(out, Finding{URN: resourceRef(r), Message: fmt.Sprintf(
						"%s registers namespace %s, which belongs to %s (component %s), from %s; use another namespace, or let %s create it",
						describe(r), ns, owner, namespaceOwners[ns], orRoot(comp), namespaceOwners[ns])})
				}
				continue
			}
			if _, _, ok := KubeIdentity(r); !ok {
				continue
			}
			ns := str(r.Get("metadata.namespace"))
			if owner := vocab.PlatformNamespaceOwner(ns); ns != "" && owner != "" && teamWork(r) {
				out = append(out, Finding{URN: resourceRef(r), Message: fmt.Sprintf(
					"%s is team work in namespace %s, which belongs to %s; run it in the team's namespace (aksml: workloads[].team)",
					describe(r), ns, owner)})
			}
		}
		return out
	},
}

// orRoot names a component for messages, "the stack itself" for none.
func orRoot(comp string) string {
	if comp == "" {
		return "the stack itself"
	}
	return comp
}
