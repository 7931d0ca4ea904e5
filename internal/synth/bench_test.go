package synth_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/internal/synth"
)

// TestBenchStackSynthesizes keeps the stack `make bench` deploys valid: the local
// stack scaled to 100 teams and a lender passes config validation, written out and
// read back as the CLI would, and registers one namespace per team.
func TestBenchStackSynthesizes(t *testing.T) {
	local, err := synth.ReadStackConfig("../..", "local")
	require.NoError(t, err)
	b := synth.BenchScale
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
	require.Equal(t, 400, b.Capacity())
	// The fair shares add up to the pool: the split is whole.
	sum := 0
	for i := 0; i < b.Teams; i++ {
		sum += b.FairShare(i)
	}
	require.Equal(t, b.Capacity(), sum, "the fair shares of BenchScale fill the pool exactly")
	require.Equal(t, 3, b.FairShare(0), "weight 1: 1 nominal + 2 lent")
	require.Equal(t, 5, b.FairShare(1), "weight 2: 1 nominal + 4 lent")
	// A lender that does not split whole leaves GPUs over: the negative case.
	odd := synth.Bench{Teams: 100, TeamGPUs: 2, LenderGPUs: 100}
	sum = 0
	for i := 0; i < odd.Teams; i++ {
		sum += odd.FairShare(i)
	}
	require.Less(t, sum, odd.Capacity(), "100 lent GPUs over weights 1 and 2 do not split whole")
}

// TestBenchConfigNeedsTheSpotPool proves Config refuses a stack without the bench's pool.
func TestBenchConfigNeedsTheSpotPool(t *testing.T) {
	_, err := synth.Bench{Teams: 1, TeamGPUs: 1}.Config(map[string]string{
		synth.Project + ":gpuPools":  `[{"name":"t4","vmSize":"Standard_NC4as_T4_v3"}]`,
		synth.Project + ":scheduler": `{}`,
	})
	require.ErrorContains(t, err, "no pool "+synth.BenchPool)
}
