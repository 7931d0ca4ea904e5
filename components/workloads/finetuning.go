package workloads

import (
	"net/url"
	"slices"
	"strings"

	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/apiextensions"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
)

// TuningMethod is a KAITO parameter-efficient fine-tuning method.
type TuningMethod string

// Valid tuning methods.
const (
	// TuningQLoRA is quantized LoRA (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops)).
	TuningQLoRA TuningMethod = "qlora"
	// TuningLoRA is LoRA.
	TuningLoRA TuningMethod = "lora"
)

// TuningMethods lists the valid tuning methods.
var TuningMethods = []TuningMethod{TuningQLoRA, TuningLoRA}

// FineTuningWorkspaceArgs describe a KAITO Workspace that fine-tunes a
// preset model (SPEC C7.5; AKS MLOps best practices "Fine-tune a model with KAITO"). KAITO
// runs it on nodes of InstanceType that match NodeLabels, provisioning them
// itself unless node auto-provisioning is off (NewKAITO turns it off: the
// nodes are then an existing pool's). The
// output goes either to an image (OutputImage + OutputImagePushSecret, e.g.
// in Azure Container Registry) or to a claim (OutputPVC); set exactly one.
type FineTuningWorkspaceArgs struct {
	// Provider is the Kubernetes provider; nil means the ambient default.
	Provider *kubernetes.Provider
	// Namespace is the team namespace. Required.
	Namespace pulumi.StringInput
	// Name is the Workspace name, a DNS-1123 label. Default: the component name.
	Name string
	// Team owns the workspace (aksml.io/team label). Required.
	Team string
	// InstanceType is the GPU VM size the Workspace runs on: an NC/ND size from
	// the gpupool catalogue. Required; NV-series is refused.
	InstanceType string
	// Count is the number of GPU nodes. Default 1.
	Count int
	// NodeLabels are the labels KAITO selects (and, when it provisions
	// them, puts on) the workspace's nodes. Default {"apps": <Name>}; with
	// NewKAITO's install, the stack sets the pool's {"kubernetes.azure.com/agentpool": <pool>}.
	NodeLabels map[string]string
	// Preset is the KAITO model preset, e.g. "phi-3-mini-4k-instruct". Required.
	Preset string
	// Method is qlora (default, AKS MLOps best practices) or lora.
	Method TuningMethod
	// Config is an optional ConfigMap of tuning arguments in the namespace.
	Config string
	// InputURLs are the https URLs of the training data. Required.
	InputURLs []string
	// OutputImage is the image the adapter is pushed to, e.g.
	// myregistry.azurecr.io/adapters/phi-3:v1.
	OutputImage string
	// OutputImagePushSecret is the secret used to push OutputImage.
	// Required with OutputImage.
	OutputImagePushSecret string
	// OutputPVC is a claim the adapter is written to instead of an image.
	OutputPVC string
	// Labels are added to the Workspace labels.
	Labels map[string]string
	// Await makes `pulumi up` wait for the Workspace for at most
	// AwaitTimeoutSeconds. Default false (pulumi.com/skipAwait).
	Await bool
	// AwaitTimeoutSeconds bounds the wait; required with Await, at most 3600.
	AwaitTimeoutSeconds int
}

// Default fills unset fields with their documented defaults.
func (a *FineTuningWorkspaceArgs) Default(name string) {
	if a.Name == "" {
		a.Name = name
	}
	a.Count = orDefault(a.Count, DefaultWorkspaceNodeCount)
	if len(a.NodeLabels) == 0 {
		a.NodeLabels = map[string]string{WorkspaceSelectorLabel: a.Name}
	}
	if a.Method == "" {
		a.Method = DefaultTuningMethod
	}
}

