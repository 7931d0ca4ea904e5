// Package synth runs an aksml stack under Pulumi mocks and returns its whole
// desired state as plain data: every registered resource (type token, name,
// parent, options and inputs) and every stack output. Nothing talks to Azure
// or Kubernetes.
//
// It ships with the reviewer CLI (go run ./policy/cmd/check, which the PR
// workflow runs: the policy rules of policy/rules over its result), so it
// lives outside the test tier, and the test tiers share it:
//   - tests/golden_test.go writes and checks tests/golden/<stack>.yaml;
//   - the policy rules' tests run over its result;
//   - the real-cluster tier (tests/cluster) applies its Kubernetes objects to
//     a real kube-apiserver.
//
// Stack config is read from Pulumi.<stack>.yaml exactly as the Pulumi CLI
// hands it to the program: plain values as strings, structured values
// (objects, lists) as JSON, keys as "<namespace>:<key>".
package synth

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/internals"

	"github.com/aksml/aksml/components/vocab"
	"github.com/aksml/aksml/policy/rules"
	"github.com/aksml/aksml/stacks"
)

// Project is the Pulumi project name the mocks run as (Pulumi.yaml `name`).
const Project = stacks.Project

// Program is a Pulumi program that also returns its stack outputs, so that
// synth can record them with their secretness (the mock monitor drops
// ctx.Export values).
type Program func(ctx *pulumi.Context) (map[string]pulumi.Input, error)

// ReadStackConfig reads the `config:` map of <dir>/Pulumi.<stack>.yaml as
// the Pulumi CLI passes config to a program: stacks.ReadConfigFile, which the
// shipped preflight command reads stacks with too.
func ReadStackConfig(dir, stack string) (map[string]string, error) {
	return stacks.ReadConfigFile(dir, stack)
}

// Run runs program as stack with the given config under mocks and returns
// its desired state. environment is recorded in the result for the rules.
// On error the result still holds what was registered before it, so tests
// can assert that invalid input registered nothing.
func Run(stack, environment string, config map[string]string, program Program) (*rules.Stack, error) {
	return RunPrevious(stack, environment, config, nil, program)
}

// RunPrevious is Run for a stack whose last deployment exported previous:
// the stack's StackReference to itself reads them (nil: never deployed).
func RunPrevious(stack, environment string, config map[string]string, previous resource.PropertyMap, program Program) (*rules.Stack, error) {
	m := &mocks{stack: stack, previous: previous}
	out := &rules.Stack{Name: stack, Environment: environment, Outputs: map[string]rules.Output{}, RetainOnDeleteKnown: true}
	err := pulumi.RunErr(func(ctx *pulumi.Context) error {
		outputs, err := program(ctx)
		if err != nil {
			return err
		}
		for name, in := range outputs {
			ctx.Export(name, in)
			res, err := internals.UnsafeAwaitOutput(ctx.Context(), pulumi.ToOutput(in))
			if err != nil {
				return fmt.Errorf("output %s: %w", name, err)
			}
			out.Outputs[name] = rules.Output{Value: plainGo(res.Value), Secret: res.Secret}
		}
		return nil
	}, pulumi.WithMocks(Project, stack, m), func(info *pulumi.RunInfo) { info.Config = config })
	out.Resources = m.resources()
	return out, err
}

// plainGo turns awaited output values into JSON-like data.
func plainGo(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return string(b)
	}
	return out
}

// mocks records every registered resource and answers provider calls with
// deterministic, plausible values.
type mocks struct {
	stack string
	// previous are the outputs of the stack's last deployment.
	previous resource.PropertyMap
	mu       sync.Mutex
	seen     []rules.Resource
}

func (m *mocks) resources() []rules.Resource {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]rules.Resource(nil), m.seen...)
}

