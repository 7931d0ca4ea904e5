package tenancy

import (
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/internal/mocktest"
)

// TestTeamIdentitiesAreTenancysAzureSide: NewTeamIdentities registers the
// Azure side NewTenancy registers with Azure (the identities stack, the
// groups' roles, the containers) and no Kubernetes object; NewTenancy with
// IdentityClientIDs registers the Kubernetes side with the training
// ServiceAccounts annotated with those client IDs, and no Azure resource.
func TestTeamIdentitiesAreTenancysAzureSide(t *testing.T) {
	az := azureArgs(AuthorizationAzureRBAC)
	az.BlobAccountName = pulumi.String("aksmlblob")
	az.BlobAccountResourceID = pulumi.String("/subscriptions/x/blob")
	whole, err := run(t, &TenancyArgs{Teams: teams(), Azure: az})
	require.NoError(t, err)

	azure := &mocktest.Mocks{StackOutput: func(k string) string { return "value-of-" + k }}
	require.NoError(t, azure.Run(func(ctx *pulumi.Context) error {
		_, err := NewTeamIdentities(ctx, "tenancy", &TeamIdentitiesArgs{Teams: teams(), Azure: az})
		return err
	}))
	for _, token := range []string{tokenStack, tokenAssignment, tokenContainer} {
		assert.Equal(t, len(whole.SortedByType(token)), len(azure.SortedByType(token)), token)
		assert.NotEmpty(t, azure.SortedByType(token), token)
	}
	for _, token := range []string{tokenNamespace, tokenSA, tokenRole, tokenBinding, tokenPolicy} {
		assert.Empty(t, azure.SortedByType(token), "TeamIdentities registers no %s", token)
	}
	assert.Equal(t, whole.SortedByType(tokenStack)[0].Inputs, azure.SortedByType(tokenStack)[0].Inputs, "the same identities template")

	k8s, err := run(t, &TenancyArgs{Teams: teams(), IdentityClientIDs: map[string]string{"team-a": "client-a", "team-b": "client-b"}})
	require.NoError(t, err)
	for _, token := range []string{tokenStack, tokenAssignment, tokenContainer} {
		assert.Empty(t, k8s.SortedByType(token), "no Azure resource with IdentityClientIDs: %s", token)
	}
	sas := k8s.SortedByType(tokenSA)
	require.Len(t, sas, 2)
	for i, want := range []string{"client-a", "client-b"} {
		assert.Equal(t, TrainingServiceAccount, mocktest.Dig(t, sas[i].Inputs, "metadata", "name"))
		assert.Equal(t, want, mocktest.Dig(t, sas[i].Inputs, "metadata", "annotations", ClientIDAnnotation))
	}
}

// TestTeamIdentitiesInvalidArgsRegisterNothing: bad team names, groups or
// Azure args, a team without a client ID, or both sources of identities,
// fail before anything is registered.
func TestTeamIdentitiesInvalidArgsRegisterNothing(t *testing.T) {
	az := azureArgs(AuthorizationAzureRBAC)
	az.OIDCIssuerURL = nil
	m := &mocktest.Mocks{}
	err := m.Run(func(ctx *pulumi.Context) error {
		_, err := NewTeamIdentities(ctx, "tenancy", &TeamIdentitiesArgs{ConfigPath: field.NewPath("aksml:teams"), Azure: az,
			Teams: []Team{{Name: "kube-system"}, {Name: "team-a", Groups: []string{"admins"}}, {Name: "team-a"}}})
		return err
	})
	require.Error(t, err)
	for _, want := range []string{
		`aksml:teams[0].name: "kube-system" is a system namespace`,
		`aksml:teams[1].groups[0]: "admins" is not a Microsoft Entra group object ID`,
		`aksml:teams[2].name: team "team-a" is already defined at aksml:teams[1]`,
		`tenancy.azure.oidcIssuerUrl: `,
	} {
		assert.Contains(t, err.Error(), want)
	}
	assert.Equal(t, 0, m.Count())
	require.Error(t, m.Run(func(ctx *pulumi.Context) error {
		_, err := NewTeamIdentities(ctx, "tenancy", &TeamIdentitiesArgs{Teams: teams()})
		return err
	}), "Azure is required")

	m, err = run(t, &TenancyArgs{ConfigPath: field.NewPath("aksml:teams"), Teams: teams(), Azure: azureArgs(AuthorizationAzureRBAC),
		IdentityClientIDs: map[string]string{"team-a": "client-a"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "tenancy.identityClientIds: and azure are mutually exclusive")
	assert.Contains(t, err.Error(), `aksml:teams[1].name: team "team-b" has no identity client ID in identityClientIds`)
	assert.NotContains(t, err.Error(), `aksml:teams[0].name`)
	assert.Equal(t, 0, m.Count())
}
