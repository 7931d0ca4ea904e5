package conformance

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/aksml/aksml/internal/thirdparty"
)

// FindSpecs returns the azure-specs folder (thirdparty.SpecsDir from the working directory:
// $AKSML_AZURE_SPECS, $AKSML_SHARED_DIR/azure-specs, a shared/azure-specs above, or the cache
// `make deps` fills).
func FindSpecs() (string, error) {
	return thirdparty.SpecsDir("")
}

// Spec is the published request schema of one ARM type at one API version.
type Spec struct {
	// File is the spec file, repository-relative (specification/...).
	File string
	// Type and APIVersion identify the resource.
	Type, APIVersion string
	// Definition is the request body's definition name, e.g. AgentPool.
	Definition string
	// PathParams are the URL path parameters of the PUT (not in the body).
	PathParams []string
	// Schema is the request body schema, closed (see closeSchema).
	Schema *openapi3.Schema
}

// Specs indexes every PUT request body of the spec files by ARM type and
// API version.
type Specs struct {
	// Root is the azure-specs folder.
	Root string
	// Files are the spec files loaded, repository-relative.
	Files  []string
	byKey  map[string]*Spec
	closed map[*openapi3.Schema]*openapi3.Schema
}

// Lookup returns the spec of armType at apiVersion.
func (s *Specs) Lookup(armType, apiVersion string) (*Spec, bool) {
	sp, ok := s.byKey[specKey(armType, apiVersion)]
	return sp, ok
}

func specKey(armType, apiVersion string) string { return strings.ToLower(armType) + "@" + apiVersion }

