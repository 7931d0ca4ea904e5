package rules

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/network"
)

// Rules on the Azure network of the cluster (issue 10; sources in
// components/network/doc.go): node pools in a named subnet, the cluster
// identity on it, the overlay address plan, a reachable API server and
// storage the nodes can reach.

// netSource points at the sources of the network rules.
const netSource = "sources in components/network/doc.go"

// subnetOf returns a pool's vnetSubnetID ("" when unset, Unknown when not
// known before deployment).
func subnetOf(p Pool) string {
	props := poolProps(p)
	if props["vnetSubnetID"] == Unknown {
		return Unknown
	}
	return str(props["vnetSubnetID"])
}

// poolProps returns the raw properties of the pool inside its resource.
func poolProps(p Pool) map[string]any {
	switch _, kind := azureType(p.Resource); kind {
	case "AgentPool":
		return p.Resource.Inputs
	case "ManagedCluster":
		for _, prof := range listOf(p.Resource.Inputs["agentPoolProfiles"]) {
			if str(mapOf(prof)["name"]) == p.Name {
				return mapOf(prof)
			}
		}
	default:
		template := mapOf(decodeJSON(p.Resource.Inputs["template"]))
		params := ARMParameters(template, mapOf(decodeJSON(p.Resource.Inputs["parameters"])))
		for _, res := range listOf(template["resources"]) {
			rm := mapOf(res)
			if strings.EqualFold(str(rm["type"]), ARMAgentPoolType) && armPoolName(rm["name"], params) == p.Name {
				return mapOf(resolveARM(rm["properties"], params))
			}
		}
	}
	return nil
}

// poolSubnets returns the known subnets the stack's pools join, and whether
// some pool's subnet is not known before deployment.
func poolSubnets(s *Stack) (known []string, unknown bool) {
	for _, p := range AgentPools(s) {
		switch sub := subnetOf(p); sub {
		case Unknown:
			unknown = true
		case "":
		default:
			if !slices.ContainsFunc(known, func(k string) bool { return strings.EqualFold(k, sub) }) {
				known = append(known, sub)
			}
		}
	}
	return known, unknown
}

func isAzure(r Resource, module, kind string) bool {
	m, k := azureType(r)
	return m == module && k == kind
}

// azureResources returns the stack's azure-native resources of one module
// and kind, in registration order.
func azureResources(s *Stack, module, kind string) []Resource {
	var out []Resource
	for _, r := range s.Resources {
		if isAzure(r, module, kind) {
			out = append(out, r)
		}
	}
	return out
}

var ruleNetPoolSubnet = Rule{
	ID:       "AKSML-NET-003",
	Title:    "AKS node pools join a subnet the stack names (vnetSubnetID)",
	Severity: Mandatory,
	Source:   "AKS AgentPool vnetSubnetID (\"If this is not specified, a VNET and subnet will be generated and used\"); SPEC C1.4; " + netSource + "; a dev stack that exports " + network.ModeOutput + " " + network.ModeAKSManaged + " keeps the generated VNet of a cluster already in it",
	Stack: func(s *Stack) []Finding {
		if !isProd(s) && aksManagedVNet(s) {
			// A dev stack keeps the VNet AKS generated for a cluster that
			// already runs in it, by declaration (network.ModeAKSManaged).
			return nil
		}
		var out []Finding
		for _, p := range AgentPools(s) {
			if subnetOf(p) == "" {
				out = append(out, Finding{URN: resourceRef(p.Resource), Message: fmt.Sprintf(
					"%s sets no vnetSubnetID, so AKS puts its nodes in a VNet it generates, which no storage rule, private endpoint or peering can name; set vnetSubnetID to the cluster's node subnet (aksml:network)", p.Describe())})
			}
		}
		return out
	},
}

// aksManagedVNet reports whether the stack declares that its cluster stays
// in the VNet AKS generated: the aksml program exports network.ModeOutput
// network.ModeAKSManaged.
func aksManagedVNet(s *Stack) bool {
	return s.Outputs[network.ModeOutput].Value == network.ModeAKSManaged
}

