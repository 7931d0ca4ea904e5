package workloads

import (
	"fmt"
	"regexp"

	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	kustomize "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/kustomize/v2"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
)

var versionRE = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+$`)

// TrainingOperatorArgs describe the Kubeflow Training Operator install that
// provides the PyTorchJob and TFJob CRDs (SPEC C7.4; AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) "Install and version training operators through IaC"). The
// stack installs it once per cluster, behind a toggle.
type TrainingOperatorArgs struct {
	// Provider is the Kubernetes provider; nil means the ambient default.
	Provider *kubernetes.Provider
	// Version is the release tag of the standalone kustomize overlay.
	// Default v1.8.1 (pinned). Kustomize fetches the overlay with git when
	// `pulumi preview` or `pulumi up` runs.
	Version string
}

// Default fills unset fields with their documented defaults.
func (a *TrainingOperatorArgs) Default() {
	if a.Version == "" {
		a.Version = TrainingOperatorVersion
	}
}

// Validate checks defaulted args and returns every problem.
func (a *TrainingOperatorArgs) Validate(p field.Path) field.ErrorList {
	if !versionRE.MatchString(a.Version) {
		return field.ErrorList{field.Invalid(p.Child("version"), "%q is not a release tag; pin a version such as %s", a.Version, TrainingOperatorVersion)}
	}
	return nil
}

// TrainingOperatorDirectory is the kustomize directory of a release.
func TrainingOperatorDirectory(version string) string {
	return fmt.Sprintf(TrainingOperatorManifests, version)
}

// TrainingOperator is the Kubeflow Training Operator, installed from the
// standalone kustomize overlay at a pinned release into the kubeflow
// namespace. Pass it in pulumi.DependsOn of PyTorchJob and TFJob components
// in the same stack (its Resources) so the CRDs exist first.
type TrainingOperator struct {
	pulumi.ResourceState

	// Namespace is the operator's namespace, "kubeflow".
	Namespace pulumi.StringOutput `pulumi:"namespace"`
	// Version is the installed release.
	Version pulumi.StringOutput `pulumi:"version"`

	manifests pulumi.Resource
}

// Resources returns the operator's kustomize Directory. Give it, not the
// component, to pulumi.DependsOn of PyTorchJob and TFJob components (see
// queues.Queues.Resources for why).
func (c *TrainingOperator) Resources() []pulumi.Resource { return []pulumi.Resource{c.manifests} }

// NewTrainingOperator registers a TrainingOperator (token
// aksml:workloads:TrainingOperator) and its kustomize Directory
// `name-manifests`. nil args install the default, pinned release.
func NewTrainingOperator(ctx *pulumi.Context, name string, args *TrainingOperatorArgs, opts ...pulumi.ResourceOption) (*TrainingOperator, error) {
	a := TrainingOperatorArgs{}
	if args != nil {
		a = *args
	}
	a.Default()
	if err := a.Validate(field.NewPath(name)).ToAggregate(); err != nil {
		return nil, err
	}
	c := &TrainingOperator{}
	if err := ctx.RegisterComponentResource(TrainingOperatorType, name, c, componentOptions(a.Provider, opts)...); err != nil {
		return nil, err
	}
	dir, err := kustomize.NewDirectory(ctx, name+"-manifests", &kustomize.DirectoryArgs{
		Directory: pulumi.String(TrainingOperatorDirectory(a.Version)),
	}, pulumi.Parent(c))
	if err != nil {
		return nil, err
	}
	c.manifests = dir
	c.Namespace = pulumi.String(TrainingOperatorNamespace).ToStringOutput()
	c.Version = pulumi.String(a.Version).ToStringOutput()
	return c, ctx.RegisterResourceOutputs(c, pulumi.Map{"namespace": c.Namespace, "version": c.Version})
}
