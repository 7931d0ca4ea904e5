package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConflicts(t *testing.T) {
	uses := Uses{}
	parse(uses, "main", []byte("github.com/aksml/aksml\ngoogle.golang.org/grpc v1.85.0\nk8s.io/api v0.35.4\n"))
	parse(uses, "tests/cluster/tools", []byte("google.golang.org/grpc v1.85.0\nk8s.io/api v0.37.2\ngithub.com/aksml/aksml v0.0.0\n"))
	parse(uses, "provider", []byte("k8s.io/api v0.35.4\ngithub.com/aksml/aksml v0.0.0-00010101000000-000000000000\n"))

	got := Conflicts(uses, "github.com/aksml/")
	require.Len(t, got, 1, "grpc is at one version; aksml's own module is skipped")
	assert.Equal(t, "k8s.io/api", got[0].Module)
	assert.Equal(t, map[string][]string{"v0.35.4": {"main", "provider"}, "v0.37.2": {"tests/cluster/tools"}}, got[0].Versions)
	assert.Equal(t, "k8s.io/api: v0.35.4 in main, provider; v0.37.2 in tests/cluster/tools", got[0].String())
}

func TestNoConflicts(t *testing.T) {
	uses := Uses{}
	parse(uses, "main", []byte("google.golang.org/grpc v1.85.0\n"))
	parse(uses, "tests/netpol", []byte("google.golang.org/grpc v1.85.0\n"))
	assert.Empty(t, Conflicts(uses, "github.com/aksml/"))
}

func TestOwnPatterns(t *testing.T) {
	got, err := OwnPatterns([]byte("x=1\nown_packages=\"k8s.io/kubernetes/... sigs.k8s.io/kwok/...\"\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{"k8s.io/kubernetes/...", "sigs.k8s.io/kwok/..."}, got)

	_, err = OwnPatterns([]byte("own_packages=\"k8s.io/kubernetes\"\n"))
	assert.ErrorContains(t, err, "not a MODULE/... pattern")
	_, err = OwnPatterns([]byte("packages=\"k8s.io/kubernetes/...\"\n"))
	assert.ErrorContains(t, err, "no own_packages")
}

func TestOwnShared(t *testing.T) {
	uses := Uses{}
	parse(uses, controlPlane, []byte("k8s.io/kubernetes v1.36.3\nsigs.k8s.io/kustomize/api v0.20.1\nk8s.io/api v0.36.3\n"))
	parse(uses, "tests/cluster", []byte("k8s.io/api v0.36.3\n"))
	patterns := []string{"k8s.io/kubernetes/...", "sigs.k8s.io/kustomize/..."}
	assert.Empty(t, OwnShared(uses, patterns, controlPlane), "only the control plane compiles its own modules")

	parse(uses, "main", []byte("sigs.k8s.io/kustomize/api v0.20.1\n"))
	parse(uses, "provider", []byte("sigs.k8s.io/kustomize/api v0.20.1\nk8s.io/kubernetes-extra v1.0.0\n"))
	assert.Equal(t, []string{"sigs.k8s.io/kustomize/api (sigs.k8s.io/kustomize/...) in main, provider"},
		OwnShared(uses, patterns, controlPlane), "a module of the pattern's prefix only, not k8s.io/kubernetes-extra")
}

func TestBuildAssetsOwnPatterns(t *testing.T) {
	script, err := os.ReadFile("../../tests/cluster/build-assets.sh")
	require.NoError(t, err)
	patterns, err := OwnPatterns(script)
	require.NoError(t, err)
	assert.Contains(t, patterns, "k8s.io/kubernetes/...")
}
