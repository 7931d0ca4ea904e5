package cluster

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/workloads"
	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/stacks"
)

// placementStacks are the stacks whose platform and workloads are placed on simulated
// nodes.
var placementStacks = []string{"dev", "prod", "local"}

const placementTimeout = 60 * time.Second

// placement is what a Job must come to: all its pods Running on nodes of pool, or (when
// unschedulable is set) admitted by Kueue with its pods Pending, the scheduler's reason
// matching unschedulable.
type placement struct {
	job           *unstructured.Unstructured
	pool          string
	unschedulable string
	// overQuota is set when the Job asks for more than its team may ever use on the
	// pool (nominal quota plus borrowing limit): Kueue must keep the whole gang pending
	// and no pod may exist.
	overQuota string
	why       string
}

// TestPlacement runs the real kube-scheduler and KWOK against simulated AKS nodes derived
// from each stack (StackNodePools) and asserts that
//   - every platform DaemonSet, Deployment and StatefulSet of the stack gets all its pods
//     Running (none is stranded for lack of a schedulable node);
//   - NVIDIA's MIG Manager runs on exactly the nodes of the DriverOnly MIG pools, whose
//     effect (state label, MIG devices from mig-parted-config) is then emulated;
//   - a GPU Job per team and pool of the team's quota (built by the CheckpointedJob
//     component, or MIGTrial on MIG pools) is admitted by Kueue and all its pods bound to
//     nodes of that pool that advertise the GPU resource they request, GPU pods never on
//     the system or CPU pools;
//   - every example workload of the stack that creates pods is admitted and placed on its
//     pool (gangs all at once), one at a time so that the examples do not compete;
//   - a GPU pod without the spot toleration is never bound to a spot node.
func TestPlacement(t *testing.T) {
	env := testEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	require.NoError(t, env.StartNodeSimulation(ctx), "logs in %s", env.Dir)
	defer env.StopNodeSimulation()
	t.Logf("kube-scheduler and KWOK started in %s", time.Since(start).Round(time.Millisecond))
	for _, stack := range placementStacks {
		t.Run(stack, func(t *testing.T) { placeStack(ctx, t, env, stack) })
	}
}

func placeStack(ctx context.Context, t *testing.T, env *Env, stack string) {
	start := time.Now()
	cfg := parsedConfig(t, stack)
	s := desiredState(t, stack)
	pools, err := StackNodePools(s, cfg)
	require.NoError(t, err)
	byName := poolsByName(pools)
	defer deleteNodes(t, env)
	require.NoError(t, env.CreateNodes(ctx, pools))
	// The checkpoint and dataset claims bind as the Azure CSI provisioners would bind them.
	pctx, pcancel := context.WithCancel(ctx)
	provisioned := make(chan error, 1)
	go func() { provisioned <- RunVolumeProvisioner(pctx, env.Client, 200*time.Millisecond) }()
	defer func() {
		pcancel()
		require.NoError(t, <-provisioned)
	}()
	for _, p := range pools {
		t.Logf("%s: pool %s: %d × %s nodes, labels %s, taints %v, allocatable %s", stack, p.Name, p.Count, p.VMSize, formatMap(p.Labels), formatTaints(p.Taints), formatResources(p.Allocatable))
	}

	objs, _, err := stackObjects(s)
	require.NoError(t, err)
	objs, err = applyOrder(s, objs, env.Client.RESTMapper())
	require.NoError(t, err)
	var (
		applied  []stackObject
		examples []stackObject
	)
	defer func() {
		dctx, dcancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer dcancel()
		require.NoError(t, deleteObjects(dctx, env.Client, applied), "clean up stack %s", stack)
	}()
	for _, o := range objs {
		if isExampleWorkload(o) {
			examples = append(examples, o)
			continue
		}
		require.NoError(t, env.Apply(ctx, o.obj.DeepCopy()), "apply %s", o)
		applied = append(applied, o)
	}

	t.Run("platform pods all run", func(t *testing.T) {
		requirePlatformRunning(ctx, t, env, applied, byName)
	})

	t.Run("MIG Manager on exactly the DriverOnly MIG pools, its effect emulated", func(t *testing.T) {
		requireMIGManager(ctx, t, env, applied, cfg, byName)
	})

	t.Run("a GPU job per team and pool lands on the pool", func(t *testing.T) {
		jobs := teamPoolJobs(t, stack, cfg)
		for _, p := range jobs {
			require.NoError(t, env.Apply(ctx, p.job.DeepCopy()), "submit %s", p.job.GetName())
		}
		defer deleteJobsAndWait(ctx, t, env, jobs)
		for _, p := range jobs {
			requirePlaced(ctx, t, env, p, byName)
		}
		assertNoGPUPodOffGPUPools(ctx, t, env, byName)
	})

	t.Run("no GPU pod without the spot toleration on spot nodes", func(t *testing.T) {
		for _, p := range pools {
			if !p.Spot {
				continue
			}
			requireUntoleratedSpotPodRejected(ctx, t, env, p)
		}
	})

	t.Run("example workloads land on their pools", func(t *testing.T) {
		exampleJobs := examplePlacements(t, cfg, examples)
		for _, o := range examples {
			if o.obj.GetKind() == "CronJob" || o.obj.GetKind() == "Job" {
				continue
			}
			t.Logf("%s: %s is not placed here: %s", stack, o, notPlacedReason(o))
		}
		for _, p := range exampleJobs {
			func() {
				require.NoError(t, env.Apply(ctx, p.job.DeepCopy()), "submit %s", p.job.GetName())
				defer deleteJobsAndWait(ctx, t, env, []placement{p})
				requirePlaced(ctx, t, env, p, byName)
			}()
		}
	})
	t.Run("inference servers stay on their pool through a drain", func(t *testing.T) {
		requireServingDrain(ctx, t, env, cfg, examples, byName)
	})
	if stack == spotEvictionStack {
		t.Run("a spot node evicted as AKS does it", func(t *testing.T) {
			requireSpotEviction(ctx, t, env, cfg, examples, byName)
		})
	}
	t.Logf("%s: placement scenarios took %s", stack, time.Since(start).Round(time.Millisecond))
}