// NewResource records the resource and returns its inputs as its state, with
// an ARM-style ID for Azure resources.
func (m *mocks) NewResource(args pulumi.MockResourceArgs) (string, resource.PropertyMap, error) {
	if args.ReadRPC != nil && strings.HasPrefix(args.TypeToken, "kubernetes:") {
		return m.read(args)
	}
	rpc := args.RegisterRPC
	r := rules.Resource{
		Type:   args.TypeToken,
		Name:   args.Name,
		Inputs: map[string]any{},
	}
	if read := args.ReadRPC; read != nil {
		// A read of another kind (a StackReference): recorded as the engine
		// records it, a read with its URN.
		r.Read = true
		r.Parent = read.GetParent()
		r.URN = urn(m.stack, args.TypeToken, args.Name, read.GetParent())
		r.DependsOn = append([]string(nil), read.GetDependencies()...)
		sort.Strings(r.DependsOn)
	}
	if rpc != nil {
		r.Parent = rpc.GetParent()
		r.Protect = rpc.GetProtect()
		r.RetainOnDelete = rpc.GetRetainOnDelete()
		r.ReplaceOnChanges = append([]string(nil), rpc.GetReplaceOnChanges()...)
		r.URN = urn(m.stack, args.TypeToken, args.Name, rpc.GetParent())
		r.DependsOn = append([]string(nil), rpc.GetDependencies()...)
		sort.Strings(r.DependsOn)
	}
	for k, v := range args.Inputs {
		if v.ContainsSecrets() {
			r.SecretInputs = append(r.SecretInputs, string(k))
		}
		r.Inputs[string(k)] = plain(v)
	}
	sort.Strings(r.SecretInputs)
	m.mu.Lock()
	m.seen = append(m.seen, r)
	m.mu.Unlock()

	state := args.Inputs.Copy()
	id := args.Name + "-id"
	if strings.HasPrefix(args.TypeToken, "azure-native:") {
		id = armID(args.TypeToken, args.Name, args.Inputs)
		state["id"] = resource.NewProperty(id)
		state["name"] = resource.NewProperty(azureName(args.TypeToken, args.Name, args.Inputs))
	}
	if strings.HasPrefix(args.TypeToken, "azure-native:containerservice") && strings.HasSuffix(args.TypeToken, ":ManagedCluster") {
		state["oidcIssuerProfile"] = resource.NewProperty(resource.PropertyMap{
			"enabled":   resource.NewProperty(true),
			"issuerURL": resource.NewProperty("https://oidc.example.invalid/" + args.Name + "/"),
		})
		state["nodeResourceGroup"] = resource.NewProperty("MC_" + args.Name)
		state["identity"] = resource.NewProperty(resource.PropertyMap{
			"type":        resource.NewProperty("SystemAssigned"),
			"principalId": resource.NewProperty("00000000-0000-0000-0000-00000000c0de"),
		})
	}
	if args.TypeToken == "pulumi:pulumi:StackReference" {
		state["outputs"] = resource.NewProperty(StackReferenceOutputs)
		if n, ok := args.Inputs["name"]; ok && n.IsString() && ReferencedOutputs[n.StringValue()] != nil {
			state["outputs"] = resource.NewProperty(ReferencedOutputs[n.StringValue()])
		}
		if n, ok := args.Inputs["name"]; ok && n.IsString() && n.StringValue() == "organization/"+Project+"/"+m.stack {
			// The stack's reference to itself: its previous deployment.
			prev := m.previous
			if prev == nil {
				prev = resource.PropertyMap{}
			}
			state["outputs"] = resource.NewProperty(prev)
		}
	}
	if strings.HasPrefix(args.TypeToken, "azure-native:resources") && strings.HasSuffix(args.TypeToken, ":DeploymentStackAtResourceGroup") {
		state["outputs"] = resource.NewProperty(stackOutputs(args.Inputs))
	}
	return id, state, nil
}

// ClusterOwner is the aksml stack (<organization>/<project>/<stack>) that
// owns the mocks' cluster: the value of vocab.OwnerAnnotation on kube-system
// when the program reads it. Default "": no stack does. A test that sets it
// restores it (tests here do not run in parallel).
var ClusterOwner string

// read answers the read of an existing Kubernetes object the way the engine records
// it: the live object as the resource's state. Only kube-system exists
// (annotated with ClusterOwner); the read is recorded with that state as
// its inputs, as the policy pack's stack rules see it (AnalyzeStack gets
// every resource's outputs, reads included).
func (m *mocks) read(args pulumi.MockResourceArgs) (string, resource.PropertyMap, error) {
	if args.TypeToken != "kubernetes:core/v1:Namespace" || args.ID != vocab.SystemNamespace {
		return "", nil, fmt.Errorf("synth: %s %q does not exist in the mocks' cluster", args.TypeToken, args.ID)
	}
	meta := resource.PropertyMap{"name": resource.NewProperty(args.ID)}
	if ClusterOwner != "" {
		meta["annotations"] = resource.NewProperty(resource.PropertyMap{vocab.OwnerAnnotation: resource.NewProperty(ClusterOwner)})
	}
	state := resource.PropertyMap{
		"apiVersion": resource.NewProperty("v1"),
		"kind":       resource.NewProperty("Namespace"),
		"metadata":   resource.NewProperty(meta),
	}
	r := rules.Resource{Type: args.TypeToken, Name: args.Name, Read: true, Inputs: map[string]any{}}
	if rpc := args.ReadRPC; rpc != nil {
		r.Parent = rpc.GetParent()
		r.URN = urn(m.stack, args.TypeToken, args.Name, rpc.GetParent())
		r.DependsOn = append([]string(nil), rpc.GetDependencies()...)
		sort.Strings(r.DependsOn)
	}
	for k, v := range state {
		r.Inputs[string(k)] = plain(v)
	}
	m.mu.Lock()
	m.seen = append(m.seen, r)
	m.mu.Unlock()
	return args.ID, state, nil
}

