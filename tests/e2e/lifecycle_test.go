//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
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
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optrefresh"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/stacks"
)

// lifecycleEnv turns the lifecycle tier on; `make lifecycle` sets it. It is
// not part of `make e2e`: it deploys the local stack several times.
const lifecycleEnv = "AKSML_LIFECYCLE"

// previousReleaseEnv overrides previousRelease.
const previousReleaseEnv = "AKSML_LIFECYCLE_FROM"

// previousRelease is the commit whose code and state the upgrade scenario
// starts from: the last main that passed CI before issue 27's fixes landed.
const previousRelease = "96e524c"

// secondStack is the other stack of the program that scenario (d) deploys
// on the same sandbox, with another cluster identifier and other teams.
const secondStack = stackName + "-b"

// statefulTypes are the resources whose replacement or deletion loses data or
// a tenant's state: a namespace takes its claims with it, a claim its volume,
// a quota the accounting of what runs under it.
var statefulTypes = map[string]string{
	"kubernetes:core/v1:Namespace":             "namespaces",
	"kubernetes:core/v1:PersistentVolumeClaim": "persistentvolumeclaims",
	"kubernetes:core/v1:ResourceQuota":         "resourcequotas",
}

// destructiveOps are the steps that delete or re-create a resource.
var destructiveOps = []apitype.OpType{
	apitype.OpDelete, apitype.OpReplace, apitype.OpCreateReplacement, apitype.OpDeleteReplaced,
	apitype.OpReadDiscard, apitype.OpDiscardReplaced,
}

// aksmlLabels select the objects aksml labels: every component object
// carries app.kubernetes.io/part-of=aksml, every team object aksml.io/team.
var aksmlLabels = []string{"app.kubernetes.io/part-of=aksml", "aksml.io/team"}