// notPlacedReason says why an example workload object is not placed by the test.
func notPlacedReason(o stackObject) string {
	switch o.obj.GetKind() {
	case "PyTorchJob", "TFJob":
		return "the Kubeflow Training Operator, which creates its pods, does not run in this tier (its Kueue admission is tested in kueue_scenarios_test.go)"
	case "Workspace":
		return "KAITO, which creates a Workspace's pods, does not run in this tier (kaito_test.go checks the Workspaces against the CRD and the team's admission policy, and KAITO's pods against quota, policy and Kueue)"
	case "Deployment":
		return "an InferenceServer: placed and drained by the subtest \"inference servers stay on their pool through a drain\""
	}
	return "it creates no pods"
}

// requirePlatformRunning waits until every DaemonSet, Deployment and StatefulSet of objs
// has all its pods ready, and checks that each DaemonSet is scheduled on at least one node.
func requirePlatformRunning(ctx context.Context, t *testing.T, env *Env, objs []stackObject, pools map[string]NodePool) {
	t.Helper()
	var controllers []stackObject
	for _, o := range objs {
		switch o.obj.GetKind() {
		case "DaemonSet", "Deployment", "StatefulSet":
			controllers = append(controllers, o)
		}
	}
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		for _, o := range controllers {
			key := client.ObjectKeyFromObject(o.obj)
			switch o.obj.GetKind() {
			case "DaemonSet":
				ds := &appsv1.DaemonSet{}
				require.NoError(ct, env.Client.Get(ctx, key, ds))
				assert.Positive(ct, ds.Status.DesiredNumberScheduled, "%s has no node to run on", o)
				assert.Equal(ct, ds.Status.DesiredNumberScheduled, ds.Status.NumberReady, "%s ready pods", o)
			case "Deployment":
				d := &appsv1.Deployment{}
				require.NoError(ct, env.Client.Get(ctx, key, d))
				assert.Equal(ct, ptr.Deref(d.Spec.Replicas, 1), d.Status.ReadyReplicas, "%s ready replicas: %s", o, unschedulableReason(ctx, env, d.Namespace, d.Spec.Selector))
			case "StatefulSet":
				ss := &appsv1.StatefulSet{}
				require.NoError(ct, env.Client.Get(ctx, key, ss))
				assert.Equal(ct, ptr.Deref(ss.Spec.Replicas, 1), ss.Status.ReadyReplicas, "%s ready replicas: %s", o, unschedulableReason(ctx, env, ss.Namespace, ss.Spec.Selector))
			}
		}
	}, placementTimeout, scenarioPoll, "kube-scheduler log:\n%s", env.LogTail("kube-scheduler.log", 20))
	for _, o := range controllers {
		sel, _, _ := unstructured.NestedMap(o.obj.Object, "spec", "selector")
		ls := &metav1.LabelSelector{}
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(sel, ls))
		pods := podsOf(ctx, t, env, o.obj.GetNamespace(), ls)
		t.Logf("%s: %d pods running on pools %s", o, len(pods), formatPodPools(ctx, t, env, pods))
	}
}

