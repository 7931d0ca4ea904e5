package network

import (
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/field"

	"github.com/aksml/aksml/components/internal/mocktest"

	"github.com/aksml/aksml/components/field/fieldtest"
)

const (
	nodeSubnetID = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/aks-nodes"
	peSubnetID   = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/pe"
	otherVNetPE  = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/other/subnets/pe"
	accountID    = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/mlfiles"
)

// run runs fn under mocks that give subnets and virtual networks their ARM
// resource IDs.
func run(t *testing.T, fn pulumi.RunFunc) (*mocktest.Mocks, error) {
	t.Helper()
	const vnets = "/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/"
	m := &mocktest.Mocks{IDs: map[string]func(pulumi.MockResourceArgs) string{
		":Subnet": func(a pulumi.MockResourceArgs) string {
			return vnets + "vnet/subnets/" + a.Inputs["subnetName"].StringValue()
		},
		":VirtualNetwork": func(a pulumi.MockResourceArgs) string { return vnets + a.Inputs["virtualNetworkName"].StringValue() },
	}}
	return m, m.Run(fn)
}

// needs is a small cluster: system 3, CPU 5 and one GPU pool of 8.
var needs = Needs{Pools: []int{3, 5, 8}, StorageRoute: RoutePrivateEndpoint}

var overlay = Overlay{PodCIDR: "10.244.0.0/16", ServiceCIDR: "10.0.0.0/16", PodPath: "aksml:cluster.network.podCidr", ServicePath: "aksml:cluster.network.serviceCidr"}

func defaulted(s Spec, n Needs) Spec {
	s = s.Clone()
	s.Default("aks", "rg-aks", n)
	return s
}

// A valid cluster or resource group name at its longest derives names
// Azure accepts: the VNet (63, a node label value) and the network resource
// group (90 characters, counted as characters).
func TestDerivedNamesFit(t *testing.T) {
	cluster := strings.Repeat("c", 63)
	rg := strings.Repeat("ü", 90)
	s := Spec{}
	s.Default(cluster, rg, needs)
	assert.Equal(t, strings.Repeat("c", 58)+"-vnet", s.Name)
	assert.Equal(t, strings.Repeat("ü", 86)+"-net", s.ResourceGroup.Name)
	assert.Empty(t, s.Validate("aksml:network", needs, overlay))
}

func TestDefaultsSizeTheNodeSubnet(t *testing.T) {
	s := defaulted(Spec{}, needs)
	// 16 nodes at maxCount + 3 surge + 5 reserved = 24 addresses: a /27.
	assert.Equal(t, 24, s.NodeIPs(needs))
	assert.Equal(t, "10.224.0.0/27", s.NodeSubnet.Prefix)
	assert.Equal(t, "10.224.0.32/27", s.PrivateEndpointSubnet.Prefix, "the private endpoint subnet follows the node subnet")
	assert.Equal(t, "aks-vnet", s.Name)
	assert.Equal(t, "rg-aks-net", s.ResourceGroup.Name)
	assert.Empty(t, s.NodeSubnet.ServiceEndpoints, "private endpoints need no service endpoint")

	big := Needs{Pools: []int{3, 5, 1000}, StorageRoute: RouteServiceEndpoint}
	s = defaulted(Spec{}, big)
	// AKS surges 10% of a pool without maxSurge: 100 nodes for the pool of
	// 1000, so 1008 nodes + 1 + 1 + 100 surge + 5 reserved = 1115: a /21.
	assert.Equal(t, 1115, s.NodeIPs(big))
	assert.Equal(t, "10.224.0.0/21", s.NodeSubnet.Prefix)
	assert.Empty(t, s.PrivateEndpointSubnet.Prefix)
	assert.Equal(t, []string{StorageServiceEndpoint}, s.NodeSubnet.ServiceEndpoints, "the service endpoint route adds Microsoft.Storage")

	assert.Equal(t, 29, SubnetBitsFor(1))
	assert.Equal(t, 24, SubnetBitsFor(256))
	assert.Equal(t, 23, SubnetBitsFor(257))
}

