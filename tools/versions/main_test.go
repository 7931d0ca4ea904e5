package main

import (
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
