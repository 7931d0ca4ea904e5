package network

import "slices"

// ResourceGroup is the resource group of the network resources: created by
// aksml, or an existing one used by name (create-or-bring).
type ResourceGroup struct {
	// Name is the resource group name. Default: the cluster's resource
	// group name + "-net" (DefaultResourceGroupSuffix).
	Name string `json:"name,omitempty"`
	// Existing uses the group as it is instead of creating it. Default
	// false.
	Existing bool `json:"existing,omitempty"`
}

// Subnet is one subnet: its range when aksml creates it, or its ARM ID when
// it exists (Spec.Existing).
type Subnet struct {
	// Name is the subnet name when aksml creates it. Defaults:
	// DefaultNodeSubnetName, DefaultPrivateEndpointSubnetName.
	Name string `json:"name,omitempty"`
	// Prefix is the subnet's IPv4 range. Created subnets: default derived
	// from AddressSpace (see Spec). Existing node subnet: required, so that
	// its capacity is checked against the pools.
	Prefix string `json:"prefix,omitempty"`
	// ID is the ARM ID of an existing subnet. Required for the node subnet
	// with Existing, and for the private endpoint subnet with Existing when
	// storage is reached through private endpoints; not allowed otherwise.
	ID string `json:"id,omitempty"`
	// ServiceEndpoints are the service endpoints on the subnet. Created
	// node subnet: aksml adds Microsoft.Storage when storage is reached
	// through a service endpoint. Existing subnet: declare what the subnet
	// has; aksml cannot read it at preview and relies on it.
	ServiceEndpoints []string `json:"serviceEndpoints,omitempty"`
}

// Modes of Spec.Mode.
const (
	// ModeAksml (the default) puts the nodes in a VNet the stack declares:
	// created by aksml, or brought with Spec.Existing.
	ModeAksml = "aksml"
	// ModeAKSManaged keeps the VNet AKS generated for a cluster created
	// without a subnet, for a cluster that already runs in it: AKS sets a
	// pool's subnet only when the pool is created (a cluster's pools "are
	// all public" when its first pool is on no subnet, and a pool's subnet
	// "has to be set at Cluster/Node Pool creation time",
	// hashicorp/terraform-provider-azurerm#8662; AgentPool vnetSubnetID,
	// "If this is not specified, a VNET and subnet will be generated and
	// used", azure-specs Microsoft.ContainerService/aks/stable/2024-10-01),
	// so such a cluster cannot be moved into a VNet in place. Nothing can
	// name that VNet: no private storage, no private endpoints.
	ModeAKSManaged = "aks-managed"
	// ModeOutput is the stack output in which the aksml program exports the
	// mode; guardrail AKSML-NET-003 reads it.
	ModeOutput = "networkMode"
)

// Modes are the valid Spec.Mode values.
var Modes = []string{ModeAksml, ModeAKSManaged}

// Spec is `aksml:network`: the virtual network the cluster's nodes live
// in. Either aksml creates a VNet with a node subnet sized for every pool
// at maxCount plus upgrade surge and, when needed, a private endpoint
// subnet; or Existing points at subnets that already exist (bring your own);
// or Mode aks-managed keeps the VNet AKS generated for a cluster deployed
// without one. Call Default, then Validate.
type Spec struct {
	// Mode is aksml (default: a VNet aksml creates, or brings with
	// Existing) or aks-managed (the VNet AKS generated for a cluster
	// created without a subnet, kept for a cluster that already runs in it;
	// every other key of Spec is then refused, and so is private storage).
	Mode string `json:"mode,omitempty"`
	// Existing uses existing subnets (NodeSubnet.ID, PrivateEndpointSubnet.ID)
	// instead of creating a VNet. Default false.
	Existing bool `json:"existing,omitempty"`
	// ResourceGroup holds the VNet (when created) and the private DNS
	// zones. Default: created, named <cluster resource group>-net.
	ResourceGroup ResourceGroup `json:"resourceGroup,omitempty"`
	// Name is the VNet name when created. Default <cluster name>-vnet.
	Name string `json:"name,omitempty"`
	// AddressSpace is the VNet's IPv4 range. Default 10.224.0.0/16 when
	// created; required with Existing (the existing VNet's range), because
	// the pod and service ranges must not overlap it.
	AddressSpace string `json:"addressSpace,omitempty"`
	// NodeSubnet is the subnet of every node pool.
	NodeSubnet Subnet `json:"nodeSubnet,omitempty"`
	// PrivateEndpointSubnet holds the storage private endpoints. Used when
	// storage is reached through private endpoints.
	PrivateEndpointSubnet Subnet `json:"privateEndpointSubnet,omitempty"`
	// SurgeNodesPerPool is how many extra nodes one pool may add during an
	// upgrade (AKS max surge), counted into the node subnet size; a pool
	// above ten nodes counts the 10% AKS surges (AKSSurge) when that is
	// more. Default 1; 1 to 100 (AKS always surges at least one node).
	SurgeNodesPerPool *int `json:"surgeNodesPerPool,omitempty"`
	// InternalLoadBalancerIPs is how many addresses of the node subnet to
	// keep for the frontends of internal load balancers (Services of type
	// LoadBalancer with the azure-load-balancer-internal annotation), which
	// AKS assigns from the cluster's subnet. Counted into the node subnet
	// size; 0..1000. Default DefaultInternalLoadBalancerIPs (0: aksml
	// creates no such Service); set it to the internal load balancers your
	// workloads add.
	InternalLoadBalancerIPs *int `json:"internalLoadBalancerIps,omitempty"`
	// PrivateDNSZones are existing, central privatelink zones to register
	// the storage private endpoints in, instead of the zones aksml creates
	// and links to the VNet: an Azure landing zone keeps them in the
	// connectivity subscription and resolves them for every spoke through
	// the hub's DNS, and Azure Policy there denies privatelink zones in
	// spokes. Default none: aksml creates both zones. Set both or neither;
	// only with the PrivateEndpoint storage route.
	PrivateDNSZones PrivateDNSZones `json:"privateDnsZones,omitempty"`

	// nodePrefixDerived and endpointPrefixDerived say Default derived
	// NodeSubnet.Prefix and PrivateEndpointSubnet.Prefix: a derived range
	// that does not fit is reported on addressSpace, the key that was
	// written, never on a key nobody wrote.
	nodePrefixDerived, endpointPrefixDerived bool
}

