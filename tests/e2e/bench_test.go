//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/events"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/aksml/aksml/internal/synth"
)

// benchEnv turns the benchmarks on; `make bench` sets it.
const benchEnv = "AKSML_BENCH"

// benchScale is the stack TestBenchEngine deploys: the local stack with 100 teams
// (synth.Bench; the same stack the cluster tier's TestBenchAdmission queues Jobs on).
var benchScale = synth.BenchScale

// benchParallel is the engine parallelism of the fast round.
const benchParallel = 64

// TestBenchEngine measures the real engine on the 100-team stack against the sandbox,
// in rounds (AKSML_BENCH_ROUNDS, default "fast,defaults"): "fast" raises the engine's
// parallelism to benchParallel and saves only the final state of each operation
// (PULUMI_SKIP_CHECKPOINTS), "defaults" runs the engine as it comes. Each round times the
// first preview, the first up (with the resource types whose steps take longest),
// kubectl's server-side dry run of the same objects, a no-change up and destroy. A
// benchmark: it asserts that each operation succeeds and that the no-change up changes
// nothing, and logs the figures.
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
	// The program is built once, as a pipeline builds it before preview and up; the
	// rounds with prebuilt run it (prebuiltProject), the others let the language host
	// run go build before each operation.
	program := filepath.Join(dir, "aksml-program")
	start := time.Now()
	build := exec.CommandContext(ctx, "go", "build", "-o", program, ".")
	build.Dir = work
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build the program:\n%s", out)
	t.Logf("bench: go build of the program (warm cache) %v", time.Since(start).Round(time.Millisecond))
	project, err := os.ReadFile(filepath.Join(work, "Pulumi.yaml"))
	require.NoError(t, err)
	s := newStack(t, ctx, tc, work, dir, stack)

	t.Logf("bench: %d teams, %d resources, %d Kubernetes objects", benchScale.Teams, len(desired.Resources)+1, len(objs))
	rounds := strings.Split(envOr("AKSML_BENCH_ROUNDS", "fast,defaults"), ",")
	for _, r := range rounds {
		cfg, ok := benchRounds[r]
		require.True(t, ok, "AKSML_BENCH_ROUNDS: unknown round %q (fast, prebuilt, defaults)", r)
		y := project
		if cfg.prebuilt {
			y, err = prebuiltProject(project, program, languageHostFor(t, tc, dir, program))
			require.NoError(t, err)
		}
		require.NoError(t, os.WriteFile(filepath.Join(work, "Pulumi.yaml"), y, 0o644))
		_ = os.Remove(filepath.Join(dir, "prebuilt-host", hostUsedMark))
		benchRound(t, ctx, s, k, dir, objFile, r, cfg)
		if cfg.prebuilt {
			require.FileExists(t, filepath.Join(dir, "prebuilt-host", hostUsedMark), "round %s: the CLI did not run the prebuilt program's language host", r)
		}
	}
}

// benchRoundConfig is how one round drives the engine.
type benchRoundConfig struct {
	// parallel is --parallel; 0 is the engine's default (4 per CPU).
	parallel int
	// skipCheckpoints saves only the final state of each operation
	// (PULUMI_SKIP_CHECKPOINTS, experimental since Pulumi 3.40.1) instead of a
	// snapshot after every step.
	skipCheckpoints bool
	// prebuilt runs the program built once before the rounds (runtime.options.binary)
	// instead of a go build by the language host before each operation.
	prebuilt bool
}

// benchRounds are the rounds AKSML_BENCH_ROUNDS picks from (default: both).
var benchRounds = map[string]benchRoundConfig{
	"fast":     {parallel: benchParallel, skipCheckpoints: true, prebuilt: true},
	"prebuilt": {prebuilt: true},
	"defaults": {},
}

