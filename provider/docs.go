package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// The schema's descriptions. infer takes a description only from an
// Annotate method, which the Go components cannot have (they would depend
// on this module), so the schema would carry their types undocumented.
// describeSchema fills every description an Annotate method did not give
// from the Go doc comments of the component types, which docs_gen.go
// holds (generated from the component sources by GenerateDocs, `make
// schema`; TestDocsAreCurrent fails when it is stale):
//   - an object type aksml:<pkg>:<Type> takes the doc of <pkg>.<Type>, its
//     properties the docs of the fields of the same name;
//   - a component aksml:<pkg>:<Kind> takes the doc of <pkg>.<Kind>, its
//     outputs the docs of that struct's fields, its inputs the docs of the
//     fields of inputDocSources (default <pkg>.<Kind>Args).
//
// Fields match properties by name, case-insensitively (checkpointPVC is
// CheckpointPVC), and embedded structs of the same package count as fields.

// inputDocSources lists, per component whose provider Args are not one Go
// Args type, the Go types its inputs are documented from.
var inputDocSources = map[string][]string{
	"aksml:cluster:Cluster": {"cluster.ClusterArgs", "cluster.Spec"},
}

// typeDocSources lists, per object type that is not the one Go type of its
// token, the Go types it is documented from: the first gives the type's
// doc, and each property takes the doc of the first that has the field
// (the provider's Team is teams.Team, a team's queue side and namespace
// side, kept at its first token aksml:queues:Team).
var typeDocSources = map[string][]string{
	"aksml:queues:Team": {"teams.Team", "queues.Team"},
}

// goDoc is the doc comment of one Go struct type and of its fields, keyed
// by the lower-cased field name and pulumi/json tag name.
type goDoc struct {
	Doc    string
	Fields map[string]string
}

// docTypes are the Go types (<pkg>.<Type>) spec is documented from.
func docTypes(spec *schema.PackageSpec) []string {
	set := map[string]bool{}
	for tok := range spec.Types {
		for _, t := range typeSources(tok) {
			set[t] = true
		}
	}
	for tok := range spec.Resources {
		set[goTypeOf(tok)] = true
		for _, t := range inputSources(tok) {
			set[t] = true
		}
	}
	var out []string
	for t := range set {
		if t != "" {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// goTypeOf is the Go type of a token: aksml:queues:Team is queues.Team.
func goTypeOf(token string) string {
	parts := strings.Split(token, ":")
	if len(parts) != 3 {
		return ""
	}
	return parts[1] + "." + parts[2]
}

func typeSources(token string) []string {
	if s, ok := typeDocSources[token]; ok {
		return s
	}
	return []string{goTypeOf(token)}
}

func inputSources(token string) []string {
	if s, ok := inputDocSources[token]; ok {
		return s
	}
	return []string{goTypeOf(token) + "Args"}
}

// fieldDoc is the doc of the field named like property in the first of
// types that has one.
func fieldDoc(docs map[string]goDoc, property string, types ...string) string {
	for _, t := range types {
		if d := docs[t].Fields[strings.ToLower(property)]; d != "" {
			return d
		}
	}
	return ""
}

func fillProperties(docs map[string]goDoc, props map[string]schema.PropertySpec, types ...string) {
	for name, prop := range props {
		if prop.Description == "" {
			prop.Description = fieldDoc(docs, name, types...)
			props[name] = prop
		}
	}
}

// describeSchema fills the descriptions spec lacks from docs.
func describeSchema(spec *schema.PackageSpec, docs map[string]goDoc) {
	for tok, t := range spec.Types {
		if t.Description == "" {
			t.Description = docs[typeSources(tok)[0]].Doc
		}
		fillProperties(docs, t.Properties, typeSources(tok)...)
		spec.Types[tok] = t
	}
	for tok, r := range spec.Resources {
		goType := goTypeOf(tok)
		if r.Description == "" {
			r.Description = docs[goType].Doc
		}
		fillProperties(docs, r.Properties, goType)
		fillProperties(docs, r.InputProperties, inputSources(tok)...)
		spec.Resources[tok] = r
	}
}

// undocumented lists what in spec has no description: types, components,
// and their properties (`<token>.<property>`, `<token>.inputs.<property>`).
func undocumented(spec *schema.PackageSpec) []string {
	var out []string
	check := func(what, desc string) {
		if strings.TrimSpace(desc) == "" {
			out = append(out, what)
		}
	}
	for tok, t := range spec.Types {
		check(tok, t.Description)
		for name, prop := range t.Properties {
			check(tok+"."+name, prop.Description)
		}
	}
	for tok, r := range spec.Resources {
		check(tok, r.Description)
		for name, prop := range r.Properties {
			check(tok+"."+name, prop.Description)
		}
		for name, prop := range r.InputProperties {
			check(tok+".inputs."+name, prop.Description)
		}
	}
	sort.Strings(out)
	return out
}

// withDescriptions wraps prov's GetSchema with describeSchema, so that the
// engine and schema.json see the same documented schema.
func withDescriptions(prov p.Provider) p.Provider {
	inner := prov.GetSchema
	prov.GetSchema = func(ctx context.Context, req p.GetSchemaRequest) (p.GetSchemaResponse, error) {
		resp, err := inner(ctx, req)
		if err != nil {
			return resp, err
		}
		var spec schema.PackageSpec
		if err := json.Unmarshal([]byte(resp.Schema), &spec); err != nil {
			return resp, fmt.Errorf("describe schema: %w", err)
		}
		describeSchema(&spec, goDocs)
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(spec); err != nil {
			return resp, fmt.Errorf("describe schema: %w", err)
		}
		resp.Schema = strings.TrimSpace(out.String())
		return resp, nil
	}
	return prov
}