// TestLifecycle is the day-two tier (issue 27): the real engine on the
// sandbox, the local stack deployed once and then taken through
//
//	(a) an upgrade from previousRelease's code and state: no delete or
//	    replacement of namespaces, claims or quotas, and their UIDs in the
//	    API server unchanged;
//	(b) refresh, then a preview that plans no change;
//	(c) observability, a team and a GPU pool turned off and on again: what
//	    the off config no longer declares is gone from the API server unless
//	    retained (aksml:protect / aksml:retainTeamData), retained claims keep
//	    their UIDs, nothing labelled by aksml is left that neither config
//	    declares, and the on config restores every object;
//	(d) a second stack of the program (secondStack: other cluster
//	    identifier, other teams) on the same cluster: it may not change or
//	    delete the first stack's objects, and an object name both stacks
//	    declare must be refused at preview.
func TestLifecycle(t *testing.T) {
	if os.Getenv(lifecycleEnv) == "" {
		t.Skipf("the lifecycle tier: run it with make lifecycle (%s=1)", lifecycleEnv)
	}
	began := time.Now()
	root := repoRoot(t)
	tc := findToolchain(t, root)
	ctx, dir := startRun(t, "lifecycle")
	sum := &summary{}
	t.Cleanup(func() { sum.print(t, time.Since(began)) })

	from := envOr(previousReleaseEnv, previousRelease)
	old := filepath.Join(dir, "previous")
	extractCommit(t, root, from, old)
	work := filepath.Join(dir, "work")
	copyWorkingTree(t, root, work)
	dropStackSecrets(t, work)
	clusterBin := envOr("AKSML_CLUSTER_BIN", filepath.Join(root, "tests", "cluster", "bin"))
	sb := startSandbox(t, work, clusterBin, sharedFolder(t, root), dir)
	k := kubectl{kubeconfig: sb.kubeconfig}
	// The previous code reads the same kubeconfig path, relative to its project.
	kc, err := os.ReadFile(sb.kubeconfig)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(old, ".sandbox"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(old, ".sandbox", "kubeconfig"), kc, 0o600))

	desired, err := synth.Synth(work, stackName)
	require.NoError(t, err)
	objs, err := kubernetesObjects(desired)
	require.NoError(t, err)
	kinds := kindsOf(objs)
	statefulBefore := liveOf(t, ctx, k, statefulKinds())
	labelledBefore := labelled(t, ctx, k, kinds)

	// run runs one scenario as a subtest. The upgrade and the refresh
	// leave the stack the others start from, so their failure ends the
	// test; (c) and (d) each report their own finding and the run goes on.
	run := func(name string, fatal bool, f func(t *testing.T) string) {
		start := time.Now()
		var detail string
		ok := t.Run(name, func(t *testing.T) { detail = f(t) })
		sum.add(name, ok, time.Since(start), detail)
		if !ok && fatal {
			t.FailNow()
		}
	}

	var stateful map[string]liveObject
	previous := newStack(t, ctx, tc, old, dir, stackName)
	run("a1 up with the previous release "+from, true, func(t *testing.T) string {
		op := startOp(t, dir, "a1-up-previous")
		res, err := previous.Up(ctx, optup.EventStreams(op.log.ch), optup.ProgressStreams(op.out), optup.ErrorProgressStreams(op.out))
		op.finish(t)
		require.NoError(t, err, "up with the code of %s failed:\n%s", from, op.tail())
		stateful = added(statefulBefore, liveOf(t, ctx, k, statefulKinds()))
		for _, ns := range teamNamespaces(objs) {
			require.Contains(t, stateful, "Namespace "+ns, "the previous release created team namespace %s", ns)
		}
		return fmt.Sprintf("%s; %d namespaces, claims and quotas recorded with their UIDs; wall %v",
			changeSummary(res.Summary.ResourceChanges), len(stateful), op.took.Round(time.Millisecond))
	})

	// The stack's passphrase salt lives in the project's stack file, which
	// the first `up` wrote into the previous release's copy.
	copyStackSecrets(t, old, work, stackName)
	// The current code runs prebuilt (tools/prebuilt/prebuilt.sh), as the workflows run
	// it; the previous release's copy builds before each operation, as it always did.
	pb := buildPrebuilt(t, ctx, tc, work, dir)
	require.NoError(t, os.WriteFile(filepath.Join(work, "Pulumi.yaml"), pb.project, 0o644))
	stack := newStack(t, ctx, tc, work, dir, stackName)

	run("a2 up with the current code", true, func(t *testing.T) string {
		op := startOp(t, dir, "a2-up-current")
		res, err := stack.Up(ctx, optup.EventStreams(op.log.ch), optup.ProgressStreams(op.out), optup.ErrorProgressStreams(op.out))
		evs := op.finish(t)
		require.NoError(t, err, "up with the current code over the previous release's state failed:\n%s", op.tail())
		destroyed := destructiveSteps(evs, statefulTypes)
		require.Empty(t, destroyed, "the upgrade deletes or replaces stateful resources:\n%s", describeSteps(destroyed))
		requireSameUIDs(t, stateful, liveOf(t, ctx, k, statefulKinds()), "after the upgrade")
		requireDesiredLive(t, ctx, k, dir, objs)
		return fmt.Sprintf("%s; no namespace, claim or quota deleted or replaced; %d UIDs unchanged; all %d objects hold the current desired state; wall %v",
			changeSummary(res.Summary.ResourceChanges), len(stateful), len(objs), op.took.Round(time.Millisecond))
	})

	run("b refresh then preview", true, func(t *testing.T) string {
		op := startOp(t, dir, "b-refresh")
		rres, err := stack.Refresh(ctx, optrefresh.EventStreams(op.log.ch), optrefresh.ProgressStreams(op.out), optrefresh.ErrorProgressStreams(op.out))
		op.finish(t)
		require.NoError(t, err, "refresh failed:\n%s", op.tail())
		took := op.took
		ch := previewNoChanges(t, ctx, stack, dir, "b-preview")
		return fmt.Sprintf("refresh %s (%v); the preview after it plans %d changes", changeSummary(rres.Summary.ResourceChanges), took.Round(time.Millisecond), ch)
	})

	run("d a second stack on the same cluster", false, func(t *testing.T) string {
		writeSecondStack(t, work)
		other, err := synth.Synth(work, secondStack)
		require.NoError(t, err, "synthesize %s", secondStack)
		otherObjs, err := kubernetesObjects(other)
		require.NoError(t, err)
		shared := sharedNames(objs, otherObjs)
		first := liveOf(t, ctx, k, kinds)

		s2 := newStack(t, ctx, tc, work, dir, secondStack)
		op := startOp(t, dir, "d-preview-"+secondStack)
		_, previewErr := s2.Preview(ctx, optpreview.EventStreams(op.log.ch), optpreview.ProgressStreams(op.out), optpreview.ErrorProgressStreams(op.out))
		op.finish(t)
		previewOut := op.text()
		op = startOp(t, dir, "d-up-"+secondStack)
		_, upErr := s2.Up(ctx, optup.EventStreams(op.log.ch), optup.ProgressStreams(op.out), optup.ErrorProgressStreams(op.out))
		op.finish(t)
		upOut := op.text()
		requireUntouched(t, ctx, k, dir, objs, first, "after "+secondStack+"'s up")

		op = startOp(t, dir, "d-destroy-"+secondStack)
		_, err = s2.Destroy(ctx, optdestroy.EventStreams(op.log.ch), optdestroy.ProgressStreams(op.out), optdestroy.ErrorProgressStreams(op.out))
		op.finish(t)
		require.NoError(t, err, "destroy of %s failed:\n%s", secondStack, op.tail())
		requireUntouched(t, ctx, k, dir, objs, first, "after "+secondStack+"'s destroy")

		verdict := fmt.Sprintf("%d object names both stacks declare: %s; %s preview: %s; up: %s",
			len(shared), strings.Join(shared, ", "), secondStack, errText(previewErr), errText(upErr))
		if len(shared) > 0 {
			require.Error(t, previewErr, "%s declares objects %s already declares, so its preview must be refused; %s", secondStack, stackName, verdict)
			require.True(t, mentionsAny(previewErr.Error()+previewOut, shared), "the refused preview names a shared object; %s\n%s", verdict, tailOf(previewOut))
			// Refused for the reason that matters, by the key that points
			// it at the cluster and naming the stack that owns it.
			owner := "organization/" + stacks.Project + "/" + stackName
			require.Contains(t, previewOut, "aksml:existingCluster: the cluster is owned by aksml stack "+owner, "the preview is refused because %s owns the cluster\n%s", owner, tailOf(previewOut))
			require.Contains(t, upOut, "the cluster is owned by aksml stack "+owner, "so is the up\n%s", tailOf(upOut))
		} else {
			require.NoError(t, upErr, "%s shares no name with %s, so its up must succeed:\n%s", secondStack, stackName, tailOf(upOut))
		}
		return verdict + "; the first stack's objects kept their UIDs and desired state through the second stack's up and destroy"
	})

	for _, tg := range toggles {
		var retained map[string]liveObject
		run("c "+tg.name+" off", false, func(t *testing.T) string {
			restore := editStackConfig(t, work, stackName, tg.off)
			t.Cleanup(restore)
			after, err := synth.Synth(work, stackName)
			require.NoError(t, err, "synthesize with %s off", tg.name)
			afterObjs, err := kubernetesObjects(after)
			require.NoError(t, err)
			before := liveOf(t, ctx, k, kinds)

			op := startOp(t, dir, "c-"+tg.name+"-off")
			res, err := stack.Up(ctx, optup.EventStreams(op.log.ch), optup.ProgressStreams(op.out), optup.ErrorProgressStreams(op.out))
			op.finish(t)
			require.NoError(t, err, "up with %s off failed:\n%s", tg.name, op.tail())

			dropped := without(objs, afterObjs)
			require.NotEmpty(t, dropped, "turning %s off must drop objects, or the scenario tests nothing", tg.name)
			live := liveOf(t, ctx, k, kinds)
			retained = map[string]liveObject{}
			var gone, problems []string
			for _, o := range dropped {
				l, ok := live[o.key()]
				switch {
				case o.res.RetainOnDelete && !ok:
					problems = append(problems, o.String()+": retained (RetainOnDelete) but deleted")
				case o.res.RetainOnDelete:
					retained[o.key()] = l
				case ok && l.deleting:
					gone = append(gone, o.key()+" (terminating)")
				case ok:
					problems = append(problems, o.String()+": no longer declared, not retained, still in the API server")
				default:
					gone = append(gone, o.key())
				}
			}
			require.Empty(t, problems, "turning %s off", tg.name)
			requireSameUIDs(t, pick(before, sortedKeys(retained)), retained, "for retained objects")
			orphans := orphaned(labelled(t, ctx, k, kinds), labelledBefore, afterObjs, retained)
			require.Empty(t, orphans, "objects labelled by aksml that the stack with %s off neither declares nor retains", tg.name)
			if tg.retains {
				require.NotEmpty(t, retained, "%s holds protected data that aksml:protect retains", tg.name)
			}
			ch := previewNoChanges(t, ctx, stack, dir, "c-"+tg.name+"-off-preview")
			return fmt.Sprintf("%s; %d objects gone, %d retained with their UIDs (%s), no orphans; preview after: %d changes; wall %v",
				changeSummary(res.Summary.ResourceChanges), len(gone), len(retained), strings.Join(sortedKeys(retained), ", "), ch, op.took.Round(time.Millisecond))
		})
		run("c "+tg.name+" on again", false, func(t *testing.T) string {
			op := startOp(t, dir, "c-"+tg.name+"-on")
			res, err := stack.Up(ctx, optup.EventStreams(op.log.ch), optup.ProgressStreams(op.out), optup.ErrorProgressStreams(op.out))
			op.finish(t)
			require.NoError(t, err, "up with %s on again failed:\n%s", tg.name, op.tail())
			requireDesiredLive(t, ctx, k, dir, objs)
			requireSameUIDs(t, retained, liveOf(t, ctx, k, kinds), "retained while "+tg.name+" was off")
			orphans := orphaned(labelled(t, ctx, k, kinds), labelledBefore, objs, nil)
			require.Empty(t, orphans, "objects labelled by aksml that the stack does not declare")
			ch := previewNoChanges(t, ctx, stack, dir, "c-"+tg.name+"-on-preview")
			return fmt.Sprintf("%s; all %d objects back, %d retained objects kept their UIDs; preview after: %d changes; wall %v",
				changeSummary(res.Summary.ResourceChanges), len(objs), len(retained), ch, op.took.Round(time.Millisecond))
		})
	}
}

