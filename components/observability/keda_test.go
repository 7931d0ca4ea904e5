package observability

import (
	"testing"

	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/internal/mocktest"
)

const testAMW = "/subscriptions/00000000-0000-0000-0000-0000000000aa/resourceGroups/rg-aksml/providers/Microsoft.Monitor/accounts/amw-aks-ml"

func kedaArgs() *KEDAAccessArgs {
	return &KEDAAccessArgs{
		ResourceGroupName: pulumi.String("rg-aksml"),
		Location:          "westeurope",
		OIDCIssuerURL:     pulumi.String("https://westeurope.oic.prod-aks.azure.com/t/c/"),
		ClusterName:       "aks-ml",
		WorkspaceID:       pulumi.String(testAMW),
		Tags:              map[string]string{"owner": "ml"},
	}
}

// TestKEDAAccess: KEDA's identity is federated with the add-on operator's
// service account only, and may read the workspace (Monitoring Data Reader
// on it) and nothing else.
func TestKEDAAccess(t *testing.T) {
	var clientID string
	m, err := run(t, func(ctx *pulumi.Context) error {
		k, err := NewKEDAAccess(ctx, "keda", kedaArgs())
		if err != nil {
			return err
		}
		clientID = await(t, ctx, k.ClientID).(string)
		return nil
	})
	require.NoError(t, err)
	res := m.Names()
	assert.Equal(t, KEDAAccessType, res["keda"].Type)
	stack := res["keda-identity"]
	assert.Equal(t, "aks-ml-keda", stack.Inputs["deploymentStackName"])
	assert.Equal(t, []any{"Microsoft.ManagedIdentity/userAssignedIdentities", "Microsoft.ManagedIdentity/userAssignedIdentities/federatedIdentityCredentials"}, templateTypes(t, stack))
	id := mocktest.Dig(t, stack.Inputs, "template", "resources", 0)
	assert.Equal(t, "aks-ml-keda", mocktest.Dig(t, id, "name"))
	assert.Equal(t, "2023-01-31", mocktest.Dig(t, id, "apiVersion"))
	assert.Equal(t, "ml", mocktest.Dig(t, id, "tags", "owner"))
	fic := mocktest.Dig(t, stack.Inputs, "template", "resources", 1)
	assert.Equal(t, "aks-ml-keda/keda-operator", mocktest.Dig(t, fic, "name"))
	assert.Equal(t, map[string]any{
		"issuer":    "[parameters('oidcIssuerUrl')]",
		"subject":   "system:serviceaccount:kube-system:keda-operator",
		"audiences": []any{"api://AzureADTokenExchange"},
	}, mocktest.Dig(t, fic, "properties"))
	assert.Equal(t, "https://westeurope.oic.prod-aks.azure.com/t/c/", mocktest.Dig(t, stack.Inputs, "parameters", "oidcIssuerUrl", "value"))

	require.Len(t, m.ByType("azure-native:authorization:RoleAssignment"), 1, "one role, on the workspace")
	reader := res["keda-reader"]
	assert.Equal(t, testAMW, reader.Inputs["scope"])
	assert.Equal(t, "/subscriptions/00000000-0000-0000-0000-0000000000aa/providers/Microsoft.Authorization/roleDefinitions/b0d8363b-8ddd-447d-831f-62ca05bff136",
		reader.Inputs["roleDefinitionId"], "Monitoring Data Reader")
	assert.Equal(t, "deployed:principalId", reader.Inputs["principalId"])
	assert.Equal(t, "ServicePrincipal", reader.Inputs["principalType"])
	assert.Equal(t, "deployed:clientId", clientID)
}

func TestKEDAAccessInvalidRegistersNothing(t *testing.T) {
	m, err := run(t, func(ctx *pulumi.Context) error {
		_, err := NewKEDAAccess(ctx, "keda", &KEDAAccessArgs{})
		return err
	})
	require.Error(t, err)
	for _, f := range []string{"ResourceGroupName", "Location", "OIDCIssuerURL", "ClusterName", "WorkspaceID"} {
		assert.Contains(t, err.Error(), "KEDAAccessArgs."+f)
	}
	assert.Empty(t, m.Names())
}

// TestKEDATriggerAuth: the platform's ClusterTriggerAuthentication names
// KEDA's identity for workload identity; a bad name is refused.
func TestKEDATriggerAuth(t *testing.T) {
	m, err := run(t, func(ctx *pulumi.Context) error {
		p, err := kubernetes.NewProvider(ctx, "k8s", &kubernetes.ProviderArgs{})
		if err != nil {
			return err
		}
		_, err = NewKEDATriggerAuth(ctx, "keda", &KEDATriggerAuthArgs{Provider: p, ClientID: pulumi.String("00000000-0000-0000-0000-0000000000cc")})
		return err
	})
	require.NoError(t, err)
	cta := m.One(t, "kubernetes:keda.sh/v1alpha1:ClusterTriggerAuthentication")
	assert.Equal(t, "aksml-azure-monitor", mocktest.Dig(t, cta.Inputs, "metadata", "name"))
	assert.Equal(t, map[string]any{"provider": "azure-workload", "identityId": "00000000-0000-0000-0000-0000000000cc"}, mocktest.Dig(t, cta.Inputs, "spec", "podIdentity"))
	assert.Contains(t, cta.Provider, "pulumi:providers:kubernetes::k8s")

	_, err = run(t, func(ctx *pulumi.Context) error {
		p, err := kubernetes.NewProvider(ctx, "k8s", &kubernetes.ProviderArgs{})
		if err != nil {
			return err
		}
		_, err = NewKEDATriggerAuth(ctx, "keda", &KEDATriggerAuthArgs{Provider: p, ClientID: pulumi.String("x"), Name: "Not_A_Name"})
		return err
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Not_A_Name")
}
