package cluster

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aksml/aksml/components/workloads"
	"github.com/aksml/aksml/stacks"
)

// requireServingDrain deploys each InferenceServer of the stack (its Deployment,
// Service, PodDisruptionBudget and autoscaler, as the stack renders them: a KEDA
// ScaledObject with its PodMonitor and scrape NetworkPolicy, or a
// HorizontalPodAutoscaler) and asserts, on the simulated nodes of the stack's pools with
// the real kube-scheduler and kube-controller-manager (Deployment, ReplicaSet and
// disruption controllers):
//   - the API server accepts every object, the autoscaler included (KEDA's pinned CRDs
//     for a ScaledObject);
//   - every replica runs on a node of the server's pool, which is never a spot pool;
//   - a drain of the pool (every node cordoned, replicas evicted through the Eviction
//     API, which honours the PodDisruptionBudget) is allowed one replica at a time: with
//     two replicas (set as the autoscaler would), the second eviction is refused until
//     the first is replaced; the replacement is not placed on any other pool even though the spot
//     nodes of the same GPU size are free: it stays Pending, unbound, the scheduler
//     naming the cordoned nodes and every other pool's mismatch;
//   - when the pool's nodes come back (uncordoned, as after an upgrade), the
//     replacement runs there.
func requireServingDrain(ctx context.Context, t *testing.T, env *Env, cfg *stacks.Config, examples []stackObject, pools map[string]NodePool) {
	t.Helper()
	servers := map[string]string{}
	for _, w := range cfg.Workloads {
		if w.Kind == stacks.KindInferenceServer {
			servers[w.Name] = w.Pool
		}
	}
	if len(servers) == 0 {
		t.Skip("the stack deploys no InferenceServer")
	}
	for name, poolName := range servers {
		pool, ok := pools[poolName]
		require.True(t, ok, "InferenceServer %s: pool %s is not simulated", name, poolName)
		require.False(t, pool.Spot, "InferenceServer %s: the stack refuses spot pools for serving", name)
		var objs []stackObject
		var deployment stackObject
		for _, o := range examples {
			if o.obj.GetLabels()[workloads.NameLabel] != name {
				continue
			}
			objs = append(objs, o)
			if o.obj.GetKind() == "Deployment" {
				deployment = o
			}
		}
		require.NotNil(t, deployment.obj, "InferenceServer %s renders a Deployment", name)
		kinds := map[string]bool{}
		for _, o := range objs {
			require.NoError(t, env.Apply(ctx, o.obj.DeepCopy()), "apply %s", o)
			kinds[o.obj.GetKind()] = true
		}
		for _, k := range []string{"Deployment", "Service", "PodDisruptionBudget"} {
			assert.True(t, kinds[k], "InferenceServer %s renders a %s", name, k)
		}
		assert.NotEqual(t, kinds["ScaledObject"], kinds["HorizontalPodAutoscaler"], "InferenceServer %s renders one autoscaler: a KEDA ScaledObject or an HPA", name)
		if kinds["ScaledObject"] {
			for _, k := range []string{"PodMonitor", "NetworkPolicy"} {
				assert.True(t, kinds[k], "InferenceServer %s with KEDA renders a %s (the metric reaches the workspace)", name, k)
			}
		}
		func() {
			defer func() {
				dctx, cancel := context.WithTimeout(context.Background(), placementTimeout)
				defer cancel()
				require.NoError(t, deleteObjects(dctx, env.Client, objs), "clean up InferenceServer %s", name)
			}()
			requireServerDrained(ctx, t, env, deployment, pool, pools)
		}()
	}
}