// toggle is a part of the platform that scenario (c) turns off and on.
type toggle struct {
	name string
	// off edits the stack's config map to turn the part off.
	off func(cfg map[string]any)
	// retains says the part holds data that a protected stack retains.
	retains bool
}

// toggles are the parts scenario (c) turns off and on again, on the local
// stack (Pulumi.local.yaml): its observability (PodMonitors and the
// managed Prometheus settings ConfigMap), team-b (its namespace, quota,
// queues, claims, access and network policies; aksml:protect retains the
// namespace and the claims) and GPU pool t4 (its ResourceFlavor and quota
// rows; the teams' gpuQuota entries for it go with it).
var toggles = []toggle{
	{name: "observability", off: func(cfg map[string]any) {
		cfg["aksml:observability"] = map[string]any{"enabled": false}
	}},
	{name: "team-b", retains: true, off: func(cfg map[string]any) {
		teams, _ := cfg["aksml:teams"].([]any)
		left := slices.DeleteFunc(slices.Clone(teams), func(t any) bool {
			m, _ := t.(map[string]any)
			return m["name"] == "team-b"
		})
		if len(left) == 1 {
			// A team alone in its cohort has no one to borrow from or lend
			// to, and aksml refuses the limits then (issue 33, inert
			// settings): the user removing team-b removes them too.
			m, _ := left[0].(map[string]any)
			alone := maps.Clone(m)
			for _, k := range []string{"borrowingLimit", "lendingLimit", "cpuBorrowingLimit", "cpuLendingLimit", "memoryBorrowingLimit", "memoryLendingLimit"} {
				delete(alone, k)
			}
			left[0] = alone
		}
		cfg["aksml:teams"] = left
	}},
	{name: "pool-t4", off: func(cfg map[string]any) {
		pools, _ := cfg["aksml:gpuPools"].([]any)
		cfg["aksml:gpuPools"] = slices.DeleteFunc(slices.Clone(pools), func(p any) bool {
			m, _ := p.(map[string]any)
			return m["name"] == "t4"
		})
		teams, _ := cfg["aksml:teams"].([]any)
		for _, t := range teams {
			m, _ := t.(map[string]any)
			if q, ok := m["gpuQuota"].(map[string]any); ok {
				delete(q, "t4")
			}
		}
	}},
}

