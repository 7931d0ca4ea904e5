package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// repoRoot holds the shipped Pulumi.<stack>.yaml files.
const repoRoot = "../../.."

func TestShippedStacksPassEveryMandatoryRule(t *testing.T) {
	var stdout, stderr strings.Builder
	status := run(&stdout, &stderr, repoRoot, "", true)
	assert.Equal(t, exitOK, status, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	for _, stack := range []string{"dev", "prod"} {
		assert.Contains(t, stdout.String(), "stack "+stack+" (environment "+stack+"): 0 mandatory")
	}
}

// TestProgramRefusesWhatThePackWould checks a copy of the dev stack whose
// first GPU pool keeps a node warm, which AKSML-GPU-002 refuses: the
// program refuses it first, naming the key (issue 33: the program and the
// pack never disagree), so the check exits with an error and registers
// nothing to judge.
func TestProgramRefusesWhatThePackWould(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot, "Pulumi.dev.yaml"))
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, yaml.Unmarshal(raw, &doc))
	pools := doc["config"].(map[string]any)["aksml:gpuPools"].([]any)
	pool := pools[0].(map[string]any)
	pool["minCount"] = 1
	out, err := yaml.Marshal(doc)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Pulumi.dev.yaml"), out, 0o600))

	var stdout, stderr strings.Builder
	status := run(&stdout, &stderr, dir, "dev", false)
	assert.Equal(t, exitError, status, stderr.String())
	assert.Contains(t, stdout.String()+stderr.String(), "aksml:gpuPools[0].minCount: 1 keeps GPU nodes billing while idle")
	assert.NotContains(t, stdout.String(), "\nMANDATORY\n")
}

func TestUnknownStackIsAnError(t *testing.T) {
	var stdout, stderr strings.Builder
	assert.Equal(t, exitError, run(&stdout, &stderr, t.TempDir(), "nope", false))
	assert.Contains(t, stderr.String(), "stack nope: cannot synthesize the desired state")
	assert.Equal(t, exitError, run(&stdout, &stderr, t.TempDir(), "", true))
	assert.Contains(t, stderr.String(), "no Pulumi.<stack>.yaml in")
}

// TestImagesOfProd: -images lists the prod stack's pinned images and the
// Kueue chart, the scan step's input; a stack that does not synthesize is an
// error, not an empty (passing) list.
func TestImagesOfProd(t *testing.T) {
	var stdout, stderr strings.Builder
	require.Equal(t, exitOK, listImages(&stdout, &stderr, repoRoot, "prod"), stderr.String())
	out := stdout.String()
	assert.Contains(t, out, "image nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3-4.1.3-ubuntu22.04\n")
	assert.Contains(t, out, "image nvcr.io/nvidia/k8s-device-plugin:v0.17.1\n")
	assert.Contains(t, out, "chart oci://registry.k8s.io/kueue/charts/kueue 0.17.0\n")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		assert.Regexp(t, `^(image \S+|chart \S+ \S+( \S+)?)$`, line)
	}

	stdout.Reset()
	assert.Equal(t, exitError, listImages(&stdout, &stderr, t.TempDir(), "nope"))
	assert.Empty(t, stdout.String())
}
