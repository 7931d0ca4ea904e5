package thirdparty

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pinned is one line of `tools/deps/fetch.sh list`.
type pinned struct {
	name, repo, ref, path, sha256, licence string
}

func (p pinned) set() string {
	if strings.HasPrefix(p.name, "specification/") {
		return Specs
	}
	return CRDs
}

func pinnedFiles(t *testing.T) []pinned {
	t.Helper()
	out, err := exec.Command("bash", "../../tools/deps/fetch.sh", "list").Output()
	require.NoError(t, err)
	var files []pinned
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(line, " ", 6)
		require.Len(t, f, 6, line)
		files = append(files, pinned{f[0], f[1], f[2], f[3], f[4], f[5]})
	}
	return files
}

// scriptInBareClone copies fetch.sh into a directory tree with no shared/ above it, so
// the script has to fetch, and isolates the cache.
func scriptInBareClone(t *testing.T) (script, cache string, env []string) {
	t.Helper()
	base := t.TempDir()
	script = filepath.Join(base, "clone", "tools", "deps", "fetch.sh")
	require.NoError(t, os.MkdirAll(filepath.Dir(script), 0o755))
	src, err := os.ReadFile("../../tools/deps/fetch.sh")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(script, src, 0o755))
	cache = filepath.Join(base, "cache")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, SpecsEnv+"=") && !strings.HasPrefix(kv, SharedEnv+"=") && !strings.HasPrefix(kv, CacheEnv+"=") {
			env = append(env, kv)
		}
	}
	return script, cache, append(env, CacheEnv+"="+cache)
}

