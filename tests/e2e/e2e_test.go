//go:build e2e

// Package e2e is the end-to-end tier: it deploys the `local` stack
// (Pulumi.local.yaml) with the real Pulumi engine, Go language host, policy
// pack and Kubernetes provider onto the sandbox control plane
// (tests/cluster/cmd/sandbox) and asserts every step of the scenario:
//
//  1. `preview --policy-pack ./policy` passes on the shipped config, and a
//     config that passes config validation but breaks a mandatory rule is
//     blocked by the pack, naming the rule;
//  2. `up` creates every object of the synthesized desired state
//     (internal/synth), which the API server then holds as desired;
//  3. a second `up` changes nothing (no perpetual diff);
//  4. changing one team's GPU quota previews exactly the resources the
//     quota derives (its ClusterQueue and its namespace ResourceQuota);
//  5. `destroy` leaves the checkpoint claims (RetainOnDelete) in the cluster;
//
// and it times `pulumi preview` against `kubectl apply --server-side
// --dry-run=server` over the same objects.
//
// It never writes into the working tree: it copies the files git knows
// (tracked, and untracked but not ignored) into a temporary directory and
// runs the sandbox, the stack and a file state backend from there: a
// directory whose path is the same on every run (runDir), so the build cache
// serves the copy; it is removed on success and kept (its path logged) on
// failure until the next run.
// Run it with `make e2e` (after `make toolchain`). The files carry the `e2e`
// build tag, so `go test ./...` and `go vet ./...` skip them.
//
// The sandbox's kube-controller-manager runs the controllers whose status
// the Kubernetes provider waits for (DaemonSet rollout, ResourceQuota
// status.hard, Service endpoints, claim binding), and its volume provisioner
// stands in for the Azure Files CSI driver, so `up` completes as on AKS.
//
// Environment: AKSML_BIN (toolchain directory, default <repo>/bin, else
// PATH), AKSML_CLUSTER_BIN (etcd, kube-apiserver, kube-controller-manager;
// default tests/cluster/bin), AKSML_SHARED_DIR (default: as internal/thirdparty finds the CRDs, `make deps`),
// AKSML_E2E_POLICY_PACK (dir, the default, or binary; see policyPackFor).
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/events"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/policy/rules"
)

const (
	// stackName is the stack under test: existing-cluster mode on the
	// sandbox's kubeconfig.
	stackName = "local"
	// stackConfigFile is its config, in the project directory.
	stackConfigFile = "Pulumi." + stackName + ".yaml"
	// policyPackDir is the policy pack directory, relative to the project.
	policyPackDir = "./policy"
	// policyPackFile is the pack's project file.
	policyPackFile = "PulumiPolicy.yaml"

	// violatedRule is the advisory rule violatingConfig breaks and
	// raisedPackConfig makes mandatory.
	violatedRule = "AKSML-POD-007"

	// quotaKey is the config path of the quota step 4 changes: team-a's
	// GPU quota on the t4spot pool (2 in Pulumi.local.yaml).
	quotaKey = "aksml:teams[0].gpuQuota.t4spot"
	// quotaValue is the new quota.
	quotaValue = "1"
	// quotaTeam is the team whose quota changes.
	quotaTeam = "team-a"

	// deletionTimeout bounds the wait for objects to disappear after
	// destroy (Pulumi waits for deletions; this covers finalizers that
	// controllers remove right after).
	deletionTimeout = 2 * time.Minute
)

// violatingConfig gives the stack's GPU Job an image without a version tag
// (pytorch/pytorch:latest). The program accepts that in dev (an image
// reference the runtime can pull), and the advisory rule AKSML-POD-007 reports
// it (AKS MLOps best practices, https://learn.microsoft.com/azure/aks/best-practices-ml-ops,
// "use an explicit base image tag"). Every mandatory rule has a program-side
// twin that refuses the config first (issue 33: the program and the pack never
// disagree), so the pack's blocking is shown the way an organization tightens
// it: a policy pack config (raisedPackConfig) that makes the rule mandatory.
func violatingConfig(config []byte) ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(config, &doc); err != nil {
		return nil, err
	}
	cfg, ok := doc["config"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("no config: map")
	}
	workloads, _ := cfg["aksml:workloads"].([]any)
	for _, w := range workloads {
		if wl, ok := w.(map[string]any); ok && wl["name"] == violatingWorkload {
			wl["image"] = "pytorch/pytorch:latest"
			return yaml.Marshal(doc)
		}
	}
	return nil, fmt.Errorf("no workload %s in the stack config", violatingWorkload)
}

