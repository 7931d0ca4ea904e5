package gpupool

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	containerservice "github.com/pulumi/pulumi-azure-native-sdk/containerservice/v2/v20241001"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/armdeploy"
	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/vocab"
)

// ComponentType is the Pulumi type token of GPUNodePools.
const ComponentType = "aksml:gpupool:GPUNodePools"

// DefaultConfigPath is the error-path root of the pools when the caller
// gives no ConfigPath. It carries no program's config namespace: the aksml
// program passes `aksml:gpuPools`.
const DefaultConfigPath = "gpuPools"

// Values the pools are created with (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops), AKS-managed GPU nodes (https://learn.microsoft.com/azure/aks/aks-managed-gpu-nodes), SPEC C2).
const (
	// PoolMode is User: GPU pools never run system pods.
	PoolMode = "User"
	// PoolOSType is Linux (AKS-managed GPU nodes: Windows GPU pools are out of scope).
	PoolOSType = "Linux"
	// PoolType is VirtualMachineScaleSets, required by the autoscaler.
	PoolType = "VirtualMachineScaleSets"
	// SpotEvictionPolicy is Delete (SPEC C2 `--eviction-policy Delete`).
	SpotEvictionPolicy = "Delete"
	// SpotMaxPrice is -1: pay up to the on-demand price, never evicted for
	// price (SPEC C2 `--spot-max-price -1`).
	SpotMaxPrice = -1.0
	// AgentPoolResourceType is the ARM type of an AKS agent pool.
	AgentPoolResourceType = vocab.AgentPoolResourceType
	// AgentPoolAPIVersion is the AKS API of the template pools: the version
	// whose published spec carries gpuProfile.driver and gpuProfile.nvidia
	// {managementMode, migStrategy} in every revision
	// (Azure/azure-rest-api-specs
	// specification/containerservice/resource-manager/Microsoft.ContainerService/aks/preview/2026-02-02-preview/managedClusters.json,
	// definitions GPUProfile, NvidiaGPUProfile, ManagementMode). An older
	// revision of 2026-01-02-preview lacks gpuProfile.nvidia, so that
	// version is ambiguous. The typed SDK's newest GA is 2024-10-01, which
	// has no gpuProfile at all.
	AgentPoolAPIVersion = "2026-02-02-preview"
	// ClusterNameParameter is the template parameter that names the cluster
	// the template's pools join.
	ClusterNameParameter = "clusterName"
	// NodeSubnetParameter is the template parameter holding the node subnet
	// ID (vnetSubnetID of every template pool), when one is given.
	NodeSubnetParameter = "nodeSubnetId"
	// GPUDriverInstall and GPUDriverNone are the values of gpuProfile.driver.
	GPUDriverInstall = "Install"
	GPUDriverNone    = "None"
	// ManagementModeManaged is gpuProfile.nvidia.managementMode of Managed
	// pools: AKS installs the driver, device plugin and DCGM exporter.
	ManagementModeManaged = "Managed"
	// ManagementModeUnmanaged is gpuProfile.nvidia.managementMode of None
	// pools, stated rather than left to the API default (enum
	// ManagementMode: Unmanaged, Managed).
	ManagementModeUnmanaged = "Unmanaged"
)

// StackDescription is the description of the shared deployment stack, shown
// in the Azure portal next to the pools it holds.
const StackDescription = "aksml GPU node pools with gpuStack Managed or None (AKS API " + AgentPoolAPIVersion +
	"). A pool removed from this template is deleted; deleting the stack itself detaches its pools, so empty the template first."

// immutableProperties are the pool properties AKS fixes at creation; a
// change to one replaces the typed pool (delete first: the name is fixed).
var immutableProperties = []string{
	"vmSize", "gpuInstanceProfile", "scaleSetPriority", "scaleSetEvictionPolicy",
	"availabilityZones", "osDiskSizeGB", "osType", "osSKU", "agentPoolName", "resourceName",
	// AKS sets a pool's subnet at creation only (hashicorp/terraform-provider-azurerm#8662).
	"vnetSubnetID",
}