// Validate checks defaulted args and returns every problem.
func (a *FineTuningWorkspaceArgs) Validate(p field.Path) field.ErrorList {
	errs := validateWorkspace(a.Namespace, a.Name, a.Team, a.InstanceType, a.Count, a.NodeLabels, p)
	if a.Preset == "" {
		errs = append(errs, field.Required(p.Child("preset"), "a KAITO preset, e.g. phi-3-mini-4k-instruct"))
	}
	if !slices.Contains(TuningMethods, a.Method) {
		errs = append(errs, field.NotSupported(p.Child("method"), a.Method, TuningMethods))
	}
	if a.Config != "" {
		errs = append(errs, validateSubdomain(a.Config, p.Child("config"))...)
	}

	up := p.Child("inputURLs")
	if len(a.InputURLs) == 0 {
		errs = append(errs, field.Required(up, "at least one https URL of the training data"))
	}
	for i, raw := range a.InputURLs {
		u, err := url.Parse(raw)
		if err != nil || u.Scheme != "https" || u.Host == "" {
			errs = append(errs, field.Invalid(up.Index(i), "%q is not an https URL; serve the dataset over https (an approved Azure storage account, AKS MLOps best practices)", raw))
		}
	}

	op := p.Child("outputImage")
	switch {
	case a.OutputImage == "" && a.OutputPVC == "":
		errs = append(errs, field.Required(op, "where the tuned adapter goes: outputImage (+ outputImagePushSecret) for a registry, or outputPVC for a claim"))
	case a.OutputImage != "" && a.OutputPVC != "":
		errs = append(errs, field.Forbidden(p.Child("outputPVC"), "set either outputImage or outputPVC, not both"))
	case a.OutputImage != "":
		errs = append(errs, validateImage(a.OutputImage, false, op)...)
		if a.OutputImagePushSecret == "" {
			errs = append(errs, field.Required(p.Child("outputImagePushSecret"), "the secret KAITO pushes outputImage with"))
		} else {
			errs = append(errs, validateSubdomain(a.OutputImagePushSecret, p.Child("outputImagePushSecret"))...)
		}
	default:
		errs = append(errs, validateSubdomain(a.OutputPVC, p.Child("outputPVC"))...)
	}
	errs = append(errs, validateLabels(a.Labels, p.Child("labels"))...)
	errs = append(errs, validateAwait(a.Await, a.AwaitTimeoutSeconds, p)...)
	return errs
}

// workspaceArgs maps defaulted args to the Workspace custom resource. The
// kaito.sh/v1alpha1 Workspace keeps `resource` and `tuning` at the top
// level (no spec), as AKS MLOps best practices and the CRD have them.
func workspaceArgs(a *FineTuningWorkspaceArgs) *apiextensions.CustomResourceArgs {
	input := map[string]any{"urls": a.InputURLs}
	output := map[string]any{}
	if a.OutputImage != "" {
		output["image"] = a.OutputImage
		output["imagePushSecret"] = a.OutputImagePushSecret
	} else {
		output["volumeSource"] = map[string]any{"persistentVolumeClaim": map[string]any{"claimName": a.OutputPVC}}
	}
	tuning := map[string]any{
		"preset": map[string]any{"name": a.Preset},
		"method": string(a.Method),
		"input":  input,
		"output": output,
	}
	if a.Config != "" {
		tuning["config"] = a.Config
	}
	c := &Common{Name: a.Name, Team: a.Team, Namespace: a.Namespace, Labels: a.Labels}
	return kaitoWorkspace(c, kindFineTuningWorkspace, a.Await, a.AwaitTimeoutSeconds, a.InstanceType, a.Count, a.NodeLabels, "tuning", tuning)
}

// kaitoWorkspace is a kaito.sh/v1alpha1 Workspace of c's name, namespace
// and labels whose `resource` runs count nodes of instanceType matching
// nodeLabels and whose section (`tuning` or `inference`) is body.
func kaitoWorkspace(c *Common, kind string, await bool, awaitTimeout int, instanceType string, count int, nodeLabels map[string]string, section string, body map[string]any) *apiextensions.CustomResourceArgs {
	return &apiextensions.CustomResourceArgs{
		ApiVersion: pulumi.String(KAITOAPIVersion),
		Kind:       pulumi.String("Workspace"),
		Metadata:   objectMeta(c, objectLabels(c, kind), awaitAnnotationsFor(await, awaitTimeout)),
		OtherFields: kubernetes.UntypedArgs{
			"resource": map[string]any{
				"instanceType":  instanceType,
				"count":         count,
				"labelSelector": map[string]any{"matchLabels": nodeLabels},
			},
			section: body,
		},
	}
}