var ruleNetSubnetRole = Rule{
	ID:       "AKSML-NET-004",
	Title:    "The cluster identity has Network Contributor on the node subnet it did not create",
	Severity: Mandatory,
	Source:   "AKS CNI networking overview, prerequisites (Network Contributor on the subnet); " + netSource,
	Stack: func(s *Stack) []Finding {
		clusters := azureResources(s, "containerservice", "ManagedCluster")
		known, unknown := poolSubnets(s)
		if len(clusters) == 0 || (len(known) == 0 && !unknown) {
			return nil
		}
		var scopes []string
		for _, r := range azureResources(s, "authorization", "RoleAssignment") {
			if strings.HasSuffix(strings.ToLower(str(r.Inputs["roleDefinitionId"])), network.NetworkContributorRoleID) {
				scopes = append(scopes, fmt.Sprint(r.Inputs["scope"]))
			}
		}
		var out []Finding
		for _, sub := range known {
			covered := slices.ContainsFunc(scopes, func(sc string) bool {
				return sc == Unknown || strings.EqualFold(sc, sub) || strings.EqualFold(sc, network.VNetID(sub))
			})
			if !covered {
				out = append(out, Finding{URN: resourceRef(clusters[0]), Message: fmt.Sprintf(
					"%s has node pools in %s but no role assignment gives its identity Network Contributor (%s) on that subnet or its VNet; AKS needs it to manage the subnet (load balancers, private endpoints); add the role assignment (network.Network.GrantNodeSubnet)",
					describe(clusters[0]), sub, network.NetworkContributorRoleID)})
			}
		}
		if unknown && len(scopes) == 0 {
			out = append(out, Finding{URN: resourceRef(clusters[0]), Message: fmt.Sprintf(
				"%s has node pools in a subnet created in this stack but no Network Contributor role assignment (%s) for its identity; add one scoped to the node subnet", describe(clusters[0]), network.NetworkContributorRoleID)})
		}
		return out
	},
}

// overlayProblems lists what is wrong with a cluster's overlay plan.
func overlayProblems(c Resource, vnets []Resource) []string {
	np := mapOf(c.Inputs["networkProfile"])
	var out []string
	pod, podErr := netip.ParsePrefix(str(np["podCidr"]))
	svc, svcErr := netip.ParsePrefix(str(np["serviceCidr"]))
	for _, r := range []struct {
		name string
		p    netip.Prefix
		err  error
	}{{"podCidr", pod, podErr}, {"serviceCidr", svc, svcErr}} {
		if r.err == nil && network.ForbiddenOverlap(r.p) != "" {
			out = append(out, fmt.Sprintf("%s %s overlaps %s, which AKS reserves", r.name, r.p, network.ForbiddenOverlap(r.p)))
		}
	}
	if svcErr == nil && svc.Bits() < network.MinServiceCIDRBits {
		out = append(out, fmt.Sprintf("serviceCidr %s is larger than a /%d", svc, network.MinServiceCIDRBits))
	}
	if podErr == nil && svcErr == nil && pod.Overlaps(svc) {
		out = append(out, fmt.Sprintf("podCidr %s overlaps serviceCidr %s", pod, svc))
	}
	if dns, err := netip.ParseAddr(str(np["dnsServiceIP"])); err == nil && svcErr == nil {
		switch {
		case !svc.Contains(dns):
			out = append(out, fmt.Sprintf("dnsServiceIP %s is outside serviceCidr %s", dns, svc))
		case network.ReservedServiceAddress(svc, dns) != "":
			out = append(out, fmt.Sprintf("dnsServiceIP %s in serviceCidr %s is %s", dns, svc, network.ReservedServiceAddress(svc, dns)))
		}
	}
	for _, v := range vnets {
		for _, a := range stringList(get(v.Inputs, "addressSpace.addressPrefixes")) {
			space, err := netip.ParsePrefix(a)
			if err != nil {
				continue
			}
			if f := network.ForbiddenOverlap(space); f != "" {
				out = append(out, fmt.Sprintf("%s address space %s overlaps %s, which AKS reserves", describe(v), a, f))
			}
			for _, r := range []struct {
				name string
				p    netip.Prefix
				err  error
			}{{"podCidr", pod, podErr}, {"serviceCidr", svc, svcErr}} {
				if r.err == nil && r.p.Overlaps(space) {
					out = append(out, fmt.Sprintf("%s %s overlaps %s address space %s", r.name, r.p, describe(v), a))
				}
			}
		}
	}
	return out
}

