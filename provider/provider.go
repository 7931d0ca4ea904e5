// Package provider is aksml's Pulumi component provider
// (pulumi-resource-aksml): the Go components of this repository exposed
// through one schema, so that TypeScript, Python, YAML and .NET programs
// can compose them like pulumi-eks's components.
//
// Each component here is a thin, language-neutral wrapper: its Args are
// plain values and Pulumi inputs with `pulumi:"..."` tags (no Go funcs, no
// *kubernetes.Provider: the Kubernetes provider is passed the standard way,
// in the `providers` resource option, and reaches the children through
// their parent), converted to the Go component's Args, and the Go
// constructor does the work. Validation is the Go component's own, so the
// other languages see the same checks, key paths and wording.
//
// The schema is generated from this package (see Schema) and committed as
// schema.json; TestSchemaIsCurrent fails when the two disagree.
package provider

import (
	"context"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/infer"
)

// Name is the package name of the schema and the plugin
// (pulumi-resource-aksml).
const Name = "aksml"

// Version is the provider's version, which the plugin reports and the schema
// (and so every generated SDK) carries. A development build says 0.1.0; the
// release build (tools/release/build.sh, run by .github/workflows/release.yml
// on a tag vX.Y.Z) sets it to X.Y.Z with
// -ldflags "-X github.com/aksml/aksml/provider.Version=X.Y.Z".
var Version = "0.1.0"

const (
	// Repository is where the source, the issues and the releases live.
	Repository = "https://github.com/aksml/aksml"
	// PluginDownloadURL is where the Pulumi CLI downloads the plugin of a
	// package version: the GitHub release tagged v<version> of Repository,
	// asset pulumi-resource-aksml-v<version>-<os>-<arch>.tar.gz (the github://
	// source of "Plugin download URLs", sdk/go/common/workspace/plugins.go in
	// github.com/pulumi/pulumi: standardAssetName, githubSource).
	PluginDownloadURL = "github://api.github.com/aksml/aksml"
	// GoImportBasePath is the Go import path of the generated Go SDK (a Go
	// import path, not a URL: the generated packages import each other by it).
	GoImportBasePath = "github.com/aksml/aksml/sdk/go/aksml"
)

// New returns the component provider.
func New() (p.Provider, error) {
	prov, err := infer.NewProviderBuilder().
		WithNamespace(Name).
		WithDisplayName("aksml").
		WithDescription("A GPU/ML platform on Azure Kubernetes Service: Kueue queues and quotas, ML storage, the GPU stack, training workloads and GPU node pools.").
		WithKeywords("kubernetes", "azure", "aks", "gpu", "kueue", "machine-learning", "category/cloud", "kind/component").
		WithRepository(Repository).
		WithHomepage(Repository).
		WithPublisher("aksml").
		WithPluginDownloadURL(PluginDownloadURL).
		WithLicense("Apache-2.0").
		WithLanguageMap(map[string]any{
			"go": map[string]any{
				"importBasePath":       GoImportBasePath,
				"respectSchemaVersion": true,
			},
			"nodejs": map[string]any{
				"packageName":          "@aksml/aksml",
				"dependencies":         map[string]string{"@pulumi/pulumi": "^3.276.0"},
				"respectSchemaVersion": true,
			},
			"python": map[string]any{
				"packageName":          "pulumi_aksml",
				"requires":             map[string]string{"pulumi": ">=3.276.0,<4.0.0"},
				"pyproject":            map[string]bool{"enabled": true},
				"respectSchemaVersion": true,
			},
		}).
		WithComponents(
			component(NewQueues),
			component(NewTenancy),
			component(NewStorageClasses),
			component(NewTeamVolumes),
			component(NewGPUStack),
			component(NewCheckpointedJob),
			component(NewIndexedJob),
			component(NewMIGTrial),
			component(NewScheduledScoring),
			component(NewPyTorchJob),
			component(NewTFJob),
			component(NewFineTuningWorkspace),
			component(NewInferenceWorkspace),
			component(NewInferenceServer),
			component(NewGPUNodePools),
			component(NewMonitors),
			component(NewCluster),
		).
		Build()
	if err != nil {
		return p.Provider{}, err
	}
	return withDescriptions(prov), nil
}

// Run serves the provider to the Pulumi engine (the plugin's main).
func Run(ctx context.Context) error {
	prov, err := New()
	if err != nil {
		return err
	}
	return prov.Run(ctx, Name, Version)
}
