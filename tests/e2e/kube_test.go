//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/aksml/aksml/policy/rules"
)

// skippedTypes are the Kubernetes-provider resources that are not objects of
// the stack: a Helm chart or kustomize directory stands for a third-party
// install, and a provider is not an object at all.
var skippedTypes = map[string]bool{
	"kubernetes:helm.sh/v4:Chart":       true,
	"kubernetes:kustomize/v2:Directory": true,
	"pulumi:providers:kubernetes":       true,
}

// object is one Kubernetes object of the desired state.
type object struct {
	res rules.Resource
	obj map[string]any
}

// kind, namespace and name of the object.
func (o object) kind() string      { return str(o.obj["kind"]) }
func (o object) namespace() string { return str(get(o.obj, "metadata", "namespace")) }
func (o object) name() string      { return str(get(o.obj, "metadata", "name")) }

// key identifies the object in the API server: kind and namespace/name.
func (o object) key() string { return objectKey(o.obj) }

// String names the object for messages.
func (o object) String() string { return fmt.Sprintf("%s (%s)", o.key(), o.res.Name) }

// objectKey is "<Kind> <namespace>/<name>" (no namespace for cluster-scoped
// objects).
func objectKey(obj map[string]any) string {
	name := str(get(obj, "metadata", "name"))
	if ns := str(get(obj, "metadata", "namespace")); ns != "" {
		name = ns + "/" + name
	}
	return str(obj["kind"]) + " " + name
}

// kubernetesObjects returns the Kubernetes objects of s (inputs of every
// Kubernetes resource other than skippedTypes and reads), with integral
// numbers as integers.
func kubernetesObjects(s *rules.Stack) ([]object, error) {
	var out []object
	for _, r := range s.Resources {
		if !strings.HasPrefix(r.Type, "kubernetes:") || skippedTypes[r.Type] || r.Read {
			continue
		}
		obj, ok := normalize(r.Inputs).(map[string]any)
		if !ok || str(obj["kind"]) == "" || str(get(obj, "metadata", "name")) == "" {
			return nil, fmt.Errorf("%s: inputs are not a complete Kubernetes object", r.URN)
		}
		out = append(out, object{res: r, obj: obj})
	}
	return out, nil
}

// normalize copies JSON-like data, turning integral float64 values into
// int64 so that they print as integers in YAML and compare with live values.
func normalize(v any) any {
	switch val := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(val))
		for k, e := range val {
			out[k] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(val))
		for i, e := range val {
			out[i] = normalize(e)
		}
		return out
	case float64:
		if val == math.Trunc(val) && math.Abs(val) < 1<<53 {
			return int64(val)
		}
		return val
	default:
		return v
	}
}

// manifest renders objects as one multi-document YAML file.
func manifest(objs []map[string]any) ([]byte, error) {
	var buf bytes.Buffer
	for i, o := range objs {
		if i > 0 {
			buf.WriteString("---\n")
		}
		b, err := yaml.Marshal(o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", objectKey(o), err)
		}
		buf.Write(b)
	}
	return buf.Bytes(), nil
}

// objectMaps returns the objects' maps.
func objectMaps(objs []object) []map[string]any {
	out := make([]map[string]any, len(objs))
	for i, o := range objs {
		out[i] = o.obj
	}
	return out
}