// raisedPackConfig is the policy pack config (`pulumi preview
// --policy-pack-config`) that makes violatedRule mandatory.
const raisedPackConfig = `{"` + violatedRule + `": "mandatory"}`

// violatingWorkload is the workload violatingConfig changes.
const violatingWorkload = "resnet-finetune"

// violatingJobName is the Pulumi name of the Job that breaks violatedRule.
const violatingJobName = "team-a-resnet-finetune-job"

// expectedQuotaChanges are the Pulumi names of the resources a change of
// quotaTeam's GPU quota updates: its ClusterQueue (nominalQuota) and its
// namespace ResourceQuota, whose requests.nvidia.com/gpu guard is the
// nominal quota plus what the team may borrow.
var expectedQuotaChanges = []string{"queues-cq-" + quotaTeam, "tenancy-" + quotaTeam + "-quota"}

func TestLocalStack(t *testing.T) {
	began := time.Now()
	root := repoRoot(t)
	tc := findToolchain(t, root)
	ctx, dir := startRun(t, "local")
	sum := &summary{}
	t.Cleanup(func() { sum.print(t, time.Since(began)) })

	work := filepath.Join(dir, "work")
	files := copyWorkingTree(t, root, work)
	dropStackSecrets(t, work)
	setupStart := time.Now()
	// Every operation below runs the program built once, as the demo and the
	// workflows run it (tools/prebuilt/prebuilt.sh).
	pb := buildPrebuilt(t, ctx, tc, work, dir)
	require.NoError(t, os.WriteFile(filepath.Join(work, "Pulumi.yaml"), pb.project, 0o644))
	clusterBin := envOr("AKSML_CLUSTER_BIN", filepath.Join(root, "tests", "cluster", "bin"))
	sharedDir := sharedFolder(t, root)

	sb := startSandbox(t, work, clusterBin, sharedDir, dir)
	k := kubectl{kubeconfig: sb.kubeconfig}

	desired, err := synth.Synth(work, stackName)
	require.NoError(t, err, "synthesize stack %s", stackName)
	objs, err := kubernetesObjects(desired)
	require.NoError(t, err)
	require.NotEmpty(t, objs)
	objFile := filepath.Join(dir, "objects.yaml")
	b, err := manifest(objectMaps(objs))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(objFile, b, 0o644))

	pack := policyPackFor(t, work, dir)
	stack := newStack(t, ctx, tc, work, dir, stackName)
	sum.add("setup", true, time.Since(setupStart), fmt.Sprintf(
		"copied %d files; program built once by tools/prebuilt/prebuilt.sh in %v; sandbox ready; %d Kubernetes objects of %d resources synthesized",
		files, pb.took.Round(time.Millisecond), len(objs), len(desired.Resources))+"; policy pack: "+pack.describe)

	// run runs one step as a subtest. Later steps need what up created, so
	// a failure from step 2 on ends the test; step 1 only previews.
	run := func(name string, fatal bool, f func(t *testing.T) string) {
		start := time.Now()
		var detail string
		ok := t.Run(name, func(t *testing.T) { detail = f(t) })
		sum.add(name, ok, time.Since(start), detail)
		if !ok && fatal {
			t.FailNow()
		}
	}
	stackURN := fmt.Sprintf("urn:pulumi:%s::%s::pulumi:pulumi:Stack::%s-%s", stackName, synth.Project, synth.Project, stackName)
	resourceCount := len(desired.Resources) + 1 // and the stack itself
	// reads are the existing objects the program reads (the cluster's owner):
	// in state, but never created, updated or deleted in the cluster.
	reads := 0
	for _, r := range desired.Resources {
		if r.Read {
			reads++
		}
	}
	created := resourceCount - reads

	run("1a preview with policy pack, shipped config", false, func(t *testing.T) string {
		op := startOp(t, dir, "1a-preview-policy")
		res, err := stack.Preview(ctx, optpreview.PolicyPacks(pack.arg), optpreview.EventStreams(op.log.ch),
			optpreview.ProgressStreams(op.out), optpreview.ErrorProgressStreams(op.out))
		evs := op.finish(t)
		require.NoError(t, err, "preview --policy-pack failed on the shipped config:%s\n%s", packHint(err), op.tail())

		pes := policyViolations(evs)
		levels := byLevel(pes)
		require.Zero(t, levels["mandatory"], "mandatory policy violations on the shipped config:\n%s", describePolicy(pes))

		want := []string{stackURN}
		read := map[string]bool{}
		for _, r := range desired.Resources {
			want = append(want, r.URN)
			read[r.URN] = r.Read
		}
		// The engine's own default provider of the builtin "pulumi" package,
		// which serves the stack's StackReference to itself: not the
		// program's, so synth does not record it.
		builtin := fmt.Sprintf("urn:pulumi:%s::%s::pulumi:providers:pulumi::default", stackName, synth.Project)
		want = append(want, builtin)
		planned := steps(evs)
		var creates []string
		for urn, s := range planned {
			op := apitype.OpCreate
			if read[urn] {
				op = apitype.OpRead
			}
			require.Equal(t, op, s.Op, "%s on a new stack", urn)
			creates = append(creates, urn)
		}
		require.ElementsMatch(t, want, creates, "the preview plans exactly the synthesized resources")
		require.Equal(t, created, res.ChangeSummary[apitype.OpCreate], "the default provider is not counted")
		return fmt.Sprintf("%d resources to create or read (= synth, and the builtin provider); policy violations: %d mandatory, %d advisory; wall %v",
			len(creates), levels["mandatory"], levels["advisory"], op.took.Round(time.Millisecond))
	})

	run("1b preview with policy pack, violating config", false, func(t *testing.T) string {
		path := filepath.Join(work, stackConfigFile)
		orig, err := os.ReadFile(path)
		require.NoError(t, err)
		defer func() { require.NoError(t, os.WriteFile(path, orig, 0o644)) }()
		changed, err := violatingConfig(orig)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, changed, 0o644))

		bad, err := synth.Synth(work, stackName)
		require.NoError(t, err, "config validation must accept the violating config, so that only the policy pack blocks it")
		jobURN := ""
		for _, r := range bad.Resources {
			if r.Name == violatingJobName {
				jobURN = r.URN
			}
		}
		require.NotEmpty(t, jobURN, "the violating config still registers Job %s", violatingJobName)
		var ruled []string
		for _, v := range rules.Check(bad) {
			if v.RuleID == violatedRule || v.Severity == rules.Mandatory {
				ruled = append(ruled, string(v.Severity)+" "+v.RuleID+" "+v.Resource)
			}
		}
		require.Equal(t, []string{string(rules.Advisory) + " " + violatedRule + " " + jobURN}, ruled, "the rules engine finds exactly the intended advisory violation and no mandatory one")
		packConfig := filepath.Join(dir, "policy-pack-config.json")
		require.NoError(t, os.WriteFile(packConfig, []byte(raisedPackConfig), 0o644))

		op := startOp(t, dir, "1b-preview-violation")
		_, err = stack.Preview(ctx, optpreview.PolicyPacks(pack.arg), optpreview.PolicyPackConfigs(packConfig), optpreview.EventStreams(op.log.ch),
			optpreview.ProgressStreams(op.out), optpreview.ErrorProgressStreams(op.out))
		evs := op.finish(t)
		require.Error(t, err, "the preview must fail: the pack config makes %s mandatory", violatedRule)
		require.Contains(t, err.Error()+op.text(), violatedRule, "the failed preview's output names the rule%s", packHint(err))

		var blocking []string
		for _, p := range policyViolations(evs) {
			if p.EnforcementLevel == "mandatory" {
				blocking = append(blocking, p.PolicyName+" "+p.ResourceURN)
			}
		}
		require.Equal(t, []string{violatedRule + " " + jobURN}, blocking, "the pack reports exactly the intended mandatory violation")
		return fmt.Sprintf("config validation passed; preview failed with %s made mandatory by the pack config on %s; wall %v",
			violatedRule, violatingJobName, op.took.Round(time.Millisecond))
	})

	// The previews above ran the program through the script's language host wrapper.
	require.FileExists(t, pb.used, "the CLI did not run the prebuilt program's language host")

	run("2 up", true, func(t *testing.T) string {
		op := startOp(t, dir, "2-up")
		res, err := stack.Up(ctx, optup.EventStreams(op.log.ch), optup.ProgressStreams(op.out), optup.ErrorProgressStreams(op.out))
		op.finish(t)
		require.NoError(t, err, "up failed:\n%s", op.tail())
		require.NotNil(t, res.Summary.ResourceChanges)
		require.Equal(t, map[string]int{"create": created}, *res.Summary.ResourceChanges)

		live, err := liveObjects(ctx, k, objFile)
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
			if !appliedByPulumi(l) {
				problems = append(problems, fmt.Sprintf("%s: not server-side applied by the Kubernetes provider (apply managers: %v)", o, appliedBy(l)))
			}
		}
		require.Empty(t, problems, "objects in the API server differ from the desired state")
		return fmt.Sprintf("%d resources created, %d read; all %d objects exist, applied by pulumi-kubernetes, holding every desired field; wall %v",
			created, reads, len(objs), op.took.Round(time.Millisecond))
	})

	var previewTook, dryRunTook time.Duration
	run("3a preview vs kubectl server-side dry run", true, func(t *testing.T) string {
		op := startOp(t, dir, "3a-preview")
		_, err := stack.Preview(ctx, optpreview.EventStreams(op.log.ch),
			optpreview.ProgressStreams(op.out), optpreview.ErrorProgressStreams(op.out))
		evs := op.finish(t)
		require.NoError(t, err, "preview failed:\n%s", op.tail())
		previewTook = op.took

		start := time.Now()
		stdout, stderr, err := k.run(ctx, nil, "apply", "--server-side", "--dry-run=server", "--force-conflicts",
			"--field-manager=aksml-e2e-dry-run", "-f", objFile)
		dryRunTook = time.Since(start)
		require.NoError(t, err, "kubectl apply --server-side --dry-run=server: %s", stderr)
		applied := strings.Count(stdout, "serverside-applied (server dry run)")
		require.Equal(t, len(objs), applied, "kubectl dry-run applies every object:\n%s", stdout)
		return fmt.Sprintf("pulumi preview %v (%d changes planned), kubectl apply --server-side --dry-run=server %v over the same %d objects: ratio %.1fx",
			previewTook.Round(time.Millisecond), len(changes(evs)), dryRunTook.Round(time.Millisecond), len(objs), ratio(previewTook, dryRunTook))
	})

	run("3b second up", true, func(t *testing.T) string {
		op := startOp(t, dir, "3b-up")
		res, err := stack.Up(ctx, optup.EventStreams(op.log.ch), optup.ProgressStreams(op.out), optup.ErrorProgressStreams(op.out))
		evs := op.finish(t)
		require.NoError(t, err, "second up failed:\n%s", op.tail())
		ch := changes(evs)
		require.Empty(t, ch, "the second up changed resources (perpetual diff):\n%s", describeSteps(ch))
		require.NotNil(t, res.Summary.ResourceChanges)
		wantSame := map[string]int{"same": created}
		if reads > 0 {
			wantSame["read"] = reads
		}
		require.Equal(t, wantSame, *res.Summary.ResourceChanges)
		return fmt.Sprintf("0 changes (%s); wall %v", opsSummary(*res.Summary.ResourceChanges), op.took.Round(time.Millisecond))
	})

	run("4 preview of a team GPU quota change", true, func(t *testing.T) string {
		opts := &auto.ConfigOptions{Path: true}
		old, err := stack.GetConfigWithOptions(ctx, quotaKey, opts)
		require.NoError(t, err)
		require.NotEqual(t, quotaValue, old.Value)
		require.NoError(t, stack.SetConfigWithOptions(ctx, quotaKey, auto.ConfigValue{Value: quotaValue}, opts))
		defer func() {
			require.NoError(t, stack.SetConfigWithOptions(ctx, quotaKey, old, opts))
		}()

		after, err := synth.Synth(work, stackName)
		require.NoError(t, err, "synthesize with %s = %s", quotaKey, quotaValue)
		var want []string
		for _, name := range expectedQuotaChanges {
			want = append(want, urnOf(t, desired, name))
		}
		require.ElementsMatch(t, want, changedInputs(desired, after), "synth: the quota change touches exactly %v", expectedQuotaChanges)

		op := startOp(t, dir, "4-preview-quota")
		_, err = stack.Preview(ctx, optpreview.EventStreams(op.log.ch),
			optpreview.ProgressStreams(op.out), optpreview.ErrorProgressStreams(op.out))
		evs := op.finish(t)
		require.NoError(t, err, "preview failed:\n%s", op.tail())
		ch := changes(evs)
		require.ElementsMatch(t, want, sortedKeys(ch), "the preview updates exactly %v; it plans:\n%s", expectedQuotaChanges, describeSteps(ch))
		for urn, s := range ch {
			require.Equal(t, apitype.OpUpdate, s.Op, "%s is updated in place, not replaced", urn)
		}
		return fmt.Sprintf("%s %s -> %s: preview updates exactly:\n%s\n    wall %v",
			quotaKey, old.Value, quotaValue, describeSteps(ch), op.took.Round(time.Millisecond))
	})

	run("5 destroy", true, func(t *testing.T) string {
		op := startOp(t, dir, "5-destroy")
		res, err := stack.Destroy(ctx, optdestroy.EventStreams(op.log.ch),
			optdestroy.ProgressStreams(op.out), optdestroy.ErrorProgressStreams(op.out))
		op.finish(t)
		require.NoError(t, err, "destroy failed:\n%s", op.tail())
		require.NotNil(t, res.Summary.ResourceChanges)
		// A read leaves the state on destroy without a call to the cluster;
		// the engine may count it as a delete or a read-discard.
		total := 0
		for op, n := range *res.Summary.ResourceChanges {
			require.Contains(t, []string{"delete", string(apitype.OpReadDiscard)}, op, "destroy %v", *res.Summary.ResourceChanges)
			total += n
		}
		require.Equal(t, resourceCount, total, "destroy %v", *res.Summary.ResourceChanges)
		require.GreaterOrEqual(t, (*res.Summary.ResourceChanges)["delete"], created, "destroy %v", *res.Summary.ResourceChanges)
		info, err := stack.Info(ctx)
		require.NoError(t, err)
		if info.ResourceCount != nil {
			require.Zero(t, *info.ResourceCount, "resources left in the stack state")
		}

		// A patch (the cluster-owner claim on kube-system) leaves the object
		// it patched in place and gives up the fields it set.
		var retained, gone, patched []object
		for _, o := range objs {
			switch {
			case strings.HasSuffix(o.res.Type, "Patch"):
				patched = append(patched, o)
			case o.res.RetainOnDelete:
				retained = append(retained, o)
			default:
				gone = append(gone, o)
			}
		}
		checkpoints := 0
		for _, o := range retained {
			if o.kind() == "PersistentVolumeClaim" && strings.HasSuffix(o.res.Name, "-checkpoints") {
				checkpoints++
			}
		}
		teams := len(teamNamespaces(objs))
		require.Equal(t, teams, checkpoints, "Pulumi.local.yaml sets aksml:protect, so every team's checkpoint claim has RetainOnDelete")

		var live map[string]map[string]any
		deadline := time.Now().Add(deletionTimeout)
		for {
			live, err = liveObjects(ctx, k, objFile)
			require.NoError(t, err)
			if len(leftovers(gone, live)) == 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(2 * time.Second)
		}
		require.Empty(t, leftovers(gone, live), "objects without RetainOnDelete still exist %v after destroy", deletionTimeout)
		for _, o := range patched {
			l, ok := live[o.key()]
			require.True(t, ok, "%s was patched, not created: destroy must leave it", o)
			annotations, _ := get(o.obj, "metadata", "annotations").(map[string]any)
			require.NotEmpty(t, annotations, "%s: the patch sets annotations, or this checks nothing", o)
			liveAnnotations, _ := get(l, "metadata", "annotations").(map[string]any)
			for k := range annotations {
				require.NotContains(t, liveAnnotations, k, "%s: destroy gives up the annotations the patch set", o)
			}
		}
		var kept []string
		for _, o := range retained {
			l, ok := live[o.key()]
			require.True(t, ok, "%s has RetainOnDelete but is gone", o)
			require.Nil(t, get(l, "metadata", "deletionTimestamp"), "%s has RetainOnDelete but is being deleted", o)
			kept = append(kept, o.key())
		}
		return fmt.Sprintf("%d resources deleted from the stack; still in the cluster: %s; %d patched objects kept without the patches' annotations; the other %d objects are gone; wall %v",
			resourceCount, strings.Join(kept, ", "), len(patched), len(gone), op.took.Round(time.Millisecond))
	})

	sum.ratio = fmt.Sprintf("pulumi preview %v vs kubectl apply --server-side --dry-run=server %v over %d objects: ratio %.1fx",
		previewTook.Round(time.Millisecond), dryRunTook.Round(time.Millisecond), len(objs), ratio(previewTook, dryRunTook))
}

