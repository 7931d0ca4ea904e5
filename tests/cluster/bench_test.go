package cluster

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/workloads"
	"github.com/aksml/aksml/internal/synth"
)

// benchEnv turns the benchmarks on; `make bench` sets it. They are measurements, not
// timed tests: they take minutes and load the machine.
const benchEnv = "AKSML_BENCH"

// The scale `make bench` measures: synth.BenchScale (100 teams with 1 GPU each and 300
// more to lend on the spot T4 pool, 400 nodes) and 1000 one-GPU Jobs, 10 per team.
var (
	benchStack   = synth.BenchScale
	benchJobsPer = 10
)

// benchSubmitters is how many clients submit the Jobs at once.
const benchSubmitters = 8

// fairShareSettle bounds the wait for every team to reach its fair share after the pool
// fills. Admission from the backlog splits the lent GPUs evenly (Kueue admits a head of
// every queue per cycle while capacity lasts; weights order only what no longer fits),
// and the weighted split comes from fair-sharing preemptions (LessThanOrEqualToFinalShare),
// which Kueue issues a few at a time as their victims terminate: about 4 a minute here,
// and this stack needs 50.
const fairShareSettle = 20 * time.Minute

// fairShareTolerance bounds how far the GPUs borrowed per weight-2 team, divided by
// those borrowed per weight-1 team, may be from 2 (the ratio of the weights).
const fairShareTolerance = 0.10

