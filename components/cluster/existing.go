package cluster

import (
	"fmt"
	"os"
	"slices"
	"strings"

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

	// StackReference is the fully qualified name (org/project/stack) of an
	// aksml Azure-layer stack (aksml:kubernetesLayer false) whose outputs
	// this stack reads through a StackReference: `kubeconfig` for the
	// provider, `clusterResourceId` as the default cluster identifier, and
	// `resourceGroupName` and `filesStorageAccount` for the StorageClasses.
	// The way to a private API server: run this stack from inside the VNet.
	// Default none; not with KubeconfigPath.
	StackReference string `json:"stackReference,omitempty"`
	// KubeClient is the Kubernetes provider's client-side rate limit.
	// Default 200 requests a second, bursts of 400 (see KubeClient).
	KubeClient KubeClient `json:"kubeClient,omitempty"`
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

// ExistingStackOutputs are the outputs an Azure-layer stack exports for a
// Kubernetes-layer stack that references it.
var ExistingStackOutputs = struct{ Kubeconfig, ClusterResourceID, ResourceGroupName, FilesStorageAccount string }{
	"kubeconfig", "clusterResourceId", "resourceGroupName", "filesStorageAccount",
}

// Validate checks that KubeconfigPath, when set, is a readable file, that
// StackReference, when set, is a stack name and the only kubeconfig source,
// and that Installed names known operators once each.
func (s ExistingClusterSpec) Validate(path field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, field.Unique(path.Child("installed"), s.Installed, "%q", field.OneOf(InstalledOperators))...)
	errs = append(errs, s.KubeClient.Validate(path.Child("kubeClient"))...)
	if s.StackReference != "" {
		parts := strings.Split(s.StackReference, "/")
		switch {
		case s.KubeconfigPath != "":
			errs = append(errs, field.Forbidden(path.Child("stackReference"), "and kubeconfigPath are mutually exclusive: the kubeconfig comes from the referenced stack; remove one"))
		case (len(parts) != 1 && len(parts) != 3) || slices.Contains(parts, ""):
			errs = append(errs, field.Invalid(path.Child("stackReference"), "%q is not a stack name; write <org>/<project>/<stack>, e.g. organization/aksml/prod-azure", s.StackReference))
		}
		return errs
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
	prov, _, err := ExistingStack(ctx, name, spec, ExistingStackArgs{}, opts...)
	return prov, err
}

// ExistingConfigPath is the error-path root of the ExistingClusterSpec
// that ExistingStack validates when the caller gives no
// ExistingStackArgs.ConfigPath. It carries no program's config namespace:
// the aksml program passes `aksml:existingCluster`.
const ExistingConfigPath = "existingCluster"

// DefaultProducer is ExistingStackArgs.Producer when the caller gives none.
const DefaultProducer = "a stack that creates the cluster and exports ExistingStackOutputs (its Azure layer)"

// ExistingStackArgs names, in ExistingStack's errors, the caller's config:
// the library does not know the program's config namespace.
type ExistingStackArgs struct {
	// ConfigPath names the spec in validation errors. Default
	// ExistingConfigPath (`existingCluster`).
	ConfigPath field.Path
	// Producer says what the referenced stack must be when one of its
	// outputs is missing: `stack <ref> has no output "<key>"; deploy it as
	// <Producer> first`. Default DefaultProducer.
	Producer string
}

// ExistingStack is ExistingProvider that also returns the StackReference
// (`<name>-ref`) it reads the kubeconfig from when spec.StackReference is
// set (nil otherwise), so that the caller reads the referenced stack's other
// outputs from the same reference.
func ExistingStack(ctx *pulumi.Context, name string, spec ExistingClusterSpec, sa ExistingStackArgs, opts ...pulumi.ResourceOption) (*kubernetes.Provider, *pulumi.StackReference, error) {
	if sa.ConfigPath == "" {
		sa.ConfigPath = field.NewPath(ExistingConfigPath)
	}
	if sa.Producer == "" {
		sa.Producer = DefaultProducer
	}
	if err := spec.Validate(sa.ConfigPath).ToAggregate(); err != nil {
		return nil, nil, err
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
		KubeClientSettings:    spec.KubeClient.settings(),
	}
	var ref *pulumi.StackReference
	if spec.StackReference != "" {
		var err error
		ref, err = pulumi.NewStackReference(ctx, name+"-ref", &pulumi.StackReferenceArgs{Name: pulumi.String(spec.StackReference)})
		if err != nil {
			return nil, nil, err
		}
		args.Kubeconfig = pulumi.ToSecret(RequiredOutput(ref, ExistingStackOutputs.Kubeconfig, sa.Producer)).(pulumi.StringOutput)
		if spec.ClusterIdentifier == "" {
			args.ClusterIdentifier = RequiredOutput(ref, ExistingStackOutputs.ClusterResourceID, sa.Producer)
		}
	}
	if spec.KubeconfigPath != "" {
		raw, err := os.ReadFile(spec.KubeconfigPath)
		if err != nil {
			return nil, nil, fmt.Errorf("cluster: reading kubeconfig: %w", err)
		}
		args.Kubeconfig = pulumi.ToSecret(pulumi.String(string(raw))).(pulumi.StringOutput)
	}
	if spec.Context != "" {
		args.Context = pulumi.String(spec.Context)
	}
	prov, err := kubernetes.NewProvider(ctx, name, args, opts...)
	return prov, ref, err
}

// RequiredOutput returns the referenced stack's string output key; it fails
// (at preview, when the other stack's state is read) when the output is
// missing or empty, naming the output and the stack and saying to deploy it
// as producer (ExistingStackArgs.Producer).
func RequiredOutput(ref *pulumi.StackReference, key, producer string) pulumi.StringOutput {
	return pulumi.All(ref.Name, ref.GetOutput(pulumi.String(key))).ApplyT(func(vs []any) (string, error) {
		s, _ := vs[1].(string)
		if s == "" {
			return "", fmt.Errorf("stack %v has no output %q; deploy it as %s first", vs[0], key, producer)
		}
		return s, nil
	}).(pulumi.StringOutput)
}
