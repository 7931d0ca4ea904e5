package conformance

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/policy/rules"
	"github.com/aksml/aksml/stacks"
)

// templatePoolsStack is dev with one more Managed and one None GPU pool
// added: dev ships one Managed pool (t4mgd) in the gpupool template, so
// this variant puts both template pool shapes, several pools in one
// template and their dependsOn chain under the spec and the catalogue.
const templatePoolsStack = "dev+templatepools"

// variantPools are the pools templatePoolsStack adds to dev: a Managed
// pool takes count (validation rejects minCount and maxCount there; 0 in a
// dev stack, AKSML-GPU-002), a None pool minCount/maxCount.
var variantPools = []map[string]any{
	{"name": "a100mgd", "vmSize": "Standard_NC24ads_A100_v4", "workload": "training", "count": 0, "gpuStack": "Managed"},
	{"name": "a100byo", "vmSize": "Standard_NC24ads_A100_v4", "workload": "training", "maxCount": 2, "gpuStack": "None"},
}

func synthTemplatePools(t *testing.T) *rules.Stack {
	t.Helper()
	st, err := synthWithPools("dev", variantPools...)
	require.NoError(t, err)
	st.Name = templatePoolsStack
	return st
}

// synthWithPools synthesises the shipped stack with the pools appended to
// its aksml:gpuPools, through the same parsing and validation as the
// shipped config.
func synthWithPools(stack string, extra ...map[string]any) (*rules.Stack, error) {
	cfg, err := synth.ReadStackConfig(projectDir, stack)
	if err != nil {
		return nil, err
	}
	var pools []map[string]any
	if err := json.Unmarshal([]byte(cfg["aksml:gpuPools"]), &pools); err != nil {
		return nil, fmt.Errorf("%s: aksml:gpuPools: %w", stack, err)
	}
	raw, err := json.Marshal(append(pools, extra...))
	if err != nil {
		return nil, err
	}
	cfg["aksml:gpuPools"] = string(raw)
	parsed, err := stacks.Parse(stack, cfg)
	if err != nil {
		return nil, err
	}
	return synth.Run(stack, string(parsed.Environment), cfg, stacks.Program)
}
