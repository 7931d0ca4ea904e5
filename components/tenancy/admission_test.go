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
	tokenPolicyVAP  = "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy"
	tokenBindingVAP = "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding"
	tokenLimitRange = "kubernetes:core/v1:LimitRange"
)

func TestAdmissionPolicyPerTeam(t *testing.T) {
	tt := teams()
	tt[0].Priorities = []string{"training-batch"}
	tt[1].Priorities = []string{"training-batch", "inference-critical"}
	m, err := run(t, &TenancyArgs{Teams: tt})
	require.NoError(t, err)

	policies := m.SortedByType(tokenPolicyVAP)
	require.Len(t, policies, 2, "one policy per team")
	a := m.Named(t, tokenPolicyVAP, "tenancy-team-a-admission").Inputs
	assert.Equal(t, "aksml-tenancy-team-a", mocktest.Dig(t, a, "metadata", "name"))
	assert.Equal(t, "Fail", mocktest.Dig(t, a, "spec", "failurePolicy"))
	var resources []string
	for _, r := range mocktest.Dig(t, a, "spec", "matchConstraints", "resourceRules").([]any) {
		rule := r.(map[string]any)
		resources = append(resources, rule["resources"].([]any)[0].(string))
		if rule["resources"].([]any)[0] == "pods" {
			assert.Equal(t, []any{"CREATE"}, rule["operations"], "pods are checked when created; the scheduler binds them through a subresource")
		} else {
			assert.Equal(t, []any{"CREATE", "UPDATE"}, rule["operations"])
		}
	}
	assert.Equal(t, []string{"pods", "jobs", "cronjobs", "deployments", "statefulsets", "pytorchjobs", "tfjobs", "scaledjobs", "scaledobjects", "triggerauthentications", "workspaces"}, resources)

	rules := map[string]string{}
	for _, v := range mocktest.Dig(t, a, "spec", "validations").([]any) {
		msg := v.(map[string]any)["message"].(string)
		require.True(t, strings.HasPrefix(msg, "aksml tenancy ("), "every message names its rule: %s", msg)
		rule := strings.TrimPrefix(msg[:strings.Index(msg, ")")], "aksml tenancy (")
		rules[rule] = v.(map[string]any)["expression"].(string)
		assert.Equal(t, "Forbidden", v.(map[string]any)["reason"])
	}
	assert.Len(t, rules, 12, "the pod rules, the KEDA rules and the Workspace rules that need no pools")
	assert.Contains(t, rules[RuleKEDAPodIdentity], `object.spec.podIdentity.provider == "none"`)
	assert.Contains(t, rules[RuleKEDAPlatform], `" + request.namespace + "`, "the query is held to the namespace of the request")
	assert.Contains(t, rules[RuleKEDAPlatform], `prometheus\\.monitor\\.azure\\.com`, "KEDA's token goes to an Azure Monitor endpoint only")
	assert.Contains(t, rules, RuleWorkspaceTemplate)
	assert.Contains(t, rules[RuleWorkspaceLoadBalancer], `"kaito.sh/enablelb"`)
	assert.NotContains(t, rules, RuleWorkspacePool, "without WorkspacePools the Workspaces' pools are not checked")
	assert.Contains(t, rules[RulePriorityClass], `in ["training-batch"]`, "team-a is not serving")
	assert.Contains(t, rules[RuleKueuePriority], `in ["training-batch"]`)
	assert.Contains(t, rules[RuleSystemPool], `"CriticalAddonsOnly"`)
	assert.Contains(t, rules[RuleGPUToleration], `"sku"`)
	assert.Contains(t, rules[RuleGPUToleration], `"nvidia.com/gpu"`)
	assert.Contains(t, rules[RuleGPUToleration], `"nvidia.com/mig-"`)
	assert.Contains(t, rules[RuleStorageKey], `startsWith("azure-storage-account-")`)
	b := m.Named(t, tokenPolicyVAP, "tenancy-team-b-admission").Inputs
	assert.Contains(t, mocktest.Dig(t, b, "spec", "validations", 6, "expression"), `in ["training-batch", "inference-critical"]`, "team-b is serving")

	bindings := m.SortedByType(tokenBindingVAP)
	require.Len(t, bindings, 2)
	binding := m.Named(t, tokenBindingVAP, "tenancy-team-a-admission-binding")
	assert.Equal(t, "aksml-tenancy-team-a", mocktest.Dig(t, binding.Inputs, "spec", "policyName"))
	assert.Equal(t, []any{"Deny"}, mocktest.Dig(t, binding.Inputs, "spec", "validationActions"))
	assert.Equal(t, map[string]any{TeamLabel: "team-a"}, mocktest.Dig(t, binding.Inputs, "spec", "matchResources", "namespaceSelector", "matchLabels"),
		"the binding selects the team's namespace by the label tenancy puts on it, so platform namespaces are untouched")
	assert.True(t, dependsOn(binding, "tenancy-team-a-admission"), "the binding follows its policy")
}

