// Package fieldtest compares validation errors by kind and path, not by
// wording, the way Kueue's webhook tests compare field.ErrorLists
// (https://github.com/kubernetes-sigs/kueue, pkg/webhooks). Message wording
// is checked once, in the field package's own tests and in the stacks'
// adversarial tests that check each message says how to fix the problem.
package fieldtest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aksml/aksml/components/field"
)

// Want is one expected problem: its kind and the path of the setting.
type Want struct {
	// Type is the kind of problem.
	Type field.ErrorType
	// Path is the setting's path as written, e.g. `aksml:gpuPools[0].zones[1]`.
	Path string
}

// String returns "Type path".
func (w Want) String() string { return fmt.Sprintf("%s %s", w.Type, w.Path) }

// Invalid expects an ErrorTypeInvalid problem at path.
func Invalid(path string) Want { return Want{field.ErrorTypeInvalid, path} }

// Required expects an ErrorTypeRequired problem at path.
func Required(path string) Want { return Want{field.ErrorTypeRequired, path} }

// NotSupported expects an ErrorTypeNotSupported problem at path.
func NotSupported(path string) Want { return Want{field.ErrorTypeNotSupported, path} }

// Duplicate expects an ErrorTypeDuplicate problem at path.
func Duplicate(path string) Want { return Want{field.ErrorTypeDuplicate, path} }

// Forbidden expects an ErrorTypeForbidden problem at path.
func Forbidden(path string) Want { return Want{field.ErrorTypeForbidden, path} }

// Errors returns the field errors in err: the list of an AggregateError
// (also when wrapped), a lone *field.Error, or nil. Any other error is
// reported as a test failure.
func Errors(t testing.TB, err error) field.ErrorList {
	t.Helper()
	if err == nil {
		return nil
	}
	var agg *field.AggregateError
	if errors.As(err, &agg) {
		return agg.Errors
	}
	var one *field.Error
	if errors.As(err, &one) {
		return field.ErrorList{one}
	}
	t.Errorf("%v is not a validation error (field.AggregateError or field.Error)", err)
	return nil
}

// Got returns the (Type, Path) pairs of errs, in order.
func Got(errs field.ErrorList) []Want {
	out := make([]Want, len(errs))
	for i, e := range errs {
		out[i] = Want{e.Type, e.Path.String()}
	}
	return out
}

// Equal checks that err holds exactly the problems want, in any order, and
// that each has a detail (what to change). An empty want means err must be
// nil.
func Equal(t testing.TB, err error, want ...Want) bool {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Errorf("want no error, got %v", err)
			return false
		}
		return true
	}
	got := Got(Errors(t, err))
	ok := sameSet(got, want)
	if !ok {
		t.Errorf("problems differ\n got: %s\nwant: %s\nerror: %v", list(got), list(want), err)
	}
	return ok && detailed(t, err)
}

// Contains checks that err holds each of the problems want (and maybe
// others), and that each has a detail. It fails when err is nil.
func Contains(t testing.TB, err error, want ...Want) bool {
	t.Helper()
	if err == nil {
		t.Errorf("want problems %s, got no error", list(want))
		return false
	}
	got := Got(Errors(t, err))
	ok := true
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("missing problem %s\n got: %s\nerror: %v", w, list(got), err)
			ok = false
		}
	}
	return ok && detailed(t, err)
}

// ListEqual is Equal for an ErrorList (nil or empty when valid).
func ListEqual(t testing.TB, errs field.ErrorList, want ...Want) bool {
	t.Helper()
	return Equal(t, errs.ToAggregate(), want...)
}

func detailed(t testing.TB, err error) bool {
	t.Helper()
	for _, e := range Errors(t, err) {
		if strings.TrimSpace(e.Detail) == "" {
			t.Errorf("%s %s has no detail saying what to change", e.Type, e.Path)
			return false
		}
	}
	return true
}

func sameSet(got, want []Want) bool {
	if len(got) != len(want) {
		return false
	}
	rest := slices.Clone(got)
	for _, w := range want {
		i := slices.Index(rest, w)
		if i < 0 {
			return false
		}
		rest = slices.Delete(rest, i, i+1)
	}
	return true
}

func list(ws []Want) string {
	if len(ws) == 0 {
		return "(none)"
	}
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = w.String()
	}
	return strings.Join(s, "; ")
}