// PrivateDNSZones names existing private DNS zones by ARM ID
// (/subscriptions/<id>/resourceGroups/<rg>/providers/Microsoft.Network/privateDnsZones/<zone>).
type PrivateDNSZones struct {
	// File is the privatelink.file.core.windows.net zone.
	File string `json:"file,omitempty"`
	// Blob is the privatelink.blob.core.windows.net zone.
	Blob string `json:"blob,omitempty"`
}

// Existing reports whether existing zones are named.
func (z PrivateDNSZones) Existing() bool { return z.File != "" || z.Blob != "" }

// AKSManaged reports whether the nodes stay in the VNet AKS generated
// (ModeAKSManaged).
func (s Spec) AKSManaged() bool { return s.Mode == ModeAKSManaged }

// Surge returns SurgeNodesPerPool, or its default.
func (s Spec) Surge() int {
	if s.SurgeNodesPerPool == nil {
		return DefaultSurgeNodesPerPool
	}
	return *s.SurgeNodesPerPool
}

// LoadBalancerIPs returns InternalLoadBalancerIPs, or its default.
func (s Spec) LoadBalancerIPs() int {
	if s.InternalLoadBalancerIPs == nil {
		return DefaultInternalLoadBalancerIPs
	}
	return *s.InternalLoadBalancerIPs
}

// HasServiceEndpoint reports whether the node subnet has (or, when
// created, gets) the service endpoint named service.
func (s Subnet) HasServiceEndpoint(service string) bool {
	return slices.Contains(s.ServiceEndpoints, service)
}

// Clone returns a deep copy of s.
func (s Spec) Clone() Spec {
	c := s
	c.NodeSubnet.ServiceEndpoints = slices.Clone(s.NodeSubnet.ServiceEndpoints)
	c.PrivateEndpointSubnet.ServiceEndpoints = slices.Clone(s.PrivateEndpointSubnet.ServiceEndpoints)
	if s.SurgeNodesPerPool != nil {
		v := *s.SurgeNodesPerPool
		c.SurgeNodesPerPool = &v
	}
	if s.InternalLoadBalancerIPs != nil {
		v := *s.InternalLoadBalancerIPs
		c.InternalLoadBalancerIPs = &v
	}
	return c
}

// Needs says what the rest of the stack needs from the network: the node
// count and other addresses the node subnet must hold, and the storage
// route.
type Needs struct {
	// Pools are the node ceiling of every node pool in the cluster: maxCount
	// of the system and CPU pools, and each GPU pool's NodeCeiling (count on
	// a Managed pool, maxCount otherwise).
	Pools []int
	// PrivateAPIServer says the cluster's API server is private: its private
	// endpoint takes one address of the node subnet
	// (APIServerPrivateEndpointIPs).
	PrivateAPIServer bool
	// StorageRoute is how the nodes reach the storage accounts:
	// RoutePrivateEndpoint, RouteServiceEndpoint, or "" (public, or no
	// accounts).
	StorageRoute StorageRoute
}

// StorageRoute is how the nodes reach storage accounts that deny public
// network access.
type StorageRoute string

// Storage routes.
const (
	// RoutePrivateEndpoint reaches each account through private endpoints
	// (file, blob) in the private endpoint subnet, resolved through the
	// privatelink private DNS zones linked to the VNet.
	RoutePrivateEndpoint StorageRoute = "PrivateEndpoint"
	// RouteServiceEndpoint reaches each account through the
	// Microsoft.Storage service endpoint of the node subnet and a VNet rule
	// for that subnet on the account.
	RouteServiceEndpoint StorageRoute = "ServiceEndpoint"
)

// Nodes returns how many nodes the pools can have: every pool at its node
// ceiling plus its upgrade surge, SurgeNodesPerPool or, for a pool above
// ten nodes, the AKSSurge AKS takes.
func (s Spec) Nodes(needs Needs) int {
	n := 0
	for _, m := range needs.Pools {
		n += m + max(s.Surge(), AKSSurge(m))
	}
	return n
}

// OtherIPs returns the node subnet addresses that are not nodes: the API
// server's private endpoint of a private cluster and the internal load
// balancer frontends (LoadBalancerIPs).
func (s Spec) OtherIPs(needs Needs) int {
	n := s.LoadBalancerIPs()
	if needs.PrivateAPIServer {
		n += APIServerPrivateEndpointIPs
	}
	return n
}

// NodeIPs returns how many addresses the node subnet must hold for needs:
// every pool at its node ceiling plus the surge of every pool, the other
// addresses (OtherIPs), plus the five addresses Azure reserves in each
// subnet.
func (s Spec) NodeIPs(needs Needs) int {
	return AzureReservedIPsPerSubnet + s.Nodes(needs) + s.OtherIPs(needs)
}