// policyPack is how the steps pass the policy pack to `pulumi preview`.
type policyPack struct {
	// arg is the --policy-pack argument.
	arg string
	// describe says what arg is, for the summary.
	describe string
}

// policyPackFor returns the policy pack argument: by default the directory
// ./policy, which the CLI asks the Go language host to build and run.
// AKSML_E2E_POLICY_PACK=binary builds the same directory with `go build`
// (as the language host does) into a binary next to a copy of
// PulumiPolicy.yaml and passes that binary, which the CLI runs directly as
// an analyzer plugin: for a language host that cannot start Go policy packs.
func policyPackFor(t *testing.T, work, dir string) policyPack {
	t.Helper()
	switch mode := os.Getenv("AKSML_E2E_POLICY_PACK"); mode {
	case "", "dir":
		return policyPack{arg: policyPackDir, describe: policyPackDir + " (built and run by the Go language host)"}
	case "binary":
		out := filepath.Join(dir, "policy-pack")
		require.NoError(t, os.MkdirAll(out, 0o755))
		bin := filepath.Join(out, "aksml-policy")
		build := exec.Command("go", "build", "-o", bin, policyPackDir)
		build.Dir = work
		b, err := build.CombinedOutput()
		require.NoError(t, err, "go build %s:\n%s", policyPackDir, b)
		project, err := os.ReadFile(filepath.Join(work, policyPackDir, policyPackFile))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(out, policyPackFile), project, 0o644))
		return policyPack{arg: bin, describe: "binary go build " + policyPackDir + " (AKSML_E2E_POLICY_PACK=binary)"}
	default:
		t.Fatalf("AKSML_E2E_POLICY_PACK=%q: want dir (default) or binary", mode)
		return policyPack{}
	}
}

