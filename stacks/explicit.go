package stacks

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/aksml/aksml/components/field"
)

// Explicit values are honoured or refused, never silently replaced (issue
// 12). The sections' Default methods treat a zero value ("" or 0, an empty
// list) as "not set" and fill in their default, which is right for a Go
// caller (a zero field is an unset field) but wrong for a config key the
// user wrote: `maxCount: 0` or `cohort: ""` would quietly become 3 or
// "aksml". explicitValuesKept compares what the user wrote with the
// defaulted config, key by key, and refuses every written value the
// defaults changed, naming the key and the value aksml would have used.

// explicitValuesKept returns a problem for every scalar (or empty list)
// written in raw that c, after Default, holds with another value.
func explicitValuesKept(raw map[string]string, c *Config) field.ErrorList {
	var errs field.ErrorList
	v := reflect.ValueOf(c).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		k := t.Field(i).Tag.Get("key")
		val, ok := raw[Namespace+":"+k]
		if k == "-" || !ok {
			continue
		}
		var written any
		if err := json.Unmarshal([]byte(val), &written); err != nil {
			written = val // a plain string scalar
		}
		b, err := json.Marshal(v.Field(i).Interface())
		if err != nil {
			continue
		}
		var used any
		if json.Unmarshal(b, &used) != nil {
			continue
		}
		errs = append(errs, replaced(field.NewPath(Namespace+":"+k), t.Field(i).Type, written, used)...)
	}
	return errs
}

// replaced walks what was written next to what is used, with the Go type
// that decoded it (for struct field paths versus map key paths).
func replaced(path field.Path, t reflect.Type, written, used any) field.ErrorList {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch w := written.(type) {
	case map[string]any:
		u, _ := used.(map[string]any)
		var fields map[string]reflect.Type
		if t.Kind() == reflect.Struct {
			fields = jsonFields(t)
		}
		var errs field.ErrorList
		for _, k := range sortedKeys(w) {
			child, ct := path.Key(k), reflect.Type(nil)
			switch t.Kind() {
			case reflect.Struct:
				child, ct = path.Child(k), fields[k]
			case reflect.Map:
				ct = t.Elem()
			}
			if ct == nil {
				continue // not a field of the decoded type (a workload's kind fields)
			}
			errs = append(errs, replaced(child, ct, w[k], u[k])...)
		}
		return errs
	case []any:
		u, _ := used.([]any)
		if len(w) == 0 && len(u) > 0 {
			return field.ErrorList{field.Invalid(path, "is written as an empty list, which aksml would replace by its default %s; remove the key to take the default, or list what you want", render(used))}
		}
		if t.Kind() != reflect.Slice {
			return nil
		}
		var errs field.ErrorList
		for i := range w {
			if i < len(u) {
				errs = append(errs, replaced(path.Index(i), t.Elem(), w[i], u[i])...)
			}
		}
		return errs
	case nil:
		return nil
	}
	if used == nil || sameScalar(written, used) {
		// Not in the decoded config, or kept as written.
		return nil
	}
	return field.ErrorList{field.Invalid(path, "is written as %s, which aksml does not honour: it would use %s (the default) instead; remove the key to take the default, or write a value aksml accepts (see README, Config keys)", render(written), render(used))}
}

// sameScalar compares a written scalar with the used one: numbers by value,
// and a number written as a string ("4") with the number it decodes to.
func sameScalar(written, used any) bool {
	if reflect.DeepEqual(written, used) {
		return true
	}
	ws, uf := fmt.Sprint(written), fmt.Sprint(used)
	if f, err := strconv.ParseFloat(ws, 64); err == nil {
		if g, err := strconv.ParseFloat(uf, 64); err == nil {
			return f == g
		}
	}
	return ws == uf
}

// render shows a value in messages the way it is written in YAML.
func render(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case []any:
		var parts []string
		for _, e := range x {
			parts = append(parts, render(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprint(v)
}
