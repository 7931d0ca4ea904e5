package conformance

import (
	"fmt"
	"maps"
	"net/netip"
	"regexp"
	"slices"
	"strings"
)

// Rule is one entry of the catalogue: what AKS and ARM demand of a desired
// state, where it is written, and the check.
type Rule struct {
	// ID is stable, e.g. CONF-POOL-001.
	ID string
	// Statement says the rule in one line.
	Statement string
	// Source is the document or issue the rule comes from.
	Source string
	// Check returns the rule's findings over the state (Rule and Stack are
	// filled in by Check).
	Check func(s *State) []Finding
}

// Catalogue returns every rule, sorted by ID.
func Catalogue() []Rule {
	return []Rule{
		{ID: "CONF-API-001", Statement: "A private API server is only declared in a shape `pulumi up` can reach: no Kubernetes object in the same stack as a private cluster without API server VNet integration",
			Source: "Create a private AKS cluster, https://learn.microsoft.com/azure/aks/private-clusters; issue 10",
			Check:  checkPrivateAPIServer},
		{ID: "CONF-ID-001", Statement: "No Kubernetes object (group, kind, namespace, name) is registered twice in one stack",
			Source: "issue 12 (collisions); Kubernetes object names and IDs, https://kubernetes.io/docs/concepts/overview/working-with-objects/names/",
			Check:  checkKubernetesIdentity},
		{ID: "CONF-ID-002", Statement: "No Azure resource (type, parent, name) is declared twice in one stack, counting agent pools inline in the cluster, typed pools and template pools",
			Source: "issue 12 (collisions); Azure Resource Manager resource IDs, https://learn.microsoft.com/azure/azure-resource-manager/management/resource-name-rules",
			Check:  checkAzureIdentity},
		{ID: "CONF-ID-003", Statement: "Every deployment stack in the resource group of a cluster the stack declares carries that cluster's name, so two clusters (two Pulumi stacks) in one resource group never PUT each other's deployment stacks",
			Source: "Deployment stacks: names are unique per scope and actionOnUnmanage deletes what a PUT leaves out, https://learn.microsoft.com/azure/azure-resource-manager/bicep/deployment-stacks; issue 27",
			Check:  checkStackNamesPerCluster},
		{ID: "CONF-MON-001", Statement: "Whenever Prometheus rule groups target a cluster, a data collection rule association connects that cluster to a data collection rule with the Microsoft-PrometheusMetrics stream",
			Source: "Azure/prometheus-collector AddonArmTemplate/FullAzureMonitorMetricsProfile.json; Enable Prometheus metrics for AKS, https://learn.microsoft.com/azure/azure-monitor/containers/kubernetes-monitoring-enable; issue 11",
			Check:  checkPrometheusDCRA},
		{ID: "CONF-MON-002", Statement: "Every alert of a Prometheus rule group reads only series the cluster's collection ingests: the managed Prometheus add-on's minimal ingestion profile, the kube-state-metrics keep-list of its settings ConfigMap, the keep filters of the stack's PodMonitors and ServiceMonitors, or the DCGM exporter scraped whole; an alert on any other series can never fire",
			Source: "Minimal ingestion profile for Prometheus metrics in Azure Monitor, https://learn.microsoft.com/azure/azure-monitor/containers/prometheus-metrics-scrape-configuration-minimal; Customize scraping of Prometheus metrics (default-targets-metrics-keep-list), https://learn.microsoft.com/azure/azure-monitor/containers/prometheus-metrics-scrape-configmap; issue 27",
			Check:  checkAlertSeries},
		{ID: "CONF-NET-001", Statement: "Service CIDR, DNS service IP, pod CIDR and the VNet do not overlap; the service CIDR avoids the ranges AKS reserves; the DNS IP is inside the service CIDR and not its first address",
			Source: "Configure Azure CNI Overlay networking in AKS, https://learn.microsoft.com/azure/aks/azure-cni-overlay; Configure Azure CNI networking (service address range), https://learn.microsoft.com/azure/aks/configure-azure-cni; issue 10",
			Check:  checkNetworkRanges},
		{ID: "CONF-NET-002", Statement: "Every agent pool of a cluster names its node subnet (vnetSubnetID), all in one VNet, so storage rules and private endpoints know where the nodes are",
			Source: "AgentPool vnetSubnetID in the AKS REST spec (\"If this is not specified, a VNET and subnet will be generated and used\"); Use your own VNet with AKS, https://learn.microsoft.com/azure/aks/configure-azure-cni; issue 10",
			Check:  checkPoolSubnets},
		{ID: "CONF-NODE-001", Statement: "Node labels and taints do not use prefixes AKS or Kubernetes reserve: kubernetes.azure.com/ (except the spot taint), kubernetes.io/ and k8s.io/ outside the kubelet's allowed set",
			Source: "Use labels in AKS (reserved system labels), https://learn.microsoft.com/azure/aks/use-labels; NodeRestriction admission, https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#noderestriction; Spot node pools, https://learn.microsoft.com/azure/aks/spot-node-pool",
			Check:  checkReservedNodePrefixes},
		{ID: "CONF-POOL-001", Statement: "Agent pool names are unique per cluster across inline profiles, typed AgentPools and template pools",
			Source: "Create node pools, https://learn.microsoft.com/azure/aks/create-node-pools; issue 12",
			Check:  checkPoolNamesUnique},
		{ID: "CONF-POOL-002", Statement: "Agent pool names follow AKS: lowercase letters and digits, starting with a letter, 1-12 characters on Linux (1-6 on Windows)",
			Source: "Create node pools, limitations, https://learn.microsoft.com/azure/aks/create-node-pools#limitations; Use system node pools, https://learn.microsoft.com/azure/aks/use-system-pools#limitations",
			Check:  checkPoolNameSyntax},
		{ID: "CONF-POOL-003", Statement: "Every agent-pool write on one cluster is ordered after the previous one (Pulumi dependencies between writers, template dependsOn or a serial copy loop inside a template)",
			Source: "AKS refuses concurrent agent pool operations (409 OperationNotAllowed): Azure/AKS#1913, cilium/cilium#25944; issue 11",
			Check:  checkSerialPoolWrites},
		{ID: "CONF-POOL-004", Statement: "Managed GPU pools (gpuProfile.nvidia.managementMode Managed) do not enable the cluster autoscaler while AKS does not support it there",
			Source: "Fully managed GPU node pools (preview), https://learn.microsoft.com/azure/aks/aks-managed-gpu-nodes; issue 11",
			Check:  checkManagedGPUAutoscaler},
		{ID: "CONF-POOL-005", Statement: "gpuProfile.nvidia is only sent at an AKS API version whose every published spec revision carries it (2026-02-02-preview or later)",
			Source: "../shared/azure-specs/SOURCES.md (revisions of 2026-01-02-preview disagree); issue 11",
			Check:  checkNvidiaAPIVersion},
		{ID: "CONF-POOL-006", Statement: "No autoscaled pool sends count, whoever writes it (inline profile, typed AgentPool or template pool): each is PUT whole on every update, and a count would be refused or reset what the autoscaler chose",
			Source: "Azure Verified Module for AKS, count only without minCount/maxCount (Azure/terraform-azurerm-avm-res-containerservice-managedcluster modules/agentpool/locals.tf); \"Cannot manually scale AgentPool ... with cluster autoscaler enabled\" (hashicorp/terraform-provider-azurerm#4543); count optional on update (Azure/azure-rest-api-specs#7746); issues 11, 27",
			Check:  checkAutoscaledPoolCount},
		{ID: "CONF-ROLE-001", Statement: "The cluster identity holds Network Contributor (or broader) on every BYO node subnet or its VNet",
			Source: "Configure Azure CNI networking, prerequisites, https://learn.microsoft.com/azure/aks/configure-azure-cni#prerequisites; Use a managed identity in AKS, https://learn.microsoft.com/azure/aks/use-managed-identity; issue 10",
			Check:  checkSubnetRole},
		{ID: "CONF-ROLE-002", Statement: "The cluster identity holds Storage Account Contributor (or broader) on every storage account the CSI drivers provision volumes on",
			Source: "Create and use a volume with Azure Files in AKS, https://learn.microsoft.com/azure/aks/create-volume-azure-files; Azure Blob storage CSI driver, https://learn.microsoft.com/azure/aks/azure-blob-csi",
			Check:  checkStorageRole},
		{ID: "CONF-SPEC-001", Statement: "Every Azure request body conforms to the published REST spec of its exact API version: no unknown or read-only properties; types, enums, required properties, patterns, lengths and bounds as the spec states",
			Source: "Azure/azure-rest-api-specs (../shared/azure-specs, SOURCES.md); ARM template syntax, https://learn.microsoft.com/azure/azure-resource-manager/templates/syntax",
			Check:  checkSpecs},
		{ID: "CONF-STO-001", Statement: "A storage account that denies public networks is reachable from the nodes: its VNet rules name only node subnets, and it has one (or a private endpoint)",
			Source: "Azure Storage firewalls and virtual networks, https://learn.microsoft.com/azure/storage/common/storage-network-security; Create and use a volume with Azure Files in AKS, https://learn.microsoft.com/azure/aks/create-volume-azure-files; issue 10",
			Check:  checkStorageReachable},
		{ID: "CONF-STO-002", Statement: "When the cluster's nodes sit in a VNet the stack names, no Blob StorageClass leaves the storage account to the Blob CSI driver (no storageAccount parameter): the driver would create an account outside the stack and change the node subnet",
			Source: "kubernetes-sigs/blob-csi-driver docs/driver-parameters.md (storageAccount: \"the driver will look for a suitable storage account or create a new one\"; vnetResourceGroup, vnetName, subnetName; networkEndpointType); issue 27",
			Check:  checkBlobClassAccounts},
		{ID: "CONF-UPG-001", Statement: "Auto-upgrade channel node-image is paired with node OS upgrade channel NodeImage",
			Source: "Auto-upgrade node OS images, https://learn.microsoft.com/azure/aks/auto-upgrade-node-os-image; issue 11",
			Check:  checkUpgradeChannels},
	}
}