func TestValidate(t *testing.T) {
	p := field.NewPath("aksml:network")
	existing := func(mut func(*Spec)) Spec {
		s := Spec{Existing: true, AddressSpace: "10.10.0.0/16", NodeSubnet: Subnet{ID: nodeSubnetID, Prefix: "10.10.0.0/24"}, PrivateEndpointSubnet: Subnet{ID: peSubnetID}}
		mut(&s)
		return s
	}
	created := func(mut func(*Spec)) Spec {
		s := Spec{}
		mut(&s)
		return s
	}
	seNeeds := Needs{Pools: needs.Pools, StorageRoute: RouteServiceEndpoint}
	tests := []struct {
		name  string
		spec  Spec
		needs Needs
		want  []fieldtest.Want // the problems, exactly; nil means valid
		// detail is one phrase the message must hold where the wording is
		// the point (the fix, the other key, the number).
		detail string
	}{
		{"created defaults", created(func(*Spec) {}), needs, nil, ""},
		{"existing with private endpoints", existing(func(*Spec) {}), needs, nil, ""},
		{"VNet overlaps the pod range", created(func(s *Spec) { s.AddressSpace = "10.244.0.0/16" }), needs,
			[]fieldtest.Want{fieldtest.Invalid("aksml:network.addressSpace")}, `(aksml:cluster.network.podCidr)`},
		{"VNet overlaps the service range", created(func(s *Spec) { s.AddressSpace = "10.0.0.0/8" }), needs,
			[]fieldtest.Want{fieldtest.Invalid("aksml:network.addressSpace"), fieldtest.Invalid("aksml:network.addressSpace")}, `overlaps the service range`},
		{"VNet in a reserved range", created(func(s *Spec) { s.AddressSpace = "192.0.2.0/24" }), needs,
			[]fieldtest.Want{fieldtest.Forbidden("aksml:network.addressSpace")}, `pick another private range`},
		{"VNet larger than /8", created(func(s *Spec) { s.AddressSpace = "0.0.0.0/4" }), needs,
			[]fieldtest.Want{fieldtest.Invalid("aksml:network.addressSpace"), fieldtest.Invalid("aksml:network.addressSpace"), fieldtest.Invalid("aksml:network.addressSpace")}, `is larger than a /8`},
		{"VNet not a CIDR", created(func(s *Spec) { s.AddressSpace = "10.1.2.3/16" }), needs,
			[]fieldtest.Want{fieldtest.Invalid("aksml:network.addressSpace")}, ""},
		{"node subnet too small", created(func(s *Spec) { s.NodeSubnet.Prefix = "10.224.0.0/28" }), needs,
			[]fieldtest.Want{fieldtest.Invalid("aksml:network.nodeSubnet.prefix")}, `use a /27 or larger`},
		// The private endpoint subnet derived after it is not reported: it
		// follows the node subnet, and nobody wrote it.
		{"node subnet outside the VNet", created(func(s *Spec) { s.NodeSubnet.Prefix = "10.9.0.0/24" }), needs,
			[]fieldtest.Want{fieldtest.Invalid("aksml:network.nodeSubnet.prefix")}, ""},
		{"private endpoint subnet overlaps nodes", created(func(s *Spec) { s.PrivateEndpointSubnet.Prefix = "10.224.0.0/28" }), needs,
			[]fieldtest.Want{fieldtest.Invalid("aksml:network.privateEndpointSubnet.prefix")}, ""},
		{"subnet ID without existing", created(func(s *Spec) { s.NodeSubnet.ID = nodeSubnetID }), needs,
			[]fieldtest.Want{fieldtest.Forbidden("aksml:network.nodeSubnet.id")}, `set existing: true`},
		{"bad VNet name", created(func(s *Spec) { s.Name = "-bad" }), needs, []fieldtest.Want{fieldtest.Invalid("aksml:network.name")}, ""},
		{"private endpoint subnet with nothing to serve", created(func(s *Spec) { s.PrivateEndpointSubnet.Prefix = "10.224.1.0/27" }),
			Needs{Pools: needs.Pools, StorageRoute: RouteServiceEndpoint}, []fieldtest.Want{fieldtest.Forbidden("aksml:network.privateEndpointSubnet")}, "would hold nothing"},
		{"negative surge", created(func(s *Spec) { v := -1; s.SurgeNodesPerPool = &v }), needs, []fieldtest.Want{fieldtest.Invalid("aksml:network.surgeNodesPerPool")}, ""},
		{"no surge", created(func(s *Spec) { v := 0; s.SurgeNodesPerPool = &v }), needs, []fieldtest.Want{fieldtest.Invalid("aksml:network.surgeNodesPerPool")}, "leaves no room for an upgrade"},
		{"existing without node subnet ID", existing(func(s *Spec) { s.NodeSubnet.ID = "" }), needs,
			[]fieldtest.Want{fieldtest.Required("aksml:network.nodeSubnet.id")}, ""},
		{"existing with a bad node subnet ID", existing(func(s *Spec) { s.NodeSubnet.ID = "aks-nodes" }), needs,
			[]fieldtest.Want{fieldtest.Invalid("aksml:network.nodeSubnet.id")}, ""},
		{"existing without address space", existing(func(s *Spec) { s.AddressSpace = "" }), needs,
			[]fieldtest.Want{fieldtest.Required("aksml:network.addressSpace")}, ""},
		{"existing without node prefix", existing(func(s *Spec) { s.NodeSubnet.Prefix = "" }), needs,
			[]fieldtest.Want{fieldtest.Required("aksml:network.nodeSubnet.prefix")}, ""},
		{"existing without private endpoint subnet", existing(func(s *Spec) { s.PrivateEndpointSubnet.ID = "" }), needs,
			[]fieldtest.Want{fieldtest.Required("aksml:network.privateEndpointSubnet.id")}, ""},
		{"existing private endpoint subnet in another VNet", existing(func(s *Spec) { s.PrivateEndpointSubnet.ID = otherVNetPE }), needs,
			[]fieldtest.Want{fieldtest.Invalid("aksml:network.privateEndpointSubnet.id")}, ""},
		{"existing without the storage service endpoint", existing(func(*Spec) {}), seNeeds,
			[]fieldtest.Want{fieldtest.Invalid("aksml:network.nodeSubnet.serviceEndpoints")}, `add the service endpoint`},
		{"existing with the storage service endpoint", existing(func(s *Spec) { s.NodeSubnet.ServiceEndpoints = []string{StorageServiceEndpoint} }), seNeeds, nil, ""},
		{"VNet name with existing", existing(func(s *Spec) { s.Name = "vnet" }), needs, []fieldtest.Want{fieldtest.Forbidden("aksml:network.name")}, ""},
		{"private endpoint subnet ID without existing", created(func(s *Spec) { s.PrivateEndpointSubnet.ID = peSubnetID }), needs, []fieldtest.Want{fieldtest.Forbidden("aksml:network.privateEndpointSubnet.id")}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := defaulted(tt.spec, tt.needs)
			err := s.Validate(p, tt.needs, overlay).ToAggregate()
			fieldtest.Equal(t, err, tt.want...)
			if tt.detail != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.detail)
			}
		})
	}
}

