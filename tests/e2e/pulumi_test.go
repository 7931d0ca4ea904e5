//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/events"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/stretchr/testify/require"
)

// eventsDrainTimeout bounds the wait for the Automation API to close an event
// channel after its operation returned.
const eventsDrainTimeout = time.Minute

// newStack points the process at an offline, file-backed Pulumi (plugins from
// tc, state and PULUMI_HOME under dir) and selects or creates the stack of
// the project in work.
func newStack(t *testing.T, ctx context.Context, tc toolchain, work, dir, stack string) auto.Stack {
	t.Helper()
	state := filepath.Join(dir, "state")
	home := filepath.Join(dir, "pulumi-home")
	require.NoError(t, os.MkdirAll(state, 0o755))
	require.NoError(t, os.MkdirAll(home, 0o755))
	if tc.dir != "" {
		t.Setenv("PATH", tc.dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	for k, v := range map[string]string{
		"PULUMI_BACKEND_URL":                          "file://" + state,
		"PULUMI_HOME":                                 home,
		"PULUMI_CONFIG_PASSPHRASE":                    "aksml-e2e",
		"PULUMI_SKIP_UPDATE_CHECK":                    "true",
		"PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true",
		"PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK":    "true",
	} {
		t.Setenv(k, v)
	}
	opts := &auto.PulumiCommandOptions{SkipVersionCheck: true}
	if tc.dir != "" {
		// NewPulumiCommand runs <Root>/bin/pulumi.
		root := filepath.Join(dir, "pulumi-root")
		require.NoError(t, os.MkdirAll(root, 0o755))
		// A test that opens several stacks (or project directories) in one
		// run reuses the link.
		if _, err := os.Lstat(filepath.Join(root, "bin")); os.IsNotExist(err) {
			require.NoError(t, os.Symlink(tc.dir, filepath.Join(root, "bin")))
		}
		opts.Root = root
	}
	cmd, err := auto.NewPulumiCommand(opts)
	require.NoError(t, err)
	s, err := auto.UpsertStackLocalSource(ctx, stack, work, auto.Pulumi(cmd))
	require.NoError(t, err, "select or create stack %s in %s", stack, work)
	return s
}

// prebuilt is the program of a working copy built once by tools/prebuilt/prebuilt.sh,
// as the demo and the workflows build it (issue 32): project is the copy's Pulumi.yaml
// rewritten to run it; used is the file the script's language host wrapper creates
// when the CLI starts it; took is the build's wall time.
type prebuilt struct {
	project []byte
	used    string
	took    time.Duration
}

// buildPrebuilt runs the working copy's tools/prebuilt/prebuilt.sh into dir/prebuilt
// on a copy of its Pulumi.yaml (the caller writes project where it wants it).
func buildPrebuilt(t *testing.T, ctx context.Context, tc toolchain, work, dir string) prebuilt {
	t.Helper()
	out := filepath.Join(dir, "prebuilt")
	require.NoError(t, os.MkdirAll(out, 0o755))
	project := filepath.Join(out, "Pulumi.yaml")
	b, err := os.ReadFile(filepath.Join(work, "Pulumi.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(project, b, 0o644))
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(work, "tools", "prebuilt", "prebuilt.sh"), out, project)
	cmd.Env = os.Environ()
	if tc.dir != "" {
		cmd.Env = append(cmd.Env, "AKSML_BIN="+tc.dir)
	}
	start := time.Now()
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "tools/prebuilt/prebuilt.sh:\n%s", msg)
	p := prebuilt{used: filepath.Join(out, "host", "used"), took: time.Since(start)}
	p.project, err = os.ReadFile(project)
	require.NoError(t, err)
	require.Contains(t, string(p.project), "binary: "+filepath.Join(out, "aksml-program"))
	return p
}

// eventLog collects the engine events of one operation.
type eventLog struct {
	ch     chan events.EngineEvent
	done   chan struct{}
	events []events.EngineEvent
}

func newEventLog() *eventLog {
	l := &eventLog{ch: make(chan events.EngineEvent), done: make(chan struct{})}
	go func() {
		for e := range l.ch {
			l.events = append(l.events, e)
		}
		close(l.done)
	}()
	return l
}

// wait returns the events once the Automation API has closed the channel.
func (l *eventLog) wait(t *testing.T) []events.EngineEvent {
	t.Helper()
	select {
	case <-l.done:
	case <-time.After(eventsDrainTimeout):
		t.Fatalf("the engine event stream was not closed %v after the operation returned", eventsDrainTimeout)
	}
	return l.events
}

// steps returns the resource steps of an operation by URN (the last
// ResourcePreEvent of each resource).
func steps(evs []events.EngineEvent) map[string]apitype.StepEventMetadata {
	out := map[string]apitype.StepEventMetadata{}
	for _, e := range evs {
		if e.ResourcePreEvent != nil {
			out[e.ResourcePreEvent.Metadata.URN] = e.ResourcePreEvent.Metadata
		}
	}
	return out
}

// unchangedOps are the steps that change nothing: "same" and the reads of
// existing objects, as the engine's own --expect-no-changes counts them
// (pulumi pkg/engine/update.go HasChanges).
var unchangedOps = []apitype.OpType{apitype.OpSame, apitype.OpRead, apitype.OpReadDiscard, apitype.OpReadReplacement}

// changes returns the steps that change something (not unchangedOps), by URN.
func changes(evs []events.EngineEvent) map[string]apitype.StepEventMetadata {
	out := map[string]apitype.StepEventMetadata{}
	for urn, s := range steps(evs) {
		if !slices.Contains(unchangedOps, s.Op) {
			out[urn] = s
		}
	}
	return out
}

// policyViolations returns the policy events of an operation.
func policyViolations(evs []events.EngineEvent) []apitype.PolicyEvent {
	var out []apitype.PolicyEvent
	for _, e := range evs {
		if e.PolicyEvent != nil {
			out = append(out, *e.PolicyEvent)
		}
	}
	return out
}

// byLevel counts policy events per enforcement level.
func byLevel(pes []apitype.PolicyEvent) map[string]int {
	out := map[string]int{}
	for _, p := range pes {
		out[p.EnforcementLevel]++
	}
	return out
}

// describeSteps renders steps for messages: op, URN and the changed
// properties with their kind of difference.
func describeSteps(ss map[string]apitype.StepEventMetadata) string {
	var lines []string
	for _, urn := range sortedKeys(ss) {
		s := ss[urn]
		var paths []string
		for _, p := range sortedKeys(s.DetailedDiff) {
			paths = append(paths, fmt.Sprintf("%s (%s)", p, s.DetailedDiff[p].Kind))
		}
		lines = append(lines, fmt.Sprintf("  %s %s\n      diffs: %s", s.Op, urn, strings.Join(paths, ", ")))
	}
	return strings.Join(lines, "\n")
}

// opsSummary renders a change summary ("create: 40, same: 1") sorted by op.
func opsSummary[K ~string](m map[K]int) string {
	var parts []string
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s: %d", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// outputFile opens a log file for an operation's progress output.
func outputFile(t *testing.T, dir, name string) io.WriteCloser {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, name+".log"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// prebuiltSandbox is one run of the tier: a copy of the working tree (stack
// secrets dropped) whose Pulumi.yaml runs the program built once, and the
// sandbox started from it.
type prebuiltSandbox struct {
	ctx       context.Context
	tc        toolchain
	dir, work string
	k         kubectl
}

// startPrebuiltSandbox prepares the run name (startRun) as prebuiltSandbox.
func startPrebuiltSandbox(t *testing.T, name string) prebuiltSandbox {
	t.Helper()
	root := repoRoot(t)
	r := prebuiltSandbox{tc: findToolchain(t, root)}
	r.ctx, r.dir = startRun(t, name)
	r.work = filepath.Join(r.dir, "work")
	copyWorkingTree(t, root, r.work)
	dropStackSecrets(t, r.work)
	pb := buildPrebuilt(t, r.ctx, r.tc, r.work, r.dir)
	require.NoError(t, os.WriteFile(filepath.Join(r.work, "Pulumi.yaml"), pb.project, 0o644))
	clusterBin := envOr("AKSML_CLUSTER_BIN", filepath.Join(root, "tests", "cluster", "bin"))
	sb := startSandbox(t, r.work, clusterBin, sharedFolder(t, root), r.dir)
	r.k = kubectl{kubeconfig: sb.kubeconfig}
	return r
}

// upTimed runs an up of s, its output in <dir>/<name>.log, and returns its
// wall time and the engine's resource changes; an error carries the
// output's tail. It does not fail the test itself, so that goroutines may
// call it.
func upTimed(t *testing.T, ctx context.Context, s auto.Stack, dir, name string) (time.Duration, map[string]int, error) {
	op := startOp(t, dir, name)
	res, err := s.Up(ctx, optup.EventStreams(op.log.ch), optup.ProgressStreams(op.out), optup.ErrorProgressStreams(op.out))
	op.finish(t)
	if err != nil {
		return op.took, nil, fmt.Errorf("%s: %w\n%s", name, err, op.tail())
	}
	return op.took, *res.Summary.ResourceChanges, nil
}

// destroyTimed is upTimed for a destroy.
func destroyTimed(t *testing.T, ctx context.Context, s auto.Stack, dir, name string) (time.Duration, error) {
	op := startOp(t, dir, name)
	_, err := s.Destroy(ctx, optdestroy.EventStreams(op.log.ch), optdestroy.ProgressStreams(op.out), optdestroy.ErrorProgressStreams(op.out))
	op.finish(t)
	if err != nil {
		return op.took, fmt.Errorf("%s: %w\n%s", name, err, op.tail())
	}
	return op.took, nil
}