// TestWorkspaceValidationsPinPools: with WorkspacePools a team's Workspace
// must name one of them by the agentpool label, with its VM size; an empty
// map admits no pool at all.
func TestWorkspaceValidationsPinPools(t *testing.T) {
	byRule := func(vs []AdmissionValidation) map[string]AdmissionValidation {
		out := map[string]AdmissionValidation{}
		for _, v := range vs {
			out[v.Rule] = v
		}
		return out
	}
	vs := byRule(WorkspaceValidations(Team{Name: "team-a", WorkspacePools: map[string]string{"t4serve": "Standard_NC4as_T4_v3", "t4": "Standard_NC4as_T4_v3"}}))
	require.Len(t, vs, 4)
	pools := `{"t4": "Standard_NC4as_T4_v3", "t4serve": "Standard_NC4as_T4_v3"}`
	assert.Contains(t, vs[RuleWorkspacePool].Expression, "variables.workspacePool in "+pools)
	assert.Contains(t, vs[RuleWorkspacePool].Expression, "matchExpressions")
	assert.Contains(t, vs[RuleWorkspacePool].Expression, "preferredNodes")
	assert.Contains(t, vs[RuleWorkspacePool].Message, "the pools t4, t4serve")
	assert.Contains(t, vs[RuleWorkspaceInstanceType].Expression, "object.resource.instanceType == "+pools+"[variables.workspacePool]")
	assert.Contains(t, vs[RuleWorkspaceInstanceType].Message, "t4=Standard_NC4as_T4_v3, t4serve=Standard_NC4as_T4_v3")
	for _, v := range vs {
		assert.True(t, strings.HasPrefix(v.Expression, "!variables.isWorkspace || "), "%s applies to Workspaces only", v.Rule)
		assert.True(t, strings.HasPrefix(v.Message, "aksml tenancy ("+v.Rule+"): "), v.Message)
	}
	none := byRule(WorkspaceValidations(Team{Name: "team-b", WorkspacePools: map[string]string{}}))
	assert.Contains(t, none[RuleWorkspacePool].Expression, "variables.workspacePool in {}")
	assert.Contains(t, none[RuleWorkspacePool].Message, "the pools none")
	assert.Contains(t, workspacePoolExpression, `"kubernetes.azure.com/agentpool" in object.resource.labelSelector.matchLabels`)
}

func TestPodSpecsExpressionCoversEveryAdmittedKind(t *testing.T) {
	expr := podSpecsExpression()
	for _, k := range AdmittedKinds {
		assert.Contains(t, expr, `request.kind.kind == "`+k.Kind+`" ? (`+k.PodSpecs+`)`)
	}
	assert.True(t, strings.HasSuffix(expr, "[]"), "a kind without pod specs yields none")
	assert.Equal(t, `has(object.spec.tfReplicaSpecs) ? object.spec.tfReplicaSpecs.map(r, object.spec.tfReplicaSpecs[r].template.spec) : []`, replicaPodSpecs("tfReplicaSpecs"))
	assert.Equal(t, "[]", celList(nil), "a team without priorities may name none")
}

func TestNamespaceQuotaAndDefaultRequests(t *testing.T) {
	tt := teams()
	tt[0].NamespaceQuota = map[string]string{"requests.cpu": "32", "pods": "50"}
	tt[1].NamespaceQuota = map[string]string{"count/jobs.batch": "10"}
	m, err := run(t, &TenancyArgs{Teams: tt})
	require.NoError(t, err)

	q := m.Named(t, tokenQuota, "tenancy-team-a-team-quota")
	assert.Equal(t, TeamQuotaName, mocktest.Dig(t, q.Inputs, "metadata", "name"))
	assert.Equal(t, "team-a", mocktest.Dig(t, q.Inputs, "metadata", "namespace"))
	assert.Equal(t, map[string]any{"requests.cpu": "32", "pods": "50"}, mocktest.Dig(t, q.Inputs, "spec", "hard"))
	assert.True(t, dependsOn(q, "tenancy-team-a-namespace"))

	limits := m.SortedByType(tokenLimitRange)
	require.Len(t, limits, 1, "only a quota on cpu or memory requests needs default requests")
	assert.Equal(t, "team-a", mocktest.Dig(t, limits[0].Inputs, "metadata", "namespace"))
	assert.Equal(t, map[string]any{"cpu": DefaultCPURequest, "memory": DefaultMemoryRequest}, mocktest.Dig(t, limits[0].Inputs, "spec", "limits", 0, "defaultRequest"))
	assert.NotNil(t, m.Named(t, tokenQuota, "tenancy-team-b-team-quota"))
}