// unschedulableReason returns the scheduler's message for the first unscheduled pod of a
// selector, for failure messages.
func unschedulableReason(ctx context.Context, env *Env, namespace string, sel *metav1.LabelSelector) string {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return err.Error()
	}
	pods := &corev1.PodList{}
	if err := env.Client.List(ctx, pods, client.InNamespace(namespace), client.MatchingLabelsSelector{Selector: s}); err != nil {
		return err.Error()
	}
	for _, p := range pods.Items {
		if c := podCondition(&p, corev1.PodScheduled); c != nil && c.Status == corev1.ConditionFalse {
			return fmt.Sprintf("pod %s: %s", p.Name, c.Message)
		}
	}
	return fmt.Sprintf("%d pods, none reported unschedulable", len(pods.Items))
}

func podCondition(p *corev1.Pod, typ corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == typ {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

func podsOf(ctx context.Context, t *testing.T, env *Env, namespace string, sel *metav1.LabelSelector) []corev1.Pod {
	t.Helper()
	s, err := metav1.LabelSelectorAsSelector(sel)
	require.NoError(t, err)
	pods := &corev1.PodList{}
	require.NoError(t, env.Client.List(ctx, pods, client.InNamespace(namespace), client.MatchingLabelsSelector{Selector: s}))
	return pods.Items
}

// nodePool returns the agent pool of the node a pod is bound to, or "".
func nodePoolOf(ctx context.Context, env *Env, pod *corev1.Pod) (string, error) {
	if pod.Spec.NodeName == "" {
		return "", nil
	}
	node := &corev1.Node{}
	if err := env.Client.Get(ctx, client.ObjectKey{Name: pod.Spec.NodeName}, node); err != nil {
		return "", err
	}
	return node.Labels[AgentPoolLabel], nil
}

func formatPodPools(ctx context.Context, t *testing.T, env *Env, pods []corev1.Pod) string {
	t.Helper()
	counts := map[string]int{}
	for i := range pods {
		pool, err := nodePoolOf(ctx, env, &pods[i])
		require.NoError(t, err)
		counts[pool]++
	}
	return formatCounts(counts)
}

// teamPoolJobs builds, for every team and every pool of the team's GPU quota, a Job with
// one GPU (a CheckpointedJob; a MIGTrial with one instance on MIG pools; none on
// inference pools, which every aksml workload component refuses) as the stack
// builds workloads, with small CPU and memory requests so that the jobs of all teams fit
// on the pool's nodes at once.
func teamPoolJobs(t *testing.T, stack string, cfg *stacks.Config) []placement {
	t.Helper()
	pools := resolvedPools(t, cfg)

	type want struct{ team, pool string }
	var wants []want
	for _, team := range cfg.Teams {
		for pool, quota := range team.GPUQuota {
			if quota > 0 && pools[pool].Workload == gpupool.WorkloadInference {
				// Every aksml workload component refuses inference pools (validate.go,
				// validateTrainingPool): aksml ships no serving workload to place there.
				t.Logf("%s: team %s's quota on inference pool %s: no aksml workload component runs there; not placed", stack, team.Name, pool)
				continue
			}
			if quota > 0 {
				wants = append(wants, want{team.Name, pool})
			}
		}
	}
	sort.Slice(wants, func(i, j int) bool {
		return wants[i].team+"/"+wants[i].pool < wants[j].team+"/"+wants[j].pool
	})
	program := func(ctx *pulumi.Context) (map[string]pulumi.Input, error) {
		for _, w := range wants {
			common := queuedJob(w.team)
			name := "place-" + w.pool
			var err error
			switch {
			case pools[w.pool].MIGEnabled():
				_, err = workloads.NewMIGTrial(ctx, name, &workloads.MIGTrialArgs{Common: common, Pool: pools[w.pool], MIGDevices: 1})
			default:
				common.Resources = workloads.Resources{CPU: "500m", Memory: "10Gi", GPUs: 1}
				_, err = workloads.NewCheckpointedJob(ctx, name, &workloads.CheckpointedJobArgs{Common: common, Pool: pools[w.pool]})
			}
			if err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	s, err := synth.Run(stack, string(cfg.Environment), map[string]string{}, program)
	require.NoError(t, err)
	var out []placement
	for _, r := range s.Resources {
		if r.Type != "kubernetes:batch/v1:Job" {
			continue
		}
		obj, err := toObject(r)
		require.NoError(t, err)
		pool := strings.TrimPrefix(obj.GetName(), "place-")
		out = append(out, expectPlacement(obj, &pools[pool].Spec))
	}
	require.Len(t, out, len(wants), "one Job per team and pool")
	return out
}

// expectPlacement is where a Job on pool must end up. A MIG trial on a MIG pool whose GPU
// stack is not Managed selects nodes labelled nvidia.com/mig.config.state=success, which
// NVIDIA's MIG Manager sets once it applied the layout. aksml installs it on DriverOnly
// MIG pools, and this tier emulates its effect there (requireMIGManager), so the trial is
// placed; on a None pool the pool's own GPU Operator would do it, which does not run here,
// so the trial stays Pending.
func expectPlacement(job *unstructured.Unstructured, pool *gpupool.Spec) placement {
	p := placement{job: job, pool: pool.Name}
	sel, _, _ := unstructured.NestedStringMap(job.Object, "spec", "template", "spec", "nodeSelector")
	if sel[gpupool.MIGConfigStateLabel] != "" && pool.GPUStack == gpupool.GPUStackNone {
		p.unschedulable = "didn't match Pod's node affinity/selector"
		p.why = "a None pool's own GPU Operator sets " + gpupool.MIGConfigStateLabel + " and does not run in this tier"
	}
	return p
}

// examplePlacements turns the example workloads that create pods into placements: Jobs
// as they are, a CronJob as the Job it would create at its schedule.
func examplePlacements(t *testing.T, cfg *stacks.Config, examples []stackObject) []placement {
	t.Helper()
	pools := map[string]*gpupool.Spec{}
	for i := range cfg.GPUPools {
		pools[cfg.GPUPools[i].Name] = &cfg.GPUPools[i]
	}
	specs := map[string]stacks.WorkloadSpec{}
	for _, w := range cfg.Workloads {
		specs[w.Name] = w
	}
	var out []placement
	for _, o := range examples {
		job := o.obj.DeepCopy()
		switch o.obj.GetKind() {
		case "Job":
		case "CronJob":
			tpl, _, err := unstructured.NestedMap(o.obj.Object, "spec", "jobTemplate")
			require.NoError(t, err)
			job = &unstructured.Unstructured{Object: map[string]any{"apiVersion": "batch/v1", "kind": "Job", "spec": tpl["spec"]}}
			if md, ok := tpl["metadata"].(map[string]any); ok {
				job.Object["metadata"] = md
			}
			job.SetName(o.obj.GetName() + "-manual")
			job.SetNamespace(o.obj.GetNamespace())
		default:
			continue
		}
		spec, ok := specs[o.obj.GetName()]
		require.True(t, ok, "example %s has no workload in the config", o)
		if spec.Pool == "" {
			out = append(out, placement{job: job, pool: "cpu"})
			continue
		}
		pool, ok := pools[spec.Pool]
		require.True(t, ok, "example %s: pool %s", o, spec.Pool)
		p := expectPlacement(job, pool)
		if gpus, limit := jobGPUs(job), teamGPULimit(cfg, spec.Team, spec.Pool); gpus > limit {
			p.overQuota = "insufficient quota"
			p.why = fmt.Sprintf("its %d GPUs exceed team %s's nominal quota plus borrowing limit on %s (%d)", gpus, spec.Team, spec.Pool, limit)
		}
		out = append(out, p)
	}
	return out
}

// jobGPUs is the whole GPUs a Job's pods request at once (parallelism × per pod).
func jobGPUs(job *unstructured.Unstructured) int {
	parallelism, found, _ := unstructured.NestedInt64(job.Object, "spec", "parallelism")
	if !found {
		parallelism = 1
	}
	containers, _, _ := unstructured.NestedSlice(job.Object, "spec", "template", "spec", "containers")
	var per int64
	for _, c := range containers {
		limit, _, _ := unstructured.NestedString(c.(map[string]any), "resources", "limits", gpupool.GPUResource)
		if limit != "" {
			q := resource.MustParse(limit)
			per += q.Value()
		}
	}
	return int(parallelism * per)
}

// teamGPULimit is the most GPUs team may hold on pool: nominal quota plus borrowing
// limit (unbounded borrowing counts as the cohort's whole quota on the pool).
func teamGPULimit(cfg *stacks.Config, team, pool string) int {
	cohort := 0
	for _, tm := range cfg.Teams {
		cohort += tm.GPUQuota[pool]
	}
	for _, tm := range cfg.Teams {
		if tm.Name != team {
			continue
		}
		if tm.BorrowingLimit == nil {
			return cohort
		}
		return min(tm.GPUQuota[pool]+*tm.BorrowingLimit, cohort)
	}
	return 0
}

// requirePlaced waits until p's Job is admitted by Kueue and its pods (parallelism of
// them) are all Running on nodes of p.pool, or, for an expected unschedulable Job, until
// its pods are Pending with the scheduler's reason.
func requirePlaced(ctx context.Context, t *testing.T, env *Env, p placement, pools map[string]NodePool) {
	t.Helper()
	name := p.job.GetNamespace() + "/" + p.job.GetName()
	job := &batchv1.Job{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(p.job), job))
	want := int(ptr.Deref(job.Spec.Parallelism, 1))
	if p.overQuota != "" {
		var msg string
		require.EventuallyWithT(t, func(ct *assert.CollectT) {
			wl := workloadFor(ctx, ct, env.Client, job)
			if !assert.NotNil(ct, wl, "%s: no Workload yet", name) {
				return
			}
			c := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved)
			if assert.NotNil(ct, c, "%s: no QuotaReserved condition", name) {
				msg = c.Message
				assert.Equal(ct, metav1.ConditionFalse, c.Status)
				assert.Contains(ct, c.Message, p.overQuota)
			}
		}, placementTimeout, scenarioPoll)
		time.Sleep(time.Second)
		list := &corev1.PodList{}
		require.NoError(t, env.Client.List(ctx, list, client.InNamespace(job.Namespace), client.MatchingLabels{batchv1.JobNameLabel: job.Name}))
		assert.Empty(t, list.Items, "%s: a gang over quota must have no pod", name)
		t.Logf("%s (%d pods, pool %s): pending with no pod, as it must: %s; Kueue: %s", name, want, p.pool, p.why, msg)
		return
	}
	var pods []corev1.Pod
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		wl := workloadFor(ctx, ct, env.Client, job)
		if !assert.NotNil(ct, wl, "%s: no Workload yet", name) {
			return
		}
		assert.True(ct, apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadAdmitted), "%s not admitted: %v", name, wl.Status.Conditions)
		list := &corev1.PodList{}
		require.NoError(ct, env.Client.List(ctx, list, client.InNamespace(job.Namespace), client.MatchingLabels{batchv1.JobNameLabel: job.Name}))
		pods = list.Items
		assert.Len(ct, pods, want, "%s pods", name)
		for i := range pods {
			pod := &pods[i]
			if p.unschedulable != "" {
				c := podCondition(pod, corev1.PodScheduled)
				if assert.NotNil(ct, c, "%s: pod %s not looked at by the scheduler yet", name, pod.Name) {
					assert.Equal(ct, corev1.PodReasonUnschedulable, c.Reason, "%s: pod %s", name, pod.Name)
					assert.Contains(ct, c.Message, p.unschedulable, "%s: pod %s", name, pod.Name)
				}
				continue
			}
			assert.Equal(ct, corev1.PodRunning, pod.Status.Phase, "%s: pod %s on %q: %s", name, pod.Name, pod.Spec.NodeName, conditionMessage(pod))
		}
	}, placementTimeout, scenarioPoll, "kube-scheduler log:\n%s", env.LogTail("kube-scheduler.log", 20))
	for i := range pods {
		pool, err := nodePoolOf(ctx, env, &pods[i])
		require.NoError(t, err)
		if p.unschedulable != "" {
			assert.Empty(t, pool, "%s: pod %s", name, pods[i].Name)
			continue
		}
		assert.Equal(t, p.pool, pool, "%s: pod %s on node %s", name, pods[i].Name, pods[i].Spec.NodeName)
		assertNodeOffers(ctx, t, env, &pods[i])
	}
	if p.unschedulable != "" {
		t.Logf("%s (pool %s): admitted, %d pods Pending as expected because %s: %s", name, p.pool, len(pods), p.why, conditionMessage(&pods[0]))
		return
	}
	nodes := map[string]bool{}
	for _, pod := range pods {
		nodes[pod.Spec.NodeName] = true
	}
	t.Logf("%s: admitted, %d/%d pods Running on %d node(s) of pool %s (%s)", name, len(pods), want, len(nodes), p.pool, pools[p.pool].VMSize)
}

