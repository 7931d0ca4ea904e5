// Package field collects validation problems with the path of the setting
// that caused them, so that a caller sees every problem at once and knows
// which key to change. It follows the shape of Kubernetes' and Kueue's
// field.ErrorList: small validateX(obj, path) functions append to a list and
// the list is returned whole.
package field

import (
	"fmt"
	"slices"
	"strings"
)

// Path is the location of a setting, written the way users write config
// keys: `aksml:gpuPools[1].mig.profile`.
type Path string

// NewPath returns the root path name (for stack config, `aksml:<key>`).
func NewPath(name string) Path { return Path(name) }

// Child returns the path of the named field below p.
func (p Path) Child(name string) Path {
	if p == "" {
		return Path(name)
	}
	return Path(string(p) + "." + name)
}

// Index returns the path of element i of the list at p.
func (p Path) Index(i int) Path { return Path(fmt.Sprintf("%s[%d]", p, i)) }

// Key returns the path of the map entry k at p.
func (p Path) Key(k string) Path { return Path(fmt.Sprintf("%s[%q]", p, k)) }

// String returns the path as written in config.
func (p Path) String() string { return string(p) }

// ErrorType is the kind of a problem, as in Kubernetes'
// k8s.io/apimachinery/pkg/util/validation/field.ErrorType: tests compare
// (Type, Path) pairs, so a message can be reworded without touching them.
type ErrorType string

// The kinds of problem aksml reports.
const (
	// ErrorTypeRequired: a required setting is missing (Required).
	ErrorTypeRequired ErrorType = "Required"
	// ErrorTypeInvalid: a value is malformed or out of range (Invalid).
	ErrorTypeInvalid ErrorType = "Invalid"
	// ErrorTypeNotSupported: a value is outside an enumeration
	// (NotSupported).
	ErrorTypeNotSupported ErrorType = "NotSupported"
	// ErrorTypeDuplicate: a value that must be unique is listed again
	// (Duplicate).
	ErrorTypeDuplicate ErrorType = "Duplicate"
	// ErrorTypeForbidden: a setting may not be used here, or a value is
	// reserved (Forbidden).
	ErrorTypeForbidden ErrorType = "Forbidden"
)

// Error is one problem: its kind, the setting's path and what to do about
// it.
type Error struct {
	// Type is the kind of problem.
	Type ErrorType
	// Path names the setting, e.g. `aksml:gpuPools[0].maxCount`.
	Path Path
	// Detail says what is wrong and what to change.
	Detail string
}

// Error implements error as "<path>: <detail>".
func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Path, e.Detail) }

// Invalid returns an ErrorTypeInvalid Error for path with a formatted
// detail.
func Invalid(path Path, format string, args ...any) *Error {
	return &Error{Type: ErrorTypeInvalid, Path: path, Detail: fmt.Sprintf(format, args...)}
}

// Duplicate returns an ErrorTypeDuplicate Error for a value listed again;
// the formatted detail names the value and what to keep.
func Duplicate(path Path, format string, args ...any) *Error {
	return &Error{Type: ErrorTypeDuplicate, Path: path, Detail: fmt.Sprintf(format, args...)}
}

// Forbidden returns an ErrorTypeForbidden Error for a setting that may not
// be used in this context, or a reserved value; the formatted detail says
// why and what to do instead.
func Forbidden(path Path, format string, args ...any) *Error {
	return &Error{Type: ErrorTypeForbidden, Path: path, Detail: fmt.Sprintf(format, args...)}
}

// Required returns an ErrorTypeRequired Error for a missing required
// setting.
func Required(path Path, what string) *Error {
	return &Error{Type: ErrorTypeRequired, Path: path, Detail: "is required: " + what}
}

// NotSupported returns an Error for a value outside an enumeration.
func NotSupported[T ~string](path Path, value T, valid []T) *Error {
	vs := make([]string, len(valid))
	for i, v := range valid {
		vs[i] = fmt.Sprintf("%q", v)
	}
	return &Error{Type: ErrorTypeNotSupported, Path: path, Detail: fmt.Sprintf("%q is not supported; use one of %s", value, strings.Join(vs, ", "))}
}

// OneOf returns a check for Unique that reports a value outside valid as
// NotSupported.
func OneOf[T ~string](valid []T) func(Path, T) *Error {
	return func(p Path, v T) *Error {
		if slices.Contains(valid, v) {
			return nil
		}
		return NotSupported(p, v, valid)
	}
}

// Unique validates the list at path: check reports a problem with one
// element (nil when it is fine), and an element that passes check but
// equals an earlier one is a Duplicate whose detail is dupFormat applied
// to the value, followed by " is listed twice" (dupFormat "zone %q" gives
// `zone "1" is listed twice`).
func Unique[T comparable](path Path, values []T, dupFormat string, check func(Path, T) *Error) ErrorList {
	var errs ErrorList
	seen := map[T]bool{}
	for i, v := range values {
		p := path.Index(i)
		if e := check(p, v); e != nil {
			errs = append(errs, e)
		} else if seen[v] {
			errs = append(errs, Duplicate(p, dupFormat+" is listed twice", v))
		}
		seen[v] = true
	}
	return errs
}

// ErrorList is every problem found by one validation pass.
type ErrorList []*Error

// ToAggregate returns nil for an empty list, otherwise one error whose
// message lists every problem on its own line.
func (l ErrorList) ToAggregate() error {
	if len(l) == 0 {
		return nil
	}
	return &AggregateError{Errors: l}
}

// AggregateError is the error returned by ErrorList.ToAggregate.
type AggregateError struct {
	// Errors are the problems, in the order they were found.
	Errors ErrorList
}

// Error lists every problem, one per line.
func (a *AggregateError) Error() string {
	var b strings.Builder
	if len(a.Errors) == 1 {
		b.WriteString("invalid configuration: ")
		b.WriteString(a.Errors[0].Error())
		return b.String()
	}
	fmt.Fprintf(&b, "invalid configuration: %d problems:", len(a.Errors))
	for _, e := range a.Errors {
		b.WriteString("\n  - ")
		b.WriteString(e.Error())
	}
	return b.String()
}
