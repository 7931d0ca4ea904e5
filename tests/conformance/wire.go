package conformance

import (
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"
)

// wireBody maps the inputs of a typed azure-native resource onto the ARM
// request body the provider sends, guided by the spec: path parameters are
// dropped; an input that is not a (writable) property of the object is
// looked up in the object's `properties` (the SDK flattens
// `x-ms-client-flatten` properties); SDK names are matched to wire names
// exactly, by `x-ms-client-name`, or by the provider's camel-casing of
// kebab-case wire names (autoScalerProfile's `scan-interval` is the SDK's
// `scanInterval`). kin-openapi has no notion of these client-side
// renamings: openapi2conv drops the extensions on `$ref` properties, where
// `x-ms-client-flatten` sits, so this walker does it. An input that matches
// nothing stays under its own name, so validation reports it as unknown.
func wireBody(inputs map[string]any, sp *Spec) map[string]any {
	top := map[string]any{}
	for k, v := range inputs {
		if !slices.Contains(sp.PathParams, k) && k != "scope" {
			top[k] = v
		}
	}
	return wireObject(top, sp.Schema, true)
}

// wireObject maps one object. An input that matches nothing stays where
// it is, except at the resource's top level, where the SDK flattens
// `properties`: there it goes into `properties`, where the provider would
// have sent a property of that name.
func wireObject(in map[string]any, sc *openapi3.Schema, top bool) map[string]any {
	out := map[string]any{}
	var flat *openapi3.Schema
	if p := sc.Properties["properties"]; p != nil && p.Value != nil && len(p.Value.Properties) > 0 {
		flat = p.Value
	}
	for _, k := range slices.Sorted(maps.Keys(in)) {
		if placeInput(out, sc, flat, k, in[k]) {
			continue
		}
		if top && flat != nil {
			flattened(out)[k] = in[k]
			continue
		}
		out[k] = in[k]
	}
	return out
}

// flattened returns out's `properties` object, creating it.
func flattened(out map[string]any) map[string]any {
	inner, _ := out["properties"].(map[string]any)
	if inner == nil {
		inner = map[string]any{}
		out["properties"] = inner
	}
	return inner
}

// placeInput puts input k into out under its wire name: a writable
// property of the object, else of its flattened `properties`, else a
// read-only one (which validation then reports).
func placeInput(out map[string]any, sc, flat *openapi3.Schema, k string, v any) bool {
	for _, readOnly := range []bool{false, true} {
		if name, ps := matchProperty(sc, k, readOnly); ps != nil {
			out[name] = wireValue(v, ps)
			return true
		}
		if flat == nil || k == "properties" {
			continue
		}
		if name, ps := matchProperty(flat, k, readOnly); ps != nil {
			flattened(out)[name] = wireValue(v, ps)
			return true
		}
	}
	return false
}

func wireValue(v any, sc *openapi3.Schema) any {
	switch t := v.(type) {
	case map[string]any:
		if len(sc.Properties) > 0 {
			return wireObject(t, sc, false)
		}
		if ap := sc.AdditionalProperties.Schema; ap != nil && ap.Value != nil {
			out := make(map[string]any, len(t))
			for k, e := range t {
				out[k] = wireValue(e, ap.Value)
			}
			return out
		}
	case []any:
		if sc.Items != nil && sc.Items.Value != nil {
			out := make([]any, len(t))
			for i, e := range t {
				out[i] = wireValue(e, sc.Items.Value)
			}
			return out
		}
	}
	return v
}

// matchProperty finds the wire property of sc that the SDK input name k
// stands for. readOnly properties match only when readOnly is true.
func matchProperty(sc *openapi3.Schema, k string, readOnly bool) (string, *openapi3.Schema) {
	ok := func(p *openapi3.SchemaRef) bool { return p != nil && p.Value != nil && (readOnly || !p.Value.ReadOnly) }
	if p := sc.Properties[k]; ok(p) {
		return k, p.Value
	}
	for _, name := range slices.Sorted(maps.Keys(sc.Properties)) {
		p := sc.Properties[name]
		if !ok(p) {
			continue
		}
		if cn, _ := p.Value.Extensions["x-ms-client-name"].(string); strings.EqualFold(cn, k) {
			return name, p.Value
		}
		if camel(name) == k {
			return name, p.Value
		}
	}
	return "", nil
}

// camel turns "scale-down-delay-after-add" into "scaleDownDelayAfterAdd".
func camel(name string) string {
	parts := strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '_' })
	for i := range parts {
		if i == 0 {
			r := []rune(parts[i])
			r[0] = unicode.ToLower(r[0])
			parts[i] = string(r)
			continue
		}
		r := []rune(parts[i])
		r[0] = unicode.ToUpper(r[0])
		parts[i] = string(r)
	}
	return strings.Join(parts, "")
}
