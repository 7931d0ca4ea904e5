package network

import (
	"errors"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/internal/azarm"
)

// ComponentType is the Pulumi type token of Network.
const ComponentType = "aksml:network:Network"

// NetworkArgs configures NewNetwork.
type NetworkArgs struct {
	// Spec is `aksml:network`. Default is applied to a copy (with
	// ClusterName, ClusterResourceGroup and Needs), then Validate.
	Spec Spec
	// ConfigPath names Spec in validation errors. Default DefaultConfigPath
	// (`network`).
	ConfigPath field.Path
	// ClusterName and ClusterResourceGroup derive the default VNet and
	// resource group names. Required unless Spec names both.
	ClusterName, ClusterResourceGroup string
	// Location is the Azure region of the VNet and private endpoints.
	// Required.
	Location string
	// Needs are the node pools' maxCount and the storage route.
	Needs Needs
	// Overlay are the cluster's pod and service ranges, which must not
	// overlap the VNet.
	Overlay Overlay
	// Tags are put on every resource that takes tags.
	Tags map[string]string
	// Protect marks the resource group, VNet, subnets, the private DNS
	// zones with their VNet links, and the private endpoints with their DNS
	// zone groups (PrivateEndpoints) protected: without them the nodes lose
	// the route to private storage, so a routine change must not delete
	// them (issue 25). Default false; prod stacks set it.
	Protect bool
}

// Network is the cluster's virtual network: the node subnet every pool
// joins, the private endpoint subnet and the storage private DNS zones
// linked to the VNet.
type Network struct {
	pulumi.ResourceState

	// Spec is the defaulted, validated spec.
	Spec Spec

	// Name is the VNet name.
	Name pulumi.StringOutput
	// ResourceID is the ARM ID of the VNet (same as VNetID).
	ResourceID pulumi.StringOutput
	// ResourceGroupName is the network resource group.
	ResourceGroupName pulumi.StringOutput
	// VNetID is the ARM ID of the VNet.
	VNetID pulumi.StringOutput
	// NodeSubnetID is the ARM ID of the node subnet: set it as vnetSubnetID
	// on every pool.
	NodeSubnetID pulumi.StringOutput
	// PrivateEndpointSubnetID is the ARM ID of the private endpoint subnet,
	// "" without the private endpoint route.
	PrivateEndpointSubnetID pulumi.StringOutput

	location string
	tags     map[string]string
	zones    map[string]pulumi.StringOutput // group ID → private DNS zone ID
	protect  bool
}

