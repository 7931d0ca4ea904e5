package tests

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/policy/rules"
	"github.com/aksml/aksml/stacks"
)

// TestRulesNameManagedAndNonePools: a Managed pool (no autoscaler, count
// nodes) and a None pool in the dev stack. At count 0 the program and
// AKSML-GPU-002 agree it bills nothing while idle, and every flavor selects
// a pool of the stack; at count 2 the program refuses it by key before any
// guardrail runs (issue 33: never the pack alone).
func TestRulesNameManagedAndNonePools(t *testing.T) {
	tree := devTree(t)
	pools := tree["aksml:gpuPools"].([]any)
	t4 := pools[0].(map[string]any)
	t4["gpuStack"], t4["count"] = "Managed", 0
	delete(t4, "minCount")
	delete(t4, "maxCount")
	pools[1].(map[string]any)["gpuStack"] = "None"
	for _, tm := range tree["aksml:teams"].([]any) {
		delete(tm.(map[string]any)["gpuQuota"].(map[string]any), "t4") // no GPUs at count 0
	}
	st, err := synth.Run("dev", "dev", encode(t, tree), stacks.Program)
	require.NoError(t, err)

	var gpu002, que002 []rules.Violation
	for _, v := range rules.Check(st) {
		switch v.RuleID {
		case "AKSML-GPU-002":
			gpu002 = append(gpu002, v)
		case "AKSML-QUE-002":
			que002 = append(que002, v)
		}
	}
	assert.Empty(t, gpu002, "a Managed pool at count 0 bills nothing while idle")
	assert.Empty(t, que002, "every flavor selects a pool of the stack (gpu-t4spot, gpu-a100mig, ...)")

	t4["count"] = 2
	_, err = synth.Run("dev", "dev", encode(t, tree), stacks.Program)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "aksml:gpuPools[0].count: 2 keeps GPU nodes billing while idle")
	assert.False(t, strings.Contains(err.Error(), "aksml-dev"), "the cluster name is not a pool: %s", err)
}