// writeSecondStack writes Pulumi.<secondStack>.yaml: the local stack's
// config with another cluster identifier and its teams renamed (team-a to
// team-c, team-b to team-d), as a second platform on the same cluster would
// be configured.
func writeSecondStack(t *testing.T, work string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(work, stackConfigFile))
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, yaml.Unmarshal(b, &doc))
	for _, k := range stackSecretsKeys {
		delete(doc, strings.TrimSuffix(k, ":"))
	}
	cfg := doc["config"].(map[string]any)
	ec := cfg["aksml:existingCluster"].(map[string]any)
	ec["clusterIdentifier"] = ec["clusterIdentifier"].(string) + "-b"
	rename := map[string]string{"team-a": "team-c", "team-b": "team-d"}
	for _, key := range []string{"aksml:teams", "aksml:workloads"} {
		items, _ := cfg[key].([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)
			for _, f := range []string{"name", "team"} {
				if n, ok := m[f].(string); ok && rename[n] != "" {
					m[f] = rename[n]
				}
			}
		}
	}
	out, err := yaml.Marshal(doc)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(work, "Pulumi."+secondStack+".yaml"), out, 0o644))
}

// extractCommit writes the tree of commit (of the repository at root) into
// dst with git archive.
func extractCommit(t *testing.T, root, commit, dst string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dst, 0o755))
	cmd := exec.Command("sh", "-c", `git -C "$1" archive --format=tar "$2" | tar -x -C "$3"`, "sh", root, commit, dst)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git archive %s into %s: %s", commit, dst, out)
	require.FileExists(t, filepath.Join(dst, stackConfigFile), "%s has the %s stack", commit, stackName)
}

