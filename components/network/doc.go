// Package network builds the virtual network an AKS cluster's nodes join
// (SPEC C1.4): created or brought, with the storage private endpoints and
// the private DNS zones that make them resolvable from the nodes.
//
// Spec is the config-facing description (stack config `aksml:network`);
// Default fills it from the cluster and what the rest of the stack needs
// (Needs: every pool's node ceiling, a private API server and the storage
// route), Validate returns
// every problem with its config path. NewNetwork registers, as children of
// one aksml:network:Network:
//
//   - the network resource group (`<name>-rg`, default
//     `<cluster resource group>-net`), unless resourceGroup.existing;
//   - unless existing: the VNet (`<name>-vnet`, default 10.224.0.0/16) and,
//     as separate Subnet resources written one after the other, the node
//     subnet (`<name>-nodes`) and, for the private endpoint route, the
//     private endpoint subnet (`<name>-private-endpoints`, a /27 after the
//     node subnet);
//   - for the private endpoint route: the private DNS zones
//     privatelink.file.core.windows.net and privatelink.blob.core.windows.net
//     (`<name>-file-dns`, `<name>-blob-dns`) with a virtual network link to
//     the VNet each, unless Spec.PrivateDNSZones names existing central
//     zones (Azure landing zones), which the endpoints then register in.
//
// The VNet is registered without a subnets property and each subnet as its
// own Subnet resource. A PUT of a VNet without subnets keeps the existing
// ones from Microsoft.Network API 2023-11-01 on ("Azure Virtual Network now
// supports updates without subnet property", Azure Networking Blog; aksml
// uses 2024-05-01), and azure-native keeps separately managed subnets out of
// the VNet's diff (pulumi/pulumi-azure-native#611), so a change to the VNet
// never deletes them.
//
// GrantNodeSubnet gives the cluster identity Network Contributor on the node
// subnet; PrivateEndpoints adds, per storage account and sub-resource, a
// private endpoint and a DNS zone group in the linked zone.
//
// API versions (azure-native SDK v2.88.0, module network/v2): VirtualNetwork,
// Subnet, PrivateEndpoint and PrivateDnsZoneGroup at 2024-05-01 (package
// v20240501); PrivateZone and VirtualNetworkLink at 2024-06-01 (package
// v20240601, the newest Microsoft.Network/privateDnsZones version the SDK
// has); RoleAssignment from authorization/v2 at the SDK default.
//
// # Rules and their sources
//
//   - Every pool gets vnetSubnetID. AgentPool model, azure-rest-api-specs
//     Microsoft.ContainerService 2024-10-01 and 2026-01-02-preview
//     (../shared/azure-specs): "If this is not specified, a VNET and subnet
//     will be generated and used." Without it no storage rule or private
//     endpoint can name the nodes' network.
//   - The cluster identity needs at least Network Contributor on a subnet it
//     did not create: "Azure Kubernetes Service (AKS) CNI networking
//     overview", prerequisites,
//     https://learn.microsoft.com/azure/aks/concepts-network-cni-overview.
//     Role ID 4d97b98b-1d4f-4787-a291-c67834d212e7: "Azure built-in roles for
//     Networking", Network Contributor,
//     https://learn.microsoft.com/azure/role-based-access-control/built-in-roles/networking.
//     With the system-assigned identity aksml uses, the assignment can only
//     be made once the cluster exists (the identity does not exist before),
//     which is also what `az aks create --vnet-subnet-id` does.
//   - The service, pod and VNet ranges cannot use 169.254.0.0/16,
//     172.30.0.0/16, 172.31.0.0/16 or 192.0.2.0/24 (same CNI overview page,
//     prerequisites). Pod range and cluster subnet must not overlap; the
//     service range must not overlap the pod range or the cluster subnet;
//     the DNS service IP is inside the service range and not an address
//     Kubernetes reserves there (base, broadcast, and the first usable
//     address, kubernetes.default; ReservedServiceAddress cites the
//     Kubernetes sources): "Configure Azure CNI Overlay
//     networking in AKS", IP address planning,
//     https://learn.microsoft.com/azure/aks/azure-cni-overlay, and "IP
//     address planning for your AKS clusters",
//     https://learn.microsoft.com/azure/aks/concepts-network-ip-address-planning.
//     aksml checks the pod and service ranges against the whole VNet range,
//     which is stricter than the subnet and keeps peered subnets safe too.
//     The service range "must be smaller than /12" and each node takes a /24
//     of the pod range, so the pod range must hold one /24 per node at
//     maxCount plus surge (same two pages).
//   - Node subnet size: with overlay only nodes take subnet addresses; plan
//     for maxCount (count on a Managed GPU pool) plus the upgrade surge
//     (default one node per pool), plus the private API server's endpoint
//     and internal load balancer frontends, which AKS puts in the node
//     subnet (APIServerPrivateEndpointIPs, InternalLoadBalancerIPs), and
//     Azure keeps five addresses of every subnet (IP address planning page
//     above: "n + number-of-additional-scaled-nodes-you-anticipate + max
//     surge"; Azure Virtual Network FAQ, reserved addresses). A VNet is at
//     most a /8 (same page, limits table).
//   - Storage private endpoints and DNS: sub-resources file and blob resolve
//     through privatelink.file.core.windows.net and
//     privatelink.blob.core.windows.net ("Azure Private Endpoint private DNS
//     zone values", https://learn.microsoft.com/azure/private-link/private-endpoint-dns).
//   - IP rules are no route for the nodes: "IP network rules have no effect on
//     requests that originate from the same Azure region as the storage
//     account. Use Virtual network rules to allow same-region requests." ("Azure
//     Storage firewall rules", IP network rules,
//     https://learn.microsoft.com/azure/storage/common/storage-network-security-ip-address-range).
//     A VNet rule needs the Microsoft.Storage service endpoint on its subnet
//     (same documentation, virtual network rules).
//   - A private API server is reachable only through a private endpoint in the
//     cluster's VNet ("Create a private AKS cluster",
//     https://learn.microsoft.com/azure/aks/private-clusters); authorized IP
//     ranges do not apply to it. API server VNet integration needs
//     apiServerAccessProfile.enableVnetIntegration, which exists in AKS API
//     2026-01-02-preview but not in 2024-10-01, the version the typed cluster
//     uses, so aksml does not offer it. The stacks therefore accept a private
//     API server only in an Azure-layer stack (aksml:kubernetesLayer false)
//     and deploy the Kubernetes layer from a second stack that reads it
//     through a StackReference and runs inside the VNet.
//   - Authorized IP ranges: at most 200, CIDRs starting at their first
//     address ("Secure access to the API server using authorized IP address
//     ranges in AKS", https://learn.microsoft.com/azure/aks/api-server-authorized-ip-ranges).
//
// Subnet names, VNet names and the resource group of an existing VNet must
// be 63 characters or fewer: AKS writes them into node labels (Azure CNI
// Overlay page, limitations).
package network
