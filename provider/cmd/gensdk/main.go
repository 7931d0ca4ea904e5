// Command gensdk generates aksml's TypeScript, Python or Go SDK from the
// committed provider/schema.json with the Pulumi code generators that
// `pulumi package gen-sdk` runs (github.com/pulumi/pulumi/pkg/v3/codegen),
// so that CI can build the SDKs without the Pulumi CLI:
//
//	go run ./cmd/gensdk -language nodejs -schema schema.json -out ../.sdk/nodejs
//
// -version sets the SDK's package version (the release passes the tag's); the
// Go SDK is written below -out as the packages of the schema's
// language.go.importBasePath (github.com/aksml/aksml/sdk/go/aksml in -out/aksml).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"

	"github.com/aksml/aksml/provider"
)

func main() {
	lang := flag.String("language", "", "nodejs, python or go")
	schemaPath := flag.String("schema", "schema.json", "the package schema")
	out := flag.String("out", "", "output directory (replaced)")
	version := flag.String("version", provider.Version, "the SDK's package version")
	flag.Parse()
	if err := run(*lang, *schemaPath, *out, *version); err != nil {
		fmt.Fprintln(os.Stderr, "gensdk:", err)
		os.Exit(1)
	}
}

func run(lang, schemaPath, out, version string) error {
	if out == "" {
		return fmt.Errorf("-out is required")
	}
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return fmt.Errorf("%s: %w", schemaPath, err)
	}
	spec.Version = version
	pkg, diags, err := schema.BindSpec(spec, noPackages{}, schema.ValidationOptions{})
	if err != nil {
		return err
	}
	if diags.HasErrors() {
		return diags
	}
	var files map[string][]byte
	switch lang {
	case "nodejs":
		files, err = nodejs.GeneratePackage("aksml-gensdk", pkg, nil, nil, false, noPackages{})
	case "python":
		files, err = python.GeneratePackage("aksml-gensdk", pkg, nil, noPackages{})
	case "go":
		files, err = gogen.GeneratePackage("aksml-gensdk", pkg, nil)
	default:
		return fmt.Errorf("-language must be nodejs, python or go, not %q", lang)
	}
	if err != nil {
		return err
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	for name, b := range files {
		p := filepath.Join(out, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("gensdk: %d files in %s\n", len(files), out)
	return nil
}

// noPackages is the schema loader for a schema that references no other
// package (aksml's does not: the Kubernetes provider is a resource option,
// not a typed input). Any reference is an error rather than a plugin
// download.
type noPackages struct{}

func (noPackages) LoadPackage(pkg string, _ *semver.Version) (*schema.Package, error) {
	return nil, fmt.Errorf("schema references package %q; aksml's schema must be self-contained", pkg)
}

func (l noPackages) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return l.LoadPackage(d.Name, nil)
}

func (noPackages) LoadPackageReference(pkg string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, fmt.Errorf("schema references package %q; aksml's schema must be self-contained", pkg)
}

func (l noPackages) LoadPackageReferenceV2(_ context.Context, d *schema.PackageDescriptor) (schema.PackageReference, error) {
	return l.LoadPackageReference(d.Name, nil)
}