func checkStackNamesPerCluster(s *State) []Finding {
	clusters := map[string][]string{}
	for _, c := range s.clusters() {
		rg := strings.ToLower(c.ResourceGroup)
		clusters[rg] = append(clusters[rg], c.Name)
	}
	var out []Finding
	for _, b := range s.BodiesOf("Microsoft.Resources/deploymentStacks") {
		names := clusters[strings.ToLower(b.ResourceGroup)]
		if len(names) == 0 || !b.Typed {
			continue
		}
		if !slices.ContainsFunc(names, func(n string) bool { return strings.Contains(strings.ToLower(b.Name), strings.ToLower(n)) }) {
			out = append(out, findingOn(b, "deploymentStackName", "deployment stack %q in resource group %s does not carry the name of cluster %s; a second cluster in that group would PUT the same stack and delete this one's resources: prefix it with the cluster name", b.Name, b.ResourceGroup, strings.Join(names, ", ")))
		}
	}
	return out
}

// blobCSIDriver is the Blob CSI driver's provisioner name.
const blobCSIDriver = "blob.csi.azure.com"

func checkBlobClassAccounts(s *State) []Finding {
	inVNet := false
	for _, p := range s.Pools {
		if id, known := p.SubnetID(); id != "" || !known {
			inVNet = true
		}
	}
	if !inVNet {
		return nil
	}
	var out []Finding
	for _, r := range s.kubernetesObjects() {
		if !strings.HasSuffix(r.Type, ":StorageClass") || str(r.Inputs["provisioner"]) != blobCSIDriver {
			continue
		}
		if str(mapOf(r.Inputs["parameters"])["storageAccount"]) == "" {
			out = append(out, Finding{Resource: r.Name, Path: "parameters.storageAccount",
				Message: fmt.Sprintf("StorageClass %q lets the Blob CSI driver pick or create a storage account while the nodes sit in a VNet the stack manages: pin it to an account of the stack or leave the class out", str(getPath(r.Inputs, "metadata", "name")))})
		}
	}
	return out
}

