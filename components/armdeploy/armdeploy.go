package armdeploy

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/pulumi/pulumi-azure-native-sdk/v2/utilities"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
)

// ARM template constants.
const (
	// SchemaURL is the `$schema` of a resource-group deployment template.
	SchemaURL = "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#"
	// ContentVersion is the `contentVersion` of every template aksml builds.
	ContentVersion = "1.0.0.0"
	// ActionOnUnmanage is what Azure does with a resource that leaves the
	// template during an update: delete it (the default would be detach).
	ActionOnUnmanage = "delete"
	// DenySettingsMode is none: the stack puts no deny assignments on what
	// it manages, so AKS and operators can still change or delete them.
	DenySettingsMode = "none"
	// MaxStackNameLength is the longest deployment stack name Azure accepts.
	MaxStackNameLength = 90
)

var stackNameRE = regexp.MustCompile(`^[-\w._()]+$`)

// Args configures one template stack.
type Args struct {
	// ResourceGroupName is the resource group the stack and its template
	// deploy into. Required.
	ResourceGroupName pulumi.StringInput
	// StackName is the Azure name of the deployment stack: letters, digits,
	// `-`, `_`, `.`, `(`, `)`, at most 90 characters. Default: the Pulumi
	// resource name. Changing it replaces the stack.
	StackName string
	// Template is the ARM template, usually built with Template. Required;
	// it must have a `resources` list.
	Template map[string]any
	// Parameters are the ARM parameter values by name (not wrapped in
	// {"value": ...}). Values may be Pulumi inputs. A parameter the template
	// does not declare is declared with the type of its value (string, int,
	// bool, array or object); declare secure values as `securestring` in
	// the template yourself.
	Parameters map[string]any
	// Description is the stack's description, shown in the portal.
	Description string
	// Tags are put on the stack (not on the resources in the template; set
	// those in the template).
	Tags map[string]string
}

// Template returns the skeleton of a resource-group deployment template with
// the given resources and outputs and no declared parameters. Parameters
// passed in Args.Parameters are declared by NewTemplateStack; to declare
// one explicitly (e.g. securestring) set template["parameters"] with Param.
func Template(resources []map[string]any, outputs map[string]any) map[string]any {
	if resources == nil {
		resources = []map[string]any{}
	}
	if outputs == nil {
		outputs = map[string]any{}
	}
	return map[string]any{
		"$schema":        SchemaURL,
		"contentVersion": ContentVersion,
		"parameters":     map[string]any{},
		"resources":      resources,
		"outputs":        outputs,
	}
}

// Param returns a parameter declaration of the given ARM type: string,
// securestring, int, bool, object, secureObject or array.
func Param(armType string) map[string]any { return map[string]any{"type": armType} }

// Output returns a template output of the given ARM type whose value is an
// ARM expression, e.g. Output("string", "[resourceId(...)]").
func Output(armType, value string) map[string]any {
	return map[string]any{"type": armType, "value": value}
}

// StackArgs maps Args to the provider arguments of the deployment stack
// named name. It declares undeclared parameters on a copy of the template
// and never changes args. It fails when a required field is missing or a
// name is invalid, with every problem at once as field errors below
// `Args` (a field.AggregateError, wrapped with the stack's name).
func StackArgs(name string, args *Args) (pulumi.Map, error) {
	root := field.NewPath("Args")
	if args == nil {
		return nil, fmt.Errorf("armdeploy %s: %w", name, field.ErrorList{field.Required(root, "the stack's Args (resource group and template)")}.ToAggregate())
	}
	stackName := args.StackName
	if stackName == "" {
		stackName = name
	}
	var errs field.ErrorList
	if args.ResourceGroupName == nil {
		errs = append(errs, field.Required(root.Child("ResourceGroupName"), "the resource group the stack deploys into"))
	}
	if len(stackName) > MaxStackNameLength || !stackNameRE.MatchString(stackName) {
		errs = append(errs, field.Invalid(root.Child("StackName"), "stack name %q is invalid: use letters, digits, '-', '_', '.', '(' and ')', at most %d characters", stackName, MaxStackNameLength))
	}
	template, err := declareParameters(args.Template, args.Parameters, root.Child("Template"))
	if err != nil {
		errs = append(errs, err)
	}
	if err := errs.ToAggregate(); err != nil {
		return nil, fmt.Errorf("armdeploy %s: %w", name, err)
	}

	params := pulumi.Map{}
	for k, v := range args.Parameters {
		params[k] = pulumi.Map{"value": toInput(v)}
	}
	out := pulumi.Map{
		"resourceGroupName":   args.ResourceGroupName,
		"deploymentStackName": pulumi.String(stackName),
		"template":            pulumi.Any(template),
		"parameters":          params,
		"actionOnUnmanage": pulumi.Map{
			"resources":        pulumi.String(ActionOnUnmanage),
			"resourceGroups":   pulumi.String(ActionOnUnmanage),
			"managementGroups": pulumi.String(ActionOnUnmanage),
		},
		"denySettings": pulumi.Map{"mode": pulumi.String(DenySettingsMode)},
	}
	if args.Description != "" {
		out["description"] = pulumi.String(args.Description)
	}
	if len(args.Tags) > 0 {
		out["tags"] = pulumi.ToStringMap(args.Tags)
	}
	return out, nil
}

