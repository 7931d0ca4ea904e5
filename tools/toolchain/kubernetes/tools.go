//go:build tools

// Package tools records the packages the generated main package in scratch/
// imports, so that `go mod tidy` keeps their dependencies while scratch/ is
// absent. pkg/v3/codegen/schema is what the provider's generate.go (run by
// build.sh to produce the embedded schema) needs.
package tools

import (
	_ "github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/provider"
	_ "github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version"
	_ "github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)