// TestBenchAdmission queues 1000 GPU Jobs over the 100 teams of the bench stack (its
// platform objects applied, its simulated nodes running under KWOK and the real
// kube-scheduler) and measures how fast Kueue admits them and the scheduler places their
// pods. The Jobs are queued before the spot pool's ResourceFlavor exists, a backlog as
// after a maintenance window, and the flavor's creation releases every ClusterQueue at
// once: admission starts from 1000 queued Workloads, which is what the fair-sharing order
// is for. (Releasing the queues one by one, with a stopPolicy patch each, is not a
// backlog: the first queue released borrows the idle quota of the ones still held,
// which measured 40 teams at 10 GPUs and 60 at 0.) (Jobs that arrive
// team after team are a different test: the early teams borrow the late teams' idle
// quota, and a late team gets it back only by preemption, which waits out each
// preempted pod's grace period; README, make bench.) It asserts that admission stops at exactly the configured quotas: no team above
// its nominal quota plus borrowing limit, no flavor above the pool capacity, every GPU of
// the pool admitted (demand is over three times capacity), every admitted pod Running on
// the pool; and that the lent GPUs are shared by the teams' fair-sharing weights within
// fairShareTolerance.
func TestBenchAdmission(t *testing.T) {
	if os.Getenv(benchEnv) == "" {
		t.Skipf("a benchmark: run it with make bench (%s=1)", benchEnv)
	}
	env := testEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 38*time.Minute)
	defer cancel()

	root, err := RepoRoot()
	require.NoError(t, err)
	local, err := synth.ReadStackConfig(root, "local")
	require.NoError(t, err)
	raw, err := benchStack.Config(local)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, synth.WriteStackConfig(dir, "bench", raw))
	cfg, err := StackConfig(dir, "bench", t.TempDir())
	require.NoError(t, err)
	s, err := synth.Synth(dir, "bench")
	require.NoError(t, err)
	pools, err := StackNodePools(s, cfg)
	require.NoError(t, err)

	start := time.Now()
	require.NoError(t, env.StartNodeSimulation(ctx), "logs in %s", env.Dir)
	defer env.StopNodeSimulation()
	require.NoError(t, env.CreateNodes(ctx, pools))
	defer deleteNodes(t, env)
	nodes := 0
	for _, p := range pools {
		nodes += p.Count
	}
	t.Logf("bench: %d simulated nodes Ready in %s", nodes, time.Since(start).Round(time.Millisecond))

	pctx, pcancel := context.WithCancel(ctx)
	provisioned := make(chan error, 1)
	go func() { provisioned <- RunVolumeProvisioner(pctx, env.Client, 200*time.Millisecond) }()
	defer func() {
		pcancel()
		require.NoError(t, <-provisioned)
	}()
	objs, _, err := stackObjects(s)
	require.NoError(t, err)
	objs, err = applyOrder(s, objs, env.Client.RESTMapper())
	require.NoError(t, err)
	var applied []stackObject
	defer func() {
		dctx, dcancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer dcancel()
		require.NoError(t, deleteObjects(dctx, env.Client, applied), "clean up the bench stack")
	}()
	start = time.Now()
	var flavor *stackObject
	for i, o := range objs {
		if isExampleWorkload(o) {
			continue
		}
		if o.obj.GetKind() == "ResourceFlavor" && o.obj.GetName() == queues.FlavorName(synth.BenchPool) {
			flavor = &objs[i]
			continue
		}
		require.NoError(t, env.Apply(ctx, o.obj.DeepCopy()), "apply %s", o)
		applied = append(applied, o)
	}
	require.NotNil(t, flavor, "the bench stack has a ResourceFlavor for pool %s", synth.BenchPool)
	t.Logf("bench: %d platform objects of %d teams applied in %s", len(applied), benchStack.Teams, time.Since(start).Round(time.Millisecond))

	teamQueues := make([]string, benchStack.Teams)
	for i := range teamQueues {
		teamQueues[i] = queues.ClusterQueueName(synth.BenchTeam(i))
	}

	jobs := benchJobs(t, cfg.GPUPools)
	require.Len(t, jobs, benchStack.Teams*benchJobsPer)
	defer func() {
		dctx, dcancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer dcancel()
		for _, j := range jobs {
			_ = env.Client.Delete(dctx, j, client.PropagationPolicy("Background"))
		}
	}()
	// Submitted by benchSubmitters clients at once, as many users would.
	start = time.Now()
	work := make(chan client.Object)
	failed := make(chan error, len(jobs))
	var wg sync.WaitGroup
	for range benchSubmitters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				if err := env.Client.Create(ctx, j.DeepCopyObject().(client.Object)); err != nil {
					failed <- fmt.Errorf("submit %s/%s: %w", j.GetNamespace(), j.GetName(), err)
				}
			}
		}()
	}
	for _, j := range jobs {
		work <- j
	}
	close(work)
	wg.Wait()
	close(failed)
	for err := range failed {
		require.NoError(t, err)
	}
	submitted := time.Since(start)
	require.Eventually(t, func() bool {
		n, err := pendingWorkloads(ctx, env.Client)
		return err == nil && n == len(jobs)
	}, 5*time.Minute, time.Second, "every Job has a pending Workload while the flavor is missing")
	queued := time.Since(start)
	held, err := gpuUsage(ctx, env.Client)
	require.NoError(t, err)
	require.Zero(t, held.total, "a ClusterQueue without its flavor admitted a Workload")
	start = time.Now()
	require.NoError(t, env.Apply(ctx, flavor.obj.DeepCopy()), "apply %s", flavor)
	applied = append([]stackObject{*flavor}, applied...)

	capacity := benchStack.Capacity()
	var admittedAt, placedAt time.Duration
	for admittedAt == 0 || placedAt == 0 {
		usage, err := gpuUsage(ctx, env.Client)
		if err != nil {
			// The loaded API server resets a list now and then: poll again.
			t.Logf("bench: list ClusterQueues: %v (retrying)", err)
			time.Sleep(time.Second)
			continue
		}
		running, err := runningGPUPods(ctx, env.Client)
		if err != nil {
			t.Logf("bench: list pods: %v (retrying)", err)
			time.Sleep(time.Second)
			continue
		}
		if admittedAt == 0 && usage.total == capacity {
			admittedAt = time.Since(start)
		}
		if placedAt == 0 && running == capacity {
			placedAt = time.Since(start)
		}
		require.LessOrEqual(t, usage.total, capacity, "Kueue admitted more GPUs than the pool has")
		require.True(t, time.Since(start) < 10*time.Minute, "after 10 min: %d of %d GPUs admitted, %d pods Running", usage.total, capacity, running)
		time.Sleep(500 * time.Millisecond)
	}
	t.Logf("bench: %d Jobs of %d teams submitted in %s, all queued as Workloads after %s; flavor created: %d GPUs (the pool) admitted after %s (%.1f Workloads/s), their pods Running after %s (%.1f pods/s)",
		len(jobs), benchStack.Teams, submitted.Round(time.Millisecond), queued.Round(time.Millisecond), capacity,
		admittedAt.Round(time.Millisecond), float64(capacity)/admittedAt.Seconds(),
		placedAt.Round(time.Millisecond), float64(capacity)/placedAt.Seconds())
	// Settled is the pool full and every team at its fair share (nominal quota plus its
	// weight's part of the lent GPUs). Admission from a full backlog gets there by the
	// fair-sharing order alone; where it does not, Kueue preempts the teams above their
	// share (LessThanOrEqualToFinalShare), which waits for the preempted pods.
	var usage queueUsage
	offShare := func() []string {
		var off []string
		for i := 0; i < benchStack.Teams; i++ {
			if got, want := usage.byQueue[teamQueues[i]], benchStack.FairShare(i); got != want {
				off = append(off, fmt.Sprintf("%s %d (share %d)", teamQueues[i], got, want))
			}
		}
		return off
	}
	settled := func() bool {
		usage, err = gpuUsage(ctx, env.Client)
		return err == nil && usage.total == capacity && len(offShare()) == 0
	}
	if settled() {
		t.Logf("bench: every team at its fair share when the pool filled (no preemption needed)")
	} else {
		t.Logf("bench: when the pool filled, %d teams off their fair share: %s", len(offShare()), strings.Join(offShare(), ", "))
		if assert.Eventually(t, settled, fairShareSettle, 5*time.Second, "teams off their fair share %v after the pool filled (list error: %v)", fairShareSettle, err) {
			t.Logf("bench: every team at its fair share %s after the flavor was created (preemptions included)", time.Since(start).Round(time.Millisecond))
		} else {
			t.Logf("bench: off their fair share: %s", strings.Join(offShare(), ", "))
		}
	}
	require.Equal(t, capacity, usage.total, "the whole pool is admitted, no more")

	var borrowed [3]int // by weight
	var teams [3]int
	for i := 0; i < benchStack.Teams; i++ {
		name := teamQueues[i]
		u := usage.byQueue[name]
		limit := benchStack.TeamGPUs + benchStack.LenderGPUs
		require.LessOrEqual(t, u, limit, "%s above nominal quota plus borrowing limit", name)
		require.GreaterOrEqual(t, u, benchStack.TeamGPUs, "%s below its nominal quota while it has Jobs pending", name)
		w := synth.BenchWeight(i)
		borrowed[w] += u - benchStack.TeamGPUs
		teams[w]++
	}
	require.Equal(t, benchStack.LenderGPUs, borrowed[1]+borrowed[2], "every lent GPU is borrowed")
	perTeam1 := float64(borrowed[1]) / float64(teams[1])
	perTeam2 := float64(borrowed[2]) / float64(teams[2])
	require.Greater(t, perTeam1, 0.0, "weight-1 teams borrowed nothing")
	ratio := perTeam2 / perTeam1
	t.Logf("bench: over-admission 0; lent GPUs per team: weight 2 %.2f, weight 1 %.2f (ratio %.2f, want 2 ± %.0f%%)",
		perTeam2, perTeam1, ratio, fairShareTolerance*100)
	require.InDelta(t, 2.0, ratio, 2.0*fairShareTolerance,
		"lent GPUs per team: weight 2 %.2f, weight 1 %.2f: ratio %.2f, want 2 within %.0f%%", perTeam2, perTeam1, ratio, fairShareTolerance*100)
}

