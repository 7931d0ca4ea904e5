package cluster

import (
	"context"
	"strings"
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

	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/gpustack"
	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/workloads"
	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/stacks"
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
	f := newProvisioningFixture(t)
	ctx, env, pools := f.ctx, f.env, f.pools
	require.Equal(t, 0, resolvedPools(t, f.cfg)[gangPool].MinNodes, "the gang pool must scale from zero")

	job := submitJob(ctx, t, env, "gang-from-zero", func(pctx *pulumi.Context, name string) error {
		common := queuedJob(teamA)
		common.Resources = workloads.Resources{CPU: "3", Memory: "16Gi", GPUs: 1}
		_, err := workloads.NewIndexedJob(pctx, name, &workloads.IndexedJobArgs{Common: common, Pool: f.pool(t, gangPool), Completions: 2, Parallelism: 2})
		return err
	})
	defer deleteGang(t, env, job)

	// Not provisioned: the cloud has one node for a gang that needs two.
	provisioner := &NodeProvisioner{Env: env, Pools: pools, Available: map[string]int{gangPool: 1}}
	stop := runUntilStopped(ctx, t, provisionNodes(provisioner))
	pr := waitNotProvisioned(ctx, t, env, job)
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
	stop = runUntilStopped(ctx, t, provisionNodes(provisioner))
	defer stop()
	waitWorkloadAdmitted(ctx, t, env, job)
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

// TestMIGTrialScaleUpFromZero proves the scale-from-zero hints of a DriverOnly MIG pool
// (gpupool.ScaleFromZeroTags) on the dev stack's a100mig pool at minCount 0, with
// aksml:scheduler.provisioning on it: a MIG trial (one nvidia.com/mig-1g.10gb, selecting
// nvidia.com/mig.config.state=success) fits no template node built from the pool's VM
// size and labels alone, since both appear only once a node has booted and the MIG Manager
// has run, so an autoscaler that ignores the tags does not provision it and the trial is
// not admitted; with the tags the template offers the MIG instances and the state label,
// the pool's node is added, the MIG Manager's effect is emulated on it (requireMIGManager)
// and the trial runs there.
func TestMIGTrialScaleUpFromZero(t *testing.T) {
	f := newProvisioningFixture(t)
	ctx, env := f.ctx, f.env
	pool := f.pool(t, poolA100MIG)
	require.Equal(t, 0, pool.MinNodes, "the MIG pool must scale from zero")
	require.Equal(t, gpupool.GPUStackDriverOnly, pool.GPUStack, "the MIG Manager labels only DriverOnly pools")
	require.NotEmpty(t, pool.ScaleFromZeroTags())

	job := submitJob(ctx, t, env, "mig-trial-from-zero", func(pctx *pulumi.Context, name string) error {
		_, err := workloads.NewMIGTrial(pctx, name, &workloads.MIGTrialArgs{Common: queuedJob(teamA), Pool: pool, MIGDevices: 1})
		return err
	})
	defer deleteGang(t, env, job)

	// An autoscaler that builds the template without the tags.
	provisioner := &NodeProvisioner{Env: env, Pools: f.pools, IgnoreTemplateTags: true}
	stop := runUntilStopped(ctx, t, provisionNodes(provisioner))
	pr := waitNotProvisioned(ctx, t, env, job)
	wl := workloadOf(ctx, t, env, job)
	require.False(t, apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadAdmitted), "admitted without a node")
	require.Empty(t, poolNodes(ctx, t, env, poolA100MIG))
	stop()
	t.Logf("without the tags: %s", apimeta.FindStatusCondition(pr.Status.Conditions, autoscaling.Provisioned).Message)

	// The autoscaler's Azure provider reads them.
	provisioner.IgnoreTemplateTags = false
	stop = runUntilStopped(ctx, t, provisionNodes(provisioner))
	defer stop()
	waitWorkloadAdmitted(ctx, t, env, job)
	nodes := poolNodes(ctx, t, env, poolA100MIG)
	require.Len(t, nodes, 1)
	// The MIG Manager DaemonSet reaches the new node; its effect is emulated there.
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		var pods corev1.PodList
		assert.NoError(ct, env.Client.List(ctx, &pods, client.MatchingFields{"spec.nodeName": nodes[0]}, client.MatchingLabels{gpustack.NameLabel: gpustack.MIGManagerName}))
		if assert.Len(ct, pods.Items, 1, "MIG Manager pod on %s", nodes[0]) {
			assert.Equal(ct, corev1.PodRunning, pods.Items[0].Status.Phase)
		}
	}, scenarioTimeout, scenarioPoll)
	requireMIGManager(ctx, t, env, f.objs, f.cfg, poolsByName(f.pools))
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		pods := jobPods(ctx, t, env, job)
		if assert.Len(ct, pods, 1) {
			assert.Equal(ct, corev1.PodRunning, pods[0].Status.Phase, "trial pod: %v", pods[0].Status.Conditions)
			assert.Equal(ct, nodes[0], pods[0].Spec.NodeName)
		}
	}, scenarioTimeout, scenarioPoll)
}

