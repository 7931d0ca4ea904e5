package cluster

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/workloads"
	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/stacks"
)

// Timing of the Kueue scenarios: Kueue and the Job controller react within a second.
const (
	scenarioTimeout = 30 * time.Second
	scenarioPoll    = 100 * time.Millisecond
)

// The Kueue scenarios run on the dev stack (Pulumi.dev.yaml).
const (
	scenarioStack = "dev"
	teamA         = "team-a"
	teamB         = "team-b"
	poolT4        = "t4"
	poolT4Spot    = "t4spot"
	poolA100MIG   = "a100mig"
)

// scenarioQuotas are the quotas of Pulumi.dev.yaml the scenarios are written for: the
// nominal GPU quota of a team on a pool and the team's borrowing limit.
var scenarioQuotas = []struct {
	team, pool              string
	nominal, borrowingLimit int
}{
	{teamA, poolT4, 1, 1},
	{teamB, poolT4, 1, 1},
	{teamA, poolA100MIG, 4, 1},
	{teamB, poolA100MIG, 3, 1},
}

// scenarioJob is a Job of the Kueue scenarios, built by an aksml workload component.
type scenarioJob struct {
	name, team, pool string
	// priorityClass is the pod and workload priority class; "" is the component default
	// (training-batch).
	priorityClass string
	// migDevices > 0 builds a MIGTrial requesting that many MIG instances; otherwise a
	// CheckpointedJob with one GPU.
	migDevices int
	// withoutSpotToleration removes the spot toleration the component gives a Job on a
	// spot pool: a Job that targets spot capacity without tolerating spot nodes.
	withoutSpotToleration bool
}

// scenarioJobs are every Job the scenarios submit.
var scenarioJobs = []scenarioJob{
	{name: "quota-1", team: teamA, pool: poolT4},
	{name: "quota-2", team: teamA, pool: poolT4},
	{name: "quota-3", team: teamA, pool: poolT4},
	{name: "mig-6", team: teamA, pool: poolA100MIG, migDevices: 6},
	{name: "mig-5", team: teamA, pool: poolA100MIG, migDevices: 5},
	{name: "team-b-batch", team: teamB, pool: poolT4},
	{name: "team-a-batch", team: teamA, pool: poolT4},
	{name: "team-a-critical", team: teamA, pool: poolT4, priorityClass: queues.PriorityClassInferenceCritical},
	{name: "spot-no-toleration", team: teamA, pool: poolT4Spot, withoutSpotToleration: true},
	{name: "spot", team: teamA, pool: poolT4Spot},
}

// kueueFixture is the dev stack's queueing set-up on the shared environment, with the
// scenario Jobs as the components build them.
type kueueFixture struct {
	env *Env
	ctx context.Context
	cfg *stacks.Config
	// clusterQueues are the dev stack's ClusterQueue names, by team.
	clusterQueues map[string]string
	jobs          map[string]*unstructured.Unstructured
}

