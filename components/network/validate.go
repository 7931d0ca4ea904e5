package network

import (
	"net/netip"
	"reflect"
	"regexp"
	"strings"

	"github.com/aksml/aksml/components/field"
)

var (
	dnsZoneIDRE = regexp.MustCompile(`(?i)^/subscriptions/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/resourceGroups/[^/]+/providers/Microsoft\.Network/privateDnsZones/([^/]+)$`)
	subnetIDRE  = regexp.MustCompile(`(?i)^/subscriptions/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/resourceGroups/[^/]+/providers/Microsoft\.Network/virtualNetworks/[^/]+/subnets/[^/]+$`)
	nameRE      = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,62}$`)
)

// ForbiddenRanges are the ranges AKS clusters cannot use for the service
// range, the pod range or the cluster VNet ("Azure Kubernetes Service (AKS)
// CNI networking overview", prerequisites).
var ForbiddenRanges = []netip.Prefix{
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("172.30.0.0/16"),
	netip.MustParsePrefix("172.31.0.0/16"),
	netip.MustParsePrefix("192.0.2.0/24"),
}

// ForbiddenOverlap returns the AKS-reserved range p overlaps, or "".
func ForbiddenOverlap(p netip.Prefix) string {
	for _, f := range ForbiddenRanges {
		if f.Overlaps(p) {
			return f.String()
		}
	}
	return ""
}

// IsSubnetID reports whether id is a subnet ARM ID.
func IsSubnetID(id string) bool { return subnetIDRE.MatchString(id) }

// Overlay is the cluster's overlay address plan, with the config paths of
// its fields, for the checks against the VNet.
type Overlay struct {
	// PodCIDR and ServiceCIDR are the cluster's pod and service ranges.
	PodCIDR, ServiceCIDR string
	// PodPath and ServicePath name the keys they come from.
	PodPath, ServicePath field.Path
	// SpaceDefaulted says the VNet's address space was not written but
	// defaulted (DefaultAddressSpace): an overlap is then reported on the
	// pod or service key the user wrote, not on a key they never wrote.
	SpaceDefaulted bool
}

// parseV4 parses an IPv4 CIDR with its host bits zero.
func parseV4(s string) (netip.Prefix, bool) {
	p, err := netip.ParsePrefix(s)
	return p, err == nil && p.Addr().Is4() && p.Masked() == p
}

// Validate checks a defaulted Spec for what needs ask of it and against the
// cluster's overlay ranges, and returns every problem with its path below
// path (e.g. `aksml:network`).
func (s Spec) Validate(path field.Path, needs Needs, overlay Overlay) field.ErrorList {
	switch s.Mode {
	case "", ModeAksml:
	case ModeAKSManaged:
		return s.validateAKSManaged(path, needs)
	default:
		return field.ErrorList{field.NotSupported(path.Child("mode"), s.Mode, Modes)}
	}
	var errs field.ErrorList
	rg := s.ResourceGroup
	if rg.Name == "" {
		errs = append(errs, field.Required(path.Child("resourceGroup").Child("name"), "the resource group of the network resources"))
	} else if msg := field.ResourceGroupNameProblem(rg.Name); msg != "" {
		errs = append(errs, field.Invalid(path.Child("resourceGroup").Child("name"), "%q is not a valid resource group name: %s", rg.Name, msg))
	}
	if s.Surge() < DefaultSurgeNodesPerPool || s.Surge() > 100 {
		// aksml's pools send no maxSurge, so AKS surges AKSSurge nodes,
		// never none.
		errs = append(errs, field.Invalid(path.Child("surgeNodesPerPool"), "%d leaves no room for an upgrade: AKS adds at least %d node per pool while upgrading it (maxSurge default 10%% of the pool, rounded up); use %d to 100 extra nodes per pool, or remove the key", s.Surge(), DefaultSurgeNodesPerPool, DefaultSurgeNodesPerPool))
	}
	if n := s.LoadBalancerIPs(); n < 0 || n > MaxInternalLoadBalancerIPs {
		errs = append(errs, field.Invalid(path.Child("internalLoadBalancerIps"), "%d is out of range; use 0 to %d addresses for internal load balancer frontends", n, MaxInternalLoadBalancerIPs))
	}

	sp := path.Child("addressSpace")
	space, spaceOK := parseV4(s.AddressSpace)
	switch {
	case s.AddressSpace == "":
		errs = append(errs, field.Required(sp, "the IPv4 range of the existing VNet, e.g. 10.10.0.0/16: the pod and service ranges must not overlap it"))
	case !spaceOK:
		errs = append(errs, field.Invalid(sp, "%q is not an IPv4 CIDR with its host bits zero, e.g. 10.224.0.0/16", s.AddressSpace))
	case space.Bits() < 8:
		errs = append(errs, field.Invalid(sp, "%s is larger than a /8, the largest VNet Azure allows; use /8 or smaller", s.AddressSpace))
	case ForbiddenOverlap(space) != "":
		errs = append(errs, field.Forbidden(sp, "%s overlaps %s, which AKS reserves and a cluster VNet cannot use; pick another private range, e.g. 10.224.0.0/16", s.AddressSpace, ForbiddenOverlap(space)))
	}
	if spaceOK {
		errs = append(errs, overlayOverlaps(space, sp, overlay)...)
	}

	if s.Existing {
		errs = append(errs, s.validateExisting(path, needs)...)
	} else {
		errs = append(errs, s.validateCreated(path, needs)...)
	}

	np := path.Child("nodeSubnet").Child("prefix")
	var node netip.Prefix
	nodeOK := false
	if s.NodeSubnet.Prefix == "" {
		// A created subnet's range is derived from addressSpace, whose
		// problem is reported above.
		if s.Existing {
			errs = append(errs, field.Required(np, "the node subnet's IPv4 range, so that its capacity can be checked against the pools"))
		}
	} else if s.nodePrefixDerived && spaceOK && !contains(space, mustPrefix(s.NodeSubnet.Prefix)) {
		errs = append(errs, field.Invalid(sp, "%s has no room for the node subnet aksml derives from the pools: they need %d addresses (every pool at its node ceiling with upgrade surge, the private API server endpoint and internal load balancers, and the %d addresses Azure reserves), a /%d; use a /%d or larger addressSpace, or lower the pools' maxCount or count",
			s.AddressSpace, s.NodeIPs(needs), AzureReservedIPsPerSubnet, SubnetBitsFor(s.NodeIPs(needs)), SubnetBitsFor(s.NodeIPs(needs))))
	} else if node, nodeOK = s.checkSubnetPrefix(s.NodeSubnet.Prefix, np, space, spaceOK, &errs); nodeOK && Size(node) < s.NodeIPs(needs) {
		errs = append(errs, field.Invalid(np, "%s holds %d addresses but the cluster needs %d (every pool at its node ceiling (maxCount, or count on a Managed GPU pool), %d surge node(s) per pool or the 10%% AKS surges a pool above ten nodes, %d for the private API server endpoint and internal load balancers, %d addresses Azure reserves); use a /%d or larger, or lower the pools' maxCount or count",
			s.NodeSubnet.Prefix, Size(node), s.NodeIPs(needs), s.Surge(), s.OtherIPs(needs), AzureReservedIPsPerSubnet, SubnetBitsFor(s.NodeIPs(needs))))
	}

	errs = append(errs, s.PrivateDNSZones.validate(path.Child("privateDnsZones"), needs)...)

	if needs.StorageRoute == RoutePrivateEndpoint && s.PrivateEndpointSubnet.Prefix != "" {
		pp := path.Child("privateEndpointSubnet").Child("prefix")
		if s.endpointPrefixDerived && spaceOK && !contains(space, mustPrefix(s.PrivateEndpointSubnet.Prefix)) {
			if !nodeOK {
				// Derived after a node subnet already reported.
				return errs
			}
			errs = append(errs, field.Invalid(sp, "%s has no room for the private endpoint subnet aksml derives for the storage private endpoints (the /%d after the node subnet %s, here %s); use a larger addressSpace, or write privateEndpointSubnet.prefix with a free range inside it",
				s.AddressSpace, DefaultPrivateEndpointSubnetBits, s.NodeSubnet.Prefix, s.PrivateEndpointSubnet.Prefix))
		} else if pe, ok := s.checkSubnetPrefix(s.PrivateEndpointSubnet.Prefix, pp, space, spaceOK, &errs); ok && nodeOK && pe.Overlaps(node) {
			errs = append(errs, field.Invalid(pp, "%s overlaps nodeSubnet.prefix %s; subnets of one VNet cannot overlap", s.PrivateEndpointSubnet.Prefix, s.NodeSubnet.Prefix))
		}
	}
	return errs
}

// validateAKSManaged refuses, with Mode aks-managed, every key that
// describes a VNet the stack declares (AKS names and sizes the one it
// generates, so they would do nothing) and what needs a VNet others can
// name: private storage routes and a private API server, whose endpoint
// lives in the cluster's VNet.
func (s Spec) validateAKSManaged(path field.Path, needs Needs) field.ErrorList {
	var errs field.ErrorList
	inert := func(key string, set bool) {
		if set {
			errs = append(errs, field.Forbidden(path.Child(key), "means nothing with mode %s: AKS names and sizes the VNet it generated; remove it, or remove mode to put the nodes in a VNet aksml declares (which an existing cluster cannot move into)", ModeAKSManaged))
		}
	}
	inert("existing", s.Existing)
	inert("resourceGroup", s.ResourceGroup != ResourceGroup{})
	inert("name", s.Name != "")
	inert("addressSpace", s.AddressSpace != "")
	inert("nodeSubnet", !reflect.DeepEqual(s.NodeSubnet, Subnet{}))
	inert("privateEndpointSubnet", !reflect.DeepEqual(s.PrivateEndpointSubnet, Subnet{}))
	inert("surgeNodesPerPool", s.SurgeNodesPerPool != nil)
	inert("internalLoadBalancerIps", s.InternalLoadBalancerIPs != nil)
	inert("privateDnsZones", s.PrivateDNSZones.Existing())
	if needs.StorageRoute != "" {
		errs = append(errs, field.Forbidden(path.Child("mode"), "%s leaves the nodes in a VNet nothing can name, so storage that denies public networks has no route to them (no private endpoint, no service endpoint rule); use public storage (storage.accounts.privateNetwork false), or remove mode on a new cluster", ModeAKSManaged))
	}
	if needs.PrivateAPIServer {
		errs = append(errs, field.Forbidden(path.Child("mode"), "%s leaves the private API server's endpoint in a VNet nothing can name or peer with, so no machine aksml declares can reach it; use authorizedIPRanges, or remove mode on a new cluster", ModeAKSManaged))
	}
	return errs
}

func (s Spec) validateExisting(path field.Path, needs Needs) field.ErrorList {
	var errs field.ErrorList
	nid := path.Child("nodeSubnet").Child("id")
	switch {
	case s.NodeSubnet.ID == "":
		errs = append(errs, field.Required(nid, "the ARM ID of the existing node subnet (/subscriptions/<id>/resourceGroups/<rg>/providers/Microsoft.Network/virtualNetworks/<vnet>/subnets/<subnet>)"))
	case !IsSubnetID(s.NodeSubnet.ID):
		errs = append(errs, field.Invalid(nid, "%q is not a subnet resource ID; write /subscriptions/<id>/resourceGroups/<rg>/providers/Microsoft.Network/virtualNetworks/<vnet>/subnets/<subnet>", s.NodeSubnet.ID))
	}
	if s.Name != "" {
		errs = append(errs, field.Forbidden(path.Child("name"), "names the VNet aksml creates, but existing is true; remove it (the VNet is the node subnet's)"))
	}
	if needs.StorageRoute == RouteServiceEndpoint && !s.NodeSubnet.HasServiceEndpoint(StorageServiceEndpoint) {
		errs = append(errs, field.Invalid(path.Child("nodeSubnet").Child("serviceEndpoints"), "storage is reached through a service endpoint, but the existing node subnet does not declare %s: without it the storage account rejects the VNet rule and the nodes have no route; add the service endpoint to the subnet and list it here, or use nodeAccess PrivateEndpoint", StorageServiceEndpoint))
	}
	pid := path.Child("privateEndpointSubnet").Child("id")
	if needs.StorageRoute == RoutePrivateEndpoint {
		switch {
		case s.PrivateEndpointSubnet.ID == "":
			errs = append(errs, field.Required(pid, "the ARM ID of an existing subnet for the storage private endpoints, in the node subnet's VNet"))
		case !IsSubnetID(s.PrivateEndpointSubnet.ID):
			errs = append(errs, field.Invalid(pid, "%q is not a subnet resource ID", s.PrivateEndpointSubnet.ID))
		case IsSubnetID(s.NodeSubnet.ID) && !strings.EqualFold(VNetID(s.PrivateEndpointSubnet.ID), VNetID(s.NodeSubnet.ID)):
			errs = append(errs, field.Invalid(pid, "is in another VNet than nodeSubnet.id; aksml links the private DNS zones to the nodes' VNet, so put the private endpoint subnet in that VNet"))
		}
	}
	return errs
}

func (s Spec) validateCreated(path field.Path, needs Needs) field.ErrorList {
	var errs field.ErrorList
	if s.NodeSubnet.ID != "" {
		errs = append(errs, field.Forbidden(path.Child("nodeSubnet").Child("id"), "is set but existing is false; set existing: true to use this subnet, or remove the id to let aksml create the subnet"))
	}
	if s.PrivateEndpointSubnet.ID != "" {
		errs = append(errs, field.Forbidden(path.Child("privateEndpointSubnet").Child("id"), "is set but existing is false; set existing: true, or remove the id"))
	}
	if s.PrivateEndpointSubnet.Prefix != "" && needs.StorageRoute != RoutePrivateEndpoint {
		// Default derives the subnet only for that route; a written one
		// would be an empty subnet holding addresses of the VNet.
		errs = append(errs, field.Forbidden(path.Child("privateEndpointSubnet"), "would hold nothing: storage is not reached through private endpoints (storage.accounts.nodeAccess PrivateEndpoint with accounts that deny public networks); remove it, or set storage.accounts.privateNetwork: true"))
	}
	if !nameRE.MatchString(s.Name) {
		errs = append(errs, field.Invalid(path.Child("name"), "%q is not a valid VNet name: use 1-63 letters, digits, '-', '_' or '.', starting with a letter or digit (AKS puts it in node labels)", s.Name))
	}
	for _, sub := range []struct {
		name string
		s    Subnet
	}{{"nodeSubnet", s.NodeSubnet}, {"privateEndpointSubnet", s.PrivateEndpointSubnet}} {
		if !nameRE.MatchString(sub.s.Name) {
			errs = append(errs, field.Invalid(path.Child(sub.name).Child("name"), "%q is not a valid subnet name: use 1-63 letters, digits, '-', '_' or '.'", sub.s.Name))
		}
	}
	if needs.StorageRoute == RoutePrivateEndpoint && s.PrivateEndpointSubnet.Prefix == "" {
		errs = append(errs, field.Required(path.Child("privateEndpointSubnet").Child("prefix"), "a range inside addressSpace for the storage private endpoints (no free /27 follows the node subnet)"))
	}
	return errs
}

// checkSubnetPrefix checks a subnet range: an IPv4 CIDR, at most /29, inside
// the VNet range. It appends problems to errs and reports whether the range
// passed.
func (s Spec) checkSubnetPrefix(prefix string, path field.Path, space netip.Prefix, spaceOK bool, errs *field.ErrorList) (netip.Prefix, bool) {
	p, ok := parseV4(prefix)
	switch {
	case !ok:
		*errs = append(*errs, field.Invalid(path, "%q is not an IPv4 CIDR with its host bits zero, e.g. 10.224.0.0/24", prefix))
	case p.Bits() > MinSubnetBits:
		*errs = append(*errs, field.Invalid(path, "%s is smaller than a /29, the smallest subnet Azure allows", prefix))
	case spaceOK && !contains(space, p):
		*errs = append(*errs, field.Invalid(path, "%s is not inside addressSpace %s; use a range inside the VNet", prefix, s.AddressSpace))
	default:
		return p, true
	}
	return p, false
}

// mustPrefix parses a prefix Default derived (always valid).
func mustPrefix(s string) netip.Prefix {
	p, _ := netip.ParsePrefix(s)
	return p
}

// overlayOverlaps reports where the VNet range overlaps the pod or service
// range.
func overlayOverlaps(space netip.Prefix, path field.Path, o Overlay) field.ErrorList {
	var errs field.ErrorList
	for _, r := range []struct {
		what, cidr string
		key        field.Path
	}{{"pod", o.PodCIDR, o.PodPath}, {"service", o.ServiceCIDR, o.ServicePath}} {
		p, err := netip.ParsePrefix(r.cidr)
		if err != nil || !p.Overlaps(space) {
			continue
		}
		if o.SpaceDefaulted {
			errs = append(errs, field.Invalid(r.key, "%s overlaps %s, the address space of the VNet aksml creates by default; with Azure CNI overlay the VNet, pod and service ranges must be disjoint, so choose another %s range, or set %s to a range clear of it", r.cidr, space, r.what, path))
			continue
		}
		errs = append(errs, field.Invalid(path, "%s overlaps the %s range %s (%s); with Azure CNI overlay the VNet, pod and service ranges must be disjoint, so change one of them", space, r.what, r.cidr, r.key))
	}
	return errs
}

// contains reports whether outer contains all of inner.
func contains(outer, inner netip.Prefix) bool {
	return outer.Bits() <= inner.Bits() && outer.Contains(inner.Addr())
}

// ValidateOverlay checks the cluster's overlay plan against the AKS rules
// that hold with or without a VNet: neither range in an AKS-reserved range,
// and the DNS service IP not an address Kubernetes reserves in the service
// range (ReservedServiceAddress). Paths name pod, service and DNS keys.
func ValidateOverlay(podCIDR, serviceCIDR, dnsServiceIP string, podPath, servicePath, dnsPath field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, r := range []struct {
		what, cidr string
		key        field.Path
	}{{"pod", podCIDR, podPath}, {"service", serviceCIDR, servicePath}} {
		if p, err := netip.ParsePrefix(r.cidr); err == nil {
			if f := ForbiddenOverlap(p); f != "" {
				errs = append(errs, field.Forbidden(r.key, "%s overlaps %s, which AKS reserves and a %s range cannot use (169.254.0.0/16, 172.30.0.0/16, 172.31.0.0/16, 192.0.2.0/24); pick another private range", r.cidr, f, r.what))
			}
		}
	}
	svc, err1 := netip.ParsePrefix(serviceCIDR)
	if err1 == nil && svc.Bits() < MinServiceCIDRBits {
		errs = append(errs, field.Invalid(servicePath, "%s is larger than a /%d; the AKS service range must be smaller, e.g. a /16", serviceCIDR, MinServiceCIDRBits))
	}
	dns, err2 := netip.ParseAddr(dnsServiceIP)
	if err1 == nil && err2 == nil {
		if why := ReservedServiceAddress(svc, dns); why != "" {
			errs = append(errs, field.Invalid(dnsPath, "%s in serviceCidr %s is %s; use another address in the range, e.g. %s", dnsServiceIP, serviceCIDR, why, tenth(svc)))
		}
	}
	return errs
}

// ReservedServiceAddress says why dns cannot be a Service IP of the
// service range svc, or "" when it can: the range's base address and (IPv4)
// its broadcast address are never allocated ("254 addresses usable out of
// 256 total (minus base and broadcast IPs)", k8s.io/kubernetes v1.37.2
// pkg/registry/core/service/ipallocator/bitmap.go), and the first usable
// address is the one the API server derives for kubernetes.default
// (GetIndexedIP(serviceClusterIPRange, 1), pkg/controlplane/apiserver/options/options.go;
// AKS: "Don't use the first IP address in your address range, like .1",
// "Configure Azure CNI networking in AKS", DNS service IP,
// https://learn.microsoft.com/azure/aks/configure-azure-cni). An address
// outside the range is not judged here.
func ReservedServiceAddress(svc netip.Prefix, dns netip.Addr) string {
	svc = svc.Masked()
	if !svc.Contains(dns) {
		return ""
	}
	base := svc.Addr()
	switch {
	case dns == base:
		return "the base address, which Kubernetes never allocates"
	case dns == base.Next():
		return "the first usable address, which the API server gives kubernetes.default"
	case dns.Is4() && svc.Bits() < 32 && dns == lastAddr(svc):
		return "the broadcast address, which Kubernetes never allocates"
	}
	return ""
}

// lastAddr returns the last address of an IPv4 prefix.
func lastAddr(p netip.Prefix) netip.Addr {
	a := p.Masked().Addr().As4()
	v := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	v |= uint32(1)<<(32-p.Bits()) - 1
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// tenth returns the .10 address of p, the conventional DNS service IP.
func tenth(p netip.Prefix) string {
	a := p.Masked().Addr()
	for range 10 {
		a = a.Next()
	}
	return a.String()
}

// ValidatePodCapacity checks that the overlay pod range holds a /24 for
// every node the pools can have (Azure CNI Overlay gives each node a /24 of
// the pod range): nodes is every pool at maxCount plus surge.
func ValidatePodCapacity(podCIDR string, nodes int, podPath field.Path) field.ErrorList {
	p, err := netip.ParsePrefix(podCIDR)
	if err != nil || !p.Addr().Is4() || p.Bits() > 24 {
		if err == nil && p.Addr().Is4() {
			return field.ErrorList{field.Invalid(podPath, "%s is smaller than a /24, the block every node takes from the overlay pod range; use a /16 or larger", podCIDR)}
		}
		return nil
	}
	if blocks := 1 << (24 - p.Bits()); blocks < nodes {
		return field.ErrorList{field.Invalid(podPath, "%s holds %d node blocks (/24 each) but the pools can have %d nodes with upgrade surge; use a /%d or larger, or lower the pools' maxCount", podCIDR, blocks, nodes, 24-bitsFor(nodes))}
	}
	return nil
}

// bitsFor returns how many bits count n things.
func bitsFor(n int) int {
	b := 0
	for 1<<b < n {
		b++
	}
	return b
}

// validate checks existing private DNS zones: only with the private
// endpoint route, both or neither, each the ARM ID of the zone its
// sub-resource needs ("Azure Private Endpoint private DNS zone values",
// https://learn.microsoft.com/azure/private-link/private-endpoint-dns).
func (z PrivateDNSZones) validate(path field.Path, needs Needs) field.ErrorList {
	if !z.Existing() {
		return nil
	}
	if needs.StorageRoute != RoutePrivateEndpoint {
		return field.ErrorList{field.Forbidden(path, "names zones for storage private endpoints, but storage is not reached through private endpoints (storage.accounts.nodeAccess PrivateEndpoint with accounts that deny public networks); remove it")}
	}
	var errs field.ErrorList
	for _, c := range []struct{ key, id, zone string }{{"file", z.File, FilePrivateDNSZone}, {"blob", z.Blob, BlobPrivateDNSZone}} {
		p := path.Child(c.key)
		m := dnsZoneIDRE.FindStringSubmatch(c.id)
		switch {
		case c.id == "":
			errs = append(errs, field.Required(p, "the ARM ID of the existing "+c.zone+" zone: set both zones or neither (aksml then creates both)"))
		case m == nil:
			errs = append(errs, field.Invalid(p, "%q is not a private DNS zone resource ID; write /subscriptions/<id>/resourceGroups/<rg>/providers/Microsoft.Network/privateDnsZones/%s", c.id, c.zone))
		case !strings.EqualFold(m[1], c.zone):
			errs = append(errs, field.Invalid(p, "names zone %q, but %s private endpoints resolve through %s; point it at that zone", m[1], c.key, c.zone))
		}
	}
	return errs
}
