package cluster

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/aksml/aksml/stacks"
)

// spotEvictionStack is the stack whose example CheckpointedJob on a spot pool is evicted.
const spotEvictionStack = "local"

// RemediatorTaintKey is the taint AKS node auto-drain puts on a node it cordons on a
// scheduled event ("Node auto-drain", https://learn.microsoft.com/en-us/azure/aks/node-auto-drain).
// The page names only the key; NoSchedule is what cordoning means.
const RemediatorTaintKey = "remediator.kubernetes.azure.com/unschedulable"

// requireSpotEviction evicts a spot node the way AKS does while the stack's example
// CheckpointedJob on a spot pool runs on it, and asserts the checkpoint/spot story end to end:
//
//  1. node auto-drain (on the VM's Preempt scheduled event) cordons the node with the
//     remediator taint and evicts its pods through the Eviction API; the running pod is
//     marked for deletion with the grace period the workload asked for
//     (terminationGracePeriodSeconds) and gets the DisruptionTarget condition;
//  2. the pod ends Failed (its container exits on SIGTERM) and the Job's podFailurePolicy
//     ignores it: status.failed stays 0, so backoffLimit is not used up, and the Job
//     controller creates a replacement pod;
//  3. Kueue keeps the Workload admitted with the same ClusterQueue and flavor (the Job
//     stays unsuspended, so no re-queue is needed) and the replacement is bound to another
//     node of the same spot pool, mounting the same checkpoint claim, whose PersistentVolume
//     is unchanged (same UID and resourceVersion, still Bound to the claim);
//  4. the VM is gone (the Node object is deleted): the pod garbage collector removes the
//     pods left bound to it (DaemonSet pods, which a drain does not evict).
func requireSpotEviction(ctx context.Context, t *testing.T, env *Env, cfg *stacks.Config, examples []stackObject, pools map[string]NodePool) {
	t.Helper()
	start := time.Now()
	obj := spotCheckpointedJob(t, cfg, examples, pools)
	pool := pools[exampleSpec(t, cfg, obj.obj.GetName()).Pool]
	p := placement{job: obj.obj.DeepCopy(), pool: pool.Name}
	require.NoError(t, env.Apply(ctx, p.job.DeepCopy()), "submit %s", obj)
	defer deleteJobsAndWait(ctx, t, env, []placement{p})
	requirePlaced(ctx, t, env, p, pools)

	job := &batchv1.Job{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(p.job), job))
	before := jobPods(ctx, t, env, job)
	require.Len(t, before, 1)
	victim := before[0]
	claims := podClaims(&victim)
	require.NotEmpty(t, claims, "the CheckpointedJob mounts no claim")
	pvs := boundVolumes(ctx, t, env, victim.Namespace, claims)
	admission := admissionOf(ctx, t, env, job)
	grace := ptr.Deref(victim.Spec.TerminationGracePeriodSeconds, -1)
	wantGrace := ptr.Deref(job.Spec.Template.Spec.TerminationGracePeriodSeconds, -2)
	require.Equal(t, wantGrace, grace, "the pod's grace period is the Job template's")

	cs, err := kubernetes.NewForConfig(env.Config)
	require.NoError(t, err)
	w, err := cs.CoreV1().Pods(victim.Namespace).Watch(ctx, metav1.ListOptions{
		FieldSelector:   fields.OneTermEqualSelector("metadata.name", victim.Name).String(),
		ResourceVersion: victim.ResourceVersion,
	})
	require.NoError(t, err)
	defer w.Stop()

	// 1. Node auto-drain: cordon, then evict every pod but the DaemonSets' (as a drain does).
	nodeName := victim.Spec.NodeName
	node := &corev1.Node{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: nodeName}, node))
	cordoned := node.DeepCopy()
	cordoned.Spec.Unschedulable = true
	cordoned.Spec.Taints = append(cordoned.Spec.Taints, corev1.Taint{Key: RemediatorTaintKey, Effect: corev1.TaintEffectNoSchedule})
	require.NoError(t, env.Client.Patch(ctx, cordoned, client.MergeFrom(node)), "cordon %s", nodeName)
	onNode := podsOnNode(ctx, t, env, nodeName)
	var evicted, daemons int
	for i := range onNode {
		pod := &onNode[i]
		if isDaemonSetPod(pod) {
			daemons++
			continue
		}
		// No DeleteOptions: the pod's own terminationGracePeriodSeconds applies, as in a drain.
		require.NoError(t, env.Client.SubResource("eviction").Create(ctx, pod, &policyv1.Eviction{}), "evict %s/%s", pod.Namespace, pod.Name)
		evicted++
	}
	require.Positive(t, evicted)
	t.Logf("%s: node %s cordoned (%s) and drained: %d pod(s) evicted through the Eviction API, %d DaemonSet pod(s) left", spotEvictionStack, nodeName, RemediatorTaintKey, evicted, daemons)

	// What the evicted pod went through, from the watch: marked for deletion with the
	// workload's grace period and the DisruptionTarget condition, then Failed, then gone.
	var marked, failed *corev1.Pod
	deadline := time.After(placementTimeout)
	for failed == nil || marked == nil {
		select {
		case ev, ok := <-w.ResultChan():
			require.True(t, ok, "watch of %s ended", victim.Name)
			pod, isPod := ev.Object.(*corev1.Pod)
			if !isPod {
				continue
			}
			if marked == nil && pod.DeletionTimestamp != nil {
				marked = pod.DeepCopy()
			}
			if failed == nil && pod.Status.Phase == corev1.PodFailed {
				failed = pod.DeepCopy()
			}
			if ev.Type == watch.Deleted {
				require.NotNil(t, failed, "pod %s deleted without turning Failed", victim.Name)
			}
		case <-deadline:
			require.FailNow(t, "evicted pod not terminated", "pod %s: marked %v, failed %v", victim.Name, marked != nil, failed != nil)
		}
	}
	assert.Equal(t, wantGrace, ptr.Deref(marked.DeletionGracePeriodSeconds, -1), "the eviction carries the workload's terminationGracePeriodSeconds")
	assert.WithinDuration(t, time.Now().Add(time.Duration(wantGrace)*time.Second), marked.DeletionTimestamp.Time, 30*time.Second, "SIGKILL due after the grace period")
	disruption := podCondition(failed, corev1.DisruptionTarget)
	require.NotNil(t, disruption, "the failed pod has no DisruptionTarget condition")
	assert.Equal(t, corev1.ConditionTrue, disruption.Status)
	assert.Equal(t, "EvictionByEvictionAPI", disruption.Reason)
	t.Logf("%s: pod %s marked for deletion with grace period %d s (terminationGracePeriodSeconds %d), condition %s=%s (%s), then Failed", spotEvictionStack, victim.Name, ptr.Deref(marked.DeletionGracePeriodSeconds, -1), grace, disruption.Type, disruption.Status, disruption.Reason)

	// 2 and 3. podFailurePolicy Ignore: no failure counted, a replacement on another spot node.
	var replacement corev1.Pod
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		got := &batchv1.Job{}
		require.NoError(ct, env.Client.Get(ctx, client.ObjectKeyFromObject(job), got))
		assert.Zero(ct, got.Status.Failed, "Job %s counted the evicted pod as failed", job.Name)
		assert.False(ct, finished(got), "Job %s finished: %v", job.Name, got.Status.Conditions)
		pods := jobPods(ctx, t, env, job)
		if !assert.Len(ct, pods, 1, "pods of %s", job.Name) {
			return
		}
		replacement = pods[0]
		assert.NotEqual(ct, victim.UID, replacement.UID, "no replacement yet")
		assert.Equal(ct, corev1.PodRunning, replacement.Status.Phase, "replacement %s on %q: %s", replacement.Name, replacement.Spec.NodeName, conditionMessage(&replacement))
	}, placementTimeout, scenarioPoll, "kube-controller-manager log:\n%s", env.LogTail("kube-controller-manager.log", 20))
	got := &batchv1.Job{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(job), got))
	assert.Zero(t, got.Status.Failed)
	assert.Equal(t, ptr.Deref(job.Spec.BackoffLimit, 6), ptr.Deref(got.Spec.BackoffLimit, 6))
	replacementPool, err := nodePoolOf(ctx, env, &replacement)
	require.NoError(t, err)
	assert.Equal(t, pool.Name, replacementPool, "replacement %s on node %s", replacement.Name, replacement.Spec.NodeName)
	assert.NotEqual(t, nodeName, replacement.Spec.NodeName, "replacement bound to the cordoned node")
	assert.Equal(t, claims, podClaims(&replacement), "the replacement mounts the same checkpoint claim")
	assert.Equal(t, admission, admissionOf(ctx, t, env, job), "Kueue kept the Workload's admission")
	t.Logf("%s: Job %s: status.failed %d (backoffLimit %d untouched), replacement %s Running on %s (pool %s) with claim(s) %v; Workload still admitted to %s",
		spotEvictionStack, job.Name, got.Status.Failed, ptr.Deref(got.Spec.BackoffLimit, 6), replacement.Name, replacement.Spec.NodeName, replacementPool, claims, admission)

	// 4. The VM is gone: its Node object goes, the pod garbage collector removes what was left.
	require.NoError(t, env.Client.Delete(ctx, node), "delete node %s", nodeName)
	gone := time.Now()
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		left := podsOnNode(ctx, t, env, nodeName)
		assert.Empty(ct, left, "pods still bound to deleted node %s", nodeName)
	}, 2*time.Minute, time.Second, "kube-controller-manager log:\n%s", env.LogTail("kube-controller-manager.log", 20))
	t.Logf("%s: node %s deleted; the pod garbage collector removed its %d remaining pod(s) after %s", spotEvictionStack, nodeName, daemons, time.Since(gone).Round(time.Second))
	assert.Equal(t, pvs, boundVolumes(ctx, t, env, victim.Namespace, claims), "the checkpoint volume changed")
	t.Logf("%s: spot eviction scenario took %s", spotEvictionStack, time.Since(start).Round(time.Millisecond))
}

