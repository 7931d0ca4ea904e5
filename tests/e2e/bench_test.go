//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/events"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/internal/synth"
)

// benchEnv turns the benchmarks on; `make bench` sets it.
const benchEnv = "AKSML_BENCH"

// benchScaleFor is the stack TestBenchEngine deploys: the local stack with 100 teams
// (synth.BenchScale; the same stack the cluster tier's TestBenchAdmission queues Jobs on),
// or with AKSML_BENCH_TEAMS teams (a quicker run, the lender scaled alike: 3 GPUs a team).
func benchScaleFor(t *testing.T) synth.Bench {
	t.Helper()
	v := os.Getenv("AKSML_BENCH_TEAMS")
	if v == "" {
		return synth.BenchScale
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, "AKSML_BENCH_TEAMS=%q: want a number of teams", v)
	require.True(t, n >= 2 && n%2 == 0, "AKSML_BENCH_TEAMS=%d: want an even number of teams, at least 2 (weights 1 and 2 alternate)", n)
	return synth.Bench{Teams: n, TeamGPUs: synth.BenchScale.TeamGPUs, LenderGPUs: 3 * n}
}

// benchParallel is the engine parallelism of the fast round.
const benchParallel = 64

// workflowPreviewParallel is the PULUMI_PARALLEL the workflows' previews set
// (.github/workflows/pr.yml, deploy.yml, drift.yml).
const workflowPreviewParallel = 16

// TestBenchEngine measures the real engine on the 100-team stack against the sandbox,
// in rounds (AKSML_BENCH_ROUNDS, default "prebuilt,fast"): "prebuilt" runs the program
// built once (tools/prebuilt/prebuilt.sh) with the engine's defaults, a checkpoint after
// every step included, as a user's `pulumi up` runs; "fast" also raises the parallelism to
// benchParallel and saves only the final state of each operation (PULUMI_SKIP_CHECKPOINTS);
// "defaults" lets the language host build the program before every operation; "preview"
// stops after the first preview (to profile it). Each round
// times the first preview (always with PULUMI_SKIP_CHECKPOINTS, which a preview loses
// nothing to, and the workflows' PULUMI_PARALLEL unless the round sets its own), the first up (with the resource types whose steps take longest
// and what the state holds), kubectl's server-side dry run of the same objects, the
// unthrottled floor (tests/cluster/dryrun), a no-change up, an up that onboards one more
// team into the same stack, and destroy. A benchmark: it asserts that each operation
// succeeds, that the no-change up changes nothing and that the onboarding creates
// resources, and logs the figures.
func TestBenchEngine(t *testing.T) {
	if os.Getenv(benchEnv) == "" {
		t.Skipf("a benchmark: run it with make bench (%s=1)", benchEnv)
	}
	root := repoRoot(t)
	tc := findToolchain(t, root)
	ctx, dir := startRun(t, "bench")
	work := filepath.Join(dir, "work")
	copyWorkingTree(t, root, work)
	dropStackSecrets(t, work)
	local, err := synth.ReadStackConfig(work, stackName)
	require.NoError(t, err)
	benchScale := benchScaleFor(t)
	cfg, err := benchScale.Config(local)
	require.NoError(t, err)
	const stack = "bench"
	require.NoError(t, synth.WriteStackConfig(work, stack, cfg))

	clusterBin := envOr("AKSML_CLUSTER_BIN", filepath.Join(root, "tests", "cluster", "bin"))
	sharedDir := sharedFolder(t, root)
	sb := startSandbox(t, work, clusterBin, sharedDir, dir)
	k := kubectl{kubeconfig: sb.kubeconfig}

	desired, err := synth.Synth(work, stack)
	require.NoError(t, err)
	objs, err := kubernetesObjects(desired)
	require.NoError(t, err)
	objFile := filepath.Join(dir, "objects.yaml")
	b, err := manifest(objectMaps(objs))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(objFile, b, 0o644))
	// The program is built once, as the workflows build it before preview and up
	// (tools/prebuilt/prebuilt.sh); the rounds with prebuilt run it, the others let
	// the language host run go build before each operation.
	pb := buildPrebuilt(t, ctx, tc, work, dir)
	t.Logf("bench: tools/prebuilt/prebuilt.sh built the program in %v (warm cache)", pb.took.Round(time.Millisecond))
	project, err := os.ReadFile(filepath.Join(work, "Pulumi.yaml"))
	require.NoError(t, err)
	// The unthrottled floor (tests/cluster/dryrun), built once.
	floor := floorDryRun{bin: filepath.Join(dir, "dryrun"), kubeconfig: sb.kubeconfig, objFile: objFile}
	build := exec.CommandContext(ctx, "go", "build", "-o", floor.bin, "./cmd/dryrun")
	build.Dir = filepath.Join(work, "tests", "cluster")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build tests/cluster/cmd/dryrun:\n%s", out)
	s := newStack(t, ctx, tc, work, dir, stack)
	// addTeam onboards one more team in the stack file's config (editStackConfig keeps
	// the passphrase salt Pulumi added) and returns what puts the file back. The pool
	// grows by the team's GPUs, as it must: the bench's pool holds exactly the nominal
	// quotas, and the stack refuses quotas the pool cannot hold.
	addTeam := func() (restore func()) {
		b := benchScale
		b.Teams++
		next, err := b.Config(local)
		require.NoError(t, err)
		edits := map[string]any{}
		for _, k := range []string{"teams", "gpuPools"} {
			var v any
			require.NoError(t, json.Unmarshal([]byte(next[synth.Project+":"+k]), &v))
			edits[synth.Project+":"+k] = v
		}
		return editStackConfig(t, work, stack, func(c map[string]any) { maps.Copy(c, edits) })
	}

	t.Logf("bench: %d teams, %d resources, %d Kubernetes objects", benchScale.Teams, len(desired.Resources)+1, len(objs))
	rounds := strings.Split(envOr("AKSML_BENCH_ROUNDS", "prebuilt,fast"), ",")
	for _, r := range rounds {
		cfg, ok := benchRounds[r]
		require.True(t, ok, "AKSML_BENCH_ROUNDS: unknown round %q (fast, prebuilt, defaults, preview)", r)
		y := project
		if cfg.prebuilt {
			y = pb.project
		}
		require.NoError(t, os.WriteFile(filepath.Join(work, "Pulumi.yaml"), y, 0o644))
		_ = os.Remove(pb.used)
		benchRound(t, ctx, s, k, floor, dir, objFile, r, cfg, benchScale.Teams, addTeam)
		if cfg.prebuilt {
			require.FileExists(t, pb.used, "round %s: the CLI did not run the prebuilt program's language host", r)
		} else {
			require.NoFileExists(t, pb.used, "round %s: the CLI ran the prebuilt program", r)
		}
	}
}

