package workloads

import (
	"strings"
	"sync"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
)

// registered is one resource the mocks saw.
type registered struct {
	typ, name, provider string
	inputs              map[string]any
	deps                []string
	ignoreChanges       []string
}

// mocks records every registered resource and returns its inputs as state.
type mocks struct {
	mu        sync.Mutex
	resources []registered
}

func (m *mocks) NewResource(args pulumi.MockResourceArgs) (string, resource.PropertyMap, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.resources = append(m.resources, registered{
		typ:           args.TypeToken,
		name:          args.Name,
		provider:      args.Provider,
		inputs:        args.Inputs.Mappable(),
		deps:          args.RegisterRPC.GetDependencies(),
		ignoreChanges: args.RegisterRPC.GetIgnoreChanges(),
	})
	return args.Name + "-id", args.Inputs, nil
}

func (m *mocks) Call(args pulumi.MockCallArgs) (resource.PropertyMap, error) {
	return args.Args, nil
}

// run runs fn under the mocks.
func run(t *testing.T, fn func(ctx *pulumi.Context) error) (*mocks, error) {
	t.Helper()
	m := &mocks{}
	err := pulumi.RunErr(fn, pulumi.WithMocks("aksml", "test", m))
	return m, err
}

// mustRun runs fn under the mocks and fails on error.
func mustRun(t *testing.T, fn func(ctx *pulumi.Context) error) *mocks {
	t.Helper()
	m, err := run(t, fn)
	require.NoError(t, err)
	return m
}

// ofType returns the resources of type typ.
func (m *mocks) ofType(typ string) []registered {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []registered
	for _, r := range m.resources {
		if r.typ == typ {
			out = append(out, r)
		}
	}
	return out
}

// one returns the single resource of type typ.
func (m *mocks) one(t *testing.T, typ string) registered {
	t.Helper()
	rs := m.ofType(typ)
	require.Len(t, rs, 1, "resources of type %s", typ)
	return rs[0]
}

// dig walks v by map keys (string) and list indexes (int).
func dig(t *testing.T, v any, path ...any) any {
	t.Helper()
	for i, step := range path {
		switch s := step.(type) {
		case string:
			m, ok := v.(map[string]any)
			require.True(t, ok, "at %v: %T is not an object", path[:i], v)
			next, ok := m[s]
			require.True(t, ok, "at %v: no key %q in %v", path[:i], s, keys(m))
			v = next
		case int:
			l, ok := v.([]any)
			require.True(t, ok, "at %v: %T is not a list", path[:i], v)
			require.Less(t, s, len(l), "at %v: index %d out of range", path[:i], s)
			v = l[s]
		}
	}
	return v
}

// has reports whether v has the key path.
func has(v any, path ...string) bool {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if v, ok = m[k]; !ok {
			return false
		}
	}
	return true
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// envOf maps a container's env to values (literal, or "fieldRef:<path>").
func envOf(t *testing.T, container any) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, e := range dig(t, container, "env").([]any) {
		m := e.(map[string]any)
		name := m["name"].(string)
		if v, ok := m["value"]; ok {
			out[name] = v.(string)
			continue
		}
		out[name] = "fieldRef:" + dig(t, m, "valueFrom", "fieldRef", "fieldPath").(string)
	}
	return out
}

// envNames lists a container's env names in order.
func envNames(t *testing.T, container any) []string {
	t.Helper()
	var out []string
	for _, e := range dig(t, container, "env").([]any) {
		out = append(out, e.(map[string]any)["name"].(string))
	}
	return out
}

// volumeByName returns the pod volume named name.
func volumeByName(t *testing.T, podSpec any, name string) map[string]any {
	t.Helper()
	for _, v := range dig(t, podSpec, "volumes").([]any) {
		if v.(map[string]any)["name"] == name {
			return v.(map[string]any)
		}
	}
	t.Fatalf("no volume %q", name)
	return nil
}

// mountPaths maps a container's volume mounts to their paths.
func mountPaths(t *testing.T, container any) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range dig(t, container, "volumeMounts").([]any) {
		mm := m.(map[string]any)
		out[mm["name"].(string)] = mm["mountPath"].(string)
	}
	return out
}

// tolerationStrings renders tolerations as key=value:Effect (operator).
func tolerationStrings(t *testing.T, podSpec any) []string {
	t.Helper()
	var out []string
	for _, tol := range dig(t, podSpec, "tolerations").([]any) {
		m := tol.(map[string]any)
		out = append(out, m["key"].(string)+"="+m["value"].(string)+":"+m["effect"].(string)+" ("+m["operator"].(string)+")")
	}
	return out
}

// resolved resolves a pool spec as a stack would (gpupool.ResolveOne),
// with its errors reported under "pool".
func resolved(s gpupool.Spec) *gpupool.Resolved {
	r, _ := gpupool.ResolveOne(s, field.NewPath("pool"))
	return r
}

// with returns pool re-resolved after f changed its spec.
func with(pool *gpupool.Resolved, f func(*gpupool.Spec)) *gpupool.Resolved {
	s := pool.Spec
	f(&s)
	return resolved(s)
}

// Pools used by the tests.
func spotPool() *gpupool.Resolved {
	return resolved(gpupool.Spec{Name: "spott4", VMSize: "Standard_NC4as_T4_v3", Workload: gpupool.WorkloadFineTuning, Priority: gpupool.PrioritySpot, MaxCount: 4})
}

func a100Pool() *gpupool.Resolved {
	return resolved(gpupool.Spec{Name: "a100", VMSize: "Standard_NC24ads_A100_v4", Workload: gpupool.WorkloadTraining, MaxCount: 4})
}

func a100x4Pool() *gpupool.Resolved {
	return resolved(gpupool.Spec{Name: "a100x4", VMSize: "Standard_NC96ads_A100_v4", Workload: gpupool.WorkloadTraining, MaxCount: 2})
}

func nd96Pool() *gpupool.Resolved {
	return resolved(gpupool.Spec{Name: "nd96", VMSize: "Standard_ND96asr_v4", Workload: gpupool.WorkloadTraining, MaxCount: 4})
}

func migPool() *gpupool.Resolved {
	return resolved(gpupool.Spec{Name: "mig", VMSize: "Standard_NC24ads_A100_v4", Workload: gpupool.WorkloadTraining, MaxCount: 2,
		MIG: &gpupool.MIGSpec{Strategy: gpupool.MIGStrategyMixed, Profile: gpupool.MIG1g}})
}

func inferencePool() *gpupool.Resolved {
	return resolved(gpupool.Spec{Name: "serve", VMSize: "Standard_NC24ads_A100_v4", Workload: gpupool.WorkloadInference, MaxCount: 2})
}

// common returns valid Common settings for GPU training.
func common() Common {
	return Common{
		Namespace: pulumi.String("team-a"),
		Team:      "team-a",
		Image:     "pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime",
		Resources: Resources{CPU: "3", Memory: "16Gi", GPUs: 1},
	}
}

// requireErrs asserts that err lists every wanted path-prefixed problem.
func requireErrs(t *testing.T, err error, want ...string) {
	t.Helper()
	require.Error(t, err)
	for _, w := range want {
		require.True(t, strings.Contains(err.Error(), w), "error %q does not contain %q", err.Error(), w)
	}
}
