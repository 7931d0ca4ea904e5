package workloads

import (
	"regexp"

	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	corev1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/core/v1"
	helmv4 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/helm/v4"
	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/vocab"
)

// chartVersionRE is a Helm chart version pinned to a release (no range, no
// pre-release).
var chartVersionRE = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)

// KAITOArgs describe the KAITO workspace controller install that provides
// the kaito.sh Workspace CRD on a cluster aksml creates (issue 29; AKS MLOps
// best practices "Fine-tune a model with KAITO": "enable the KAITO add-on or
// install a compatible KAITO version"). It is installed in "bring your own
// GPU nodes" mode: node auto-provisioning is off, so Workspaces run on the
// stack's own GPU pools and KAITO needs no Azure identity ("Bring Your Own
// GPU Nodes", https://kaito-project.github.io/kaito/docs/kaito-on-byo-gpu-nodes,
// kaito-project/kaito website/docs/kaito-on-byo-gpu-nodes.md).
type KAITOArgs struct {
	// Provider is the Kubernetes provider; nil means the ambient default.
	Provider *kubernetes.Provider
	// Version is the KAITO workspace chart version. Default KAITOVersion
	// (pinned); an exact release version, no range.
	Version string
	// ClusterName is the chart's clusterName value. Default "kaito" (the
	// chart's own default).
	ClusterName string
}

// Default fills unset fields with their documented defaults.
func (a *KAITOArgs) Default() {
	if a.Version == "" {
		a.Version = KAITOVersion
	}
	if a.ClusterName == "" {
		a.ClusterName = "kaito"
	}
}

// Validate checks defaulted args and returns every problem.
func (a *KAITOArgs) Validate(p field.Path) field.ErrorList {
	var errs field.ErrorList
	if !chartVersionRE.MatchString(a.Version) {
		errs = append(errs, field.Invalid(p.Child("version"), "%q is not a chart release version; pin one such as %s", a.Version, KAITOVersion))
	}
	errs = append(errs, validateLabelValue(a.ClusterName, p.Child("clusterName"))...)
	return errs
}

// KAITOValues are the chart values aksml sets. Each departs from the
// chart's default for a cited reason:
//   - featureGates.disableNodeAutoProvisioning: true, the "bring your own
//     GPU nodes" mode ("Bring Your Own GPU Nodes", KAITO docs, above): KAITO
//     uses existing nodes matching the Workspace's labelSelector and creates
//     no NodeClaims, so no gpu-provisioner and no Azure identity.
//   - nvidiaDevicePlugin.enabled: false, because aksml's GPU stack already
//     runs the NVIDIA device plugin on its GPU pools (components/gpustack);
//     two device plugins would both register nvidia.com/gpu.
//   - localCSIDriver.useLocalCSIDriver: false: the local NVMe CSI driver is
//     only a model cache and its DaemonSet fails on nodes without local NVMe
//     (kaito-project/kaito charts/kaito/workspace/values.yaml, localCSIDriver).
func KAITOValues(clusterName string) map[string]any {
	return map[string]any{
		"clusterName":        clusterName,
		"featureGates":       map[string]any{"disableNodeAutoProvisioning": true},
		"nvidiaDevicePlugin": map[string]any{"enabled": false},
		"localCSIDriver":     map[string]any{"useLocalCSIDriver": false},
	}
}

// KAITO is the KAITO workspace controller installed from its Helm chart at
// a pinned version into the kaito-workspace namespace. Pass its Resources
// to pulumi.DependsOn of FineTuningWorkspace components so the CRD exists
// first.
type KAITO struct {
	pulumi.ResourceState

	// Namespace is the controller's namespace, "kaito-workspace".
	Namespace pulumi.StringOutput `pulumi:"namespace"`
	// Version is the installed chart version.
	Version pulumi.StringOutput `pulumi:"version"`

	resources []pulumi.Resource
}

// Resources returns the namespace and the chart. Give these, not the
// component, to pulumi.DependsOn (see queues.Queues.Resources for why).
func (c *KAITO) Resources() []pulumi.Resource { return c.resources }

// NewKAITO registers a KAITO (token aksml:workloads:KAITO), its namespace
// `name-namespace` and its chart `name-chart`. nil args install the
// default, pinned release.
func NewKAITO(ctx *pulumi.Context, name string, args *KAITOArgs, opts ...pulumi.ResourceOption) (*KAITO, error) {
	a := KAITOArgs{}
	if args != nil {
		a = *args
	}
	a.Default()
	if err := a.Validate(field.NewPath(name)).ToAggregate(); err != nil {
		return nil, err
	}
	c := &KAITO{}
	if err := ctx.RegisterComponentResource(KAITOType, name, c, componentOptions(a.Provider, opts)...); err != nil {
		return nil, err
	}
	ns, err := corev1.NewNamespace(ctx, name+"-namespace", &corev1.NamespaceArgs{
		Metadata: &metav1.ObjectMetaArgs{Name: pulumi.String(KAITONamespace), Labels: pulumi.StringMap{vocab.PartOfLabel: pulumi.String(vocab.PartOfValue)}},
	}, pulumi.Parent(c))
	if err != nil {
		return nil, err
	}
	chart, err := helmv4.NewChart(ctx, name+"-chart", &helmv4.ChartArgs{
		Chart:          pulumi.String(KAITOChart),
		Version:        pulumi.String(a.Version),
		RepositoryOpts: &helmv4.RepositoryOptsArgs{Repo: pulumi.String(KAITORepo)},
		Name:           pulumi.String(KAITOChart),
		Namespace:      ns.Metadata.Name(),
		Values:         pulumi.ToMap(KAITOValues(a.ClusterName)),
	}, pulumi.Parent(c))
	if err != nil {
		return nil, err
	}
	c.resources = []pulumi.Resource{ns, chart}
	c.Namespace = ns.Metadata.Name().Elem()
	c.Version = pulumi.String(a.Version).ToStringOutput()
	return c, ctx.RegisterResourceOutputs(c, pulumi.Map{"namespace": c.Namespace, "version": c.Version})
}