// benchJobs builds benchJobsPer one-GPU Jobs per bench team on the spot pool with the
// CheckpointedJob component, as a stack builds its workloads.
func benchJobs(t *testing.T, specs []gpupool.Spec) []client.Object {
	t.Helper()
	resolved, errs := gpupool.Resolve(specs, field.NewPath("aksml:gpuPools"))
	require.Empty(t, errs)
	var pool *gpupool.Resolved
	for i := range resolved {
		if resolved[i].Name == synth.BenchPool {
			pool = &resolved[i]
		}
	}
	require.NotNil(t, pool)
	program := func(ctx *pulumi.Context) (map[string]pulumi.Input, error) {
		for i := 0; i < benchStack.Teams; i++ {
			team := synth.BenchTeam(i)
			for j := 0; j < benchJobsPer; j++ {
				_, err := workloads.NewCheckpointedJob(ctx, fmt.Sprintf("%s-bench-%02d", team, j), &workloads.CheckpointedJobArgs{
					Common: workloads.Common{
						Namespace: pulumi.String(team),
						Name:      fmt.Sprintf("bench-%02d", j),
						Team:      team,
						Scheduler: workloads.SchedulerKueue,
						QueueName: queues.LocalQueueName,
						Image:     "pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime",
						Command:   []string{"python", "/workspace/train.py"},
						// Six fit the team's cpu (16) and memory (64Gi) quota.
						Resources: workloads.Resources{CPU: "2", Memory: "10Gi", GPUs: 1},
					},
					Pool: pool,
				})
				if err != nil {
					return nil, err
				}
			}
		}
		return nil, nil
	}
	s, err := synth.Run("bench", "dev", map[string]string{}, program)
	require.NoError(t, err)
	var out []client.Object
	for _, r := range s.Resources {
		if r.Type != "kubernetes:batch/v1:Job" {
			continue
		}
		obj, err := toObject(r)
		require.NoError(t, err)
		out = append(out, obj)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].GetNamespace()+"/"+out[i].GetName() < out[j].GetNamespace()+"/"+out[j].GetName()
	})
	return out
}