// LoadSpecs loads every resource-manager spec under root/specification
// (common-types are loaded through the $refs that name them) with
// kin-openapi: the Swagger 2.0 file is read by openapi2, converted with
// openapi2conv.ToV3WithLoader, whose openapi3 loader resolves the relative
// $refs into the common-types files.
func LoadSpecs(root string) (*Specs, error) {
	s := &Specs{Root: root, byKey: map[string]*Spec{}, closed: map[*openapi3.Schema]*openapi3.Schema{}}
	var files []string
	err := filepath.WalkDir(filepath.Join(root, "specification"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && d.Name() == "common-types" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".json") {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no spec files under specification/", root)
	}
	for _, rel := range files {
		if err := s.load(rel); err != nil {
			return nil, fmt.Errorf("%s: %w", rel, err)
		}
		s.Files = append(s.Files, rel)
	}
	return s, nil
}

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

func (s *Specs) load(rel string) error {
	abs, err := filepath.Abs(filepath.Join(s.Root, filepath.FromSlash(rel)))
	if err != nil {
		return err
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return err
	}
	var doc2 openapi2.T
	if err := openapi2.UnmarshalFromData(data, &doc2); err != nil {
		return err
	}
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = true
	doc3, err := openapi2conv.ToV3WithLoader(&doc2, loader, &url.URL{Path: abs})
	if err != nil {
		return err
	}
	version := doc3.Info.Version
	paths := doc3.Paths.InMatchingOrder()
	sort.Strings(paths)
	for _, path := range paths {
		item := doc3.Paths.Value(path)
		if item.Put == nil || item.Put.RequestBody == nil || item.Put.RequestBody.Value == nil {
			continue
		}
		media := item.Put.RequestBody.Value.Content.Get("application/json")
		if media == nil || media.Schema == nil || media.Schema.Value == nil {
			continue
		}
		armType := typeOfPath(path)
		if armType == "" {
			continue
		}
		var params []string
		for _, m := range pathParam.FindAllStringSubmatch(path, -1) {
			if m[1] != "subscriptionId" {
				params = append(params, m[1])
			}
		}
		key := specKey(armType, version)
		// Prefer the resource-group scoped path: aksml deploys there.
		if old, ok := s.byKey[key]; ok && !(strings.Contains(path, "/resourceGroups/") && !slices.Contains(old.PathParams, "resourceGroupName")) {
			continue
		}
		s.byKey[key] = &Spec{
			File: rel, Type: armType, APIVersion: version,
			Definition: strings.TrimPrefix(media.Schema.Ref, "#/components/schemas/"),
			PathParams: params,
			Schema:     s.closeSchema(media.Schema.Value),
		}
	}
	return nil
}

// typeOfPath derives the ARM resource type from a PUT path:
// .../providers/Microsoft.X/a/{a}/b/{b} gives Microsoft.X/a/b.
func typeOfPath(path string) string {
	i := strings.LastIndex(path, "/providers/")
	if i < 0 {
		return ""
	}
	segs := strings.Split(strings.Trim(path[i+len("/providers/"):], "/"), "/")
	if len(segs) < 3 {
		return ""
	}
	out := []string{segs[0]}
	for j := 1; j < len(segs); j += 2 {
		if strings.HasPrefix(segs[j], "{") {
			return ""
		}
		out = append(out, segs[j])
	}
	return strings.Join(out, "/")
}

// closeSchema returns a copy of sc in which allOf is merged into one list of
// properties and required names, and every object schema that lists
// properties and says nothing about additionalProperties rejects unknown
// ones. This is the one place the tier goes beyond the library: JSON Schema
// cannot say "no properties besides those of all allOf parts" (an
// additionalProperties false on each part would reject the other parts'
// properties), and ARM resource providers reject unknown properties
// (see the package doc). Schemas with a discriminator stay open, since
// their subtypes add properties.
func (s *Specs) closeSchema(sc *openapi3.Schema) *openapi3.Schema {
	if sc == nil {
		return nil
	}
	if c, ok := s.closed[sc]; ok {
		return c
	}
	out := &openapi3.Schema{}
	s.closed[sc] = out
	*out = *sc
	out.AllOf = nil
	props := openapi3.Schemas{}
	var required []string
	discriminated := false
	var collect func(x *openapi3.Schema)
	collect = func(x *openapi3.Schema) {
		if x.Discriminator != nil {
			discriminated = true
		}
		for _, a := range x.AllOf {
			if a != nil && a.Value != nil {
				collect(a.Value)
				if out.Type == nil {
					out.Type = a.Value.Type
				}
			}
		}
		for k, v := range x.Properties {
			props[k] = v
		}
		required = append(required, x.Required...)
	}
	collect(sc)
	out.Properties = make(openapi3.Schemas, len(props))
	for k, v := range props {
		if v == nil || v.Value == nil {
			continue
		}
		out.Properties[k] = &openapi3.SchemaRef{Value: s.closeSchema(v.Value)}
	}
	out.Required = nil
	for _, r := range required {
		if !slices.Contains(out.Required, r) {
			out.Required = append(out.Required, r)
		}
	}
	if out.Items != nil && out.Items.Value != nil {
		out.Items = &openapi3.SchemaRef{Value: s.closeSchema(out.Items.Value)}
	}
	if openEnum(out) {
		out.Enum = nil
	}
	if ap := out.AdditionalProperties.Schema; ap != nil && ap.Value != nil {
		out.AdditionalProperties = openapi3.AdditionalProperties{Schema: &openapi3.SchemaRef{Value: s.closeSchema(ap.Value)}}
	}
	if len(out.Properties) > 0 {
		if out.Type == nil {
			out.Type = &openapi3.Types{openapi3.TypeObject}
		}
		if out.AdditionalProperties.Has == nil && out.AdditionalProperties.Schema == nil && !discriminated {
			closed := false
			out.AdditionalProperties.Has = &closed
		}
	}
	return out
}

// openEnum reports whether an enum lists known values of an open set:
// TypeSpec's "known values" unions, emitted as x-ms-enum names starting
// with Known (e.g. KnownDataFlowStreams, which Microsoft's own managed
// Prometheus template extends with Microsoft-PrometheusMetrics, and which
// accepts Custom-* streams). Every other enum, extensible
// (modelAsString) or not, is checked as a closed set: the RPs aksml
// targets refuse values outside it (e.g. networkProfile.networkPlugin).
func openEnum(sc *openapi3.Schema) bool {
	ext, _ := sc.Extensions["x-ms-enum"].(map[string]any)
	name, _ := ext["name"].(string)
	return len(sc.Enum) > 0 && strings.HasPrefix(name, "Known")
}

// Violation is one way a body breaks its spec.
type Violation struct {
	// Pointer is the JSON pointer of the offending value in the body.
	Pointer string
	// Kind is the JSON Schema keyword that failed (additionalProperties,
	// enum, type, required, readOnly, pattern, maxLength, ...).
	Kind string
	// Message is kin-openapi's reason.
	Message string
}

// Validate checks body against sp with kin-openapi's Schema.VisitJSON as
// a request (readOnly properties are errors), collecting every error.
// Errors on values that are unevaluated ARM expressions or Pulumi unknowns
// are skipped and counted in skipped.
func (sp *Spec) Validate(body map[string]any) (violations []Violation, skipped int) {
	err := sp.Schema.VisitJSON(any(body), openapi3.VisitAsRequest(), openapi3.MultiErrors())
	for _, se := range schemaErrors(err) {
		ptr := se.JSONPointer()
		if v, ok := lookupPointer(body, ptr); ok {
			if s, isStr := v.(string); isStr && (isExpression(s) || s == unknownValue) {
				skipped++
				continue
			}
		}
		violations = append(violations, Violation{Pointer: "/" + strings.Join(ptr, "/"), Kind: se.SchemaField, Message: se.Reason})
	}
	sort.Slice(violations, func(i, j int) bool {
		if violations[i].Pointer != violations[j].Pointer {
			return violations[i].Pointer < violations[j].Pointer
		}
		return violations[i].Message < violations[j].Message
	})
	return violations, skipped
}

// unknownValue is how internal/synth records a value not known before
// deployment.
const unknownValue = "<computed>"

// schemaErrors flattens kin-openapi's error tree into its schema errors.
func schemaErrors(err error) []*openapi3.SchemaError {
	if err == nil {
		return nil
	}
	var multi openapi3.MultiError
	if errors.As(err, &multi) {
		var out []*openapi3.SchemaError
		for _, e := range multi {
			out = append(out, schemaErrors(e)...)
		}
		return out
	}
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		if nested := schemaErrors(se.Origin); len(nested) > 0 && isMulti(se.Origin) {
			return nested
		}
		return []*openapi3.SchemaError{se}
	}
	return []*openapi3.SchemaError{{Reason: err.Error()}}
}

func isMulti(err error) bool {
	var multi openapi3.MultiError
	return err != nil && errors.As(err, &multi)
}

// lookupPointer returns the value at a JSON pointer's tokens.
func lookupPointer(v any, tokens []string) (any, bool) {
	for _, t := range tokens {
		switch c := v.(type) {
		case map[string]any:
			e, ok := c[t]
			if !ok {
				return nil, false
			}
			v = e
		case []any:
			var i int
			if _, err := fmt.Sscanf(t, "%d", &i); err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// countValues counts the JSON values below v (object members and array
// elements, recursively): the properties a validation looked at.
func countValues(v any) int {
	n := 0
	switch t := v.(type) {
	case map[string]any:
		for _, e := range t {
			n += 1 + countValues(e)
		}
	case []any:
		for _, e := range t {
			n += 1 + countValues(e)
		}
	}
	return n
}
