//go:build tools

// Package tools records the main package this wrapper module builds, so that
// `go mod tidy` keeps its dependencies. build.sh builds it with:
//
//	go build -o "$BIN/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
package tools

import _ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
