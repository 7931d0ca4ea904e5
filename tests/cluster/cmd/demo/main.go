// Command demo submits a few training Jobs to the sandbox started by `make demo` (after
// `pulumi up` of the local stack) and prints a short live view: Kueue's admission per team,
// the pods per node pool, and the preemption that team-b's reclaim of its own quota causes.
//
// The Jobs are built by the CheckpointedJob component, as a stack's workloads are: first
// team-a fills its spot quota and borrows one GPU of team-b's (on top of the stack's example
// resnet-finetune Job), then team-b asks for its nominal quota back, and Kueue preempts a
// team-a Job to reclaim it (the ClusterQueues' reclaimWithinCohort: Any).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/workloads"
	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/stacks"
	cluster "github.com/aksml/aksml/tests/cluster"
)

// demoJob is a Job the demo submits.
type demoJob struct{ team, pool, name string }

// The waves of Jobs: team-a fills its spot quota and borrows, then team-b reclaims.
var waves = [][]demoJob{
	{
		{"team-a", "t4spot", "demo-a-spot-1"},
		{"team-a", "t4spot", "demo-a-spot-2"},
		{"team-a", "t4", "demo-a-ondemand"},
	},
	{
		{"team-b", "t4spot", "demo-b-spot-1"},
		{"team-b", "t4spot", "demo-b-spot-2"},
	},
}