// NewNetwork validates the spec, then registers the resource group (unless
// existing), the VNet and its subnets (unless existing), and, for the
// private endpoint route, the file and blob private DNS zones with a link
// to the VNet. Nothing is registered when the spec is invalid.
func NewNetwork(ctx *pulumi.Context, name string, args *NetworkArgs, opts ...pulumi.ResourceOption) (*Network, error) {
	if args == nil {
		return nil, errors.New("network: args are required")
	}
	spec := args.Spec.Clone()
	spec.Default(args.ClusterName, args.ClusterResourceGroup, args.Needs)
	path := args.ConfigPath
	if path == "" {
		path = field.NewPath(DefaultConfigPath)
	}
	errs := spec.Validate(path, args.Needs, args.Overlay)
	if args.Location == "" {
		errs = append(errs, field.Required(field.NewPath("NetworkArgs.Location"), "the Azure region of the VNet"))
	}
	if err := errs.ToAggregate(); err != nil {
		return nil, err
	}

	n := &Network{Spec: spec, location: args.Location, tags: args.Tags, zones: map[string]pulumi.StringOutput{}, protect: args.Protect}
	if err := ctx.RegisterComponentResource(ComponentType, name, n, opts...); err != nil {
		return nil, err
	}
	child := []pulumi.ResourceOption{pulumi.Parent(n)}
	if args.Protect {
		child = append(child, pulumi.Protect(true))
	}
	tags := pulumi.ToStringMap(args.Tags)

	n.ResourceGroupName = pulumi.String(spec.ResourceGroup.Name).ToStringOutput()
	if !spec.ResourceGroup.Existing {
		rg, err := azarm.Register(ctx, azarm.ResourceGroupType, name+"-rg", pulumi.Map{
			"resourceGroupName": pulumi.String(spec.ResourceGroup.Name),
			"location":          pulumi.String(args.Location),
			"tags":              tags,
		}, child...)
		if err != nil {
			return nil, err
		}
		n.ResourceGroupName = rg.Name
	}

	route := args.Needs.StorageRoute
	if spec.Existing {
		n.NodeSubnetID = pulumi.String(spec.NodeSubnet.ID).ToStringOutput()
		n.VNetID = pulumi.String(VNetID(spec.NodeSubnet.ID)).ToStringOutput()
		n.Name = pulumi.String(lastSegment(VNetID(spec.NodeSubnet.ID))).ToStringOutput()
		n.PrivateEndpointSubnetID = pulumi.String("").ToStringOutput()
		if route == RoutePrivateEndpoint {
			n.PrivateEndpointSubnetID = pulumi.String(spec.PrivateEndpointSubnet.ID).ToStringOutput()
		}
	} else {
		vnet, err := azarm.Register(ctx, VirtualNetworkType, name+"-vnet", VNetArgs(spec, n.ResourceGroupName, args.Location, args.Tags), child...)
		if err != nil {
			return nil, err
		}
		n.VNetID = vnet.ID().ToStringOutput()
		n.Name = vnet.Name
		// Subnets name the VNet by its configured name and wait for it, so
		// that the desired state shows the name Azure gets.
		vnetName := pulumi.String(spec.Name)
		afterVNet := append(child, pulumi.DependsOn([]pulumi.Resource{vnet}))
		node, err := azarm.Register(ctx, SubnetType, name+"-nodes", SubnetArgs(spec.NodeSubnet, n.ResourceGroupName, vnetName), afterVNet...)
		if err != nil {
			return nil, err
		}
		n.NodeSubnetID = node.ID().ToStringOutput()
		n.PrivateEndpointSubnetID = pulumi.String("").ToStringOutput()
		if route == RoutePrivateEndpoint {
			// Subnets of one VNet are written one at a time: Azure rejects
			// concurrent subnet updates of the same VNet.
			pe, err := azarm.Register(ctx, SubnetType, name+"-private-endpoints", SubnetArgs(spec.PrivateEndpointSubnet, n.ResourceGroupName, vnetName),
				append(child, pulumi.DependsOn([]pulumi.Resource{vnet, node}))...)
			if err != nil {
				return nil, err
			}
			n.PrivateEndpointSubnetID = pe.ID().ToStringOutput()
		}
	}

	if route == RoutePrivateEndpoint && spec.PrivateDNSZones.Existing() {
		// Central zones (landing zones): the endpoints register there, and
		// the hub's DNS resolves them for the VNet; nothing to create.
		n.zones[FileGroupID] = pulumi.String(spec.PrivateDNSZones.File).ToStringOutput()
		n.zones[BlobGroupID] = pulumi.String(spec.PrivateDNSZones.Blob).ToStringOutput()
	} else if route == RoutePrivateEndpoint {
		for _, z := range []struct{ group, zone string }{{FileGroupID, FilePrivateDNSZone}, {BlobGroupID, BlobPrivateDNSZone}} {
			zone, err := azarm.Register(ctx, PrivateZoneType, name+"-"+z.group+"-dns", pulumi.Map{
				"privateZoneName":   pulumi.String(z.zone),
				"resourceGroupName": n.ResourceGroupName,
				"location":          pulumi.String("global"),
				"tags":              tags,
			}, child...)
			if err != nil {
				return nil, err
			}
			if _, err := azarm.Register(ctx, VirtualNetworkLinkType, name+"-"+z.group+"-dns-link", pulumi.Map{
				"privateZoneName":        pulumi.String(z.zone),
				"resourceGroupName":      n.ResourceGroupName,
				"virtualNetworkLinkName": pulumi.String("aksml-nodes"),
				"location":               pulumi.String("global"),
				"registrationEnabled":    pulumi.Bool(false),
				"virtualNetwork":         pulumi.Map{"id": n.VNetID},
				"tags":                   tags,
			}, append(child, pulumi.DependsOn([]pulumi.Resource{zone}))...); err != nil {
				return nil, err
			}
			n.zones[z.group] = zone.ID().ToStringOutput()
		}
	}

	n.ResourceID = n.VNetID
	if err := ctx.RegisterResourceOutputs(n, pulumi.Map{
		"name":                    n.Name,
		"resourceId":              n.ResourceID,
		"resourceGroupName":       n.ResourceGroupName,
		"vnetId":                  n.VNetID,
		"nodeSubnetId":            n.NodeSubnetID,
		"privateEndpointSubnetId": n.PrivateEndpointSubnetID,
	}); err != nil {
		return nil, err
	}
	return n, nil
}

