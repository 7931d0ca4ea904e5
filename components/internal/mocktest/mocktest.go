// Package mocktest is the one Pulumi mock harness of the component tests:
// it runs a program under pulumi.WithMocks, records every registered
// resource (type token, name, inputs, provider and resource options) and
// answers with the inputs as state, plus the outputs a test asks for.
//
// It imports no component, so a component's internal tests can use it
// without an import cycle.
package mocktest

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Resource is one registered resource.
type Resource struct {
	// Type is the resource type token, e.g. kubernetes:core/v1:Namespace.
	Type string
	// Name is the Pulumi resource name.
	Name string
	// Provider is the provider reference ("" for the default provider).
	Provider string
	// Inputs are the inputs as plain Go values (maps, lists, strings,
	// float64, bool).
	Inputs map[string]any
	// Props are the inputs as Pulumi properties (secrets and unknowns kept).
	Props resource.PropertyMap
	// Deps are the URNs of the resource's explicit and implicit
	// dependencies.
	Deps []string
	// IgnoreChanges is the ignoreChanges resource option.
	IgnoreChanges []string
	// ReplaceOnChanges is the replaceOnChanges resource option.
	ReplaceOnChanges []string
	// DeleteBeforeReplace is the deleteBeforeReplace resource option.
	DeleteBeforeReplace bool
	// Protect is the protect resource option.
	Protect bool
	// RetainOnDelete is the retainOnDelete resource option.
	RetainOnDelete bool
	// Parent is the parent's URN.
	Parent string
	// Aliases are the aliases option, each as the URN it names: an alias
	// URN as given, an alias spec as `<parentUrn>::<name>` (or
	// `noParent::<name>`, `::<name>` for the current parent), with
	// `::<type>` before the name when the spec names a type (the Kubernetes
	// SDK aliases its kinds to their older API versions).
	Aliases []string
}

// Mocks records registrations; the zero value answers every resource with
// id "<name>-id" and its inputs as state, and every call with its args.
// NameFrom, IDs and StackOutput answer the way ARM does for the resources
// they name, in that order, before State.
type Mocks struct {
	// NameFrom maps a type token suffix (":StorageAccount") to the input
	// ARM names such a resource after ("accountName"): its state gets that
	// input as "name".
	NameFrom map[string]string
	// IDs maps a type token suffix (":Subnet") to the resource ID of such a
	// resource, built from its registration.
	IDs map[string]func(args pulumi.MockResourceArgs) string
	// StackOutput, when set, is the value of a deployment stack's template
	// output key: a DeploymentStackAtResourceGroup reports one output per
	// output its template declares (StackOutputs).
	StackOutput func(key string) string
	// State, when set, returns the id and state of a new resource; it gets
	// a copy of the inputs it may change. Nil keeps "<name>-id" and the
	// inputs.
	State func(args pulumi.MockResourceArgs, state resource.PropertyMap) (id string, out resource.PropertyMap)
	// OnCall, when set, answers an invoke. Nil returns the call's args.
	OnCall func(args pulumi.MockCallArgs) (resource.PropertyMap, error)

	mu    sync.Mutex
	res   []Resource
	calls []pulumi.MockCallArgs
}

// NewResource implements pulumi.MockResourceMonitor.
func (m *Mocks) NewResource(args pulumi.MockResourceArgs) (string, resource.PropertyMap, error) {
	r := Resource{Type: args.TypeToken, Name: args.Name, Provider: args.Provider, Inputs: args.Inputs.Mappable(), Props: args.Inputs}
	if rpc := args.RegisterRPC; rpc != nil {
		r.Deps = rpc.GetDependencies()
		r.IgnoreChanges = rpc.GetIgnoreChanges()
		r.ReplaceOnChanges = rpc.GetReplaceOnChanges()
		r.DeleteBeforeReplace = rpc.GetDeleteBeforeReplace()
		r.Protect = rpc.GetProtect()
		r.RetainOnDelete = rpc.GetRetainOnDelete()
		r.Parent = rpc.GetParent()
		r.Aliases = append(r.Aliases, rpc.GetAliasURNs()...)
		for _, a := range rpc.GetAliases() {
			if u := a.GetUrn(); u != "" {
				r.Aliases = append(r.Aliases, u)
				continue
			}
			spec := a.GetSpec()
			parent := spec.GetParentUrn()
			if spec.GetNoParent() {
				parent = "noParent"
			}
			if t := spec.GetType(); t != "" {
				parent += "::" + t
			}
			r.Aliases = append(r.Aliases, parent+"::"+spec.GetName())
		}
	}
	id, state := args.Name+"-id", args.Inputs.Copy()
	for suffix, input := range m.NameFrom {
		if strings.HasSuffix(args.TypeToken, suffix) {
			state["name"] = args.Inputs[resource.PropertyKey(input)]
		}
	}
	for suffix, idOf := range m.IDs {
		if strings.HasSuffix(args.TypeToken, suffix) {
			id = idOf(args)
		}
	}
	if m.StackOutput != nil && strings.HasSuffix(args.TypeToken, ":DeploymentStackAtResourceGroup") {
		state["outputs"] = StackOutputs(state, m.StackOutput)
	}
	if m.State != nil {
		id, state = m.State(args, state)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.res = append(m.res, r)
	return id, state, nil
}

// Call implements pulumi.MockResourceMonitor.
func (m *Mocks) Call(args pulumi.MockCallArgs) (resource.PropertyMap, error) {
	m.mu.Lock()
	m.calls = append(m.calls, args)
	m.mu.Unlock()
	if m.OnCall != nil {
		return m.OnCall(args)
	}
	return args.Args, nil
}

// Run runs fn under m.
func (m *Mocks) Run(fn pulumi.RunFunc) error {
	return pulumi.RunErr(fn, pulumi.WithMocks("aksml", "test", m))
}

// Run runs fn under fresh zero-value Mocks and returns them with fn's
// error.
func Run(t testing.TB, fn pulumi.RunFunc) (*Mocks, error) {
	t.Helper()
	m := &Mocks{}
	return m, m.Run(fn)
}

// All returns every registered resource in registration order.
func (m *Mocks) All() []Resource {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Resource(nil), m.res...)
}

