package rules

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/vocab"
)

// Azure shapes the pool extraction reads.
const (
	// ARMAgentPoolType is the ARM type of an AKS node pool inside a template.
	ARMAgentPoolType = vocab.AgentPoolResourceType
	// ManagedMode is gpuProfile.nvidia.managementMode of a pool whose GPU
	// stack (driver, device plugin, DCGM exporter) AKS manages (AKS-managed GPU nodes (https://learn.microsoft.com/azure/aks/aks-managed-gpu-nodes)).
	ManagedMode = "Managed"
	// SpotPriority is scaleSetPriority of a spot pool.
	SpotPriority = "Spot"
)

// Pool is one AKS node pool of the desired state, whichever resource
// declares it: an `azure-native:containerservice:AgentPool`, an agent pool
// profile inline in a ManagedCluster, or a
// `Microsoft.ContainerService/managedClusters/agentPools` resource in the ARM
// template of a deployment stack (how Managed GPU pools are created, C2.3).
// This is the one place that knows those shapes.
type Pool struct {
	// Name is the AKS pool name.
	Name string
	// Cluster and ResourceGroup are the names of the cluster the pool
	// belongs to and of its resource group ("" when not known).
	Cluster, ResourceGroup string
	// Resource is the Pulumi resource that declares the pool.
	Resource Resource
	// VMSize is the VM size, e.g. Standard_NC24ads_A100_v4.
	VMSize string
	// Mode is System or User ("" when unset: AKS defaults to User).
	Mode string
	// AutoScaling is enableAutoScaling.
	AutoScaling bool
	// MinCount, MaxCount and Count are nil when unset or not known.
	MinCount, MaxCount, Count *int
	// Taints are nodeTaints as key=value:Effect.
	Taints []string
	// Labels are nodeLabels as declared.
	Labels map[string]string
	// Priority is scaleSetPriority: Spot or Regular ("" = Regular).
	Priority string
	// EvictionPolicy is scaleSetEvictionPolicy (Delete or Deallocate).
	EvictionPolicy string
	// SpotMaxPrice is spotMaxPrice; nil when unset.
	SpotMaxPrice *float64
	// GPUInstanceProfile is the MIG instance profile (MIG1g..MIG7g).
	GPUInstanceProfile string
	// MIGStrategy is gpuProfile.nvidia.migStrategy (None, Single, Mixed).
	MIGStrategy string
	// ManagementMode is gpuProfile.nvidia.managementMode (Managed or
	// Unmanaged).
	ManagementMode string
	// Zones are the availability zones.
	Zones []string
	// MaxPods is maxPods; nil when unset (AKS's default applies).
	MaxPods *int
	// Unknown lists the properties whose values are not known before
	// deployment (rules do not report on them).
	Unknown []string
	// InTemplate is true for an agentPools resource of an ARM template
	// (deployment stack or deployment), which ARM writes on every update
	// of the template.
	InTemplate bool
	// DependsOn are the names the template resource's dependsOn entries
	// end in (the pool of a resourceId(...) expression or resource ID);
	// only set when InTemplate.
	DependsOn []string
	// Props are the pool's properties as declared (the agentPoolProfiles
	// entry, the AgentPool inputs, or the template resource's properties
	// with its parameters evaluated), for readers that need a property
	// the fields above do not carry.
	Props map[string]any
}

// IsUnknown reports whether the property is not known before deployment.
func (p Pool) IsUnknown(property string) bool { return slices.Contains(p.Unknown, property) }

// IsGPU reports whether the pool runs NVIDIA GPU VMs (N-series sizes).
func (p Pool) IsGPU() bool { return isGPUSize(p.VMSize) }

// IsSpot reports whether the pool runs on spot capacity.
func (p Pool) IsSpot() bool { return strings.EqualFold(p.Priority, SpotPriority) }

// IsManaged reports whether AKS manages the pool's GPU stack.
func (p Pool) IsManaged() bool { return strings.EqualFold(p.ManagementMode, ManagedMode) }

// MIGEnabled reports whether the pool partitions its GPUs with MIG.
func (p Pool) MIGEnabled() bool {
	return p.GPUInstanceProfile != "" || (p.MIGStrategy != "" && !strings.EqualFold(p.MIGStrategy, "None"))
}

// NodeLabels are the labels the pool's nodes carry: the declared ones plus
// those AKS adds (agent pool name; scale set priority on spot).
func (p Pool) NodeLabels() map[string]string {
	l := map[string]string{}
	for k, v := range p.Labels {
		l[k] = v
	}
	l[gpupool.AgentPoolLabel] = p.Name
	if p.IsSpot() {
		l[gpupool.SpotTaintKey] = gpupool.SpotTaintValue
	}
	return l
}