// requireServerDrained runs the placement and drain of one InferenceServer Deployment
// on pool (see requireServingDrain).
func requireServerDrained(ctx context.Context, t *testing.T, env *Env, deployment stackObject, pool NodePool, pools map[string]NodePool) {
	t.Helper()
	ns, name := deployment.obj.GetNamespace(), deployment.obj.GetName()
	selector := client.MatchingLabels{workloads.NameLabel: name}
	listPods := func(ct require.TestingT) []corev1.Pod {
		list := &corev1.PodList{}
		require.NoError(ct, env.Client.List(ctx, list, client.InNamespace(ns), selector))
		return list.Items
	}
	maxReplicas := int64(0)
	so := &unstructured.Unstructured{}
	so.SetAPIVersion(workloads.KEDAAPIVersion)
	so.SetKind("ScaledObject")
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, so); err == nil {
		maxReplicas, _, err = unstructured.NestedInt64(so.Object, "spec", "maxReplicaCount")
		require.NoError(t, err)
	} else {
		require.True(t, apierrors.IsNotFound(err), "read the ScaledObject: %v", err)
		hpa := &autoscalingv2.HorizontalPodAutoscaler{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, hpa), "the HPA is stored")
		maxReplicas = int64(hpa.Spec.MaxReplicas)
	}
	// Two replicas, as the autoscaler would set them (the stack leaves
	// spec.replicas to it), when the autoscaler and the pool allow two: the
	// budget then has a second eviction to refuse.
	replicas := 1
	if maxReplicas >= 2 && pool.Count >= 2 {
		replicas = 2
		d := &appsv1.Deployment{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, d))
		patch := client.MergeFrom(d.DeepCopy())
		d.Spec.Replicas = ptr.To(int32(replicas))
		require.NoError(t, env.Client.Patch(ctx, d, patch))
	}

	// waitRunning waits until the Deployment's replicas all run and returns
	// them.
	waitRunning := func(when string) []corev1.Pod {
		var running []corev1.Pod
		require.EventuallyWithT(t, func(ct *assert.CollectT) {
			running = nil
			for _, p := range listPods(ct) {
				if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
					running = append(running, p)
				}
			}
			assert.Len(ct, running, replicas, "%s/%s: replicas running %s", ns, name, when)
		}, placementTimeout, scenarioPoll, "kube-scheduler log:\n%s", env.LogTail("kube-scheduler.log", 20))
		return running
	}
	running := waitRunning("")
	for i := range running {
		got, err := nodePoolOf(ctx, env, &running[i])
		require.NoError(t, err)
		assert.Equal(t, pool.Name, got, "%s/%s: replica %s on node %s", ns, name, running[i].Name, running[i].Spec.NodeName)
		assert.False(t, pools[got].Spot, "a serving replica on spot pool %s", got)
	}

	// The disruption controller has observed the budget: one replica may go.
	pdb := &policyv1.PodDisruptionBudget{}
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		require.NoError(ct, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pdb))
		assert.EqualValues(ct, replicas, pdb.Status.CurrentHealthy, "PodDisruptionBudget %s/%s counts the replicas", ns, name)
	}, placementTimeout, scenarioPoll)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		require.NoError(ct, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pdb))
		assert.Equal(ct, pdb.Generation, pdb.Status.ObservedGeneration, "PodDisruptionBudget %s/%s observed", ns, name)
		assert.EqualValues(ct, workloads.DefaultServingMaxUnavailable, pdb.Status.DisruptionsAllowed, "PodDisruptionBudget %s/%s", ns, name)
	}, placementTimeout, scenarioPoll)

	// Drain the whole pool, as an upgrade of it does: cordon, then evict.
	nodes := &corev1.NodeList{}
	require.NoError(t, env.Client.List(ctx, nodes, client.MatchingLabels{AgentPoolLabel: pool.Name}))
	require.NotEmpty(t, nodes.Items)
	setUnschedulable := func(v bool) {
		for i := range nodes.Items {
			n := &corev1.Node{}
			require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(&nodes.Items[i]), n))
			patch := client.MergeFrom(n.DeepCopy())
			n.Spec.Unschedulable = v
			require.NoError(t, env.Client.Patch(ctx, n, patch))
		}
	}
	setUnschedulable(true)
	defer setUnschedulable(false)
	evict := func(p *corev1.Pod) error {
		return env.Client.SubResource("eviction").Create(ctx, p, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: p.Name}})
	}
	evicted := running[0]
	require.NoError(t, evict(&evicted), "evicting one replica is within the budget")
	var refused error
	if replicas > 1 {
		// The eviction used the budget: the next one waits for the
		// replacement to be ready (429, as kubectl drain retries it).
		refused = evict(&running[1])
		require.Error(t, refused, "a second replica evicted before the first is replaced")
		assert.True(t, apierrors.IsTooManyRequests(refused), "%v", refused)
		assert.Contains(t, refused.Error(), "disruption budget")
	}

	// The replacement finds no room on its pool and is not put anywhere else.
	var reason string
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		var pending []corev1.Pod
		for _, p := range listPods(ct) {
			if p.Name != evicted.Name && p.Spec.NodeName == "" {
				pending = append(pending, p)
			}
		}
		if !assert.Len(ct, pending, 1, "%s/%s: the replacement of %s", ns, name, evicted.Name) {
			return
		}
		c := podCondition(&pending[0], corev1.PodScheduled)
		if assert.NotNil(ct, c, "the scheduler has not looked at %s yet", pending[0].Name) {
			reason = c.Message
			assert.Equal(ct, corev1.PodReasonUnschedulable, c.Reason)
			assert.Contains(ct, c.Message, "node(s) were unschedulable", "the pool's cordoned nodes")
			assert.Contains(ct, c.Message, "didn't match Pod's node affinity/selector", "every other pool")
		}
	}, placementTimeout, scenarioPoll)
	var freeSpot []string
	for _, p := range pools {
		if p.Spot && p.VMSize == pool.VMSize {
			freeSpot = append(freeSpot, p.Name)
		}
	}

	// The pool comes back: the replacement runs on it.
	setUnschedulable(false)
	running = waitRunning("again")
	for i := range running {
		got, err := nodePoolOf(ctx, env, &running[i])
		require.NoError(t, err)
		assert.Equal(t, pool.Name, got, "%s/%s: replica %s after the drain", ns, name, running[i].Name)
	}
	t.Logf("InferenceServer %s/%s: %d replica(s) on %s; drain allowed by its PodDisruptionBudget one replica at a time (second eviction: %v); replacement Pending while the pool was cordoned, spot pools of %s %v free (%s); running on %s again", ns, name, replicas, pool.Name, refused, pool.VMSize, freeSpot, reason, pool.Name)
}
