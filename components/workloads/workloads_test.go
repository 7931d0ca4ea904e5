package workloads

import (
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"

	"github.com/aksml/aksml/components/internal/mocktest"
)

// run runs fn under the mocks.
func run(t *testing.T, fn func(ctx *pulumi.Context) error) (*mocktest.Mocks, error) {
	t.Helper()
	return mocktest.Run(t, fn)
}

// mustRun runs fn under the mocks and fails on error.
func mustRun(t *testing.T, fn func(ctx *pulumi.Context) error) *mocktest.Mocks {
	t.Helper()
	m, err := run(t, fn)
	require.NoError(t, err)
	return m
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

// envOf maps a container's env to values (literal, or "fieldRef:<path>").
func envOf(t *testing.T, container any) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, e := range mocktest.Dig(t, container, "env").([]any) {
		m := e.(map[string]any)
		name := m["name"].(string)
		if v, ok := m["value"]; ok {
			out[name] = v.(string)
			continue
		}
		out[name] = "fieldRef:" + mocktest.Dig(t, m, "valueFrom", "fieldRef", "fieldPath").(string)
	}
	return out
}

// envNames lists a container's env names in order.
func envNames(t *testing.T, container any) []string {
	t.Helper()
	var out []string
	for _, e := range mocktest.Dig(t, container, "env").([]any) {
		out = append(out, e.(map[string]any)["name"].(string))
	}
	return out
}

// volumeByName returns the pod volume named name.
func volumeByName(t *testing.T, podSpec any, name string) map[string]any {
	t.Helper()
	for _, v := range mocktest.Dig(t, podSpec, "volumes").([]any) {
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
	for _, m := range mocktest.Dig(t, container, "volumeMounts").([]any) {
		mm := m.(map[string]any)
		out[mm["name"].(string)] = mm["mountPath"].(string)
	}
	return out
}

// tolerationStrings renders tolerations as key=value:Effect (operator).
func tolerationStrings(t *testing.T, podSpec any) []string {
	t.Helper()
	var out []string
	for _, tol := range mocktest.Dig(t, podSpec, "tolerations").([]any) {
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