// findingOn returns a finding on body b at path.
func findingOn(b Body, path, format string, args ...any) Finding {
	return Finding{Resource: b.Resource.Name, Path: strings.TrimSpace(b.Where + " " + path), Message: fmt.Sprintf(format, args...)}
}

// findingOnPool returns a finding on pool p.
func findingOnPool(p Pool, path, format string, args ...any) Finding {
	return findingOn(p.Body, strings.TrimSpace(p.Where+" "+path), format, args...)
}

// clusterProps returns a cluster body's properties (SDK inputs for typed
// clusters).
func clusterProps(b Body) map[string]any {
	if b.Typed {
		return b.Value
	}
	return mapOf(b.Value["properties"])
}

var (
	linuxPoolName   = regexp.MustCompile(`^[a-z][a-z0-9]{0,11}$`)
	windowsPoolName = regexp.MustCompile(`^[a-z][a-z0-9]{0,5}$`)
)

func checkPoolNameSyntax(s *State) []Finding {
	var out []Finding
	for _, p := range s.Pools {
		if p.Name == "" {
			continue
		}
		re, os := linuxPoolName, "Linux"
		if strings.EqualFold(str(p.Props["osType"]), "Windows") {
			re, os = windowsPoolName, "Windows"
		}
		if !re.MatchString(p.Name) {
			out = append(out, findingOnPool(p, "", "%s: a %s pool name must be lowercase letters and digits, start with a letter, and be at most %d characters", p.Describe(), os, map[string]int{"Linux": 12, "Windows": 6}[os]))
		}
	}
	return out
}

func checkPoolNamesUnique(s *State) []Finding {
	var out []Finding
	keys, by := poolsByCluster(s.Pools)
	for _, c := range keys {
		seen := map[string]Pool{}
		for _, p := range by[c] {
			if p.Name == "" {
				continue
			}
			if first, dup := seen[p.Name]; dup {
				out = append(out, findingOnPool(p, "", "%s on cluster %s has the name of %s", p.Describe(), c, first.Describe()))
				continue
			}
			seen[p.Name] = p
		}
	}
	return out
}

