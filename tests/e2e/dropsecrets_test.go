//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDropStackSecrets: a stack file rewritten by a hand-run `pulumi stack init` (salt
// added, protect quoted) loses the secrets keys and keeps its config; a file without them is
// unchanged.
func TestDropStackSecrets(t *testing.T) {
	dir := t.TempDir()
	rewritten := "config:\n  aksml:environment: dev\n  aksml:protect: \"true\"\nencryptionsalt: v1:abc:def\nsecretsprovider: passphrase\n"
	clean := "config:\n  aksml:environment: dev\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Pulumi.local.yaml"), []byte(rewritten), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Pulumi.dev.yaml"), []byte(clean), 0o644))
	dropStackSecrets(t, dir)
	b, err := os.ReadFile(filepath.Join(dir, "Pulumi.local.yaml"))
	require.NoError(t, err)
	assert.Equal(t, "config:\n  aksml:environment: dev\n  aksml:protect: \"true\"\n", string(b))
	b, err = os.ReadFile(filepath.Join(dir, "Pulumi.dev.yaml"))
	require.NoError(t, err)
	assert.Equal(t, clean, string(b))
}