var ruleNetOverlay = Rule{
	ID:       "AKSML-NET-005",
	Title:    "The overlay address plan is valid: pod, service and VNet ranges disjoint and outside AKS-reserved ranges; DNS IP inside the service range, not an address Kubernetes reserves there",
	Severity: Mandatory,
	Source:   "AKS CNI networking overview (reserved ranges), Azure CNI Overlay IP address planning; SPEC C1.4; " + netSource,
	Stack: func(s *Stack) []Finding {
		vnets := azureResources(s, "network", "VirtualNetwork")
		var out []Finding
		for _, r := range azureResources(s, "containerservice", "ManagedCluster") {
			if problems := overlayProblems(r, vnets); len(problems) > 0 {
				out = append(out, Finding{URN: resourceRef(r), Message: fmt.Sprintf(
					"%s: %s; choose disjoint private ranges outside 169.254.0.0/16, 172.30.0.0/16, 172.31.0.0/16 and 192.0.2.0/24, with dnsServiceIP e.g. the .10 of serviceCidr",
					describe(r), strings.Join(problems, "; "))})
			}
		}
		return out
	},
}

var ruleNetAPIServer = Rule{
	ID:       "AKSML-NET-006",
	Title:    "Production API servers are private or restricted to authorized ranges no broader than /8",
	Severity: Mandatory,
	Source:   "AKS API server authorized IP ranges; SPEC C9 (private or IP-restricted API); " + netSource,
	Resource: func(r Resource, s *Stack) []string {
		if !isProd(s) || !isAzure(r, "containerservice", "ManagedCluster") {
			return nil
		}
		api := mapOf(r.Inputs["apiServerAccessProfile"])
		if private, _ := boolOf(api["enablePrivateCluster"]); private {
			return nil
		}
		ranges := stringList(api["authorizedIPRanges"])
		if len(ranges) == 0 {
			return []string{fmt.Sprintf("%s has a public API server open to every address; set apiServerAccessProfile.authorizedIPRanges to the ranges that administer the cluster and run pulumi up", describe(r))}
		}
		var out []string
		for _, a := range ranges {
			p, err := netip.ParsePrefix(a)
			if err == nil && p.Bits() < 8 {
				out = append(out, fmt.Sprintf("%s authorizes %s, broader than a /8 (0.0.0.0/0 is every address); list the specific egress ranges of CI and admin networks", describe(r), a))
			}
		}
		return out
	},
}

var ruleNetPrivateAPIReach = Rule{
	ID:       "AKSML-NET-007",
	Title:    "A private API server is not deployed together with Kubernetes resources that need to reach it",
	Severity: Mandatory,
	Source:   "AKS private clusters (API server reachable only from the cluster VNet); SPEC C9; " + netSource,
	Stack: func(s *Stack) []Finding {
		var kube int
		for _, r := range s.Resources {
			if strings.HasPrefix(r.Type, "kubernetes:") {
				kube++
			}
		}
		var out []Finding
		for _, r := range azureResources(s, "containerservice", "ManagedCluster") {
			if private, _ := boolOf(get(r.Inputs, "apiServerAccessProfile.enablePrivateCluster")); private && kube > 0 {
				out = append(out, Finding{URN: resourceRef(r), Message: fmt.Sprintf(
					"%s has a private API server, reachable only from its VNet, but the same stack deploys %d Kubernetes resources through it, which fail mid-update from outside the VNet; split the Kubernetes layer into its own stack (aksml:existingCluster) run from inside the VNet, or use authorizedIPRanges", describe(r), kube)})
			}
		}
		return out
	},
}