// TestKueueBehaviour runs the real Kueue controllers and scheduler against the dev
// stack's queues, flavors, cohort and priority classes, as the stack creates them, with
// Jobs built by the CheckpointedJob and MIGTrial components, and asserts on the status
// Kueue and Kubernetes report: admission within quota, pending over quota, borrowing up
// to the borrowing limit, preemption by priority, spot flavors only for Jobs that
// tolerate spot, and Pods placed by the assigned flavor.
func TestKueueBehaviour(t *testing.T) {
	f := newKueueFixture(t)

	t.Run("within quota is admitted", func(t *testing.T) {
		f.reset(t)
		job := f.submit(t, "quota-1")
		wl := f.waitAdmitted(t, job)
		assert.Equal(t, kueue.ResourceFlavorReference(queues.FlavorName(poolT4)), gpuFlavor(wl), "GPU flavor")
		t.Logf("%s/%s: Admitted by %s with flavors %s; Job unsuspended", job.Namespace, job.Name, wl.Status.Admission.ClusterQueue, formatFlavors(wl))

		t.Run("pods carry the flavor's placement", func(t *testing.T) {
			f.checkPods(t, job, wl, poolT4)
		})

		t.Run("borrowing from the idle team", func(t *testing.T) {
			idle := &kueue.ClusterQueue{}
			require.NoError(t, f.env.Client.Get(f.ctx, client.ObjectKey{Name: f.clusterQueues[teamB]}, idle))
			require.Zero(t, idle.Status.ReservingWorkloads, "%s must be idle", teamB)
			second := f.submit(t, "quota-2")
			wl := f.waitAdmitted(t, second)
			assert.Equal(t, kueue.ResourceFlavorReference(queues.FlavorName(poolT4)), gpuFlavor(wl), "GPU flavor")
			total, borrowed := f.waitUsage(t, teamA, poolT4, gpupool.GPUResource, 2, 1)
			t.Logf("%s/%s: Admitted while %s is idle; %s usage of %s on %s: total %s, borrowed %s (nominal 1, borrowingLimit 1)",
				second.Namespace, second.Name, teamB, f.clusterQueues[teamA], gpupool.GPUResource, queues.FlavorName(poolT4), total.String(), borrowed.String())
		})

		t.Run("over quota stays pending", func(t *testing.T) {
			third := f.submit(t, "quota-3")
			// Kueue says "insufficient unused quota" when the request is within the
			// team's capacity but that capacity is in use, and "insufficient quota"
			// when the request exceeds the capacity.
			cond := f.waitPending(t, third, `insufficient (unused )?quota for `+regexp.QuoteMeta(gpupool.GPUResource+" in flavor "+queues.FlavorName(poolT4)))
			t.Logf("%s/%s: QuotaReserved=%s reason %s: %s; Job stays suspended", third.Namespace, third.Name, cond.Status, cond.Reason, cond.Message)
		})
	})

	t.Run("borrowing stops at the borrowing limit", func(t *testing.T) {
		f.reset(t)
		// team-a may use 4 + 1 borrowed MIG instances; the cohort holds 4 + 3 = 7, idle.
		// 6 instances exceed team-a's capacity (nominal plus borrowing limit), not the
		// cohort's.
		over := f.submit(t, "mig-6")
		mig := corev1.ResourceName(f.pool(t, poolA100MIG).MIGResourceName())
		cond := f.waitPending(t, over, regexp.QuoteMeta(fmt.Sprintf("insufficient quota for %s in flavor %s", mig, queues.FlavorName(poolA100MIG)))+
			`.*`+regexp.QuoteMeta("maximum capacity (5)"))
		t.Logf("%s/%s (6 MIG instances, the cohort has 7 idle): QuotaReserved=%s: %s", over.Namespace, over.Name, cond.Status, cond.Message)

		within := f.submit(t, "mig-5")
		wl := f.waitAdmitted(t, within)
		total, borrowed := f.waitUsage(t, teamA, poolA100MIG, mig, 5, 1)
		t.Logf("%s/%s (5 MIG instances): Admitted with flavors %s; usage total %s, borrowed %s; mig-6 still pending", within.Namespace, within.Name, formatFlavors(wl), total.String(), borrowed.String())
		f.assertStillPending(t, over)

		t.Run("pods carry the flavor's placement", func(t *testing.T) {
			f.checkPods(t, within, wl, poolA100MIG)
		})
	})

	t.Run("higher priority preempts lower", func(t *testing.T) {
		f.reset(t)
		// team-b uses its own t4 quota (1), so team-a can borrow nothing and its batch
		// Job fills all the t4 capacity team-a can get (its nominal 1).
		other := f.submit(t, "team-b-batch")
		f.waitAdmitted(t, other)
		batch := f.submit(t, "team-a-batch")
		batchWL := f.waitAdmitted(t, batch)
		critical := f.submit(t, "team-a-critical")

		wl := f.waitAdmitted(t, critical)
		if assert.NotNil(t, wl.Spec.PriorityClassRef, "priority class of the preemptor") {
			assert.Equal(t, kueue.WorkloadPriorityClassGroup, wl.Spec.PriorityClassRef.Group)
			assert.Equal(t, queues.PriorityClassInferenceCritical, wl.Spec.PriorityClassRef.Name)
		}
		var evicted, preempted *metav1.Condition
		require.EventuallyWithT(t, func(ct *assert.CollectT) {
			w := f.workload(ct, batch)
			if !assert.NotNil(ct, w, "no Workload for %s", batch.Name) {
				return
			}
			evicted = apimeta.FindStatusCondition(w.Status.Conditions, kueue.WorkloadEvicted)
			preempted = apimeta.FindStatusCondition(w.Status.Conditions, kueue.WorkloadPreempted)
			if assert.NotNil(ct, evicted, "batch workload not evicted: %v", w.Status.Conditions) {
				assert.Equal(ct, kueue.WorkloadEvictedByPreemption, evicted.Reason)
			}
			if assert.NotNil(ct, preempted, "batch workload has no Preempted condition: %v", w.Status.Conditions) {
				assert.Equal(ct, metav1.ConditionTrue, preempted.Status)
			}
			job := &batchv1.Job{}
			require.NoError(ct, f.env.Client.Get(f.ctx, client.ObjectKeyFromObject(batch), job))
			assert.True(ct, ptr.Deref(job.Spec.Suspend, false), "preempted Job must be suspended again")
		}, scenarioTimeout, scenarioPoll, "kueue log:\n%s", f.env.LogTail("kueue.log", 30))
		t.Logf("%s/%s (%s): Evicted reason %s: %s; Preempted reason %s; Job suspended again",
			batch.Namespace, batch.Name, formatPriority(batchWL), evicted.Reason, evicted.Message, preempted.Reason)
		t.Logf("%s/%s (%s): Admitted with flavors %s; %s/%s untouched",
			critical.Namespace, critical.Name, formatPriority(wl), formatFlavors(wl), other.Namespace, other.Name)
		otherWL := f.admittedWorkload(t, other)
		assert.Nil(t, apimeta.FindStatusCondition(otherWL.Status.Conditions, kueue.WorkloadEvicted), "team-b's Job is within its nominal quota and must not be preempted")
	})

	t.Run("spot flavor only for spot-tolerating jobs", func(t *testing.T) {
		f.reset(t)
		untolerated := f.submit(t, "spot-no-toleration")
		spotFlavor := queues.FlavorName(poolT4Spot)
		cond := f.waitPending(t, untolerated, `untolerated taint \{`+regexp.QuoteMeta(gpupool.SpotTaintKey)+` .* in flavor `+regexp.QuoteMeta(spotFlavor))
		t.Logf("%s/%s (t4spot selector, no spot toleration): QuotaReserved=%s: %s", untolerated.Namespace, untolerated.Name, cond.Status, cond.Message)

		spot := f.submit(t, "spot")
		wl := f.waitAdmitted(t, spot)
		assert.Equal(t, kueue.ResourceFlavorReference(spotFlavor), gpuFlavor(wl), "GPU flavor")
		t.Logf("%s/%s (as built, tolerates spot): Admitted with flavors %s", spot.Namespace, spot.Name, formatFlavors(wl))
		f.assertStillPending(t, untolerated)

		t.Run("pods carry the flavor's placement", func(t *testing.T) {
			f.checkPods(t, spot, wl, poolT4Spot)
		})
	})
}

