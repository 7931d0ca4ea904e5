package observability

import (
	"regexp"
	"strings"
)

// promSkipped are the parts of a PromQL expression that hold no metric
// name: label matchers, grouping lists, ranges and strings.
var promSkipped = regexp.MustCompile(`\{[^}]*\}|\b(by|on|without|ignoring|group_left|group_right)\s*\([^)]*\)|\[[^\]]*\]|"[^"]*"`)

// promIdent is an identifier in what is left; one followed by "(" is a
// function, the keywords are operators.
var promIdent = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*\s*\(?`)

// MetricsRead returns the metric names a PromQL expression (an alert's
// Expr) reads, in order, for checking them against what the collection
// ingests (the conformance tier's CONF-MON-002). It reads the expressions
// aksml writes: selectors, aggregations, functions and binary operators
// (PromQL, https://prometheus.io/docs/prometheus/latest/querying/basics/);
// it is not a full PromQL parser.
func MetricsRead(expr string) []string {
	var out []string
	for _, tok := range promIdent.FindAllString(promSkipped.ReplaceAllString(expr, " "), -1) {
		tok = strings.TrimSpace(tok)
		if strings.HasSuffix(tok, "(") {
			continue
		}
		switch tok {
		case "and", "or", "unless", "offset", "bool":
			continue
		}
		out = append(out, tok)
	}
	return out
}
