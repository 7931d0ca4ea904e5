package cluster

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/tenancy"
	"github.com/aksml/aksml/components/vocab"
	"github.com/aksml/aksml/components/workloads"
)

// kaitoStack is the shipped stack with aksml:kaito.install and KAITO
// Workspaces among its examples: team-a (serving, Pod Security baseline)
// lists the regular T4 pools t4 and t4serve, team-b lists t4 (and the spot
// and MIG pools, which KAITO cannot use).
const (
	kaitoStack     = "dev"
	kaitoTeam      = "team-a"
	kaitoAttacker  = "team-b"
	kaitoCRDGroup  = "kaito.sh"
	kaitoT4        = "Standard_NC4as_T4_v3"
	kaitoOtherPool = "t4serve" // team-a's, not team-b's
)

// kaitoController is the identity KAITO's workspace controller runs as
// (the chart's ServiceAccount in kaito-workspace) and the part of its
// chart's ClusterRole that writes team namespaces (kaito-project/kaito
// charts/kaito/workspace/templates/clusterrole.yaml: pods, services,
// statefulsets, deployments and jobs, create in every namespace). The
// chart is not installed in this tier (no controller runs), so the test
// grants the same rules to act as the controller would.
var kaitoControllerRules = []rbacv1.PolicyRule{
	{APIGroups: []string{""}, Resources: []string{"pods", "services"}, Verbs: []string{"get", "list", "create", "delete"}},
	{APIGroups: []string{"apps"}, Resources: []string{"statefulsets", "deployments"}, Verbs: []string{"get", "list", "create", "delete"}},
	{APIGroups: []string{"batch"}, Resources: []string{"jobs"}, Verbs: []string{"get", "list", "create", "delete"}},
}