// benchRound runs preview, up, kubectl's dry run of the same objects, a
// no-change up and destroy, logging each figure as soon as it is measured.
func benchRound(t *testing.T, ctx context.Context, s auto.Stack, k kubectl, dir, objFile, name string, cfg benchRoundConfig) {
	t.Helper()
	env := map[string]string{"PULUMI_SKIP_CHECKPOINTS": "false", "PULUMI_EXPERIMENTAL": "false"}
	if cfg.skipCheckpoints {
		env = map[string]string{"PULUMI_SKIP_CHECKPOINTS": "true", "PULUMI_EXPERIMENTAL": "true"}
	}
	require.NoError(t, s.Workspace().SetEnvVars(env))
	p := cfg.parallel
	logf := func(format string, args ...any) {
		t.Logf("bench %s (parallel %d, skip checkpoints %t, prebuilt %t): %s", name, p, cfg.skipCheckpoints, cfg.prebuilt, fmt.Sprintf(format, args...))
	}

	op := startOp(t, dir, "bench-"+name+"-preview")
	_, err := s.Preview(ctx, optpreview.Parallel(p), optpreview.EventStreams(op.log.ch), optpreview.ProgressStreams(op.out), optpreview.ErrorProgressStreams(op.out))
	op.finish(t)
	require.NoError(t, err, "preview:\n%s", op.tail())
	preview := op.took
	logf("first preview %v", preview.Round(time.Millisecond))

	timed := newTimedLog()
	op = startOp(t, dir, "bench-"+name+"-up")
	_, err = s.Up(ctx, optup.Parallel(p), optup.EventStreams(op.log.ch, timed.ch), optup.ProgressStreams(op.out), optup.ErrorProgressStreams(op.out))
	op.finish(t)
	require.NoError(t, err, "up:\n%s", op.tail())
	logf("first up %v; longest steps by resource type (count, longest, sum): %s", op.took.Round(time.Millisecond), timed.slowest(t, 6))

	// kubectl's server-side dry run needs the namespaces to exist, so it runs once
	// up created them: the API server still admits and validates every object.
	start := time.Now()
	_, stderr, err := k.run(ctx, nil, "apply", "--server-side", "--dry-run=server", "--force-conflicts",
		"--field-manager=aksml-bench", "-f", objFile)
	require.NoError(t, err, "kubectl dry run: %s", stderr)
	dryRun := time.Since(start)
	logf("kubectl apply --server-side --dry-run=server of the same objects %v: the first preview took %.1fx",
		dryRun.Round(time.Millisecond), ratio(preview, dryRun))

	op = startOp(t, dir, "bench-"+name+"-up-again")
	_, err = s.Up(ctx, optup.Parallel(p), optup.EventStreams(op.log.ch), optup.ProgressStreams(op.out), optup.ErrorProgressStreams(op.out))
	evs := op.finish(t)
	require.NoError(t, err, "second up:\n%s", op.tail())
	require.Empty(t, changes(evs), "the no-change up changed resources")
	logf("no-change up %v", op.took.Round(time.Millisecond))

	op = startOp(t, dir, "bench-"+name+"-destroy")
	_, err = s.Destroy(ctx, optdestroy.Parallel(p), optdestroy.EventStreams(op.log.ch), optdestroy.ProgressStreams(op.out), optdestroy.ErrorProgressStreams(op.out))
	op.finish(t)
	require.NoError(t, err, "destroy:\n%s", op.tail())
	logf("destroy %v", op.took.Round(time.Millisecond))
}

// prebuiltProject returns the Pulumi.yaml project with its go runtime pointed at the
// prebuilt program (runtime.options.binary) and its go language host at hostDir
// (plugins.languages).
func prebuiltProject(project []byte, program, hostDir string) ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(project, &doc); err != nil {
		return nil, fmt.Errorf("Pulumi.yaml: %w", err)
	}
	if rt, ok := doc["runtime"].(string); !ok || rt != "go" {
		return nil, fmt.Errorf("Pulumi.yaml: runtime %v, want go", doc["runtime"])
	}
	doc["runtime"] = map[string]any{"name": "go", "options": map[string]any{"binary": program}}
	doc["plugins"] = map[string]any{"languages": []any{map[string]any{"name": "go", "path": hostDir}}}
	return yaml.Marshal(doc)
}

// languageHostFor returns a directory with a pulumi-language-go that runs program.
// The toolchain's host (sdk/v3 v3.66.0, the last release the module proxy serves with
// the host inside) reads the prebuilt program from its -binary flag, while CLI v3.276
// passes runtime.options in the Run request, which that host ignores: without the
// flag it builds the program before every operation (about 30-50 s here). The
// wrapper passes the flag; a current language host reads runtime.options.binary
// itself.
func languageHostFor(t *testing.T, tc toolchain, dir, program string) string {
	t.Helper()
	host := filepath.Join(tc.dir, "pulumi-language-go")
	if tc.dir == "" {
		var err error
		host, err = exec.LookPath("pulumi-language-go")
		require.NoError(t, err)
	}
	hostDir := filepath.Join(dir, "prebuilt-host")
	require.NoError(t, os.MkdirAll(hostDir, 0o755))
	// The host leaves a mark that the round checks: the wrapper, and so the prebuilt
	// program, is what the CLI ran.
	script := fmt.Sprintf("#!/bin/sh\ntouch %q\nexec %q -binary %q \"$@\"\n", filepath.Join(hostDir, hostUsedMark), host, program)
	require.NoError(t, os.WriteFile(filepath.Join(hostDir, "pulumi-language-go"), []byte(script), 0o755))
	return hostDir
}

// hostUsedMark is the file languageHostFor's wrapper creates when the CLI starts it.
const hostUsedMark = "used"

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
