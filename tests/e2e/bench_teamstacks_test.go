//go:build e2e

package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/internal/synth"
)

// TestBenchTeamStacks measures the team-stack layout (aksml:teamStacks) on the
// bench's stack (benchScaleFor: 100 teams unless AKSML_BENCH_TEAMS): the
// platform stack "bench" keeps every team's definition and the shared objects,
// and team stacks of AKSML_BENCH_TEAMS_PER_STACK teams each (default 4) hold
// the teams' objects. Everything runs as a user's `pulumi up` does: the
// program built once, checkpoints on, the engine's default parallelism; the
// team stacks' ups run AKSML_BENCH_STACKS_AT_ONCE at a time (default 2, as
// two deploy jobs would on a 2-core runner; the stacks are independent).
// It logs the platform's first up, the team stacks' first ups (each and all),
// a no-change up of the platform and of one team stack, onboarding one more
// team (a platform up and its team stack's up), and destroy (team stacks
// first), with the state each stack holds. A benchmark: it asserts that each
// operation succeeds and that the no-change ups change nothing.
func TestBenchTeamStacks(t *testing.T) {
	if os.Getenv(benchEnv) == "" {
		t.Skipf("a benchmark: run it with %s=1", benchEnv)
	}
	perStack := envInt(t, "AKSML_BENCH_TEAMS_PER_STACK", 4)
	atOnce := envInt(t, "AKSML_BENCH_STACKS_AT_ONCE", 2)
	r := startPrebuiltSandbox(t, "bench-teamstacks")
	ctx, tc, dir, work := r.ctx, r.tc, r.dir, r.work
	local, err := synth.ReadStackConfig(work, stackName)
	require.NoError(t, err)
	scale := benchScaleFor(t)
	cfg, err := scale.Config(local)
	require.NoError(t, err)

	const platformName = "bench"
	assignment := map[string][]string{}
	var teamStacks []string
	for i := 0; i < scale.Teams; i++ {
		name := fmt.Sprintf("%s-t%02d", platformName, i/perStack)
		if len(assignment[name]) == 0 {
			teamStacks = append(teamStacks, name)
		}
		assignment[name] = append(assignment[name], synth.BenchTeam(i))
	}
	raw, err := json.Marshal(assignment)
	require.NoError(t, err)
	cfg[synth.Project+":teamStacks"] = string(raw)
	require.NoError(t, synth.WriteStackConfig(work, platformName, cfg))
	for _, name := range teamStacks {
		require.NoError(t, synth.WriteStackConfig(work, name, map[string]string{synth.Project + ":platformStack": "organization/" + synth.Project + "/" + platformName}))
	}

	platform := newStack(t, ctx, tc, work, dir, platformName)
	team := map[string]auto.Stack{}
	for _, name := range teamStacks {
		team[name] = newStack(t, ctx, tc, work, dir, name)
	}
	desired, err := synth.Synth(work, platformName)
	require.NoError(t, err)
	logf := func(format string, args ...any) {
		t.Logf("bench team stacks (%d teams, %d team stacks of up to %d, %d at once, checkpoints on, prebuilt): %s",
			scale.Teams, len(teamStacks), perStack, atOnce, fmt.Sprintf(format, args...))
	}
	logf("platform stack: %d resources", len(desired.Resources)+1)

	up := func(s auto.Stack, name string) (time.Duration, map[string]int) {
		t.Helper()
		took, changed, err := upTimed(t, ctx, s, dir, name)
		require.NoError(t, err)
		return took, changed
	}
	// each runs f on every team stack, atOnce at a time, and returns the wall
	// time of all and each one's time. f runs in goroutines, so it returns
	// its error, and the first one fails the test once all have ended.
	each := func(f func(name string) (time.Duration, error)) (time.Duration, []time.Duration) {
		t.Helper()
		start := time.Now()
		took := make([]time.Duration, len(teamStacks))
		errs := make([]error, len(teamStacks))
		sem := make(chan struct{}, atOnce)
		var wg sync.WaitGroup
		for i, name := range teamStacks {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				took[i], errs[i] = f(name)
			}()
		}
		wg.Wait()
		require.NoError(t, errors.Join(errs...))
		return time.Since(start), took
	}
	spread := func(ds []time.Duration) string {
		s := slices.Clone(ds)
		slices.Sort(s)
		return fmt.Sprintf("fastest %v, median %v, slowest %v", s[0].Round(10*time.Millisecond), s[len(s)/2].Round(10*time.Millisecond), s[len(s)-1].Round(10*time.Millisecond))
	}

	platformUp, changed := up(platform, "platform-up")
	logf("platform first up %v (%v)", platformUp.Round(10*time.Millisecond), changed)
	// upAll runs every team stack's up but skip's, suffix naming the
	// operations, and counts the steps of kind op.
	upAll := func(suffix, op, skip string) (time.Duration, []time.Duration, int) {
		var mu sync.Mutex
		n := 0
		all, took := each(func(name string) (time.Duration, error) {
			if name == skip {
				return 0, nil
			}
			d, c, err := upTimed(t, ctx, team[name], dir, name+suffix)
			mu.Lock()
			n += c[op]
			mu.Unlock()
			return d, err
		})
		return all, took, n
	}
	teamsUp, each1, created := upAll("-up", "create", "")
	logf("team stacks' first ups: %v for all (%d resources created; %s); with the platform's: %v",
		teamsUp.Round(10*time.Millisecond), created, spread(each1), (platformUp + teamsUp).Round(10*time.Millisecond))
	logf("state after the first ups: platform %s, team stacks %s", stateSize(t, dir, platformName), stateSize(t, dir, platformName+"-t*"))

	unchanged := func(c map[string]int, what string) {
		t.Helper()
		for op, n := range c {
			require.True(t, op == "same" || op == "read", "%s's no-change up: %d %s", what, n, op)
		}
	}
	again, c := up(platform, "platform-up-again")
	unchanged(c, "the platform")
	last := teamStacks[len(teamStacks)-1]
	teamAgain, c := up(team[last], last+"-up-again")
	unchanged(c, "a team stack")
	logf("no-change up: platform %v, one team stack %v", again.Round(10*time.Millisecond), teamAgain.Round(10*time.Millisecond))

	// One more team, into the last team stack: the platform declares it (its
	// share of the pool, the lists of teams), then the team stack creates its
	// objects.
	next := scale
	next.Teams++
	nextCfg, err := next.Config(local)
	require.NoError(t, err)
	assignment[last] = append(assignment[last], synth.BenchTeam(scale.Teams))
	edits := map[string]any{}
	for _, k := range []string{"teams", "gpuPools"} {
		var v any
		require.NoError(t, json.Unmarshal([]byte(nextCfg[synth.Project+":"+k]), &v))
		edits[synth.Project+":"+k] = v
	}
	edits[synth.Project+":teamStacks"] = assignment
	editStackConfig(t, work, platformName, func(c map[string]any) {
		for k, v := range edits {
			c[k] = v
		}
	})
	onboardPlatform, cp := up(platform, "onboard-platform-up")
	onboardTeam, ct := up(team[last], "onboard-"+last+"-up")
	require.NotZero(t, ct["create"], "onboarding created nothing in the team stack")
	logf("onboarding %s: platform up %v (%v) + team stack up %v (%v) = %v", synth.BenchTeam(scale.Teams),
		onboardPlatform.Round(10*time.Millisecond), cp, onboardTeam.Round(10*time.Millisecond), ct, (onboardPlatform + onboardTeam).Round(10*time.Millisecond))
	// The other team stacks converge on their next up: a team's namespace
	// quota follows the pool, which grew by the new team's GPUs.
	converge, each3, updated := upAll("-converge", "update", last)
	logf("the other team stacks' ups after the onboarding: %v for all (%d resources updated; %s); onboarding until every stack converged: %v",
		converge.Round(10*time.Millisecond), updated, spread(each3[:len(each3)-1]), (onboardPlatform + onboardTeam + converge).Round(10*time.Millisecond))

	teamsDown, each2 := each(func(name string) (time.Duration, error) {
		return destroyTimed(t, ctx, team[name], dir, name+"-destroy")
	})
	platformDown, err := destroyTimed(t, ctx, platform, dir, "platform-destroy")
	require.NoError(t, err)
	logf("destroy: team stacks %v (%s), then the platform %v: %v", teamsDown.Round(10*time.Millisecond), spread(each2),
		platformDown.Round(10*time.Millisecond), (teamsDown + platformDown).Round(10*time.Millisecond))
}

// envInt reads a positive integer from the environment, def when unset.
func envInt(t *testing.T, key string, def int) int {
	t.Helper()
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, "%s=%q: want a number", key, v)
	require.Positive(t, n, "%s", key)
	return n
}

// stateSize sums the checkpoint files of the stacks matching glob under the
// run's file backend.
func stateSize(t *testing.T, dir, glob string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "state", ".pulumi", "stacks", synth.Project, glob+".json"))
	require.NoError(t, err)
	total := 0
	for _, f := range files {
		st, err := os.Stat(f)
		require.NoError(t, err)
		total += int(st.Size())
	}
	return fmt.Sprintf("%s in %d file(s)", mb(total), len(files))
}