func TestValidateOverlay(t *testing.T) {
	pod, svc, dns := field.Path("podCidr"), field.Path("serviceCidr"), field.Path("dnsServiceIP")
	assert.Empty(t, ValidateOverlay("10.244.0.0/16", "10.0.0.0/16", "10.0.0.10", pod, svc, dns))
	assert.Empty(t, ValidateOverlay("10.244.0.0/16", "10.0.0.0/16", "10.0.0.2", pod, svc, dns), "the second usable address is free")
	assert.Empty(t, ValidateOverlay("10.244.0.0/16", "10.1.0.0/16", "10.1.255.254", pod, svc, dns), "the last usable address is free")
	for _, tt := range []struct {
		name, pod, svc, dns string
		want                fieldtest.Want
		detail              string // the reserved range it overlaps, or the fix
	}{
		{"service in 172.30.0.0/16", "10.244.0.0/16", "172.30.0.0/16", "172.30.0.10", fieldtest.Forbidden("serviceCidr"), "overlaps 172.30.0.0/16"},
		{"service in 169.254.0.0/16", "10.244.0.0/16", "169.254.0.0/20", "169.254.0.10", fieldtest.Forbidden("serviceCidr"), "overlaps 169.254.0.0/16"},
		{"pod in 172.31.0.0/16", "172.31.0.0/16", "10.0.0.0/16", "10.0.0.10", fieldtest.Forbidden("podCidr"), "overlaps 172.31.0.0/16"},
		{"pod in 192.0.2.0/24", "192.0.0.0/16", "10.0.0.0/16", "10.0.0.10", fieldtest.Forbidden("podCidr"), "overlaps 192.0.2.0/24"},
		{"DNS is the base address", "10.244.0.0/16", "10.0.0.0/16", "10.0.0.0", fieldtest.Invalid("dnsServiceIP"), "never allocates; use another address in the range, e.g. 10.0.0.10"},
		{"DNS is kubernetes.default's address", "10.244.0.0/16", "10.0.0.0/16", "10.0.0.1", fieldtest.Invalid("dnsServiceIP"), "the API server gives kubernetes.default"},
		{"DNS is the broadcast address", "10.244.0.0/16", "10.1.0.0/16", "10.1.255.255", fieldtest.Invalid("dnsServiceIP"), "the broadcast address"},
		{"service range larger than /12", "10.244.0.0/16", "10.64.0.0/10", "10.64.0.10", fieldtest.Invalid("serviceCidr"), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateOverlay(tt.pod, tt.svc, tt.dns, pod, svc, dns).ToAggregate()
			if fieldtest.Equal(t, err, tt.want) && tt.detail != "" {
				assert.Contains(t, err.Error(), tt.detail)
			}
		})
	}
}

