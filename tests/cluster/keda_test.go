package cluster

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aksml/aksml/components/tenancy"
	"github.com/aksml/aksml/components/vocab"
	"github.com/aksml/aksml/components/workloads"
	"github.com/aksml/aksml/internal/synth"
)

// kedaStack is the stack whose InferenceServer (`chat`, team-a) scales with
// KEDA: its ScaledObject and the platform's ClusterTriggerAuthentication are
// tested as rendered.
const kedaStack = "dev"

// TestKEDAObjects applies the dev stack's team namespaces, their member
// Roles and admission policies, the platform's ClusterTriggerAuthentication
// and the InferenceServer's ScaledObject to a real API server that serves
// KEDA's pinned CRDs (tools/deps/fetch.sh, KEDA v2.17.2), and asserts:
//   - the ClusterTriggerAuthentication and the ScaledObject, as rendered, are
//     accepted by the CRDs and by the team namespace's admission policy;
//   - malformed copies are rejected by the CRDs' schemas (a pod identity
//     provider KEDA no longer has, a trigger without metadata);
//   - a team member may create no KEDA object (RBAC: the member Role grants
//     nothing in keda.sh, and a namespaced Role cannot grant the
//     cluster-scoped ClusterTriggerAuthentication);
//   - and whoever writes in a team namespace (here the tier's admin, as a
//     member given more rights or an operator acting for one would), the
//     admission policy refuses what would let a team read other namespaces'
//     metrics with KEDA's identity or hand its token to another host: a
//     TriggerAuthentication with a pod identity, and a trigger on the
//     platform's authentication whose query reads another namespace or
//     more than one series selector, whose serverAddress is not an Azure
//     Monitor workspace, or whose metadata holds other keys; while a
//     secret-based TriggerAuthentication of the team's own stays allowed.
func TestKEDAObjects(t *testing.T) {
	env := testEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	s := desiredState(t, kedaStack)
	all, _, err := stackObjects(s)
	require.NoError(t, err)
	all, err = applyOrder(s, all, env.Client.RESTMapper())
	require.NoError(t, err)
	var applied []stackObject
	t.Cleanup(func() {
		dctx, dcancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer dcancel()
		require.NoError(t, deleteObjects(dctx, env.Client, applied), "clean up")
	})
	var scaledObject, cta *unstructured.Unstructured
	groups := map[string]string{}
	keep := map[string]bool{"Namespace": true, "Role": true, "RoleBinding": true, "ValidatingAdmissionPolicy": true,
		"ValidatingAdmissionPolicyBinding": true, "ClusterTriggerAuthentication": true, "ScaledObject": true}
	teamNS := map[string]bool{}
	for _, o := range all {
		if o.obj.GetKind() == "Namespace" && !o.install && o.obj.GetLabels()[vocab.TeamLabel] != "" {
			teamNS[o.obj.GetName()] = true
		}
	}
	for _, o := range all {
		k := o.obj.GetKind()
		switch {
		case !keep[k] || o.install:
			continue
		case k == "Namespace" && !teamNS[o.obj.GetName()]:
			continue
		case o.obj.GetNamespace() != "" && !teamNS[o.obj.GetNamespace()]:
			continue
		case strings.HasPrefix(k, "ValidatingAdmissionPolicy") && !strings.HasPrefix(o.obj.GetName(), tenancy.AdmissionPolicyName("")):
			continue
		}
		switch o.obj.GetKind() {
		case "ScaledObject":
			addr, _, _ := unstructured.NestedSlice(o.obj.Object, "spec", "triggers")
			require.Equal(t, synth.SimulatedQueryEndpoint, addr[0].(map[string]any)["metadata"].(map[string]any)["serverAddress"],
				"the trigger queries the workspace's query endpoint (the ARM output, as synth simulates it)")
			scaledObject = o.obj
		case "ClusterTriggerAuthentication":
			cta = o.obj
		case "Role":
			if o.obj.GetName() == tenancy.MemberRoleName {
				groups[o.obj.GetNamespace()] = strings.Split(o.obj.GetAnnotations()[tenancy.GroupsAnnotation], ",")[0]
			}
		}
		require.NoError(t, env.Apply(ctx, o.obj.DeepCopy()), "apply %s: the pinned CRDs and the admission policy accept it", o)
		applied = append(applied, o)
	}
	require.NotNil(t, cta, "stack %s renders the platform's ClusterTriggerAuthentication", kedaStack)
	require.NotNil(t, scaledObject, "stack %s renders the InferenceServer's ScaledObject", kedaStack)
	assert.Equal(t, vocab.KEDATriggerAuthentication, cta.GetName())
	ns := scaledObject.GetNamespace()
	require.NotEmpty(t, groups[ns], "team %s has a member group", ns)

	t.Run("CRDsRejectMalformedObjects", func(t *testing.T) {
		bad := cta.DeepCopy()
		bad.SetName("bad-provider")
		require.NoError(t, unstructured.SetNestedField(bad.Object, "azure", "spec", "podIdentity", "provider"))
		err := env.Client.Create(ctx, bad)
		require.Error(t, err, "pod identity provider azure (removed in KEDA 2.15) must be rejected")
		assert.True(t, apierrors.IsInvalid(err), "want Invalid from the CRD schema, got %v", err)
		assert.Contains(t, err.Error(), "spec.podIdentity.provider")

		so := scaledObject.DeepCopy()
		so.SetName("no-metadata")
		triggers, _, _ := unstructured.NestedSlice(so.Object, "spec", "triggers")
		delete(triggers[0].(map[string]any), "metadata")
		require.NoError(t, unstructured.SetNestedSlice(so.Object, triggers, "spec", "triggers"))
		err = env.Client.Create(ctx, so)
		require.Error(t, err, "a trigger without metadata must be rejected")
		assert.True(t, apierrors.IsInvalid(err), "want Invalid from the CRD schema, got %v", err)
		assert.Contains(t, err.Error(), "metadata")
	})

	t.Run("MembersCreateNoKEDAObject", func(t *testing.T) {
		member := impersonate(t, env, "member@"+ns+".example.com", groups[ns])
		so := scaledObject.DeepCopy()
		so.SetName("member-scaler")
		so.SetResourceVersion("")
		requireRefused(t, member.Create(ctx, so), "a member's ScaledObject", rbacReason("create", "scaledobjects", "keda.sh", ns))
		ta := triggerAuth(ns, "member-auth", map[string]any{"podIdentity": map[string]any{"provider": "azure-workload"}})
		requireRefused(t, member.Create(ctx, ta), "a member's TriggerAuthentication", rbacReason("create", "triggerauthentications", "keda.sh", ns))
		c := cta.DeepCopy()
		c.SetName("member-cluster-auth")
		c.SetResourceVersion("")
		requireRefused(t, member.Create(ctx, c), "a member's ClusterTriggerAuthentication", rbacReason("create", "clustertriggerauthentications", "keda.sh", ""))
		requireRefused(t, member.Delete(ctx, cta.DeepCopy()), "deleting the platform's ClusterTriggerAuthentication", rbacReason("delete", "clustertriggerauthentications", "keda.sh", ""))
	})

	t.Run("AdmissionHoldsThePlatformIdentityToTheNamespace", func(t *testing.T) {
		admin := env.Client
		reason := func(rule string) []string { return policyReason(ns, rule) }
		ta := triggerAuth(ns, "minted", map[string]any{"podIdentity": map[string]any{"provider": "azure-workload", "identityId": "00000000-0000-0000-0000-0000000000cc"}})
		// The policy was applied with the namespace above; the API server
		// enforces a new binding within moments.
		var err error
		require.EventuallyWithT(t, func(ct *assert.CollectT) {
			err = admin.Create(ctx, ta.DeepCopy())
			if err == nil {
				assert.NoError(ct, admin.Delete(ctx, ta.DeepCopy()))
			}
			assert.Error(ct, err, "the admission policy is in force")
		}, 30*time.Second, time.Second)
		requireRefused(t, err, "a TriggerAuthentication with a pod identity in a team namespace", reason(tenancy.RuleKEDAPodIdentity)...)

		own := triggerAuth(ns, "own-secret", map[string]any{"secretTargetRef": []any{map[string]any{"parameter": "bearerToken", "name": "team-prometheus", "key": "token"}}})
		require.NoError(t, admin.Create(ctx, own), "a secret-based TriggerAuthentication of the team's own is allowed")
		require.NoError(t, admin.Delete(ctx, own))

		trigger := func(mutate func(meta map[string]any)) *unstructured.Unstructured {
			so := scaledObject.DeepCopy()
			so.SetName("probe")
			so.SetResourceVersion("")
			triggers, _, _ := unstructured.NestedSlice(so.Object, "spec", "triggers")
			meta := triggers[0].(map[string]any)["metadata"].(map[string]any)
			mutate(meta)
			require.NoError(t, unstructured.SetNestedSlice(so.Object, triggers, "spec", "triggers"))
			return so
		}
		for _, tc := range []struct {
			name   string
			mutate func(map[string]any)
		}{
			{"another namespace's series", func(m map[string]any) {
				m["query"] = workloads.ScalingQuery(workloads.DefaultScalingMetric, "team-b", "chat")
			}},
			{"a second expression", func(m map[string]any) {
				m["query"] = m["query"].(string) + ` + sum(up)`
			}},
			{"a selector beyond namespace and workload", func(m map[string]any) {
				m["query"] = `sum(vllm:num_requests_waiting{namespace="` + ns + `",workload=~".*"})`
			}},
			{"another host for KEDA's token", func(m map[string]any) {
				m["serverAddress"] = "https://metrics.attacker.example"
			}},
			{"an Azure Monitor lookalike host", func(m map[string]any) {
				m["serverAddress"] = "https://x.prometheus.monitor.azure.com.attacker.example"
			}},
			{"TLS checks off", func(m map[string]any) { m["unsafeSsl"] = "true" }},
		} {
			requireRefused(t, admin.Create(ctx, trigger(tc.mutate)), "a trigger on the platform's authentication with "+tc.name, reason(tenancy.RuleKEDAPlatform)...)
		}
		ok := trigger(func(m map[string]any) {
			m["query"] = workloads.ScalingQuery("vllm:num_requests_running", ns, "other-server")
		})
		require.NoError(t, admin.Create(ctx, ok), "another InferenceServer-shaped trigger of this namespace is allowed")
		require.NoError(t, client.IgnoreNotFound(admin.Delete(ctx, ok)))
	})
}

// triggerAuth is a keda.sh/v1alpha1 TriggerAuthentication in ns with spec.
func triggerAuth(ns, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": workloads.KEDAAPIVersion,
		"kind":       "TriggerAuthentication",
		"metadata":   map[string]any{"name": name, "namespace": ns},
		"spec":       spec,
	}}
	return u
}