// packHint explains a policy pack that fails to start because the Go
// language host built and ran the stack program instead of the pack: a host
// that predates RunPluginRequest.info (pulumi-language-go from sdk v3.66)
// ignores the pack directory the CLI sends and builds its working
// directory, the project; the program then exits 32, not being run by the
// engine. "" for other errors.
func packHint(err error) string {
	if err == nil || !strings.Contains(err.Error(), "could not read plugin") {
		return ""
	}
	return "\n\nThe pack did not start. With `exit status 32` the Go language host ran the stack program instead of the pack: " +
		"pulumi-language-go older than the RunPluginRequest.info field (the one built from sdk v3.66) builds its working directory, not the pack directory. " +
		"Build a newer language host with make toolchain, or run with AKSML_E2E_POLICY_PACK=binary (the pack built with go build and passed as a binary analyzer)."
}

// operation is one Pulumi operation: its events, its progress output (in a
// log file and in memory) and its wall time.
type operation struct {
	log   *eventLog
	out   *tee
	start time.Time
	took  time.Duration
}

func startOp(t *testing.T, dir, name string) *operation {
	t.Helper()
	return &operation{log: newEventLog(), out: &tee{file: outputFile(t, dir, name)}, start: time.Now()}
}

// finish records the wall time and returns the events.
func (o *operation) finish(t *testing.T) []events.EngineEvent {
	t.Helper()
	o.took = time.Since(o.start)
	return o.log.wait(t)
}

