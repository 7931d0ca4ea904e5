package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/workloads"
	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/stacks"
)

// The peer's Kueue demo (issue 17) expressed in aksml's config: one 8-GPU node, two teams
// with 2 GPUs guaranteed and a borrowing limit of 4, a lending-only member holding the
// other 4, and a low and a high priority level.
const (
	peerStack  = "peer"
	peerPool   = "nd96"
	peerBlue   = "team-blue"
	peerGreen  = "team-green"
	peerShared = "shared"
	peerLow    = "peer-low"
	peerHigh   = "peer-high"
	peerCohort = "peer"
)

// peerConfig is the stack config of the peer's demo, as `aksml:` keys.
func peerConfig() map[string]any {
	team := func(name string) map[string]any {
		return map[string]any{"name": name, "gpuQuota": map[string]any{peerPool: 2}, "borrowingLimit": 4, "cpu": "32", "memory": "256Gi"}
	}
	return map[string]any{
		"aksml:environment": "dev",
		"aksml:cluster": map[string]any{
			"name": "aksml-peer", "location": "westeurope", "resourceGroup": map[string]any{"name": "rg-aksml-peer"},
			"apiServer": map[string]any{"authorizedIPRanges": []any{"203.0.113.0/24"}},
		},
		"aksml:gpuPools": []any{map[string]any{"name": peerPool, "vmSize": "Standard_ND96asr_v4", "workload": "training", "maxCount": 1}},
		"aksml:teams":    []any{team(peerBlue), team(peerGreen)},
		"aksml:scheduler": map[string]any{
			"system": "kueue",
			"cohort": peerCohort,
			"priorities": []any{
				map[string]any{"name": peerLow, "value": 1000, "preemptionPolicy": "Never", "description": "Work that can wait and be preempted."},
				map[string]any{"name": peerHigh, "value": 100000, "description": "Work that must run now."},
			},
			"lenders": []any{map[string]any{"name": peerShared, "gpuQuota": map[string]any{peerPool: 4}}},
		},
	}
}

// peerJobs are the Jobs of the demo: name, team, GPUs and priority level.
var peerJobs = []struct {
	name, team string
	gpus       int
	priority   string
}{
	{"blue-3", peerBlue, 3, peerLow},
	{"green-3", peerGreen, 3, peerLow},
	{"blue-low", peerBlue, 6, peerLow},
	{"green-high", peerGreen, 4, peerHigh},
}

// peerKinds are the objects of the peer stack the scenario needs: the queueing set-up.
// Storage classes and monitors are left out (the dev stack's are on the cluster; their
// acceptance is TestStackObjectsAccepted's subject).
var peerKinds = map[string]bool{
	"Namespace": true, "ResourceQuota": true, "PriorityClass": true, "ResourceFlavor": true, "Cohort": true,
	"ClusterQueue": true, "LocalQueue": true, "WorkloadPriorityClass": true,
}

