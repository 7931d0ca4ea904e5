package dryrun

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadObjects(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	objs, err := ReadObjects(write("ok.yaml", "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n---\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: a\n"))
	require.NoError(t, err)
	require.Len(t, objs, 2, "the empty document is skipped")
	assert.Equal(t, "ConfigMap", objs[1].GetKind())
	assert.Equal(t, "a", objs[1].GetNamespace())

	_, err = ReadObjects(write("nokind.yaml", "apiVersion: v1\nmetadata:\n  name: a\n"))
	assert.ErrorContains(t, err, "document 1 has no kind or name")
	_, err = ReadObjects(write("noname.yaml", "apiVersion: v1\nkind: Namespace\n"))
	assert.ErrorContains(t, err, "document 1 has no kind or name")
	_, err = ReadObjects(write("empty.yaml", "---\n"))
	assert.ErrorContains(t, err, "no objects")
	_, err = ReadObjects(write("bad.yaml", "kind: [\n"))
	assert.Error(t, err)
	_, err = ReadObjects(filepath.Join(dir, "missing.yaml"))
	assert.Error(t, err)
}

func TestApplyRefusesNoWorkers(t *testing.T) {
	_, err := Apply(t.Context(), nil, nil, 0)
	assert.ErrorContains(t, err, "want at least 1")
}
