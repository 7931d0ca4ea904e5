package tests

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/policy/rules"
)

// The guardrails that mirror aksml's semantic checks (duplicate identity,
// allocatable, gang vs pool and queue, flavor quota, reserved namespaces)
// run over the synthesised dev stack changed the way a hand-written object
// or a program that bypasses the components' validation would change it:
// each must find the change, in the shapes the components really register.

// byName returns the resource of st whose Pulumi name is name.
func byName(t *testing.T, st *rules.Stack, name string) *rules.Resource {
	t.Helper()
	for i := range st.Resources {
		if st.Resources[i].Name == name {
			return &st.Resources[i]
		}
	}
	require.FailNow(t, "no resource "+name)
	return nil
}

// setAt sets the value at a path of map keys and list indexes below m.
func setAt(m map[string]any, value any, path ...any) {
	var cur any = m
	for i, step := range path {
		last := i == len(path)-1
		switch k := step.(type) {
		case string:
			if last {
				cur.(map[string]any)[k] = value
				return
			}
			cur = cur.(map[string]any)[k]
		case int:
			if last {
				cur.([]any)[k] = value
				return
			}
			cur = cur.([]any)[k]
		}
	}
}

// copyOf deep-copies a resource's inputs under another Pulumi name.
func copyOf(r rules.Resource, name string) rules.Resource {
	var clone func(v any) any
	clone = func(v any) any {
		switch t := v.(type) {
		case map[string]any:
			out := map[string]any{}
			for k, e := range t {
				out[k] = clone(e)
			}
			return out
		case []any:
			out := make([]any, len(t))
			for i, e := range t {
				out[i] = clone(e)
			}
			return out
		}
		return v
	}
	r.Inputs = clone(r.Inputs).(map[string]any)
	r.Name, r.URN = name, strings.Replace(r.URN, "::"+r.Name, "::"+name, 1)
	return r
}

func TestSemanticGuardrailsOnTheDevStack(t *testing.T) {
	podSpec := []any{"spec", "template", "spec"}
	cases := []struct {
		name, rule, want string
		mutate           func(t *testing.T, st *rules.Stack)
	}{
		{"Job registered twice", "AKSML-IDN-001", "Kubernetes object batch/Job team-a/resnet-finetune is registered by team-a-resnet-finetune-job and again by copy",
			func(t *testing.T, st *rules.Stack) {
				st.Resources = append(st.Resources, copyOf(*byName(t, st, "team-a-resnet-finetune-job"), "copy"))
			}},
		{"agent pool declared twice", "AKSML-IDN-002", "/t4 is declared by AgentPool t4 and again by AgentPool t4",
			func(t *testing.T, st *rules.Stack) {
				st.Resources = append(st.Resources, copyOf(*byName(t, st, "aksml-dev-gpupools-t4"), "t4-again"))
			}},
		{"CPU request above the pool's allocatable", "AKSML-SCH-001", "Job team-a/resnet-finetune requests cpu 1000 per pod",
			func(t *testing.T, st *rules.Stack) {
				job := byName(t, st, "team-a-resnet-finetune-job")
				res := append(append([]any{}, podSpec...), "containers", 0, "resources")
				setAt(job.Inputs, "1000", append(append([]any{}, res...), "requests", "cpu")...)
				setAt(job.Inputs, "1000", append(append([]any{}, res...), "limits", "cpu")...)
			}},
		{"PyTorchJob wider than its pools", "AKSML-SCH-002", "PyTorchJob team-a/ddp-allreduce needs 51 nvidia.com/gpu at once",
			func(t *testing.T, st *rules.Stack) {
				setAt(byName(t, st, "team-a-ddp-allreduce-pytorchjob").Inputs, 50.0, "spec", "pytorchReplicaSpecs", "Worker", "replicas")
			}},
		{"Job wider than the team's quota", "AKSML-QUE-005", "ClusterQueue team-a-gpu can be admitted at most 4 on flavor gpu-t4spot: nominal 3 + borrowing 1",
			func(t *testing.T, st *rules.Stack) {
				setAt(byName(t, st, "team-a-resnet-finetune-job").Inputs, 5.0, "spec", "parallelism")
			}},
		{"ClusterQueue without the Job's flavor", "AKSML-QUE-006", "has no nvidia.com/gpu quota on a flavor of the pools the workload may run on",
			func(t *testing.T, st *rules.Stack) {
				cq := byName(t, st, "queues-cq-team-a")
				var kept []any
				for _, g := range cq.Inputs["spec"].(map[string]any)["resourceGroups"].([]any) {
					if !strings.Contains(strings.Join(anyStrings(g.(map[string]any)["coveredResources"]), ","), "nvidia.com/gpu") {
						kept = append(kept, g)
					}
				}
				setAt(cq.Inputs, kept, "spec", "resourceGroups")
			}},
		{"team Job in Kueue's namespace", "AKSML-TEN-003", "Job kueue-system/resnet-finetune is team work in namespace kueue-system, which belongs to Kueue",
			func(t *testing.T, st *rules.Stack) {
				setAt(byName(t, st, "team-a-resnet-finetune-job").Inputs, "kueue-system", "metadata", "namespace")
			}},
	}
	base, err := synth.Synth(projectDir, "dev")
	require.NoError(t, err)
	for _, tc := range cases {
		rule, ok := rules.ByID(tc.rule)
		require.True(t, ok, tc.rule)
		require.Empty(t, rule.CheckStack(base), "%s passes the shipped dev stack", tc.rule)
	}
	for _, tc := range cases {
		t.Run(tc.rule+"/"+tc.name, func(t *testing.T) {
			st, err := synth.Synth(projectDir, "dev")
			require.NoError(t, err)
			tc.mutate(t, st)
			rule, _ := rules.ByID(tc.rule)
			var msgs []string
			for _, v := range rule.CheckStack(st) {
				msgs = append(msgs, v.Message)
			}
			require.NotEmpty(t, msgs, "%s must catch it", tc.rule)
			assert.Contains(t, strings.Join(msgs, "\n"), tc.want)
		})
	}
}

func anyStrings(v any) []string {
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(string))
	}
	return out
}
