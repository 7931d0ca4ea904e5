package workloads

import (
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/field/fieldtest"
	"github.com/aksml/aksml/components/internal/mocktest"
)

func inferenceWorkspace() *InferenceWorkspaceArgs {
	return &InferenceWorkspaceArgs{
		Namespace:    pulumi.String("team-a"),
		Team:         "team-a",
		InstanceType: "Standard_NC24ads_A100_v4",
		Preset:       "phi-3-mini-4k-instruct",
	}
}

// TestInferenceWorkspace: the component registers one v1alpha1 Workspace
// with `resource` and `inference.preset` at the top level, the team label,
// skipAwait, and fields the pinned CRD's v1alpha1 schema knows.
func TestInferenceWorkspace(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		_, err := NewInferenceWorkspace(ctx, "phi-serve", inferenceWorkspace())
		return err
	})
	assert.Len(t, m.ByType(InferenceWorkspaceType), 1)
	in := m.One(t, workspaceType).Inputs
	assert.Equal(t, "kaito.sh/v1alpha1", in["apiVersion"])
	assert.Equal(t, "Workspace", in["kind"])
	assert.NotContains(t, in, "tuning")
	assert.Equal(t, "phi-serve", mocktest.Dig(t, in, "metadata", "name"))
	assert.Equal(t, "team-a", mocktest.Dig(t, in, "metadata", "namespace"))
	assert.Equal(t, "team-a", mocktest.Dig(t, in, "metadata", "labels", TeamLabel))
	assert.Equal(t, map[string]any{"pulumi.com/skipAwait": "true"}, mocktest.Dig(t, in, "metadata", "annotations"))
	assert.Equal(t, map[string]any{
		"instanceType":  "Standard_NC24ads_A100_v4",
		"count":         1.0,
		"labelSelector": map[string]any{"matchLabels": map[string]any{"apps": "phi-serve"}},
	}, in["resource"])
	assert.Equal(t, map[string]any{"preset": map[string]any{"name": "phi-3-mini-4k-instruct"}}, in["inference"])
	checkAgainstCRD(t, in)
}

// TestInferenceWorkspaceHubModelAndConfig: a Hugging Face model ID, an
// inference ConfigMap and a pool selector go through unchanged.
func TestInferenceWorkspaceHubModelAndConfig(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := inferenceWorkspace()
		a.Preset, a.Config, a.Count = "Qwen/Qwen3-0.6B", "vllm-args", 2
		a.NodeLabels = map[string]string{"kubernetes.azure.com/agentpool": "a100"}
		_, err := NewInferenceWorkspace(ctx, "qwen", a)
		return err
	})
	in := m.One(t, workspaceType).Inputs
	assert.Equal(t, map[string]any{"preset": map[string]any{"name": "Qwen/Qwen3-0.6B"}, "config": "vllm-args"}, in["inference"])
	assert.EqualValues(t, 2, mocktest.Dig(t, in, "resource", "count"))
	assert.Equal(t, map[string]any{"kubernetes.azure.com/agentpool": "a100"}, mocktest.Dig(t, in, "resource", "labelSelector", "matchLabels"))
	checkAgainstCRD(t, in)
}

func TestValidatePresetName(t *testing.T) {
	for _, ok := range []string{"phi-3-mini-4k-instruct", "phi-3.5-mini-instruct", "qwen2.5-coder-7b-instruct", "falcon-7b", "Qwen/Qwen3-0.6B", "meta-llama/Llama-3.1-8B-Instruct", "org_1/model_x"} {
		assert.Empty(t, ValidatePresetName(ok, field.NewPath("preset")), ok)
	}
	for _, bad := range []string{"", "Phi-3", "phi 3", "phi--3/", "-phi", "phi-", "/model", "org/", "org/-model", "org/model.", "a/b/c", "org--x/model", "org/model..v2", "org/" + strings.Repeat("m", MaxPresetNameLength)} {
		errs := ValidatePresetName(bad, field.NewPath("preset"))
		if assert.Len(t, errs, 1, bad) {
			assert.Equal(t, "preset", errs[0].Path.String(), bad)
		}
	}
}

func serving(before func(*InferenceWorkspaceArgs)) func() field.ErrorList {
	return func() field.ErrorList {
		a := inferenceWorkspace()
		before(a)
		a.Default("serve")
		return a.Validate(field.NewPath("serve"))
	}
}

// TestInferenceWorkspaceValidation lists every problem at once, each at
// its field.
func TestInferenceWorkspaceValidation(t *testing.T) {
	tests := []struct {
		name    string
		errs    func() field.ErrorList
		wantErr []fieldtest.Want
	}{
		{"valid", serving(func(a *InferenceWorkspaceArgs) {}), nil},
		{"NV-series", serving(func(a *InferenceWorkspaceArgs) { a.InstanceType = "Standard_NV6" }), []fieldtest.Want{fieldtest.Invalid("serve.instanceType")}},
		{"not a GPU size", serving(func(a *InferenceWorkspaceArgs) { a.InstanceType = "Standard_D4s_v5" }), []fieldtest.Want{fieldtest.Invalid("serve.instanceType")}},
		{"no instance type", serving(func(a *InferenceWorkspaceArgs) { a.InstanceType = "" }), []fieldtest.Want{fieldtest.Required("serve.instanceType")}},
		{"negative count", serving(func(a *InferenceWorkspaceArgs) { a.Count = -1 }), []fieldtest.Want{fieldtest.Invalid("serve.count")}},
		{"bad node label", serving(func(a *InferenceWorkspaceArgs) { a.NodeLabels = map[string]string{"apps": "not ok"} }), []fieldtest.Want{fieldtest.Invalid(`serve.nodeLabels["apps"]`)}},
		{"no preset", serving(func(a *InferenceWorkspaceArgs) { a.Preset = "" }), []fieldtest.Want{fieldtest.Required("serve.preset")}},
		{"bad config name", serving(func(a *InferenceWorkspaceArgs) { a.Config = "Not_A_Name" }), []fieldtest.Want{fieldtest.Invalid("serve.config")}},
		{"await without timeout", serving(func(a *InferenceWorkspaceArgs) { a.Await = true }), []fieldtest.Want{fieldtest.Required("serve.awaitTimeoutSeconds")}},
		{"everything at once", serving(func(a *InferenceWorkspaceArgs) {
			a.Namespace, a.Team, a.InstanceType, a.Preset, a.Name = nil, "", "Standard_NV6", "Bad Name", "Bad"
		}), []fieldtest.Want{fieldtest.Required("serve.namespace"), fieldtest.Invalid("serve.name"), fieldtest.Required("serve.team"), fieldtest.Invalid("serve.instanceType"), fieldtest.Invalid("serve.preset")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fieldtest.Equal(t, tt.errs().ToAggregate(), tt.wantErr...)
		})
	}
}

func TestNewInferenceWorkspaceRejectsNilArgs(t *testing.T) {
	_, err := run(t, func(ctx *pulumi.Context) error {
		_, err := NewInferenceWorkspace(ctx, "w", nil)
		return err
	})
	assert.ErrorContains(t, err, "InferenceWorkspaceArgs are required")
}