// newKueueFixture applies the dev stack's objects other than its example workloads
// (namespaces, priority classes, flavors, cohort, ClusterQueues, LocalQueues, quotas,
// storage, ...) in dependency order, removes other stacks' ClusterQueues from the dev
// cohort, waits until the dev ClusterQueues are active and builds the scenario Jobs.
func newKueueFixture(t *testing.T) *kueueFixture {
	t.Helper()
	env := testEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)

	root, err := RepoRoot()
	require.NoError(t, err)
	raw, err := synth.ReadStackConfig(root, scenarioStack)
	require.NoError(t, err)
	cfg, err := stacks.Parse(scenarioStack, raw)
	require.NoError(t, err)
	requireScenarioQuotas(t, cfg)

	s := desiredState(t, scenarioStack)
	objs, _, err := stackObjects(s)
	require.NoError(t, err)
	objs, err = applyOrder(s, objs, env.Client.RESTMapper())
	require.NoError(t, err)
	f := &kueueFixture{env: env, ctx: ctx, cfg: cfg, clusterQueues: map[string]string{}}
	cohort := ""
	for _, o := range objs {
		if isExampleWorkload(o) {
			continue
		}
		require.NoError(t, env.Apply(ctx, o.obj.DeepCopy()), "apply %s", o)
		switch o.obj.GetKind() {
		case "ClusterQueue":
			f.clusterQueues[o.obj.GetLabels()[queues.TeamLabel]] = o.obj.GetName()
		case "Cohort":
			cohort = o.obj.GetName()
		}
	}
	require.Contains(t, f.clusterQueues, teamA)
	require.Contains(t, f.clusterQueues, teamB)
	require.NotEmpty(t, cohort, "the dev stack has no Cohort")
	f.isolateCohort(t, cohort)

	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		for _, name := range f.clusterQueues {
			cq := &kueue.ClusterQueue{}
			require.NoError(ct, env.Client.Get(ctx, client.ObjectKey{Name: name}, cq))
			assert.True(ct, apimeta.IsStatusConditionTrue(cq.Status.Conditions, kueue.ClusterQueueActive), "ClusterQueue %s not active: %v", name, cq.Status.Conditions)
		}
	}, scenarioTimeout, scenarioPoll)

	f.jobs = buildScenarioJobs(t, cfg)
	t.Cleanup(func() { f.deleteJobs(t) })
	return f
}