// checkSerialPoolWrites demands a total order over the writers of each
// cluster's pools (the cluster itself for inline pools, each typed pool,
// each template that holds pools), and inside a template over its pools.
func checkSerialPoolWrites(s *State) []Finding {
	var out []Finding
	keys, by := poolsByCluster(s.Pools)
	for _, c := range keys {
		var units []Pool // one representative pool per writer
		inTemplate := map[string][]Pool{}
		for _, p := range by[c] {
			if !slices.ContainsFunc(units, func(u Pool) bool { return u.writeUnit() == p.writeUnit() }) {
				units = append(units, p)
			}
			if !p.Body.Typed {
				inTemplate[p.writeUnit()] = append(inTemplate[p.writeUnit()], p)
			}
		}
		for _, u := range units {
			var parallel []string
			for _, v := range units {
				if u.writeUnit() == v.writeUnit() || s.dependsOn(u.writeUnit(), v.writeUnit()) || s.dependsOn(v.writeUnit(), u.writeUnit()) {
					continue
				}
				parallel = append(parallel, v.Body.Resource.Name)
			}
			if len(parallel) > 0 {
				out = append(out, findingOn(u.Body, "", "writes agent pools of cluster %s in parallel with %s: no Pulumi dependency orders them; chain the pool writes (dependsOn the previous pool)", c, strings.Join(parallel, ", ")))
			}
		}
		for _, u := range units {
			pools := inTemplate[u.writeUnit()]
			for i, p := range pools {
				if p.Body.Copy != nil && !serialLoop(p.Body.Copy) {
					out = append(out, findingOnPool(p, "", "%s is a copy loop that is not serial with batchSize 1; ARM would write its pools in parallel", p.Describe()))
				}
				for _, q := range pools[i+1:] {
					if !serialCopies(p, q) && !templateDependsOn(pools, p, q) && !templateDependsOn(pools, q, p) {
						out = append(out, findingOnPool(q, "", "%s and %s are written in parallel by one template: add a dependsOn from one to the other", q.Describe(), p.Describe()))
					}
				}
			}
		}
	}
	return out
}

// serialLoop reports whether a copy loop writes one instance at a time.
func serialLoop(loop map[string]any) bool {
	return strings.EqualFold(str(loop["mode"]), "serial") && num(loop["batchSize"]) == 1
}

// serialCopies reports whether a and b are instances of one serial copy
// loop with batchSize 1 (ARM writes them one after the other).
func serialCopies(a, b Pool) bool {
	base := func(p Pool) string { w, _, _ := strings.Cut(p.Body.Where, "(copy "); return w }
	return a.Body.Copy != nil && serialLoop(a.Body.Copy) && base(a) == base(b)
}

// templateDependsOn reports whether template pool a waits for b through
// dependsOn entries (resource IDs, names or symbolic names), transitively
// over the template's pools.
func templateDependsOn(pools []Pool, a, b Pool) bool {
	seen := map[string]bool{}
	var visit func(x Pool) bool
	visit = func(x Pool) bool {
		for _, d := range x.Body.DependsOn {
			for _, y := range pools {
				if !refersTo(d, y.Body) || seen[y.Body.Where] {
					continue
				}
				if y.Body.Where == b.Body.Where {
					return true
				}
				seen[y.Body.Where] = true
				if visit(y) {
					return true
				}
			}
		}
		return false
	}
	return visit(a)
}

// refersTo reports whether a template dependsOn entry names body b: its
// symbolic name, its name, or its resource ID.
func refersTo(dep string, b Body) bool {
	if dep == "" || isExpression(dep) {
		return false
	}
	if (b.Key != "" && dep == b.Key) || (b.Name != "" && strings.EqualFold(dep, b.Name)) {
		return true
	}
	id := b.ID()
	return id != "" && strings.EqualFold(dep, id)
}

func num(v any) float64 {
	n, _ := v.(float64)
	return n
}

func nvidia(p Pool) map[string]any { return mapOf(getPath(p.Props, "gpuProfile", "nvidia")) }

func checkManagedGPUAutoscaler(s *State) []Finding {
	var out []Finding
	for _, p := range s.Pools {
		if n := nvidia(p); n != nil && strings.EqualFold(str(n["managementMode"]), "Managed") && p.Props["enableAutoScaling"] == true {
			out = append(out, findingOnPool(p, "enableAutoScaling", "%s is a managed GPU pool with the cluster autoscaler on; AKS does not support the autoscaler on managed GPU pools in preview: set an explicit count and enableAutoScaling false", p.Describe()))
		}
	}
	return out
}

func checkAutoscaledPoolCount(s *State) []Finding {
	var out []Finding
	for _, p := range s.Pools {
		if p.Props["enableAutoScaling"] != true {
			continue
		}
		if _, ok := p.Props["count"]; ok {
			out = append(out, findingOnPool(p, "count", "%s has the autoscaler on and sends count; every update would send it again and reset (or be refused for) the node count the autoscaler chose: leave count out", p.Describe()))
		}
	}
	return out
}

// firstNvidiaVersion is the first AKS API version whose every published
// spec revision has gpuProfile.nvidia (../shared/azure-specs/SOURCES.md).
const firstNvidiaVersion = "2026-02-02-preview"

func checkNvidiaAPIVersion(s *State) []Finding {
	var out []Finding
	for _, p := range s.Pools {
		if nvidia(p) == nil {
			continue
		}
		if v := p.Body.APIVersion; v == "" || v[:10] < firstNvidiaVersion[:10] {
			out = append(out, findingOnPool(p, "gpuProfile.nvidia", "%s sends gpuProfile.nvidia at API %s; use %s or later, the first version whose published spec always carries it", p.Describe(), v, firstNvidiaVersion))
		}
	}
	return out
}

