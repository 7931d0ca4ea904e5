package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	autoscaling "k8s.io/autoscaler/cluster-autoscaler/apis/provisioningrequest/autoscaling.x-k8s.io/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/workloads"
	"github.com/aksml/aksml/internal/synth"
)

// gangPool is the dev stack's pool the gang runs on: Regular T4, minCount 0, maxCount 2,
// one GPU per node; team-a holds 1 GPU there and may borrow 1 from team-b.
const gangPool = poolT4

// TestGangScaleUpAllOrNothing runs the dev stack with aksml:scheduler.provisioning on its
// t4 pool (a pool at zero nodes) against the real kube-scheduler, KWOK and Kueue with its
// ProvisioningRequest admission check, NodeProvisioner standing in for the cluster
// autoscaler's atomic scale-up (RunVolumeProvisioner for the CSI drivers), and a gang of two one-GPU pods (the IndexedJob component)
// that fits only on two new nodes:
//   - with the cloud able to add one node (NodeProvisioner.Available), the request is not
//     provisioned (Provisioned False, CapacityIsNotFound), no node is added, the workload
//     holds its quota but is not admitted, the Job stays suspended and no pod exists;
//   - with capacity for both, both nodes are added at once, the request is Provisioned,
//     the workload admitted, and both pods run on the new nodes.
func TestGangScaleUpAllOrNothing(t *testing.T) {
	env := testEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	require.NoError(t, env.StartNodeSimulation(ctx), "logs in %s", env.Dir)
	defer env.StopNodeSimulation()

	// The team's data claims bind as the Azure CSI provisioners would bind them.
	vctx, vcancel := context.WithCancel(ctx)
	volumes := make(chan error, 1)
	go func() { volumes <- RunVolumeProvisioner(vctx, env.Client, 200*time.Millisecond) }()
	defer func() {
		vcancel()
		require.NoError(t, <-volumes)
	}()

	root, err := RepoRoot()
	require.NoError(t, err)
	s, err := synth.SynthEdited(root, scenarioStack, func(cfg map[string]string) error {
		cfg["aksml:scheduler"] = `{"system": "kueue", "provisioning": [{"pool": "` + gangPool + `"}]}`
		return nil
	})
	require.NoError(t, err)
	cfg := parsedConfig(t, scenarioStack)
	pools, err := StackNodePools(s, cfg)
	require.NoError(t, err)
	require.Equal(t, 0, resolvedPools(t, cfg)[gangPool].MinNodes, "the gang pool must scale from zero")

	objs, _, err := stackObjects(s)
	require.NoError(t, err)
	objs, err = applyOrder(s, objs, env.Client.RESTMapper())
	require.NoError(t, err)
	var (
		checks    []stackObject
		checkName string
	)
	for _, o := range objs {
		if isExampleWorkload(o) {
			continue
		}
		require.NoError(t, env.Apply(ctx, o.obj.DeepCopy()), "apply %s", o)
		switch o.obj.GetKind() {
		case "AdmissionCheck":
			checkName = o.obj.GetName()
			checks = append(checks, o)
		case "ProvisioningRequestConfig":
			checks = append(checks, o)
		}
	}
	require.Len(t, checks, 2, "one AdmissionCheck and its ProvisioningRequestConfig")
	defer restoreDevQueues(t, env, checks)
	defer deleteNodesAndPods(t, env)

	cq := queues.ClusterQueueName(teamA)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		ac := &kueue.AdmissionCheck{}
		require.NoError(ct, env.Client.Get(ctx, client.ObjectKey{Name: checkName}, ac))
		assert.True(ct, apimeta.IsStatusConditionTrue(ac.Status.Conditions, kueue.AdmissionCheckActive), "AdmissionCheck %s not active (is Kueue's ProvisioningRequest controller running?): %v", ac.Name, ac.Status.Conditions)
		q := &kueue.ClusterQueue{}
		require.NoError(ct, env.Client.Get(ctx, client.ObjectKey{Name: cq}, q))
		assert.True(ct, apimeta.IsStatusConditionTrue(q.Status.Conditions, kueue.ClusterQueueActive), "ClusterQueue %s not active: %v", cq, q.Status.Conditions)
	}, scenarioTimeout, scenarioPoll)

	job := submitGang(ctx, t, env)
	defer deleteGang(t, env, job)

	// Not provisioned: the cloud has one node for a gang that needs two.
	provisioner := &NodeProvisioner{Env: env, Pools: pools, Available: map[string]int{gangPool: 1}}
	stop := runProvisioner(ctx, t, provisioner)
	var pr *autoscaling.ProvisioningRequest
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		pr = provisioningRequestOf(ctx, ct, env, job)
		if pr == nil {
			return
		}
		c := apimeta.FindStatusCondition(pr.Status.Conditions, autoscaling.Provisioned)
		if assert.NotNil(ct, c, "ProvisioningRequest %s has no Provisioned condition", pr.Name) {
			assert.Equal(ct, ReasonCapacityIsNotFound, c.Reason)
		}
	}, scenarioTimeout, scenarioPoll)
	assert.Equal(t, autoscaling.ProvisioningClassBestEffortAtomicScaleUp, pr.Spec.ProvisioningClassName)
	assert.Equal(t, int32(2), pr.Spec.PodSets[0].Count, "one request for the whole gang")
	// Long enough for Kueue to have admitted it if it were going to.
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		wl := workloadOf(ctx, t, env, job)
		assert.True(t, apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadQuotaReserved), "the workload holds its quota while it waits: %v", wl.Status.Conditions)
		require.False(t, apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadAdmitted), "admitted without provisioned capacity: %v", wl.Status.AdmissionChecks)
		require.Equal(t, 0, len(poolNodes(ctx, t, env, gangPool)), "an atomic scale-up that cannot finish adds no node")
		require.Empty(t, jobPods(ctx, t, env, job), "no pod before admission")
		time.Sleep(250 * time.Millisecond)
	}
	stop()
	t.Logf("not provisioned: %s", apimeta.FindStatusCondition(pr.Status.Conditions, autoscaling.Provisioned).Message)

	// Provisioned: both nodes at once, then the gang.
	provisioner.Available = nil
	stop = runProvisioner(ctx, t, provisioner)
	defer stop()
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		wl := workloadFor(ctx, ct, env.Client, job)
		if assert.NotNil(ct, wl) {
			assert.True(ct, apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadAdmitted), "not admitted: %v %v", wl.Status.Conditions, wl.Status.AdmissionChecks)
		}
	}, scenarioTimeout, scenarioPoll)
	nodes := poolNodes(ctx, t, env, gangPool)
	require.Len(t, nodes, 2, "the request added the gang's two nodes")
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		pods := jobPods(ctx, t, env, job)
		if !assert.Len(ct, pods, 2) {
			return
		}
		for _, p := range pods {
			assert.Equal(ct, corev1.PodRunning, p.Status.Phase, "pod %s: %v", p.Name, p.Status.Conditions)
			assert.Contains(ct, nodes, p.Spec.NodeName, "pod %s on a node the request did not add", p.Name)
		}
		assert.NotEqual(ct, pods[0].Spec.NodeName, pods[1].Spec.NodeName, "one GPU per T4 node")
	}, scenarioTimeout, scenarioPoll)
}

