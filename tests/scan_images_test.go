package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScanImagesScript runs .github/scripts/scan-images.sh on the prod
// stack with stand-ins for helm and trivy on PATH (no network here): the
// script scans the stack's own images and the images of the Kueue chart it
// renders, each once; in `fail` mode one image with a finding fails the
// run, in `report` mode it does not; a bad mode is refused. The real scan
// (registries, Trivy's database) runs only in images.yml.
func TestScanImagesScript(t *testing.T) {
	bin := t.TempDir()
	log := filepath.Join(t.TempDir(), "scanned")
	write := func(name, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte("#!/usr/bin/env bash\n"+body), 0o755))
	}
	// helm template prints a manifest naming the chart's controller image twice.
	write("helm", `[ "$1" = template ] || exit 9
[ "$3" = oci://registry.k8s.io/kueue/charts/kueue ] && [ "$5" = 0.17.0 ] || exit 8
printf 'kind: Deployment\n        image: "registry.k8s.io/kueue/kueue:v0.17.0"\n---\n        image: registry.k8s.io/kueue/kueue:v0.17.0\n'
`)
	// trivy records each image and exits with --exit-code on the DCGM image.
	write("trivy", `img="${@: -1}"; echo "$img" >>"`+log+`"
code=0; for ((i=1; i<=$#; i++)); do [ "${!i}" = --exit-code ] && { j=$((i+1)); code=${!j}; }; done
case "$img" in *dcgm-exporter*) exit "$code" ;; esac
`)
	script := filepath.Join(projectDir, ".github", "scripts", "scan-images.sh")
	runScript := func(mode string) (string, error) {
		require.NoError(t, os.WriteFile(log, nil, 0o644))
		cmd := exec.Command("bash", script, "prod", mode)
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := runScript("fail")
	require.Error(t, err, out)
	assert.Contains(t, out, "1 image(s) with fixable CRITICAL vulnerabilities")
	scanned, err := os.ReadFile(log)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"nvcr.io/nvidia/k8s-device-plugin:v0.17.1",
		"nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3-4.1.3-ubuntu22.04",
		"registry.k8s.io/kueue/kueue:v0.17.0",
	}, strings.Fields(string(scanned)), "the stack's images and the chart's, each once")

	out, err = runScript("report")
	require.NoError(t, err, out)

	out, err = runScript("maybe")
	require.Error(t, err)
	assert.Contains(t, out, "mode must be fail or report")
}