// TestKAITOWorkspaces deploys the dev stack (every object but its example
// workloads: the teams' Roles, admission policies, quotas and queues, the
// kaito-workspace namespace) with the pinned KAITO Workspace CRD
// installed, and checks:
//   - the stack's own InferenceWorkspace and FineTuningWorkspace are
//     accepted by the CRD (as v1alpha1, as aksml writes them, and as
//     v1beta1, the storage version) and by team-a's admission policy, also
//     when a team-a member creates them;
//   - a Workspace the CRD's schema refuses is refused (422, the field named);
//   - a team-b member's Workspace that selects a pool team-b may not use
//     (team-a's serving pool, the spot pool, a selector without the pool
//     label, extra matchExpressions or preferredNodes), a size other than
//     the pool's, a custom pod template or a public LoadBalancer is refused
//     by team-b's admission policy, naming the rule; its Workspace on its
//     own pool is accepted;
//   - what KAITO's controller creates from a Workspace in team-a's
//     namespace is held to the same rules as a member's objects: a pod over
//     team-a's GPU quota is refused by the quota, a StatefulSet tolerating
//     the system pool by the admission policy; a tuning Job without a
//     queue label gets the team's `default` LocalQueue from Kueue's
//     webhook (LocalQueueDefaulting) and is admitted by the team's own
//     ClusterQueue (unsuspended, pods created), one needing more GPUs than
//     the team's quota stays suspended, and with the `default` LocalQueue
//     deleted the same Job gets no queue and stays suspended with no pods.
func TestKAITOWorkspaces(t *testing.T) {
	env := testEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	require.NoError(t, env.StartNodeSimulation(ctx), "logs in %s", env.Dir)
	t.Cleanup(env.StopNodeSimulation)
	f := deployTeamStack(ctx, t, env, kaitoStack, kaitoTeam, kaitoAttacker)

	var examples []*unstructured.Unstructured
	for _, o := range stackExamples(t, kaitoStack) {
		if o.GetKind() == "Workspace" {
			examples = append(examples, o)
		}
	}
	require.Len(t, examples, 2, "dev declares an InferenceWorkspace and a FineTuningWorkspace")

	t.Run("StackWorkspacesAcceptedByTheCRD", func(t *testing.T) {
		for _, ws := range examples {
			for _, version := range []string{"v1alpha1", "v1beta1"} {
				obj := ws.DeepCopy()
				obj.SetAPIVersion(kaitoCRDGroup + "/" + version)
				require.NoError(t, env.Client.Create(ctx, obj), "%s %s/%s as %s", obj.GetKind(), obj.GetNamespace(), obj.GetName(), version)
				got := &unstructured.Unstructured{}
				got.SetAPIVersion(kaitoCRDGroup + "/" + version)
				got.SetKind("Workspace")
				require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
				assert.Equal(t, ws.Object["resource"].(map[string]any)["labelSelector"], got.Object["resource"].(map[string]any)["labelSelector"], "stored as written")
				require.NoError(t, env.Client.Delete(ctx, got))
			}
		}
		m := f.member(t, kaitoTeam)
		for _, ws := range examples {
			obj := ws.DeepCopy()
			obj.SetName(f.name(obj.GetName()))
			require.NoError(t, m.Create(ctx, obj), "a %s member creates the stack's %s", kaitoTeam, ws.GetName())
			require.NoError(t, env.Client.Delete(ctx, obj))
		}
	})

	t.Run("SchemaRefusesAnInvalidWorkspace", func(t *testing.T) {
		for _, c := range []struct {
			what, field string
			edit        func(map[string]any)
		}{
			{"no labelSelector", "resource.labelSelector", func(o map[string]any) { delete(o["resource"].(map[string]any), "labelSelector") }},
			{"an accessMode outside the enum", "inference.preset.accessMode", func(o map[string]any) {
				o["inference"].(map[string]any)["preset"].(map[string]any)["accessMode"] = "secret"
			}},
			{"a count that is not an integer", "resource.count", func(o map[string]any) { o["resource"].(map[string]any)["count"] = "two" }},
			{"a preset without a name", "inference.preset.name", func(o map[string]any) { o["inference"].(map[string]any)["preset"] = map[string]any{} }},
		} {
			obj := f.workspace(kaitoTeam, "invalid", "t4serve", kaitoT4)
			c.edit(obj.Object)
			err := env.Client.Create(ctx, obj)
			require.Error(t, err, "%s must be refused", c.what)
			assert.True(t, apierrors.IsInvalid(err), "%s: want 422 Invalid from the CRD schema, got %v", c.what, err)
			assert.Contains(t, err.Error(), c.field, "%s: the refusal names the field", c.what)
		}
	})

	t.Run("TeamWorkspacePinnedToItsPools", func(t *testing.T) {
		m := f.member(t, kaitoAttacker)
		spot := poolOfKind(t, f.pools, func(p NodePool) bool { return p.Spot })
		refused := []struct {
			what, rule string
			ws         *unstructured.Unstructured
		}{
			{"another team's pool (" + kaitoOtherPool + ")", tenancy.RuleWorkspacePool, f.workspace(kaitoAttacker, "other", kaitoOtherPool, kaitoT4)},
			{"the spot pool " + spot, tenancy.RuleWorkspacePool, f.workspace(kaitoAttacker, "spot", spot, kaitoT4)},
			{"the system pool", tenancy.RuleWorkspacePool, f.workspace(kaitoAttacker, "system", "system", kaitoT4)},
			{"KAITO's default selector (no pool label)", tenancy.RuleWorkspacePool, withSelector(f.workspace(kaitoAttacker, "apps", "t4", kaitoT4), map[string]any{"matchLabels": map[string]any{workloads.WorkspaceSelectorLabel: "x"}})},
			{"matchExpressions beside the pool label", tenancy.RuleWorkspacePool, withSelector(f.workspace(kaitoAttacker, "expr", "t4", kaitoT4), map[string]any{
				"matchLabels":      map[string]any{gpupool.AgentPoolLabel: "t4"},
				"matchExpressions": []any{map[string]any{"key": "kubernetes.azure.com/scalesetpriority", "operator": "Exists"}},
			})},
			{"preferredNodes", tenancy.RuleWorkspacePool, edit(f.workspace(kaitoAttacker, "preferred", "t4", kaitoT4), func(o map[string]any) {
				o["resource"].(map[string]any)["preferredNodes"] = []any{"aks-t4serve-00000000-vmss000000"}
			})},
			{"a size other than the pool's", tenancy.RuleWorkspaceInstanceType, f.workspace(kaitoAttacker, "size", "t4", "Standard_NC24ads_A100_v4")},
			{"a custom pod template", tenancy.RuleWorkspaceTemplate, edit(f.workspace(kaitoAttacker, "template", "t4", kaitoT4), func(o map[string]any) {
				o["inference"] = map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "x", "image": "busybox:1.36"}}}}}
			})},
			{"a public LoadBalancer", tenancy.RuleWorkspaceLoadBalancer, edit(f.workspace(kaitoAttacker, "lb", "t4", kaitoT4), func(o map[string]any) {
				o["metadata"].(map[string]any)["annotations"] = map[string]any{tenancy.WorkspaceLoadBalancerAnnotation: "True"}
			})},
		}
		for _, c := range refused {
			err := m.Create(ctx, c.ws)
			requireRefused(t, err, c.what, policyReason(kaitoAttacker, c.rule)...)
		}
		own := f.workspace(kaitoAttacker, "own", "t4", kaitoT4)
		require.NoError(t, m.Create(ctx, own), "a Workspace on the team's own regular pool is accepted")
		require.NoError(t, env.Client.Delete(ctx, own))
	})

	t.Run("ControllerObjectsHeldToTheTeamsRules", func(t *testing.T) {
		kaito := f.kaitoController(t)
		// team-a: a team that runs KAITO is at Pod Security baseline, which
		// admits KAITO's pods (no securityContext); at restricted they would
		// be refused before the quota is asked.
		ns := kaitoTeam

		// The quota binds pods whoever creates them.
		q := &corev1.ResourceQuota{}
		require.NoError(t, env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: tenancy.ResourceQuotaName}, q))
		hard, ok := q.Spec.Hard[corev1.ResourceName("requests."+vocab.GPUResource)]
		require.True(t, ok, "team %s has a GPU quota: %v", ns, q.Spec.Hard)
		over := hard.DeepCopy()
		over.Add(resource.MustParse("1"))
		pod := kaitoPod(ns, f.name("serve"), "t4", over)
		err := kaito.Create(ctx, pod)
		requireRefused(t, err, "a KAITO pod over the team's GPU quota", "exceeded quota: "+tenancy.ResourceQuotaName, "requests."+vocab.GPUResource)

		// The admission policy reads the StatefulSet KAITO creates.
		ss := &appsv1.StatefulSet{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: f.name("serve"), Labels: map[string]string{"kaito.sh/workspace": "serve"}},
			Spec: appsv1.StatefulSetSpec{
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"kaito.sh/workspace": "serve"}},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"kaito.sh/workspace": "serve"}}, Spec: kaitoPod(ns, "x", "t4", resource.MustParse("1")).Spec},
			},
		}
		ss.Spec.Template.Spec.Tolerations = append(ss.Spec.Template.Spec.Tolerations, corev1.Toleration{Key: tenancy.SystemPoolTaintKey, Operator: corev1.TolerationOpExists})
		requireRefused(t, kaito.Create(ctx, ss), "a KAITO StatefulSet tolerating the system pool", policyReason(ns, tenancy.RuleSystemPool)...)

		// KAITO's tuning Job (labelled kaito.sh/workspace, no queue label,
		// kaito-project/kaito pkg/workspace/manifests GenerateTuningJobManifest)
		// gets the team's `default` LocalQueue from Kueue's Job webhook
		// (LocalQueueDefaulting) and is admitted by the team's own
		// ClusterQueue, within its quota: fine-tuning runs, through the queue.
		job := kaitoTuningJob(ns, f.name("tune"), "t4", 1)
		require.NoError(t, kaito.Create(ctx, job), "KAITO creates its tuning Job; team-a's admission policy accepts the defaulted Job")
		defer f.deleteJobs(t, job)
		assert.Equal(t, queues.DefaultLocalQueueName, job.Labels[vocab.QueueNameLabel], "Kueue's webhook gives the queue-less Job the namespace's default LocalQueue")
		assert.True(t, ptr.Deref(job.Spec.Suspend, false), "and suspends it until admitted")
		requireAdmittedBy(t, f, job, queues.ClusterQueueName(ns), queues.FlavorName("t4"))

		// Within the team's quota: a tuning Job needing more GPUs of the
		// pool at once than the whole gpu-quota (which is what the team's
		// queue can admit on all its pools) is queued, not admitted.
		big := kaitoTuningJob(ns, f.name("tune-big"), "t4", 1)
		big.Spec.Parallelism = ptr.To(int32(hard.Value() + 1))
		big.Spec.Completions = big.Spec.Parallelism
		require.NoError(t, kaito.Create(ctx, big))
		defer f.deleteJobs(t, big)
		require.EventuallyWithT(t, func(ct *assert.CollectT) {
			wl := f.workloadOf(ct, big)
			if !assert.NotNil(ct, wl, "no Workload for %s yet", big.Name) {
				return
			}
			assert.Equal(ct, kueue.LocalQueueName(queues.DefaultLocalQueueName), wl.Spec.QueueName)
			c := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved)
			if assert.NotNil(ct, c, "Kueue gives no reason yet") {
				assert.Equal(ct, metav1.ConditionFalse, c.Status)
				assert.Contains(ct, c.Message, "insufficient quota", "held for the team's quota")
			}
		}, attackTimeout, scenarioPoll)
		got := &batchv1.Job{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(big), got))
		assert.True(t, ptr.Deref(got.Spec.Suspend, false), "the Job over the team's quota stays suspended")
		f.requireNoJobPods(t, big)

		// The mechanism: without the `default` LocalQueue the same Job gets
		// no queue, and Kueue (manageJobsWithoutQueueName) holds it for ever.
		dlq := &kueue.LocalQueue{}
		require.NoError(t, env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: queues.DefaultLocalQueueName}, dlq), "the stack declares team %s's default LocalQueue", ns)
		require.Equal(t, kueue.ClusterQueueReference(queues.ClusterQueueName(ns)), dlq.Spec.ClusterQueue, "the default LocalQueue points at the team's own ClusterQueue")
		require.NoError(t, env.Client.Delete(ctx, dlq))
		defer func() {
			restored := &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: dlq.Namespace, Name: dlq.Name, Labels: dlq.Labels}, Spec: dlq.Spec}
			require.NoError(t, env.Client.Create(ctx, restored), "restore the default LocalQueue")
			requireDefaulted(t, f, ns, true)
		}()
		requireDefaulted(t, f, ns, false)
		held := kaitoTuningJob(ns, f.name("tune-held"), "t4", 1)
		require.NoError(t, kaito.Create(ctx, held))
		defer f.deleteJobs(t, held)
		assert.NotContains(t, held.Labels, vocab.QueueNameLabel, "no default LocalQueue, no queue name")
		assert.True(t, ptr.Deref(held.Spec.Suspend, false), "Kueue's webhook suspends it (manageJobsWithoutQueueName)")
		time.Sleep(3 * time.Second)
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(held), got))
		assert.True(t, ptr.Deref(got.Spec.Suspend, false), "still suspended: no queue admits it")
		f.requireNoJobPods(t, held)
	})
}