// kubeletLabelPrefixes and kubeletLabels are the kubernetes.io/k8s.io
// labels a kubelet may set on its own Node (NodeRestriction).
var (
	kubeletLabelPrefixes = []string{"kubelet.kubernetes.io/", "node.kubernetes.io/"}
	kubeletLabels        = []string{
		"kubernetes.io/hostname", "kubernetes.io/arch", "kubernetes.io/os",
		"beta.kubernetes.io/arch", "beta.kubernetes.io/os", "beta.kubernetes.io/instance-type",
		"node.kubernetes.io/instance-type", "failure-domain.beta.kubernetes.io/region",
		"failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/region", "topology.kubernetes.io/zone",
	}
)

// spotTaint is the taint AKS puts on spot pools; declaring it is allowed.
const spotTaint = "kubernetes.azure.com/scalesetpriority=spot:NoSchedule"

// reservedKey explains why a label or taint key is reserved, "" if not.
func reservedKey(key string) string {
	prefix, _, hasPrefix := strings.Cut(key, "/")
	if !hasPrefix {
		return ""
	}
	switch {
	case prefix == "kubernetes.azure.com" || strings.HasSuffix(prefix, ".kubernetes.azure.com"):
		return "AKS reserves the kubernetes.azure.com/ prefix"
	case prefix == "kubernetes.io" || strings.HasSuffix(prefix, ".kubernetes.io") || prefix == "k8s.io" || strings.HasSuffix(prefix, ".k8s.io"):
		if slices.Contains(kubeletLabels, key) || slices.ContainsFunc(kubeletLabelPrefixes, func(p string) bool { return strings.HasPrefix(key, p) }) {
			return ""
		}
		return "Kubernetes reserves kubernetes.io/ and k8s.io/ keys outside the set a kubelet may set"
	}
	return ""
}

func checkReservedNodePrefixes(s *State) []Finding {
	var out []Finding
	for _, p := range s.Pools {
		for _, k := range slices.Sorted(maps.Keys(mapOf(p.Props["nodeLabels"]))) {
			if why := reservedKey(k); why != "" {
				out = append(out, findingOnPool(p, "nodeLabels", "%s: node label %q: %s", p.Describe(), k, why))
			}
		}
		for _, t := range listOf(p.Props["nodeTaints"]) {
			taint := str(t)
			if taint == spotTaint {
				continue
			}
			key, _, _ := strings.Cut(taint, "=")
			key, _, _ = strings.Cut(key, ":")
			if why := reservedKey(key); why != "" {
				out = append(out, findingOnPool(p, "nodeTaints", "%s: node taint %q: %s (the spot taint %s is the one exception)", p.Describe(), taint, why, spotTaint))
			}
		}
	}
	return out
}

func checkUpgradeChannels(s *State) []Finding {
	var out []Finding
	for _, c := range s.clusters() {
		prof := mapOf(clusterProps(c)["autoUpgradeProfile"])
		if strings.EqualFold(str(prof["upgradeChannel"]), "node-image") {
			if os := str(prof["nodeOSUpgradeChannel"]); os != "" && os != "NodeImage" {
				out = append(out, findingOn(c, "autoUpgradeProfile", "upgrade channel node-image needs nodeOSUpgradeChannel NodeImage, not %s", os))
			}
		}
	}
	return out
}

// reservedServiceRanges are the ranges AKS forbids for the service CIDR.
var reservedServiceRanges = []string{"169.254.0.0/16", "172.30.0.0/16", "172.31.0.0/16", "192.0.2.0/24"}

func prefixes(vs ...any) []netip.Prefix {
	var out []netip.Prefix
	for _, v := range vs {
		var raw []string
		switch t := v.(type) {
		case string:
			raw = []string{t}
		case []any:
			for _, e := range t {
				raw = append(raw, str(e))
			}
		}
		for _, r := range raw {
			if p, err := netip.ParsePrefix(r); err == nil {
				out = append(out, p.Masked())
			}
		}
	}
	return out
}

// vnetRanges are the address spaces of the VNets and subnets the stack
// declares.
func (s *State) vnetRanges() []netip.Prefix {
	var out []netip.Prefix
	for _, b := range s.BodiesOf(typeVNet) {
		props := b.Value
		if !b.Typed {
			props = mapOf(b.Value["properties"])
		}
		out = append(out, prefixes(getPath(props, "addressSpace", "addressPrefixes"))...)
	}
	for _, b := range s.BodiesOf(typeSubnet) {
		props := b.Value
		if !b.Typed {
			props = mapOf(b.Value["properties"])
		}
		out = append(out, prefixes(props["addressPrefix"], props["addressPrefixes"])...)
	}
	return out
}

