package rules

import (
	"fmt"
	"io"
	"strings"
)

// WriteReport writes the violations of one stack for a reviewer, grouped by
// severity (mandatory first), each with its rule ID, message and resource,
// and returns how many are mandatory.
func WriteReport(w io.Writer, s *Stack, vs []Violation) (mandatory int, err error) {
	groups := map[Severity][]Violation{}
	for _, v := range vs {
		groups[v.Severity] = append(groups[v.Severity], v)
	}
	mandatory = len(groups[Mandatory])
	var b strings.Builder
	fmt.Fprintf(&b, "stack %s (environment %s): %d mandatory, %d advisory violation(s)\n",
		s.Name, s.Environment, mandatory, len(groups[Advisory]))
	for _, sev := range []Severity{Mandatory, Advisory} {
		if len(groups[sev]) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s\n", strings.ToUpper(string(sev)))
		for _, v := range groups[sev] {
			fmt.Fprintf(&b, "  %s  %s\n", v.RuleID, v.Message)
			if v.Resource != "" {
				fmt.Fprintf(&b, "      resource: %s\n", v.Resource)
			}
		}
	}
	_, err = io.WriteString(w, b.String())
	return mandatory, err
}

// WriteMarkdownTable writes the rule catalogue as a markdown table:
// ID | severity | what it checks | source.
func WriteMarkdownTable(w io.Writer) error {
	var b strings.Builder
	b.WriteString("| ID | Severity | What it checks | Source |\n|---|---|---|---|\n")
	for _, r := range All() {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.ID, r.Severity, cell(r.Title), cell(r.Source))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cell escapes a markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
