package tenancy

import (
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/field"
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

type registered struct {
	token, name string
	inputs      map[string]any
}

type mocks struct {
	mu  sync.Mutex
	res []registered
}

func (m *mocks) NewResource(args pulumi.MockResourceArgs) (string, resource.PropertyMap, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.res = append(m.res, registered{token: args.TypeToken, name: args.Name, inputs: args.Inputs.Mappable()})
	out := args.Inputs.Copy()
	if args.TypeToken == tokenStack {
		// The deployed stack reports each template output's value.
		outputs := resource.PropertyMap{}
		for k := range args.Inputs["template"].ObjectValue()["outputs"].ObjectValue() {
			outputs[resource.PropertyKey(k)] = resource.NewObjectProperty(resource.PropertyMap{"value": resource.NewStringProperty("value-of-" + string(k))})
		}
		out["outputs"] = resource.NewObjectProperty(outputs)
	}
	return args.Name + "-id", out, nil
}

func (m *mocks) Call(args pulumi.MockCallArgs) (resource.PropertyMap, error) { return args.Args, nil }

func (m *mocks) of(token string) []registered {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []registered
	for _, r := range m.res {
		if r.token == token {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func (m *mocks) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.res)
}

func run(t *testing.T, args *TenancyArgs) (*mocks, error) {
	t.Helper()
	m := &mocks{}
	err := pulumi.RunErr(func(ctx *pulumi.Context) error {
		_, err := NewTenancy(ctx, "tenancy", args)
		return err
	}, pulumi.WithMocks("aksml", "test", m))
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

func dig(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			require.True(t, ok, "expected a map at %v", p)
			v = m[k]
		case int:
			l, ok := v.([]any)
			require.True(t, ok, "expected a list at %v", p)
			require.Greater(t, len(l), k)
			v = l[k]
		}
	}
	return v
}

func TestKubernetesObjectsPerTeam(t *testing.T) {
	m, err := run(t, &TenancyArgs{Teams: teams()})
	require.NoError(t, err)

	roles := m.of(tokenRole)
	require.Len(t, roles, 2)
	assert.Equal(t, MemberRoleName, dig(t, roles[0].inputs, "metadata", "name"))
	assert.Equal(t, "team-a", dig(t, roles[0].inputs, "metadata", "namespace"))
	assert.Equal(t, groupA, dig(t, roles[0].inputs, "metadata", "annotations", GroupsAnnotation))
	var writable []string
	for _, r := range dig(t, roles[0].inputs, "rules").([]any) {
		rule := r.(map[string]any)
		if contains(rule["verbs"], "create") {
			for _, res := range rule["resources"].([]any) {
				writable = append(writable, res.(string))
			}
		}
	}
	assert.ElementsMatch(t, []string{"jobs", "cronjobs", "pytorchjobs", "tfjobs", "workspaces"}, writable,
		"members write training work only: never LocalQueues, ResourceQuotas, NetworkPolicies or RBAC")

	bindings := m.of(tokenBinding)
	require.Len(t, bindings, 2)
	assert.Equal(t, []any{map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": groupA}}, dig(t, bindings[0].inputs, "subjects"))
	assert.Equal(t, MemberRoleName, dig(t, bindings[0].inputs, "roleRef", "name"))

	policies := map[string]map[string]any{}
	for _, p := range m.of(tokenPolicy) {
		policies[dig(t, p.inputs, "metadata", "namespace").(string)+"/"+dig(t, p.inputs, "metadata", "name").(string)] = p.inputs
	}
	assert.Len(t, policies, 5+3, "restricted team: deny, same namespace, scrape, DNS, HTTPS; unrestricted: no egress allowances")
	assert.Equal(t, []any{"Ingress", "Egress"}, dig(t, policies["team-a/"+DefaultDenyPolicy], "spec", "policyTypes"))
	assert.Equal(t, map[string]any{}, dig(t, policies["team-a/"+DefaultDenyPolicy], "spec", "podSelector"))
	assert.Nil(t, dig(t, policies["team-a/"+DefaultDenyPolicy], "spec", "ingress"))
	assert.Equal(t, []any{"Ingress"}, dig(t, policies["team-b/"+DefaultDenyPolicy], "spec", "policyTypes"), "Unrestricted keeps egress open")
	assert.NotContains(t, policies, "team-b/"+DNSPolicy)
	assert.Equal(t, []any{"10.244.0.0/16", "10.0.0.0/16"}, dig(t, policies["team-a/"+ExternalHTTPSPolicy], "spec", "egress", 0, "to", 0, "ipBlock", "except"))
	assert.Equal(t, map[string]any{"rsName": "ama-metrics"}, dig(t, policies["team-a/"+ScrapePolicy], "spec", "ingress", 0, "from", 0, "podSelector", "matchLabels"))
	assert.Equal(t, "metrics", dig(t, policies["team-a/"+ScrapePolicy], "spec", "ingress", 0, "ports", 0, "port"))

	assert.Empty(t, m.of(tokenSA), "no identity without Azure")
	assert.Empty(t, m.of(tokenStack))
	assert.Empty(t, m.of(tokenAssignment))
}

func TestNoBindingWithoutGroups(t *testing.T) {
	m, err := run(t, &TenancyArgs{Teams: []Team{{Name: "team-a"}}})
	require.NoError(t, err)
	assert.Empty(t, m.of(tokenBinding))
	require.Len(t, m.of(tokenRole), 1)
	assert.Equal(t, "", dig(t, m.of(tokenRole)[0].inputs, "metadata", "annotations", GroupsAnnotation))
}

func TestAzureRBACIdentitiesAndAssignments(t *testing.T) {
	az := azureArgs(AuthorizationAzureRBAC)
	az.BlobAccountName = pulumi.String("aksmlblob")
	az.BlobAccountResourceID = pulumi.String("/subscriptions/x/blob")
	tt := teams()
	tt[0].Groups = append(tt[0].Groups, groupA2)
	m, err := run(t, &TenancyArgs{Teams: tt, Azure: az})
	require.NoError(t, err)

	stacks := m.of(tokenStack)
	require.Len(t, stacks, 1)
	assert.Equal(t, "aks-team-identities", stacks[0].inputs["deploymentStackName"])
	resources := dig(t, stacks[0].inputs, "template", "resources").([]any)
	require.Len(t, resources, 4, "an identity and a federated credential per team")
	assert.Equal(t, UserAssignedIdentityType, dig(t, resources[0], "type"))
	assert.Equal(t, "aks-team-a", dig(t, resources[0], "name"))
	assert.Equal(t, ManagedIdentityAPIVersion, dig(t, resources[1], "apiVersion"))
	assert.Equal(t, map[string]any{
		"issuer":    "[parameters('oidcIssuerUrl')]",
		"subject":   "system:serviceaccount:team-a:training",
		"audiences": []any{"api://AzureADTokenExchange"},
	}, dig(t, resources[1], "properties"))
	assert.Equal(t, "https://oidc.example/issuer/", dig(t, stacks[0].inputs, "parameters", "oidcIssuerUrl", "value"))

	sas := m.of(tokenSA)
	require.Len(t, sas, 2)
	assert.Equal(t, TrainingServiceAccount, dig(t, sas[0].inputs, "metadata", "name"))
	assert.Equal(t, "value-of-clientId0", dig(t, sas[0].inputs, "metadata", "annotations", ClientIDAnnotation))

	byScope := map[string][]string{}
	for _, a := range m.of(tokenAssignment) {
		role := a.inputs["roleDefinitionId"].(string)
		byScope[a.inputs["scope"].(string)] = append(byScope[a.inputs["scope"].(string)],
			a.inputs["principalType"].(string)+":"+a.inputs["principalId"].(string)+":"+role[strings.LastIndex(role, "/")+1:])
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
	require.Len(t, m.of(tokenContainer), 2)
	assert.Equal(t, "team-a", m.of(tokenContainer)[0].inputs["containerName"])
}

func TestKubernetesRBACGetsNoAzureRoleAssignments(t *testing.T) {
	m, err := run(t, &TenancyArgs{Teams: teams(), Azure: azureArgs(AuthorizationKubernetesRBAC)})
	require.NoError(t, err)
	assert.Empty(t, m.of(tokenAssignment), "no Blob account and no Azure RBAC: nothing to assign")
	assert.Len(t, m.of(tokenBinding), 2)
	assert.Len(t, m.of(tokenSA), 2)
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
	assert.Equal(t, 0, m.count(), "a rejected config registers nothing")
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