func TestNewNetworkCreatesVNetSubnetsAndZones(t *testing.T) {
	var grantErr error
	m, err := run(t, func(ctx *pulumi.Context) error {
		n, err := NewNetwork(ctx, "net", &NetworkArgs{ClusterName: "aks", ClusterResourceGroup: "rg-aks", Location: "westeurope", Needs: needs, Overlay: overlay})
		if err != nil {
			return err
		}
		if _, grantErr = n.GrantNodeSubnet(ctx, "aks-subnet", pulumi.String("principal")); grantErr != nil {
			return grantErr
		}
		return n.PrivateEndpoints(ctx, "storage", []Target{{Name: "files", ResourceID: pulumi.String(accountID), GroupIDs: []string{FileGroupID}}})
	})
	require.NoError(t, err)
	require.Len(t, m.ByTypeSuffix(":ResourceGroup"), 1)
	vnets := m.ByTypeSuffix(":VirtualNetwork")
	require.Len(t, vnets, 1)
	assert.Equal(t, []any{"10.224.0.0/16"}, vnets[0].Inputs["addressSpace"].(map[string]any)["addressPrefixes"])
	subnets := m.ByTypeSuffix(":Subnet")
	require.Len(t, subnets, 2)
	assert.Equal(t, "10.224.0.0/27", subnets[0].Inputs["addressPrefix"])
	assert.Equal(t, "aks-vnet", subnets[0].Inputs["virtualNetworkName"])
	assert.Equal(t, "10.224.0.32/27", subnets[1].Inputs["addressPrefix"])

	zones := map[string]bool{}
	for _, z := range m.ByTypeSuffix(":PrivateZone") {
		zones[z.Inputs["privateZoneName"].(string)] = true
		assert.Equal(t, "global", z.Inputs["location"])
	}
	assert.Equal(t, map[string]bool{FilePrivateDNSZone: true, BlobPrivateDNSZone: true}, zones)
	links := m.ByTypeSuffix(":VirtualNetworkLink")
	require.Len(t, links, 2)
	for _, l := range links {
		assert.Equal(t, "/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/aks-vnet",
			l.Inputs["virtualNetwork"].(map[string]any)["id"], "each zone is linked to the nodes' VNet")
		assert.Equal(t, false, l.Inputs["registrationEnabled"])
	}

	grants := m.ByTypeSuffix(":RoleAssignment")
	require.Len(t, grants, 1)
	assert.Equal(t, "/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/aks-nodes", grants[0].Inputs["scope"])
	assert.Equal(t, "/subscriptions/11111111-2222-3333-4444-555555555555/providers/Microsoft.Authorization/roleDefinitions/"+NetworkContributorRoleID, grants[0].Inputs["roleDefinitionId"])
	assert.Equal(t, "principal", grants[0].Inputs["principalId"])

	pes := m.ByTypeSuffix(":PrivateEndpoint")
	require.Len(t, pes, 1)
	conn := pes[0].Inputs["privateLinkServiceConnections"].([]any)[0].(map[string]any)
	assert.Equal(t, accountID, conn["privateLinkServiceId"])
	assert.Equal(t, []any{"file"}, conn["groupIds"])
	assert.Equal(t, "/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/private-endpoints",
		pes[0].Inputs["subnet"].(map[string]any)["id"])
	groups := m.ByTypeSuffix(":PrivateDnsZoneGroup")
	require.Len(t, groups, 1)
	cfg := groups[0].Inputs["privateDnsZoneConfigs"].([]any)[0].(map[string]any)
	assert.Equal(t, "net-file-dns-id", cfg["privateDnsZoneId"], "the endpoint registers in the file zone")
}

