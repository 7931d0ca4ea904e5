package rules

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	kresource "k8s.io/apimachinery/pkg/api/resource"
)

// Unknown is how a value that is not known before deployment (a Pulumi
// computed value, e.g. an ID during preview) appears in Resource.Inputs.
// Rules treat it as "cannot tell" and never report on it.
const Unknown = "<computed>"

// mapOf returns v as a map, or nil.
func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// listOf returns v as a list, or nil.
func listOf(v any) []any {
	l, _ := v.([]any)
	return l
}

// str returns v as a string, or "" (also for Unknown).
func str(v any) string {
	s, _ := v.(string)
	if s == Unknown {
		return ""
	}
	return s
}

// get walks a dotted path below m, returning nil when a step is missing.
func get(m map[string]any, path string) any {
	var cur any = m
	for _, key := range strings.Split(path, ".") {
		next, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = next[key]
	}
	return cur
}

// num returns v as a number: JSON numbers, Go integers (YAML decodes them so)
// and numeric strings count.
func num(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
		return f, err == nil
	}
	return 0, false
}

// boolOf returns v as a boolean; the strings "true" and "false" count.
func boolOf(v any) (value, ok bool) {
	switch b := v.(type) {
	case bool:
		return b, true
	case string:
		p, err := strconv.ParseBool(b)
		return p, err == nil
	}
	return false, false
}

// stringMap returns the string entries of a map (labels, annotations,
// nodeSelector).
func stringMap(v any) map[string]string {
	out := map[string]string{}
	for k, e := range mapOf(v) {
		switch s := e.(type) {
		case string:
			out[k] = s
		case bool, float64, int, int64:
			out[k] = fmt.Sprint(s)
		}
	}
	return out
}

// stringList returns the string elements of a list.
func stringList(v any) []string {
	var out []string
	for _, e := range listOf(v) {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// decodeJSON returns v, or, when v is a string holding a JSON object or
// list, the decoded value (ARM templates may be passed as JSON text).
func decodeJSON(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	var out any
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return v
	}
	return out
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ParseQuantity parses a Kubernetes resource quantity into base units:
// "16Gi" is 17179869184, "500m" is 0.5, "4" and 4 are 4, "1e3" is 1000. It
// accepts the binary suffixes Ki..Ei, the decimal suffixes n, u, m, k, M, G,
// T, P, E, and decimal exponents: the grammar of
// k8s.io/apimachinery/pkg/api/resource, which it calls. It returns false for
// anything else, including Unknown.
func ParseQuantity(v any) (float64, bool) {
	if s, ok := v.(string); ok {
		return parseQuantityString(strings.TrimSpace(s))
	}
	return num(v)
}

func parseQuantityString(s string) (float64, bool) {
	q, err := kresource.ParseQuantity(s)
	if err != nil || !strings.ContainsAny(s, "0123456789") {
		return 0, false
	}
	return q.AsApproximateFloat64(), true
}

// formatQuantity renders a quantity for messages the way it was written.
func formatQuantity(v any) string {
	switch q := v.(type) {
	case string:
		return q
	case float64:
		return strconv.FormatFloat(q, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// sameQuantity compares two parsed quantities.
func sameQuantity(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}