func conditionMessage(pod *corev1.Pod) string {
	if c := podCondition(pod, corev1.PodScheduled); c != nil && c.Status != corev1.ConditionTrue {
		return c.Message
	}
	return string(pod.Status.Phase)
}

// assertNoGPUPodOffGPUPools checks every pod in the cluster: one requesting a GPU
// resource is bound only to a node of a GPU pool.
func assertNoGPUPodOffGPUPools(ctx context.Context, t *testing.T, env *Env, pools map[string]NodePool) {
	t.Helper()
	pods := &corev1.PodList{}
	require.NoError(t, env.Client.List(ctx, pods))
	checked := 0
	for i := range pods.Items {
		pod := &pods.Items[i]
		if !requestsGPU(pod) || pod.Spec.NodeName == "" {
			continue
		}
		pool, err := nodePoolOf(ctx, env, pod)
		require.NoError(t, err)
		assert.True(t, pools[pool].GPU, "GPU pod %s/%s on node %s of pool %s", pod.Namespace, pod.Name, pod.Spec.NodeName, pool)
		checked++
	}
	assert.Positive(t, checked, "no bound GPU pod to check")
}

func requestsGPU(pod *corev1.Pod) bool {
	for _, c := range pod.Spec.Containers {
		for res := range c.Resources.Requests {
			if strings.HasPrefix(string(res), "nvidia.com/") {
				return true
			}
		}
	}
	return false
}

