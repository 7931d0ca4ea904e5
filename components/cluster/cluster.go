package cluster

import (
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/aksml/aksml/components/armdeploy"
	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/internal/azarm"
	containerservice "github.com/pulumi/pulumi-azure-native-sdk/containerservice/v2/v20241001"
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// ComponentType is the Pulumi type token of Cluster.
const ComponentType = "aksml:cluster:Cluster"

// ClusterIgnoredPath is the managed cluster input Pulumi ignores after
// creation: the inline system and CPU pool profiles (see NewCluster).
const ClusterIgnoredPath = "agentPoolProfiles"

// DefaultConfigPath is the error-path root of Spec when the caller gives
// no ConfigPath. It carries no program's config namespace: the aksml
// program passes `aksml:cluster`.
const DefaultConfigPath = "cluster"

// ClusterArgs configures the cluster.
type ClusterArgs struct {
	// Spec is the cluster; Default is applied to a copy, then Validate.
	// Required.
	Spec Spec
	// ConfigPath is the config key Spec was read from, used in validation
	// errors. Default DefaultConfigPath (`cluster`).
	ConfigPath field.Path
	// Tags are put on the resource group (when created) and the cluster.
	Tags map[string]string
	// Protect marks the resource group and the cluster protected, so that
	// Pulumi refuses to delete them (prod, SPEC C9). Default false.
	Protect bool
	// DeleteUnreachable lets the Kubernetes provider drop resources from
	// state when the cluster is gone, so a destroy after the cluster was
	// deleted can finish. Default false.
	DeleteUnreachable bool
	// Transform may change the provider arguments of the managed cluster
	// before it is registered (escape hatch).
	Transform func(*containerservice.ManagedClusterArgs)
	// NodeSubnetID is the subnet (ARM ID) the system and CPU pools join
	// (vnetSubnetID), e.g. network.Network.NodeSubnetID. Default nil: AKS
	// generates a VNet and subnet, which nothing else can reference.
	NodeSubnetID pulumi.StringInput
	// ManagedPrometheusOff turns off the managed Prometheus metrics add-on
	// (azureMonitorProfile.metrics). Default false: the add-on runs and
	// needs the data collection rule and association that
	// observability.NewAzureMonitor deploys; without them it scrapes into
	// nowhere (guardrail AKSML-MON-001; "Enable monitoring for AKS
	// clusters", https://learn.microsoft.com/azure/azure-monitor/containers/kubernetes-monitoring-enable).
	// Set true when the stack deploys no Azure Monitor side (observability
	// off).
	ManagedPrometheusOff bool
}

// Cluster is an AKS cluster with its resource group, maintenance windows
// and a Kubernetes provider for the Kubernetes-layer components.
type Cluster struct {
	pulumi.ResourceState

	// Spec is the defaulted, validated spec.
	Spec Spec

	// Name is the AKS cluster name.
	Name pulumi.StringOutput `pulumi:"name"`
	// ResourceID is the cluster's Azure resource ID.
	ResourceID pulumi.StringOutput `pulumi:"resourceId"`
	// ResourceGroupName is the cluster's resource group.
	ResourceGroupName pulumi.StringOutput `pulumi:"resourceGroupName"`
	// OIDCIssuerURL is the issuer URL for workload identity federation.
	OIDCIssuerURL pulumi.StringOutput `pulumi:"oidcIssuerUrl"`
	// NodeResourceGroup is the group AKS keeps the nodes' resources in.
	NodeResourceGroup pulumi.StringOutput `pulumi:"nodeResourceGroup"`
	// IdentityPrincipalID is the object ID of the cluster's system-assigned
	// (control plane) identity, which the CSI drivers use to provision
	// volumes; grant it roles on resources outside the node resource group.
	IdentityPrincipalID pulumi.StringOutput `pulumi:"identityPrincipalId"`
	// LogAnalyticsWorkspaceID is the workspace Container Insights and the
	// audit logs go to (created or configured), "" with both off.
	LogAnalyticsWorkspaceID pulumi.StringOutput `pulumi:"logAnalyticsWorkspaceId"`
	// RegistryID is the container registry's ARM ID, "" without one.
	RegistryID pulumi.StringOutput `pulumi:"registryId"`
	// RegistryLoginServer is the registry's login server
	// (<name>.azurecr.io), "" without one; workload images in prod must
	// start with it (guardrail AKSML-SEC-003).
	RegistryLoginServer string
	// Kubeconfig is the user kubeconfig, secret. On Entra ID clusters it
	// runs kubelogin (see the package doc).
	Kubeconfig pulumi.StringOutput `pulumi:"kubeconfig" provider:"secret"`
	// Provider talks to the cluster with Kubeconfig; pass it to every
	// Kubernetes-layer component.
	Provider *kubernetes.Provider
}

// NewCluster validates args.Spec and registers the resource group (unless
// existing), the managed cluster, the maintenance configurations (when a
// window is set) and the Kubernetes provider. Nothing is registered when the
// spec is invalid.
func NewCluster(ctx *pulumi.Context, name string, args *ClusterArgs, opts ...pulumi.ResourceOption) (*Cluster, error) {
	if args == nil {
		return nil, errors.New("cluster: args are required")
	}
	spec := args.Spec.clone()
	spec.Default()
	path := args.ConfigPath
	if path == "" {
		path = field.NewPath(DefaultConfigPath)
	}
	if err := spec.Validate(path).ToAggregate(); err != nil {
		return nil, err
	}

	c := &Cluster{Spec: spec}
	if err := ctx.RegisterComponentResource(ComponentType, name, c, opts...); err != nil {
		return nil, err
	}
	// Children inherit protect from the component unless Protect says so.
	azureOpts := []pulumi.ResourceOption{pulumi.Parent(c)}
	if args.Protect {
		azureOpts = append(azureOpts, pulumi.Protect(true))
	}

	rgName := pulumi.String(spec.ResourceGroup.Name).ToStringOutput()
	if !spec.ResourceGroup.Existing {
		rg, err := azarm.Register(ctx, azarm.ResourceGroupType, name+"-rg", pulumi.Map{
			"resourceGroupName": pulumi.String(spec.ResourceGroup.Name),
			"location":          pulumi.String(spec.Location),
			"tags":              pulumi.ToStringMap(args.Tags),
		}, azureOpts...)
		if err != nil {
			return nil, err
		}
		rgName = rg.Name
	}

	// The workspace stack is registered for as long as the cluster lives
	// (empty when no workspace is created), so that dropping the workspace
	// deletes it rather than detaching it (components/armdeploy).
	logs := spec.Logs
	wsStack, err := armdeploy.NewTemplateStack(ctx, name+"-logs", &armdeploy.Args{
		ResourceGroupName: rgName,
		Template:          WorkspaceTemplate(logs.CreatesWorkspace(), args.Tags),
		Parameters:        workspaceParams(spec),
		Description:       "aksml Log Analytics workspace for Container Insights and control-plane audit logs. Removing it from this template deletes it; deleting the stack detaches it.",
		Tags:              args.Tags,
	}, azureOpts...)
	if err != nil {
		return nil, err
	}
	workspaceID := pulumi.String(logs.LogAnalyticsWorkspaceID).ToStringOutput()
	if logs.CreatesWorkspace() {
		workspaceID = armdeploy.OutputString(wsStack, logOutWorkspaceID)
	}
	if !logs.Wanted() {
		workspaceID = pulumi.String("").ToStringOutput()
	}

	mcArgs := ManagedClusterArgs(spec, rgName, args.Tags)
	if args.ManagedPrometheusOff {
		mcArgs.AzureMonitorProfile = containerservice.ManagedClusterAzureMonitorProfileArgs{
			Metrics: containerservice.ManagedClusterAzureMonitorProfileMetricsArgs{Enabled: pulumi.Bool(false)},
		}
	}
	if logs.insights() {
		SetContainerInsights(mcArgs, workspaceID)
	}
	SetNodeSubnet(mcArgs, args.NodeSubnetID)
	if args.Transform != nil {
		args.Transform(mcArgs)
	}
	// The inline pools are the cluster's creation body only (AKS: "the
	// initial node pool profile can't be updated once the AKS cluster has
	// been created", Manage node pools using a Resource Manager template,
	// https://learn.microsoft.com/azure/aks/use-multiple-node-pools). After
	// creation the cluster never diffs on agentPoolProfiles: a refresh
	// copies every live pool, the GPU pools included, into the stored
	// inputs (pulumi/pulumi-azure-native#1532), and a cluster PUT that
	// carries pool profiles puts every pool of the cluster into Scaling
	// (pulumi/pulumi-azure-native#4264, won't fix). The Azure Verified
	// Module for AKS does the same (lifecycle ignore_changes on
	// body.properties.agentPoolProfiles, Azure/terraform-azurerm-avm-res-containerservice-managedcluster
	// main.tf). So system and CPU pool settings, and their subnet (which AKS
	// sets at creation only, hashicorp/terraform-provider-azurerm#8662),
	// apply when the cluster is created; README "Day two" says how to
	// change them afterwards.
	mc, err := containerservice.NewManagedCluster(ctx, name+"-aks", mcArgs,
		append(azureOpts, pulumi.IgnoreChanges([]string{ClusterIgnoredPath}))...)
	if err != nil {
		return nil, err
	}

	if w := spec.MaintenanceWindow; w != nil {
		schedules := []struct{ role, config string }{
			{"-maintenance", AutoUpgradeScheduleName},
			{"-nodeos-maintenance", NodeOSUpgradeScheduleName},
		}
		for _, sc := range schedules {
			if _, err := containerservice.NewMaintenanceConfiguration(ctx, name+sc.role,
				MaintenanceArgs(*w, sc.config, rgName, mc.Name), pulumi.Parent(c)); err != nil {
				return nil, err
			}
		}
	}

	insightsParams := map[string]any{logParamLocation: spec.Location, logParamClusterName: mc.Name}
	if logs.Wanted() {
		insightsParams[logParamWorkspaceID] = workspaceID
	}
	if logs.insights() {
		insightsParams[logParamDCRLocation] = logs.DCRLocation(spec.Location)
	}
	if _, err := armdeploy.NewTemplateStack(ctx, name+"-insights", &armdeploy.Args{
		ResourceGroupName: rgName,
		Template:          InsightsTemplate(logs.insights(), logs.audit(), logs.AuditCategories, args.Tags),
		Parameters:        insightsParams,
		Description:       "aksml Container Insights data collection rule and association, and the control-plane audit diagnostic setting of the AKS cluster.",
		Tags:              args.Tags,
	}, pulumi.Parent(c)); err != nil {
		return nil, err
	}

	c.RegistryID = pulumi.String("").ToStringOutput()
	if spec.Registry != nil {
		c.RegistryLoginServer = spec.Registry.LoginServer()
		if c.RegistryID, err = registry(ctx, name, spec, rgName, mc, args.Tags, azureOpts); err != nil {
			return nil, err
		}
	}

	c.Name = mc.Name
	c.LogAnalyticsWorkspaceID = workspaceID
	c.ResourceID = mc.ID().ToStringOutput()
	c.ResourceGroupName = rgName
	c.OIDCIssuerURL = mc.OidcIssuerProfile.IssuerURL().Elem()
	c.NodeResourceGroup = mc.NodeResourceGroup.Elem()
	c.IdentityPrincipalID = mc.Identity.PrincipalId().Elem()
	c.Kubeconfig = userKubeconfig(ctx, spec, rgName, mc.Name)

	// On an Entra ID cluster the deploying principal needs a data-plane
	// role before the provider's first call; the provider depends on the
	// assignment and its kubeconfig waits out the propagation window.
	providerKubeconfig := c.Kubeconfig
	providerOpts := []pulumi.ResourceOption{pulumi.Parent(c)}
	deployerRole, err := deployerAccess(ctx, name, spec, mc, azureOpts)
	if err != nil {
		return nil, err
	}
	if deployerRole != nil {
		providerKubeconfig = afterPropagation(ctx, c.Kubeconfig, deployerRole)
		providerOpts = append(providerOpts, pulumi.DependsOn([]pulumi.Resource{deployerRole}))
	}

	provider, err := kubernetes.NewProvider(ctx, name+"-k8s", &kubernetes.ProviderArgs{
		Kubeconfig:            providerKubeconfig,
		ClusterIdentifier:     c.ResourceID,
		EnableServerSideApply: pulumi.Bool(true),
		DeleteUnreachable:     pulumi.Bool(args.DeleteUnreachable),
		KubeClientSettings:    spec.KubeClient.settings(),
	}, providerOpts...)
	if err != nil {
		return nil, err
	}
	c.Provider = provider

	if err := ctx.RegisterResourceOutputs(c, pulumi.Map{
		"name":                    c.Name,
		"resourceId":              c.ResourceID,
		"resourceGroupName":       c.ResourceGroupName,
		"oidcIssuerUrl":           c.OIDCIssuerURL,
		"nodeResourceGroup":       c.NodeResourceGroup,
		"identityPrincipalId":     c.IdentityPrincipalID,
		"logAnalyticsWorkspaceId": c.LogAnalyticsWorkspaceID,
		"registryId":              c.RegistryID,
		"kubeconfig":              c.Kubeconfig,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// ManagedClusterArgs maps a defaulted, valid Spec to the managed cluster
// arguments (API 2024-10-01): system-assigned identity, the system pool and
// the CPU pool with the autoscaler on, Azure CNI overlay with Cilium, OIDC
// issuer and workload identity, Blob/File/Disk CSI drivers and the snapshot
// controller, managed Prometheus metrics, the KEDA add-on, upgrade channels, the AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops)
// autoscaler profile, and Entra ID, API server access, Defender and Azure
// Policy as the Spec says.
func ManagedClusterArgs(s Spec, resourceGroupName pulumi.StringInput, tags map[string]string) *containerservice.ManagedClusterArgs {
	pools := containerservice.ManagedClusterAgentPoolProfileArray{
		poolProfile(SystemPoolName, "System", s.SystemPool.VMSize, s.SystemPool.Min(), s.SystemPool.MaxCount, s.SystemPool.Zones, s.SystemPool.OSDiskSizeGB, nil, []string{SystemPoolTaint}),
	}
	if !s.CPUPool.Disabled {
		pools = append(pools, poolProfile(CPUPoolName, "User", s.CPUPool.VMSize, s.CPUPool.Min(), s.CPUPool.MaxCount, s.CPUPool.Zones, s.CPUPool.OSDiskSizeGB,
			map[string]string{"workload": CPUWorkloadLabel}, nil))
	}
	enabled := pulumi.Bool(true)
	a := &containerservice.ManagedClusterArgs{
		ResourceGroupName: resourceGroupName,
		ResourceName:      pulumi.String(s.Name),
		Location:          pulumi.String(s.Location),
		DnsPrefix:         pulumi.String(s.DNSPrefix),
		Sku: containerservice.ManagedClusterSKUArgs{
			Name: pulumi.String("Base"),
			Tier: pulumi.String(string(s.Tier)),
		},
		Identity: containerservice.ManagedClusterIdentityArgs{
			Type: containerservice.ResourceIdentityTypeSystemAssigned,
		},
		EnableRBAC:        enabled,
		AgentPoolProfiles: pools,
		NetworkProfile: containerservice.ContainerServiceNetworkProfileArgs{
			NetworkPlugin:     pulumi.String(NetworkPlugin),
			NetworkPluginMode: pulumi.String(NetworkPluginMode),
			NetworkDataplane:  pulumi.String(NetworkDataplane),
			NetworkPolicy:     pulumi.String(NetworkPolicy),
			PodCidr:           pulumi.String(s.Network.PodCIDR),
			ServiceCidr:       pulumi.String(s.Network.ServiceCIDR),
			DnsServiceIP:      pulumi.String(s.Network.DNSServiceIP),
		},
		OidcIssuerProfile: containerservice.ManagedClusterOIDCIssuerProfileArgs{Enabled: enabled},
		SecurityProfile:   securityProfile(s),
		StorageProfile: containerservice.ManagedClusterStorageProfileArgs{
			BlobCSIDriver:      containerservice.ManagedClusterStorageProfileBlobCSIDriverArgs{Enabled: enabled},
			FileCSIDriver:      containerservice.ManagedClusterStorageProfileFileCSIDriverArgs{Enabled: enabled},
			DiskCSIDriver:      containerservice.ManagedClusterStorageProfileDiskCSIDriverArgs{Enabled: enabled},
			SnapshotController: containerservice.ManagedClusterStorageProfileSnapshotControllerArgs{Enabled: enabled},
		},
		AzureMonitorProfile: containerservice.ManagedClusterAzureMonitorProfileArgs{
			Metrics: containerservice.ManagedClusterAzureMonitorProfileMetricsArgs{Enabled: enabled},
		},
		// The AKS KEDA add-on (workloadAutoScalerProfile.keda.enabled, a
		// required boolean in ManagedClusterWorkloadAutoScalerProfileKeda of
		// the 2024-10-01 spec: ../shared/azure-specs/specification/containerservice/resource-manager/Microsoft.ContainerService/aks/stable/2024-10-01/managedClusters.json):
		// the scaler InferenceServers use with managed Prometheus ("Install
		// the KEDA add-on with an ARM template",
		// https://learn.microsoft.com/azure/aks/keda-deploy-add-on-arm).
		// Workload identity and the OIDC issuer, which KEDA's Azure Monitor
		// access needs, are on in the same body ("enable the workload
		// identity add-on before enabling the KEDA add-on",
		// https://learn.microsoft.com/azure/aks/keda-about). On a cluster
		// created before, the next `up` sends the same PUT and AKS enables
		// the add-on in place (as `az aks update --enable-keda` does).
		WorkloadAutoScalerProfile: containerservice.ManagedClusterWorkloadAutoScalerProfileArgs{
			Keda: containerservice.ManagedClusterWorkloadAutoScalerProfileKedaArgs{Enabled: enabled},
		},
		AddonProfiles: containerservice.ManagedClusterAddonProfileMap{
			AzurePolicyAddon: containerservice.ManagedClusterAddonProfileArgs{Enabled: pulumi.Bool(s.AzurePolicyEnabled())},
		},
		AutoUpgradeProfile: containerservice.ManagedClusterAutoUpgradeProfileArgs{
			UpgradeChannel:       pulumi.String(s.UpgradeChannel),
			NodeOSUpgradeChannel: pulumi.String(s.NodeOSUpgradeChannel),
		},
		AutoScalerProfile:    autoscalerProfile(s.Autoscaler()),
		DisableLocalAccounts: pulumi.Bool(s.LocalAccountsDisabled()),
	}
	if s.KubernetesVersion != "" {
		a.KubernetesVersion = pulumi.String(s.KubernetesVersion)
	}
	if s.EntraID != nil {
		a.AadProfile = containerservice.ManagedClusterAADProfileArgs{
			Managed:             enabled,
			EnableAzureRBAC:     enabled,
			AdminGroupObjectIDs: pulumi.ToStringArray(s.EntraID.AdminGroupObjectIDs),
		}
	}
	if len(s.APIServer.AuthorizedIPRanges) > 0 || s.APIServer.Private {
		api := containerservice.ManagedClusterAPIServerAccessProfileArgs{}
		if s.APIServer.Private {
			api.EnablePrivateCluster = enabled
			// The public FQDN of a private cluster resolves, in Azure public
			// DNS, to the API server's private IP, so a runner in a peered
			// VNet (or on premises) reaches it without a link to the private
			// DNS zone AKS creates for the cluster VNet; the AKS default,
			// written so that the kubeconfig (PublicFQDN) can rely on it.
			api.EnablePrivateClusterPublicFQDN = enabled
		} else {
			api.AuthorizedIPRanges = pulumi.ToStringArray(s.APIServer.AuthorizedIPRanges)
		}
		a.ApiServerAccessProfile = api
	}
	if len(tags) > 0 {
		a.Tags = pulumi.ToStringMap(tags)
	}
	return a
}

// SetNodeSubnet sets vnetSubnetID on every inline pool of a; a nil subnet
// leaves them unset.
func SetNodeSubnet(a *containerservice.ManagedClusterArgs, subnetID pulumi.StringInput) {
	pools, ok := a.AgentPoolProfiles.(containerservice.ManagedClusterAgentPoolProfileArray)
	if subnetID == nil || !ok {
		return
	}
	for i, p := range pools {
		if pa, ok := p.(containerservice.ManagedClusterAgentPoolProfileArgs); ok {
			pa.VnetSubnetID = subnetID
			pools[i] = pa
		}
	}
}

// MaintenanceArgs maps a window to the maintenance configuration named
// config (aksManagedAutoUpgradeSchedule or aksManagedNodeOSUpgradeSchedule)
// of the cluster.
func MaintenanceArgs(w MaintenanceWindow, config string, resourceGroupName, clusterName pulumi.StringInput) *containerservice.MaintenanceConfigurationArgs {
	return &containerservice.MaintenanceConfigurationArgs{
		ResourceGroupName: resourceGroupName,
		ResourceName:      clusterName,
		ConfigName:        pulumi.String(config),
		MaintenanceWindow: containerservice.MaintenanceWindowArgs{
			Schedule: containerservice.ScheduleArgs{
				Weekly: containerservice.WeeklyScheduleArgs{
					DayOfWeek:     pulumi.String(w.DayOfWeek),
					IntervalWeeks: pulumi.Int(w.IntervalWeeks),
				},
			},
			StartTime:     pulumi.String(w.StartTime),
			DurationHours: pulumi.Int(w.DurationHours),
			UtcOffset:     pulumi.String(w.UTCOffset),
		},
	}
}

// poolProfile is an inline, autoscaled pool profile. It sends no count:
// AKS chooses the initial count within minCount..maxCount, and a count in
// the stored inputs would be sent again by every later cluster PUT and
// reset (or be refused for) what the autoscaler chose ("Cannot manually
// scale AgentPool ... with cluster autoscaler enabled",
// hashicorp/terraform-provider-azurerm#4543). The Azure Verified Module for
// AKS sends count only for pools without minCount/maxCount
// (Azure/terraform-azurerm-avm-res-containerservice-managedcluster
// modules/agentpool/locals.tf), for its default pool too.
func poolProfile(name, mode, vmSize string, minCount, maxCount int, zones []string, osDisk int, labels map[string]string, taints []string) containerservice.ManagedClusterAgentPoolProfileArgs {
	p := containerservice.ManagedClusterAgentPoolProfileArgs{
		Name:              pulumi.String(name),
		Mode:              pulumi.String(mode),
		Type:              pulumi.String("VirtualMachineScaleSets"),
		OsType:            pulumi.String("Linux"),
		VmSize:            pulumi.String(vmSize),
		EnableAutoScaling: pulumi.Bool(true),
		MinCount:          pulumi.Int(minCount),
		MaxCount:          pulumi.Int(maxCount),
		OsDiskSizeGB:      pulumi.Int(osDisk),
	}
	if len(zones) > 0 {
		p.AvailabilityZones = pulumi.ToStringArray(zones)
	}
	if len(labels) > 0 {
		p.NodeLabels = pulumi.ToStringMap(labels)
	}
	if len(taints) > 0 {
		p.NodeTaints = pulumi.ToStringArray(taints)
	}
	return p
}

func securityProfile(s Spec) containerservice.ManagedClusterSecurityProfileArgs {
	sp := containerservice.ManagedClusterSecurityProfileArgs{
		WorkloadIdentity: containerservice.ManagedClusterSecurityProfileWorkloadIdentityArgs{Enabled: pulumi.Bool(true)},
	}
	if s.Defender.Enabled {
		sp.Defender = containerservice.ManagedClusterSecurityProfileDefenderArgs{
			LogAnalyticsWorkspaceResourceId: pulumi.String(s.Defender.LogAnalyticsWorkspaceID),
			SecurityMonitoring:              containerservice.ManagedClusterSecurityProfileDefenderSecurityMonitoringArgs{Enabled: pulumi.Bool(true)},
		}
	}
	return sp
}

// profileArgs is the provider type of the autoscaler profile.
type profileArgs = containerservice.ManagedClusterPropertiesAutoScalerProfileArgs

// autoscalerSetting is one autoscaler setting: whether it is a boolean, how
// its string value is checked (validate.go) and how it is written into the
// provider arguments.
type autoscalerSetting struct {
	boolean bool
	check   func(v string) string
	set     func(a *profileArgs, v string)
}

func stringSetting(check func(string) string, f func(*profileArgs) *pulumi.StringPtrInput) autoscalerSetting {
	return autoscalerSetting{check: check, set: func(a *profileArgs, v string) { *f(a) = pulumi.String(v) }}
}

func boolSetting(f func(*profileArgs) *pulumi.BoolPtrInput) autoscalerSetting {
	return autoscalerSetting{boolean: true, set: func(a *profileArgs, v string) { *f(a) = pulumi.Bool(parseBool(v)) }}
}

// autoscalerSettings are the settings AutoscalerProfile may set, by their
// AKS name.
var autoscalerSettings = map[string]autoscalerSetting{
	"balance-similar-node-groups":           stringSetting(checkBoolString, func(a *profileArgs) *pulumi.StringPtrInput { return &a.BalanceSimilarNodeGroups }),
	"daemonset-eviction-for-empty-nodes":    boolSetting(func(a *profileArgs) *pulumi.BoolPtrInput { return &a.DaemonsetEvictionForEmptyNodes }),
	"daemonset-eviction-for-occupied-nodes": boolSetting(func(a *profileArgs) *pulumi.BoolPtrInput { return &a.DaemonsetEvictionForOccupiedNodes }),
	"expander":                              stringSetting(checkExpander, func(a *profileArgs) *pulumi.StringPtrInput { return &a.Expander }),
	"ignore-daemonsets-utilization":         boolSetting(func(a *profileArgs) *pulumi.BoolPtrInput { return &a.IgnoreDaemonsetsUtilization }),
	"max-empty-bulk-delete":                 stringSetting(checkInt(1, 1000), func(a *profileArgs) *pulumi.StringPtrInput { return &a.MaxEmptyBulkDelete }),
	KeyMaxGracefulTerminationSec:            stringSetting(checkInt(0, 86400), func(a *profileArgs) *pulumi.StringPtrInput { return &a.MaxGracefulTerminationSec }),
	"max-node-provision-time":               stringSetting(checkPositiveMinutes, func(a *profileArgs) *pulumi.StringPtrInput { return &a.MaxNodeProvisionTime }),
	"max-total-unready-percentage":          stringSetting(checkInt(0, 100), func(a *profileArgs) *pulumi.StringPtrInput { return &a.MaxTotalUnreadyPercentage }),
	"new-pod-scale-up-delay":                stringSetting(checkDuration, func(a *profileArgs) *pulumi.StringPtrInput { return &a.NewPodScaleUpDelay }),
	"ok-total-unready-count":                stringSetting(checkInt(0, 1000000), func(a *profileArgs) *pulumi.StringPtrInput { return &a.OkTotalUnreadyCount }),
	KeyScaleDownDelayAfterAdd:               stringSetting(checkMinutes, func(a *profileArgs) *pulumi.StringPtrInput { return &a.ScaleDownDelayAfterAdd }),
	"scale-down-delay-after-delete":         stringSetting(checkMinutes, func(a *profileArgs) *pulumi.StringPtrInput { return &a.ScaleDownDelayAfterDelete }),
	"scale-down-delay-after-failure":        stringSetting(checkMinutes, func(a *profileArgs) *pulumi.StringPtrInput { return &a.ScaleDownDelayAfterFailure }),
	KeyScaleDownUnneededTime:                stringSetting(checkMinutes, func(a *profileArgs) *pulumi.StringPtrInput { return &a.ScaleDownUnneededTime }),
	"scale-down-unready-time":               stringSetting(checkMinutes, func(a *profileArgs) *pulumi.StringPtrInput { return &a.ScaleDownUnreadyTime }),
	"scale-down-utilization-threshold":      stringSetting(checkRatio, func(a *profileArgs) *pulumi.StringPtrInput { return &a.ScaleDownUtilizationThreshold }),
	KeyScanInterval:                         stringSetting(checkScanInterval, func(a *profileArgs) *pulumi.StringPtrInput { return &a.ScanInterval }),
	"skip-nodes-with-local-storage":         stringSetting(checkBoolString, func(a *profileArgs) *pulumi.StringPtrInput { return &a.SkipNodesWithLocalStorage }),
	"skip-nodes-with-system-pods":           stringSetting(checkBoolString, func(a *profileArgs) *pulumi.StringPtrInput { return &a.SkipNodesWithSystemPods }),
}

func autoscalerProfile(p map[string]string) profileArgs {
	a := profileArgs{}
	for _, k := range slices.Sorted(maps.Keys(p)) {
		autoscalerSettings[k].set(&a, p[k])
	}
	return a
}

func parseBool(v string) bool {
	b, _ := strconv.ParseBool(v)
	return b
}

// userKubeconfig lists the cluster user credentials and returns the first
// kubeconfig, decoded and secret. Entra ID clusters get the exec format,
// which runs kubelogin; private clusters get their public FQDN as the
// server (ServerFQDNPublic).
func userKubeconfig(ctx *pulumi.Context, s Spec, resourceGroupName, clusterName pulumi.StringInput) pulumi.StringOutput {
	args := containerservice.ListManagedClusterUserCredentialsOutputArgs{
		ResourceGroupName: resourceGroupName,
		ResourceName:      clusterName,
	}
	if s.EntraID != nil {
		args.Format = pulumi.String(KubeconfigFormatExec)
	}
	if s.APIServer.Private {
		args.ServerFqdn = pulumi.String(ServerFQDNPublic)
	}
	creds := containerservice.ListManagedClusterUserCredentialsOutput(ctx, args)
	decoded := creds.Kubeconfigs().ApplyT(func(kcs []containerservice.CredentialResultResponse) (string, error) {
		if len(kcs) == 0 {
			return "", errors.New("cluster: AKS returned no user kubeconfig")
		}
		raw, err := base64.StdEncoding.DecodeString(kcs[0].Value)
		if err != nil {
			return "", fmt.Errorf("cluster: decoding the user kubeconfig: %w", err)
		}
		return string(raw), nil
	}).(pulumi.StringOutput)
	return pulumi.ToSecret(decoded).(pulumi.StringOutput)
}

// workspaceParams are the workspace template's parameter values; only a
// created workspace takes them.
func workspaceParams(s Spec) map[string]any {
	if !s.Logs.CreatesWorkspace() {
		return nil
	}
	return map[string]any{
		logParamWorkspaceName: s.Logs.LogAnalyticsWorkspaceName,
		logParamLocation:      s.Location,
		logParamRetention:     s.Logs.RetentionInDays,
	}
}
