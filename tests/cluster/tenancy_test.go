package cluster

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/aksml/aksml/components/tenancy"
)

// tenancyKinds are the objects of a stack the access test needs: the team
// namespaces, what components/tenancy registers in them, and the queue and
// quota objects a team member must not change.
var tenancyKinds = map[string]bool{
	"Namespace": true, "Role": true, "RoleBinding": true, "NetworkPolicy": true, "ServiceAccount": true,
	"ResourceQuota": true, "PriorityClass": true, "WorkloadPriorityClass": true,
	"ResourceFlavor": true, "Cohort": true, "ClusterQueue": true, "LocalQueue": true,
}

// TestTeamAccessWithImpersonation applies the local stack's team namespaces,
// tenancy RBAC and queues to the real API server (RBAC authorizer, as envtest
// starts it) and acts as a member of team-a's Entra group through
// impersonation: the member runs work in team-a and nowhere else, and cannot
// touch the queue, quota, network policies or cluster-scoped scheduling
// objects.
func TestTeamAccessWithImpersonation(t *testing.T) {
	env := testEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	s := desiredState(t, "local")
	objs, _, err := stackObjects(s)
	require.NoError(t, err)
	objs, err = applyOrder(s, objs, env.Client.RESTMapper())
	require.NoError(t, err)
	groups := map[string]string{}
	var applied []stackObject
	defer func() {
		dctx, dcancel := context.WithTimeout(context.Background(), time.Minute)
		defer dcancel()
		require.NoError(t, deleteAndWait(dctx, env.Client, applied), "clean up the tenancy objects")
	}()
	for _, o := range objs {
		if !tenancyKinds[o.obj.GetKind()] {
			continue
		}
		require.NoError(t, env.Apply(ctx, o.obj.DeepCopy()), "apply %s", o)
		applied = append(applied, o)
		if o.obj.GetKind() == "Role" && o.obj.GetName() == tenancy.MemberRoleName {
			groups[o.obj.GetNamespace()] = o.obj.GetAnnotations()[tenancy.GroupsAnnotation]
		}
	}
	require.NotEmpty(t, groups["team-a"], "the local stack configures team-a's groups")
	require.NotEmpty(t, groups["team-b"])
	groupA := strings.Split(groups["team-a"], ",")[0]

	member := impersonate(t, env, "alice@example.com", groupA)
	outsider := impersonate(t, env, "mallory@example.com", "00000000-0000-4000-8000-00000000dead")

	// RBAC is really on: a signed-in identity outside every team group is refused.
	err = outsider.Create(ctx, trainingJob("team-a", "outsider-job"), client.DryRunAll)
	require.True(t, apierrors.IsForbidden(err), "an identity without a team group is refused (RBAC authorizer on): %v", err)

	// The member creates and deletes a Job in its own namespace.
	job := trainingJob("team-a", "member-job")
	require.NoError(t, member.Create(ctx, job), "a team-a member creates a Job in team-a")
	require.NoError(t, member.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground)), "and deletes it")

	// ... and nowhere else.
	err = member.Create(ctx, trainingJob("team-b", "member-job"), client.DryRunAll)
	assert.True(t, apierrors.IsForbidden(err), "a team-a member is refused a Job in team-b: %v", err)
	err = member.List(ctx, &corev1.PodList{}, client.InNamespace("team-b"))
	assert.True(t, apierrors.IsForbidden(err), "a team-a member cannot read team-b's pods: %v", err)
	assert.NoError(t, member.List(ctx, &corev1.PodList{}, client.InNamespace("team-a")), "a team-a member reads its pods")

	// The queue: readable, not changeable.
	lq := &kueue.LocalQueue{}
	require.NoError(t, member.Get(ctx, types.NamespacedName{Namespace: "team-a", Name: "gpu-queue"}, lq), "a member reads its LocalQueue")
	err = member.Patch(ctx, lq, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"stopPolicy":"Hold"}}`)))
	assert.True(t, apierrors.IsForbidden(err), "a member cannot patch its LocalQueue: %v", err)
	err = member.Delete(ctx, lq, client.DryRunAll)
	assert.True(t, apierrors.IsForbidden(err), "a member cannot delete its LocalQueue: %v", err)

	// Quota and network isolation are the platform's.
	quotas := &corev1.ResourceQuotaList{}
	require.NoError(t, member.List(ctx, quotas, client.InNamespace("team-a")))
	require.NotEmpty(t, quotas.Items)
	err = member.Patch(ctx, &quotas.Items[0], client.RawPatch(types.MergePatchType, []byte(`{"spec":{"hard":{"requests.nvidia.com/gpu":"100"}}}`)))
	assert.True(t, apierrors.IsForbidden(err), "a member cannot raise its ResourceQuota: %v", err)
	deny := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: tenancy.DefaultDenyPolicy}}
	err = member.Delete(ctx, deny, client.DryRunAll)
	assert.True(t, apierrors.IsForbidden(err), "a member cannot delete the default-deny policy: %v", err)
	allowAll := &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "allow-all"},
		Spec:       networkingv1.NetworkPolicySpec{Ingress: []networkingv1.NetworkPolicyIngressRule{{}}},
	}
	err = member.Create(ctx, allowAll, client.DryRunAll)
	assert.True(t, apierrors.IsForbidden(err), "a member cannot add an allow policy that would undo the deny: %v", err)

	// Cluster-scoped scheduling objects are out of reach.
	err = member.Get(ctx, types.NamespacedName{Name: "team-a-gpu"}, &kueue.ClusterQueue{})
	assert.True(t, apierrors.IsForbidden(err), "a member cannot read a ClusterQueue: %v", err)
	err = member.List(ctx, &kueue.ResourceFlavorList{})
	assert.True(t, apierrors.IsForbidden(err), "a member cannot list ResourceFlavors: %v", err)
	err = member.List(ctx, &kueue.CohortList{})
	assert.True(t, apierrors.IsForbidden(err), "a member cannot list Cohorts: %v", err)
	err = member.Get(ctx, types.NamespacedName{Name: "training-batch"}, &schedulingv1.PriorityClass{})
	assert.True(t, apierrors.IsForbidden(err), "a member cannot read PriorityClasses: %v", err)

	// The rest of the member role, asked of the authorizer directly (the
	// Kubeflow and KAITO objects need their operators' full schemas to create).
	for _, c := range []struct {
		ns, group, resource, sub, verb string
		want                           bool
	}{
		{"team-a", "kubeflow.org", "pytorchjobs", "", "create", true},
		{"team-a", "kubeflow.org", "tfjobs", "", "delete", true},
		{"team-a", "kaito.sh", "workspaces", "", "create", true},
		{"team-a", "", "pods", "log", "get", true},
		{"team-b", "kubeflow.org", "pytorchjobs", "", "create", false},
		{"team-a", "kueue.x-k8s.io", "localqueues", "", "update", false},
		{"team-a", "rbac.authorization.k8s.io", "rolebindings", "", "create", false},
		{"team-a", "", "secrets", "", "get", false},
	} {
		assert.Equal(t, c.want, canI(ctx, t, member, c.ns, c.group, c.resource, c.sub, c.verb),
			"team-a member: %s %s.%s/%s in %s", c.verb, c.resource, c.group, c.sub, c.ns)
	}
}

// impersonate returns a client that acts as user in the given Entra group,
// the way AKS presents an Entra ID user (its groups claim holds group
// object IDs).
func impersonate(t *testing.T, env *Env, user, group string) client.Client {
	t.Helper()
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{group, "system:authenticated"}}
	c, err := NewClient(cfg, client.Options{Scheme: env.Scheme, Mapper: env.Client.RESTMapper()})
	require.NoError(t, err)
	return c
}

// canI asks the API server whether c may do verb on resource in ns.
func canI(ctx context.Context, t *testing.T, c client.Client, ns, group, resource, sub, verb string) bool {
	t.Helper()
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Group: group, Resource: resource, Subresource: sub, Verb: verb},
	}}
	require.NoError(t, c.Create(ctx, review))
	return review.Status.Allowed
}

// trainingJob is a minimal suspended Job submitted to the team's queue, with
// a pod that passes Pod Security restricted.
func trainingJob(ns, name string) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"kueue.x-k8s.io/queue-name": "gpu-queue"}},
		Spec: batchv1.JobSpec{
			Suspend: ptr.To(true),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				SecurityContext: &corev1.PodSecurityContext{
					RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(int64(1000)),
					SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
				},
				Containers: []corev1.Container{{
					Name: "train", Image: "busybox:1.36", Command: []string{"true"},
					SecurityContext: &corev1.SecurityContext{
						AllowPrivilegeEscalation: ptr.To(false),
						Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
					},
				}},
			}},
		},
	}
}