// liveObjects gets every object of objs from the API server with one
// `kubectl get -f --ignore-not-found`, keyed by objectKey. Objects that do
// not exist are missing from the result.
func liveObjects(ctx context.Context, k kubectl, file string) (map[string]map[string]any, error) {
	stdout, stderr, err := k.run(ctx, nil, "get", "-f", file, "-o", "json", "--show-managed-fields", "--ignore-not-found")
	if err != nil {
		return nil, fmt.Errorf("kubectl get -f %s: %w: %s", file, err, stderr)
	}
	out := map[string]map[string]any{}
	if strings.TrimSpace(stdout) == "" {
		return out, nil
	}
	var list struct {
		Kind  string           `json:"kind"`
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal([]byte(stdout), &list); err != nil {
		return nil, fmt.Errorf("kubectl get -f %s: unexpected output: %w", file, err)
	}
	if list.Kind != "List" {
		var single map[string]any
		if err := json.Unmarshal([]byte(stdout), &single); err != nil {
			return nil, err
		}
		list.Items = []map[string]any{single}
	}
	for _, item := range list.Items {
		obj, _ := normalize(item).(map[string]any)
		out[objectKey(obj)] = obj
	}
	return out, nil
}

// comparedMetadata are the metadata fields compared with the live object;
// the API server owns the others (uid, resourceVersion, managedFields, ...).
var comparedMetadata = []string{"name", "namespace", "labels", "annotations"}

// controllerOwned are fields that a controller changes after the object is
// created, by kind: Kueue unsuspends a queued Job when it admits it (the
// stack creates it suspended, AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops)), and then owns spec.suspend.
var controllerOwned = map[string][]string{
	"Job": {"spec.suspend"},
}

// differences lists where live does not hold a desired value: every field
// of want (metadata: comparedMetadata only; not controllerOwned) must be in
// live with an equal value; list elements are compared by index and live may
// add fields. A desired false, 0 or "" matches an absent live field: the
// API server omits zero values of omitempty fields.
func differences(want, live map[string]any) []string {
	var out []string
	for _, d := range objectDifferences(want, live) {
		if !ownedByController(str(want["kind"]), d) {
			out = append(out, d)
		}
	}
	return out
}

// ownedByController reports whether a difference is at a controllerOwned
// path of kind.
func ownedByController(kind, difference string) bool {
	for _, p := range controllerOwned[kind] {
		if strings.HasPrefix(difference, p+":") {
			return true
		}
	}
	return false
}

func objectDifferences(want, live map[string]any) []string {
	var out []string
	for _, k := range sortedKeys(want) {
		if k == "status" {
			continue
		}
		if k == "metadata" {
			wm, _ := want[k].(map[string]any)
			lm, _ := live[k].(map[string]any)
			for _, mk := range comparedMetadata {
				if v, ok := wm[mk]; ok {
					out = append(out, diff("metadata."+mk, v, lm[mk])...)
				}
			}
			continue
		}
		out = append(out, diff(k, want[k], live[k])...)
	}
	return out
}

// diff compares one desired value with the live one at path.
func diff(path string, want, live any) []string {
	switch w := want.(type) {
	case map[string]any:
		l, ok := live.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want an object, live has %s", path, show(live))}
		}
		var out []string
		for _, k := range sortedKeys(w) {
			out = append(out, diff(path+"."+k, w[k], l[k])...)
		}
		return out
	case []any:
		l, ok := live.([]any)
		if !ok || len(l) != len(w) {
			return []string{fmt.Sprintf("%s: want %s, live has %s", path, show(want), show(live))}
		}
		var out []string
		for i := range w {
			out = append(out, diff(fmt.Sprintf("%s[%d]", path, i), w[i], l[i])...)
		}
		return out
	default:
		if live == nil && isZero(want) {
			return nil
		}
		if fmt.Sprint(want) != fmt.Sprint(live) || live == nil {
			return []string{fmt.Sprintf("%s: want %s, live has %s", path, show(want), show(live))}
		}
		return nil
	}
}

// isZero reports whether v is false, 0 or "".
func isZero(v any) bool {
	switch val := v.(type) {
	case bool:
		return !val
	case int64:
		return val == 0
	case float64:
		return val == 0
	case string:
		return val == ""
	}
	return false
}

// show renders a value for messages.
func show(v any) string {
	if v == nil {
		return "nothing"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// appliedBy returns the field managers that applied (server-side apply) the
// live object.
func appliedBy(live map[string]any) []string {
	var out []string
	mf, _ := get(live, "metadata", "managedFields").([]any)
	for _, e := range mf {
		m, _ := e.(map[string]any)
		if str(m["operation"]) == "Apply" {
			out = append(out, str(m["manager"]))
		}
	}
	sort.Strings(out)
	return out
}

// get walks nested maps.
func get(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// str is v as a string, "" when it is not one.
func str(v any) string {
	s, _ := v.(string)
	return s
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
