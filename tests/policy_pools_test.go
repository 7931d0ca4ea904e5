package tests

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/policy/rules"
	"github.com/aksml/aksml/stacks"
	"github.com/aksml/aksml/tests/synth"
)

// TestRulesNameManagedAndNonePools runs the guardrails over a dev stack whose
// GPU pools are Managed and None (created through the ARM deployment stack,
// where the pool name is a literal inside a format() expression next to the
// cluster-name parameter): AKSML-GPU-002 must name the pool with the wrong
// minCount, never the cluster, and AKSML-QUE-002 must find each flavor's pool.
func TestRulesNameManagedAndNonePools(t *testing.T) {
	tree := devTree(t)
	pools := tree["aksml:gpuPools"].([]any)
	t4 := pools[0].(map[string]any)
	// A Managed pool runs exactly count nodes (no autoscaler): 2 T4 GPUs
	// for the teams' quota, and above the intermittent-stack minimum.
	t4["gpuStack"], t4["count"] = "Managed", 2
	delete(t4, "minCount")
	delete(t4, "maxCount")
	pools[1].(map[string]any)["gpuStack"] = "None"
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
	require.Len(t, gpu002, 1, "only t4 keeps nodes while idle")
	assert.Contains(t, gpu002[0].Message, "pool t4 ")
	assert.False(t, strings.Contains(gpu002[0].Message, "pool aksml-dev"), "the cluster name is not a pool: %s", gpu002[0].Message)
	assert.Empty(t, que002, "every flavor selects a pool of the stack (gpu-t4, gpu-t4spot, gpu-a100mig)")
}