// ReferencedOutputs are, by stack name as a StackReference names it, the
// outputs of referenced stacks other than StackReferenceOutputs (a team
// stack's platform stack, from a synth run of it: StackOutputs). A test
// that sets it restores it (tests here do not run in parallel).
var ReferencedOutputs map[string]resource.PropertyMap

// StackOutputs are a synth run's stack outputs as a referencing stack
// reads them.
func StackOutputs(st *rules.Stack) resource.PropertyMap {
	out := resource.PropertyMap{}
	for k, o := range st.Outputs {
		out[resource.PropertyKey(k)] = resource.NewPropertyValue(o.Value)
	}
	return out
}

// StackReferenceOutputs are the outputs every referenced stack has under
// mocks: those of an aksml Azure-layer stack.
var StackReferenceOutputs = resource.PropertyMap{
	"kubeconfig":          resource.NewProperty(FakeKubeconfig),
	"clusterResourceId":   resource.NewProperty("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-azure/providers/Microsoft.ContainerService/managedClusters/aks-azure"),
	"resourceGroupName":   resource.NewProperty("rg-azure"),
	"filesStorageAccount": resource.NewProperty("azurefiles"),
	"teamIdentities": resource.NewProperty(resource.PropertyMap{
		"team-a": resource.NewProperty(resource.PropertyMap{
			"clientId": resource.NewProperty(ReferencedTeamClientID),
			"groups":   resource.NewProperty([]resource.PropertyValue{resource.NewProperty(ReferencedTeamGroup)}),
		}),
	}),
}

// ReferencedTeamClientID and ReferencedTeamGroup are team-a's identity
// client ID and Entra group in StackReferenceOutputs' teamIdentities.
const (
	ReferencedTeamClientID = "11111111-2222-4333-8444-555555555555"
	ReferencedTeamGroup    = "3a3a3a3a-3333-4333-8333-00000000000a"
)

// SimulatedQueryEndpoint is the value synth gives an ARM output that reads an
// Azure Monitor workspace's Prometheus query endpoint
// (reference(...).metrics.prometheusQueryEndpoint): a host of the form ARM
// returns, because the team namespaces' admission policy accepts KEDA
// triggers only on such hosts (components/tenancy RuleKEDAPlatform), so an
// unresolved expression would not be an object the cluster accepts.
const SimulatedQueryEndpoint = "https://amw-synth-0000.synth.prometheus.monitor.azure.com"

// stackOutputs simulates the outputs of an ARM deployment stack: each output
// the template declares, with its ARM expression as the string value, except
// the workspace query endpoint (SimulatedQueryEndpoint).
func stackOutputs(in resource.PropertyMap) resource.PropertyMap {
	out := resource.PropertyMap{}
	tpl, ok := in["template"]
	if !ok || !tpl.IsObject() {
		return out
	}
	decl, ok := tpl.ObjectValue()["outputs"]
	if !ok || !decl.IsObject() {
		return out
	}
	for k, v := range decl.ObjectValue() {
		value := fmt.Sprint(plain(v))
		if v.IsObject() {
			if e, ok := v.ObjectValue()["value"]; ok && e.IsString() {
				value = e.StringValue()
			}
			if strings.HasSuffix(value, ".metrics.prometheusQueryEndpoint]") {
				value = SimulatedQueryEndpoint
			}
		}
		out[k] = resource.NewProperty(resource.PropertyMap{
			"type":  resource.NewProperty("String"),
			"value": resource.NewProperty(value),
		})
	}
	return out
}