// isolateCohort deletes the ClusterQueues of the cohort that are not the dev stack's (from
// another stack applied to the same environment), so that only dev's teams share quota.
func (f *kueueFixture) isolateCohort(t *testing.T, cohort string) {
	t.Helper()
	ours := map[string]bool{}
	for _, name := range f.clusterQueues {
		ours[name] = true
	}
	cqs := &kueue.ClusterQueueList{}
	require.NoError(t, f.env.Client.List(f.ctx, cqs))
	for i := range cqs.Items {
		cq := &cqs.Items[i]
		if string(cq.Spec.CohortName) == cohort && !ours[cq.Name] {
			require.NoError(t, client.IgnoreNotFound(f.env.Client.Delete(f.ctx, cq)))
			t.Logf("removed ClusterQueue %s of another stack from cohort %s", cq.Name, cohort)
			require.EventuallyWithT(t, func(ct *assert.CollectT) {
				err := f.env.Client.Get(f.ctx, client.ObjectKeyFromObject(cq), &kueue.ClusterQueue{})
				assert.True(ct, apierrors.IsNotFound(err), "ClusterQueue %s still exists (err=%v)", cq.Name, err)
			}, scenarioTimeout, scenarioPoll)
		}
	}
}

// buildScenarioJobs builds the scenario Jobs with the workload components under mocks,
// with the dev stack's pools and the settings the stack gives workloads (team namespace,
// Kueue LocalQueue), and returns each registered Job object by name.
func buildScenarioJobs(t *testing.T, cfg *stacks.Config) map[string]*unstructured.Unstructured {
	t.Helper()
	pools := resolvedPools(t, cfg)
	program := func(ctx *pulumi.Context) (map[string]pulumi.Input, error) {
		for _, j := range scenarioJobs {
			pool, ok := pools[j.pool]
			if !ok {
				return nil, fmt.Errorf("the dev stack has no GPU pool %q", j.pool)
			}
			common := queuedJob(j.team)
			common.PriorityClass = j.priorityClass
			var err error
			if j.migDevices > 0 {
				_, err = workloads.NewMIGTrial(ctx, j.name, &workloads.MIGTrialArgs{Common: common, Pool: pool, MIGDevices: j.migDevices})
			} else {
				common.Resources = workloads.Resources{CPU: "3", Memory: "16Gi", GPUs: 1}
				_, err = workloads.NewCheckpointedJob(ctx, j.name, &workloads.CheckpointedJobArgs{Common: common, Pool: pool})
			}
			if err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	s, err := synth.Run(scenarioStack, scenarioStack, map[string]string{}, program)
	require.NoError(t, err)

	jobs := map[string]*unstructured.Unstructured{}
	for _, r := range s.Resources {
		if r.Type != "kubernetes:batch/v1:Job" {
			continue
		}
		obj, err := toObject(r)
		require.NoError(t, err, r.URN)
		jobs[obj.GetName()] = obj
	}
	for _, j := range scenarioJobs {
		obj, ok := jobs[j.name]
		require.True(t, ok, "no Job %s registered", j.name)
		if j.withoutSpotToleration {
			removeToleration(t, obj, gpupool.SpotTaintKey)
		}
	}
	return jobs
}

// removeToleration removes the pod template's tolerations of the taint key.
func removeToleration(t *testing.T, job *unstructured.Unstructured, key string) {
	t.Helper()
	path := []string{"spec", "template", "spec", "tolerations"}
	tolerations, found, err := unstructured.NestedSlice(job.Object, path...)
	require.NoError(t, err)
	require.True(t, found, "Job %s has no tolerations", job.GetName())
	var kept []any
	for _, tol := range tolerations {
		if m, ok := tol.(map[string]any); ok && m["key"] == key {
			continue
		}
		kept = append(kept, tol)
	}
	require.Less(t, len(kept), len(tolerations), "Job %s does not tolerate %s", job.GetName(), key)
	require.NoError(t, unstructured.SetNestedSlice(job.Object, kept, path...))
}

// requireScenarioQuotas fails unless the dev stack has the quotas the scenarios are
// written for (scenarioQuotas).
func requireScenarioQuotas(t *testing.T, cfg *stacks.Config) {
	t.Helper()
	teams := map[string]queues.Team{}
	for _, team := range cfg.Teams {
		teams[team.Name] = team.Team
	}
	for _, q := range scenarioQuotas {
		team, ok := teams[q.team]
		require.True(t, ok, "the Kueue scenarios need team %s in Pulumi.%s.yaml", q.team, scenarioStack)
		require.Equal(t, q.nominal, team.GPUQuota[q.pool], "the Kueue scenarios are written for %s's %s quota in Pulumi.%s.yaml", q.team, q.pool, scenarioStack)
		require.Equal(t, q.borrowingLimit, ptr.Deref(team.BorrowingLimit, -1), "the Kueue scenarios are written for %s's borrowingLimit in Pulumi.%s.yaml", q.team, scenarioStack)
	}
}

// pool returns the dev stack's GPU pool.
func (f *kueueFixture) pool(t *testing.T, name string) gpupool.Spec {
	t.Helper()
	for _, p := range f.cfg.GPUPools {
		if p.Name == name {
			return p
		}
	}
	require.FailNow(t, "no GPU pool "+name+" in the dev stack")
	return gpupool.Spec{}
}

// submit server-side applies the named scenario Job and returns it as stored.
func (f *kueueFixture) submit(t *testing.T, name string) *batchv1.Job {
	t.Helper()
	obj, ok := f.jobs[name]
	require.True(t, ok, "no scenario Job %s", name)
	require.NoError(t, f.env.Apply(f.ctx, obj.DeepCopy()), "submit Job %s", name)
	job := &batchv1.Job{}
	require.NoError(t, f.env.Client.Get(f.ctx, client.ObjectKeyFromObject(obj), job))
	return job
}

// workload returns the Workload Kueue created for job, or nil.
func (f *kueueFixture) workload(ct *assert.CollectT, job *batchv1.Job) *kueue.Workload {
	return workloadFor(f.ctx, ct, f.env.Client, job)
}

// waitAdmitted waits until job's Workload is Admitted and the Job unsuspended.
func (f *kueueFixture) waitAdmitted(t *testing.T, job *batchv1.Job) *kueue.Workload {
	t.Helper()
	var wl *kueue.Workload
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		wl = f.workload(ct, job)
		if !assert.NotNil(ct, wl, "no Workload for Job %s yet", job.Name) {
			return
		}
		assert.True(ct, apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadAdmitted), "Job %s not admitted: %v", job.Name, wl.Status.Conditions)
		assert.NotNil(ct, wl.Status.Admission, "Job %s has no admission", job.Name)
		current := &batchv1.Job{}
		require.NoError(ct, f.env.Client.Get(f.ctx, client.ObjectKeyFromObject(job), current))
		assert.False(ct, ptr.Deref(current.Spec.Suspend, true), "Job %s still suspended", job.Name)
	}, scenarioTimeout, scenarioPoll, "kueue log:\n%s", f.env.LogTail("kueue.log", 30))
	return wl
}

