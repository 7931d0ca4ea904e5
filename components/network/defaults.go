package network

import (
	"math/bits"
	"net/netip"
	"strings"

	"github.com/aksml/aksml/components/field"
)

// DefaultConfigPath is the error-path root of Spec when the caller gives
// no ConfigPath. It carries no program's config namespace: the aksml
// program passes `aksml:network`.
const DefaultConfigPath = "network"

// Defaults applied by (*Spec).Default.
const (
	// DefaultAddressSpace is the VNet range when aksml creates it: inside
	// 10.224.0.0/12, the range AKS itself gives the VNets it generates, and
	// clear of the default pod (10.244.0.0/16) and service (10.0.0.0/16)
	// ranges.
	DefaultAddressSpace = "10.224.0.0/16"
	// DefaultResourceGroupSuffix names the network resource group after the
	// cluster's: <cluster resource group>-net.
	DefaultResourceGroupSuffix = "-net"
	// DefaultVNetSuffix names the VNet after the cluster: <cluster>-vnet.
	DefaultVNetSuffix = "-vnet"
	// DefaultNodeSubnetName is the created node subnet's name.
	DefaultNodeSubnetName = "aks-nodes"
	// DefaultPrivateEndpointSubnetName is the created private endpoint
	// subnet's name.
	DefaultPrivateEndpointSubnetName = "private-endpoints"
	// DefaultPrivateEndpointSubnetBits is the size of the created private
	// endpoint subnet: a /27 holds 27 endpoints after Azure's five reserved
	// addresses (aksml needs at most two per storage account).
	DefaultPrivateEndpointSubnetBits = 27
	// DefaultSurgeNodesPerPool is the fewest extra nodes per pool counted
	// for upgrades: AKS surges at least one node ("IP address planning for
	// your AKS clusters", upgrading and scaling considerations); a larger
	// pool counts AKSSurge.
	DefaultSurgeNodesPerPool = 1
	// MaxVNetNameLength is the longest VNet name aksml accepts: a VNet
	// name is 2-64 characters ("Naming rules and restrictions for Azure
	// resources", Microsoft.Network/virtualNetworks,
	// https://learn.microsoft.com/azure/azure-resource-manager/management/resource-name-rules),
	// and AKS puts it in node labels, whose values are at most 63.
	MaxVNetNameLength = 63
	// DefaultInternalLoadBalancerIPs keeps no node subnet address for
	// internal load balancers: aksml's own Kubernetes layer creates no
	// Service of type LoadBalancer. An internal load balancer's frontend
	// "is dynamically assigned from the same subnet as the AKS cluster"
	// ("Use an internal load balancer with Azure Kubernetes Service (AKS)",
	// https://learn.microsoft.com/azure/aks/internal-lb), so a platform
	// that adds them raises InternalLoadBalancerIPs.
	DefaultInternalLoadBalancerIPs = 0
	// MaxInternalLoadBalancerIPs bounds InternalLoadBalancerIPs.
	MaxInternalLoadBalancerIPs = 1000
	// MinSubnetBits is the largest subnet prefix Azure allows (/29).
	MinSubnetBits = 29
	// MinServiceCIDRBits: the AKS service range must be smaller than a /12
	// ("IP address planning for your AKS clusters").
	MinServiceCIDRBits = 12
)

// Fixed values (sources in doc.go).
const (
	// AzureReservedIPsPerSubnet are the addresses Azure keeps in every
	// subnet (network, gateway, two DNS, broadcast).
	AzureReservedIPsPerSubnet = 5
	// APIServerPrivateEndpointIPs is the address a private cluster's API
	// server takes in the node subnet: "a private endpoint exposed on the
	// subnet of your AKS cluster" ("Create a private Azure Kubernetes
	// Service (AKS) cluster", https://learn.microsoft.com/azure/aks/private-clusters);
	// a private endpoint's network interface takes one address of its
	// subnet.
	APIServerPrivateEndpointIPs = 1
	// StorageServiceEndpoint is the service endpoint the storage VNet rule
	// route needs on the node subnet.
	StorageServiceEndpoint = "Microsoft.Storage"
	// NetworkContributorRoleID is the built-in role AKS needs on a subnet it
	// did not create.
	NetworkContributorRoleID = "4d97b98b-1d4f-4787-a291-c67834d212e7"
	// FilePrivateDNSZone and BlobPrivateDNSZone are the private DNS zones of
	// the storage private endpoint sub-resources file and blob.
	FilePrivateDNSZone = "privatelink.file.core.windows.net"
	BlobPrivateDNSZone = "privatelink.blob.core.windows.net"
	// FileGroupID and BlobGroupID are the private link sub-resources.
	FileGroupID = "file"
	BlobGroupID = "blob"
)

// withSuffix appends suffix to base, cutting base (by characters, not
// bytes: resource group names may be any script) so that the result holds
// at most maxLen: a valid cluster or resource group name never derives an
// invalid name.
func withSuffix(base, suffix string, maxLen int) string {
	r := []rune(base)
	if n := maxLen - len([]rune(suffix)); len(r) > n {
		r = r[:n]
	}
	return string(r) + suffix
}