// text is the whole progress output.
func (o *operation) text() string { return o.out.String() }

// tail is the end of the progress output, for failure messages.
func (o *operation) tail() string {
	s := o.out.String()
	const max = 6000
	if len(s) > max {
		s = "...\n" + s[len(s)-max:]
	}
	return s
}

// tee writes to a file and keeps a copy in memory.
type tee struct {
	mu   sync.Mutex
	file interface{ Write([]byte) (int, error) }
	buf  strings.Builder
}

func (t *tee) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	return t.file.Write(p)
}

func (t *tee) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}

// urnOf returns the URN of the resource named name in s.
func urnOf(t *testing.T, s *rules.Stack, name string) string {
	t.Helper()
	for _, r := range s.Resources {
		if r.Name == name {
			return r.URN
		}
	}
	t.Fatalf("no resource %s in the desired state", name)
	return ""
}

// changedInputs returns the URNs of the resources whose inputs differ
// between two desired states, or that only one of them has.
func changedInputs(before, after *rules.Stack) []string {
	old := map[string]rules.Resource{}
	for _, r := range before.Resources {
		old[r.URN] = r
	}
	var out []string
	for _, r := range after.Resources {
		o, ok := old[r.URN]
		if !ok || !reflect.DeepEqual(o.Inputs, r.Inputs) {
			out = append(out, r.URN)
		}
		delete(old, r.URN)
	}
	return append(out, sortedKeys(old)...)
}

