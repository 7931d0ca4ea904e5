package workloads

import (
	"regexp"
	"strings"

	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/apiextensions"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
)

const kindInferenceWorkspace = "inference-workspace"

// MaxPresetNameLength is the longest model preset name aksml accepts: a
// Hugging Face repository name is at most 96 characters (huggingface_hub
// utils/_validators.py, REPO_ID_REGEX `[\w\-.]{1,96}`).
const MaxPresetNameLength = 96

// builtinPresetRE is a KAITO built-in preset name: lowercase words of
// letters and digits joined by '-' or '.' (phi-3.5-mini-instruct,
// qwen2.5-coder-7b-instruct; kaito-project/kaito presets/workspace/models).
var builtinPresetRE = regexp.MustCompile(`^[a-z0-9]+([.-][a-z0-9]+)*$`)

// hubPresetPartRE is one part of a Hugging Face model ID, which KAITO
// serves as a preset since v0.9.0 ("Best-effort Hugging Face vLLM model
// support", KAITO docs website/docs/presets.md: `inference.preset.name:
// Qwen/Qwen3-0.6B`): letters, digits, '_', '-' and '.', starting and
// ending with a letter or digit (huggingface_hub REPO_ID_REGEX, word
// boundaries at both ends; validate_repo_id refuses "--" and "..").
var hubPresetPartRE = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9])?$`)

// ValidatePresetName checks that name is a well-formed KAITO inference
// preset: a built-in preset name (lowercase, e.g. phi-3-mini-4k-instruct)
// or a Hugging Face model ID `<organisation>/<model>` (e.g.
// Qwen/Qwen3-0.6B), at most MaxPresetNameLength characters. Whether
// KAITO knows the preset is decided by KAITO's own webhook at apply time.
func ValidatePresetName(name string, p field.Path) field.ErrorList {
	const what = "a KAITO preset name such as phi-3-mini-4k-instruct, or a Hugging Face model ID such as Qwen/Qwen3-0.6B"
	switch {
	case name == "":
		return field.ErrorList{field.Required(p, what)}
	case len(name) > MaxPresetNameLength:
		return field.ErrorList{field.Invalid(p, "%q has %d characters, more than the %d a Hugging Face model ID may have; use %s", name, len(name), MaxPresetNameLength, what)}
	case strings.Contains(name, "/"):
		org, model, _ := strings.Cut(name, "/")
		if !hubPresetPartRE.MatchString(org) || !hubPresetPartRE.MatchString(model) || strings.Contains(name, "--") || strings.Contains(name, "..") {
			return field.ErrorList{field.Invalid(p, "%q is not a Hugging Face model ID <organisation>/<model> (letters, digits, '_', '-', '.', no '--' or '..'); use %s", name, what)}
		}
	case !builtinPresetRE.MatchString(name):
		return field.ErrorList{field.Invalid(p, "%q is not a KAITO preset name (lowercase letters and digits joined by '-' or '.'); use %s", name, what)}
	}
	return nil
}

// InferenceWorkspaceArgs describe a KAITO Workspace that serves a preset
// model (issue 29; AKS MLOps best practices: "KAITO for fine-tuning and
// model deployment"): KAITO runs the preset's OpenAI-compatible server on
// Count nodes of InstanceType that match NodeLabels and puts a ClusterIP
// Service named after the Workspace in front of it. Like the fine-tuning
// Workspace it runs where KAITO places it: with NewKAITO's install (no
// node auto-provisioning) on an existing pool's nodes, which must not be
// spot (the stack checks this, stacks.kaitoPool). Only public presets
// are offered (no presetOptions.image), and no custom pod template: a
// custom server is an InferenceServer.
type InferenceWorkspaceArgs struct {
	// Provider is the Kubernetes provider; nil means the ambient default.
	Provider *kubernetes.Provider
	// Namespace is the team namespace. Required.
	Namespace pulumi.StringInput
	// Name is the Workspace name, a DNS-1123 label; KAITO names the
	// Service and the StatefulSet after it. Default: the component name.
	Name string
	// Team owns the workspace (aksml.io/team label). Required.
	Team string
	// InstanceType is the GPU VM size the model is served on: an NC/ND
	// size from the gpupool catalogue. Required; NV-series is refused.
	InstanceType string
	// Count is the number of GPU nodes. Default 1.
	Count int
	// NodeLabels are the labels KAITO selects the nodes by. Default
	// {"apps": <Name>}; with NewKAITO's install, the stack sets the pool's
	// {"kubernetes.azure.com/agentpool": <pool>}.
	NodeLabels map[string]string
	// Preset is the model: a KAITO built-in preset (phi-3-mini-4k-instruct)
	// or, KAITO 0.9.0 and later, a Hugging Face model ID (Qwen/Qwen3-0.6B),
	// see ValidatePresetName. Required.
	Preset string
	// Config is an optional ConfigMap of inference (vLLM) arguments in the
	// namespace (inference.config).
	Config string
	// Labels are added to the Workspace labels.
	Labels map[string]string
	// Await makes `pulumi up` wait for the Workspace for at most
	// AwaitTimeoutSeconds. Default false (pulumi.com/skipAwait).
	Await bool
	// AwaitTimeoutSeconds bounds the wait; required with Await, at most 3600.
	AwaitTimeoutSeconds int
}

// Default fills unset fields with their documented defaults.
func (a *InferenceWorkspaceArgs) Default(name string) {
	if a.Name == "" {
		a.Name = name
	}
	a.Count = orDefault(a.Count, DefaultWorkspaceNodeCount)
	if len(a.NodeLabels) == 0 {
		a.NodeLabels = map[string]string{WorkspaceSelectorLabel: a.Name}
	}
}

// Validate checks defaulted args and returns every problem.
func (a *InferenceWorkspaceArgs) Validate(p field.Path) field.ErrorList {
	errs := validateWorkspace(a.Namespace, a.Name, a.Team, a.InstanceType, a.Count, a.NodeLabels, p)
	errs = append(errs, ValidatePresetName(a.Preset, p.Child("preset"))...)
	if a.Config != "" {
		errs = append(errs, validateSubdomain(a.Config, p.Child("config"))...)
	}
	errs = append(errs, validateLabels(a.Labels, p.Child("labels"))...)
	errs = append(errs, validateAwait(a.Await, a.AwaitTimeoutSeconds, p)...)
	return errs
}

// inferenceWorkspaceArgs maps defaulted args to the Workspace custom
// resource: `inference.preset.name` (v1alpha1 keeps `resource` and
// `inference` at the top level, as the pinned CRD has them).
func inferenceWorkspaceArgs(a *InferenceWorkspaceArgs) *apiextensions.CustomResourceArgs {
	inference := map[string]any{"preset": map[string]any{"name": a.Preset}}
	if a.Config != "" {
		inference["config"] = a.Config
	}
	c := &Common{Name: a.Name, Team: a.Team, Namespace: a.Namespace, Labels: a.Labels}
	return kaitoWorkspace(c, kindInferenceWorkspace, a.Await, a.AwaitTimeoutSeconds, a.InstanceType, a.Count, a.NodeLabels, "inference", inference)
}

// InferenceWorkspace is a KAITO Workspace that serves a preset model.
type InferenceWorkspace struct {
	pulumi.ResourceState
	// Object is the Workspace's name and namespace; KAITO's Service of the
	// model has the same name.
	Object
}

var inferenceWorkspaceKind = kind[InferenceWorkspaceArgs, *InferenceWorkspaceArgs]{
	token: InferenceWorkspaceType, what: "InferenceWorkspaceArgs", children: workspaceChildren(inferenceWorkspaceArgs),
}

// NewInferenceWorkspace registers an InferenceWorkspace (token
// aksml:workloads:InferenceWorkspace) and its kaito.sh/v1alpha1 Workspace
// `name-workspace`. KAITO (NewKAITO, or a compatible install) must be
// present.
func NewInferenceWorkspace(ctx *pulumi.Context, name string, args *InferenceWorkspaceArgs, opts ...pulumi.ResourceOption) (*InferenceWorkspace, error) {
	return newWorkload(ctx, inferenceWorkspaceKind, name, args, &InferenceWorkspace{}, opts)
}

func (a *InferenceWorkspaceArgs) provider() *kubernetes.Provider { return a.Provider }

// targetPool is nil: KAITO places the Workspace by InstanceType and
// NodeLabels (the stack checks them against its pools, stacks.kaitoPool).
func (a *InferenceWorkspaceArgs) targetPool() *gpupool.Resolved { return nil }