func main() {
	watch := flag.Duration("watch", 45*time.Second, "how long to print the live view at most")
	flag.Parse()
	if err := run(*watch); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func say(format string, args ...any) {
	fmt.Printf("[demo %s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func run(watch time.Duration) error {
	root, err := cluster.RepoRoot()
	if err != nil {
		return err
	}
	rc, err := clientcmd.BuildConfigFromFlags("", filepath.Join(root, ".sandbox", "kubeconfig"))
	if err != nil {
		return err
	}
	scheme, err := cluster.NewScheme()
	if err != nil {
		return err
	}
	c, err := client.New(rc, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "aksml-demo-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	cfg, err := cluster.StackConfig(root, "local", tmp)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	preempted := map[string]string{}
	for i, wave := range waves {
		jobs, err := buildJobs(cfg, wave)
		if err != nil {
			return err
		}
		var names []string
		for _, j := range jobs {
			if err := c.Create(ctx, j); client.IgnoreAlreadyExists(err) != nil {
				return fmt.Errorf("submit %s/%s: %w", j.GetNamespace(), j.GetName(), err)
			}
			names = append(names, j.GetNamespace()+"/"+j.GetName())
		}
		say("wave %d: submitted %s", i+1, strings.Join(names, ", "))
		until := time.Now().Add(watch)
		if i < len(waves)-1 {
			until = time.Now().Add(watch / 3)
		}
		last := ""
		for time.Now().Before(until) {
			view, err := liveView(ctx, c, preempted)
			if err != nil {
				return err
			}
			changed := view != last
			if changed {
				fmt.Printf("[demo %s] Kueue admission per team:\n%s", time.Now().Format("15:04:05"), view)
				last = view
			}
			// A wave ends once the view has stopped changing (Kueue's status caught up)
			// and its outcome is there: an earlier wave's Jobs run, the last wave
			// preempted a Job. The next wave starts then.
			outcome := len(preempted) > 0
			if i < len(waves)-1 {
				outcome = running(ctx, c, jobs)
			}
			if !changed && outcome && settled(ctx, c) {
				break
			}
			time.Sleep(time.Second)
		}
	}
	if len(preempted) == 0 {
		say("no preemption seen within %s", watch)
	}
	say("the Jobs keep running on the simulated nodes; see them with KUBECONFIG=.sandbox/kubeconfig kubectl get workloads -A; stop everything with make demo-down")
	return nil
}

// buildJobs builds the wave's Jobs with the CheckpointedJob component under mocks, as the
// stack builds its workloads.
func buildJobs(cfg *stacks.Config, wave []demoJob) ([]*unstructured.Unstructured, error) {
	pools := map[string]*gpupool.Resolved{}
	for i, spec := range cfg.GPUPools {
		r, errs := gpupool.ResolveOne(spec, field.NewPath("aksml:gpuPools").Index(i))
		if err := errs.ToAggregate(); err != nil {
			return nil, err
		}
		pools[spec.Name] = r
	}
	program := func(ctx *pulumi.Context) (map[string]pulumi.Input, error) {
		for _, j := range wave {
			pool, ok := pools[j.pool]
			if !ok {
				return nil, fmt.Errorf("the local stack has no pool %s", j.pool)
			}
			_, err := workloads.NewCheckpointedJob(ctx, j.name, &workloads.CheckpointedJobArgs{
				Common: workloads.Common{
					Namespace: pulumi.String(j.team),
					Team:      j.team,
					Scheduler: workloads.SchedulerKueue,
					QueueName: queues.LocalQueueName,
					Image:     "pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime",
					Command:   []string{"python", "/workspace/train.py"},
					// /dev/shm (8Gi by default) counts against the memory limit.
					Resources: workloads.Resources{CPU: "2", Memory: "16Gi", GPUs: 1},
				},
				Pool: pool,
			})
			if err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	s, err := synth.Run("local", string(cfg.Environment), map[string]string{}, program)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, r := range s.Resources {
		if r.Type != "kubernetes:batch/v1:Job" {
			continue
		}
		b, err := json.Marshal(r.Inputs)
		if err != nil {
			return nil, err
		}
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(b); err != nil {
			return nil, err
		}
		out = append(out, obj)
	}
	if len(out) != len(wave) {
		return nil, fmt.Errorf("built %d Jobs, want %d", len(out), len(wave))
	}
	return out, nil
}

// liveView renders Kueue's admission per ClusterQueue, the pods per pool and the
// preemptions seen so far (recorded into preempted, by Workload), without a timestamp so
// that two views of the same state compare equal.
func liveView(ctx context.Context, c client.Client, preempted map[string]string) (string, error) {
	var b strings.Builder
	cqs := &kueue.ClusterQueueList{}
	if err := c.List(ctx, cqs); err != nil {
		return "", err
	}
	sort.Slice(cqs.Items, func(i, j int) bool { return cqs.Items[i].Name < cqs.Items[j].Name })
	for _, cq := range cqs.Items {
		nominal := map[string]string{}
		for _, rg := range cq.Spec.ResourceGroups {
			for _, f := range rg.Flavors {
				for _, r := range f.Resources {
					if strings.HasPrefix(string(r.Name), "nvidia.com/") {
						nominal[string(f.Name)] = r.NominalQuota.String()
					}
				}
			}
		}
		var usage []string
		for _, f := range cq.Status.FlavorsUsage {
			for _, r := range f.Resources {
				if !strings.HasPrefix(string(r.Name), "nvidia.com/") {
					continue
				}
				u := fmt.Sprintf("%s %s/%s GPU", f.Name, r.Total.String(), nominal[string(f.Name)])
				if !r.Borrowed.IsZero() {
					u += fmt.Sprintf(" (borrowing %s)", r.Borrowed.String())
				}
				usage = append(usage, u)
			}
		}
		fmt.Fprintf(&b, "  %-12s admitted %d, pending %d; %s\n", cq.Name, cq.Status.AdmittedWorkloads, cq.Status.PendingWorkloads, strings.Join(usage, ", "))
	}

	// The Jobs' pods only: the platform's DaemonSets run on every node.
	pods := &corev1.PodList{}
	if err := c.List(ctx, pods, client.HasLabels{"batch.kubernetes.io/job-name"}); err != nil {
		return "", err
	}
	nodes := &corev1.NodeList{}
	if err := c.List(ctx, nodes); err != nil {
		return "", err
	}
	poolOf := map[string]string{}
	for _, n := range nodes.Items {
		poolOf[n.Name] = n.Labels[cluster.AgentPoolLabel]
	}
	counts := map[string]map[corev1.PodPhase]int{}
	for _, p := range pods.Items {
		pool := poolOf[p.Spec.NodeName]
		if p.Spec.NodeName == "" {
			pool = "(unscheduled)"
		}
		if counts[pool] == nil {
			counts[pool] = map[corev1.PodPhase]int{}
		}
		counts[pool][p.Status.Phase]++
	}
	var pools []string
	for pool, byPhase := range counts {
		var parts []string
		for phase, n := range byPhase {
			parts = append(parts, fmt.Sprintf("%d %s", n, phase))
		}
		sort.Strings(parts)
		pools = append(pools, pool+": "+strings.Join(parts, ", "))
	}
	sort.Strings(pools)
	fmt.Fprintf(&b, "  Job pods per pool: %s\n", strings.Join(pools, "; "))

	wls := &kueue.WorkloadList{}
	if err := c.List(ctx, wls); err != nil {
		return "", err
	}
	for _, wl := range wls.Items {
		if cond := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadPreempted); cond != nil && cond.Status == "True" {
			preempted[wl.Namespace+"/"+wl.Name] = cond.Reason + ": " + cond.Message
		}
	}
	keys := make([]string, 0, len(preempted))
	for k := range preempted {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "  preempted: %s (%s)\n", k, preempted[k])
	}
	return b.String(), nil
}

// running reports whether every Job of jobs has a Running pod.
func running(ctx context.Context, c client.Client, jobs []*unstructured.Unstructured) bool {
	for _, j := range jobs {
		pods := &corev1.PodList{}
		if err := c.List(ctx, pods, client.InNamespace(j.GetNamespace()), client.MatchingLabels{"batch.kubernetes.io/job-name": j.GetName()}); err != nil {
			return false
		}
		if !slices.ContainsFunc(pods.Items, func(p corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning }) {
			return false
		}
	}
	return true
}

// settled reports whether no Job pod is Pending on a node or being deleted.
func settled(ctx context.Context, c client.Client) bool {
	pods := &corev1.PodList{}
	if err := c.List(ctx, pods, client.HasLabels{"batch.kubernetes.io/job-name"}); err != nil {
		return false
	}
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil || (p.Spec.NodeName != "" && p.Status.Phase == corev1.PodPending) {
			return false
		}
	}
	return true
}
