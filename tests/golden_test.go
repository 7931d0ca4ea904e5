package tests

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/internal/synth"
)

var update = flag.Bool("update", false, "rewrite tests/golden/<stack>.yaml from the current code")

// projectDir is the repository root, where the Pulumi.<stack>.yaml files are.
const projectDir = ".."

// TestGolden synthesizes every shipped stack under mocks and compares its
// desired state with tests/golden/<stack>.yaml. Reviewers read the golden
// diffs in pull requests; run `go test ./tests/ -run TestGolden -update`
// after an intended change.
func TestGolden(t *testing.T) {
	names, err := synth.Stacks(projectDir)
	require.NoError(t, err)
	require.NotEmpty(t, names, "no Pulumi.<stack>.yaml found")
	for _, stack := range names {
		t.Run(stack, func(t *testing.T) {
			st, err := synth.Synth(projectDir, stack)
			require.NoError(t, err)
			got, err := synth.Golden(st)
			require.NoError(t, err)
			path := filepath.Join("golden", stack+".yaml")
			if *update {
				require.NoError(t, synth.WriteFile(path, got))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "golden file missing; run go test ./tests/ -run TestGolden -update")
			require.Equal(t, string(want), string(got), "desired state of stack %q changed; if intended, run go test ./tests/ -run TestGolden -update and commit the diff", stack)
		})
	}
}