func TestNamespaceQuotaHardDefaults(t *testing.T) {
	basis := QuotaBasis{
		CPU: 48, Memory: 192 << 30,
		Classes: []string{"files", "disk"},
		Claims:  []Claim{{Class: "files", Size: "100Gi"}, {Class: "files", Size: "1Ti"}},
	}
	hard := NamespaceQuotaHard(basis, nil)
	assert.Equal(t, map[string]string{
		"requests.cpu":                   "48",
		"requests.memory":                "192Gi",
		"pods":                           "50",
		"count/jobs.batch":               "200",
		"count/cronjobs.batch":           "20",
		"count/pytorchjobs.kubeflow.org": "50",
		"count/tfjobs.kubeflow.org":      "50",
		"services":                       "20",
		"configmaps":                     "100",
		"secrets":                        "100",
		"files.storageclass.storage.k8s.io/persistentvolumeclaims": "12",
		"files.storageclass.storage.k8s.io/requests.storage":       "2148Gi",
		"disk.storageclass.storage.k8s.io/persistentvolumeclaims":  "10",
		"disk.storageclass.storage.k8s.io/requests.storage":        "1Ti",
		"persistentvolumeclaims":                                   "22",
		"requests.storage":                                         "3172Gi",
	}, hard, "the stack's own claims fit on top of the per-class room; the totals bound every other class")

	big := NamespaceQuotaHard(QuotaBasis{CPU: 256.5, Memory: 1.5 * (1 << 30)}, map[string]string{"pods": "1000", "services": "0"})
	assert.Equal(t, "256500m", big["requests.cpu"])
	assert.Equal(t, "1536Mi", big["requests.memory"])
	assert.Equal(t, "1000", big["pods"], "an override replaces the default")
	assert.Equal(t, "0", big["services"])
	assert.Equal(t, "0", big["persistentvolumeclaims"], "no classes: no claims")
}

func TestValidateTeamsNamespaceQuotaAndPriorities(t *testing.T) {
	tt := []Team{
		{Name: "team-a", NamespaceQuota: map[string]string{"pods": "many", "Bad Key": "1", "requests.cpu": "8"}, Priorities: []string{"training-batch", "system-node-critical"}},
		{Name: "team-b", NamespaceQuota: map[string]string{"requests.storage": "10Ti"}, Priorities: []string{"training-batch"}},
	}
	for i := range tt {
		tt[i].Default()
	}
	errs := ValidateTeams(tt, field.NewPath("aksml:teams"))
	var got []string
	for _, e := range errs {
		got = append(got, string(e.Type)+" "+e.Path.String())
	}
	assert.ElementsMatch(t, []string{
		string(field.ErrorTypeInvalid) + ` aksml:teams[0].namespaceQuota["Bad Key"]`,
		string(field.ErrorTypeInvalid) + ` aksml:teams[0].namespaceQuota["pods"]`,
		string(field.ErrorTypeForbidden) + ` aksml:teams[0].priorities[1]`,
	}, got, "team-b is valid")
}

func TestTenancyRegistersNothingElseWithoutQuotaOrPriorities(t *testing.T) {
	m := &mocktest.Mocks{}
	require.NoError(t, m.Run(func(ctx *pulumi.Context) error {
		_, err := NewTenancy(ctx, "tenancy", &TenancyArgs{Teams: []Team{{Name: "team-a"}}})
		return err
	}))
	assert.Empty(t, m.SortedByType(tokenLimitRange))
	assert.Len(t, m.SortedByType(tokenQuota), 0)
	p := m.Named(t, tokenPolicyVAP, "tenancy-team-a-admission").Inputs
	assert.Contains(t, mocktest.Dig(t, p, "spec", "validations", 6, "expression"), `s.priorityClassName in []`,
		"a team given no priorities may use none: the policy fails closed")
}

func TestValidateClaimsFit(t *testing.T) {
	claims := []Claim{{Class: "files", Size: "1Ti"}, {Class: "checkpoints", Size: "100Gi"}}
	tt := []Team{
		{Name: "team-a", NamespaceQuota: NamespaceQuotaHard(QuotaBasis{CPU: 8, Memory: 1 << 35, Classes: []string{"files", "checkpoints"}, Claims: claims}, nil)},
		{Name: "team-b", NamespaceQuota: map[string]string{
			ClassStorageQuota("files"):      "500Gi",
			ClassClaimsQuota("checkpoints"): "0",
			QuotaClaims:                     "2",
			QuotaStorage:                    "1124Gi",
			ClassStorageQuota("other"):      "0",
		}},
		{Name: "team-c", NamespaceQuota: map[string]string{QuotaStorage: "1123Gi", ClassClaimsQuota("files"): "1"}},
	}
	errs := ValidateClaimsFit(tt, claims, field.NewPath("aksml:teams"))
	var got []string
	for _, e := range errs {
		got = append(got, e.Path.String())
	}
	assert.ElementsMatch(t, []string{
		`aksml:teams[1].namespaceQuota["files.storageclass.storage.k8s.io/requests.storage"]`,
		`aksml:teams[1].namespaceQuota["checkpoints.storageclass.storage.k8s.io/persistentvolumeclaims"]`,
		`aksml:teams[2].namespaceQuota["requests.storage"]`,
	}, got, "the defaults (team-a) fit; exactly the claims fits (team-b's totals, team-c's files claims); a class the stack does not claim is free")
	require.Len(t, errs, 3)
	files := errs[1].Error() // team-b's problems in key order: checkpoints, then files
	assert.Contains(t, files, `namespaceQuota["files.storageclass.storage.k8s.io/requests.storage"]`)
	assert.Contains(t, files, "raise it to at least 1Ti", "names the fix")
	assert.Contains(t, files, "1Ti of files", "names the stack's claim")
}