// NodeTaints are the taints the pool's nodes carry: the declared ones plus
// the spot taint AKS adds to spot pools.
func (p Pool) NodeTaints() []string {
	out := append([]string(nil), p.Taints...)
	spot := gpupool.SpotTaintKey + "=" + gpupool.SpotTaintValue + ":" + gpupool.GPUTaintEffect
	if p.IsSpot() && !slices.Contains(out, spot) {
		out = append(out, spot)
	}
	return out
}

// GPUsPerNode is the catalogue's GPU count of the pool's VM size, 0 when
// the size is not in the catalogue.
func (p Pool) GPUsPerNode() int {
	sku, _ := gpupool.LookupSKU(p.VMSize)
	return sku.GPUsPerNode
}

// Ceiling is the most nodes the pool runs: maxCount, or count for a pool
// without the autoscaler (AKS-managed GPU pools). nil when not known.
func (p Pool) Ceiling() *int {
	if p.MaxCount == nil && !p.AutoScaling {
		return p.Count
	}
	return p.MaxCount
}

// Capacity is how many units of NVIDIA resources (GPUs, or MIG instances
// on a MIG pool) the pool offers at Ceiling: nodes × GPUs/node, times the
// instances per GPU of its MIG profile. ok is false when the ceiling, the
// size or the profile is not known.
func (p Pool) Capacity() (units int, ok bool) {
	if p.Ceiling() == nil || p.GPUsPerNode() == 0 {
		return 0, false
	}
	units = *p.Ceiling() * p.GPUsPerNode()
	if p.GPUInstanceProfile != "" {
		_, perGPU := p.migSpec().MIGDevicesPerGPU()
		if perGPU == 0 {
			return 0, false
		}
		units *= perGPU
	}
	return units, true
}

// capacityText explains Capacity in messages: "gpua100 4 × 1 GPU".
func (p Pool) capacityText() string {
	text := fmt.Sprintf("%s %d × %d GPU", p.Name, *p.Ceiling(), p.GPUsPerNode())
	if p.GPUInstanceProfile != "" {
		_, perGPU := p.migSpec().MIGDevicesPerGPU()
		text += fmt.Sprintf(" × %d %s instances", perGPU, p.GPUInstanceProfile)
	}
	return text
}

// migSpec is the pool's MIG setting in the gpupool catalogue's terms.
func (p Pool) migSpec() gpupool.Spec {
	return gpupool.Spec{VMSize: p.VMSize, MIG: &gpupool.MIGSpec{Strategy: gpupool.MIGStrategyMixed, Profile: gpupool.MIGProfile(p.GPUInstanceProfile)}}
}

// Describe names the pool in messages.
func (p Pool) Describe() string {
	if _, kind := azureType(p.Resource); kind == "AgentPool" {
		return "AgentPool " + p.Name
	}
	return fmt.Sprintf("pool %s (in %s)", p.Name, describe(p.Resource))
}

// isGPUSize reports whether vmSize is an N-series (GPU) size.
func isGPUSize(vmSize string) bool {
	if _, ok := gpupool.LookupSKU(vmSize); ok {
		return true
	}
	return strings.HasPrefix(strings.ToLower(vmSize), "standard_n")
}

// azureType splits an azure-native type token into module (without API
// version) and resource type: `azure-native:containerservice/v20240901:AgentPool`
// gives ("containerservice", "AgentPool").
func azureType(r Resource) (module, kind string) {
	parts := strings.Split(r.Type, ":")
	if len(parts) != 3 || parts[0] != "azure-native" {
		return "", ""
	}
	module, _, _ = strings.Cut(parts[1], "/")
	return module, parts[2]
}

// poolsOf returns the node pools r declares.
func poolsOf(r Resource) []Pool {
	switch module, kind := azureType(r); {
	case module == "containerservice" && kind == "AgentPool":
		name := str(r.Inputs["agentPoolName"])
		if name == "" {
			name = str(r.Inputs["name"])
		}
		if name == "" {
			name = r.Name
		}
		p := poolFromProperties(r, name, r.Inputs)
		p.Cluster, p.ResourceGroup = str(r.Inputs["resourceName"]), str(r.Inputs["resourceGroupName"])
		return []Pool{p}
	case module == "containerservice" && kind == "ManagedCluster":
		var out []Pool
		cluster := str(r.Inputs["resourceName"])
		if cluster == "" {
			cluster = r.Name
		}
		for _, p := range listOf(r.Inputs["agentPoolProfiles"]) {
			pm := mapOf(p)
			pool := poolFromProperties(r, str(pm["name"]), pm)
			pool.Cluster, pool.ResourceGroup = cluster, str(r.Inputs["resourceGroupName"])
			out = append(out, pool)
		}
		return out
	case module == "resources" && strings.HasPrefix(kind, "DeploymentStack"),
		module == "resources" && kind == "Deployment":
		return templatePools(r)
	}
	return nil
}

