package conformance

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/policy/rules"
	"github.com/aksml/aksml/stacks"
	"github.com/aksml/aksml/tests/synth"
)

// templatePoolsStack is dev with one Managed and one None GPU pool added:
// the shipped stacks have no pool in the gpupool template, so this
// variant puts the component's real template pools under the spec and the
// catalogue.
const templatePoolsStack = "dev+templatepools"

func synthTemplatePools(t *testing.T) *rules.Stack {
	t.Helper()
	cfg, err := synth.ReadStackConfig(projectDir, "dev")
	require.NoError(t, err)
	var pools []map[string]any
	require.NoError(t, json.Unmarshal([]byte(cfg["aksml:gpuPools"]), &pools))
	pools = append(pools,
		map[string]any{"name": "a100mgd", "vmSize": "Standard_NC24ads_A100_v4", "workload": "training", "maxCount": 2, "gpuStack": "Managed"},
		map[string]any{"name": "a100byo", "vmSize": "Standard_NC24ads_A100_v4", "workload": "training", "maxCount": 2, "gpuStack": "None"},
	)
	raw, err := json.Marshal(pools)
	require.NoError(t, err)
	cfg["aksml:gpuPools"] = string(raw)
	parsed, err := stacks.Parse("dev", cfg)
	require.NoError(t, err)
	st, err := synth.Run("dev", string(parsed.Environment), cfg, stacks.Program)
	require.NoError(t, err)
	st.Name = templatePoolsStack
	return st
}
