//go:build tools

// Package tools records the main package this wrapper module builds, so that
// `go mod tidy` keeps its dependencies. build.sh builds it with:
//
//	go build -o "$BIN/pulumi-language-yaml" github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml
package tools

import _ "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml"
