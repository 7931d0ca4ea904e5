package gpupool

import (
	"errors"
	"fmt"

	"github.com/aksml/aksml/components/armdeploy"
	"github.com/aksml/aksml/components/field"
	containerservice "github.com/pulumi/pulumi-azure-native-sdk/containerservice/v2/v20241001"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// ComponentType is the Pulumi type token of GPUNodePool.
const ComponentType = "aksml:gpupool:GPUNodePool"

// Values the pool is created with (seeds 000, 002, 004).
const (
	// PoolMode is User: GPU pools never run system pods.
	PoolMode = "User"
	// PoolOSType is Linux (seed 002: Windows GPU pools are out of scope).
	PoolOSType = "Linux"
	// PoolType is VirtualMachineScaleSets, required by the autoscaler.
	PoolType = "VirtualMachineScaleSets"
	// SpotEvictionPolicy is Delete (seed 004 `--eviction-policy Delete`).
	SpotEvictionPolicy = "Delete"
	// SpotMaxPrice is -1: pay up to the on-demand price, never evicted for
	// price (seed 004 `--spot-max-price -1`).
	SpotMaxPrice = -1.0
	// AgentPoolAPIVersion is the AKS API that has gpuProfile.driver and
	// gpuProfile.nvidia (seed 002; the version the Azure Verified Module
	// uses). The typed SDK's newest is 2024-10-01, which has neither.
	AgentPoolAPIVersion = "2026-01-02-preview"
	// GPUDriverInstall and GPUDriverNone are the values of gpuProfile.driver.
	GPUDriverInstall = "Install"
	GPUDriverNone    = "None"
	// ManagementModeManaged is gpuProfile.nvidia.managementMode of Managed
	// pools: AKS installs the driver, device plugin and DCGM exporter.
	ManagementModeManaged = "Managed"
)

// immutableProperties are the pool properties AKS fixes at creation; a
// change to one replaces the typed pool (delete first: the name is fixed).
var immutableProperties = []string{
	"vmSize", "gpuInstanceProfile", "scaleSetPriority", "scaleSetEvictionPolicy",
	"availabilityZones", "osDiskSizeGB", "osType", "agentPoolName", "resourceName",
}

// GPUNodePoolArgs configures one GPU node pool.
type GPUNodePoolArgs struct {
	// Spec is the pool; Default is applied to a copy, then Validate.
	// Required.
	Spec Spec
	// ConfigPath is the config key Spec was read from, used in validation
	// errors. Default `aksml:gpuPools["<spec.name>"]`.
	ConfigPath field.Path
	// ResourceGroupName is the cluster's resource group. Required.
	ResourceGroupName pulumi.StringInput
	// ClusterName is the AKS cluster the pool joins. Required. Pass the
	// cluster's Name output so the pool waits for the cluster.
	ClusterName pulumi.StringInput
	// Tags are put on the pool's scale set.
	Tags map[string]string
	// Transform may change the typed provider arguments of DriverOnly
	// pools before they are registered (escape hatch).
	Transform func(*containerservice.AgentPoolArgs)
	// PropertiesTransform may change the ARM `properties` of Managed and
	// None pools (template route) before they are deployed (escape hatch).
	PropertiesTransform func(map[string]any)
}

// GPUNodePool is an AKS user node pool of NVIDIA GPU VMs.
type GPUNodePool struct {
	pulumi.ResourceState

	// Spec is the defaulted, validated pool spec, for capacity maths
	// (MaxGPUs, MIGInstances) in the caller.
	Spec Spec

	// Name is the AKS pool name (the `kubernetes.azure.com/agentpool`
	// label of its nodes).
	Name pulumi.StringOutput
	// ResourceID is the Azure resource ID of the agent pool.
	ResourceID pulumi.StringOutput
	// VMSize is the pool's VM size.
	VMSize pulumi.StringOutput
	// GPUStack is Managed, DriverOnly or None.
	GPUStack pulumi.StringOutput
	// MaxGPUs is maxCount × GPUs per node.
	MaxGPUs pulumi.IntOutput
	// IdleCostPerHour is the indicative USD cost per hour at minCount (0
	// when the pool scales to zero).
	IdleCostPerHour pulumi.Float64Output
	// MaxCostPerHour is the indicative USD cost per hour at maxCount.
	MaxCostPerHour pulumi.Float64Output
	// SpotDiscount is the fraction of the on-demand price assumed saved
	// (SpotDiscount on spot pools, 0 otherwise).
	SpotDiscount pulumi.Float64Output
}

// NewGPUNodePool validates args.Spec and registers the pool: a typed
// AgentPool (API 2024-10-01) for DriverOnly, an ARM template stack (API
// 2026-01-02-preview) for Managed and None. Nothing is registered when the
// spec is invalid.
func NewGPUNodePool(ctx *pulumi.Context, name string, args *GPUNodePoolArgs, opts ...pulumi.ResourceOption) (*GPUNodePool, error) {
	if args == nil {
		return nil, errors.New("gpupool: args are required")
	}
	spec := args.Spec
	spec.MinCount = cloneInt(spec.MinCount)
	if spec.MIG != nil {
		mig := *spec.MIG
		spec.MIG = &mig
	}
	spec.Default()
	path := args.ConfigPath
	if path == "" {
		path = field.NewPath("aksml:gpuPools").Key(spec.Name)
	}
	errs := spec.Validate(path)
	if args.ResourceGroupName == nil {
		errs = append(errs, field.Required(field.NewPath("GPUNodePoolArgs.ResourceGroupName"), "the cluster's resource group"))
	}
	if args.ClusterName == nil {
		errs = append(errs, field.Required(field.NewPath("GPUNodePoolArgs.ClusterName"), "the AKS cluster name"))
	}
	if err := errs.ToAggregate(); err != nil {
		return nil, err
	}

	p := &GPUNodePool{Spec: spec}
	if err := ctx.RegisterComponentResource(ComponentType, name, p, opts...); err != nil {
		return nil, err
	}
	if spec.GPUStack == GPUStackDriverOnly {
		poolArgs := AgentPoolArgs(spec, args.ResourceGroupName, args.ClusterName, args.Tags)
		if args.Transform != nil {
			args.Transform(poolArgs)
		}
		pool, err := containerservice.NewAgentPool(ctx, name+"-pool", poolArgs,
			pulumi.Parent(p),
			pulumi.IgnoreChanges([]string{"count"}),
			pulumi.ReplaceOnChanges(immutableProperties),
			pulumi.DeleteBeforeReplace(true))
		if err != nil {
			return nil, err
		}
		p.Name = pool.Name
		p.ResourceID = pool.ID().ToStringOutput()
	} else {
		props := TemplateProperties(spec, args.Tags)
		if args.PropertiesTransform != nil {
			args.PropertiesTransform(props)
		}
		stack, err := armdeploy.NewTemplateStack(ctx, name+"-pool", &armdeploy.Args{
			ResourceGroupName: args.ResourceGroupName,
			Template:          PoolTemplate(props),
			Parameters:        map[string]any{"clusterName": args.ClusterName, "poolName": spec.Name},
			Description:       fmt.Sprintf("aksml GPU node pool %s (%s GPU stack)", spec.Name, spec.GPUStack),
			Tags:              args.Tags,
		}, pulumi.Parent(p))
		if err != nil {
			return nil, err
		}
		p.Name = armdeploy.OutputString(stack, "poolName")
		p.ResourceID = armdeploy.OutputString(stack, "poolId")
	}

	discount := 0.0
	if spec.IsSpot() {
		discount = SpotDiscount
	}
	p.VMSize = pulumi.String(spec.VMSize).ToStringOutput()
	p.GPUStack = pulumi.String(string(spec.GPUStack)).ToStringOutput()
	p.MaxGPUs = pulumi.Int(spec.MaxGPUs()).ToIntOutput()
	p.IdleCostPerHour = pulumi.Float64(spec.IdleCostPerHour()).ToFloat64Output()
	p.MaxCostPerHour = pulumi.Float64(spec.MaxCostPerHour()).ToFloat64Output()
	p.SpotDiscount = pulumi.Float64(discount).ToFloat64Output()
	if err := ctx.RegisterResourceOutputs(p, pulumi.Map{
		"name":            p.Name,
		"resourceId":      p.ResourceID,
		"vmSize":          p.VMSize,
		"gpuStack":        p.GPUStack,
		"maxGPUs":         p.MaxGPUs,
		"idleCostPerHour": p.IdleCostPerHour,
		"maxCostPerHour":  p.MaxCostPerHour,
		"spotDiscount":    p.SpotDiscount,
	}); err != nil {
		return nil, err
	}
	return p, nil
}

// AgentPoolArgs maps a defaulted, valid DriverOnly spec to the typed
// AgentPool arguments: mode User, autoscaler on from minCount to maxCount,
// initial count minCount (seed 000 `--node-count 0`), the pool's labels and
// taints, zones, OS disk, spot settings and the MIG instance profile.
func AgentPoolArgs(s Spec, resourceGroupName, clusterName pulumi.StringInput, tags map[string]string) *containerservice.AgentPoolArgs {
	a := &containerservice.AgentPoolArgs{
		ResourceGroupName: resourceGroupName,
		ResourceName:      clusterName,
		AgentPoolName:     pulumi.String(s.Name),
		Mode:              pulumi.String(PoolMode),
		Type:              pulumi.String(PoolType),
		OsType:            pulumi.String(PoolOSType),
		VmSize:            pulumi.String(s.VMSize),
		EnableAutoScaling: pulumi.Bool(true),
		MinCount:          pulumi.Int(s.Min()),
		MaxCount:          pulumi.Int(s.MaxCount),
		Count:             pulumi.Int(s.Min()),
		NodeLabels:        pulumi.ToStringMap(s.Labels()),
		NodeTaints:        pulumi.ToStringArray(s.TaintStrings()),
		OsDiskSizeGB:      pulumi.Int(s.OSDiskSizeGB),
	}
	if len(s.Zones) > 0 {
		a.AvailabilityZones = pulumi.ToStringArray(s.Zones)
	}
	if s.IsSpot() {
		a.ScaleSetPriority = pulumi.String(string(PrioritySpot))
		a.ScaleSetEvictionPolicy = pulumi.String(SpotEvictionPolicy)
		a.SpotMaxPrice = pulumi.Float64(SpotMaxPrice)
	}
	if s.MIGEnabled() {
		a.GpuInstanceProfile = pulumi.String(string(s.MIG.Profile))
	}
	if len(tags) > 0 {
		a.Tags = pulumi.ToStringMap(tags)
	}
	return a
}

// TemplateProperties returns the ARM `properties` of a Managed or None pool
// at AgentPoolAPIVersion: the same settings as AgentPoolArgs plus
// gpuProfile — {driver: Install, nvidia: {managementMode: Managed,
// migStrategy}} for Managed, {driver: None} for None (seed 002).
func TemplateProperties(s Spec, tags map[string]string) map[string]any {
	props := map[string]any{
		"mode":              PoolMode,
		"type":              PoolType,
		"osType":            PoolOSType,
		"vmSize":            s.VMSize,
		"enableAutoScaling": true,
		"minCount":          s.Min(),
		"maxCount":          s.MaxCount,
		"count":             s.Min(),
		"nodeLabels":        s.Labels(),
		"nodeTaints":        s.TaintStrings(),
		"osDiskSizeGB":      s.OSDiskSizeGB,
	}
	if len(s.Zones) > 0 {
		props["availabilityZones"] = append([]string(nil), s.Zones...)
	}
	if s.IsSpot() {
		props["scaleSetPriority"] = string(PrioritySpot)
		props["scaleSetEvictionPolicy"] = SpotEvictionPolicy
		props["spotMaxPrice"] = SpotMaxPrice
	}
	if s.MIGEnabled() {
		props["gpuInstanceProfile"] = string(s.MIG.Profile)
	}
	switch s.GPUStack {
	case GPUStackManaged:
		strategy := MIGStrategyNone
		if s.MIG != nil && s.MIG.Strategy != "" {
			strategy = s.MIG.Strategy
		}
		props["gpuProfile"] = map[string]any{
			"driver": GPUDriverInstall,
			"nvidia": map[string]any{
				"managementMode": ManagementModeManaged,
				"migStrategy":    string(strategy),
			},
		}
	case GPUStackNone:
		props["gpuProfile"] = map[string]any{"driver": GPUDriverNone}
	}
	if len(tags) > 0 {
		props["tags"] = tags
	}
	return props
}

// PoolTemplate returns the ARM template that deploys one agent pool with
// props into the cluster named by parameter clusterName, under the name in
// parameter poolName, and outputs poolId and poolName.
func PoolTemplate(props map[string]any) map[string]any {
	const poolType = "Microsoft.ContainerService/managedClusters/agentPools"
	return armdeploy.Template(
		[]map[string]any{{
			"type":       poolType,
			"apiVersion": AgentPoolAPIVersion,
			"name":       "[format('{0}/{1}', parameters('clusterName'), parameters('poolName'))]",
			"properties": props,
		}},
		map[string]any{
			"poolId":   armdeploy.Output("string", fmt.Sprintf("[resourceId('%s', parameters('clusterName'), parameters('poolName'))]", poolType)),
			"poolName": armdeploy.Output("string", "[parameters('poolName')]"),
		},
	)
}

func cloneInt(p *int) *int {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