func checkNetworkRanges(s *State) []Finding {
	var out []Finding
	vnets := s.vnetRanges()
	for _, c := range s.clusters() {
		np := mapOf(clusterProps(c)["networkProfile"])
		if np == nil {
			continue
		}
		services := prefixes(np["serviceCidr"], np["serviceCidrs"])
		pods := prefixes(np["podCidr"], np["podCidrs"])
		for _, svc := range services {
			for _, r := range reservedServiceRanges {
				if res := netip.MustParsePrefix(r); svc.Overlaps(res) {
					out = append(out, findingOn(c, "networkProfile.serviceCidr", "service CIDR %s overlaps %s, which AKS reserves", svc, res))
				}
			}
			for _, pod := range pods {
				if svc.Overlaps(pod) {
					out = append(out, findingOn(c, "networkProfile.serviceCidr", "service CIDR %s overlaps pod CIDR %s", svc, pod))
				}
			}
			for _, v := range vnets {
				if svc.Overlaps(v) {
					out = append(out, findingOn(c, "networkProfile.serviceCidr", "service CIDR %s overlaps VNet range %s", svc, v))
				}
			}
		}
		for _, pod := range pods {
			for _, v := range vnets {
				if pod.Overlaps(v) {
					out = append(out, findingOn(c, "networkProfile.podCidr", "pod CIDR %s overlaps VNet range %s", pod, v))
				}
			}
		}
		if dns := str(np["dnsServiceIP"]); dns != "" && len(services) > 0 {
			ip, err := netip.ParseAddr(dns)
			switch {
			case err != nil:
				out = append(out, findingOn(c, "networkProfile.dnsServiceIP", "dnsServiceIP %q is not an IP address", dns))
			case !slices.ContainsFunc(services, func(p netip.Prefix) bool { return p.Contains(ip) }):
				out = append(out, findingOn(c, "networkProfile.dnsServiceIP", "dnsServiceIP %s is outside the service CIDR %s", ip, services[0]))
			case slices.ContainsFunc(services, func(p netip.Prefix) bool { return ip == p.Addr() || ip == p.Addr().Next() }):
				out = append(out, findingOn(c, "networkProfile.dnsServiceIP", "dnsServiceIP %s is the network or first address of the service CIDR (the kubernetes service takes the first); use e.g. .10", ip))
			}
		}
	}
	return out
}

func checkPoolSubnets(s *State) []Finding {
	var out []Finding
	keys, by := poolsByCluster(s.Pools)
	for _, c := range keys {
		vnets := map[string]bool{}
		for _, p := range by[c] {
			id, known := p.SubnetID()
			if !known {
				continue
			}
			id = s.canon(id)
			if id == "" {
				out = append(out, findingOnPool(p, "vnetSubnetID", "%s sets no vnetSubnetID: AKS puts its nodes in a VNet it generates, which no storage rule, private endpoint or role assignment of the stack can name", p.Describe()))
				continue
			}
			if vnet, _, ok := strings.Cut(id, "/subnets/"); ok {
				vnets[vnet] = true
			}
		}
		if len(vnets) > 1 {
			out = append(out, findingOnPool(by[c][0], "vnetSubnetID", "the pools of cluster %s are in %d VNets; AKS needs every pool in one VNet", c, len(vnets)))
		}
	}
	return out
}

// nodeSubnets are the vnetSubnetIDs of every pool, lower-case; unknown
// is true when some pool's subnet is only known at deployment.
func (s *State) nodeSubnets() (ids []string, unknown bool) {
	for _, p := range s.Pools {
		id, known := p.SubnetID()
		id = s.canon(id)
		switch {
		case !known:
			unknown = true
		case id != "" && !slices.Contains(ids, id):
			ids = append(ids, id)
		}
	}
	return ids, unknown
}

// storageProps returns a storage account body's properties.
func storageProps(b Body) map[string]any {
	if b.Typed {
		return b.Value
	}
	return mapOf(b.Value["properties"])
}

// privateEndpointTo reports whether the stack has a private endpoint whose
// connection targets the body's resource.
func (s *State) privateEndpointTo(target Body) bool {
	id, leaf := s.canon(target.ID()), strings.ToLower(target.Leaf())
	for _, pe := range s.BodiesOf(typePrivateEP) {
		props := pe.Value
		if !pe.Typed {
			props = mapOf(pe.Value["properties"])
		}
		for _, key := range []string{"privateLinkServiceConnections", "manualPrivateLinkServiceConnections"} {
			for _, conn := range listOf(props[key]) {
				cm := mapOf(conn)
				svc := str(cm["privateLinkServiceId"])
				if svc == "" {
					svc = str(getPath(cm, "properties", "privateLinkServiceId"))
				}
				svc = s.canon(svc)
				if svc != "" && (svc == id || strings.HasSuffix(svc, "/"+leaf)) {
					return true
				}
			}
		}
	}
	return false
}