// submitGang builds team-a's gang (IndexedJob, two one-GPU pods at once on gangPool) with
// the component under mocks and applies it.
func submitGang(ctx context.Context, t *testing.T, env *Env) *batchv1.Job {
	t.Helper()
	pool := resolvedPools(t, parsedConfig(t, scenarioStack))[gangPool]
	require.NotNil(t, pool)
	const name = "gang-from-zero"
	s, err := synth.Run(scenarioStack, scenarioStack, map[string]string{}, func(pctx *pulumi.Context) (map[string]pulumi.Input, error) {
		common := queuedJob(teamA)
		common.Resources = workloads.Resources{CPU: "3", Memory: "16Gi", GPUs: 1}
		_, err := workloads.NewIndexedJob(pctx, name, &workloads.IndexedJobArgs{Common: common, Pool: pool, Completions: 2, Parallelism: 2})
		return nil, err
	})
	require.NoError(t, err)
	var obj *unstructured.Unstructured
	for _, r := range s.Resources {
		if r.Type == "kubernetes:batch/v1:Job" {
			obj, err = toObject(r)
			require.NoError(t, err)
		}
	}
	require.NotNil(t, obj, "IndexedJob registered no Job")
	require.NoError(t, env.Apply(ctx, obj.DeepCopy()))
	job := &batchv1.Job{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), job))
	require.True(t, ptr.Deref(job.Spec.Suspend, false), "Kueue suspends the queued Job")
	return job
}

