// Package conformance is the Azure conformance tier: it takes the desired
// state of a stack (internal/synth, the same synthesis as the golden files)
// and checks every Azure resource in it the way Azure Resource Manager and
// AKS would, without a subscription.
//
// Two kinds of checks run, as one catalogue (Catalogue):
//
//   - CONF-SPEC-001: every ARM request body is validated against the
//     published OpenAPI spec of its exact API version, from
//     ../shared/azure-specs (copies of Azure/azure-rest-api-specs, see its
//     SOURCES.md; FindSpecs locates it, AKSML_AZURE_SPECS overrides). The
//     Swagger 2.0 files are loaded with github.com/getkin/kin-openapi
//     (openapi2, converted by openapi2conv, relative $refs into
//     common-types resolved by its openapi3 loader) and bodies are checked
//     with openapi3.Schema.VisitJSON as requests: unknown properties, wrong
//     types, enum violations, missing required properties, read-only
//     properties set, pattern, length, minimum and maximum violations.
//     Two things are done outside the library, because it cannot express
//     them: allOf is merged and objects that list properties are closed
//     (ARM resource providers reject unknown properties; JSON Schema's
//     additionalProperties cannot close an allOf composition), and the
//     inputs of typed azure-native resources are mapped onto wire names
//     (flattened `properties`, `x-ms-client-name`, kebab-case names such
//     as autoScalerProfile's), since openapi2conv drops the extensions that
//     sit next to a $ref. Bodies are: every resource inside the ARM template
//     of a deployment stack or deployment (components/armdeploy), with
//     template expressions evaluated from the passed parameters (arm.go),
//     and every typed azure-native resource whose type and API version
//     have a spec in azure-specs. Bodies with no spec there are listed in
//     the report (Report.NoSpec), never silently passed. An extension
//     resource in the nested template form (type
//     "<parent type>/providers/<extension type>", the form the Azure
//     Monitor stack gives its data collection rule association) is checked
//     against the extension type's spec (specType).
//   - the AKS/ARM rules that no schema states (CONF-POOL-*, CONF-NET-*,
//     CONF-STO-*, CONF-ROLE-*, CONF-API-*, CONF-MON-*, CONF-UPG-*,
//     CONF-NODE-*), each with its source, several across resources; and
//     the duplicate-identity checks CONF-ID-001 (Kubernetes objects by
//     group, kind, namespace and name) and CONF-ID-002 (Azure resources by
//     type, parent and name, agent pools counted across inline profiles,
//     typed AgentPools and template pools).
//
// What it cannot see: under Pulumi mocks a Helm chart or kustomize
// directory is one opaque resource, so the objects they render are not in
// the identity check (the report lists them; two charts with one release
// namespace and name, or two directories with one source, are reported);
// a namespaced object without metadata.namespace is taken to be in
// "default" (the provider's own default namespace is not recorded by
// internal/synth); values that only Azure knows
// (resource IDs, principal IDs) are the mocks' stand-ins (a typed
// resource's mock ID is mapped to the ID its name inputs give before IDs
// are compared, State.canon); and nothing here
// proves quota, SKU availability per zone, feature registration or how a
// resource provider behaves at runtime (see README, Test tiers).
//
// The tier runs over every shipped stack (conformance_test.go) and over
// both examples (their own tests call Check).
package conformance