func TestNewNetworkExistingCreatesNoVNet(t *testing.T) {
	names := make(chan string, 1)
	m, err := run(t, func(ctx *pulumi.Context) error {
		n, err := NewNetwork(ctx, "net", &NetworkArgs{
			Spec: Spec{Existing: true, ResourceGroup: ResourceGroup{Name: "rg-net", Existing: true}, AddressSpace: "10.10.0.0/16",
				NodeSubnet:            Subnet{ID: nodeSubnetID, Prefix: "10.10.0.0/24", ServiceEndpoints: []string{StorageServiceEndpoint}},
				PrivateEndpointSubnet: Subnet{ID: peSubnetID}},
			ClusterName: "aks", Location: "westeurope", Needs: needs, Overlay: overlay,
		})
		if err != nil {
			return err
		}
		n.Name.ApplyT(func(v string) int { names <- v; return 0 })
		_, err = n.GrantNodeSubnet(ctx, "aks-subnet", pulumi.String("principal"))
		return err
	})
	require.NoError(t, err)
	assert.Equal(t, "vnet", <-names, "the VNet name comes from the subnet ID")
	assert.Empty(t, m.ByTypeSuffix(":ResourceGroup"))
	assert.Empty(t, m.ByTypeSuffix(":VirtualNetwork"))
	assert.Empty(t, m.ByTypeSuffix(":Subnet"))
	links := m.ByTypeSuffix(":VirtualNetworkLink")
	require.Len(t, links, 2)
	assert.Equal(t, VNetID(nodeSubnetID), links[0].Inputs["virtualNetwork"].(map[string]any)["id"])
	grants := m.ByTypeSuffix(":RoleAssignment")
	require.Len(t, grants, 1)
	assert.Equal(t, nodeSubnetID, grants[0].Inputs["scope"], "Network Contributor on the brought subnet")
}

func TestServiceEndpointRoute(t *testing.T) {
	m, err := run(t, func(ctx *pulumi.Context) error {
		n, err := NewNetwork(ctx, "net", &NetworkArgs{ClusterName: "aks", ClusterResourceGroup: "rg-aks", Location: "westeurope",
			Needs: Needs{Pools: []int{3}, StorageRoute: RouteServiceEndpoint}, Overlay: overlay})
		if err != nil {
			return err
		}
		err = n.PrivateEndpoints(ctx, "storage", []Target{{Name: "files", ResourceID: pulumi.String(accountID), GroupIDs: []string{FileGroupID}}})
		require.Error(t, err, "no private endpoints without their route")
		return nil
	})
	require.NoError(t, err)
	subnets := m.ByTypeSuffix(":Subnet")
	require.Len(t, subnets, 1, "no private endpoint subnet")
	assert.Equal(t, []any{map[string]any{"service": StorageServiceEndpoint}}, subnets[0].Inputs["serviceEndpoints"])
	assert.Empty(t, m.ByTypeSuffix(":PrivateZone"))
}

