package tenancy

import (
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/field"

	"github.com/aksml/aksml/components/internal/mocktest"
)

const (
	groupA    = "0a0a0a0a-1111-4111-8111-000000000001"
	groupA2   = "0A0A0A0A-1111-4111-8111-0000000000AA"
	groupB    = "0b0b0b0b-2222-4222-8222-000000000002"
	clusterID = "/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/aks"

	tokenPolicy     = "kubernetes:networking.k8s.io/v1:NetworkPolicy"
	tokenRole       = "kubernetes:rbac.authorization.k8s.io/v1:Role"
	tokenBinding    = "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding"
	tokenSA         = "kubernetes:core/v1:ServiceAccount"
	tokenAssignment = "azure-native:authorization:RoleAssignment"
	tokenStack      = "azure-native:resources/v20240301:DeploymentStackAtResourceGroup"
	tokenContainer  = "azure-native:storage:BlobContainer"
)

// run builds Tenancy under mocks whose deployment stacks report each
// template output's value as "value-of-<output>".
func run(t *testing.T, args *TenancyArgs) (*mocktest.Mocks, error) {
	t.Helper()
	m := &mocktest.Mocks{StackOutput: func(k string) string { return "value-of-" + k }}
	err := m.Run(func(ctx *pulumi.Context) error {
		_, err := NewTenancy(ctx, "tenancy", args)
		return err
	})
	return m, err
}

func teams() []Team {
	return []Team{
		{Name: "team-a", Groups: []string{groupA}},
		{Name: "team-b", Groups: []string{groupB}, Egress: EgressUnrestricted},
	}
}

func azureArgs(authz Authorization) *AzureArgs {
	return &AzureArgs{
		Authorization:      authz,
		ClusterResourceID:  pulumi.String(clusterID),
		ResourceGroupName:  pulumi.String("rg"),
		Location:           "westeurope",
		OIDCIssuerURL:      pulumi.String("https://oidc.example/issuer/"),
		IdentityNamePrefix: "aks",
	}
}