// admittedWorkload returns job's Workload, which must be admitted now.
func (f *kueueFixture) admittedWorkload(t *testing.T, job *batchv1.Job) *kueue.Workload {
	t.Helper()
	ct := &assert.CollectT{}
	wl := f.workload(ct, job)
	require.NotNil(t, wl, "no Workload for Job %s", job.Name)
	require.True(t, apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadAdmitted), "Job %s not admitted: %v", job.Name, wl.Status.Conditions)
	return wl
}

// waitPending waits until job's Workload has the condition QuotaReserved=False with a
// message matching the regular expression reason, and returns the condition; the Job
// must still be suspended.
func (f *kueueFixture) waitPending(t *testing.T, job *batchv1.Job, reason string) *metav1.Condition {
	t.Helper()
	var cond *metav1.Condition
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		wl := f.workload(ct, job)
		if !assert.NotNil(ct, wl, "no Workload for Job %s yet", job.Name) {
			return
		}
		cond = apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved)
		if assert.NotNil(ct, cond, "Job %s: no QuotaReserved condition yet", job.Name) {
			assert.Equal(ct, metav1.ConditionFalse, cond.Status)
			assert.Regexp(ct, reason, cond.Message)
		}
	}, scenarioTimeout, scenarioPoll, "kueue log:\n%s", f.env.LogTail("kueue.log", 30))
	f.assertStillPending(t, job)
	return cond
}

