// Package thirdparty finds the third-party files the tests, the sandbox and `make demo` read but
// the repository does not carry (nothing fetched from a public repository is committed): the
// published Azure REST API specs and the CRDs that no Go module of the build ships.
// tools/deps/fetch.sh (`make deps`) provides them, pinned and checksummed, and lists their
// origins and licences; the functions here look in the same places in the same order.
package thirdparty

import (
	"fmt"
	"os"
	"path/filepath"
)

const (
	// SpecsEnv names a folder holding the azure-rest-api-specs copies (specification/...).
	SpecsEnv = "AKSML_AZURE_SPECS"
	// SharedEnv names a folder holding azure-specs/ and crds/ (the layout of shared/).
	SharedEnv = "AKSML_SHARED_DIR"
	// CacheEnv overrides the cache folder tools/deps/fetch.sh fills (default CacheDir).
	CacheEnv = "AKSML_CACHE_DIR"

	// Specs is the name of the specs folder inside shared/ and the cache.
	Specs = "azure-specs"
	// CRDs is the name of the CRD folder inside shared/ and the cache.
	CRDs = "crds"
)

// CacheDir returns the folder tools/deps/fetch.sh fetches into: $AKSML_CACHE_DIR/shared, else
// $XDG_CACHE_HOME/aksml/shared, else ~/.cache/aksml/shared (the script's default, outside the
// clone).
func CacheDir() string {
	base := os.Getenv(CacheEnv)
	if base == "" {
		xdg := os.Getenv("XDG_CACHE_HOME")
		if xdg == "" {
			home, _ := os.UserHomeDir()
			xdg = filepath.Join(home, ".cache")
		}
		base = filepath.Join(xdg, "aksml")
	}
	return filepath.Join(base, "shared")
}

// SpecsDir returns the folder holding the published Azure REST API specs (specification/...):
// $AKSML_AZURE_SPECS, else $AKSML_SHARED_DIR/azure-specs, else the nearest shared/azure-specs in
// from or one of its parents (from "" is the working directory), else the cache. The error
// says how to provide them.
func SpecsDir(from string) (string, error) {
	if dir := os.Getenv(SpecsEnv); dir != "" {
		return existing(dir, SpecsEnv)
	}
	return find(from, Specs, "specification")
}

// CRDDir returns the folder holding the CRDs no Go module ships: $AKSML_SHARED_DIR/crds, else
// the nearest shared/crds in from or one of its parents (from "" is the working directory),
// else the cache. The error says how to provide them.
func CRDDir(from string) (string, error) {
	return find(from, CRDs, "")
}

func find(from, name, inside string) (string, error) {
	if shared := os.Getenv(SharedEnv); shared != "" {
		return existing(filepath.Join(shared, name), SharedEnv)
	}
	if from == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		from = wd
	}
	from, err := filepath.Abs(from)
	if err != nil {
		return "", err
	}
	for dir := from; ; dir = filepath.Dir(dir) {
		cand := filepath.Join(dir, "shared", name)
		if st, err := os.Stat(filepath.Join(cand, inside)); err == nil && st.IsDir() {
			return cand, nil
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	cached := filepath.Join(CacheDir(), name)
	if _, err := os.Stat(filepath.Join(cached, "SOURCES.txt")); err == nil {
		return cached, nil
	}
	return "", fmt.Errorf("no %s: none in $%s, in a shared/%s above %s or in the cache %s; run `make deps` (tools/deps/fetch.sh) to fetch the pinned files, or set %s to a folder holding %s/ (see tools/deps/fetch.sh for mirrors)",
		name, SharedEnv, name, from, cached, SharedEnv, name)
}

func existing(dir, env string) (string, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", fmt.Errorf("%s: %s names %s, which is not a folder; run `make deps` (tools/deps/fetch.sh) to check or fetch the pinned files", dir, env, dir)
	}
	return dir, nil
}