// accountReached reports whether a private endpoint in the stack targets
// the storage account (by name, or possibly when the target is not known).
func accountReached(s *Stack, account Resource) bool {
	name := strings.ToLower(str(account.Inputs["accountName"]))
	for _, r := range azureResources(s, "network", "PrivateEndpoint") {
		if slices.Contains(r.DependsOn, account.URN) && account.URN != "" {
			return true
		}
		for _, c := range listOf(r.Inputs["privateLinkServiceConnections"]) {
			id := mapOf(c)["privateLinkServiceId"]
			if id == Unknown || (name != "" && strings.HasSuffix(strings.ToLower(str(id)), "/"+name)) {
				return true
			}
		}
	}
	return false
}

var ruleNetStorageRoute = Rule{
	ID:       "AKSML-NET-008",
	Title:    "Storage accounts that deny public networks are reachable from the node subnet (private endpoint or VNet rule), and name no subnet the nodes are not in",
	Severity: Mandatory,
	Source:   "Azure Storage firewall rules (IP rules do not match same-region traffic); SPEC C3.1; " + netSource,
	Stack: func(s *Stack) []Finding {
		known, unknown := poolSubnets(s)
		if len(AgentPools(s)) == 0 {
			return nil
		}
		var out []Finding
		for _, r := range azureResources(s, "storage", "StorageAccount") {
			if !strings.EqualFold(str(get(r.Inputs, "networkRuleSet.defaultAction")), "Deny") {
				continue
			}
			route := accountReached(s, r)
			for _, rule := range listOf(get(r.Inputs, "networkRuleSet.virtualNetworkRules")) {
				id := mapOf(rule)["virtualNetworkResourceId"]
				switch {
				case id == Unknown:
					route = route || unknown
				case slices.ContainsFunc(known, func(k string) bool { return strings.EqualFold(k, str(id)) }):
					route = true
				case !unknown:
					out = append(out, Finding{URN: resourceRef(r), Message: fmt.Sprintf(
						"%s allows subnet %s, which no node pool of the stack is in; name the node subnet instead (or reach the account through a private endpoint)", describe(r), str(id))})
				}
			}
			if !route {
				out = append(out, Finding{URN: resourceRef(r), Message: fmt.Sprintf(
					"%s denies public networks but neither a private endpoint nor a VNet rule for the node subnet reaches it (IP rules do not match traffic from the account's region), so every mount from the nodes is denied; add a file/blob private endpoint in the cluster VNet, or a VNet rule for the node subnet with the Microsoft.Storage service endpoint", describe(r))})
			}
		}
		return out
	},
}

var ruleNetInfiniBandZones = Rule{
	ID:       "AKSML-NET-009",
	Title:    "Pools on InfiniBand (RDMA) sizes stay in one availability zone",
	Severity: Mandatory,
	Source:   "High performance compute VM sizes: RDMA VMs of a scale set in a single placement group; SPEC C2.1 (RDMA-capable catalogue); components/gpupool/doc.go",
	Stack: func(s *Stack) []Finding {
		var out []Finding
		for _, p := range AgentPools(s) {
			if sku, ok := gpupool.LookupSKU(p.VMSize); ok && sku.RDMACapable && len(p.Zones) > 1 {
				out = append(out, Finding{URN: resourceRef(p.Resource), Message: fmt.Sprintf(
					"%s runs %s (InfiniBand) across zones %s, which splits its nodes over placement groups without a shared InfiniBand fabric, so NCCL falls back to TCP; keep the pool in one zone (or none)", p.Describe(), p.VMSize, strings.Join(p.Zones, ", "))})
			}
		}
		return out
	},
}
