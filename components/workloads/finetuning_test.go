package workloads

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/aksml/aksml/components/internal/mocktest"
	"github.com/aksml/aksml/internal/thirdparty"
)

const workspaceType = "kubernetes:kaito.sh/v1alpha1:Workspace"

// kaitoCRD is the upstream KAITO Workspace CRD shared with the real-cluster
// tests, in the CRD folder thirdparty.CRDDir finds (tools/deps/fetch.sh pins it).
const kaitoCRD = "kaito.sh_workspaces.yaml"

func workspace() *FineTuningWorkspaceArgs {
	return &FineTuningWorkspaceArgs{
		Namespace:             pulumi.String("team-a"),
		Team:                  "team-a",
		InstanceType:          "Standard_NC24ads_A100_v4",
		Preset:                "phi-3-mini-4k-instruct",
		InputURLs:             []string{"https://huggingface.co/datasets/yahma/alpaca-cleaned/resolve/main/alpaca_data_cleaned.json"},
		OutputImage:           "myregistry.azurecr.io/adapters/phi-3-mini:v1",
		OutputImagePushSecret: "acr-push",
	}
}

func TestFineTuningWorkspace(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		_, err := NewFineTuningWorkspace(ctx, "workspace-tuning-phi-3-mini", workspace())
		return err
	})
	assert.Len(t, m.ByType(FineTuningWorkspaceType), 1)
	ws := m.One(t, workspaceType)
	in := ws.Inputs
	assert.Equal(t, "kaito.sh/v1alpha1", in["apiVersion"])
	assert.Equal(t, "Workspace", in["kind"])
	assert.NotContains(t, in, "spec", "the v1alpha1 Workspace has no spec")
	assert.Equal(t, "workspace-tuning-phi-3-mini", mocktest.Dig(t, in, "metadata", "name"))
	assert.Equal(t, "team-a", mocktest.Dig(t, in, "metadata", "namespace"))
	assert.Equal(t, "team-a", mocktest.Dig(t, in, "metadata", "labels", TeamLabel))
	assert.Equal(t, map[string]any{"pulumi.com/skipAwait": "true"}, mocktest.Dig(t, in, "metadata", "annotations"))
	assert.Equal(t, map[string]any{
		"instanceType":  "Standard_NC24ads_A100_v4",
		"count":         1.0,
		"labelSelector": map[string]any{"matchLabels": map[string]any{"apps": "workspace-tuning-phi-3-mini"}},
	}, in["resource"])
	assert.Equal(t, map[string]any{
		"preset": map[string]any{"name": "phi-3-mini-4k-instruct"},
		"method": "qlora",
		"input":  map[string]any{"urls": []any{"https://huggingface.co/datasets/yahma/alpaca-cleaned/resolve/main/alpaca_data_cleaned.json"}},
		"output": map[string]any{"image": "myregistry.azurecr.io/adapters/phi-3-mini:v1", "imagePushSecret": "acr-push"},
	}, in["tuning"])
	checkAgainstCRD(t, in)
}

func TestFineTuningWorkspaceOutputToClaim(t *testing.T) {
	m := mustRun(t, func(ctx *pulumi.Context) error {
		a := workspace()
		a.OutputImage, a.OutputImagePushSecret, a.OutputPVC = "", "", "model-checkpoints"
		a.Method, a.Config, a.Count = TuningLoRA, "tuning-params", 2
		_, err := NewFineTuningWorkspace(ctx, "ws", a)
		return err
	})
	in := m.One(t, workspaceType).Inputs
	assert.Equal(t, map[string]any{"volumeSource": map[string]any{"persistentVolumeClaim": map[string]any{"claimName": "model-checkpoints"}}}, mocktest.Dig(t, in, "tuning", "output"))
	assert.Equal(t, "lora", mocktest.Dig(t, in, "tuning", "method"))
	assert.Equal(t, "tuning-params", mocktest.Dig(t, in, "tuning", "config"))
	assert.EqualValues(t, 2, mocktest.Dig(t, in, "resource", "count"))
	checkAgainstCRD(t, in)
}

// checkAgainstCRD checks obj's fields against the v1alpha1 schema of the
// KAITO CRD: every field known, of the right type, required fields set.
func checkAgainstCRD(t *testing.T, obj map[string]any) {
	t.Helper()
	dir, err := thirdparty.CRDDir("")
	require.NoError(t, err)
	raw, err := os.ReadFile(filepath.Join(dir, kaitoCRD))
	require.NoError(t, err)
	var crd struct {
		Spec struct {
			Versions []struct {
				Name   string `yaml:"name"`
				Schema struct {
					OpenAPIV3Schema map[string]any `yaml:"openAPIV3Schema"`
				} `yaml:"schema"`
			} `yaml:"versions"`
		} `yaml:"spec"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &crd))
	for _, v := range crd.Spec.Versions {
		if v.Name == "v1alpha1" {
			body := map[string]any{}
			for k, val := range obj {
				if k != "metadata" {
					body[k] = val
				}
			}
			assert.Empty(t, schemaProblems(v.Schema.OpenAPIV3Schema, body, ""))
			return
		}
	}
	t.Fatal("the CRD has no v1alpha1 version")
}

// schemaProblems lists where v does not match the structural schema s.
func schemaProblems(s map[string]any, v any, path string) []string {
	var out []string
	switch s["type"] {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %T is not an object", path, v)}
		}
		props, _ := s["properties"].(map[string]any)
		additional, _ := s["additionalProperties"].(map[string]any)
		for k, fv := range m {
			switch ps, known := props[k].(map[string]any); {
			case known:
				out = append(out, schemaProblems(ps, fv, path+"."+k)...)
			case additional != nil:
				out = append(out, schemaProblems(additional, fv, path+"."+k)...)
			case s["x-kubernetes-preserve-unknown-fields"] != true:
				out = append(out, fmt.Sprintf("%s.%s: unknown field", path, k))
			}
		}
		req, _ := s["required"].([]any)
		for _, r := range req {
			if _, ok := m[r.(string)]; !ok {
				out = append(out, fmt.Sprintf("%s.%s: required", path, r))
			}
		}
	case "array":
		l, ok := v.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %T is not a list", path, v)}
		}
		items, _ := s["items"].(map[string]any)
		for i, e := range l {
			out = append(out, schemaProblems(items, e, fmt.Sprintf("%s[%d]", path, i))...)
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return []string{fmt.Sprintf("%s: %T is not a string", path, v)}
		}
		if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, any(str)) {
			out = append(out, fmt.Sprintf("%s: %q not in %v", path, str, enum))
		}
	case "integer":
		if f, ok := v.(float64); !ok || f != math.Trunc(f) {
			out = append(out, fmt.Sprintf("%s: %v is not an integer", path, v))
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			out = append(out, fmt.Sprintf("%s: %v is not a boolean", path, v))
		}
	}
	return out
}

func TestSchemaProblemsCatchesMistakes(t *testing.T) {
	s := map[string]any{
		"type":       "object",
		"required":   []any{"output"},
		"properties": map[string]any{"output": map[string]any{"type": "object"}, "count": map[string]any{"type": "integer"}},
	}
	assert.ElementsMatch(t, []string{".spec: unknown field", ".output: required", ".count: 1.5 is not an integer"},
		schemaProblems(s, map[string]any{"spec": map[string]any{}, "count": 1.5}, ""))
}
