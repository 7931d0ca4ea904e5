package conformance

import (
	"fmt"
	"strconv"
	"strings"
)

// ARM template expressions (strings of the form "[...]") are evaluated as
// far as the functions below allow, with the parameter values the
// deployment passes. What cannot be evaluated stays an expression and is
// never reported as a spec violation (ARM evaluates it at deployment time);
// the number of such values is part of the report.
//
// Source: "Template functions" and "Template syntax and expressions",
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-expressions

// Placeholder IDs used where ARM would fill in the deployment's scope. They
// match the subscription internal/synth gives its mock resource IDs.
const (
	scopeSubscription = "00000000-0000-0000-0000-000000000000"
)

// armScope is what an expression may read besides parameters.
type armScope struct {
	params        map[string]any
	variables     map[string]any
	resourceGroup string
	location      string
	depth         int
	// copyIndex is the iteration of the copy loop being expanded, when
	// inCopy.
	copyIndex int
	inCopy    bool
}

// isExpression reports whether s is an ARM template expression ("[...]",
// not the "[[" escape of a literal bracket).
func isExpression(s string) bool {
	return strings.HasPrefix(s, "[") && !strings.HasPrefix(s, "[[") && strings.HasSuffix(s, "]")
}

// evalValue evaluates every expression inside v. Expressions that cannot be
// evaluated are left as they are.
func (sc *armScope) evalValue(v any) any {
	switch t := v.(type) {
	case string:
		if !isExpression(t) {
			return t
		}
		out, err := sc.eval(t)
		if err != nil {
			return t
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = sc.evalValue(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = sc.evalValue(e)
		}
		return out
	}
	return v
}

// evalString evaluates s and returns it as a string, ok false when it is
// an expression that cannot be evaluated or is not a string.
func (sc *armScope) evalString(s string) (string, bool) {
	v := sc.evalValue(s)
	str, ok := v.(string)
	if !ok || isExpression(str) {
		return "", false
	}
	return str, true
}

// eval evaluates one "[...]" expression.
func (sc *armScope) eval(expr string) (any, error) {
	p := &exprParser{src: strings.TrimSpace(expr[1 : len(expr)-1])}
	v, err := p.expr(sc)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.src) {
		return nil, fmt.Errorf("trailing input at %d in %q", p.pos, p.src)
	}
	return v, nil
}

// exprParser is a recursive-descent parser and evaluator of the ARM
// expression language subset: string, integer and boolean literals,
// function calls, property access (.name) and indexing ([expr]).
type exprParser struct {
	src string
	pos int
}

func (p *exprParser) skipSpace() {
	for p.pos < len(p.src) && p.src[p.pos] == ' ' {
		p.pos++
	}
}

func (p *exprParser) peek() byte {
	p.skipSpace()
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func (p *exprParser) expr(sc *armScope) (any, error) {
	var v any
	switch c := p.peek(); {
	case c == '\'':
		s, err := p.stringLiteral()
		if err != nil {
			return nil, err
		}
		v = s
	case c == '-' || (c >= '0' && c <= '9'):
		start := p.pos
		p.pos++
		for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.pos++
		}
		n, err := strconv.Atoi(p.src[start:p.pos])
		if err != nil {
			return nil, err
		}
		v = float64(n)
	default:
		name := p.ident()
		if name == "" {
			return nil, fmt.Errorf("unexpected %q at %d", c, p.pos)
		}
		if p.peek() != '(' {
			switch name {
			case "true":
				v = true
			case "false":
				v = false
			default:
				return nil, fmt.Errorf("unknown identifier %q", name)
			}
			break
		}
		p.pos++
		var args []any
		for p.peek() != ')' {
			a, err := p.expr(sc)
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			if p.peek() == ',' {
				p.pos++
			}
		}
		p.pos++
		out, err := sc.call(name, args)
		if err != nil {
			return nil, err
		}
		v = out
	}
	for {
		switch p.peek() {
		case '.':
			p.pos++
			m, ok := v.(map[string]any)
			prop := p.ident()
			if !ok {
				return nil, fmt.Errorf("property %q of a non-object", prop)
			}
			e, ok := m[prop]
			if !ok {
				return nil, fmt.Errorf("no property %q", prop)
			}
			v = e
		case '[':
			p.pos++
			idx, err := p.expr(sc)
			if err != nil {
				return nil, err
			}
			if p.peek() != ']' {
				return nil, fmt.Errorf("missing ]")
			}
			p.pos++
			v, err = index(v, idx)
			if err != nil {
				return nil, err
			}
		default:
			return v, nil
		}
	}
}

func index(v, idx any) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		if k, ok := idx.(string); ok {
			if e, ok := t[k]; ok {
				return e, nil
			}
		}
	case []any:
		if n, ok := idx.(float64); ok && int(n) >= 0 && int(n) < len(t) {
			return t[int(n)], nil
		}
	}
	return nil, fmt.Errorf("cannot index %T with %v", v, idx)
}

func (p *exprParser) ident() string {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' && p.pos > start {
			p.pos++
			continue
		}
		break
	}
	return p.src[start:p.pos]
}

func (p *exprParser) stringLiteral() (string, error) {
	p.pos++ // opening quote
	var b strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		p.pos++
		if c != '\'' {
			b.WriteByte(c)
			continue
		}
		if p.pos < len(p.src) && p.src[p.pos] == '\'' {
			b.WriteByte('\'')
			p.pos++
			continue
		}
		return b.String(), nil
	}
	return "", fmt.Errorf("unterminated string")
}