// AKSSurge returns the nodes AKS adds to a pool of nodes during an upgrade
// when the pool sets no maxSurge, as aksml's pools do not: 10%, fractional
// nodes rounded up (AgentPoolUpgradeSettings.maxSurge, "If not specified,
// the default is 10%", azure-specs
// Microsoft.ContainerService/aks/stable/2024-10-01/managedClusters.json),
// and at least DefaultSurgeNodesPerPool.
func AKSSurge(nodes int) int { return max(DefaultSurgeNodesPerPool, (nodes+9)/10) }

// Default fills unset fields. clusterName and clusterResourceGroup name the
// defaults; needs decide the node subnet size, the private endpoint subnet
// and the node subnet's Microsoft.Storage service endpoint.
func (s *Spec) Default(clusterName, clusterResourceGroup string, needs Needs) {
	if s.AKSManaged() {
		// AKS names and sizes the VNet; a default here would be a key
		// nobody wrote and validateAKSManaged refuses.
		return
	}
	if s.ResourceGroup.Name == "" && clusterResourceGroup != "" {
		s.ResourceGroup.Name = withSuffix(clusterResourceGroup, DefaultResourceGroupSuffix, field.MaxResourceGroupNameLength)
	}
	if s.SurgeNodesPerPool == nil {
		v := DefaultSurgeNodesPerPool
		s.SurgeNodesPerPool = &v
	}
	if s.Existing {
		return
	}
	if s.Name == "" && clusterName != "" {
		s.Name = withSuffix(clusterName, DefaultVNetSuffix, MaxVNetNameLength)
	}
	if s.AddressSpace == "" {
		s.AddressSpace = DefaultAddressSpace
	}
	if s.NodeSubnet.Name == "" {
		s.NodeSubnet.Name = DefaultNodeSubnetName
	}
	if s.PrivateEndpointSubnet.Name == "" {
		s.PrivateEndpointSubnet.Name = DefaultPrivateEndpointSubnetName
	}
	space, err := netip.ParsePrefix(s.AddressSpace)
	if err != nil || !space.Addr().Is4() {
		return
	}
	space = space.Masked()
	if s.NodeSubnet.Prefix == "" {
		s.NodeSubnet.Prefix = netip.PrefixFrom(space.Addr(), SubnetBitsFor(s.NodeIPs(needs))).String()
		s.nodePrefixDerived = true
	}
	if needs.StorageRoute == RoutePrivateEndpoint && s.PrivateEndpointSubnet.Prefix == "" {
		if node, err := netip.ParsePrefix(s.NodeSubnet.Prefix); err == nil && node.Addr().Is4() {
			if next, ok := nextAligned(node.Masked(), DefaultPrivateEndpointSubnetBits); ok {
				s.PrivateEndpointSubnet.Prefix = next.String()
				s.endpointPrefixDerived = true
			}
		}
	}
	if needs.StorageRoute == RouteServiceEndpoint && !s.NodeSubnet.HasServiceEndpoint(StorageServiceEndpoint) {
		s.NodeSubnet.ServiceEndpoints = append(s.NodeSubnet.ServiceEndpoints, StorageServiceEndpoint)
	}
}

// SubnetBitsFor returns the longest prefix (smallest subnet, at most /29)
// that holds n addresses.
func SubnetBitsFor(n int) int {
	if n <= 1 {
		return MinSubnetBits
	}
	b := 32 - bits.Len(uint(n-1))
	return min(b, MinSubnetBits)
}

// Size returns the number of addresses of an IPv4 prefix.
func Size(p netip.Prefix) int { return 1 << (32 - p.Bits()) }

// nextAligned returns the first /bits block that starts after p.
func nextAligned(p netip.Prefix, bitsLen int) (netip.Prefix, bool) {
	a := p.Addr().As4()
	end := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	end += uint32(Size(p))
	step := uint32(1) << (32 - bitsLen)
	start := (end + step - 1) / step * step
	if start < end { // wrapped past 255.255.255.255
		return netip.Prefix{}, false
	}
	addr := netip.AddrFrom4([4]byte{byte(start >> 24), byte(start >> 16), byte(start >> 8), byte(start)})
	return netip.PrefixFrom(addr, bitsLen), true
}

// VNetID returns the VNet ID of a subnet ARM ID ("" when it is not one).
func VNetID(subnetID string) string {
	i := strings.LastIndex(strings.ToLower(subnetID), "/subnets/")
	if i < 0 {
		return ""
	}
	return subnetID[:i]
}

// lastSegment returns the last path segment of an ARM ID.
func lastSegment(id string) string { return id[strings.LastIndex(id, "/")+1:] }

// subscriptionOf returns the subscription ID of an ARM ID.
func subscriptionOf(id string) string {
	rest, ok := strings.CutPrefix(id, "/subscriptions/")
	if !ok {
		return ""
	}
	sub, _, _ := strings.Cut(rest, "/")
	return sub
}