func checkStorageReachable(s *State) []Finding {
	if len(s.clusters()) == 0 {
		return nil
	}
	var out []Finding
	subnets, unknownSubnets := s.nodeSubnets()
	for _, b := range s.BodiesOf(typeStorageAccount) {
		props := storageProps(b)
		rules := mapOf(props["networkRuleSet"])
		route := false
		for i, r := range listOf(rules["virtualNetworkRules"]) {
			rm := mapOf(r)
			subnet := str(rm["virtualNetworkResourceId"])
			if subnet == "" {
				subnet = str(rm["id"])
			}
			if slices.Contains(subnets, s.canon(subnet)) || unknownSubnets || isExpression(subnet) || subnet == unknownValue {
				// A node subnet, or one this tier cannot tell apart from
				// one (known only at deployment).
				route = true
				continue
			}
			out = append(out, findingOn(b, fmt.Sprintf("networkRuleSet.virtualNetworkRules[%d]", i), "storage account %s allows subnet %s, which no agent pool of the stack is in; name a pool's vnetSubnetID or use a private endpoint", b.Leaf(), subnet))
		}
		denies := strings.EqualFold(str(rules["defaultAction"]), "Deny") || strings.EqualFold(str(props["publicNetworkAccess"]), "Disabled")
		if denies && !route && !s.privateEndpointTo(b) {
			out = append(out, findingOn(b, "networkRuleSet", "storage account %s denies public networks but neither a VNet rule for a node subnet nor a private endpoint lets the nodes reach it: every volume mount would be refused", b.Leaf()))
		}
	}
	return out
}

// Built-in role definition IDs.
// Source: Azure built-in roles, https://learn.microsoft.com/azure/role-based-access-control/built-in-roles
const (
	roleOwner                     = "8e3af657-a8ff-443c-a75c-2fe8c4bcb635"
	roleContributor               = "b24988ac-6180-42a0-ab88-20f7382dd24c"
	roleNetworkContributor        = "4d97b98b-1d4f-4787-a291-c67834d212e7"
	roleStorageAccountContributor = "17d1049b-9a84-46fb-8f53-869881c3d3ab"
)

// roleAssignment is one role assignment of the stack, typed or templated.
type roleAssignment struct {
	body        Body
	role        string // role definition GUID, lower-case
	scope       string // lower-case
	principal   string
	fromCluster bool // the principal comes from a ManagedCluster of the stack
}

func (s *State) roleAssignments() []roleAssignment {
	clusters := map[string]bool{}
	for _, c := range s.clusters() {
		clusters[c.Resource.URN] = true
	}
	var out []roleAssignment
	for _, b := range s.BodiesOf(typeRoleAssignment) {
		props := b.Value
		if !b.Typed {
			props = mapOf(b.Value["properties"])
		}
		def := strings.ToLower(str(props["roleDefinitionId"]))
		ra := roleAssignment{body: b, role: def[strings.LastIndex(def, "/")+1:], scope: s.canon(b.Scope), principal: str(props["principalId"])}
		for _, d := range b.Resource.DependsOn {
			if clusters[d] {
				ra.fromCluster = true
			}
		}
		if !b.Typed {
			ra.fromCluster = ra.fromCluster || strings.Contains(strings.ToLower(ra.principal), "managedclusters")
		}
		out = append(out, ra)
	}
	return out
}

// covers reports whether a role assignment scope covers the resource ID
// (equal, or a parent scope of it).
func covers(scope, id string) bool {
	id = strings.ToLower(id)
	return scope != "" && (scope == id || strings.HasPrefix(id, strings.TrimSuffix(scope, "/")+"/"))
}

func checkSubnetRole(s *State) []Finding {
	var out []Finding
	assignments := s.roleAssignments()
	// The VNet of a typed subnet, for scopes on the VNet of a subnet whose
	// mock ID does not contain it.
	vnetOf := map[string]string{}
	for _, sub := range s.BodiesOf(typeSubnet) {
		for _, v := range s.BodiesOf(typeVNet) {
			// The subnet names its VNet by the VNet's name input or, when
			// it takes the VNet's name output under synth, its Pulumi name.
			parent := str(sub.Value["virtualNetworkName"])
			if sub.Typed && v.Typed && (strings.EqualFold(parent, str(v.Value["virtualNetworkName"])) || parent == v.Resource.Name) {
				vnetOf[s.canon(sub.ID())] = s.canon(v.ID())
			}
		}
	}
	keys, by := poolsByCluster(s.Pools)
	for _, c := range keys {
		seen := map[string]bool{}
		for _, p := range by[c] {
			id, known := p.SubnetID()
			subnet := s.canon(id)
			if !known || subnet == "" || seen[subnet] {
				continue
			}
			seen[subnet] = true
			ok := slices.ContainsFunc(assignments, func(ra roleAssignment) bool {
				if !slices.Contains([]string{roleNetworkContributor, roleContributor, roleOwner}, ra.role) || ra.principal == "" || !ra.fromCluster {
					return false
				}
				return covers(ra.scope, subnet) || (vnetOf[subnet] != "" && covers(ra.scope, vnetOf[subnet]))
			})
			if !ok {
				out = append(out, findingOnPool(p, "vnetSubnetID", "%s uses subnet %s, but no role assignment gives the cluster identity Network Contributor on it or its VNet; AKS cannot manage the nodes' network there", p.Describe(), id))
			}
		}
	}
	return out
}