// Count is the number of registered resources.
func (m *Mocks) Count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.res)
}

// Calls returns every invoke in order.
func (m *Mocks) Calls() []pulumi.MockCallArgs {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]pulumi.MockCallArgs(nil), m.calls...)
}

// ByType returns the resources whose type token is typ, in registration
// order.
func (m *Mocks) ByType(typ string) []Resource {
	return m.filter(func(r Resource) bool { return r.Type == typ })
}

// ByTypeSuffix returns the resources whose type token ends in suffix (e.g.
// ":AgentPool", any API version), in registration order.
func (m *Mocks) ByTypeSuffix(suffix string) []Resource {
	return m.filter(func(r Resource) bool { return strings.HasSuffix(r.Type, suffix) })
}

// SortedByType is ByType sorted by name.
func (m *Mocks) SortedByType(typ string) []Resource {
	out := m.ByType(typ)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// One returns the single resource of type typ; the test fails unless
// exactly one is registered.
func (m *Mocks) One(t testing.TB, typ string) Resource {
	t.Helper()
	rs := m.ByType(typ)
	if len(rs) != 1 {
		t.Fatalf("%d resources of type %s registered, want 1", len(rs), typ)
	}
	return rs[0]
}

// Named returns the resource of type typ named name; the test fails when
// there is none.
func (m *Mocks) Named(t testing.TB, typ, name string) Resource {
	t.Helper()
	for _, r := range m.ByType(typ) {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no %s named %q registered", typ, name)
	return Resource{}
}

// ByName returns the resource named name, of any type; the test fails
// when there is none.
func (m *Mocks) ByName(t testing.TB, name string) Resource {
	t.Helper()
	for _, r := range m.All() {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no resource named %q registered", name)
	return Resource{}
}

// Names returns the registered resources keyed by name (the last one wins
// if two types share a name).
func (m *Mocks) Names() map[string]Resource {
	out := map[string]Resource{}
	for _, r := range m.All() {
		out[r.Name] = r
	}
	return out
}

func (m *Mocks) filter(keep func(Resource) bool) []Resource {
	var out []Resource
	for _, r := range m.All() {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// StackOutputs returns the "outputs" state a deployed ARM deployment stack
// reports: one {"type": "String", "value": value(key)} object per output
// the stack's template declares (the shape of
// Microsoft.Resources/deploymentStacks outputs).
func StackOutputs(inputs resource.PropertyMap, value func(key string) string) resource.PropertyValue {
	outputs := resource.PropertyMap{}
	if tpl := inputs["template"]; tpl.IsObject() {
		if decl := tpl.ObjectValue()["outputs"]; decl.IsObject() {
			for k := range decl.ObjectValue() {
				outputs[k] = resource.NewObjectProperty(resource.PropertyMap{
					"type":  resource.NewStringProperty("String"),
					"value": resource.NewStringProperty(value(string(k))),
				})
			}
		}
	}
	return resource.NewObjectProperty(outputs)
}

// Get walks v by map keys (string) and list indexes (int) and returns nil
// where the path does not exist.
func Get(v any, path ...any) any {
	for _, step := range path {
		switch s := step.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[s]
		case int:
			l, ok := v.([]any)
			if !ok || s < 0 || s >= len(l) {
				return nil
			}
			v = l[s]
		default:
			return nil
		}
	}
	return v
}

// Dig walks v like Get and fails the test where the path does not exist.
func Dig(t testing.TB, v any, path ...any) any {
	t.Helper()
	for i, step := range path {
		switch s := step.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: %T is not an object", path[:i], v)
			}
			next, ok := m[s]
			if !ok {
				t.Fatalf("at %v: no key %q in %v", path[:i], s, slices.Sorted(maps.Keys(m)))
			}
			v = next
		case int:
			l, ok := v.([]any)
			if !ok {
				t.Fatalf("at %v: %T is not a list", path[:i], v)
			}
			if s < 0 || s >= len(l) {
				t.Fatalf("at %v: index %d out of range (%d elements)", path[:i], s, len(l))
			}
			v = l[s]
		default:
			t.Fatalf("at %v: %T is not a key or index", path[:i], step)
		}
	}
	return v
}