// call evaluates the template functions aksml's templates use. Any other
// function leaves the expression unevaluated.
func (sc *armScope) call(name string, args []any) (any, error) {
	strs := func() ([]string, error) {
		out := make([]string, len(args))
		for i, a := range args {
			switch t := a.(type) {
			case string:
				out[i] = t
			case float64:
				out[i] = strconv.Itoa(int(t))
			case bool:
				out[i] = strconv.FormatBool(t)
			default:
				return nil, fmt.Errorf("%s: argument %d is %T", name, i, a)
			}
		}
		return out, nil
	}
	switch strings.ToLower(name) {
	case "parameters", "variables":
		src := sc.params
		if strings.EqualFold(name, "variables") {
			src = sc.variables
		}
		if len(args) != 1 {
			return nil, fmt.Errorf("%s takes one argument", name)
		}
		key, _ := args[0].(string)
		v, ok := src[key]
		if !ok {
			return nil, fmt.Errorf("%s('%s') has no value", name, key)
		}
		if s, ok := v.(string); ok && isExpression(s) {
			// A variable may itself be an expression; a parameter's value
			// is a literal. Evaluate a variable once, with no further
			// variables, so a cycle cannot recurse.
			if src == nil || strings.EqualFold(name, "parameters") || sc.depth > 0 {
				return nil, fmt.Errorf("%s('%s') is itself an expression", name, key)
			}
			inner := *sc
			inner.depth++
			return inner.eval(s)
		}
		return v, nil
	case "format":
		s, err := strs()
		if err != nil || len(s) == 0 {
			return nil, fmt.Errorf("format: bad arguments")
		}
		out := s[0]
		for i, a := range s[1:] {
			out = strings.ReplaceAll(out, "{"+strconv.Itoa(i)+"}", a)
		}
		return out, nil
	case "concat":
		s, err := strs()
		if err != nil {
			return nil, err
		}
		return strings.Join(s, ""), nil
	case "tolower":
		s, err := strs()
		if err != nil || len(s) != 1 {
			return nil, fmt.Errorf("toLower: bad arguments")
		}
		return strings.ToLower(s[0]), nil
	case "toupper":
		s, err := strs()
		if err != nil || len(s) != 1 {
			return nil, fmt.Errorf("toUpper: bad arguments")
		}
		return strings.ToUpper(s[0]), nil
	case "string":
		s, err := strs()
		if err != nil || len(s) != 1 {
			return nil, fmt.Errorf("string: bad arguments")
		}
		return s[0], nil
	case "resourcegroup":
		return map[string]any{
			"name":     sc.resourceGroup,
			"location": sc.location,
			"id":       "/subscriptions/" + scopeSubscription + "/resourceGroups/" + sc.resourceGroup,
		}, nil
	case "subscription":
		return map[string]any{
			"subscriptionId": scopeSubscription,
			"id":             "/subscriptions/" + scopeSubscription,
		}, nil
	case "copyindex":
		if !sc.inCopy {
			return nil, fmt.Errorf("copyIndex outside an expanded copy loop")
		}
		i := sc.copyIndex
		for _, a := range args {
			if n, ok := a.(float64); ok {
				i += int(n)
			}
		}
		return float64(i), nil
	case "length":
		if len(args) == 1 {
			switch t := args[0].(type) {
			case []any:
				return float64(len(t)), nil
			case map[string]any:
				return float64(len(t)), nil
			case string:
				return float64(len(t)), nil
			}
		}
		return nil, fmt.Errorf("length: bad arguments")
	case "take":
		// take(originalValue, numberToTake): the first elements of an array
		// or characters of a string.
		// Source: Template functions - string, take,
		// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-string#take
		if len(args) == 2 {
			n, ok := args[1].(float64)
			if ok {
				switch t := args[0].(type) {
				case string:
					return t[:min(max(int(n), 0), len(t))], nil
				case []any:
					return t[:min(max(int(n), 0), len(t))], nil
				}
			}
		}
		return nil, fmt.Errorf("take: bad arguments")
	case "subscriptionresourceid":
		s, err := strs()
		if err != nil || len(s) < 2 {
			return nil, fmt.Errorf("subscriptionResourceId: bad arguments")
		}
		id, err := resourceID("", s)
		if err != nil {
			return nil, err
		}
		// resourceID built a resource-group ID: drop the group.
		return strings.Replace(id, "/resourceGroups//providers/", "/providers/", 1), nil
	case "resourceid":
		s, err := strs()
		if err != nil {
			return nil, err
		}
		return resourceID(sc.resourceGroup, s)
	}
	return nil, fmt.Errorf("function %s is not evaluated", name)
}

// resourceID implements resourceId([subscriptionId], [resourceGroupName],
// resourceType, name1, name2, ...): the type is the first argument with a
// "/".
func resourceID(defaultRG string, args []string) (string, error) {
	sub, rg := scopeSubscription, defaultRG
	i := 0
	for i < len(args) && !strings.Contains(args[i], "/") {
		i++
	}
	if i == len(args) {
		return "", fmt.Errorf("resourceId: no resource type")
	}
	switch i {
	case 1:
		rg = args[0]
	case 2:
		sub, rg = args[0], args[1]
	}
	return armID(sub, rg, args[i], args[i+1:]), nil
}

// armID builds the ID of a resource-group resource of the given type
// ("Microsoft.X/a/b") and names (one per type segment).
func armID(sub, rg, typ string, names []string) string {
	segs := strings.Split(typ, "/")
	var b strings.Builder
	fmt.Fprintf(&b, "/subscriptions/%s/resourceGroups/%s/providers/%s", sub, rg, segs[0])
	for i, seg := range segs[1:] {
		b.WriteString("/" + seg)
		if i < len(names) {
			b.WriteString("/" + names[i])
		}
	}
	return b.String()
}