// GPUNodePoolsArgs configures the GPU node pools of one AKS cluster.
type GPUNodePoolsArgs struct {
	// Pools are the pools, in config order, resolved once by Resolve
	// (defaults on copies, one validation), which is given the config key
	// the specs were read from for its errors (`<key>[i].<field>`). Their
	// Problems are reported here, before anything is registered; nothing
	// is validated again. Empty is valid: the shared template stack is
	// still registered (see the package doc for why).
	Pools []Resolved
	// ResourceGroupName is the cluster's resource group; the shared
	// template stack is created there too. Required.
	ResourceGroupName pulumi.StringInput
	// ClusterName is the AKS cluster the pools join. Required. Pass the
	// cluster's Name output so that the pools wait for the cluster.
	ClusterName pulumi.StringInput
	// Tags are put on every pool's scale set and on the template stack; a
	// MIG pool's scale set also gets its ScaleFromZeroTags.
	Tags map[string]string
	// Transform may change the typed provider arguments of a DriverOnly
	// pool before it is registered (escape hatch). It gets the defaulted
	// spec of the pool.
	Transform func(Spec, *containerservice.AgentPoolArgs)
	// NodeSubnetID is the subnet (ARM ID) every pool joins (vnetSubnetID):
	// the cluster's node subnet, e.g. network.Network.NodeSubnetID. Default
	// nil: the pools join the VNet AKS generated for the cluster.
	NodeSubnetID pulumi.StringInput
	// PropertiesTransform may change the ARM `properties` of a Managed or
	// None pool before they go into the shared template (escape hatch). It
	// gets the defaulted spec of the pool.
	PropertiesTransform func(Spec, map[string]any)
}

// GPUNodePools is the set of GPU user node pools of one AKS cluster: a typed
// AgentPool per DriverOnly pool and one deployment stack holding every
// Managed and None pool.
type GPUNodePools struct {
	pulumi.ResourceState

	// Pools are the pools by name, each with its flat outputs.
	Pools map[string]*GPUNodePool
	// StackName is the Azure name of the shared deployment stack of the
	// Managed and None pools (`<name>-stack`).
	StackName pulumi.StringOutput `pulumi:"stackName"`
	// StackResourceID is the Azure resource ID of that deployment stack.
	StackResourceID pulumi.StringOutput `pulumi:"stackResourceID"`
}