// submitJob builds the Job that build registers (a workload component, as team-a's, under
// mocks) and applies it.
func submitJob(ctx context.Context, t *testing.T, env *Env, name string, build func(*pulumi.Context, string) error) *batchv1.Job {
	t.Helper()
	s, err := synth.Run(scenarioStack, scenarioStack, map[string]string{}, func(pctx *pulumi.Context) (map[string]pulumi.Input, error) {
		return nil, build(pctx, name)
	})
	require.NoError(t, err)
	var obj *unstructured.Unstructured
	for _, r := range s.Resources {
		if r.Type == "kubernetes:batch/v1:Job" {
			obj, err = toObject(r)
			require.NoError(t, err)
		}
	}
	require.NotNil(t, obj, "%s registered no Job", name)
	require.NoError(t, env.Apply(ctx, obj.DeepCopy()))
	job := &batchv1.Job{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), job))
	require.True(t, ptr.Deref(job.Spec.Suspend, false), "Kueue suspends the queued Job")
	return job
}

// provisionedPools are the dev stack's pools the provisioning tests opt in: the T4 pool
// and the DriverOnly MIG pool, both at minCount 0.
var provisionedPools = []string{gangPool, poolA100MIG}

// provisioningFixture is the dev stack with aksml:scheduler.provisioning on
// provisionedPools, applied (without its example workloads) to the shared environment with
// kube-scheduler and KWOK running, no node, and the volume provisioner running.
type provisioningFixture struct {
	ctx   context.Context
	env   *Env
	cfg   *stacks.Config
	pools []NodePool
	objs  []stackObject
}

// newProvisioningFixture sets the fixture up; the test's cleanup deletes the nodes and
// the pods on them, puts the dev ClusterQueues back and stops what it started.
func newProvisioningFixture(t *testing.T) *provisioningFixture {
	t.Helper()
	env := testEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	require.NoError(t, env.StartNodeSimulation(ctx), "logs in %s", env.Dir)
	t.Cleanup(env.StopNodeSimulation)
	// The team's data claims bind as the Azure CSI provisioners would bind them.
	t.Cleanup(runUntilStopped(ctx, t, func(ctx context.Context) error {
		return RunVolumeProvisioner(ctx, env.Client, 200*time.Millisecond)
	}))

	root, err := RepoRoot()
	require.NoError(t, err)
	s, err := synth.SynthEdited(root, scenarioStack, func(cfg map[string]string) error {
		var entries []string
		for _, p := range provisionedPools {
			entries = append(entries, `{"pool": "`+p+`"}`)
		}
		cfg["aksml:scheduler"] = `{"system": "kueue", "provisioning": [` + strings.Join(entries, ", ") + `]}`
		return nil
	})
	require.NoError(t, err)
	f := &provisioningFixture{ctx: ctx, env: env, cfg: parsedConfig(t, scenarioStack)}
	f.pools, err = StackNodePools(s, f.cfg)
	require.NoError(t, err)

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
		f.objs = append(f.objs, o)
		switch o.obj.GetKind() {
		case "AdmissionCheck":
			checkName = o.obj.GetName()
			checks = append(checks, o)
		case "ProvisioningRequestConfig":
			checks = append(checks, o)
		}
	}
	require.Len(t, checks, 2, "one AdmissionCheck and its ProvisioningRequestConfig")
	t.Cleanup(func() { restoreDevQueues(t, env, checks) })
	t.Cleanup(func() { deleteNodesAndPods(t, env) })

	cq := queues.ClusterQueueName(teamA)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		ac := &kueue.AdmissionCheck{}
		require.NoError(ct, env.Client.Get(ctx, client.ObjectKey{Name: checkName}, ac))
		assert.True(ct, apimeta.IsStatusConditionTrue(ac.Status.Conditions, kueue.AdmissionCheckActive), "AdmissionCheck %s not active (is Kueue's ProvisioningRequest controller running?): %v", ac.Name, ac.Status.Conditions)
		q := &kueue.ClusterQueue{}
		require.NoError(ct, env.Client.Get(ctx, client.ObjectKey{Name: cq}, q))
		assert.True(ct, apimeta.IsStatusConditionTrue(q.Status.Conditions, kueue.ClusterQueueActive), "ClusterQueue %s not active: %v", cq, q.Status.Conditions)
	}, scenarioTimeout, scenarioPoll)
	return f
}

// pool returns the dev stack's resolved GPU pool.
func (f *provisioningFixture) pool(t *testing.T, name string) *gpupool.Resolved {
	t.Helper()
	p := resolvedPools(t, f.cfg)[name]
	require.NotNil(t, p, "no GPU pool %s in the dev stack", name)
	return p
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

// provisionNodes runs p every 200 ms.
func provisionNodes(p *NodeProvisioner) func(context.Context) error {
	return func(ctx context.Context) error { return p.Run(ctx, 200*time.Millisecond) }
}

// runUntilStopped runs run in the background until the returned stop is called (once;
// later calls do nothing); stop fails the test if run failed.
func runUntilStopped(ctx context.Context, t *testing.T, run func(context.Context) error) (stop func()) {
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- run(rctx) }()
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

// waitNotProvisioned waits until the ProvisioningRequest of job's Workload says
// Provisioned False, CapacityIsNotFound, and returns it.
func waitNotProvisioned(ctx context.Context, t *testing.T, env *Env, job *batchv1.Job) *autoscaling.ProvisioningRequest {
	t.Helper()
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
	return pr
}

// waitWorkloadAdmitted waits until job's Workload is Admitted.
func waitWorkloadAdmitted(ctx context.Context, t *testing.T, env *Env, job *batchv1.Job) {
	t.Helper()
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		wl := workloadFor(ctx, ct, env.Client, job)
		if assert.NotNil(ct, wl) {
			assert.True(ct, apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadAdmitted), "not admitted: %v %v", wl.Status.Conditions, wl.Status.AdmissionChecks)
		}
	}, scenarioTimeout, scenarioPoll)
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