// spotCheckpointedJob returns the example CheckpointedJob of cfg that runs on a spot pool.
func spotCheckpointedJob(t *testing.T, cfg *stacks.Config, examples []stackObject, pools map[string]NodePool) stackObject {
	t.Helper()
	for _, o := range examples {
		if o.obj.GetKind() != "Job" {
			continue
		}
		spec := exampleSpec(t, cfg, o.obj.GetName())
		if spec.Kind == stacks.KindCheckpointedJob && pools[spec.Pool].Spot {
			return o
		}
	}
	require.FailNow(t, "no example CheckpointedJob on a spot pool", "stack %s", spotEvictionStack)
	return stackObject{}
}

func exampleSpec(t *testing.T, cfg *stacks.Config, name string) stacks.WorkloadSpec {
	t.Helper()
	for _, w := range cfg.Workloads {
		if w.Name == name {
			return w
		}
	}
	require.FailNow(t, "example workload not in the config", name)
	return stacks.WorkloadSpec{}
}

func jobPods(ctx context.Context, t *testing.T, env *Env, job *batchv1.Job) []corev1.Pod {
	t.Helper()
	list := &corev1.PodList{}
	require.NoError(t, env.Client.List(ctx, list, client.InNamespace(job.Namespace), client.MatchingLabels{batchv1.JobNameLabel: job.Name}))
	return list.Items
}