// AgentPools returns every node pool of the stack, whichever resource
// declares it (Pool), in registration order. It is the one reader of
// agent pools from a synthesised desired state: the guardrails and the
// real-cluster tier's simulated nodes (tests/cluster) read pools through it.
func AgentPools(s *Stack) []Pool {
	var out []Pool
	for _, r := range s.Resources {
		out = append(out, poolsOf(r)...)
	}
	return out
}

// gpuPools returns every GPU node pool of the stack, in registration order.
func gpuPools(s *Stack) []Pool {
	var out []Pool
	for _, p := range AgentPools(s) {
		if p.IsGPU() {
			out = append(out, p)
		}
	}
	return out
}

// templatePools reads the agent pools out of an ARM template (inputs
// `template` and `parameters`, as the deployment stack and deployment
// resources take them).
func templatePools(r Resource) []Pool {
	template, params := armTemplate(r)
	var resources []any
	switch rs := template["resources"].(type) {
	case []any:
		resources = rs
	case map[string]any:
		for _, k := range sortedKeys(rs) {
			resources = append(resources, rs[k])
		}
	}
	var out []Pool
	for _, res := range resources {
		rm := mapOf(res)
		if !strings.EqualFold(str(rm["type"]), ARMAgentPoolType) {
			continue
		}
		props := mapOf(resolveARM(rm["properties"], params))
		p := poolFromProperties(r, armPoolName(rm["name"], params), props)
		p.InTemplate = true
		if full := armName(rm["name"], params); strings.Count(full, "/") == 1 {
			p.Cluster, _, _ = strings.Cut(full, "/")
			p.ResourceGroup = str(r.Inputs["resourceGroupName"])
		}
		for _, d := range listOf(rm["dependsOn"]) {
			p.DependsOn = append(p.DependsOn, armPoolName(d, params))
		}
		out = append(out, p)
	}
	return out
}

// armTemplate returns the ARM template a deployment stack or deployment
// carries and its parameter values merged with the template's defaults.
func armTemplate(r Resource) (template, params map[string]any) {
	template = mapOf(decodeJSON(r.Inputs["template"]))
	if template == nil {
		template = mapOf(decodeJSON(get(r.Inputs, "properties.template")))
	}
	return template, ARMParameters(template, mapOf(decodeJSON(r.Inputs["parameters"])))
}

// ARMParameters merges template parameter defaults with the values passed
// to the deployment ({name: {value: ...}} or plain values).
func ARMParameters(template, values map[string]any) map[string]any {
	out := map[string]any{}
	for name, decl := range mapOf(template["parameters"]) {
		if d, ok := mapOf(decl)["defaultValue"]; ok {
			out[name] = d
		}
	}
	for name, v := range values {
		if vm := mapOf(v); vm != nil {
			if inner, ok := vm["value"]; ok {
				out[name] = inner
				continue
			}
		}
		out[name] = v
	}
	return out
}

var armParameterRef = regexp.MustCompile(`parameters\('([^']+)'\)`)

// resolveARM replaces ARM expressions that are exactly "[parameters('x')]"
// with the parameter's value, recursively. Other expressions stay as they
// are.
func resolveARM(v any, params map[string]any) any {
	switch t := v.(type) {
	case string:
		if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
			inner := strings.TrimSpace(t[1 : len(t)-1])
			if m := armParameterRef.FindStringSubmatch(inner); m != nil && m[0] == inner {
				if p, ok := params[m[1]]; ok {
					return p
				}
			}
		}
		return t
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = resolveARM(e, params)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = resolveARM(e, params)
		}
		return out
	}
	return v
}

