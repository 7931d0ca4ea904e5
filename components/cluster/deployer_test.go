package cluster

import (
	"strings"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/internal/mocktest"
)

// deployerObjectID is the object ID the mocked client config reports.
const deployerObjectID = "00000000-0000-0000-0000-00000000d3b1"

func callsOf(m *mocktest.Mocks, token string) []pulumi.MockCallArgs {
	var out []pulumi.MockCallArgs
	for _, c := range m.Calls() {
		if c.Token == token {
			out = append(out, c)
		}
	}
	return out
}

// TestDeployerRoleAssignment: on an Entra ID cluster the client config's
// principal gets AKS RBAC Cluster Admin on the cluster, with the configured
// principal type, and the Kubernetes provider depends on that assignment.
func TestDeployerRoleAssignment(t *testing.T) {
	for _, tc := range []struct {
		name     string
		deployer *Deployer
		wantType string
	}{
		{name: "default is a service principal", wantType: PrincipalServicePrincipal},
		{name: "a person running pulumi up", deployer: &Deployer{PrincipalType: PrincipalUser}, wantType: PrincipalUser},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := prodSpec()
			s.EntraID.Deployer = tc.deployer
			m, _, err := runCluster(t, &ClusterArgs{Spec: s})
			require.NoError(t, err)
			require.Len(t, callsOf(m, "azure-native:authorization:getClientConfig"), 1)

			ra := m.Named(t, "azure-native:authorization:RoleAssignment", "aks-deployer-admin")
			assert.Equal(t, deployerObjectID, ra.Inputs["principalId"])
			assert.Equal(t, tc.wantType, ra.Inputs["principalType"])
			assert.Equal(t, "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/aks-ml-prod", ra.Inputs["scope"])
			assert.Equal(t, "/subscriptions/sub/providers/Microsoft.Authorization/roleDefinitions/"+RBACClusterAdminRoleID, ra.Inputs["roleDefinitionId"])

			provider := m.One(t, "pulumi:providers:kubernetes")
			assert.Contains(t, provider.Deps, urnOf(m, ra), "the provider waits for the deployer's role assignment")
		})
	}
}

// TestDeployerWithoutRoleAssignment: a cluster without Entra ID, or one
// whose deployer is in an admin group, assigns nothing and asks for no
// client config.
func TestDeployerWithoutRoleAssignment(t *testing.T) {
	admin := prodSpec()
	admin.EntraID.Deployer = &Deployer{Access: DeployerAdminGroup, AdminGroupObjectID: adminGroup}
	for name, s := range map[string]Spec{"local accounts (dev)": devSpec(), "deployer in an admin group": admin} {
		t.Run(name, func(t *testing.T) {
			m, _, err := runCluster(t, &ClusterArgs{Spec: s})
			require.NoError(t, err)
			for _, ra := range m.ByType("azure-native:authorization:RoleAssignment") {
				assert.NotEqual(t, "aks-deployer-admin", ra.Name)
			}
			assert.Empty(t, callsOf(m, "azure-native:authorization:getClientConfig"))
		})
	}
}

func TestPropagationWait(t *testing.T) {
	now := time.Date(2026, 12, 1, 21, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		createdOn string
		want      time.Duration
	}{
		{name: "just created: the whole window", createdOn: "2026-12-01T21:00:00Z", want: 5 * time.Minute},
		{name: "created two minutes ago: the rest", createdOn: "2026-12-01T20:58:00Z", want: 3 * time.Minute},
		{name: "created in an earlier update: none", createdOn: "2026-11-30T10:00:00Z", want: 0},
		{name: "ARM's fractional seconds", createdOn: "2026-12-01T20:59:30.1234567Z", want: 4*time.Minute + 30*time.Second + 123456700*time.Nanosecond},
		{name: "unknown (mocks, preview): none", createdOn: "", want: 0},
		{name: "not a time: none", createdOn: "yesterday", want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, propagationWait(tc.createdOn, now, RolePropagationWait))
		})
	}
}

// urnOf finds the URN the mocks gave r among the recorded dependencies.
func urnOf(m *mocktest.Mocks, r mocktest.Resource) string {
	for _, other := range m.All() {
		for _, d := range other.Deps {
			if strings.HasSuffix(d, "$"+r.Type+"::"+r.Name) || strings.HasSuffix(d, "::"+r.Type+"::"+r.Name) {
				return d
			}
		}
	}
	return ""
}
