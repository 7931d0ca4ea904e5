package armdeploy

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// OpenAPISpec is a published Azure REST API spec (Swagger 2.0 JSON, as in
// Azure/azure-rest-api-specs) used to check the resource bodies aksml puts
// into ARM templates before any of them reaches Azure. Relative `$ref`s to
// other files are followed from the file's directory, so the whole
// `specification/` tree must be present (`make deps` provides one, see internal/thirdparty).
type OpenAPISpec struct {
	path  string
	files map[string]map[string]any
	// extra are the values accepted outside an extensible enum in the
	// current check.
	extra []string
}

// LoadOpenAPISpec reads the spec file at path.
func LoadOpenAPISpec(path string) (*OpenAPISpec, error) {
	s := &OpenAPISpec{path: filepath.Clean(path), files: map[string]map[string]any{}}
	if _, err := s.file(s.path); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *OpenAPISpec) file(path string) (map[string]any, error) {
	if doc, ok := s.files[path]; ok {
		return doc, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.files[path] = doc
	return doc, nil
}

// templateOnlyKeys are keys of an ARM template resource that are template
// syntax, not part of the REST body.
var templateOnlyKeys = []string{"type", "apiVersion", "name", "dependsOn", "scope", "copy", "condition", "comments"}

// CheckResource checks an ARM template resource (type, apiVersion, name,
// location, properties, ...) against the spec definition of its REST body,
// e.g. "AgentPool". It returns one problem per property the definition
// does not declare, per read-only property set, and per value outside the
// enum of its property. ARM expressions ("[...]") are accepted as any
// value. extensible lists values the caller knows to be valid although an
// extensible enum (x-ms-enum modelAsString) of the spec does not list them,
// with the source of that knowledge next to the call; any other value
// outside an enum is a problem.
func (s *OpenAPISpec) CheckResource(definition string, resource map[string]any, extensible ...string) []string {
	body := map[string]any{}
	for k, v := range resource {
		if !slices.Contains(templateOnlyKeys, k) {
			body[k] = v
		}
	}
	return s.Check(definition, body, extensible...)
}

// Check checks a REST body against the spec definition, as CheckResource
// does. The body may hold any JSON-marshalable Go values (it is normalised
// through JSON first).
func (s *OpenAPISpec) Check(definition string, body map[string]any, extensible ...string) []string {
	s.extra = extensible
	var plain any
	raw, err := json.Marshal(body)
	if err == nil {
		err = json.Unmarshal(raw, &plain)
	}
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", definition, err)}
	}
	var problems []string
	s.checkValue(plain, map[string]any{"$ref": "#/definitions/" + definition}, s.path, definition, &problems)
	sort.Strings(problems)
	return problems
}

// resolve follows $ref from file and returns the schema and the file it
// lives in.
func (s *OpenAPISpec) resolve(schema map[string]any, file string) (map[string]any, string) {
	for i := 0; i < 32; i++ {
		ref, ok := schema["$ref"].(string)
		if !ok {
			return schema, file
		}
		target, pointer, _ := strings.Cut(ref, "#")
		if target != "" {
			file = filepath.Join(filepath.Dir(file), target)
		}
		doc, err := s.file(file)
		if err != nil {
			return map[string]any{}, file
		}
		var cur any = doc
		for _, part := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
			m, _ := cur.(map[string]any)
			cur = m[part]
		}
		next, _ := cur.(map[string]any)
		if next == nil {
			return map[string]any{}, file
		}
		schema = next
	}
	return schema, file
}

// property is one declared property and the file its schema lives in.
type property struct {
	schema map[string]any
	file   string
}

// properties returns the declared properties of a schema, through allOf,
// and its additionalProperties schema (nil when none).
func (s *OpenAPISpec) properties(schema map[string]any, file string) (map[string]property, *property) {
	schema, file = s.resolve(schema, file)
	out := map[string]property{}
	var additional *property
	for _, parent := range asList(schema["allOf"]) {
		pm, _ := parent.(map[string]any)
		props, add := s.properties(pm, file)
		for k, v := range props {
			out[k] = v
		}
		if add != nil {
			additional = add
		}
	}
	for k, v := range asMap(schema["properties"]) {
		vm, _ := v.(map[string]any)
		out[k] = property{vm, file}
	}
	switch a := schema["additionalProperties"].(type) {
	case map[string]any:
		additional = &property{a, file}
	case bool:
		if a {
			additional = &property{map[string]any{}, file}
		}
	}
	return out, additional
}

func (s *OpenAPISpec) checkValue(value any, schema map[string]any, file, path string, problems *[]string) {
	if str, ok := value.(string); ok && strings.HasPrefix(str, "[") && strings.HasSuffix(str, "]") {
		return
	}
	resolved, rfile := s.resolve(schema, file)
	switch v := value.(type) {
	case map[string]any:
		props, additional := s.properties(resolved, rfile)
		for _, k := range slices.Sorted(maps.Keys(v)) {
			p, ok := props[k]
			switch {
			case ok:
				if ro, _ := p.schema["readOnly"].(bool); ro {
					*problems = append(*problems, fmt.Sprintf("%s.%s: is read-only", path, k))
				}
				s.checkValue(v[k], p.schema, p.file, path+"."+k, problems)
			case additional != nil:
				s.checkValue(v[k], additional.schema, additional.file, path+"."+k, problems)
			default:
				*problems = append(*problems, fmt.Sprintf("%s.%s: not declared by the spec", path, k))
			}
		}
	case []any:
		items, _ := resolved["items"].(map[string]any)
		for i, e := range v {
			if items != nil {
				s.checkValue(e, items, rfile, fmt.Sprintf("%s[%d]", path, i), problems)
			}
		}
	case string:
		enum := asList(resolved["enum"])
		if len(enum) == 0 || slices.ContainsFunc(enum, func(e any) bool { es, _ := e.(string); return strings.EqualFold(es, v) }) {
			return
		}
		if open, _ := asMap(resolved["x-ms-enum"])["modelAsString"].(bool); open && slices.Contains(s.extra, v) {
			return
		}
		*problems = append(*problems, fmt.Sprintf("%s: %q is not one of %v", path, v, enum))
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