// armPoolName returns the pool name of an agentPools resource: the last
// segment of its "cluster/pool" name, literal or built by a format(),
// concat() or resourceId() expression whose arguments are string literals
// and parameters,
// e.g. "[format('{0}/{1}', parameters('clusterName'), 'gpua100')]" (how
// components/gpupool names its pools) or "[concat(parameters('c'), '/',
// parameters('p'))]". An expression it cannot evaluate is returned as is,
// so the rules name it rather than a wrong pool.
func armPoolName(name any, params map[string]any) string {
	s := armName(name, params)
	if strings.HasPrefix(s, "[") {
		return s
	}
	if i := strings.LastIndex(s, "/"); i >= 0 {
		return s[i+1:]
	}
	return s
}

// armName evaluates a template resource name: literal, or a format(),
// concat() or resourceId() expression over string literals and
// parameters; an expression it cannot evaluate is returned as is.
func armName(name any, params map[string]any) string {
	s := str(name)
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		if v, ok := evalARMName(strings.TrimSpace(s[1:len(s)-1]), params); ok {
			return v
		}
	}
	return s
}

// evalARMName evaluates format(fmt, args...), concat(args...) and the name
// segments of resourceId(type, names...) over string literals and
// parameters('x') ("Template functions - string" and "- resource",
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-string,
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-resource).
func evalARMName(expr string, params map[string]any) (string, bool) {
	fn, rest, ok := strings.Cut(expr, "(")
	if !ok || !strings.HasSuffix(rest, ")") {
		return "", false
	}
	var args []string
	for _, a := range splitARMArgs(rest[:len(rest)-1]) {
		v, ok := evalARMArg(a, params)
		if !ok {
			return "", false
		}
		args = append(args, v)
	}
	switch strings.TrimSpace(strings.ToLower(fn)) {
	case "concat":
		return strings.Join(args, ""), true
	case "resourceid":
		// resourceId('<type>', '<parent>', '<name>'): the name segments
		// after the type, joined like the resource's own name.
		if len(args) < 2 {
			return "", false
		}
		return strings.Join(args[1:], "/"), true
	case "format":
		if len(args) == 0 {
			return "", false
		}
		out := args[0]
		for i, a := range args[1:] {
			out = strings.ReplaceAll(out, fmt.Sprintf("{%d}", i), a)
		}
		return out, true
	}
	return "", false
}

// evalARMArg evaluates a string literal or parameters('x') with a string value.
func evalARMArg(a string, params map[string]any) (string, bool) {
	a = strings.TrimSpace(a)
	if len(a) >= 2 && strings.HasPrefix(a, "'") && strings.HasSuffix(a, "'") {
		return strings.ReplaceAll(a[1:len(a)-1], "''", "'"), true
	}
	if m := armParameterRef.FindStringSubmatch(a); m != nil && m[0] == a {
		v, ok := params[m[1]].(string)
		return v, ok && v != ""
	}
	return "", false
}

// splitARMArgs splits a function's argument list at top-level commas,
// outside string literals and nested calls.
func splitARMArgs(s string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i, r := range s {
		switch {
		case r == '\'':
			quoted = !quoted
		case quoted:
		case r == '(':
			depth++
		case r == ')':
			depth--
		case r == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// poolFromProperties reads the agent pool fields shared by the AgentPool
// resource, ManagedCluster agentPoolProfiles and the ARM agentPools
// properties.
func poolFromProperties(r Resource, name string, props map[string]any) Pool {
	optInt := func(key string) *int {
		if n, ok := num(props[key]); ok {
			v := int(n)
			return &v
		}
		return nil
	}
	p := Pool{
		Name:               name,
		Resource:           r,
		VMSize:             str(props["vmSize"]),
		Mode:               str(props["mode"]),
		MinCount:           optInt("minCount"),
		MaxCount:           optInt("maxCount"),
		Count:              optInt("count"),
		Taints:             stringList(props["nodeTaints"]),
		Labels:             stringMap(props["nodeLabels"]),
		Priority:           str(props["scaleSetPriority"]),
		EvictionPolicy:     str(props["scaleSetEvictionPolicy"]),
		GPUInstanceProfile: str(props["gpuInstanceProfile"]),
		MIGStrategy:        str(get(props, "gpuProfile.nvidia.migStrategy")),
		ManagementMode:     str(get(props, "gpuProfile.nvidia.managementMode")),
		Zones:              stringList(props["availabilityZones"]),
		MaxPods:            optInt("maxPods"),
		Props:              props,
	}
	for _, k := range sortedKeys(props) {
		if props[k] == Unknown {
			p.Unknown = append(p.Unknown, k)
		}
	}
	p.AutoScaling, _ = boolOf(props["enableAutoScaling"])
	if n, ok := num(props["spotMaxPrice"]); ok {
		p.SpotMaxPrice = &n
	}
	return p
}
