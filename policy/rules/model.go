package rules

import "strings"

// Resource is one resource of a stack's desired state as plain data: what a
// Pulumi program registers, independent of whether it came from Pulumi mocks
// (internal/synth) or from the policy analyzer (the pack in ./policy).
type Resource struct {
	// Type is the Pulumi type token, e.g. `kubernetes:batch/v1:Job` or
	// `azure-native:containerservice:AgentPool`.
	Type string `yaml:"type"`
	// Name is the logical (Pulumi) name.
	Name string `yaml:"name"`
	// URN is the resource's URN; rules name resources by it in messages.
	URN string `yaml:"urn"`
	// Parent is the URN of the parent resource, or "" for the stack.
	Parent string `yaml:"parent,omitempty"`
	// Protect, RetainOnDelete and ReplaceOnChanges are the resource options
	// that rules check.
	Protect          bool     `yaml:"protect,omitempty"`
	RetainOnDelete   bool     `yaml:"retainOnDelete,omitempty"`
	ReplaceOnChanges []string `yaml:"replaceOnChanges,omitempty"`
	// DependsOn are the URNs the resource waits for: its explicit
	// DependsOn and the resources its inputs come from, sorted.
	DependsOn []string `yaml:"dependsOn,omitempty"`
	// Inputs are the resource's inputs as JSON-like data: map[string]any,
	// []any, string, float64, bool or nil. Secret values keep their plain
	// value here; their top-level keys are listed in SecretInputs.
	Inputs map[string]any `yaml:"inputs,omitempty"`
	// SecretInputs are the top-level input keys whose values are secret.
	SecretInputs []string `yaml:"secretInputs,omitempty"`
	// Read is true for a read of an existing object (a `get`): the stack
	// creates, changes and deletes nothing of it, and Inputs hold the live
	// object. Only internal/synth knows it; the policy pack's AnalyzeStack
	// does not say which resources are reads.
	Read bool `yaml:"read,omitempty"`
}

// Output is one stack output.
type Output struct {
	// Value is the output's value as JSON-like data.
	Value any
	// Secret is true when the output is marked secret.
	Secret bool
}

// Stack is the whole desired state of one stack.
type Stack struct {
	// Name is the stack name (dev, prod, local, ...).
	Name string
	// Environment is "prod" for production stacks and "dev" otherwise; rules
	// that only apply in production (digest-pinned images) read it.
	Environment string
	// Resources are every registered resource, in registration order.
	Resources []Resource
	// Outputs are the stack outputs (ctx.Export) by name.
	Outputs map[string]Output
	// RetainOnDeleteKnown says Resources carry their RetainOnDelete option:
	// internal/synth records it; the policy analyzer is not given it (sdk/v3
	// go/pulumi/policyx server.go passes Protect, not RetainOnDelete), so
	// rules on it run only when it is known.
	RetainOnDeleteKnown bool
}

// Get returns the value at a dotted path below the inputs, e.g.
// "spec.template.spec.containers". It returns nil when any step is missing.
func (r Resource) Get(path string) any {
	var cur any = r.Inputs
	for _, key := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[key]
	}
	return cur
}