// benchRoundConfig is how one round drives the engine.
type benchRoundConfig struct {
	// parallel is --parallel; 0 is the engine's default (4 per CPU).
	parallel int
	// skipCheckpoints saves only the final state of each operation
	// (PULUMI_SKIP_CHECKPOINTS; no longer behind PULUMI_EXPERIMENTAL in v3.276) instead
	// of a snapshot after every step. Previews skip them in every round.
	skipCheckpoints bool
	// prebuilt runs the program built once before the rounds (runtime.options.binary)
	// instead of a go build by the language host before each operation.
	prebuilt bool
	// previewOnly stops the round after the first preview: a minute or two instead of
	// half an hour at 100 teams, to profile it (README "Test tiers", the bench).
	previewOnly bool
}

// benchRounds are the rounds AKSML_BENCH_ROUNDS picks from.
var benchRounds = map[string]benchRoundConfig{
	"fast":     {parallel: benchParallel, skipCheckpoints: true, prebuilt: true},
	"prebuilt": {prebuilt: true},
	"defaults": {},
	"preview":  {prebuilt: true, previewOnly: true},
}

// benchRound runs preview, up, kubectl's dry run of the same objects, a
// no-change up and destroy (only the preview when cfg.previewOnly), logging each
// figure as soon as it is measured.
func benchRound(t *testing.T, ctx context.Context, s auto.Stack, k kubectl, floor floorDryRun, dir, objFile, name string, cfg benchRoundConfig, teams int, addTeam func() (restore func())) {
	t.Helper()
	p := cfg.parallel
	logf := func(format string, args ...any) {
		t.Logf("bench %s (parallel %d, skip checkpoints %t, prebuilt %t): %s", name, p, cfg.skipCheckpoints, cfg.prebuilt, fmt.Sprintf(format, args...))
	}

	// Every round previews as the workflows do, with PULUMI_SKIP_CHECKPOINTS: a
	// preview persists nothing (the DIY backend discards its snapshots), yet without
	// it the engine serialises the whole deployment after every step (pulumi v3.276.0
	// pkg/backend/snapshot.go; README "Test tiers", the bench); and with
	// PULUMI_PARALLEL 16 (a round's own parallelism wins): a preview waits on the API
	// server, not the CPU, and the engine's default is 4 steps per CPU.
	require.NoError(t, s.Workspace().SetEnvVars(map[string]string{"PULUMI_SKIP_CHECKPOINTS": "true", "PULUMI_PARALLEL": fmt.Sprint(workflowPreviewParallel)}))
	op := startOp(t, dir, "bench-"+name+"-preview")
	_, err := s.Preview(ctx, optpreview.Parallel(p), optpreview.EventStreams(op.log.ch), optpreview.ProgressStreams(op.out), optpreview.ErrorProgressStreams(op.out))
	op.finish(t)
	require.NoError(t, err, "preview:\n%s", op.tail())
	preview := op.took
	previewParallel := workflowPreviewParallel
	if p > 0 {
		previewParallel = p
	}
	logf("first preview (PULUMI_SKIP_CHECKPOINTS, parallel %d; the workflows preview at %d) %v", previewParallel, workflowPreviewParallel, preview.Round(time.Millisecond))
	// The ups run with the engine's default parallelism (or the round's).
	s.Workspace().UnsetEnvVar("PULUMI_PARALLEL")

	if cfg.previewOnly {
		// The dry runs it is compared with need the namespaces an up creates: the
		// other rounds measure them.
		return
	}

	env := map[string]string{"PULUMI_SKIP_CHECKPOINTS": "false"}
	if cfg.skipCheckpoints {
		env = map[string]string{"PULUMI_SKIP_CHECKPOINTS": "true"}
	}
	require.NoError(t, s.Workspace().SetEnvVars(env))

	timed := newTimedLog()
	op = startOp(t, dir, "bench-"+name+"-up")
	_, err = s.Up(ctx, optup.Parallel(p), optup.EventStreams(op.log.ch, timed.ch), optup.ProgressStreams(op.out), optup.ErrorProgressStreams(op.out))
	op.finish(t)
	require.NoError(t, err, "up:\n%s", op.tail())
	upTook := op.took
	logf("first up %v; longest steps by resource type (count, longest, sum): %s", op.took.Round(time.Millisecond), timed.slowest(t, 6))
	logf("state after the first up: %s", stateBreakdown(t, filepath.Join(dir, "state"), 6))

	// kubectl's server-side dry run needs the namespaces to exist, so it runs once
	// up created them: the API server still admits and validates every object.
	start := time.Now()
	_, stderr, err := k.run(ctx, nil, "apply", "--server-side", "--dry-run=server", "--force-conflicts",
		"--field-manager=aksml-bench", "-f", objFile)
	require.NoError(t, err, "kubectl dry run: %s", stderr)
	dryRun := time.Since(start)
	logf("kubectl apply --server-side --dry-run=server of the same objects %v: the first preview took %.1fx",
		dryRun.Round(time.Millisecond), ratio(preview, dryRun))
	least := floor.run(t, ctx)
	logf("unthrottled floor (server-side apply dry run, %d requests in flight, no client-side limit) %v: the first preview took %.1fx, the first up %.1fx, kubectl's dry run %.1fx",
		floorWorkers, least.Round(time.Millisecond), ratio(preview, least), ratio(upTook, least), ratio(dryRun, least))

	op = startOp(t, dir, "bench-"+name+"-up-again")
	_, err = s.Up(ctx, optup.Parallel(p), optup.EventStreams(op.log.ch), optup.ProgressStreams(op.out), optup.ErrorProgressStreams(op.out))
	evs := op.finish(t)
	require.NoError(t, err, "second up:\n%s", op.tail())
	require.Empty(t, changes(evs), "the no-change up changed resources")
	logf("no-change up %v", op.took.Round(time.Millisecond))

	// A team onboarded into the same stack: its objects are created, the platform-wide
	// objects that list the teams are updated, and every step still rewrites the state
	// of the whole platform.
	restore := addTeam()
	op = startOp(t, dir, "bench-"+name+"-onboard")
	_, err = s.Up(ctx, optup.Parallel(p), optup.EventStreams(op.log.ch), optup.ProgressStreams(op.out), optup.ErrorProgressStreams(op.out))
	evs = op.finish(t)
	restore()
	require.NoError(t, err, "onboarding up:\n%s", op.tail())
	ops := map[string]int{}
	for urn, st := range changes(evs) {
		ops[string(st.Op)]++
		if st.Op == "create" {
			require.Contains(t, urn, synth.BenchTeam(teams), "onboarding %s created another object", synth.BenchTeam(teams))
		}
	}
	require.NotZero(t, ops["create"], "onboarding %s created nothing", synth.BenchTeam(teams))
	logf("onboarding one more team (%s: an up of the %d-team stack with %d teams) %v: %v",
		synth.BenchTeam(teams), teams, teams+1, op.took.Round(time.Millisecond), ops)

	op = startOp(t, dir, "bench-"+name+"-destroy")
	_, err = s.Destroy(ctx, optdestroy.Parallel(p), optdestroy.EventStreams(op.log.ch), optdestroy.ProgressStreams(op.out), optdestroy.ErrorProgressStreams(op.out))
	op.finish(t)
	require.NoError(t, err, "destroy:\n%s", op.tail())
	logf("destroy %v", op.took.Round(time.Millisecond))
}