// VNetArgs maps a defaulted, created Spec to the VNet's inputs (VirtualNetworkType).
// Subnets are separate Subnet resources (SubnetArgs), not inline.
func VNetArgs(s Spec, resourceGroupName pulumi.StringInput, location string, tags map[string]string) pulumi.Map {
	return pulumi.Map{
		"virtualNetworkName":   pulumi.String(s.Name),
		"resourceGroupName":    resourceGroupName,
		"location":             pulumi.String(location),
		"addressSpace":         pulumi.Map{"addressPrefixes": pulumi.ToStringArray([]string{s.AddressSpace})},
		"tags":                 pulumi.ToStringMap(tags),
		"enableDdosProtection": pulumi.Bool(false),
		"enableVmProtection":   pulumi.Bool(false),
	}
}

// SubnetArgs maps a created subnet to its inputs (SubnetType), with its service
// endpoints.
func SubnetArgs(s Subnet, resourceGroupName, vnetName pulumi.StringInput) pulumi.Map {
	a := subnetPolicyDefaults(pulumi.Map{
		"subnetName":         pulumi.String(s.Name),
		"resourceGroupName":  resourceGroupName,
		"virtualNetworkName": vnetName,
		"addressPrefix":      pulumi.String(s.Prefix),
	})
	var endpoints pulumi.Array
	for _, svc := range s.ServiceEndpoints {
		endpoints = append(endpoints, pulumi.Map{"service": pulumi.String(svc)})
	}
	if len(endpoints) > 0 {
		a["serviceEndpoints"] = endpoints
	}
	return a
}

// GrantNodeSubnet gives the AKS cluster identity principalID the Network
// Contributor role on the node subnet, which AKS needs on a subnet it did
// not create. Call it once, with the cluster's identity principal ID.
func (n *Network) GrantNodeSubnet(ctx *pulumi.Context, name string, principalID pulumi.StringInput) (*azarm.RoleAssignment, error) {
	role := n.NodeSubnetID.ApplyT(func(id string) string {
		return "/subscriptions/" + subscriptionOf(id) + "/providers/Microsoft.Authorization/roleDefinitions/" + NetworkContributorRoleID
	}).(pulumi.StringOutput)
	return azarm.NewRoleAssignment(ctx, name, &azarm.RoleAssignmentArgs{
		PrincipalID:      principalID,
		PrincipalType:    pulumi.String("ServicePrincipal"),
		RoleDefinitionID: role,
		Scope:            n.NodeSubnetID,
		Description:      pulumi.String("aksml: the AKS cluster identity manages its nodes' subnet (BYO subnet)"),
	}, pulumi.Parent(n))
}

// Target is a resource reached through a private endpoint.
type Target struct {
	// Name names the endpoint: `<name>-<Name>-<GroupID>-pe`.
	Name string
	// ResourceID is the ARM ID of the private link resource (a storage
	// account).
	ResourceID pulumi.StringInput
	// GroupIDs are the sub-resources, FileGroupID and/or BlobGroupID.
	GroupIDs []string
}

// PrivateEndpoints registers, per target and sub-resource, a private
// endpoint in the private endpoint subnet and a DNS zone group that puts its
// address into the linked privatelink zone. It fails when the network was
// built without the private endpoint route.
func (n *Network) PrivateEndpoints(ctx *pulumi.Context, name string, targets []Target) error {
	for _, t := range targets {
		for _, g := range t.GroupIDs {
			zone, ok := n.zones[g]
			if !ok {
				return errors.New("network: private endpoints need the network built with Needs.StorageRoute " + string(RoutePrivateEndpoint) + " and sub-resource file or blob; got " + g)
			}
			peName := name + "-" + t.Name + "-" + g + "-pe"
			pe, err := azarm.Register(ctx, PrivateEndpointType, peName, pulumi.Map{
				"resourceGroupName": n.ResourceGroupName,
				"location":          pulumi.String(n.location),
				"subnet":            subnetPolicyDefaults(pulumi.Map{"id": n.PrivateEndpointSubnetID}),
				"privateLinkServiceConnections": pulumi.Array{
					pulumi.Map{
						"name":                 pulumi.String(peName),
						"privateLinkServiceId": t.ResourceID,
						"groupIds":             pulumi.ToStringArray([]string{g}),
					},
				},
				"tags": pulumi.ToStringMap(n.tags),
			}, pulumi.Parent(n), pulumi.Protect(n.protect))
			if err != nil {
				return err
			}
			if _, err := azarm.Register(ctx, PrivateDNSZoneGroupType, peName+"-dns", pulumi.Map{
				"resourceGroupName":       n.ResourceGroupName,
				"privateEndpointName":     pe.Name,
				"privateDnsZoneGroupName": pulumi.String("default"),
				"privateDnsZoneConfigs": pulumi.Array{
					pulumi.Map{"name": pulumi.String(g), "privateDnsZoneId": zone},
				},
			}, pulumi.Parent(n), pulumi.Protect(n.protect)); err != nil {
				return err
			}
		}
	}
	return nil
}