// TestKueuePeerScenario runs the peer's demo under the configuration aksml installs Kueue
// with (fair sharing, waitForPodsReady; see TestKueueRunsTheDeployedConfiguration): a
// lending-only member's GPUs are borrowed by both teams; a team borrows idle GPUs;
// another team's higher-priority job reclaims them by preemption; the preempted job is
// requeued and admitted again when the capacity frees.
func TestKueuePeerScenario(t *testing.T) {
	f := newPeerFixture(t)

	t.Run("both teams borrow the lending-only member's GPUs", func(t *testing.T) {
		f.reset(t)
		blue := f.submit(t, "blue-3")
		green := f.submit(t, "green-3")
		f.waitAdmitted(t, blue)
		f.waitAdmitted(t, green)
		// Each team holds more than its nominal 2, so neither lends anything: the 2
		// borrowed GPUs can only be the lending-only member's.
		bt, bb := f.waitUsage(t, peerBlue, peerPool, gpupool.GPUResource, 3, 1)
		gt, gb := f.waitUsage(t, peerGreen, peerPool, gpupool.GPUResource, 3, 1)
		t.Logf("%s: %s GPUs in use, %s borrowed; %s: %s in use, %s borrowed; both teams are above their nominal 2, so the borrowed GPUs are %s's",
			peerBlue, bt.String(), bb.String(), peerGreen, gt.String(), gb.String(), queues.ClusterQueueName(peerShared))
	})

	t.Run("borrowing, preemption by a higher priority, requeue and readmission", func(t *testing.T) {
		f.reset(t)
		low := f.submit(t, "blue-low")
		lowWL := f.waitAdmitted(t, low)
		total, borrowed := f.waitUsage(t, peerBlue, peerPool, gpupool.GPUResource, 6, 4)
		t.Logf("%s/%s (%s): Admitted while %s is idle; usage %s, borrowed %s (nominal 2, borrowingLimit 4; %s lends 2 at most, so the lending-only member lends the rest)",
			low.Namespace, low.Name, formatPriority(lowWL), peerGreen, total.String(), borrowed.String(), peerGreen)

		high := f.submit(t, "green-high")
		highWL := f.waitAdmitted(t, high)
		var evicted, preempted *metav1.Condition
		var requeued *kueue.Workload
		require.EventuallyWithT(t, func(ct *assert.CollectT) {
			w := f.workload(ct, low)
			if !assert.NotNil(ct, w, "no Workload for %s", low.Name) {
				return
			}
			requeued = w
			evicted = apimeta.FindStatusCondition(w.Status.Conditions, kueue.WorkloadEvicted)
			preempted = apimeta.FindStatusCondition(w.Status.Conditions, kueue.WorkloadPreempted)
			if assert.NotNil(ct, evicted, "%s not evicted: %v", low.Name, w.Status.Conditions) {
				assert.Equal(ct, kueue.WorkloadEvictedByPreemption, evicted.Reason)
			}
			if assert.NotNil(ct, preempted, "%s has no Preempted condition: %v", low.Name, w.Status.Conditions) {
				assert.Equal(ct, metav1.ConditionTrue, preempted.Status)
			}
			assert.Nil(ct, w.Status.Admission, "%s must give its quota back", low.Name)
			job := &batchv1.Job{}
			require.NoError(ct, f.env.Client.Get(f.ctx, client.ObjectKeyFromObject(low), job))
			assert.True(ct, ptr.Deref(job.Spec.Suspend, false), "the preempted Job must be suspended again")
		}, scenarioTimeout, scenarioPoll, "kueue log:\n%s", f.env.LogTail("kueue.log", 30))
		assert.Equal(t, kueue.InCohortFairSharingReason, preempted.Reason, "fair sharing decides preemption across teams")
		ht, hb := f.waitUsage(t, peerGreen, peerPool, gpupool.GPUResource, 4, 2)
		t.Logf("%s/%s (%s): Admitted with usage %s, borrowed %s", high.Namespace, high.Name, formatPriority(highWL), ht.String(), hb.String())
		t.Logf("%s/%s: Evicted reason %s: %s; Preempted reason %s: %s; Job suspended again", low.Namespace, low.Name, evicted.Reason, evicted.Message, preempted.Reason, preempted.Message)

		// Requeued: the same Workload waits for quota (6 GPUs do not fit next to
		// green-high's 4 on 8) and the Job stays suspended.
		require.Equal(t, lowWL.UID, requeued.UID, "the preempted Job keeps its Workload")
		cond := f.waitPending(t, low, `insufficient unused quota for `+gpupool.GPUResource)
		t.Logf("%s/%s requeued: QuotaReserved=%s: %s", low.Namespace, low.Name, cond.Status, cond.Message)

		require.NoError(t, f.env.Client.Delete(f.ctx, high, client.PropagationPolicy(metav1.DeletePropagationBackground)))
		again := f.waitAdmitted(t, low)
		require.Equal(t, lowWL.UID, again.UID)
		total, borrowed = f.waitUsage(t, peerBlue, peerPool, gpupool.GPUResource, 6, 4)
		t.Logf("%s deleted: %s/%s admitted again with usage %s, borrowed %s", high.Name, low.Namespace, low.Name, total.String(), borrowed.String())
	})
}