func TestInvalidNetworkRegistersNothing(t *testing.T) {
	m, err := run(t, func(ctx *pulumi.Context) error {
		_, err := NewNetwork(ctx, "net", &NetworkArgs{
			Spec:        Spec{AddressSpace: "172.31.0.0/16", NodeSubnet: Subnet{Prefix: "10.0.0.0/29"}},
			ClusterName: "aks", ClusterResourceGroup: "rg-aks", Needs: needs, Overlay: overlay,
		})
		return err
	})
	// No ConfigPath: problems are reported below the default root.
	fieldtest.Equal(t, err, fieldtest.Forbidden("network.addressSpace"), fieldtest.Invalid("network.nodeSubnet.prefix"), fieldtest.Required("NetworkArgs.Location"))
	assert.Empty(t, m.All(), "nothing is registered when the spec is invalid")

	_, err = run(t, func(ctx *pulumi.Context) error { _, err := NewNetwork(ctx, "net", nil); return err })
	require.Error(t, err)
}

func TestValidatePodCapacity(t *testing.T) {
	p := field.Path("aksml:cluster.network.podCidr")
	assert.Empty(t, ValidatePodCapacity("10.244.0.0/16", 256, p), "a /16 holds 256 node blocks")
	err := ValidatePodCapacity("10.244.0.0/16", 300, p).ToAggregate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "aksml:cluster.network.podCidr: 10.244.0.0/16 holds 256 node blocks (/24 each) but the pools can have 300 nodes")
	assert.Contains(t, err.Error(), "use a /15 or larger")
	err = ValidatePodCapacity("10.244.0.0/25", 1, p).ToAggregate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "smaller than a /24")
}

// TestProtectCoversTheStorageRoute: with Protect, the private DNS zones and
// their links, the private endpoints and their DNS zone groups are
// protected like the VNet, so a routine change cannot cut the nodes off
// private storage; without it nothing is.
func TestProtectCoversTheStorageRoute(t *testing.T) {
	for _, protect := range []bool{true, false} {
		m, err := run(t, func(ctx *pulumi.Context) error {
			n, err := NewNetwork(ctx, "net", &NetworkArgs{ClusterName: "aks", ClusterResourceGroup: "rg-aks", Location: "westeurope", Needs: needs, Overlay: overlay, Protect: protect})
			if err != nil {
				return err
			}
			return n.PrivateEndpoints(ctx, "storage", []Target{{Name: "files", ResourceID: pulumi.String(accountID), GroupIDs: []string{FileGroupID}}})
		})
		require.NoError(t, err)
		checked := 0
		for _, suffix := range []string{":PrivateZone", ":VirtualNetworkLink", ":PrivateEndpoint", ":PrivateDnsZoneGroup", ":VirtualNetwork", ":Subnet"} {
			rs := m.ByTypeSuffix(suffix)
			require.NotEmpty(t, rs, suffix)
			for _, r := range rs {
				assert.Equal(t, protect, r.Protect, "%s protect", r.Name)
				checked++
			}
		}
		assert.Equal(t, 9, checked, "2 zones, 2 links, 1 endpoint, 1 zone group, 1 VNet, 2 subnets")
	}
}