// queueUsage is the GPUs Kueue has admitted, in total and per ClusterQueue.
type queueUsage struct {
	total   int
	byQueue map[string]int
}

// gpuUsage sums the GPU usage of every ClusterQueue's flavors, from its status.
func gpuUsage(ctx context.Context, c client.Client) (queueUsage, error) {
	u := queueUsage{byQueue: map[string]int{}}
	cqs := &kueue.ClusterQueueList{}
	if err := c.List(ctx, cqs); err != nil {
		return u, err
	}
	for _, cq := range cqs.Items {
		for _, f := range cq.Status.FlavorsUsage {
			for _, r := range f.Resources {
				if strings.HasPrefix(string(r.Name), "nvidia.com/") {
					n := int(r.Total.Value())
					u.byQueue[cq.Name] += n
					u.total += n
				}
			}
		}
	}
	return u, nil
}

// pendingWorkloads counts the Workloads without quota reserved.
func pendingWorkloads(ctx context.Context, c client.Client) (int, error) {
	wls := &kueue.WorkloadList{}
	if err := c.List(ctx, wls); err != nil {
		return 0, err
	}
	n := 0
	for i := range wls.Items {
		if wls.Items[i].Status.Admission == nil {
			n++
		}
	}
	return n, nil
}

// runningGPUPods counts the Running pods that request GPUs.
func runningGPUPods(ctx context.Context, c client.Client) (int, error) {
	pods := &corev1.PodList{}
	if err := c.List(ctx, pods, client.HasLabels{"batch.kubernetes.io/job-name"}); err != nil {
		return 0, err
	}
	n := 0
	for i := range pods.Items {
		if pods.Items[i].Status.Phase == corev1.PodRunning && requestsGPU(&pods.Items[i]) {
			n++
		}
	}
	return n, nil
}
