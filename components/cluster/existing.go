package cluster

import (
	"fmt"
	"os"
	"slices"

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
	// Installed declares the operators the cluster already runs, whose
	// custom resources aksml workloads create: InstalledKAITO (KAITO
	// Workspace CRD, for FineTuningWorkspace) and InstalledTrainingOperator
	// (Kubeflow PyTorchJob/TFJob CRDs). Default none. aksml installs
	// neither of them on an existing cluster unless told to (the Training
	// Operator with aksml:trainingOperator.enabled).
	Installed []string `json:"installed,omitempty"`
}

// Operators an existing cluster may declare in ExistingClusterSpec.Installed.
const (
	// InstalledKAITO is the Kubernetes AI Toolchain Operator (KAITO).
	InstalledKAITO = "kaito"
	// InstalledTrainingOperator is the Kubeflow Training Operator.
	InstalledTrainingOperator = "trainingOperator"
)

// InstalledOperators lists the valid values of ExistingClusterSpec.Installed.
var InstalledOperators = []string{InstalledKAITO, InstalledTrainingOperator}

// Has reports whether the cluster declares the operator as installed.
func (s ExistingClusterSpec) Has(operator string) bool { return slices.Contains(s.Installed, operator) }

// Validate checks that KubeconfigPath, when set, is a readable file, and
// that Installed names known operators once each.
func (s ExistingClusterSpec) Validate(path field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, op := range s.Installed {
		switch {
		case !slices.Contains(InstalledOperators, op):
			errs = append(errs, field.NotSupported(path.Child("installed").Index(i), op, InstalledOperators))
		case seen[op]:
			errs = append(errs, field.Invalid(path.Child("installed").Index(i), "%q is listed twice", op))
		}
		seen[op] = true
	}
	if s.KubeconfigPath == "" {
		return errs
	}
	info, err := os.Stat(s.KubeconfigPath)
	switch {
	case err != nil:
		errs = append(errs, field.Invalid(path.Child("kubeconfigPath"), "cannot read %q: %v", s.KubeconfigPath, err))
	case info.IsDir():
		errs = append(errs, field.Invalid(path.Child("kubeconfigPath"), "%q is a directory; give the kubeconfig file", s.KubeconfigPath))
	}
	return errs
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
