package armdeploy

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/internal/thirdparty"
)

func loadAKSSpec(t *testing.T) *OpenAPISpec {
	t.Helper()
	dir, err := thirdparty.SpecsDir("")
	require.NoError(t, err)
	s, err := LoadOpenAPISpec(filepath.Join(dir, "specification/containerservice/resource-manager/Microsoft.ContainerService/aks/preview/2026-02-02-preview/managedClusters.json"))
	require.NoError(t, err)
	return s
}

func TestOpenAPISpecAcceptsADeclaredBody(t *testing.T) {
	s := loadAKSSpec(t)
	assert.Empty(t, s.CheckResource("AgentPool", map[string]any{
		"type":       "Microsoft.ContainerService/managedClusters/agentPools",
		"apiVersion": "2026-02-02-preview",
		"name":       "[format('{0}/{1}', parameters('clusterName'), 'gpu')]",
		"dependsOn":  []string{"[resourceId('x', 'y')]"},
		"properties": map[string]any{
			"vmSize":     "Standard_NC24ads_A100_v4",
			"count":      "[parameters('count')]",
			"nodeLabels": map[string]string{"accelerator": "nvidia"},
			"gpuProfile": map[string]any{"driver": "Install", "nvidia": map[string]any{"managementMode": "Managed", "migStrategy": "Mixed"}},
		},
	}))
}

func TestOpenAPISpecReportsUndeclaredReadOnlyAndEnum(t *testing.T) {
	s := loadAKSSpec(t)
	got := s.Check("AgentPool", map[string]any{
		"properties": map[string]any{
			"vmSize":            "Standard_NC24ads_A100_v4",
			"gpuProfile":        map[string]any{"nvidia": map[string]any{"managementMode": "Automatic", "driverVersion": "550"}},
			"provisioningState": "Succeeded",
			"autoscaler":        true,
		},
	})
	assert.Equal(t, []string{
		"AgentPool.properties.autoscaler: not declared by the spec",
		`AgentPool.properties.gpuProfile.nvidia.driverVersion: not declared by the spec`,
		`AgentPool.properties.gpuProfile.nvidia.managementMode: "Automatic" is not one of [Unmanaged Managed]`,
		"AgentPool.properties.provisioningState: is read-only",
	}, got)
}

func TestLoadOpenAPISpecMissingFile(t *testing.T) {
	_, err := LoadOpenAPISpec(filepath.Join(t.TempDir(), "none.json"))
	assert.Error(t, err)
}

func TestOpenAPISpecExtensibleEnumNeedsAnExplicitValue(t *testing.T) {
	s := loadAKSSpec(t)
	body := map[string]any{"properties": map[string]any{"gpuProfile": map[string]any{"nvidia": map[string]any{"managementMode": "Automatic"}}}}
	assert.NotEmpty(t, s.Check("AgentPool", body), "an unknown value of an extensible enum is reported")
	assert.Empty(t, s.Check("AgentPool", body, "Automatic"), "unless the caller names it")
}