func checkStorageRole(s *State) []Finding {
	clusters := s.clusters()
	if len(clusters) == 0 {
		return nil
	}
	var out []Finding
	assignments := s.roleAssignments()
	for _, b := range s.BodiesOf(typeStorageAccount) {
		id := s.canon(b.ID())
		ok := slices.ContainsFunc(assignments, func(ra roleAssignment) bool {
			return slices.Contains([]string{roleStorageAccountContributor, roleContributor, roleOwner}, ra.role) && ra.fromCluster && covers(ra.scope, id)
		})
		if !ok {
			out = append(out, findingOn(b, "", "storage account %s has no role assignment giving the cluster identity Storage Account Contributor: the CSI drivers cannot create shares or containers on it", b.Leaf()))
		}
	}
	return out
}

func checkPrivateAPIServer(s *State) []Finding {
	objects := len(s.kubernetesObjects())
	var out []Finding
	for _, c := range s.clusters() {
		api := mapOf(clusterProps(c)["apiServerAccessProfile"])
		if api["enablePrivateCluster"] != true || api["enableVnetIntegration"] == true || objects == 0 {
			continue
		}
		out = append(out, findingOn(c, "apiServerAccessProfile.enablePrivateCluster", "the cluster's API server is private, yet this stack registers %d Kubernetes objects through it, which `pulumi up` outside the VNet cannot reach: deploy the Kubernetes layer as a second stack in existing-cluster mode run from inside the VNet", objects))
	}
	return out
}

// clusterNamedBy reports whether an ID-like string names the cluster
// (a resource ID ending in managedClusters/<name>, case-insensitive; the
// synth mock form ManagedCluster/<name> too).
func clusterNamedBy(ref, name string) bool {
	ref, name = strings.ToLower(ref), strings.ToLower(name)
	return name != "" && strings.HasSuffix(ref, "/"+name) && strings.Contains(ref, "managedcluster")
}

func checkPrometheusDCRA(s *State) []Finding {
	var out []Finding
	dcrs := s.BodiesOf(typeDCR)
	for _, rg := range s.BodiesOf(typeRuleGroup) {
		cluster := str(getPath(rg.Value, "properties", "clusterName"))
		if cluster == "" || isExpression(cluster) {
			continue
		}
		// A cluster may carry other associations (Container Insights'
		// ContainerInsightsExtension); one to a Prometheus rule is enough.
		prometheus := false
		var others []string
		for _, a := range s.associations() {
			if !clusterNamedBy(a.Scope, cluster) {
				continue
			}
			ruleID := str(getPath(a.Value, "properties", "dataCollectionRuleId"))
			if ruleID == "" {
				continue
			}
			for _, d := range dcrs {
				if d.Name == "" || !strings.HasSuffix(strings.ToLower(ruleID), "/"+strings.ToLower(d.Leaf())) {
					continue
				}
				if hasPrometheusStream(d) {
					prometheus = true
				} else {
					others = append(others, d.Leaf())
				}
			}
		}
		if prometheus {
			continue
		}
		msg := "Prometheus rule group for cluster %s evaluates no data: no data collection rule association connects the cluster to a data collection rule sending Microsoft-PrometheusMetrics to the Azure Monitor workspace"
		if len(others) > 0 {
			msg += " (the associated rules " + strings.Join(others, ", ") + " have no Microsoft-PrometheusMetrics data flow)"
		}
		out = append(out, findingOn(rg, "", msg, cluster))
	}
	return out
}

// associations returns the data collection rule associations of the
// stack's templates: extension resources (type
// Microsoft.Insights/dataCollectionRuleAssociations with a scope), and the
// older nested form Microsoft.ContainerService/managedClusters/providers/
// dataCollectionRuleAssociations named "<cluster>/microsoft.insights/<name>",
// whose scope is the cluster (Microsoft's managed Prometheus onboarding
// template uses it).
func (s *State) associations() []Body {
	out := s.BodiesOf(typeDCRA)
	for _, b := range s.BodiesOf(typeManagedCluster + "/providers/dataCollectionRuleAssociations") {
		if cluster, _, ok := strings.Cut(b.Name, "/"); ok {
			b.Scope = armID(scopeSubscription, b.ResourceGroup, typeManagedCluster, []string{cluster})
			out = append(out, b)
		}
	}
	return out
}

func hasPrometheusStream(d Body) bool {
	props := d.Value
	if !d.Typed {
		props = mapOf(d.Value["properties"])
	}
	for _, f := range listOf(props["dataFlows"]) {
		for _, st := range listOf(mapOf(f)["streams"]) {
			if str(st) == "Microsoft-PrometheusMetrics" {
				return true
			}
		}
	}
	return false
}
