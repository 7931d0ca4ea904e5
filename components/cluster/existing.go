package cluster

import (
	"fmt"
	"os"

	"github.com/aksml/aksml/components/field"
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// ExistingClusterSpec points the Kubernetes layer at a cluster aksml does
// not create (existing-cluster mode, SPEC C1.8; stack config
// `aksml:existingCluster`). No Azure resource is registered.
type ExistingClusterSpec struct {
	// KubeconfigPath is the kubeconfig file to read. Default none: the
	// provider uses the ambient kubeconfig ($KUBECONFIG or ~/.kube/config)
	// of whoever runs Pulumi.
	KubeconfigPath string `json:"kubeconfigPath,omitempty"`
	// Context is the kubeconfig context to use. Default its
	// current-context.
	Context string `json:"context,omitempty"`
	// ClusterIdentifier names the cluster stably, so that a new kubeconfig
	// (rotated credentials, another path) does not replace the provider
	// and every Kubernetes object with it. Default Context, or
	// "existing-cluster" when Context is empty.
	ClusterIdentifier string `json:"clusterIdentifier,omitempty"`
}

// Validate checks that KubeconfigPath, when set, is a readable file.
func (s ExistingClusterSpec) Validate(path field.Path) field.ErrorList {
	if s.KubeconfigPath == "" {
		return nil
	}
	info, err := os.Stat(s.KubeconfigPath)
	switch {
	case err != nil:
		return field.ErrorList{field.Invalid(path.Child("kubeconfigPath"), "cannot read %q: %v", s.KubeconfigPath, err)}
	case info.IsDir():
		return field.ErrorList{field.Invalid(path.Child("kubeconfigPath"), "%q is a directory; give the kubeconfig file", s.KubeconfigPath)}
	}
	return nil
}

// ExistingProvider returns a Kubernetes provider named name for an existing
// cluster. The kubeconfig file's contents are read now and kept in state as a
// secret. Server-side apply is on.
func ExistingProvider(ctx *pulumi.Context, name string, spec ExistingClusterSpec, opts ...pulumi.ResourceOption) (*kubernetes.Provider, error) {
	if err := spec.Validate(field.NewPath("aksml:existingCluster")).ToAggregate(); err != nil {
		return nil, err
	}
	id := spec.ClusterIdentifier
	if id == "" {
		id = spec.Context
	}
	if id == "" {
		id = "existing-cluster"
	}
	args := &kubernetes.ProviderArgs{
		ClusterIdentifier:     pulumi.String(id),
		EnableServerSideApply: pulumi.Bool(true),
	}
	if spec.KubeconfigPath != "" {
		raw, err := os.ReadFile(spec.KubeconfigPath)
		if err != nil {
			return nil, fmt.Errorf("cluster: reading kubeconfig: %w", err)
		}
		args.Kubeconfig = pulumi.ToSecret(pulumi.String(string(raw))).(pulumi.StringOutput)
	}
	if spec.Context != "" {
		args.Context = pulumi.String(spec.Context)
	}
	return kubernetes.NewProvider(ctx, name, args, opts...)
}