// kaitoTuningJob is a tuning Job as KAITO's controller writes one
// (labelled kaito.sh/workspace, no queue label, no priority class) whose
// pods each ask for gpus on pool.
func kaitoTuningJob(ns, name, pool string, gpus int64) *batchv1.Job {
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"kaito.sh/workspace": name}},
		Spec:       batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: kaitoPod(ns, "x", pool, *resource.NewQuantity(gpus, resource.DecimalSI)).Spec}},
	}
	job.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	return job
}

// requireAdmittedBy waits until Kueue admits job's Workload, queued in
// the LocalQueue job is labelled with, through clusterQueue (with flavor
// for its GPUs unless flavor is ""), unsuspends job and its pods exist.
func requireAdmittedBy(t *testing.T, f *attackFixture, job *batchv1.Job, clusterQueue, flavor string) {
	t.Helper()
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		wl := f.workloadOf(ct, job)
		if !assert.NotNil(ct, wl, "no Workload for %s yet", job.Name) {
			return
		}
		if !assert.NotNil(ct, wl.Status.Admission, "%s not admitted yet: %v", job.Name, wl.Status.Conditions) {
			return
		}
		assert.Equal(ct, kueue.ClusterQueueReference(clusterQueue), wl.Status.Admission.ClusterQueue)
		assert.Equal(ct, kueue.LocalQueueName(job.Labels[vocab.QueueNameLabel]), wl.Spec.QueueName, "the Workload is queued in the Job's LocalQueue")
		if flavor != "" && assert.NotEmpty(ct, wl.Status.Admission.PodSetAssignments) {
			assert.Equal(ct, kueue.ResourceFlavorReference(flavor), wl.Status.Admission.PodSetAssignments[0].Flavors[corev1.ResourceName(vocab.GPUResource)])
		}
		got := &batchv1.Job{}
		require.NoError(ct, f.env.Client.Get(f.ctx, client.ObjectKeyFromObject(job), got))
		assert.False(ct, ptr.Deref(got.Spec.Suspend, false), "Kueue unsuspends the admitted Job")
		pods := &corev1.PodList{}
		require.NoError(ct, f.env.Client.List(f.ctx, pods, client.InNamespace(job.Namespace), client.MatchingLabels{batchv1.JobNameLabel: job.Name}))
		assert.NotEmpty(ct, pods.Items, "the Job controller creates its pods")
	}, attackTimeout, scenarioPoll)
}

