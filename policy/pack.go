package main

import (
	"context"
	"sort"
	"sync"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/policyx"

	"github.com/aksml/aksml/components/vocab"
	"github.com/aksml/aksml/policy/rules"
)

// Pack identity.
const (
	// PackName is the policy pack name Pulumi reports violations under.
	PackName = "aksml"
	// PackVersion is the policy pack version.
	PackVersion = "1.0.0"
	// EnvironmentKey is the stack config key that says whether a stack is
	// prod or dev; unset, the stack name decides (rules.Environment).
	EnvironmentKey = "aksml:environment"
	// stackType is the type token of the root stack resource, whose
	// properties are the stack outputs.
	stackType = "pulumi:pulumi:Stack"
	// ownerReadType is the type of the read named vocab.OwnerRead.
	ownerReadType = "kubernetes:core/v1:Namespace"
)

// newPolicyPack builds the pack for the stack the engine configured.
func newPolicyPack(ctx *pulumi.Context) (policyx.PolicyPack, error) {
	env := config.Get(ctx, EnvironmentKey)
	if env == "" {
		env = rules.Environment(ctx.Stack())
	}
	return newPack(ctx.Stack(), env).policyPack()
}

// pack holds what the policies share: the stack identity and the inputs of
// every resource analyzed so far, by URN.
type pack struct {
	stack  rules.Stack
	mu     sync.Mutex
	inputs map[string]rules.Resource
}

func newPack(stack, environment string) *pack {
	return &pack{
		stack:  rules.Stack{Name: stack, Environment: environment},
		inputs: map[string]rules.Resource{},
	}
}

// policyPack turns every rule into a policy named by the rule's ID.
func (p *pack) policyPack() (policyx.PolicyPack, error) {
	var policies []policyx.Policy
	for _, rule := range rules.All() {
		policies = append(policies, p.policy(rule))
	}
	return policyx.NewPolicyPack(PackName, semver.MustParse(PackVersion), policyx.EnforcementLevelMandatory, policies)
}

// enforcement maps a rule severity to a policy enforcement level.
func enforcement(s rules.Severity) policyx.EnforcementLevel {
	if s == rules.Mandatory {
		return policyx.EnforcementLevelMandatory
	}
	return policyx.EnforcementLevelAdvisory
}

// policy wraps one rule.
func (p *pack) policy(rule rules.Rule) policyx.Policy {
	description := rule.ID + ": " + rule.Title + " (" + rule.Source + ")"
	if rule.Resource != nil {
		return policyx.NewResourceValidationPolicy(rule.ID, policyx.ResourceValidationPolicyArgs{
			Description:      description,
			EnforcementLevel: enforcement(rule.Severity),
			ValidateResource: func(_ context.Context, args policyx.ResourceValidationArgs) error {
				r := p.remember(args.Resource)
				stack := p.stack
				for _, msg := range rule.Resource(r, &stack) {
					args.Manager.ReportViolation(msg, r.URN)
				}
				return nil
			},
		})
	}
	return policyx.NewStackValidationPolicy(rule.ID, policyx.StackValidationPolicyArgs{
		Description:      description,
		EnforcementLevel: enforcement(rule.Severity),
		ValidateStack: func(_ context.Context, args policyx.StackValidationArgs) error {
			for _, f := range rule.Stack(p.desiredState(args.Resources)) {
				args.Manager.ReportViolation(f.Message, f.URN)
			}
			return nil
		},
	})
}

// remember converts a resource as Analyze sees it (its inputs) and keeps it
// for the stack rules.
func (p *pack) remember(ar policyx.AnalyzerResource) rules.Resource {
	r := toResource(ar)
	p.mu.Lock()
	p.inputs[r.URN] = r
	p.mu.Unlock()
	return r
}

// desiredState builds the whole stack for the stack rules: every resource
// with the inputs it was analyzed with (its outputs when it was not
// analyzed), and the stack outputs.
func (p *pack) desiredState(resources []policyx.AnalyzerResource) *rules.Stack {
	s := p.stack
	s.Outputs = map[string]rules.Output{}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ar := range resources {
		if ar.Type == stackType {
			for k, v := range ar.Properties.AllStable {
				s.Outputs[k] = rules.Output{Value: plain(v), Secret: v.HasSecrets()}
			}
			continue
		}
		r, ok := p.inputs[ar.URN]
		if !ok {
			r = toResource(ar)
		}
		r.Parent = ar.Parent
		s.Resources = append(s.Resources, r)
	}
	return &s
}

// toResource converts a policyx resource to plain data: inputs (or outputs)
// as JSON-like values, secret top-level keys in SecretInputs.
func toResource(ar policyx.AnalyzerResource) rules.Resource {
	r := rules.Resource{
		Type:    ar.Type,
		Name:    ar.Name,
		URN:     ar.URN,
		Parent:  ar.Parent,
		Protect: ar.Options.Protect,
		Inputs:  map[string]any{},
		// AnalyzeStack does not say which resources are reads; the
		// program's one read is the cluster's owner (components/cluster
		// ReadOwner), and its live kube-system is not a namespace the
		// stack creates.
		Read: ar.Name == vocab.OwnerRead && ar.Type == ownerReadType,
	}
	for k, v := range ar.Properties.AllStable {
		r.Inputs[k] = plain(v)
		if v.HasSecrets() {
			r.SecretInputs = append(r.SecretInputs, k)
		}
	}
	sort.Strings(r.SecretInputs)
	return r
}

// plain converts a property value to JSON-like data, the way internal/synth
// does: secrets keep their value, unknowns become rules.Unknown, resource
// references their URN.
func plain(v property.Value) any {
	switch {
	case v.IsComputed():
		return rules.Unknown
	case v.IsNull():
		return nil
	case v.IsBool():
		return v.AsBool()
	case v.IsNumber():
		return v.AsNumber()
	case v.IsString():
		return v.AsString()
	case v.IsArray():
		out := []any{}
		for _, e := range v.AsArray().All {
			out = append(out, plain(e))
		}
		return out
	case v.IsMap():
		out := map[string]any{}
		for k, e := range v.AsMap().All {
			out[k] = plain(e)
		}
		return out
	case v.IsResourceReference():
		return string(v.AsResourceReference().URN)
	}
	return "<asset>"
}