// TestNodeSubnetCountsOtherAddresses: a private API server's endpoint and
// the internal load balancer frontends take node subnet addresses, so the
// created subnet grows and an existing one that cannot hold them is refused.
func TestNodeSubnetCountsOtherAddresses(t *testing.T) {
	// needs: 16 nodes + 3 surge + 5 reserved = 24 addresses.
	private := Needs{Pools: needs.Pools, PrivateAPIServer: true, StorageRoute: RoutePrivateEndpoint}
	assert.Equal(t, 25, defaulted(Spec{}, private).NodeIPs(private))
	ilb := 8
	s := defaulted(Spec{InternalLoadBalancerIPs: &ilb}, private)
	assert.Equal(t, 33, s.NodeIPs(private))
	assert.Equal(t, "10.224.0.0/26", s.NodeSubnet.Prefix, "33 addresses need a /26")
	assert.Equal(t, 19, s.Nodes(private), "the pod range is sized for nodes only")

	p := field.NewPath("aksml:network")
	tooSmall := defaulted(Spec{InternalLoadBalancerIPs: &ilb, NodeSubnet: Subnet{Prefix: "10.224.0.0/27"}}, private)
	err := tooSmall.Validate(p, private, overlay).ToAggregate()
	fieldtest.Equal(t, err, fieldtest.Invalid("aksml:network.nodeSubnet.prefix"))
	assert.Contains(t, err.Error(), "9 for the private API server endpoint and internal load balancers")
	fits := defaulted(Spec{InternalLoadBalancerIPs: &ilb, NodeSubnet: Subnet{Prefix: "10.224.0.0/26"}}, private)
	assert.NoError(t, fits.Validate(p, private, overlay).ToAggregate())

	bad := -1
	err = defaulted(Spec{InternalLoadBalancerIPs: &bad}, needs).Validate(p, needs, overlay).ToAggregate()
	fieldtest.Equal(t, err, fieldtest.Invalid("aksml:network.internalLoadBalancerIps"))
}

// TestExistingPrivateDNSZones: with central zones (landing zones) the
// endpoints register in them and aksml creates no zone and no link;
// bad, partial or misplaced zone IDs are refused.
func TestExistingPrivateDNSZones(t *testing.T) {
	const zones = "/subscriptions/22222222-2222-2222-2222-222222222222/resourceGroups/rg-hub-dns/providers/Microsoft.Network/privateDnsZones/"
	central := PrivateDNSZones{File: zones + FilePrivateDNSZone, Blob: zones + BlobPrivateDNSZone}
	m, err := run(t, func(ctx *pulumi.Context) error {
		n, err := NewNetwork(ctx, "net", &NetworkArgs{Spec: Spec{PrivateDNSZones: central}, ClusterName: "aks", ClusterResourceGroup: "rg-aks", Location: "westeurope", Needs: needs, Overlay: overlay})
		if err != nil {
			return err
		}
		return n.PrivateEndpoints(ctx, "files", []Target{{Name: "mlfiles", ResourceID: pulumi.String(accountID), GroupIDs: []string{FileGroupID}}})
	})
	require.NoError(t, err)
	assert.Empty(t, m.ByTypeSuffix(":PrivateZone"), "no zone created")
	assert.Empty(t, m.ByTypeSuffix(":VirtualNetworkLink"), "no link created")
	groups := m.ByTypeSuffix(":PrivateDnsZoneGroup")
	require.Len(t, groups, 1)
	assert.Equal(t, zones+FilePrivateDNSZone, mocktest.Get(groups[0].Inputs, "privateDnsZoneConfigs", 0, "privateDnsZoneId"))

	p := field.NewPath("aksml:network")
	for _, tc := range []struct {
		name  string
		zones PrivateDNSZones
		needs Needs
		want  []fieldtest.Want
	}{
		{"central zones", central, needs, nil},
		{"only one", PrivateDNSZones{File: central.File}, needs, []fieldtest.Want{fieldtest.Required("aksml:network.privateDnsZones.blob")}},
		{"not an ID", PrivateDNSZones{File: "privatelink.file.core.windows.net", Blob: central.Blob}, needs, []fieldtest.Want{fieldtest.Invalid("aksml:network.privateDnsZones.file")}},
		{"swapped", PrivateDNSZones{File: central.Blob, Blob: central.File}, needs, []fieldtest.Want{fieldtest.Invalid("aksml:network.privateDnsZones.file"), fieldtest.Invalid("aksml:network.privateDnsZones.blob")}},
		{"without private endpoints", central, Needs{Pools: needs.Pools, StorageRoute: RouteServiceEndpoint}, []fieldtest.Want{fieldtest.Forbidden("aksml:network.privateDnsZones")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := defaulted(Spec{PrivateDNSZones: tc.zones}, tc.needs)
			fieldtest.Equal(t, s.Validate(p, tc.needs, overlay).ToAggregate(), tc.want...)
		})
	}
}

