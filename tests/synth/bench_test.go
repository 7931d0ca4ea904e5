package synth_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/tests/synth"
)

// TestBenchStackSynthesizes keeps the stack `make bench` deploys valid: the local
// stack scaled to 100 teams and a lender passes config validation, written out and
// read back as the CLI would, and registers one namespace per team.
func TestBenchStackSynthesizes(t *testing.T) {
	local, err := synth.ReadStackConfig("../..", "local")
	require.NoError(t, err)
	b := synth.Bench{Teams: 100, TeamGPUs: 2, LenderGPUs: 100}
	cfg, err := b.Config(local)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, synth.WriteStackConfig(dir, "bench", cfg))
	back, err := synth.ReadStackConfig(dir, "bench")
	require.NoError(t, err)
	require.Equal(t, cfg, back, "WriteStackConfig round-trips through ReadStackConfig")
	s, err := synth.Synth(dir, "bench")
	require.NoError(t, err)
	namespaces := 0
	for _, r := range s.Resources {
		if r.Type == "kubernetes:core/v1:Namespace" {
			namespaces++
		}
	}
	require.GreaterOrEqual(t, namespaces, b.Teams, "one namespace per team")
	require.Equal(t, 300, b.Capacity())
}

// TestBenchConfigNeedsTheSpotPool proves Config refuses a stack without the bench's pool.
func TestBenchConfigNeedsTheSpotPool(t *testing.T) {
	_, err := synth.Bench{Teams: 1, TeamGPUs: 1}.Config(map[string]string{
		synth.Project + ":gpuPools":  `[{"name":"t4","vmSize":"Standard_NC4as_T4_v3"}]`,
		synth.Project + ":scheduler": `{}`,
	})
	require.ErrorContains(t, err, "no pool "+synth.BenchPool)
}
