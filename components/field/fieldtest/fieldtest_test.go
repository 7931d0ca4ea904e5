package fieldtest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aksml/aksml/components/field"
)

// recorder counts the failures a check reports instead of failing the test.
type recorder struct {
	testing.TB
	failures int
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(string, ...any)     { r.failures++ }
func (r *recorder) Fatalf(f string, a ...any) { r.Errorf(f, a...) }

func problems() error {
	p := field.NewPath("aksml:cluster")
	return field.ErrorList{
		field.Required(p.Child("name"), "the cluster name"),
		field.Duplicate(p.Child("zones").Index(1), "zone %q is listed twice", "1"),
	}.ToAggregate()
}

func TestEqualAndContainsPass(t *testing.T) {
	err := problems()
	Equal(t, err, Duplicate("aksml:cluster.zones[1]"), Required("aksml:cluster.name"))
	Contains(t, err, Required("aksml:cluster.name"))
	Contains(t, fmt.Errorf("preview: %w", err), Duplicate("aksml:cluster.zones[1]"))
	Equal(t, nil)
	ListEqual(t, nil)
	Equal(t, field.Invalid("p", "bad"), Invalid("p"))
}

func TestChecksFail(t *testing.T) {
	err := problems()
	for name, check := range map[string]func(testing.TB) bool{
		"wrong type": func(tb testing.TB) bool {
			return Equal(tb, err, Invalid("aksml:cluster.name"), Duplicate("aksml:cluster.zones[1]"))
		},
		"wrong path":      func(tb testing.TB) bool { return Contains(tb, err, Required("aksml:cluster.nam")) },
		"missing problem": func(tb testing.TB) bool { return Equal(tb, err, Required("aksml:cluster.name")) },
		"extra want": func(tb testing.TB) bool {
			return Equal(tb, err, Required("aksml:cluster.name"), Duplicate("aksml:cluster.zones[1]"), Forbidden("x"))
		},
		"no error":          func(tb testing.TB) bool { return Contains(tb, nil, Required("x")) },
		"unexpected error":  func(tb testing.TB) bool { return Equal(tb, err) },
		"not a field error": func(tb testing.TB) bool { return Contains(tb, errors.New("x"), Required("x")) },
		"no detail": func(tb testing.TB) bool {
			return Equal(tb, &field.Error{Type: field.ErrorTypeInvalid, Path: "p"}, Invalid("p"))
		},
	} {
		r := &recorder{TB: t}
		if check(r) || r.failures == 0 {
			t.Errorf("%s: the check passed", name)
		}
	}
}
