package stacks

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/aksml/aksml/components/field"
)

// decodeValue decodes one raw config value (as the Pulumi CLI hands it to a
// program: a plain string for scalars, JSON for objects and lists) into
// target, a pointer. Unlike encoding/json it reports every problem with its
// full key path, including unknown fields such as a `vmsize` typo, before
// anything is decoded.
func decodeValue(path field.Path, raw string, target any) field.ErrorList {
	t := reflect.TypeOf(target).Elem()
	base := t
	for base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	switch base.Kind() {
	case reflect.String:
		reflect.ValueOf(target).Elem().Set(scalarValue(t, reflect.ValueOf(raw).Convert(base)))
		return nil
	case reflect.Bool:
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return field.ErrorList{field.Invalid(path, "%q is not a boolean; use true or false", raw)}
		}
		reflect.ValueOf(target).Elem().Set(scalarValue(t, reflect.ValueOf(b)))
		return nil
	case reflect.Int, reflect.Float64:
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil || (base.Kind() == reflect.Int && f != math.Trunc(f)) {
			return field.ErrorList{field.Invalid(path, "%q is not a %s", raw, kindName(base))}
		}
		v := reflect.ValueOf(f)
		if base.Kind() == reflect.Int {
			v = reflect.ValueOf(int(f))
		}
		reflect.ValueOf(target).Elem().Set(scalarValue(t, v))
		return nil
	}
	var generic any
	if err := json.Unmarshal([]byte(raw), &generic); err != nil {
		return field.ErrorList{field.Invalid(path, "is not valid structured config (%v); write it as a YAML object or list in Pulumi.<stack>.yaml", err)}
	}
	if errs := checkShape(generic, t, path); len(errs) > 0 {
		return errs
	}
	if err := json.Unmarshal([]byte(raw), target); err != nil {
		return field.ErrorList{field.Invalid(path, "%v", err)}
	}
	return nil
}

// scalarValue wraps v in as many pointers as t has.
func scalarValue(t reflect.Type, v reflect.Value) reflect.Value {
	if t.Kind() != reflect.Pointer {
		return v.Convert(t)
	}
	inner := scalarValue(t.Elem(), v)
	p := reflect.New(t.Elem())
	p.Elem().Set(inner)
	return p
}

// checkShape compares decoded JSON v against the Go type t and returns every
// mismatch with its path.
func checkShape(v any, t reflect.Type, path field.Path) field.ErrorList {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if sc, ok := reflect.New(t).Interface().(shapeChecker); ok && v != nil {
		return sc.checkShape(v, path)
	}
	if v == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return field.ErrorList{field.Invalid(path, "must be an object, got %s", describe(v))}
		}
		fields := jsonFields(t)
		var errs field.ErrorList
		for _, k := range sortedKeys(obj) {
			ft, known := fields[k]
			if !known {
				errs = append(errs, field.Invalid(path.Child(k), "unknown field%s; valid fields are %s", suggest(k, fields), strings.Join(sortedKeys(fields), ", ")))
				continue
			}
			errs = append(errs, checkShape(obj[k], ft, path.Child(k))...)
		}
		return errs
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return field.ErrorList{field.Invalid(path, "must be an object, got %s", describe(v))}
		}
		var errs field.ErrorList
		for _, k := range sortedKeys(obj) {
			errs = append(errs, checkShape(obj[k], t.Elem(), path.Key(k))...)
		}
		return errs
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			return field.ErrorList{field.Invalid(path, "must be a list, got %s", describe(v))}
		}
		var errs field.ErrorList
		for i, e := range arr {
			errs = append(errs, checkShape(e, t.Elem(), path.Index(i))...)
		}
		return errs
	case reflect.String:
		if _, ok := v.(string); !ok {
			return field.ErrorList{field.Invalid(path, "must be a string, got %s", describe(v))}
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return field.ErrorList{field.Invalid(path, "must be true or false, got %s", describe(v))}
		}
	case reflect.Int, reflect.Int32, reflect.Int64:
		f, ok := v.(float64)
		if !ok || f != math.Trunc(f) {
			return field.ErrorList{field.Invalid(path, "must be a whole number, got %s", describe(v))}
		}
	case reflect.Float64, reflect.Float32:
		if _, ok := v.(float64); !ok {
			return field.ErrorList{field.Invalid(path, "must be a number, got %s", describe(v))}
		}
	}
	return nil
}

// shapeChecker is a config type whose schema depends on its content (a
// workload's fields depend on its kind): it checks its own shape.
type shapeChecker interface {
	checkShape(v any, path field.Path) field.ErrorList
}

// jsonFields maps the JSON names of t's exported fields to their types,
// following embedded structs (also unexported ones, whose exported fields
// encoding/json decodes).
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		embedded := f.Anonymous && ft.Kind() == reflect.Struct
		if !f.IsExported() && !embedded {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if embedded && name == "" {
			for k, v := range jsonFields(ft) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// suggest returns ` (did you mean "vmSize"?)` for a key that differs from a
// valid one only in case or by one character.
func suggest[V any](k string, valid map[string]V) string {
	best, bestD := "", 3
	for name := range valid {
		if strings.EqualFold(name, k) {
			return fmt.Sprintf(" (did you mean %q?)", name)
		}
		if d := field.Distance(strings.ToLower(k), strings.ToLower(name)); d < bestD {
			best, bestD = name, d
		}
	}
	if best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

func describe(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", x)
	case float64:
		return fmt.Sprintf("the number %v", x)
	case bool:
		return fmt.Sprintf("%v", x)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%v", v)
}

func kindName(t reflect.Type) string {
	if t.Kind() == reflect.Int {
		return "whole number"
	}
	return "number"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
