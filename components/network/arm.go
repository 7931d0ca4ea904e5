package network

import "github.com/pulumi/pulumi/sdk/v3/go/pulumi"

// The Microsoft.Network resources aksml creates (the VNet, its subnets, private
// endpoints and their DNS zone groups) are registered by their azure-native type
// tokens with untyped inputs (azarm.Register) instead of through the typed package
// `pulumi-azure-native-sdk/network/v2/v20240501`: that package is 7.0 MB of Go source
// for about 150 resource types, the largest package of the program, and the main
// module used four of them. Compiling it cost at least 103 CPU-seconds and 2.7 GB of
// memory on a cold cache, plus its vet facts and staticcheck in every module that
// imports this one (issue 30), and it was linked into every program binary (issue 32).
//
// What the typed constructors did besides registering is done here too, so that the
// engine receives the same inputs (the golden files are byte-identical): the defaults
// they inject (Defaults in the SDK's resource files: enableDdosProtection and
// enableVmProtection false on a VNet; privateEndpointNetworkPolicies "Disabled" and
// privateLinkServiceNetworkPolicies "Enabled" on a subnet and on the subnet a private
// endpoint names) and the provider version of the azure-native SDK (the SDK's
// PkgResourceDefaultOpts). The typed constructors also add aliases to the same type
// in every other API version; aksml never registered these resources under another
// version, so its state has nothing to migrate and no alias is needed.
//
// Input names and shapes are those of the API version's request body: ARM spec
// specification/network/resource-manager/Microsoft.Network/stable/2024-05-01
// (virtualNetwork.json, privateEndpoint.json), which the ARM conformance tier checks
// the synthesized inputs against.
const (
	// VirtualNetworkType is the azure-native type token of a VNet (API 2024-05-01).
	VirtualNetworkType = "azure-native:network/v20240501:VirtualNetwork"
	// SubnetType is the azure-native type token of a subnet (API 2024-05-01).
	SubnetType = "azure-native:network/v20240501:Subnet"
	// PrivateEndpointType is the azure-native type token of a private endpoint (API 2024-05-01).
	PrivateEndpointType = "azure-native:network/v20240501:PrivateEndpoint"
	// PrivateDNSZoneGroupType is the azure-native type token of a private endpoint's DNS
	// zone group (API 2024-05-01).
	PrivateDNSZoneGroupType = "azure-native:network/v20240501:PrivateDnsZoneGroup"
)

// subnetPolicyDefaults are the two network policy settings the typed SDK fills in on
// a subnet when they are unset (SubnetType.Defaults in pulumi-azure-native-sdk
// network/v2/v20240501): private endpoint network policies off, private link service
// network policies on, Azure's own defaults.
func subnetPolicyDefaults(m pulumi.Map) pulumi.Map {
	m["privateEndpointNetworkPolicies"] = pulumi.String("Disabled")
	m["privateLinkServiceNetworkPolicies"] = pulumi.String("Enabled")
	return m
}

// The private DNS zones of the private-endpoint route and their links to the VNet,
// registered by token for the same reason (components/internal/azarm), at API
// 2024-06-01 (specification/privatedns/resource-manager/Microsoft.Network/stable/2024-06-01),
// the version aksml registered them with through `network/v2/v20240601`.
const (
	// PrivateZoneType is the azure-native type token of a private DNS zone.
	PrivateZoneType = "azure-native:network/v20240601:PrivateZone"
	// VirtualNetworkLinkType is the azure-native type token of a private DNS zone's
	// link to a VNet.
	VirtualNetworkLinkType = "azure-native:network/v20240601:VirtualNetworkLink"
)