// newPeerFixture applies the peer stack's queueing objects, checks the lending-only
// member's ClusterQueue, waits until the ClusterQueues are active and builds the Jobs.
func newPeerFixture(t *testing.T) *kueueFixture {
	t.Helper()
	env := testEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)

	raw := map[string]string{}
	for k, v := range peerConfig() {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		raw[k] = string(b)
		if s, ok := v.(string); ok {
			raw[k] = s
		}
	}
	cfg, err := stacks.Parse(peerStack, raw)
	require.NoError(t, err)
	s, err := synth.Run(peerStack, "dev", raw, stacks.Program)
	require.NoError(t, err)
	values, ok := KueueChartValues(s)
	require.True(t, ok, "the peer stack installs Kueue")
	peerKueue, _, err := KueueConfigFromChartValues(env.Scheme, values)
	require.NoError(t, err)
	require.Equal(t, env.KueueConfig, peerKueue, "the peer stack installs the Kueue configuration the tier runs")

	objs, _, err := stackObjects(s)
	require.NoError(t, err)
	objs, err = applyOrder(s, objs, env.Client.RESTMapper())
	require.NoError(t, err)
	f := &kueueFixture{env: env, ctx: ctx, cfg: cfg, clusterQueues: map[string]string{}}
	var applied []stackObject
	lender := ""
	for _, o := range objs {
		if !peerKinds[o.obj.GetKind()] {
			continue
		}
		require.NoError(t, env.Apply(ctx, o.obj.DeepCopy()), "apply %s", o)
		if o.obj.GetKind() == "ClusterQueue" {
			if team, ok := o.obj.GetLabels()[queues.TeamLabel]; ok {
				f.clusterQueues[team] = o.obj.GetName()
			} else if o.obj.GetLabels()[queues.LenderLabel] == peerShared {
				lender = o.obj.GetName()
			}
		}
		// The cpu flavor is shared with the dev stack's queues: it stays.
		if o.obj.GetKind() != "ResourceFlavor" || o.obj.GetName() != queues.CPUFlavorName {
			applied = append(applied, o)
		}
	}
	require.Len(t, f.clusterQueues, 2)
	require.Equal(t, queues.ClusterQueueName(peerShared), lender)
	t.Cleanup(func() {
		f.deleteJobs(t)
		dctx, dcancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer dcancel()
		assert.NoError(t, deleteObjects(dctx, env.Client, applied), "delete the peer stack's objects")
	})

	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		for _, name := range append([]string{lender}, f.clusterQueues[peerBlue], f.clusterQueues[peerGreen]) {
			cq := &kueue.ClusterQueue{}
			require.NoError(ct, env.Client.Get(ctx, client.ObjectKey{Name: name}, cq))
			assert.True(ct, apimeta.IsStatusConditionTrue(cq.Status.Conditions, kueue.ClusterQueueActive), "ClusterQueue %s not active: %v", name, cq.Status.Conditions)
		}
	}, scenarioTimeout, scenarioPoll)
	shared := &kueue.ClusterQueue{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: lender}, shared))
	assert.Nil(t, shared.Spec.NamespaceSelector, "a lending-only member admits no namespace")
	assert.Equal(t, kueue.CohortReference(peerCohort), shared.Spec.CohortName)
	t.Logf("lending-only ClusterQueue %s: cohort %s, no namespaceSelector, quota %s", lender, shared.Spec.CohortName, formatQuota(shared))

	f.jobs = buildPeerJobs(t, cfg)
	return f
}

// buildPeerJobs builds the demo's Jobs with the CheckpointedJob component, as the stack
// would for an `aksml:workloads` entry with that priority.
func buildPeerJobs(t *testing.T, cfg *stacks.Config) map[string]*unstructured.Unstructured {
	t.Helper()
	pool, perrs := gpupool.ResolveOne(cfg.GPUPools[0], field.NewPath("aksml:gpuPools").Index(0))
	require.Empty(t, perrs)
	program := func(ctx *pulumi.Context) (map[string]pulumi.Input, error) {
		for _, j := range peerJobs {
			common := queuedJob(j.team)
			common.PriorityClass = j.priority
			common.Resources = workloads.Resources{CPU: "3", Memory: "16Gi", GPUs: j.gpus}
			if _, err := workloads.NewCheckpointedJob(ctx, j.name, &workloads.CheckpointedJobArgs{Common: common, Pool: pool}); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	s, err := synth.Run(peerStack, "dev", map[string]string{}, program)
	require.NoError(t, err)
	jobs := map[string]*unstructured.Unstructured{}
	for _, r := range s.Resources {
		if r.Type == "kubernetes:batch/v1:Job" {
			obj, err := toObject(r)
			require.NoError(t, err, r.URN)
			jobs[obj.GetName()] = obj
		}
	}
	require.Len(t, jobs, len(peerJobs))
	return jobs
}

// formatQuota renders a ClusterQueue's nominal quota as "flavor/resource=n, ...".
func formatQuota(cq *kueue.ClusterQueue) string {
	m := map[string]string{}
	for _, rg := range cq.Spec.ResourceGroups {
		for _, fl := range rg.Flavors {
			for _, r := range fl.Resources {
				m[fmt.Sprintf("%s/%s", fl.Name, r.Name)] = r.NominalQuota.String()
			}
		}
	}
	return formatMap(m)
}