// TestDerivedSubnetsThatDoNotFitNameAddressSpace: a node or private
// endpoint subnet Default derived and that falls outside the written
// addressSpace is reported on addressSpace, the key that was written; a
// written subnet outside it is reported on the subnet's own key.
func TestDerivedSubnetsThatDoNotFitNameAddressSpace(t *testing.T) {
	p := field.Path("aksml:network")
	for _, tc := range []struct {
		name   string
		spec   Spec
		want   fieldtest.Want
		detail string
	}{
		{"derived node subnet larger than the VNet", Spec{AddressSpace: "10.224.0.0/28"}, fieldtest.Invalid("aksml:network.addressSpace"), "no room for the node subnet aksml derives from the pools: they need 24 addresses"},
		{"derived private endpoint subnet after a VNet-filling node subnet", Spec{AddressSpace: "10.224.0.0/27"}, fieldtest.Invalid("aksml:network.addressSpace"), "no room for the private endpoint subnet aksml derives"},
		{"written node subnet outside the VNet", Spec{AddressSpace: "10.224.0.0/28", NodeSubnet: Subnet{Prefix: "10.225.0.0/27"}}, fieldtest.Invalid("aksml:network.nodeSubnet.prefix"), "is not inside addressSpace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.spec
			s.Default("aks", "rg-aks", needs)
			err := s.Validate(p, needs, overlay).ToAggregate()
			if fieldtest.Equal(t, err, tc.want) {
				assert.Contains(t, err.Error(), tc.detail)
			}
		})
	}
	s := Spec{AddressSpace: "10.224.0.0/26"}
	s.Default("aks", "rg-aks", needs)
	assert.Empty(t, s.Validate(p, needs, overlay), "a /26 holds the derived /27 node subnet and the /27 after it")
}

// TestAKSManagedMode: mode aks-managed keeps the VNet AKS generated, so
// Default fills nothing and every key that describes a VNet the stack
// declares is refused, as are the storage routes and a private API server
// that need a VNet others can name.
func TestAKSManagedMode(t *testing.T) {
	p := field.Path("aksml:network")
	s := Spec{Mode: ModeAKSManaged}
	s.Default("aks", "rg-aks", needs)
	assert.Equal(t, Spec{Mode: ModeAKSManaged}, s, "Default derives nothing for the VNet AKS generated")
	assert.Empty(t, s.Validate(p, Needs{Pools: needs.Pools}, overlay), "public storage, public API server")

	surge, ilb := 2, 1
	written := Spec{
		Mode: ModeAKSManaged, Existing: true, ResourceGroup: ResourceGroup{Name: "rg-net"}, Name: "vnet", AddressSpace: "10.224.0.0/16",
		NodeSubnet: Subnet{Prefix: "10.224.0.0/24"}, PrivateEndpointSubnet: Subnet{Name: "pe"}, SurgeNodesPerPool: &surge, InternalLoadBalancerIPs: &ilb,
		PrivateDNSZones: PrivateDNSZones{File: "/subscriptions/x"},
	}
	var want []fieldtest.Want
	for _, k := range []string{"existing", "resourceGroup", "name", "addressSpace", "nodeSubnet", "privateEndpointSubnet", "surgeNodesPerPool", "internalLoadBalancerIps", "privateDnsZones"} {
		want = append(want, fieldtest.Forbidden("aksml:network."+k))
	}
	if err := written.Validate(p, Needs{Pools: needs.Pools}, overlay).ToAggregate(); fieldtest.Equal(t, err, want...) {
		assert.Contains(t, err.Error(), "means nothing with mode aks-managed")
	}
	if err := s.Validate(p, Needs{Pools: needs.Pools, StorageRoute: RouteServiceEndpoint, PrivateAPIServer: true}, overlay).ToAggregate(); fieldtest.Equal(t, err, fieldtest.Forbidden("aksml:network.mode"), fieldtest.Forbidden("aksml:network.mode")) {
		assert.Contains(t, err.Error(), "storage that denies public networks has no route")
		assert.Contains(t, err.Error(), "private API server's endpoint")
	}
	fieldtest.ListEqual(t, Spec{Mode: "managed"}.Validate(p, needs, overlay), fieldtest.NotSupported("aksml:network.mode"))
}