// copyStackSecrets copies the stackSecretsKeys lines of from's
// Pulumi.<stack>.yaml into to's, so that a second project directory opens
// the stack the first created with the same passphrase salt.
func copyStackSecrets(t *testing.T, from, to, stack string) {
	t.Helper()
	name := "Pulumi." + stack + ".yaml"
	src, err := os.ReadFile(filepath.Join(from, name))
	require.NoError(t, err)
	var keep []string
	for _, line := range strings.SplitAfter(string(src), "\n") {
		for _, k := range stackSecretsKeys {
			if strings.HasPrefix(line, k) {
				keep = append(keep, strings.TrimRight(line, "\n")+"\n")
			}
		}
	}
	require.NotEmpty(t, keep, "the first up wrote no secrets settings into %s", filepath.Join(from, name))
	dst, err := os.ReadFile(filepath.Join(to, name))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(to, name), []byte(strings.Join(keep, "")+string(dst)), 0o644))
}

// editStackConfig applies edit to the config: map of the project's
// Pulumi.<stack>.yaml (other top-level keys, such as the passphrase salt,
// kept) and returns a function that writes the original back.
func editStackConfig(t *testing.T, work, stack string, edit func(cfg map[string]any)) func() {
	t.Helper()
	path := filepath.Join(work, "Pulumi."+stack+".yaml")
	orig, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, yaml.Unmarshal(orig, &doc))
	cfg, ok := doc["config"].(map[string]any)
	require.True(t, ok, "%s has no config: map", path)
	edit(cfg)
	out, err := yaml.Marshal(doc)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, out, 0o644))
	return func() { require.NoError(t, os.WriteFile(path, orig, 0o644)) }
}

// previewNoChanges previews the stack with --expect-no-changes and fails
// when the preview plans any step other than "same". It returns the number of
// changes (0).
func previewNoChanges(t *testing.T, ctx context.Context, s auto.Stack, dir, name string) int {
	t.Helper()
	op := startOp(t, dir, name)
	_, err := s.Preview(ctx, optpreview.ExpectNoChanges(), optpreview.EventStreams(op.log.ch),
		optpreview.ProgressStreams(op.out), optpreview.ErrorProgressStreams(op.out))
	evs := op.finish(t)
	ch := changes(evs)
	require.Empty(t, ch, "the preview plans changes:\n%s", describeSteps(ch))
	require.NoError(t, err, "preview --expect-no-changes failed:\n%s", op.tail())
	return len(ch)
}

// destructiveSteps returns the steps of evs that delete or re-create a
// resource of one of types, by URN.
func destructiveSteps(evs []events.EngineEvent, types map[string]string) map[string]apitype.StepEventMetadata {
	out := map[string]apitype.StepEventMetadata{}
	for _, e := range evs {
		if e.ResourcePreEvent == nil {
			continue
		}
		m := e.ResourcePreEvent.Metadata
		if _, ok := types[m.Type]; ok && slices.Contains(destructiveOps, m.Op) {
			out[m.URN] = m
		}
	}
	return out
}

// liveObject is what the scenarios read of an object in the API server.
type liveObject struct {
	uid      string
	deleting bool
	labels   map[string]any
}