// requireUntoleratedSpotPodRejected creates a pod that selects the spot pool and requests
// a GPU but tolerates only sku=gpu, not the spot taint (bypassing Kueue, which keeps such a
// Job pending, see kueue_scenarios_test.go), and asserts that the scheduler leaves it
// unbound for untolerated taints; then the same pod with the spot toleration the
// workload components add is bound to a node of the spot pool.
func requireUntoleratedSpotPodRejected(ctx context.Context, t *testing.T, env *Env, pool NodePool) {
	t.Helper()
	gpu := corev1.ResourceName(gpupool.GPUResource)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "no-spot-toleration-" + pool.Name, Namespace: metav1.NamespaceDefault},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{AgentPoolLabel: pool.Name},
			Tolerations:  []corev1.Toleration{{Key: gpupool.GPUTaintKey, Operator: corev1.TolerationOpEqual, Value: gpupool.GPUTaintValue, Effect: corev1.TaintEffectNoSchedule}},
			Containers: []corev1.Container{{
				Name: "main", Image: "busybox",
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{gpu: resource.MustParse("1")}},
			}},
		},
	}
	if _, ok := pool.Allocatable[gpu]; !ok {
		t.Logf("spot pool %s advertises no %s; the pod requests no GPU", pool.Name, gpu)
		pod.Spec.Containers[0].Resources = corev1.ResourceRequirements{}
	}
	tolerated := pod.DeepCopy()
	tolerated.Name = "spot-toleration-" + pool.Name
	tolerated.Spec.Tolerations = append(tolerated.Spec.Tolerations, corev1.Toleration{Key: gpupool.SpotTaintKey, Operator: corev1.TolerationOpEqual, Value: gpupool.SpotTaintValue, Effect: corev1.TaintEffectNoSchedule})
	for _, p := range []*corev1.Pod{pod, tolerated} {
		require.NoError(t, env.Client.Create(ctx, p))
		defer func() {
			require.NoError(t, client.IgnoreNotFound(env.Client.Delete(ctx, p, client.GracePeriodSeconds(0))))
		}()
	}
	var msg, node string
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		got := &corev1.Pod{}
		require.NoError(ct, env.Client.Get(ctx, client.ObjectKeyFromObject(pod), got))
		assert.Empty(ct, got.Spec.NodeName, "bound to a spot node")
		c := podCondition(got, corev1.PodScheduled)
		if assert.NotNil(ct, c, "not looked at by the scheduler yet") {
			msg = c.Message
			assert.Equal(ct, corev1.PodReasonUnschedulable, c.Reason)
			assert.Contains(ct, c.Message, "node(s) had untolerated taint(s)", "the scheduler's reason")
		}
		ok := &corev1.Pod{}
		require.NoError(ct, env.Client.Get(ctx, client.ObjectKeyFromObject(tolerated), ok))
		node = ok.Spec.NodeName
		assert.True(ct, strings.HasPrefix(node, "aks-"+pool.Name+"-"), "the tolerating pod is bound to %q", node)
	}, placementTimeout, scenarioPoll)
	t.Logf("pod selecting spot pool %s without the spot toleration: Unschedulable: %s; with it: bound to %s", pool.Name, msg, node)
}