// requireDefaulted waits until Kueue's Job webhook does (want) or does not
// give a queue-less Job in ns the default LocalQueue: its view of the
// namespace's LocalQueues follows the API server's by a watch.
func requireDefaulted(t *testing.T, f *attackFixture, ns string, want bool) {
	t.Helper()
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		probe := kaitoTuningJob(ns, f.name("probe"), "t4", 1)
		require.NoError(ct, f.env.Client.Create(f.ctx, probe, client.DryRunAll))
		assert.Equal(ct, want, probe.Labels[vocab.QueueNameLabel] == queues.DefaultLocalQueueName, "labels %v", probe.Labels)
	}, attackTimeout, scenarioPoll)
}

// requireNoJobPods asserts that job has no pods.
func (f *attackFixture) requireNoJobPods(t *testing.T, job *batchv1.Job) {
	t.Helper()
	pods := &corev1.PodList{}
	require.NoError(t, f.env.Client.List(f.ctx, pods, client.InNamespace(job.Namespace), client.MatchingLabels{batchv1.JobNameLabel: job.Name}))
	assert.Empty(t, pods.Items, "pods of %s", job.Name)
}

// stackExamples are the example workload objects of stack.
func stackExamples(t *testing.T, stack string) []*unstructured.Unstructured {
	objs, _, err := stackObjects(desiredState(t, stack))
	require.NoError(t, err)
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if isExampleWorkload(o) {
			out = append(out, o.obj.DeepCopy())
		}
	}
	return out
}

