//go:build e2e

package e2e

import (
	"path/filepath"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSelfStackReference checks with the real engine and the local backend
// what stacks/previous.go relies on: a stack's StackReference to itself
// (<organization>/<project>/<stack>) reads nothing on a stack never
// deployed, and afterwards the outputs of its previous deployment, in
// preview and in up. The program (testdata/selfref) fails when what it read
// differs from selfref:expect, so a wrong read fails the operation.
func TestSelfStackReference(t *testing.T) {
	root := repoRoot(t)
	tc := findToolchain(t, root)
	ctx, dir := startRun(t, "selfref")
	work := filepath.Join(dir, "work")
	copyWorkingTree(t, root, work)
	s := newStack(t, ctx, tc, filepath.Join(work, "tests", "e2e", "testdata", "selfref"), dir, "dev")
	expect := func(n string) {
		t.Helper()
		require.NoError(t, s.SetConfig(ctx, "selfref:expect", auto.ConfigValue{Value: n}))
	}

	expect("0")
	_, err := s.Preview(ctx)
	require.NoError(t, err, "a stack never deployed reads no outputs in preview")
	res, err := s.Up(ctx)
	require.NoError(t, err, "nor in up")
	assert.Equal(t, float64(1), res.Outputs["n"].Value)

	expect("1")
	_, err = s.Preview(ctx)
	require.NoError(t, err, "preview reads the previous deployment's outputs")
	expect("5")
	_, err = s.Preview(ctx)
	require.Error(t, err, "the program fails on a read it does not expect")
	assert.Contains(t, err.Error(), "previous n=1, expected 5 (dry run true)")

	expect("1")
	res, err = s.Up(ctx)
	require.NoError(t, err, "up reads them too")
	assert.Equal(t, float64(2), res.Outputs["n"].Value)
}