// deleteJobsAndWait deletes the placements' Jobs and waits until their pods and Kueue
// Workloads are gone (quota released).
func deleteJobsAndWait(ctx context.Context, t *testing.T, env *Env, ps []placement) {
	t.Helper()
	for _, p := range ps {
		err := env.Client.Delete(ctx, p.job.DeepCopy(), client.PropagationPolicy(metav1.DeletePropagationForeground))
		require.NoError(t, client.IgnoreNotFound(err))
	}
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		for _, p := range ps {
			err := env.Client.Get(ctx, client.ObjectKeyFromObject(p.job), &batchv1.Job{})
			assert.True(ct, apierrors.IsNotFound(err), "Job %s still exists", p.job.GetName())
			pods := &corev1.PodList{}
			require.NoError(ct, env.Client.List(ctx, pods, client.InNamespace(p.job.GetNamespace()), client.MatchingLabels{batchv1.JobNameLabel: p.job.GetName()}))
			assert.Empty(ct, pods.Items, "pods of %s", p.job.GetName())
			wls := &kueue.WorkloadList{}
			require.NoError(ct, env.Client.List(ctx, wls, client.InNamespace(p.job.GetNamespace())))
			for _, wl := range wls.Items {
				for _, ref := range wl.OwnerReferences {
					assert.NotEqual(ct, p.job.GetName(), ref.Name, "Workload %s of %s", wl.Name, p.job.GetName())
				}
			}
		}
	}, placementTimeout, scenarioPoll)
}

// deleteNodes deletes the simulated nodes and waits until they are gone.
func deleteNodes(t *testing.T, env *Env) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, env.DeleteNodes(ctx))
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		nodes := &corev1.NodeList{}
		require.NoError(ct, env.Client.List(ctx, nodes))
		assert.Empty(ct, nodes.Items)
	}, time.Minute, scenarioPoll)
}

func formatTaints(taints []corev1.Taint) []string {
	out := make([]string, len(taints))
	for i, t := range taints {
		out[i] = t.ToString()
	}
	return out
}

func formatResources(l corev1.ResourceList) string {
	var parts []string
	for k, v := range l {
		parts = append(parts, string(k)+"="+v.String())
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}
