// Package field collects validation problems with the path of the setting
// that caused them, so that a caller sees every problem at once and knows
// which key to change. It follows the shape of Kubernetes' and Kueue's
// field.ErrorList: small validateX(obj, path) functions append to a list and
// the list is returned whole.
package field

import (
	"fmt"
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

// Error is one problem: the setting's path and what to do about it.
type Error struct {
	// Path names the setting, e.g. `aksml:gpuPools[0].maxCount`.
	Path Path
	// Detail says what is wrong and what to change.
	Detail string
}

// Error implements error as "<path>: <detail>".
func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Path, e.Detail) }

// Invalid returns an Error for path with a formatted detail.
func Invalid(path Path, format string, args ...any) *Error {
	return &Error{Path: path, Detail: fmt.Sprintf(format, args...)}
}

// Required returns an Error for a missing required setting.
func Required(path Path, what string) *Error {
	return &Error{Path: path, Detail: "is required: " + what}
}

// NotSupported returns an Error for a value outside an enumeration.
func NotSupported[T ~string](path Path, value T, valid []T) *Error {
	vs := make([]string, len(valid))
	for i, v := range valid {
		vs[i] = fmt.Sprintf("%q", v)
	}
	return &Error{Path: path, Detail: fmt.Sprintf("%q is not supported; use one of %s", value, strings.Join(vs, ", "))}
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
