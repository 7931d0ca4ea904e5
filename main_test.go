package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/stacks"
)

// twice is a program that deploys the stack and then registers a resource
// named after the stack's first team twice, as a clash between two config
// names would.
func twice(ctx *pulumi.Context) (map[string]pulumi.Input, error) {
	out, err := stacks.Program(ctx)
	if err != nil {
		return nil, err
	}
	for range 2 {
		var r pulumi.ResourceState
		if err := ctx.RegisterComponentResource("aksml:test:Clash", "team-a-volumes-extra", &r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// shippedConfig is a shipped stack's config as the CLI hands it over; an
// existing-cluster stack whose kubeconfig does not exist (the sandbox is not
// running, as in CI) gets the mocks' fake one, as synth gives it.
func shippedConfig(t *testing.T, stack string) runConfig {
	t.Helper()
	cfg, err := synth.ReadStackConfig(".", stack)
	require.NoError(t, err)
	if raw, ok := cfg["aksml:existingCluster"]; ok {
		var ec map[string]any
		require.NoError(t, json.Unmarshal([]byte(raw), &ec))
		if p, _ := ec["kubeconfigPath"].(string); p != "" {
			if _, err := os.Stat(p); err != nil {
				fake := filepath.Join(t.TempDir(), "kubeconfig")
				require.NoError(t, os.WriteFile(fake, []byte(synth.FakeKubeconfig), 0o600))
				ec["kubeconfigPath"] = fake
				b, err := json.Marshal(ec)
				require.NoError(t, err)
				cfg["aksml:existingCluster"] = string(b)
			}
		}
	}
	return runConfig{values: cfg}
}

// Every shipped stack runs to the end under the mocks with no URN twice,
// so the check passes them (and would have refused them otherwise).
func TestCheckNamesShippedStacks(t *testing.T) {
	names, err := synth.Stacks(".")
	require.NoError(t, err)
	for _, stack := range names {
		t.Run(stack, func(t *testing.T) {
			cfg := shippedConfig(t, stack)
			dups, err := synth.DuplicateURNs(stack, cfg.values, nil, stacks.Program)
			require.NoError(t, err, "the mocks must run the whole program, or the check covers only part of it")
			assert.Empty(t, dups)
			assert.NoError(t, checkNames(stack, cfg, stacks.Program))
		})
	}
}

// A name registered twice is refused with the URN and the config value its
// name is built from, and a program without one is not.
func TestCheckNamesRefusesDuplicate(t *testing.T) {
	cfg := shippedConfig(t, "dev")
	err := checkNames("dev", cfg, twice)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `aksml:test:Clash "team-a-volumes-extra" is registered twice`)
	assert.NotContains(t, err.Error(), "aksml:teams[1]", "team-b is not a word of the name")
	assert.Contains(t, err.Error(), `aksml:teams[0].name ("team-a")`)
	assert.Contains(t, err.Error(), "nothing was registered")
	// An invalid config is left to the real run, which reports it.
	cfg.values["aksml:teams"] = "[{]"
	assert.NoError(t, checkNames("dev", cfg, twice))
}

// recorder is a mock monitor that records what a real run registers.
type recorder struct {
	mu   sync.Mutex
	urns []string
}

func (r *recorder) NewResource(args pulumi.MockResourceArgs) (string, resource.PropertyMap, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.urns = append(r.urns, args.TypeToken+"::"+args.Name)
	return args.Name + "-id", args.Inputs, nil
}

func (r *recorder) Call(args pulumi.MockCallArgs) (resource.PropertyMap, error) {
	return resource.PropertyMap{}, nil
}

// The program refuses the clash before it registers anything of its own.
func TestRunRegistersNothingOnDuplicate(t *testing.T) {
	cfg := shippedConfig(t, "dev")
	b, err := json.Marshal(cfg.values)
	require.NoError(t, err)
	t.Setenv(pulumi.EnvConfig, string(b))
	saved := program
	program = twice
	t.Cleanup(func() { program = saved })
	rec := &recorder{}
	err = pulumi.RunErr(run, pulumi.WithMocks(stacks.Project, "dev", rec))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "registered twice")
	for _, u := range rec.urns {
		assert.True(t, strings.HasPrefix(u, "pulumi:pulumi:Stack::"), "registered %s before refusing", u)
	}
}

// A mock run that never ends is abandoned: the check lets the real run go
// on instead of holding the preview.
func TestCheckNamesAbandonsARunThatWaits(t *testing.T) {
	saved := checkNamesTimeout
	checkNamesTimeout = 100 * time.Millisecond
	t.Cleanup(func() { checkNamesTimeout = saved })
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	waits := func(ctx *pulumi.Context) (map[string]pulumi.Input, error) {
		<-block
		return twice(ctx)
	}
	start := time.Now()
	assert.NoError(t, checkNames("dev", shippedConfig(t, "dev"), waits))
	assert.Less(t, time.Since(start), 5*time.Second)
}
