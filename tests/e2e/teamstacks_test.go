//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/stacks"
)

// teamStack is the team stack of TestTeamStacks: team-a's objects, out of
// the local stack.
const teamStack = stackName + "-team-a"

// TestTeamStacks runs the team-stack layout (aksml:teamStacks,
// aksml:platformStack) with the real engine on the sandbox: the local stack
// as platform with team-a in a team stack, then that team stack; both
// previews after are empty (the two stacks do not fight over an object); a
// stack the platform assigns no team, and moving the deployed team back,
// are refused at preview; a team onboarded into the team stack takes a
// platform `up` and a team-stack `up`; the team stack is destroyed before
// the platform. Each step's time is logged.
func TestTeamStacks(t *testing.T) {
	r := startPrebuiltSandbox(t, "teamstacks")
	ctx, tc, dir, work, k := r.ctx, r.tc, r.dir, r.work, r.k

	platformFile := filepath.Join(work, stackConfigFile)
	shipped, err := os.ReadFile(platformFile)
	require.NoError(t, err)
	writePlatform := func(extra string) {
		t.Helper()
		require.NoError(t, os.WriteFile(platformFile, append(append([]byte(nil), shipped...), []byte(extra)...), 0o644))
	}
	const assignment = "  aksml:teamStacks:\n    " + teamStack + ":\n      - team-a\n"
	writePlatform(assignment)
	require.NoError(t, os.WriteFile(filepath.Join(work, "Pulumi."+teamStack+".yaml"),
		[]byte("config:\n  aksml:platformStack: organization/aksml/"+stackName+"\n"), 0o644))

	platform := newStack(t, ctx, tc, work, dir, stackName)
	team := newStack(t, ctx, tc, work, dir, teamStack)
	exists := func(args ...string) bool {
		_, _, err := k.run(ctx, nil, append([]string{"get"}, args...)...)
		return err == nil
	}
	up := func(s auto.Stack, name string) time.Duration {
		t.Helper()
		took, changed, err := upTimed(t, ctx, s, dir, name)
		require.NoError(t, err)
		t.Logf("%s: %v, %v", name, took.Round(10*time.Millisecond), changed)
		return took
	}
	noChanges := func(s auto.Stack, name string) {
		t.Helper()
		op := startOp(t, dir, name)
		_, err := s.Preview(ctx, optpreview.EventStreams(op.log.ch), optpreview.ProgressStreams(op.out), optpreview.ErrorProgressStreams(op.out))
		evs := op.finish(t)
		require.NoError(t, err, "%s:\n%s", name, op.tail())
		assert.Empty(t, changes(evs), "%s plans changes", name)
	}

	platformUp := up(platform, "platform-up")
	out, err := platform.Outputs(ctx)
	require.NoError(t, err)
	assert.True(t, out[stacks.TeamStackConfigOutput].Secret, "the platform exports its config, secret")
	assert.False(t, exists("namespace", "team-a"), "the platform created team-a's namespace")
	assert.True(t, exists("namespace", "team-b"))
	assert.True(t, exists("clusterqueue", "team-b-gpu"))
	assert.False(t, exists("clusterqueue", "team-a-gpu"))

	teamUp := up(team, "team-up")
	for _, obj := range [][]string{
		{"namespace", "team-a"}, {"resourcequota", "-n", "team-a", "team-quota"}, {"networkpolicy", "-n", "team-a", "aksml-default-deny"},
		{"clusterqueue", "team-a-gpu"}, {"localqueue", "-n", "team-a", "gpu-queue"}, {"persistentvolumeclaim", "-n", "team-a", "model-checkpoints"},
		{"job", "-n", "team-a", "resnet-finetune"},
	} {
		assert.True(t, exists(obj...), "the team stack created %v", obj)
	}
	owner, _, err := k.run(ctx, nil, "get", "namespace", "kube-system", "-o", "jsonpath={.metadata.annotations.aksml\\.io/owner}")
	require.NoError(t, err)
	assert.Equal(t, "organization/aksml/"+stackName, owner, "the cluster stays the platform's")

	noChanges(platform, "platform-preview-after")
	noChanges(team, "team-preview-after")

	other := newStack(t, ctx, tc, work, dir, stackName+"-team-c")
	require.NoError(t, other.SetConfig(ctx, "aksml:platformStack", auto.ConfigValue{Value: "organization/aksml/" + stackName}))
	_, err = other.Preview(ctx)
	require.Error(t, err, "a stack the platform assigns no team")
	assert.Contains(t, err.Error(), "assigns no team to this stack ("+stackName+"-team-c)")
	require.NoError(t, other.Workspace().RemoveStack(ctx, stackName+"-team-c"))

	writePlatform("")
	_, err = platform.Preview(ctx)
	require.Error(t, err, "team-a back into the platform while the team stack holds it")
	assert.Contains(t, err.Error(), "moving a deployed team between stacks is not supported")

	// Onboarding: team-c, CPU only, declared in the platform and assigned
	// to the team stack.
	require.NoError(t, os.WriteFile(platformFile, withTeam(t, shipped, assignment, "team-c"), 0o644))
	onboardPlatform := up(platform, "onboard-platform-up")
	onboardTeam := up(team, "onboard-team-up")
	assert.True(t, exists("namespace", "team-c"))
	assert.True(t, exists("clusterqueue", "team-c-gpu"))

	_, err = destroyTimed(t, ctx, team, dir, "team-destroy")
	require.NoError(t, err)
	assert.False(t, exists("clusterqueue", "team-a-gpu"), "the team stack's destroy deletes its queues")
	assert.True(t, exists("clusterqueue", "team-b-gpu"), "and nothing of the platform's")
	_, err = destroyTimed(t, ctx, platform, dir, "platform-destroy")
	require.NoError(t, err)

	t.Logf("team stacks on the sandbox: platform first up %v, team stack first up %v; onboarding a team: platform up %v + team stack up %v",
		platformUp.Round(10*time.Millisecond), teamUp.Round(10*time.Millisecond), onboardPlatform.Round(10*time.Millisecond), onboardTeam.Round(10*time.Millisecond))
}

// withTeam returns the local stack's config (shipped) with team added to
// aksml:teams (CPU quota only) and to the team stack in assignment.
func withTeam(t *testing.T, shipped []byte, assignment, team string) []byte {
	t.Helper()
	const marker = "  aksml:scheduler:"
	s := string(shipped)
	require.Contains(t, s, marker)
	entry := fmt.Sprintf("    - name: %s\n      groups:\n        - 0c0c0c0c-3333-4333-8333-000000000003\n      cpu: \"4\"\n      memory: 16Gi\n", team)
	s = strings.Replace(s, marker, entry+marker, 1)
	return []byte(s + strings.Replace(assignment, "      - team-a\n", "      - team-a\n      - "+team+"\n", 1))
}