// workspace is a v1alpha1 inference Workspace of team that serves a preset
// on pool (selected by its agentpool label) with VM size instanceType.
func (f *attackFixture) workspace(team, prefix, pool, instanceType string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": workloads.KAITOAPIVersion,
		"kind":       "Workspace",
		"metadata":   map[string]any{"name": f.name(prefix), "namespace": team},
		"resource": map[string]any{
			"instanceType":  instanceType,
			"labelSelector": map[string]any{"matchLabels": map[string]any{gpupool.AgentPoolLabel: pool}},
		},
		"inference": map[string]any{"preset": map[string]any{"name": "phi-3-mini-4k-instruct"}},
	}}
}

// edit applies fn to ws's object and returns ws.
func edit(ws *unstructured.Unstructured, fn func(map[string]any)) *unstructured.Unstructured {
	fn(ws.Object)
	return ws
}

// withSelector replaces ws's labelSelector.
func withSelector(ws *unstructured.Unstructured, sel map[string]any) *unstructured.Unstructured {
	return edit(ws, func(o map[string]any) { o["resource"].(map[string]any)["labelSelector"] = sel })
}

// poolOfKind returns the name of the first pool that matches.
func poolOfKind(t *testing.T, pools []NodePool, match func(NodePool) bool) string {
	for _, p := range pools {
		if match(p) {
			return p.Name
		}
	}
	t.Fatal("no such pool")
	return ""
}

// kaitoPod is a pod as KAITO's controller writes one (its labelSelector as
// required node affinity, the GPU taint tolerated, whole GPUs requested,
// no securityContext), on pool, asking for gpus.
func kaitoPod(ns, name, pool string, gpus resource.Quantity) *corev1.Pod {
	gpu := corev1.ResourceName(vocab.GPUResource)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.PodSpec{
			Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: gpupool.AgentPoolLabel, Operator: corev1.NodeSelectorOpIn, Values: []string{pool}}}}},
			}}},
			Tolerations: []corev1.Toleration{{Key: gpupool.GPUTaintKey, Operator: corev1.TolerationOpEqual, Value: gpupool.GPUTaintValue, Effect: corev1.TaintEffectNoSchedule}},
			Containers: []corev1.Container{{
				Name: "model", Image: "mcr.microsoft.com/aks/kaito/base:0.0.1",
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{gpu: gpus, corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
					Limits:   corev1.ResourceList{gpu: gpus},
				},
			}},
		},
	}
}

// kaitoController creates KAITO's ServiceAccount with kaitoControllerRules
// cluster-wide and returns a client acting as it.
func (f *attackFixture) kaitoController(t *testing.T) client.Client {
	const name = "kaito-workspace"
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: workloads.KAITONamespace, Name: name}}
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name + "-test"}, Rules: kaitoControllerRules}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-test"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: sa.Namespace, Name: sa.Name}},
	}
	for _, o := range []client.Object{sa, role, binding} {
		require.NoError(t, f.env.Client.Create(f.ctx, o), "create %T", o)
		t.Cleanup(func() { assert.NoError(t, client.IgnoreNotFound(f.env.Client.Delete(context.Background(), o))) })
	}
	return impersonate(t, f.env, fmt.Sprintf("system:serviceaccount:%s:%s", sa.Namespace, sa.Name), "system:serviceaccounts")
}
