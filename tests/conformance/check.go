package conformance

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/policy/rules"
)

// Finding is one problem the tier found.
type Finding struct {
	// Rule is the catalogue rule's ID.
	Rule string
	// Stack is the stack name.
	Stack string
	// Resource is the Pulumi name of the resource that sends the offending
	// body (the template-holding resource for template resources).
	Resource string
	// Path is where inside the resource: template path and JSON pointer.
	Path string
	// Spec is the spec file a CONF-SPEC finding was checked against.
	Spec string
	// Message says what is wrong.
	Message string
}

// String renders the finding on one line.
func (f Finding) String() string {
	out := fmt.Sprintf("%s %s/%s", f.Rule, f.Stack, f.Resource)
	if f.Path != "" {
		out += " " + f.Path
	}
	out += ": " + f.Message
	if f.Spec != "" {
		out += " (spec " + f.Spec + ")"
	}
	return out
}

// Report is the result of checking one stack.
type Report struct {
	// Stack is the stack name.
	Stack string
	// Findings are every rule's findings, by rule ID then resource.
	Findings []Finding
	// Checked is how many Azure bodies were validated against a spec.
	Checked int
	// Properties is how many JSON values those bodies hold.
	Properties int
	// Skipped counts spec errors on unevaluated ARM expressions or unknown
	// values, which ARM resolves at deployment time.
	Skipped int
	// NoSpec lists the Azure bodies with no published spec in azure-specs
	// ("<type>@<apiVersion> (<resource>)"): the rules still read them.
	NoSpec []string
	// KubernetesObjects is how many Kubernetes objects the identity check
	// read; Opaque lists the resources (Helm charts, kustomize
	// directories, YAML files) whose objects are not visible under mocks.
	KubernetesObjects int
	Opaque            []string
}

// Check runs the whole catalogue over a synthesised stack.
func Check(st *rules.Stack, specs *Specs) Report {
	s := NewState(st)
	s.specs = specs
	rep := Report{Stack: st.Name}
	s.report = &rep
	for _, rule := range Catalogue() {
		for _, f := range rule.Check(s) {
			f.Rule = rule.ID
			f.Stack = st.Name
			rep.Findings = append(rep.Findings, f)
		}
	}
	sort.SliceStable(rep.Findings, func(i, j int) bool {
		a, b := rep.Findings[i], rep.Findings[j]
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Resource < b.Resource
	})
	return rep
}

// Summary is the one-line count the tests log.
func (r Report) Summary() string {
	return fmt.Sprintf("%s: %d Azure bodies checked against their spec (%d properties, %d expression values left to ARM), %d without a spec in azure-specs [%s], %d Kubernetes objects checked for duplicate identity (%d opaque: %s), %d findings",
		r.Stack, r.Checked, r.Properties, r.Skipped, len(r.NoSpec), strings.Join(r.NoSpec, "; "),
		r.KubernetesObjects, len(r.Opaque), strings.Join(r.Opaque, ", "), len(r.Findings))
}

// checkSpecs validates every body with a published spec (CONF-SPEC-001).
func checkSpecs(s *State) []Finding {
	var out []Finding
	for _, b := range s.Bodies {
		if !b.Typed && (b.Type == "" || b.APIVersion == "") {
			out = append(out, findingOn(b, "", "template resource without type or apiVersion: ARM rejects the template"))
			continue
		}
		if b.Type == "" {
			s.noSpec(b, b.Resource.Type)
			continue
		}
		sp, ok := s.specs.Lookup(specType(b), b.APIVersion)
		if !ok {
			version := b.APIVersion
			if version == "" {
				version = "SDK default"
			}
			s.noSpec(b, b.Type+"@"+version)
			continue
		}
		body := b.Value
		if b.Typed {
			body = wireBody(b.Value, sp)
		}
		violations, skipped := sp.Validate(body)
		if s.report != nil {
			s.report.Checked++
			s.report.Properties += countValues(body)
			s.report.Skipped += skipped
		}
		for _, v := range violations {
			out = append(out, Finding{
				Resource: b.Resource.Name,
				Path:     strings.TrimSpace(b.Where + " " + v.Pointer),
				Spec:     sp.File + "#/definitions/" + sp.Definition,
				Message:  fmt.Sprintf("%s@%s: %s [%s]", b.Type, b.APIVersion, v.Message, v.Kind),
			})
		}
	}
	return out
}

// specType is the ARM type whose spec describes the body: its type, or
// for an extension resource in the nested template form
// "<parent type>/providers/<extension type>", named
// "<parent names>/<extension namespace>/<name>" (e.g.
// Microsoft.ContainerService/managedClusters/providers/dataCollectionRuleAssociations
// named "aks/microsoft.insights/dcra"), the extension resource's own type
// (Microsoft.Insights/dataCollectionRuleAssociations): ARM deploys it as
// that extension resource on the parent.
// Source: Set scope for extension resources in ARM templates,
// https://learn.microsoft.com/azure/azure-resource-manager/templates/scope-extension-resources
func specType(b Body) string {
	parent, ext, nested := strings.Cut(b.Type, "/providers/")
	if b.Typed || !nested {
		return b.Type
	}
	parents := strings.Count(parent, "/") // name segments of the parent
	names := strings.Split(b.Name, "/")
	if parents < 1 || len(names) != parents+1+strings.Count(ext, "/")+1 {
		return b.Type
	}
	return names[parents] + "/" + ext
}

func (s *State) noSpec(b Body, what string) {
	if s.report != nil {
		s.report.NoSpec = append(s.report.NoSpec, what+" ("+b.Describe()+")")
	}
}

var (
	defaultSpecsOnce sync.Once
	defaultSpecs     *Specs
	defaultSpecsErr  error
)

// DefaultSpecs loads the specs FindSpecs finds, once per process.
func DefaultSpecs() (*Specs, error) {
	defaultSpecsOnce.Do(func() {
		dir, err := FindSpecs()
		if err != nil {
			defaultSpecsErr = err
			return
		}
		defaultSpecs, defaultSpecsErr = LoadSpecs(dir)
	})
	return defaultSpecs, defaultSpecsErr
}

// CheckProgram synthesises a Pulumi program (an example, a platform
// team's program) as a dev stack under mocks and checks it; the report
// carries name as its stack.
func CheckProgram(name string, program func(ctx *pulumi.Context) error) (Report, error) {
	st, err := synth.Run("dev", "dev", map[string]string{}, func(ctx *pulumi.Context) (map[string]pulumi.Input, error) {
		return nil, program(ctx)
	})
	if err != nil {
		return Report{}, err
	}
	specs, err := DefaultSpecs()
	if err != nil {
		return Report{}, err
	}
	st.Name = name
	return Check(st, specs), nil
}
