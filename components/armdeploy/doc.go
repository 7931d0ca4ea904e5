// Package armdeploy deploys ARM resources that the typed azure-native SDK
// (v2.88.0) cannot express, such as AKS agent pools at API
// 2026-02-02-preview (gpuProfile.nvidia, SPEC C2.3), the Azure Monitor
// data collection resources or Microsoft.AlertsManagement/prometheusRuleGroups
// (SPEC C6.3).
//
// NewTemplateStack wraps an ARM template, built in Go as plain maps (see
// Template, Param and Output), in a resource-group deployment stack
// (Microsoft.Resources/deploymentStacks, API 2024-03-01, the SDK's newest GA
// version). The stack is created with actionOnUnmanage delete for resources,
// resource groups and management groups, and deny settings mode none, so:
//
//   - every `pulumi up` that changes the template PUTs the whole stack; a
//     resource removed from the template is deleted by Azure during that
//     update (actionOnUnmanage applies to the operation that carries it);
//   - a preview shows the template and parameters as properties of one
//     azure-native:resources/v20240301:DeploymentStackAtResourceGroup, with a
//     property-level diff (the provider diffs the template object key by
//     key), e.g. `~ template.resources[0].properties.vmSize`. Do not put
//     pulumi.ReplaceOnChanges on template paths: replacing a stack deletes
//     the old one, which detaches what it deployed (below).
//
// Deleting the stack resource itself (`pulumi destroy`, or removing it from
// the program) does NOT delete what the template created: azure-native
// v2.88.0 deletes a stack with a plain DELETE that carries no
// unmanageAction query parameters, and Azure then detaches the managed
// resources (the stored actionOnUnmanage applies only to the operation that
// sets it; Azure/deployment-stacks#226). So a template stack must live as
// long as what it deploys:
//
//   - keep one stack per parent (e.g. one per AKS cluster for its agent
//     pools, see components/gpupool) and register it on every run for as
//     long as the parent exists, even with an empty template (Template(nil,
//     nil) is valid ARM and deploys nothing); remove a resource by removing
//     it from the template, never by removing the stack;
//   - let the parent's deletion delete the resources (a resource group
//     Pulumi created, the AKS cluster for agent pools): the stack depends
//     on the parent through a parameter, so `pulumi destroy` deletes the
//     stack first (detach) and then the parent with everything in it;
//   - to retire a stack whose parent stays, empty its template with one
//     `pulumi up` before removing it.
//
// azure-native v3 lifts this: its generic resources:Resource takes an
// apiVersion and deletes with it.
//
// OpenAPISpec checks template resource bodies against the published REST
// spec of their API version (Azure/azure-rest-api-specs, kept in
// shared/azure-specs): every property declared by the definition, none
// read-only, every enum value known (values missing from an extensible enum
// only when the caller names them with their source). The gpupool and
// observability tests run it over every template they build; it skips when
// the specs are not present.
//
// Parameter values may be Pulumi inputs (cluster names, workspace IDs); the
// stack waits for them, and a secret input makes the parameters secret.
// Parameters the template does not declare are declared from their Go type.
package armdeploy