// StackType is the azure-native type token of a resource-group deployment stack
// at API 2024-03-01 (spec Microsoft.Resources/deploymentStacks/stable/2024-03-01),
// the token `pulumi-azure-native-sdk/resources/v2/v20240301` registers. aksml
// registers it by token, with the inputs StackArgs builds, rather than through
// that typed package (0.5 MB of Go source; components/internal/azarm says why).
const StackType = "azure-native:resources/v20240301:DeploymentStackAtResourceGroup"

// Stack is a registered deployment stack: its ID, its Azure name and the
// outputs of its template (Outputs; read them with OutputString).
type Stack struct {
	pulumi.CustomResourceState

	Name    pulumi.StringOutput `pulumi:"name"`
	Outputs pulumi.AnyOutput    `pulumi:"outputs"`
}

// RegisterStack registers a deployment stack with the inputs StackArgs built.
func RegisterStack(ctx *pulumi.Context, name string, stackArgs pulumi.Map, opts ...pulumi.ResourceOption) (*Stack, error) {
	var s Stack
	if err := ctx.RegisterResource(StackType, name, stackArgs, &s, utilities.PkgResourceDefaultOpts(opts)...); err != nil {
		return nil, err
	}
	return &s, nil
}

// NewTemplateStack registers a resource-group deployment stack that deploys
// args.Template. See the package doc for what update and delete do.
func NewTemplateStack(ctx *pulumi.Context, name string, args *Args, opts ...pulumi.ResourceOption) (*Stack, error) {
	stackArgs, err := StackArgs(name, args)
	if err != nil {
		return nil, err
	}
	return RegisterStack(ctx, name, stackArgs, opts...)
}

// OutputString returns the string value of the template output key once the
// stack is deployed. The output fails (and so does the update) when the
// template has no such output or it is not a string.
func OutputString(stack *Stack, key string) pulumi.StringOutput {
	return stack.Outputs.ApplyT(func(v any) (string, error) {
		outputs, _ := v.(map[string]any)
		entry, _ := outputs[key].(map[string]any)
		s, ok := entry["value"].(string)
		if !ok {
			return "", fmt.Errorf("armdeploy: deployment stack has no string output %q", key)
		}
		return s, nil
	}).(pulumi.StringOutput)
}

// declareParameters returns a shallow copy of template whose `parameters`
// section declares every key of values. It fails, naming path, when
// template is nil or has no resources list.
func declareParameters(template, values map[string]any, path field.Path) (map[string]any, *field.Error) {
	if template == nil {
		return nil, field.Required(path, "the ARM template; build it with armdeploy.Template")
	}
	if _, ok := template["resources"]; !ok {
		return nil, field.Required(path.Key("resources"), "the template's resources list; build the template with armdeploy.Template")
	}
	out := maps.Clone(template)
	declared := map[string]any{}
	if existing, ok := template["parameters"].(map[string]any); ok {
		maps.Copy(declared, existing)
	}
	for _, k := range slices.Sorted(maps.Keys(values)) {
		if _, ok := declared[k]; !ok {
			declared[k] = Param(armType(values[k]))
		}
	}
	out["parameters"] = declared
	return out, nil
}

// armType is the ARM parameter type of a Go value or Pulumi input.
func armType(v any) string {
	switch v.(type) {
	case string, pulumi.StringInput:
		return "string"
	case int, int32, int64, pulumi.IntInput:
		return "int"
	case bool, pulumi.BoolInput:
		return "bool"
	case []any, []string, []map[string]any, pulumi.ArrayInput, pulumi.StringArrayInput:
		return "array"
	default:
		return "object"
	}
}

// toInput wraps a plain value so that the provider receives it as JSON; a
// Pulumi input is passed as is.
func toInput(v any) pulumi.Input {
	if in, ok := v.(pulumi.Input); ok {
		return in
	}
	return pulumi.Any(v)
}

// RoleDefinitionID is the ID of the built-in role roleGUID in the
// subscription of the ARM ID scopeID, as role assignments take it:
// /subscriptions/<sub>/providers/Microsoft.Authorization/roleDefinitions/<guid>.
func RoleDefinitionID(scopeID, roleGUID string) string {
	parts := strings.Split(scopeID, "/")
	sub := ""
	if len(parts) > 2 {
		sub = parts[2]
	}
	return "/subscriptions/" + sub + "/providers/Microsoft.Authorization/roleDefinitions/" + roleGUID
}
