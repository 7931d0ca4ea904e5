package azarm

import (
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type mocks struct {
	inputs map[string]resource.PropertyMap
}

func (m *mocks) NewResource(args pulumi.MockResourceArgs) (string, resource.PropertyMap, error) {
	m.inputs[args.TypeToken+"::"+args.Name] = args.Inputs
	return args.Name + "-id", args.Inputs, nil
}

func (m *mocks) Call(args pulumi.MockCallArgs) (resource.PropertyMap, error) {
	return resource.PropertyMap{}, nil
}

// TestNewRoleAssignmentSendsOnlySetFields: the token is the typed package's, the set
// fields are sent under their ARM names, and a nil field is not sent at all (the typed
// package would have sent principalType "User").
func TestNewRoleAssignmentSendsOnlySetFields(t *testing.T) {
	m := &mocks{inputs: map[string]resource.PropertyMap{}}
	err := pulumi.RunErr(func(ctx *pulumi.Context) error {
		_, err := NewRoleAssignment(ctx, "ra", &RoleAssignmentArgs{
			PrincipalID:      pulumi.String("p"),
			RoleDefinitionID: pulumi.String("r"),
			Scope:            pulumi.String("s"),
		})
		return err
	}, pulumi.WithMocks("p", "s", m))
	require.NoError(t, err)
	in, ok := m.inputs[RoleAssignmentType+"::ra"]
	require.True(t, ok, "registered under %s", RoleAssignmentType)
	assert.Equal(t, "p", in["principalId"].StringValue())
	assert.Equal(t, "r", in["roleDefinitionId"].StringValue())
	assert.Equal(t, "s", in["scope"].StringValue())
	assert.NotContains(t, in, resource.PropertyKey("principalType"), "a nil field is not sent")
	assert.NotContains(t, in, resource.PropertyKey("description"))
}
