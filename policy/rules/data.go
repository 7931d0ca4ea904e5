package rules

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
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

// quantitySuffixes are the Kubernetes quantity suffixes and their factors.
var quantitySuffixes = []struct {
	suffix string
	factor float64
}{
	{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40}, {"Pi", 1 << 50}, {"Ei", 1 << 60},
	{"n", 1e-9}, {"u", 1e-6}, {"m", 1e-3},
	{"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18},
}

// ParseQuantity parses a Kubernetes resource quantity into base units:
// "16Gi" is 17179869184, "500m" is 0.5, "4" and 4 are 4, "1e3" is 1000. It
// accepts the binary suffixes Ki..Ei, the decimal suffixes n, u, m, k, M, G,
// T, P, E, and decimal exponents. It returns false for anything else,
// including Unknown.
func ParseQuantity(v any) (float64, bool) {
	if s, ok := v.(string); ok {
		return parseQuantityString(strings.TrimSpace(s))
	}
	return num(v)
}

func parseQuantityString(s string) (float64, bool) {
	if s == "" {
		return 0, false
	}
	number, factor := s, 1.0
	for _, q := range quantitySuffixes {
		if rest, ok := strings.CutSuffix(s, q.suffix); ok && rest != "" && isDecimal(rest) {
			number, factor = rest, q.factor
			break
		}
	}
	if factor == 1 && !isDecimal(number) && !isExponent(number) {
		return 0, false
	}
	f, err := strconv.ParseFloat(number, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f * factor, true
}

// isDecimal reports whether s is a signed decimal number without exponent.
func isDecimal(s string) bool {
	s = strings.TrimLeft(s, "+-")
	if s == "" || s == "." {
		return false
	}
	dot := false
	for _, c := range s {
		switch {
		case c == '.' && !dot:
			dot = true
		case c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return true
}

// isExponent reports whether s is a decimal number with an e/E exponent.
func isExponent(s string) bool {
	i := strings.IndexAny(s, "eE")
	if i <= 0 {
		return false
	}
	exp := strings.TrimLeft(s[i+1:], "+-")
	if exp == "" {
		return false
	}
	for _, c := range exp {
		if c < '0' || c > '9' {
			return false
		}
	}
	return isDecimal(s[:i])
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