// validateWorkspace checks what every Workspace kind has: the namespace,
// the name (a DNS label), the owning team, and the `resource`:
// instanceType a GPU VM size of the catalogue (not NV-series, spelt as
// Azure does), count positive, nodeLabels valid label keys and values.
func validateWorkspace(namespace pulumi.StringInput, name, team, instanceType string, count int, nodeLabels map[string]string, p field.Path) field.ErrorList {
	var errs field.ErrorList
	if namespace == nil {
		errs = append(errs, field.Required(p.Child("namespace"), "the team namespace"))
	}
	errs = append(errs, validateDNSLabel(name, 63, p.Child("name"))...)
	if team == "" {
		errs = append(errs, field.Required(p.Child("team"), "the owning team"))
	} else {
		errs = append(errs, validateLabelValue(team, p.Child("team"))...)
	}
	ip := p.Child("instanceType")
	switch sku, known := gpupool.LookupSKU(instanceType); {
	case instanceType == "":
		errs = append(errs, field.Required(ip, "a GPU VM size, e.g. Standard_NC24ads_A100_v4 (AKS MLOps best practices)"))
	case gpupool.IsVisualisationOnly(instanceType):
		errs = append(errs, field.Invalid(ip, "%s is an NV-series SKU for visualisation only; use an NC/ND SKU such as Standard_NC24ads_A100_v4", instanceType))
	case !known:
		errs = append(errs, field.Invalid(ip, "%s is not a GPU SKU in the catalogue; use one of %s", instanceType, strings.Join(gpupool.VMSizes(), ", ")))
	case sku.VMSize != instanceType:
		errs = append(errs, field.Invalid(ip, "%q must be written exactly as %q", instanceType, sku.VMSize))
	}
	errs = append(errs, validatePositive(count, p.Child("count"))...)
	for _, k := range sortedKeys(nodeLabels) {
		kp := p.Child("nodeLabels").Key(k)
		errs = append(errs, validateLabelKey(k, kp)...)
		errs = append(errs, validateLabelValue(nodeLabels[k], kp)...)
	}
	return errs
}

// FineTuningWorkspace is a KAITO Workspace that fine-tunes a preset model.
type FineTuningWorkspace struct {
	pulumi.ResourceState
	// Object is the Workspace's name and namespace.
	Object
}

var fineTuningWorkspaceKind = kind[FineTuningWorkspaceArgs, *FineTuningWorkspaceArgs]{
	token: FineTuningWorkspaceType, what: "FineTuningWorkspaceArgs", children: workspaceChildren(workspaceArgs),
}

// workspaceChildren registers the Workspace `name-workspace` that args
// maps a kind's args to.
func workspaceChildren[P any](args func(P) *apiextensions.CustomResourceArgs) func(*pulumi.Context, string, P, pulumi.ComponentResource, []pulumi.ResourceOption) (metaOutput, error) {
	return func(ctx *pulumi.Context, name string, a P, c pulumi.ComponentResource, opts []pulumi.ResourceOption) (metaOutput, error) {
		ws, err := apiextensions.NewCustomResource(ctx, name+"-workspace", args(a), childOptions(c, opts)...)
		if err != nil {
			return nil, err
		}
		return ws.Metadata, nil
	}
}

// NewFineTuningWorkspace registers a FineTuningWorkspace (token
// aksml:workloads:FineTuningWorkspace) and its kaito.sh/v1alpha1 Workspace
// `name-workspace`. KAITO (the AKS add-on or a compatible install) must be
// present.
func NewFineTuningWorkspace(ctx *pulumi.Context, name string, args *FineTuningWorkspaceArgs, opts ...pulumi.ResourceOption) (*FineTuningWorkspace, error) {
	return newWorkload(ctx, fineTuningWorkspaceKind, name, args, &FineTuningWorkspace{}, opts)
}

func (a *FineTuningWorkspaceArgs) provider() *kubernetes.Provider { return a.Provider }

// targetPool is nil: KAITO places the Workspace by InstanceType and
// NodeLabels (the stack checks them against its pools, stacks.kaitoPool).
func (a *FineTuningWorkspaceArgs) targetPool() *gpupool.Resolved { return nil }