func podsOnNode(ctx context.Context, t *testing.T, env *Env, node string) []corev1.Pod {
	t.Helper()
	list := &corev1.PodList{}
	require.NoError(t, env.Client.List(ctx, list, client.MatchingFields{"spec.nodeName": node}))
	return list.Items
}

func isDaemonSetPod(pod *corev1.Pod) bool {
	ref := metav1.GetControllerOf(pod)
	return ref != nil && ref.Kind == "DaemonSet"
}

// podClaims lists the PersistentVolumeClaims a pod mounts, sorted.
func podClaims(pod *corev1.Pod) []string {
	var out []string
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			out = append(out, v.PersistentVolumeClaim.ClaimName)
		}
	}
	sort.Strings(out)
	return out
}

// boundVolumes describes the PersistentVolume bound to each claim: name, UID,
// resourceVersion, phase and claimRef, so that any change to it shows.
func boundVolumes(ctx context.Context, t *testing.T, env *Env, namespace string, claims []string) []string {
	t.Helper()
	var out []string
	for _, c := range claims {
		pvc := &corev1.PersistentVolumeClaim{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: c}, pvc))
		require.Equal(t, corev1.ClaimBound, pvc.Status.Phase, "claim %s", c)
		pv := &corev1.PersistentVolume{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: pvc.Spec.VolumeName}, pv))
		ref := ""
		if pv.Spec.ClaimRef != nil {
			ref = pv.Spec.ClaimRef.Namespace + "/" + pv.Spec.ClaimRef.Name + "/" + string(pv.Spec.ClaimRef.UID)
		}
		out = append(out, fmt.Sprintf("%s uid=%s rv=%s phase=%s claim=%s", pv.Name, pv.UID, pv.ResourceVersion, pv.Status.Phase, ref))
	}
	return out
}

// admissionOf describes the Kueue admission of a Job's Workload (its UID, ClusterQueue
// and flavors), failing if the Workload is not admitted or was evicted.
func admissionOf(ctx context.Context, t *testing.T, env *Env, job *batchv1.Job) string {
	t.Helper()
	var out string
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		wl := workloadFor(ctx, ct, env.Client, job)
		if !assert.NotNil(ct, wl, "no Workload for %s", job.Name) {
			return
		}
		assert.True(ct, apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadAdmitted), "Workload %s not admitted", wl.Name)
		assert.False(ct, apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadEvicted), "Workload %s evicted", wl.Name)
		if !assert.NotNil(ct, wl.Status.Admission) {
			return
		}
		var flavors []string
		for _, ps := range wl.Status.Admission.PodSetAssignments {
			for res, f := range ps.Flavors {
				flavors = append(flavors, string(res)+"="+string(f))
			}
		}
		sort.Strings(flavors)
		out = fmt.Sprintf("Workload %s (uid %s) in ClusterQueue %s, flavors %v", wl.Name, wl.UID, wl.Status.Admission.ClusterQueue, flavors)
	}, placementTimeout, scenarioPoll)
	return out
}

func finished(job *batchv1.Job) bool {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}