// appliedByPulumi reports whether the Kubernetes provider server-side
// applied the live object.
func appliedByPulumi(live map[string]any) bool {
	for _, m := range appliedBy(live) {
		if strings.HasPrefix(m, "pulumi-kubernetes") {
			return true
		}
	}
	return false
}

// teamNamespaces returns the names of the team namespaces among objs (those
// labelled aksml.io/team).
func teamNamespaces(objs []object) []string {
	var out []string
	for _, o := range objs {
		if o.kind() == "Namespace" && str(get(o.obj, "metadata", "labels", "aksml.io/team")) != "" {
			out = append(out, o.name())
		}
	}
	return out
}

// leftovers returns the keys of the objects of objs that are still live.
func leftovers(objs []object, live map[string]map[string]any) []string {
	var out []string
	for _, o := range objs {
		if _, ok := live[o.key()]; ok {
			out = append(out, o.key())
		}
	}
	return out
}

// describePolicy renders policy events for messages.
func describePolicy(pes []apitype.PolicyEvent) string {
	var lines []string
	for _, p := range pes {
		lines = append(lines, fmt.Sprintf("  [%s] %s %s: %s", p.EnforcementLevel, p.PolicyName, p.ResourceURN, strings.TrimSpace(p.Message)))
	}
	return strings.Join(lines, "\n")
}

// ratio is a/b.
func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// envOr returns the environment variable key, or def when it is unset.
func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// summary is the report printed at the end of the run.
type summary struct {
	rows  []row
	ratio string
}

type row struct {
	step   string
	passed bool
	took   time.Duration
	detail string
}

func (s *summary) add(step string, passed bool, took time.Duration, detail string) {
	s.rows = append(s.rows, row{step: step, passed: passed, took: took, detail: detail})
}

func (s *summary) print(t *testing.T, total time.Duration) {
	var b strings.Builder
	b.WriteString("\n==== aksml e2e summary (stack " + stackName + ") ====\n")
	for _, r := range s.rows {
		status, detail := "PASS", r.detail
		if !r.passed {
			status = "FAIL"
			if detail == "" {
				detail = "see the subtest's failure above"
			}
		}
		fmt.Fprintf(&b, "%-4s %-48s %9v  %s\n", status, r.step, r.took.Round(100*time.Millisecond), detail)
	}
	if s.ratio != "" {
		b.WriteString("timing: " + s.ratio + "\n")
	}
	fmt.Fprintf(&b, "total wall time: %v\n", total.Round(100*time.Millisecond))
	t.Log(b.String())
}
