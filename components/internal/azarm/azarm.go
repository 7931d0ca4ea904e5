// Package azarm registers the azure-native resources aksml creates outside the
// two typed SDK modules it is built on (containerservice and storage) by their
// type tokens, with untyped inputs.
//
// Each typed azure-native package is one Go package per API version holding
// every resource type of that resource provider: `authorization/v2` is 1.0 MB of
// Go source for the one type aksml uses (RoleAssignment), `resources/v2/v20240301`
// 0.5 MB for two, `network/v2/v20240601` (private DNS) for two. Measured on a cold
// 2-core machine (issue 30): compiling `authorization/v2` took 30 CPU-seconds and
// `resources/v2/v20240301` 20, before their vet facts and staticcheck in every
// module that imports aksml, and each is linked into every program binary
// (issue 32). What the typed constructors do besides registering is done here
// too, so the engine receives the same inputs (the golden files are
// byte-identical): the provider version of the azure-native SDK
// (PkgResourceDefaultOpts) and the defaults they inject, named at each type. The
// typed constructors also add aliases to the same type in other API versions;
// aksml never registered these resources under another type, so its state has
// nothing to migrate and no alias is needed.
//
// Input names and shapes are those of the API version's request body, which the
// ARM conformance tier (tests/conformance) checks the synthesized inputs against.
package azarm

import (
	"reflect"

	"github.com/pulumi/pulumi-azure-native-sdk/v2/utilities"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Resource is the state aksml reads back from a resource registered by token:
// its ID (CustomResourceState) and its name.
type Resource struct {
	pulumi.CustomResourceState

	Name pulumi.StringOutput `pulumi:"name"`
}

// Register registers an azure-native resource of type token with inputs, at the
// provider version of the azure-native SDK the program uses.
func Register(ctx *pulumi.Context, token, name string, inputs pulumi.Map, opts ...pulumi.ResourceOption) (*Resource, error) {
	var r Resource
	if err := ctx.RegisterResource(token, name, inputs, &r, utilities.PkgResourceDefaultOpts(opts)...); err != nil {
		return nil, err
	}
	return &r, nil
}

// ResourceGroupType is the azure-native type token of a resource group at API
// 2024-03-01, the token `resources/v2/v20240301` registers (spec
// Microsoft.Resources/stable/2024-03-01/resources.json).
const ResourceGroupType = "azure-native:resources/v20240301:ResourceGroup"

// RoleAssignmentType is the azure-native type token of a role assignment at the
// provider's default API version (2022-04-01 in azure-native 2.x), the token the
// typed `authorization/v2` package registers.
const RoleAssignmentType = "azure-native:authorization:RoleAssignment"

// RoleAssignmentArgs are the inputs of a role assignment aksml creates; a nil
// field is not sent. aksml names the principal type of each assignment (the
// typed package would default it to "User").
type RoleAssignmentArgs struct {
	PrincipalID      pulumi.StringInput
	PrincipalType    pulumi.StringInput
	RoleDefinitionID pulumi.StringInput
	Scope            pulumi.StringInput
	Description      pulumi.StringInput
}

// RoleAssignment is a registered role assignment: its ID, name and when ARM
// created it (createdOn, RFC 3339).
type RoleAssignment struct {
	pulumi.CustomResourceState

	Name      pulumi.StringOutput `pulumi:"name"`
	CreatedOn pulumi.StringOutput `pulumi:"createdOn"`
}

// NewRoleAssignment registers a role assignment (RoleAssignmentType).
func NewRoleAssignment(ctx *pulumi.Context, name string, args *RoleAssignmentArgs, opts ...pulumi.ResourceOption) (*RoleAssignment, error) {
	// A nil field is a nil Input in the map, which the SDK does not send
	// (TestNewRoleAssignmentSendsOnlySetFields).
	inputs := pulumi.Map{
		"principalId":      args.PrincipalID,
		"principalType":    args.PrincipalType,
		"roleDefinitionId": args.RoleDefinitionID,
		"scope":            args.Scope,
		"description":      args.Description,
	}
	var r RoleAssignment
	if err := ctx.RegisterResource(RoleAssignmentType, name, inputs, &r, utilities.PkgResourceDefaultOpts(opts)...); err != nil {
		return nil, err
	}
	return &r, nil
}

// ClientConfig is what azure-native's getClientConfig returns: the identity
// that runs the program.
type ClientConfig struct {
	ClientID       string `pulumi:"clientId"`
	ObjectID       string `pulumi:"objectId"`
	SubscriptionID string `pulumi:"subscriptionId"`
	TenantID       string `pulumi:"tenantId"`
}

// ClientConfigOutput is the eventual ClientConfig.
type ClientConfigOutput struct{ *pulumi.OutputState }

// ElementType is ClientConfig.
func (ClientConfigOutput) ElementType() reflect.Type { return reflect.TypeOf(ClientConfig{}) }

// ObjectID is the Entra object ID of the identity that runs the program.
func (o ClientConfigOutput) ObjectID() pulumi.StringOutput {
	return o.ApplyT(func(v ClientConfig) string { return v.ObjectID }).(pulumi.StringOutput)
}

func init() { pulumi.RegisterOutputType(ClientConfigOutput{}) }

// GetClientConfig invokes azure-native:authorization:getClientConfig, as the
// typed package's GetClientConfigOutput does.
func GetClientConfig(ctx *pulumi.Context) ClientConfigOutput {
	return pulumi.ToOutput(0).ApplyT(func(int) (ClientConfigOutput, error) {
		options := pulumi.InvokeOutputOptions{InvokeOptions: utilities.PkgInvokeDefaultOpts(nil)}
		return ctx.InvokeOutput("azure-native:authorization:getClientConfig", nil, ClientConfigOutput{}, options).(ClientConfigOutput), nil
	}).(ClientConfigOutput)
}
