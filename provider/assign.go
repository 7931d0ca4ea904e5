package provider

import (
	"fmt"
	"reflect"
	"slices"
)

// assign sets each pulumi-tagged field of the struct src (those of its
// embedded structs, such as Container, included) on the field of the same
// Go name of the struct *dst (fields promoted from embedded structs such as
// workloads.Common included): an optional (pointer) value
// is dereferenced when set and left at the Go zero value, the component's
// default, when unset; a named type such as workloads.Scheduler takes the
// string. Fields named in skip are the caller's. A field without a
// destination is an error, so a misnamed Arg cannot be dropped silently.
func assign(dst, src any, skip ...string) error {
	dv := reflect.ValueOf(dst).Elem()
	sv := reflect.ValueOf(src)
	st := sv.Type()
	for i := range st.NumField() {
		f := st.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			if err := assign(dst, sv.Field(i).Interface(), skip...); err != nil {
				return err
			}
			continue
		}
		if _, tagged := f.Tag.Lookup("pulumi"); !tagged || slices.Contains(skip, f.Name) {
			continue
		}
		d := dv.FieldByName(f.Name)
		if !d.IsValid() || !d.CanSet() {
			return fmt.Errorf("provider: %s has no field %s for %s", dv.Type(), f.Name, st)
		}
		v := sv.Field(i)
		if v.Kind() == reflect.Pointer && d.Kind() != reflect.Pointer {
			if v.IsNil() {
				continue
			}
			v = v.Elem()
		}
		switch {
		case v.Type().AssignableTo(d.Type()):
			d.Set(v)
		case v.Kind() == d.Kind() && v.Type().ConvertibleTo(d.Type()):
			d.Set(v.Convert(d.Type()))
		default:
			return fmt.Errorf("provider: cannot set %s.%s (%s) from %s", dv.Type(), f.Name, d.Type(), v.Type())
		}
	}
	return nil
}