// assertStillPending asserts that job's Workload holds no quota and the Job is suspended.
func (f *kueueFixture) assertStillPending(t *testing.T, job *batchv1.Job) {
	t.Helper()
	ct := &assert.CollectT{}
	wl := f.workload(ct, job)
	require.NotNil(t, wl, "no Workload for Job %s", job.Name)
	assert.Nil(t, wl.Status.Admission, "Job %s must not be admitted", job.Name)
	assert.False(t, apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadQuotaReserved), "Job %s must not reserve quota", job.Name)
	current := &batchv1.Job{}
	require.NoError(t, f.env.Client.Get(f.ctx, client.ObjectKeyFromObject(job), current))
	assert.True(t, ptr.Deref(current.Spec.Suspend, false), "Job %s must stay suspended", job.Name)
}

// waitUsage waits until the team's ClusterQueue reports the given admitted total and
// borrowed amount of res on the pool's flavor, and returns them.
func (f *kueueFixture) waitUsage(t *testing.T, team, pool string, res corev1.ResourceName, total, borrowed int64) (resource.Quantity, resource.Quantity) {
	t.Helper()
	var gotTotal, gotBorrowed resource.Quantity
	name := f.clusterQueues[team]
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		cq := &kueue.ClusterQueue{}
		require.NoError(ct, f.env.Client.Get(f.ctx, client.ObjectKey{Name: name}, cq))
		gotTotal, gotBorrowed = usage(cq, queues.FlavorName(pool), res)
		assert.Equal(ct, total, gotTotal.Value(), "%s: %s on %s in use", name, res, queues.FlavorName(pool))
		assert.Equal(ct, borrowed, gotBorrowed.Value(), "%s: %s on %s borrowed", name, res, queues.FlavorName(pool))
	}, scenarioTimeout, scenarioPoll)
	return gotTotal, gotBorrowed
}

// usage returns the admitted total and borrowed amount of res on flavor that cq reports.
func usage(cq *kueue.ClusterQueue, flavor string, res corev1.ResourceName) (resource.Quantity, resource.Quantity) {
	for _, fu := range cq.Status.FlavorsUsage {
		if string(fu.Name) != flavor {
			continue
		}
		for _, r := range fu.Resources {
			if r.Name == res {
				return r.Total, r.Borrowed
			}
		}
	}
	return resource.Quantity{}, resource.Quantity{}
}