func run(t *testing.T, script string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{script}, args...)...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// mirror serves the located copies of the pinned files laid out like upstream
// (/{repo}/{commit}/{path}); tamper names a file served with other content.
func mirror(t *testing.T, files []pinned, tamper string) *httptest.Server {
	t.Helper()
	byURL := map[string]string{}
	for _, f := range files {
		if f.repo == "go" {
			continue
		}
		var dir string
		var err error
		if f.set() == Specs {
			dir, err = SpecsDir("")
		} else {
			dir, err = CRDDir("")
		}
		require.NoError(t, err)
		byURL["/"+f.repo+"/"+f.ref+"/"+f.path] = filepath.Join(dir, f.name)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		file, ok := byURL[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if tamper != "" && strings.HasSuffix(file, tamper) {
			_, _ = w.Write([]byte("another revision\n"))
			return
		}
		http.ServeFile(w, r, file)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestFetchFromAMirrorIntoTheCache(t *testing.T) {
	files := pinnedFiles(t)
	srv := mirror(t, files, "")
	script, cache, env := scriptInBareClone(t)
	pattern := srv.URL + "/{repo}/{commit}/{path}"
	env = append(env, "AKSML_SPECS_URL="+pattern, "AKSML_CRDS_URL="+pattern)

	out, err := run(t, script, env)
	require.NoError(t, err, out)
	for _, f := range files {
		got, err := os.ReadFile(filepath.Join(cache, "shared", f.set(), f.name))
		require.NoError(t, err, f.name)
		assert.NotEmpty(t, got, f.name)
	}
	sources, err := os.ReadFile(filepath.Join(cache, "shared", CRDs, "SOURCES.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(sources), "kaito.sh_workspaces.yaml\thttps://github.com/kaito-project/kaito/blob/056b8280b1a8debf644bc6f4399e913a1f9c7e70/config/crd/bases/kaito.sh_workspaces.yaml\tsha256:")
	assert.Contains(t, string(sources), "Go module github.com/prometheus-operator/prometheus-operator@v0.93.0")
	assert.Contains(t, string(sources), "Apache License 2.0")

	// A second run keeps what is there (nothing to fetch, the mirror is not needed).
	srv.Close()
	out, err = run(t, script, env)
	require.NoError(t, err, out)
	assert.Contains(t, out, "0 file(s) fetched")

	// The locators find the cache from the bare clone.
	t.Setenv(CacheEnv, cache)
	t.Setenv(SpecsEnv, "")
	t.Setenv(SharedEnv, "")
	clone := filepath.Dir(filepath.Dir(filepath.Dir(script)))
	dir, err := SpecsDir(clone)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(cache, "shared", Specs), dir)
	dir, err = CRDDir(clone)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(cache, "shared", CRDs), dir)
}

func TestFetchRefusesAnotherRevision(t *testing.T) {
	srv := mirror(t, pinnedFiles(t), "kaito.sh_workspaces.yaml")
	script, cache, env := scriptInBareClone(t)
	pattern := srv.URL + "/{repo}/{commit}/{path}"
	out, err := run(t, script, append(env, "AKSML_CRDS_URL="+pattern), "crds")
	require.Error(t, err)
	assert.Contains(t, out, "not the pinned file")
	assert.NoFileExists(t, filepath.Join(cache, "shared", CRDs, "kaito.sh_workspaces.yaml"))
	assert.NoFileExists(t, filepath.Join(cache, "shared", CRDs, "SOURCES.txt"), "an incomplete set is not offered to the tests")
}

func TestFetchWithoutNetworkFailsAtOnceSayingWhatToDo(t *testing.T) {
	script, _, env := scriptInBareClone(t)
	// Nothing listens on port 1 of the loopback address: as without network.
	pattern := "http://127.0.0.1:1/{repo}/{commit}/{path}"
	start := time.Now()
	out, err := run(t, script, append(env, "AKSML_SPECS_URL="+pattern, "AKSML_CRDS_URL="+pattern))
	require.Error(t, err)
	assert.Less(t, time.Since(start), 30*time.Second)
	assert.Contains(t, out, "cannot fetch http://127.0.0.1:1/Azure/azure-rest-api-specs/")
	assert.Contains(t, out, "provide the files one of these ways")
	assert.Contains(t, out, "AKSML_SHARED_DIR")
	assert.Equal(t, 1, strings.Count(out, "provide the files one of these ways"), "one message")
}

func TestFetchChecksACopy(t *testing.T) {
	files := pinnedFiles(t)
	crds, err := CRDDir("")
	require.NoError(t, err)
	copyDir := filepath.Join(t.TempDir(), "shared")
	require.NoError(t, os.MkdirAll(filepath.Join(copyDir, CRDs), 0o755))
	for _, f := range files {
		if f.set() != CRDs {
			continue
		}
		b, err := os.ReadFile(filepath.Join(crds, f.name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(copyDir, CRDs, f.name), b, 0o644))
	}
	script, cache, env := scriptInBareClone(t)
	env = append(env, SharedEnv+"="+copyDir)

	out, err := run(t, script, env, "crds")
	require.NoError(t, err, out)
	assert.Contains(t, out, "the copy in "+filepath.Join(copyDir, CRDs))
	assert.NoDirExists(t, filepath.Join(cache, "shared", CRDs), "a copy is used in place")

	require.NoError(t, os.WriteFile(filepath.Join(copyDir, CRDs, "batch.volcano.sh_jobs.yaml"), []byte("kind: CustomResourceDefinition\n"), 0o644))
	out, err = run(t, script, env, "crds")
	require.Error(t, err)
	assert.Contains(t, out, "batch.volcano.sh_jobs.yaml has sha256")
	assert.Contains(t, out, "is not the pinned set")
}

func TestLocatorsOrder(t *testing.T) {
	base := t.TempDir()
	t.Setenv(CacheEnv, filepath.Join(base, "cache"))
	t.Setenv(SpecsEnv, "")
	t.Setenv(SharedEnv, "")
	clone := filepath.Join(base, "work", "aksml")
	require.NoError(t, os.MkdirAll(clone, 0o755))

	// Nothing anywhere: the error says how to provide the files.
	_, err := SpecsDir(clone)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "make deps")
	_, err = CRDDir(clone)
	require.Error(t, err)
	assert.Contains(t, err.Error(), SharedEnv)

	// The cache counts once complete (SOURCES.txt is written last).
	cached := filepath.Join(base, "cache", "shared", CRDs)
	require.NoError(t, os.MkdirAll(cached, 0o755))
	_, err = CRDDir(clone)
	require.Error(t, err, "an incomplete cache")
	require.NoError(t, os.WriteFile(filepath.Join(cached, "SOURCES.txt"), nil, 0o644))
	dir, err := CRDDir(clone)
	require.NoError(t, err)
	assert.Equal(t, cached, dir)

	// A shared/ folder above the clone comes before the cache.
	above := filepath.Join(base, "work", "shared")
	require.NoError(t, os.MkdirAll(filepath.Join(above, CRDs), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(above, Specs, "specification"), 0o755))
	dir, err = CRDDir(clone)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(above, CRDs), dir)
	dir, err = SpecsDir(clone)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(above, Specs), dir)

	// The environment comes first, and must name a folder.
	t.Setenv(SharedEnv, filepath.Join(base, "elsewhere"))
	_, err = CRDDir(clone)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a folder")
	t.Setenv(SpecsEnv, above)
	dir, err = SpecsDir(clone)
	require.NoError(t, err)
	assert.Equal(t, above, dir)
}