// deleteGang deletes job, its pods (at once: KWOK runs no process to stop) and its
// Workload and waits until they are gone, so that no pod is left on the nodes the test
// deletes next and the team namespace can be deleted by later tests.
func deleteGang(t *testing.T, env *Env, job *batchv1.Job) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, client.IgnoreNotFound(env.Client.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground))))
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		pods := jobPods(ctx, t, env, job)
		for i := range pods {
			assert.NoError(ct, client.IgnoreNotFound(env.Client.Delete(ctx, &pods[i], client.GracePeriodSeconds(0))))
		}
		assert.Empty(ct, pods, "pods of Job %s", job.Name)
		assert.Nil(ct, workloadFor(ctx, ct, env.Client, job), "Workload of Job %s", job.Name)
		var prs autoscaling.ProvisioningRequestList
		assert.NoError(ct, env.Client.List(ctx, &prs, client.InNamespace(job.Namespace)))
		assert.Empty(ct, prs.Items, "ProvisioningRequests in %s", job.Namespace)
	}, time.Minute, scenarioPoll)
}

// deleteNodesAndPods deletes the simulated nodes and then, at once, the pods still bound
// to them (the GPU stack's DaemonSet pods on the nodes the request added): PodGC would
// take them only after its quarantine, and until then they hold their namespace's
// deletion in later tests.
func deleteNodesAndPods(t *testing.T, env *Env) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var nodes corev1.NodeList
	require.NoError(t, env.Client.List(ctx, &nodes))
	deleteNodes(t, env)
	for _, n := range nodes.Items {
		require.EventuallyWithT(t, func(ct *assert.CollectT) {
			pods := podsOnNode(ctx, t, env, n.Name)
			for i := range pods {
				assert.NoError(ct, client.IgnoreNotFound(env.Client.Delete(ctx, &pods[i], client.GracePeriodSeconds(0))))
			}
			assert.Empty(ct, pods, "pods on deleted node %s", n.Name)
		}, time.Minute, scenarioPoll)
	}
}

// runProvisioner runs p until the returned stop is called; stop fails the test if p
// failed.
func runProvisioner(ctx context.Context, t *testing.T, p *NodeProvisioner) (stop func()) {
	pctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Run(pctx, 200*time.Millisecond) }()
	stopped := false
	return func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		require.NoError(t, <-done)
	}
}

// workloadOf returns job's Workload, failing the test if there is none.
func workloadOf(ctx context.Context, t *testing.T, env *Env, job *batchv1.Job) *kueue.Workload {
	t.Helper()
	var wl *kueue.Workload
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		wl = workloadFor(ctx, ct, env.Client, job)
		assert.NotNil(ct, wl, "no Workload for Job %s", job.Name)
	}, scenarioTimeout, scenarioPoll)
	return wl
}

// provisioningRequestOf returns the ProvisioningRequest Kueue created for job's Workload.
func provisioningRequestOf(ctx context.Context, ct *assert.CollectT, env *Env, job *batchv1.Job) *autoscaling.ProvisioningRequest {
	wl := workloadFor(ctx, ct, env.Client, job)
	if !assert.NotNil(ct, wl, "no Workload for Job %s", job.Name) {
		return nil
	}
	var list autoscaling.ProvisioningRequestList
	if !assert.NoError(ct, env.Client.List(ctx, &list, client.InNamespace(job.Namespace))) {
		return nil
	}
	for i := range list.Items {
		for _, ref := range list.Items[i].OwnerReferences {
			if ref.UID == wl.UID {
				return &list.Items[i]
			}
		}
	}
	assert.Fail(ct, "no ProvisioningRequest", "for Workload %s", wl.Name)
	return nil
}

// poolNodes returns the names of the nodes of pool.
func poolNodes(ctx context.Context, t *testing.T, env *Env, pool string) []string {
	t.Helper()
	var nodes corev1.NodeList
	require.NoError(t, env.Client.List(ctx, &nodes, client.MatchingLabels{AgentPoolLabel: pool}))
	names := make([]string, len(nodes.Items))
	for i, n := range nodes.Items {
		names[i] = n.Name
	}
	return names
}

// restoreDevQueues puts the dev stack's ClusterQueues back as the shipped stack has them
// (no admission check; server-side apply drops the fields the edited stack set) and
// deletes the admission check objects, for the tests that share the environment.
func restoreDevQueues(t *testing.T, env *Env, checks []stackObject) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	objs, _, err := stackObjects(desiredState(t, scenarioStack))
	require.NoError(t, err)
	for _, o := range objs {
		if o.obj.GetKind() == "ClusterQueue" {
			require.NoError(t, env.Apply(ctx, o.obj.DeepCopy()), "restore %s", o)
			cq := &kueue.ClusterQueue{}
			require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: o.obj.GetName()}, cq))
			require.Nil(t, cq.Spec.AdmissionChecksStrategy, "ClusterQueue %s keeps the admission check", cq.Name)
		}
	}
	require.NoError(t, deleteObjects(ctx, env.Client, checks))
}