// checkPods waits for the Pods the Job controller creates for job and asserts that each
// carries the placement of every flavor Kueue assigned (its node labels as node selector,
// its tolerations, tolerating its taints) and that a node of the pool, labelled and
// tainted as the pool spec says, satisfies it. The log names the node selector entries
// Kueue added to what the component built.
func (f *kueueFixture) checkPods(t *testing.T, job *batchv1.Job, wl *kueue.Workload, poolName string) {
	t.Helper()
	require.NotNil(t, wl.Status.Admission)
	require.NotEmpty(t, wl.Status.Admission.PodSetAssignments)
	var flavors []*kueue.ResourceFlavor
	seen := map[kueue.ResourceFlavorReference]bool{}
	for _, name := range wl.Status.Admission.PodSetAssignments[0].Flavors {
		if seen[name] {
			continue
		}
		seen[name] = true
		rf := &kueue.ResourceFlavor{}
		require.NoError(t, f.env.Client.Get(f.ctx, client.ObjectKey{Name: string(name)}, rf))
		flavors = append(flavors, rf)
	}

	var pods []corev1.Pod
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		list := &corev1.PodList{}
		require.NoError(ct, f.env.Client.List(f.ctx, list, client.InNamespace(job.Namespace), client.MatchingLabels{batchv1.JobNameLabel: job.Name}))
		pods = list.Items
		assert.NotEmpty(ct, pods, "the Job controller created no Pod for %s yet", job.Name)
	}, scenarioTimeout, scenarioPoll, "controller-manager log:\n%s", f.env.LogTail("kube-controller-manager.log", 30))

	built, _, err := unstructured.NestedStringMap(f.jobs[job.Name].Object, "spec", "template", "spec", "nodeSelector")
	require.NoError(t, err)
	pool := f.pool(t, poolName)
	nodeLabels := poolNodeLabels(pool)
	var nodeTaints []corev1.Taint
	for _, taint := range pool.Taints() {
		nodeTaints = append(nodeTaints, corev1.Taint{Key: taint.Key, Value: taint.Value, Effect: corev1.TaintEffect(taint.Effect)})
	}
	for _, pod := range pods {
		for _, rf := range flavors {
			for k, v := range rf.Spec.NodeLabels {
				assert.Equal(t, v, pod.Spec.NodeSelector[k], "Pod %s: node selector %s of flavor %s", pod.Name, k, rf.Name)
			}
			for _, tol := range rf.Spec.Tolerations {
				assert.Contains(t, pod.Spec.Tolerations, tol, "Pod %s: toleration of flavor %s", pod.Name, rf.Name)
			}
			for _, taint := range rf.Spec.NodeTaints {
				assert.True(t, tolerates(pod.Spec.Tolerations, taint), "Pod %s does not tolerate taint %s of flavor %s", pod.Name, taint.ToString(), rf.Name)
			}
		}
		assert.True(t, labels.SelectorFromSet(pod.Spec.NodeSelector).Matches(labels.Set(nodeLabels)),
			"Pod %s node selector %v does not match the nodes of pool %s (labels %v)", pod.Name, pod.Spec.NodeSelector, pool.Name, nodeLabels)
		for _, taint := range nodeTaints {
			assert.True(t, tolerates(pod.Spec.Tolerations, taint), "Pod %s does not tolerate taint %s of pool %s", pod.Name, taint.ToString(), pool.Name)
		}
		added := map[string]string{}
		for k, v := range pod.Spec.NodeSelector {
			if _, ok := built[k]; !ok {
				added[k] = v
			}
		}
		t.Logf("Pod %s/%s: nodeSelector %s (added by Kueue from the flavor: %s); tolerations %s; matches pool %s nodes labelled %s, tainted %v",
			pod.Namespace, pod.Name, formatMap(pod.Spec.NodeSelector), formatMap(added), formatTolerations(pod.Spec.Tolerations), pool.Name, formatMap(nodeLabels), pool.TaintStrings())
	}
}