// Call answers invokes. The AKS credential listings return a fixed
// kubeconfig so the Kubernetes provider can be built.
func (m *mocks) Call(args pulumi.MockCallArgs) (resource.PropertyMap, error) {
	switch {
	case strings.HasPrefix(args.Token, "azure-native:containerservice") && strings.Contains(args.Token, ":listManagedCluster"):
		kc := base64.StdEncoding.EncodeToString([]byte(FakeKubeconfig))
		return resource.PropertyMap{
			"kubeconfigs": resource.NewProperty([]resource.PropertyValue{
				resource.NewProperty(resource.PropertyMap{
					"name":  resource.NewProperty("clusterUser"),
					"value": resource.NewProperty(kc),
				}),
			}),
		}, nil
	case args.Token == "azure-native:authorization:getClientConfig":
		return resource.PropertyMap{
			"clientId":       resource.NewProperty("00000000-0000-0000-0000-000000000001"),
			"objectId":       resource.NewProperty("00000000-0000-0000-0000-000000000002"),
			"subscriptionId": resource.NewProperty("00000000-0000-0000-0000-000000000000"),
			"tenantId":       resource.NewProperty("00000000-0000-0000-0000-000000000003"),
		}, nil
	}
	return args.Args, nil
}

// FakeKubeconfig is the kubeconfig the mocks return for AKS credential
// listings. It points at an address that is never dialled.
const FakeKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: synth
  cluster:
    server: https://synth.invalid:443
contexts:
- name: synth
  context:
    cluster: synth
    user: synth
current-context: synth
users:
- name: synth
  user:
    token: synth
`

// azureName is the Azure name of a resource: the input that names it, or
// the Pulumi name when the provider would auto-name it.
func azureName(token, name string, in resource.PropertyMap) string {
	keys := []string{"resourceName", "accountName", "agentPoolName", "deploymentStackName", "ruleGroupName"}
	if strings.HasSuffix(token, ":ResourceGroup") {
		keys = []string{"resourceGroupName"}
	}
	for _, k := range keys {
		if v, ok := in[resource.PropertyKey(k)]; ok && v.IsString() {
			return v.StringValue()
		}
	}
	return name
}

// ResourceID is the ARM ID the mocks give the azure-native resource with
// this token, Pulumi name and inputs: the `id` other resources receive from
// it under synth.
func ResourceID(token, name string, inputs map[string]any) string {
	return armID(token, name, resource.NewPropertyMapFromMap(inputs))
}

// armID builds a deterministic ARM resource ID for an azure-native resource.
func armID(token, name string, in resource.PropertyMap) string {
	rg := "rg"
	if v, ok := in["resourceGroupName"]; ok && v.IsString() {
		rg = v.StringValue()
	}
	if strings.HasPrefix(token, "azure-native:resources") && strings.HasSuffix(token, ":ResourceGroup") {
		return "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/" + azureName(token, name, in)
	}
	parts := strings.Split(token, ":")
	module, _, _ := strings.Cut(parts[1], "/")
	return fmt.Sprintf("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/%s/providers/Microsoft.%s/%s/%s",
		rg, module, parts[2], azureName(token, name, in))
}

// urn builds the URN the mock monitor gives a resource.
func urn(stack, typ, name, parent string) string {
	parentType := ""
	if parent != "" {
		p := resource.URN(parent)
		if p.QualifiedType() != resource.RootStackType {
			parentType = string(p.QualifiedType()) + "$"
		}
	}
	return fmt.Sprintf("urn:pulumi:%s::%s::%s%s::%s", stack, Project, parentType, typ, name)
}

// plain converts a property value to JSON-like data. Secrets keep their
// value (the caller records which keys are secret); unknowns become the
// string "<computed>"; resource references become their URN.
func plain(v resource.PropertyValue) any {
	switch {
	case v.IsNull():
		return nil
	case v.IsBool():
		return v.BoolValue()
	case v.IsNumber():
		return v.NumberValue()
	case v.IsString():
		return v.StringValue()
	case v.IsArray():
		arr := v.ArrayValue()
		out := make([]any, len(arr))
		for i, e := range arr {
			out[i] = plain(e)
		}
		return out
	case v.IsObject():
		obj := v.ObjectValue()
		out := make(map[string]any, len(obj))
		for k, e := range obj {
			out[string(k)] = plain(e)
		}
		return out
	case v.IsSecret():
		return plain(v.SecretValue().Element)
	case v.IsComputed():
		return "<computed>"
	case v.IsOutput():
		o := v.OutputValue()
		if !o.Known {
			return "<computed>"
		}
		return plain(o.Element)
	case v.IsResourceReference():
		return string(v.ResourceReferenceValue().URN)
	case v.IsAsset(), v.IsArchive():
		return "<asset>"
	}
	return fmt.Sprint(v)
}