// stateBreakdown summarises the stack's checkpoint file under the file backend at state:
// its size, bytes per resource, and the resource types that take most of it, with the
// part of each type's bytes that are outputs and, of those, the server's managedFields, the
// status and the provider's copy of the last inputs (what a checkpointed up rewrites after
// every step; issue 32).
func stateBreakdown(t *testing.T, state string, n int) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(state, ".pulumi", "stacks", "*", "*.json"))
	require.NoError(t, err)
	require.Len(t, files, 1, "one checkpoint file under %s", state)
	b, err := os.ReadFile(files[0])
	require.NoError(t, err)
	var doc struct {
		Checkpoint struct {
			Latest struct {
				Resources []map[string]json.RawMessage `json:"resources"`
			} `json:"latest"`
		} `json:"checkpoint"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	type agg struct {
		typ                                               string
		count, bytes, outputs, managed, status, oldInputs int
	}
	byType := map[string]*agg{}
	compact := func(raw json.RawMessage) int {
		var buf bytes.Buffer
		if json.Compact(&buf, raw) != nil {
			return len(raw)
		}
		return buf.Len()
	}
	total := 0
	for _, r := range doc.Checkpoint.Latest.Resources {
		var typ string
		_ = json.Unmarshal(r["type"], &typ)
		a := byType[typ]
		if a == nil {
			a = &agg{typ: typ}
			byType[typ] = a
		}
		a.count++
		for _, v := range r {
			a.bytes += compact(v)
		}
		a.outputs += compact(r["outputs"])
		var out struct {
			Metadata struct {
				ManagedFields json.RawMessage `json:"managedFields"`
			} `json:"metadata"`
			Status json.RawMessage `json:"status"`
			// The provider's copy of the inputs it last applied.
			OldInputs json.RawMessage `json:"__inputs"`
		}
		if json.Unmarshal(r["outputs"], &out) == nil {
			a.managed += compact(out.Metadata.ManagedFields)
			a.status += compact(out.Status)
			a.oldInputs += compact(out.OldInputs)
		}
	}
	aggs := make([]*agg, 0, len(byType))
	for _, a := range byType {
		total += a.bytes
		aggs = append(aggs, a)
	}
	sort.Slice(aggs, func(i, j int) bool { return aggs[i].bytes > aggs[j].bytes })
	parts := []string{fmt.Sprintf("%s, %d resources, %.1f KB per resource on disk (%.1f KB as compact JSON)",
		mb(len(b)), len(doc.Checkpoint.Latest.Resources), float64(len(b))/1024/float64(max(1, len(doc.Checkpoint.Latest.Resources))),
		float64(total)/1024/float64(max(1, len(doc.Checkpoint.Latest.Resources))))}
	for _, a := range aggs[:min(n, len(aggs))] {
		parts = append(parts, fmt.Sprintf("%s ×%d %s (outputs %d%%, of which managedFields %d%%, status %d%%, the provider's copy of the inputs (__inputs) %d%%)",
			a.typ, a.count, mb(a.bytes), pct(a.outputs, a.bytes), pct(a.managed, a.outputs), pct(a.status, a.outputs), pct(a.oldInputs, a.outputs)))
	}
	return strings.Join(parts, "; ")
}

func mb(n int) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

func pct(a, b int) int {
	if b == 0 {
		return 0
	}
	return a * 100 / b
}

// floorWorkers is how many requests the floor keeps in flight: the engine's default
// parallelism on this 2-core machine (4 per CPU) is 8, the fast round's 64.
const floorWorkers = 16

// floorDryRun runs tests/cluster/cmd/dryrun: the same objects as kubectl's dry run, from a
// client without client-side throttling, floorWorkers requests in flight.
type floorDryRun struct{ bin, kubeconfig, objFile string }

// run returns the duration the command reports (its requests only).
func (f floorDryRun) run(t *testing.T, ctx context.Context) time.Duration {
	t.Helper()
	out, err := exec.CommandContext(ctx, f.bin, "-kubeconfig", f.kubeconfig, "-f", f.objFile, "-workers", fmt.Sprint(floorWorkers)).CombinedOutput()
	require.NoError(t, err, "dryrun: %s", out)
	m := floorLine.FindStringSubmatch(string(out))
	require.NotNil(t, m, "dryrun printed %q", out)
	d, err := time.ParseDuration(m[1])
	require.NoError(t, err)
	return d
}

// floorLine is cmd/dryrun's result line.
var floorLine = regexp.MustCompile(`dryrun: \d+ objects in (\S+) \(`)

// timedLog records when each resource step starts and when its outputs arrive.
type timedLog struct {
	ch    chan events.EngineEvent
	done  chan struct{}
	start map[string]time.Time
	took  map[string]time.Duration
}

func newTimedLog() *timedLog {
	l := &timedLog{ch: make(chan events.EngineEvent), done: make(chan struct{}), start: map[string]time.Time{}, took: map[string]time.Duration{}}
	go func() {
		for e := range l.ch {
			now := time.Now()
			switch {
			case e.ResourcePreEvent != nil:
				l.start[e.ResourcePreEvent.Metadata.URN] = now
			case e.ResOutputsEvent != nil:
				urn := e.ResOutputsEvent.Metadata.URN
				if s, ok := l.start[urn]; ok {
					l.took[urn] = now.Sub(s)
				}
			}
		}
		close(l.done)
	}()
	return l
}

// slowest summarises the n resource types with the longest single step.
func (l *timedLog) slowest(t *testing.T, n int) string {
	t.Helper()
	select {
	case <-l.done:
	case <-time.After(eventsDrainTimeout):
		t.Fatalf("the engine event stream was not closed %v after up returned", eventsDrainTimeout)
	}
	type agg struct {
		typ      string
		count    int
		max, sum time.Duration
	}
	byType := map[string]*agg{}
	for urn, d := range l.took {
		typ := urn
		if parts := strings.Split(urn, "::"); len(parts) >= 4 {
			typ = parts[len(parts)-2]
			if i := strings.LastIndex(typ, "$"); i >= 0 {
				typ = typ[i+1:]
			}
		}
		a := byType[typ]
		if a == nil {
			a = &agg{typ: typ}
			byType[typ] = a
		}
		a.count++
		a.sum += d
		if d > a.max {
			a.max = d
		}
	}
	var all []*agg
	for _, a := range byType {
		all = append(all, a)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].max > all[j].max })
	var out []string
	for i, a := range all {
		if i == n {
			break
		}
		out = append(out, fmt.Sprintf("%s (%d, %v, %v)", a.typ, a.count, a.max.Round(time.Millisecond), a.sum.Round(time.Millisecond)))
	}
	return strings.Join(out, "; ")
}