func TestKubernetesObjectsPerTeam(t *testing.T) {
	m, err := run(t, &TenancyArgs{Teams: teams()})
	require.NoError(t, err)

	roles := m.SortedByType(tokenRole)
	require.Len(t, roles, 2)
	assert.Equal(t, MemberRoleName, mocktest.Dig(t, roles[0].Inputs, "metadata", "name"))
	assert.Equal(t, "team-a", mocktest.Dig(t, roles[0].Inputs, "metadata", "namespace"))
	assert.Equal(t, groupA, mocktest.Dig(t, roles[0].Inputs, "metadata", "annotations", GroupsAnnotation))
	var writable []string
	for _, r := range mocktest.Dig(t, roles[0].Inputs, "rules").([]any) {
		rule := r.(map[string]any)
		if contains(rule["verbs"], "create") {
			for _, res := range rule["resources"].([]any) {
				writable = append(writable, res.(string))
			}
		}
	}
	assert.ElementsMatch(t, []string{"jobs", "cronjobs", "pytorchjobs", "tfjobs", "workspaces"}, writable,
		"members write training work only: never LocalQueues, ResourceQuotas, NetworkPolicies or RBAC")

	bindings := m.SortedByType(tokenBinding)
	require.Len(t, bindings, 2)
	assert.Equal(t, []any{map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": groupA}}, mocktest.Dig(t, bindings[0].Inputs, "subjects"))
	assert.Equal(t, MemberRoleName, mocktest.Dig(t, bindings[0].Inputs, "roleRef", "name"))

	policies := map[string]map[string]any{}
	for _, p := range m.SortedByType(tokenPolicy) {
		policies[mocktest.Dig(t, p.Inputs, "metadata", "namespace").(string)+"/"+mocktest.Dig(t, p.Inputs, "metadata", "name").(string)] = p.Inputs
	}
	assert.Len(t, policies, 5+3, "restricted team: deny, same namespace, scrape, DNS, HTTPS; unrestricted: no egress allowances")
	assert.Equal(t, []any{"Ingress", "Egress"}, mocktest.Dig(t, policies["team-a/"+DefaultDenyPolicy], "spec", "policyTypes"))
	assert.Equal(t, map[string]any{}, mocktest.Dig(t, policies["team-a/"+DefaultDenyPolicy], "spec", "podSelector"))
	assert.Nil(t, mocktest.Get(policies["team-a/"+DefaultDenyPolicy], "spec", "ingress"))
	assert.Equal(t, []any{"Ingress"}, mocktest.Dig(t, policies["team-b/"+DefaultDenyPolicy], "spec", "policyTypes"), "Unrestricted keeps egress open")
	assert.NotContains(t, policies, "team-b/"+DNSPolicy)
	assert.Equal(t, []any{"10.244.0.0/16", "10.0.0.0/16"}, mocktest.Dig(t, policies["team-a/"+ExternalHTTPSPolicy], "spec", "egress", 0, "to", 0, "ipBlock", "except"))
	assert.Equal(t, map[string]any{"rsName": "ama-metrics"}, mocktest.Dig(t, policies["team-a/"+ScrapePolicy], "spec", "ingress", 0, "from", 0, "podSelector", "matchLabels"))
	assert.Equal(t, "metrics", mocktest.Dig(t, policies["team-a/"+ScrapePolicy], "spec", "ingress", 0, "ports", 0, "port"))

	assert.Empty(t, m.SortedByType(tokenSA), "no identity without Azure")
	assert.Empty(t, m.SortedByType(tokenStack))
	assert.Empty(t, m.SortedByType(tokenAssignment))
}

func TestNoBindingWithoutGroups(t *testing.T) {
	m, err := run(t, &TenancyArgs{Teams: []Team{{Name: "team-a"}}})
	require.NoError(t, err)
	assert.Empty(t, m.SortedByType(tokenBinding))
	require.Len(t, m.SortedByType(tokenRole), 1)
	assert.Equal(t, "", mocktest.Dig(t, m.SortedByType(tokenRole)[0].Inputs, "metadata", "annotations", GroupsAnnotation))
}

func TestAzureRBACIdentitiesAndAssignments(t *testing.T) {
	az := azureArgs(AuthorizationAzureRBAC)
	az.BlobAccountName = pulumi.String("aksmlblob")
	az.BlobAccountResourceID = pulumi.String("/subscriptions/x/blob")
	tt := teams()
	tt[0].Groups = append(tt[0].Groups, groupA2)
	m, err := run(t, &TenancyArgs{Teams: tt, Azure: az})
	require.NoError(t, err)

	stacks := m.SortedByType(tokenStack)
	require.Len(t, stacks, 1)
	assert.Equal(t, "aks-team-identities", stacks[0].Inputs["deploymentStackName"])
	resources := mocktest.Dig(t, stacks[0].Inputs, "template", "resources").([]any)
	require.Len(t, resources, 4, "an identity and a federated credential per team")
	assert.Equal(t, UserAssignedIdentityType, mocktest.Dig(t, resources[0], "type"))
	assert.Equal(t, "aks-team-a", mocktest.Dig(t, resources[0], "name"))
	assert.Equal(t, ManagedIdentityAPIVersion, mocktest.Dig(t, resources[1], "apiVersion"))
	assert.Equal(t, map[string]any{
		"issuer":    "[parameters('oidcIssuerUrl')]",
		"subject":   "system:serviceaccount:team-a:training",
		"audiences": []any{"api://AzureADTokenExchange"},
	}, mocktest.Dig(t, resources[1], "properties"))
	assert.Equal(t, "https://oidc.example/issuer/", mocktest.Dig(t, stacks[0].Inputs, "parameters", "oidcIssuerUrl", "value"))

	sas := m.SortedByType(tokenSA)
	require.Len(t, sas, 2)
	assert.Equal(t, TrainingServiceAccount, mocktest.Dig(t, sas[0].Inputs, "metadata", "name"))
	assert.Equal(t, "value-of-clientId0", mocktest.Dig(t, sas[0].Inputs, "metadata", "annotations", ClientIDAnnotation))

	byScope := map[string][]string{}
	for _, a := range m.SortedByType(tokenAssignment) {
		role := a.Inputs["roleDefinitionId"].(string)
		byScope[a.Inputs["scope"].(string)] = append(byScope[a.Inputs["scope"].(string)],
			a.Inputs["principalType"].(string)+":"+a.Inputs["principalId"].(string)+":"+role[strings.LastIndex(role, "/")+1:])
		assert.True(t, strings.HasPrefix(role, "/subscriptions/11111111-2222-3333-4444-555555555555/providers/Microsoft.Authorization/roleDefinitions/"), role)
	}
	assert.ElementsMatch(t, []string{
		"Group:" + groupA + ":" + ClusterUserRoleID,
		"Group:" + strings.ToLower(groupA2) + ":" + ClusterUserRoleID,
		"Group:" + groupB + ":" + ClusterUserRoleID,
	}, byScope[clusterID])
	assert.ElementsMatch(t, []string{
		"Group:" + groupA + ":" + NamespaceRoleID,
		"Group:" + strings.ToLower(groupA2) + ":" + NamespaceRoleID,
	}, byScope[clusterID+"/namespaces/team-a"])
	assert.Equal(t, []string{"ServicePrincipal:value-of-principalId0:" + StorageBlobDataContributorRoleID}, byScope["tenancy-team-a-data-id"],
		"team a's identity gets the data role on its own container only")
	require.Len(t, m.SortedByType(tokenContainer), 2)
	assert.Equal(t, "team-a", m.SortedByType(tokenContainer)[0].Inputs["containerName"])
}

func TestKubernetesRBACGetsNoAzureRoleAssignments(t *testing.T) {
	m, err := run(t, &TenancyArgs{Teams: teams(), Azure: azureArgs(AuthorizationKubernetesRBAC)})
	require.NoError(t, err)
	assert.Empty(t, m.SortedByType(tokenAssignment), "no Blob account and no Azure RBAC: nothing to assign")
	assert.Len(t, m.SortedByType(tokenBinding), 2)
	assert.Len(t, m.SortedByType(tokenSA), 2)
}

func TestInvalidArgsRegisterNothing(t *testing.T) {
	az := azureArgs("Both")
	az.ClusterResourceID = nil
	az.IdentityNamePrefix = "-bad"
	az.BlobAccountName = pulumi.String("blob")
	m, err := run(t, &TenancyArgs{
		ConfigPath: field.NewPath("aksml:teams"),
		Teams: []Team{
			{Name: "team-a", Groups: []string{"team-a-admins", groupA, strings.ToUpper(groupA)}, Egress: "Open"},
			{Groups: []string{groupB}},
		},
		Azure: az,
	})
	require.Error(t, err)
	for _, want := range []string{
		`aksml:teams[0].groups[0]: "team-a-admins" is not a Microsoft Entra group object ID`,
		`aksml:teams[0].groups[2]: "` + strings.ToUpper(groupA) + `" is already listed at aksml:teams[0].groups[1]`,
		`aksml:teams[0].egress: `,
		`aksml:teams[1].name: `,
		`tenancy.azure.authorization: `,
		`tenancy.azure.clusterResourceId: `,
		`tenancy.azure.identityNamePrefix: `,
		`tenancy.azure.blobAccountName: `,
	} {
		assert.Contains(t, err.Error(), want)
	}
	assert.Equal(t, 0, m.Count(), "a rejected config registers nothing")
}

func TestValidateTeamsAcceptsDefaults(t *testing.T) {
	tt := teams()
	for i := range tt {
		tt[i].Default()
	}
	assert.Empty(t, ValidateTeams(tt, field.NewPath("aksml:teams")))
}

func TestNamespaceScopeAndRoleDefinition(t *testing.T) {
	assert.Equal(t, clusterID+"/namespaces/team-a", NamespaceScope(clusterID, "team-a"))
	assert.Equal(t, "/subscriptions/11111111-2222-3333-4444-555555555555/providers/Microsoft.Authorization/roleDefinitions/"+ClusterUserRoleID,
		RoleDefinitionID(clusterID, ClusterUserRoleID))
}

func TestEmptyIdentitiesTemplateDeploysNothing(t *testing.T) {
	tpl := IdentitiesTemplate("aks", nil, nil)
	assert.Empty(t, tpl["resources"])
	assert.Empty(t, tpl["outputs"])
}

func contains(list any, s string) bool {
	l, _ := list.([]any)
	for _, v := range l {
		if v == s {
			return true
		}
	}
	return false
}
