package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/provider"
)

// TestGoSDKCompiles generates the Go SDK from the committed schema at a
// release's version and builds it as the module its importBasePath names,
// with the Pulumi SDK at the provider module's versions: the schema's Go
// language section is a Go import path the generated packages can import
// each other by, and the SDK carries the version and the plugin's download
// URL.
func TestGoSDKCompiles(t *testing.T) {
	base := provider.GoImportBasePath
	out, build, err := buildGoSDK(t, "../../schema.json", base)
	require.NoError(t, err, "the generated Go SDK does not build:\n%s", build)

	root := filepath.Join(out, filepath.Base(base))
	plugin, err := os.ReadFile(filepath.Join(root, "pulumi-plugin.json"))
	require.NoError(t, err)
	var meta struct{ Name, Version, Server string }
	require.NoError(t, json.Unmarshal(plugin, &meta))
	assert.Equal(t, "aksml", meta.Name)
	assert.Equal(t, "1.2.3", meta.Version, "the SDK follows the release's version")
	assert.Equal(t, provider.PluginDownloadURL, meta.Server)

	list := exec.Command("go", "list", "./...")
	list.Dir = out
	list.Env = goEnv()
	pkgs, err := list.Output()
	require.NoError(t, err)
	assert.Contains(t, strings.Fields(string(pkgs)), base+"/queues", "the components' modules are packages below the base path")
}

// TestGoSDKRejectsAURLImportPath is the negative case of TestGoSDKCompiles:
// with the importBasePath the schema used to carry (a URL), the same
// generate-and-build fails, because no Go module or package path can start
// with a scheme (https://go.dev/ref/mod#module-path).
func TestGoSDKRejectsAURLImportPath(t *testing.T) {
	raw, err := os.ReadFile("../../schema.json")
	require.NoError(t, err)
	url := "https://" + provider.GoImportBasePath
	bad := strings.Replace(string(raw), `"importBasePath": "`+provider.GoImportBasePath+`"`, `"importBasePath": "`+url+`"`, 1)
	require.NotEqual(t, string(raw), bad, "the committed schema carries provider.GoImportBasePath")
	schemaPath := filepath.Join(t.TempDir(), "schema.json")
	require.NoError(t, os.WriteFile(schemaPath, []byte(bad), 0o644))

	_, build, err := buildGoSDK(t, schemaPath, url)
	require.Error(t, err, "a Go SDK whose import base path is a URL built:\n%s", build)
	assert.Contains(t, string(build), "https:", "the build fails on the URL path:\n%s", build)
}

// buildGoSDK generates the Go SDK from schemaPath at version 1.2.3 into a
// temporary directory and runs `go build ./...` there as the module that base
// (the schema's importBasePath) names: the module is base without its last
// element, so <out>/aksml is package github.com/aksml/aksml/sdk/go/aksml. Its
// requirements and sums are the provider module's (minus the replaced aksml
// module), so the build needs no download. It returns the directory, the
// build's output and its error.
func buildGoSDK(t *testing.T, schemaPath, base string) (string, []byte, error) {
	t.Helper()
	out := t.TempDir()
	require.NoError(t, run("go", schemaPath, out, "1.2.3"))

	gomod, err := os.ReadFile("../../go.mod")
	require.NoError(t, err)
	mod := regexp.MustCompile(`(?m)^module .*$`).ReplaceAllString(string(gomod), "module "+path.Dir(base))
	mod = regexp.MustCompile(`(?m)^(\s*github\.com/aksml/aksml v.*|replace .*)$`).ReplaceAllString(mod, "")
	require.NoError(t, os.WriteFile(filepath.Join(out, "go.mod"), []byte(mod), 0o644))
	gosum, err := os.ReadFile("../../go.sum")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(out, "go.sum"), gosum, 0o644))

	cmd := exec.Command("go", "build", "./...")
	cmd.Dir = out
	cmd.Env = goEnv()
	b, err := cmd.CombinedOutput()
	return out, b, err
}

// goEnv is the environment of the go commands these tests run on the generated module:
// -mod=mod (the module is written without a tidy go.sum of its own) after the caller's
// GOFLAGS, which are kept: .ci/run compiles without DWARF (-gcflags), and a build with
// other compile flags would compile the Pulumi SDK and every other dependency again
// (measured cold: this package's tests took 156 s instead of 9).
func goEnv() []string {
	return append(os.Environ(), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"), "GOWORK=off")
}
