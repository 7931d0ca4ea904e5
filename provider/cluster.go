package provider

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/cluster"
)

// ClusterArgs are the inputs of aksml:cluster:Cluster: the fields of
// cluster.Spec (stack config `aksml:cluster`) and of cluster.ClusterArgs
// that cross a language boundary. Transform (a Go func) and ConfigPath stay
// out: validation errors name `aksml:cluster.<field>`, as for a Go program
// that leaves ConfigPath unset. The Kubernetes provider the Go component
// returns cannot be an output; build one from the kubeconfig output.
type ClusterArgs struct {
	Name                 string                     `pulumi:"name"`
	Location             string                     `pulumi:"location"`
	ResourceGroup        cluster.ResourceGroup      `pulumi:"resourceGroup"`
	Mode                 *string                    `pulumi:"mode,optional"`
	Tier                 *string                    `pulumi:"tier,optional"`
	DNSPrefix            *string                    `pulumi:"dnsPrefix,optional"`
	KubernetesVersion    *string                    `pulumi:"kubernetesVersion,optional"`
	UpgradeChannel       *string                    `pulumi:"upgradeChannel,optional"`
	NodeOSUpgradeChannel *string                    `pulumi:"nodeOSUpgradeChannel,optional"`
	SystemPool           *cluster.SystemPool        `pulumi:"systemPool,optional"`
	CPUPool              *cluster.CPUPool           `pulumi:"cpuPool,optional"`
	Network              *cluster.Network           `pulumi:"network,optional"`
	EntraID              *cluster.EntraID           `pulumi:"entraID,optional"`
	APIServer            *cluster.APIServer         `pulumi:"apiServer,optional"`
	Defender             *cluster.Defender          `pulumi:"defender,optional"`
	AzurePolicy          *bool                      `pulumi:"azurePolicy,optional"`
	AutoscalerProfile    map[string]string          `pulumi:"autoscalerProfile,optional"`
	MaintenanceWindow    *cluster.MaintenanceWindow `pulumi:"maintenanceWindow,optional"`
	Logs                 *cluster.LogsSpec          `pulumi:"logs,optional"`
	Registry             *cluster.RegistrySpec      `pulumi:"registry,optional"`
	KubeClient           *cluster.KubeClient        `pulumi:"kubeClient,optional"`
	Tags                 map[string]string          `pulumi:"tags,optional"`
	Protect              *bool                      `pulumi:"protect,optional"`
	DeleteUnreachable    *bool                      `pulumi:"deleteUnreachable,optional"`
	NodeSubnetID         pulumi.StringInput         `pulumi:"nodeSubnetId,optional"`
	ManagedPrometheusOff *bool                      `pulumi:"managedPrometheusOff,optional"`
}

// NewCluster constructs cluster.Cluster.
func NewCluster(ctx *pulumi.Context, name string, args ClusterArgs, opts ...pulumi.ResourceOption) (*cluster.Cluster, error) {
	return cluster.NewCluster(ctx, name, &cluster.ClusterArgs{
		Spec: cluster.Spec{
			Name:                 args.Name,
			Location:             args.Location,
			ResourceGroup:        args.ResourceGroup,
			Mode:                 cluster.Mode(deref(args.Mode)),
			Tier:                 cluster.Tier(deref(args.Tier)),
			DNSPrefix:            deref(args.DNSPrefix),
			KubernetesVersion:    deref(args.KubernetesVersion),
			UpgradeChannel:       deref(args.UpgradeChannel),
			NodeOSUpgradeChannel: deref(args.NodeOSUpgradeChannel),
			SystemPool:           deref(args.SystemPool),
			CPUPool:              deref(args.CPUPool),
			Network:              deref(args.Network),
			EntraID:              args.EntraID,
			APIServer:            deref(args.APIServer),
			Defender:             deref(args.Defender),
			AzurePolicy:          args.AzurePolicy,
			AutoscalerProfile:    args.AutoscalerProfile,
			MaintenanceWindow:    args.MaintenanceWindow,
			Logs:                 deref(args.Logs),
			Registry:             args.Registry,
			KubeClient:           deref(args.KubeClient),
		},
		Tags:                 args.Tags,
		Protect:              deref(args.Protect),
		DeleteUnreachable:    deref(args.DeleteUnreachable),
		NodeSubnetID:         args.NodeSubnetID,
		ManagedPrometheusOff: deref(args.ManagedPrometheusOff),
	}, opts...)
}