// poolNodeLabels returns the labels a ready node of pool carries: the pool's node
// labels, the pool name AKS adds, and on MIG pools whose layout the MIG manager applies,
// the state it sets once the layout is in place.
func poolNodeLabels(pool gpupool.Spec) map[string]string {
	l := pool.Labels()
	l[gpupool.AgentPoolLabel] = pool.Name
	if _, ok := l[gpupool.MIGConfigLabel]; ok {
		l[gpupool.MIGConfigStateLabel] = workloads.MIGConfigStateSuccess
	}
	return l
}

// tolerates reports whether tolerations tolerate taint.
func tolerates(tolerations []corev1.Toleration, taint corev1.Taint) bool {
	for i := range tolerations {
		if tolerations[i].ToleratesTaint(klog.Background(), &taint, false) {
			return true
		}
	}
	return false
}

// reset deletes every Job in the dev team namespaces and waits until their Workloads and
// Pods are gone and the dev ClusterQueues hold no quota.
func (f *kueueFixture) reset(t *testing.T) {
	t.Helper()
	f.deleteJobs(t)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		for team, cqName := range f.clusterQueues {
			wls := &kueue.WorkloadList{}
			require.NoError(ct, f.env.Client.List(f.ctx, wls, client.InNamespace(team)))
			assert.Empty(ct, wls.Items, "Workloads left in %s", team)
			pods := &corev1.PodList{}
			require.NoError(ct, f.env.Client.List(f.ctx, pods, client.InNamespace(team)))
			assert.Empty(ct, pods.Items, "Pods left in %s", team)
			cq := &kueue.ClusterQueue{}
			require.NoError(ct, f.env.Client.Get(f.ctx, client.ObjectKey{Name: cqName}, cq))
			assert.Zero(ct, cq.Status.ReservingWorkloads, "%s still reserves quota", cqName)
		}
	}, scenarioTimeout, scenarioPoll)
}

// deleteJobs deletes every Job in the dev team namespaces, Pods in the background.
func (f *kueueFixture) deleteJobs(t *testing.T) {
	t.Helper()
	for team := range f.clusterQueues {
		err := f.env.Client.DeleteAllOf(context.Background(), &batchv1.Job{}, client.InNamespace(team),
			client.PropagationPolicy(metav1.DeletePropagationBackground))
		require.NoError(t, client.IgnoreNotFound(err), "delete the Jobs in %s", team)
	}
}

// gpuFlavor returns the flavor Kueue assigned to the first pod set's GPUs (whole GPUs or
// MIG instances), or "".
func gpuFlavor(wl *kueue.Workload) kueue.ResourceFlavorReference {
	if wl.Status.Admission == nil || len(wl.Status.Admission.PodSetAssignments) == 0 {
		return ""
	}
	for res, flavor := range wl.Status.Admission.PodSetAssignments[0].Flavors {
		if strings.HasPrefix(string(res), "nvidia.com/") {
			return flavor
		}
	}
	return ""
}

// formatFlavors renders the first pod set's flavor assignment as "resource=flavor, ...".
func formatFlavors(wl *kueue.Workload) string {
	if wl.Status.Admission == nil || len(wl.Status.Admission.PodSetAssignments) == 0 {
		return "(none)"
	}
	m := map[string]string{}
	for res, flavor := range wl.Status.Admission.PodSetAssignments[0].Flavors {
		m[string(res)] = string(flavor)
	}
	return formatMap(m)
}

// formatMap renders m as "k=v, ..." sorted by key.
func formatMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// formatTolerations renders tolerations as "key=value:Effect, ...".
func formatTolerations(tolerations []corev1.Toleration) string {
	parts := make([]string, len(tolerations))
	for i, tol := range tolerations {
		op := "="
		if tol.Operator == corev1.TolerationOpExists {
			op = " exists"
		}
		parts[i] = fmt.Sprintf("%s%s%s:%s", tol.Key, op, tol.Value, tol.Effect)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// formatPriority renders a Workload's priority class and priority.
func formatPriority(wl *kueue.Workload) string {
	class := "no priority class"
	if ref := wl.Spec.PriorityClassRef; ref != nil {
		class = fmt.Sprintf("%s %s", ref.Kind, ref.Name)
	}
	return fmt.Sprintf("%s, priority %d", class, ptr.Deref(wl.Spec.Priority, 0))
}