// statefulKinds are the kubectl resource names of statefulTypes.
func statefulKinds() []string {
	var out []string
	for _, k := range statefulTypes {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// kindsOf returns the kubectl resource arguments (kind.group) of the kinds
// of objs, sorted.
func kindsOf(objs []object) []string {
	set := map[string]bool{}
	for _, o := range objs {
		kind := strings.ToLower(o.kind())
		if group, _, ok := strings.Cut(str(o.obj["apiVersion"]), "/"); ok {
			kind += "." + group
		}
		set[kind] = true
	}
	return sortedKeys(set)
}

// liveOf lists every object of the kubectl resources kinds in all
// namespaces, keyed by objectKey.
func liveOf(t *testing.T, ctx context.Context, k kubectl, kinds []string, selector ...string) map[string]liveObject {
	t.Helper()
	args := []string{"get", strings.Join(kinds, ","), "--all-namespaces", "-o", "json"}
	if len(selector) > 0 {
		args = append(args, "-l", strings.Join(selector, ","))
	}
	stdout, stderr, err := k.run(ctx, nil, args...)
	require.NoError(t, err, "kubectl %s: %s", strings.Join(args, " "), stderr)
	var list struct {
		Items []map[string]any `json:"items"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &list))
	out := map[string]liveObject{}
	for _, it := range list.Items {
		labels, _ := get(it, "metadata", "labels").(map[string]any)
		out[objectKey(it)] = liveObject{
			uid:      str(get(it, "metadata", "uid")),
			deleting: get(it, "metadata", "deletionTimestamp") != nil,
			labels:   labels,
		}
	}
	return out
}

// labelled lists the objects of kinds that carry one of aksmlLabels.
func labelled(t *testing.T, ctx context.Context, k kubectl, kinds []string) map[string]liveObject {
	t.Helper()
	out := map[string]liveObject{}
	for _, sel := range aksmlLabels {
		for key, o := range liveOf(t, ctx, k, kinds, sel) {
			out[key] = o
		}
	}
	return out
}

// added returns the objects of after that before does not hold (by key and
// UID).
func added(before, after map[string]liveObject) map[string]liveObject {
	out := map[string]liveObject{}
	for key, o := range after {
		if b, ok := before[key]; !ok || b.uid != o.uid {
			out[key] = o
		}
	}
	return out
}

// pick returns the entries of m at keys.
func pick(m map[string]liveObject, keys []string) map[string]liveObject {
	out := map[string]liveObject{}
	for _, k := range keys {
		if o, ok := m[k]; ok {
			out[k] = o
		}
	}
	return out
}

// requireSameUIDs fails unless every object of want is live, not being
// deleted, with the same UID (the same object, not a re-created one).
func requireSameUIDs(t *testing.T, want, live map[string]liveObject, when string) {
	t.Helper()
	var problems []string
	for _, key := range sortedKeys(want) {
		l, ok := live[key]
		switch {
		case !ok:
			problems = append(problems, key+": gone")
		case l.uid != want[key].uid:
			problems = append(problems, fmt.Sprintf("%s: re-created (UID %s, was %s)", key, l.uid, want[key].uid))
		case l.deleting:
			problems = append(problems, key+": being deleted")
		}
	}
	require.Empty(t, problems, "objects that must survive %s", when)
}

// requireDesiredLive fails unless every object of objs is in the API server
// holding its desired fields.
func requireDesiredLive(t *testing.T, ctx context.Context, k kubectl, dir string, objs []object) {
	t.Helper()
	file := filepath.Join(dir, "lifecycle-objects.yaml")
	b, err := manifest(objectMaps(objs))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, b, 0o644))
	live, err := liveObjects(ctx, k, file)
	require.NoError(t, err)
	var problems []string
	for _, o := range objs {
		l, ok := live[o.key()]
		if !ok {
			problems = append(problems, o.String()+": not in the API server")
			continue
		}
		for _, d := range differences(o.obj, l) {
			problems = append(problems, o.String()+": "+d)
		}
	}
	require.Empty(t, problems, "objects in the API server differ from the desired state")
}

// requireUntouched fails unless the first stack's objects are still the
// objects recorded in first (same UID) holding the first stack's desired
// fields.
func requireUntouched(t *testing.T, ctx context.Context, k kubectl, dir string, objs []object, first map[string]liveObject, when string) {
	t.Helper()
	var keys []string
	for _, o := range objs {
		keys = append(keys, o.key())
	}
	requireSameUIDs(t, pick(first, keys), liveOf(t, ctx, k, kindsOf(objs)), when)
	requireDesiredLive(t, ctx, k, dir, objs)
}

// without returns the objects of all whose key none of keep has.
func without(all, keep []object) []object {
	kept := map[string]bool{}
	for _, o := range keep {
		kept[o.key()] = true
	}
	var out []object
	for _, o := range all {
		if !kept[o.key()] {
			out = append(out, o)
		}
	}
	return out
}

// orphaned returns the keys of the labelled live objects that were not there
// before the first up, that declared does not declare and that retained
// does not hold.
func orphaned(live, before map[string]liveObject, declared []object, retained map[string]liveObject) []string {
	known := map[string]bool{}
	for _, o := range declared {
		known[o.key()] = true
	}
	var out []string
	for _, key := range sortedKeys(live) {
		if _, ok := retained[key]; ok || known[key] || live[key].deleting {
			continue
		}
		if b, ok := before[key]; ok && b.uid == live[key].uid {
			continue
		}
		out = append(out, key)
	}
	return out
}

// sharedNames returns the object keys (kind, namespace, name) that both
// desired states declare.
func sharedNames(a, b []object) []string {
	inA := map[string]bool{}
	for _, o := range a {
		inA[o.key()] = true
	}
	var out []string
	for _, o := range b {
		if inA[o.key()] {
			out = append(out, o.key())
		}
	}
	sort.Strings(out)
	return out
}

// mentionsAny reports whether text names one of the objects keys (by its
// namespace/name or name).
func mentionsAny(text string, keys []string) bool {
	for _, k := range keys {
		_, name, _ := strings.Cut(k, " ")
		if strings.Contains(text, name) {
			return true
		}
	}
	return false
}

// errText renders an operation's error for the summary.
func errText(err error) string {
	if err == nil {
		return "succeeded"
	}
	s := err.Error()
	if i := strings.Index(s, "\n"); i > 0 {
		s = s[:i]
	}
	return "failed (" + s + ")"
}

// tailOf returns the end of an operation's output.
func tailOf(s string) string {
	const max = 4000
	if len(s) > max {
		return "...\n" + s[len(s)-max:]
	}
	return s
}

// TestLifecycleConfigs checks, without the toolchain or a cluster, the
// configs TestLifecycle deploys: each toggle's off config passes validation
// and drops objects (team-b's include retained claims), and the second
// stack passes validation and shares with the local stack exactly the
// cluster-wide objects that carry no team name.
func TestLifecycleConfigs(t *testing.T) {
	root := repoRoot(t)
	work := t.TempDir()
	copyWorkingTree(t, root, work)
	dropStackSecrets(t, work)
	desired, err := synth.Synth(work, stackName)
	require.NoError(t, err)
	objs, err := kubernetesObjects(desired)
	require.NoError(t, err)
	for _, tg := range toggles {
		restore := editStackConfig(t, work, stackName, tg.off)
		off, err := synth.Synth(work, stackName)
		restore()
		require.NoError(t, err, "%s off", tg.name)
		offObjs, err := kubernetesObjects(off)
		require.NoError(t, err)
		dropped := without(objs, offObjs)
		require.NotEmpty(t, dropped, "%s off drops objects", tg.name)
		retained := slices.ContainsFunc(dropped, func(o object) bool {
			return o.res.RetainOnDelete && o.kind() == "PersistentVolumeClaim"
		})
		require.Equal(t, tg.retains, retained, "%s off drops claims that aksml:protect retains", tg.name)
	}

	writeSecondStack(t, work)
	other, err := synth.Synth(work, secondStack)
	require.NoError(t, err)
	otherObjs, err := kubernetesObjects(other)
	require.NoError(t, err)
	shared := sharedNames(objs, otherObjs)
	require.NotEmpty(t, shared)
	for _, key := range shared {
		require.NotContains(t, key, "team-", "the second stack's teams are its own")
	}
	require.Contains(t, shared, "StorageClass ml-azurefile-premium")
	require.Contains(t, shared, "Namespace gpu-operator")
	t.Logf("%d object names both stacks declare: %s", len(shared), strings.Join(shared, ", "))
}

// changeSummary renders an operation's change counts, "none reported" when
// the engine gave none.
func changeSummary(m *map[string]int) string {
	if m == nil {
		return "no change counts reported"
	}
	return opsSummary(*m)
}