// GPUNodePool holds the outputs of one pool of a GPUNodePools.
type GPUNodePool struct {
	// Spec is the defaulted, validated pool spec. Capacity, node-count
	// bounds and the GPU resource are the resolved pool's (Resolved).
	Spec Spec

	// Name is the AKS pool name (the `kubernetes.azure.com/agentpool`
	// label of its nodes), known once the pool is deployed.
	Name pulumi.StringOutput
	// ResourceID is the Azure resource ID of the agent pool.
	ResourceID pulumi.StringOutput
	// VMSize is the pool's VM size.
	VMSize pulumi.StringOutput
	// GPUStack is Managed, DriverOnly or None.
	GPUStack pulumi.StringOutput
	// MaxGPUs is the node ceiling (maxCount, or count on a Managed pool)
	// × GPUs per node.
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

// Summary is the pool's outputs a stack exports per pool (the program's
// `gpuPools` output): resource ID, VM size, GPU stack, GPU ceiling and
// indicative costs. The component's own outputs (Outputs) add the name and
// the spot discount.
func (p *GPUNodePool) Summary() pulumi.Map {
	return pulumi.Map{
		"resourceId":      p.ResourceID,
		"vmSize":          p.VMSize,
		"gpuStack":        p.GPUStack,
		"maxGPUs":         p.MaxGPUs,
		"idleCostPerHour": p.IdleCostPerHour,
		"maxCostPerHour":  p.MaxCostPerHour,
	}
}

// Outputs is every output of the pool, as the component registers it
// under `pools.<name>`: Summary plus its name and spot discount.
func (p *GPUNodePool) Outputs() pulumi.Map {
	m := p.Summary()
	m["name"] = p.Name
	m["spotDiscount"] = p.SpotDiscount
	return m
}

// NewGPUNodePools resolves every pool (or takes args.Resolved as it is),
// then registers a typed AgentPool
// (API 2024-10-01) per DriverOnly pool and one deployment stack,
// `<name>-stack`, whose ARM template (API 2026-01-02-preview) holds every
// Managed and None pool. The stack is registered even when it holds no
// pool. Nothing is registered when a pool or an argument is invalid.
//
// Register exactly one GPUNodePools per cluster, on every run for as long
// as the cluster exists, even with no pools: removing it (or its last
// template pool together with it) deletes the stack, which azure-native
// v2.88.0 does by detaching, not deleting, the pools it held.
func NewGPUNodePools(ctx *pulumi.Context, name string, args *GPUNodePoolsArgs, opts ...pulumi.ResourceOption) (*GPUNodePools, error) {
	if args == nil {
		return nil, errors.New("gpupool: args are required")
	}
	errs := Problems(args.Pools)
	specs := Specs(args.Pools)
	if args.ResourceGroupName == nil {
		errs = append(errs, field.Required(field.NewPath("GPUNodePoolsArgs.ResourceGroupName"), "the cluster's resource group"))
	}
	if args.ClusterName == nil {
		errs = append(errs, field.Required(field.NewPath("GPUNodePoolsArgs.ClusterName"), "the AKS cluster name"))
	}
	if err := errs.ToAggregate(); err != nil {
		return nil, err
	}

	poolArgs := map[string]*containerservice.AgentPoolArgs{}
	templatePools := map[string]map[string]any{}
	for _, s := range specs {
		if s.GPUStack == GPUStackDriverOnly {
			a := AgentPoolArgs(s, args.ResourceGroupName, args.ClusterName, args.Tags)
			if args.NodeSubnetID != nil {
				a.VnetSubnetID = args.NodeSubnetID
			}
			if args.Transform != nil {
				args.Transform(s, a)
			}
			poolArgs[s.Name] = a
			continue
		}
		props := TemplateProperties(s, args.Tags)
		if args.NodeSubnetID != nil {
			props["vnetSubnetID"] = fmt.Sprintf("[parameters('%s')]", NodeSubnetParameter)
		}
		if args.PropertiesTransform != nil {
			args.PropertiesTransform(s, props)
		}
		templatePools[s.Name] = props
	}
	stackName := name + "-stack"
	parameters := map[string]any{ClusterNameParameter: args.ClusterName}
	if args.NodeSubnetID != nil {
		parameters[NodeSubnetParameter] = args.NodeSubnetID
	}
	stackArgs, err := armdeploy.StackArgs(stackName, &armdeploy.Args{
		ResourceGroupName: args.ResourceGroupName,
		Template:          PoolsTemplate(templatePools),
		Parameters:        parameters,
		Description:       StackDescription,
		Tags:              args.Tags,
	})
	if err != nil {
		return nil, err
	}

	c := &GPUNodePools{Pools: map[string]*GPUNodePool{}}
	if err := ctx.RegisterComponentResource(ComponentType, name, c, opts...); err != nil {
		return nil, err
	}
	if len(templatePools) > 0 && hasManaged(specs) {
		_ = ctx.Log.Info("gpuStack Managed pools are an AKS preview: register the "+ManagedGPUFeature+
			" feature on the subscription first (az feature register --namespace Microsoft.ContainerService --name ManagedGPUExperiencePreview)", &pulumi.LogArgs{Resource: c})
	}

	// AKS refuses a second agent-pool operation on a cluster while one
	// runs (409 OperationNotAllowed), so pool writes are serial: the typed
	// pools in config order, each depending on the one before, then the
	// template stack after the last of them; inside the template each pool
	// depends on the one before (PoolsTemplate).
	typed := map[string]*containerservice.AgentPool{}
	var previous pulumi.Resource
	for _, s := range specs {
		a, ok := poolArgs[s.Name]
		if !ok {
			continue
		}
		// No IgnoreChanges on count: Pulumi would put the stored count back
		// into every update body (AgentPoolArgs sends none).
		poolOpts := []pulumi.ResourceOption{
			pulumi.Parent(c),
			pulumi.ReplaceOnChanges(immutableProperties),
			pulumi.DeleteBeforeReplace(true),
		}
		if previous != nil {
			poolOpts = append(poolOpts, pulumi.DependsOn([]pulumi.Resource{previous}))
		}
		pool, err := containerservice.NewAgentPool(ctx, name+"-"+s.Name, a, poolOpts...)
		if err != nil {
			return nil, err
		}
		typed[s.Name] = pool
		previous = pool
	}
	stackOpts := []pulumi.ResourceOption{pulumi.Parent(c)}
	if previous != nil {
		stackOpts = append(stackOpts, pulumi.DependsOn([]pulumi.Resource{previous}))
	}
	stack, err := armdeploy.RegisterStack(ctx, stackName, stackArgs, stackOpts...)
	if err != nil {
		return nil, err
	}
	c.StackName = stack.Name
	c.StackResourceID = stack.ID().ToStringOutput()

	outputs := pulumi.Map{}
	for _, s := range specs {
		var poolName, resourceID pulumi.StringOutput
		if pool, ok := typed[s.Name]; ok {
			poolName, resourceID = pool.Name, pool.ID().ToStringOutput()
		} else {
			resourceID = armdeploy.OutputString(stack, poolIDOutput(s.Name))
			poolName = resourceID.ApplyT(func(string) string { return s.Name }).(pulumi.StringOutput)
		}
		p := poolOutputs(s, poolName, resourceID)
		c.Pools[s.Name] = p
		outputs[s.Name] = p.Outputs()
	}
	if err := ctx.RegisterResourceOutputs(c, pulumi.Map{
		"pools":           outputs,
		"stackName":       c.StackName,
		"stackResourceId": c.StackResourceID,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// poolOutputs returns the flat outputs of the pool s, deployed under
// poolName with resourceID.
func poolOutputs(s Spec, poolName, resourceID pulumi.StringOutput) *GPUNodePool {
	discount := 0.0
	if s.IsSpot() {
		discount = SpotDiscount
	}
	return &GPUNodePool{
		Spec:            s,
		Name:            poolName,
		ResourceID:      resourceID,
		VMSize:          pulumi.String(s.VMSize).ToStringOutput(),
		GPUStack:        pulumi.String(string(s.GPUStack)).ToStringOutput(),
		MaxGPUs:         pulumi.Int(s.maxGPUs()).ToIntOutput(),
		IdleCostPerHour: pulumi.Float64(s.IdleCostPerHour()).ToFloat64Output(),
		MaxCostPerHour:  pulumi.Float64(s.MaxCostPerHour()).ToFloat64Output(),
		SpotDiscount:    pulumi.Float64(discount).ToFloat64Output(),
	}
}

// AgentPoolArgs maps a defaulted, valid DriverOnly spec to the typed
// AgentPool arguments: mode User, autoscaler on from minCount to maxCount,
// the pool's labels and taints, zones, OS disk, spot settings and the MIG
// instance profile. It sends no count: azure-native PUTs the whole body
// on every update, and a count that differs from what the autoscaler chose
// is refused or resets the pool ("Cannot manually scale AgentPool ... with
// cluster autoscaler enabled", hashicorp/terraform-provider-azurerm#4543);
// count is optional on update (Azure/azure-rest-api-specs#7746), and the
// Azure Verified Module for AKS sends none when minCount and maxCount are
// set (Azure/terraform-azurerm-avm-res-containerservice-managedcluster
// modules/agentpool/locals.tf), the same as TemplateProperties.
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
		MinCount:          pulumi.Int(s.minNodes()),
		MaxCount:          pulumi.Int(s.MaxCount),
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
	if os := s.sentOSSKU(); os != "" {
		a.OsSKU = pulumi.String(os)
	}
	if tags := poolTags(s, tags); len(tags) > 0 {
		a.Tags = pulumi.ToStringMap(tags)
	}
	return a
}

// TemplateProperties returns the ARM `properties` of a Managed or None pool
// at AgentPoolAPIVersion: the same settings as AgentPoolArgs plus
// gpuProfile — {driver: Install, nvidia: {managementMode: Managed,
// migStrategy}} for Managed, {driver: None, nvidia: {managementMode:
// Unmanaged}} for None (AKS-managed GPU nodes). A Managed pool runs exactly Count nodes
// with the autoscaler off (the autoscaler is not supported on managed GPU
// pools in preview); a None pool is autoscaled between minCount and
// maxCount and sends no count, so a stack update never resets the node
// count the autoscaler chose (the Azure Verified Module for AKS sends no
// count when min/max are set).
func TemplateProperties(s Spec, tags map[string]string) map[string]any {
	props := map[string]any{
		"mode":         PoolMode,
		"type":         PoolType,
		"osType":       PoolOSType,
		"vmSize":       s.VMSize,
		"nodeLabels":   s.Labels(),
		"nodeTaints":   s.TaintStrings(),
		"osDiskSizeGB": s.OSDiskSizeGB,
	}
	if s.IsManaged() {
		props["enableAutoScaling"] = false
		props["count"] = s.fixedCount()
	} else {
		props["enableAutoScaling"] = true
		props["minCount"] = s.minNodes()
		props["maxCount"] = s.MaxCount
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
	if os := s.sentOSSKU(); os != "" {
		props["osSKU"] = os
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
		props["gpuProfile"] = map[string]any{
			"driver": GPUDriverNone,
			"nvidia": map[string]any{"managementMode": ManagementModeUnmanaged},
		}
	}
	if tags := poolTags(s, tags); len(tags) > 0 {
		props["tags"] = tags
	}
	return props
}

// PoolsTemplate returns the ARM template of the shared stack: one
// agentPools resource per entry of pools (pool name → ARM properties, see
// TemplateProperties), sorted by pool name so that the order of the config
// list never shows as a change, in the cluster named by parameter
// clusterName; and per pool an output `<pool>Id` with its resource ID.
// With no pools it is a valid template that deploys nothing.
func PoolsTemplate(pools map[string]map[string]any) map[string]any {
	names := slices.Sorted(maps.Keys(pools))
	res := make([]map[string]any, 0, len(names))
	outputs := map[string]any{}
	for i, n := range names {
		r := map[string]any{
			"type":       AgentPoolResourceType,
			"apiVersion": AgentPoolAPIVersion,
			"name":       fmt.Sprintf("[format('{0}/{1}', parameters('%s'), '%s')]", ClusterNameParameter, n),
			"properties": pools[n],
		}
		if i > 0 {
			// One pool write at a time: ARM deploys template resources in
			// parallel unless dependsOn orders them.
			r["dependsOn"] = []string{poolResourceID(names[i-1])}
		}
		res = append(res, r)
		outputs[poolIDOutput(n)] = armdeploy.Output("string", poolResourceID(n))
	}
	tpl := armdeploy.Template(res, outputs)
	tpl["parameters"] = map[string]any{ClusterNameParameter: armdeploy.Param("string")}
	return tpl
}

// poolResourceID is the ARM expression of the resource ID of template pool
// name in the cluster named by parameter clusterName.
func poolResourceID(name string) string {
	return fmt.Sprintf("[resourceId('%s', parameters('%s'), '%s')]", AgentPoolResourceType, ClusterNameParameter, name)
}

// hasManaged reports whether any pool is a gpuStack Managed pool.
func hasManaged(specs []Spec) bool {
	return slices.ContainsFunc(specs, Spec.IsManaged)
}

// poolIDOutput is the template output holding the resource ID of pool name.
func poolIDOutput(name string) string { return name + "Id" }

// defaulted returns a defaulted copy of s that shares no pointer with it.
func defaulted(s Spec) Spec {
	if s.MinCount != nil {
		v := *s.MinCount
		s.MinCount = &v
	}
	if s.Count != nil {
		v := *s.Count
		s.Count = &v
	}
	if s.MIG != nil {
		mig := *s.MIG
		s.MIG = &mig
	}
	s.Default()
	return s
}
