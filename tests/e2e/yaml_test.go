//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/stretchr/testify/require"
)

// packageBinaries are what the Pulumi YAML program needs on top of the
// toolchain: the YAML language host and aksml's component provider.
var packageBinaries = []string{"pulumi-language-yaml", "pulumi-resource-aksml"}

const (
	// yamlProject is the Pulumi YAML example program, relative to the repository.
	yamlProject = "examples/yaml"
	// yamlStack is the stack the test creates for it.
	yamlStack = "e2e"
	// yamlTeam runs the example's checkpointed Job.
	yamlTeam = "team-a"
	// yamlJob is the Job's name (the CheckpointedJob resource name).
	yamlJob = "resnet"
	// yamlCheckpoints is the checkpoint claim the example retains on destroy.
	yamlCheckpoints = "model-checkpoints"
	// admissionTimeout bounds the wait for Kueue to admit the example's Job.
	admissionTimeout = 2 * time.Minute
)

// TestYAMLPackage runs examples/yaml, a Pulumi YAML program built from
// aksml's component package (aksml:queues:Queues, aksml:storage:StorageClasses
// and TeamVolumes, aksml:workloads:CheckpointedJob), with the real CLI, YAML
// language host and component provider on the sandbox: up creates the
// components' objects and Kueue admits the Job; a second up changes nothing;
// destroy leaves the checkpoint claim (retainCheckpoints) in the cluster.
func TestYAMLPackage(t *testing.T) {
	root := repoRoot(t)
	tc := findToolchain(t, root)
	var providerDir string
	for _, b := range packageBinaries {
		// make e2e builds the provider into $AKSML_BIN (default bin/) even when
		// the toolchain comes from PATH.
		bin := envOr("AKSML_BIN", "bin")
		if !filepath.IsAbs(bin) {
			bin = filepath.Join(root, bin)
		}
		p := filepath.Join(bin, b)
		if fi, err := os.Stat(p); err != nil || fi.Mode()&0o111 == 0 {
			p, _ = exec.LookPath(b)
		}
		require.NotEmpty(t, p, "%s is neither in %s nor on PATH: run make toolchain, then make e2e (it builds the component provider)", b, bin)
		providerDir = filepath.Dir(p)
	}
	ctx, dir := startRun(t, "yaml")

	work := filepath.Join(dir, "work")
	copyWorkingTree(t, root, work)
	clusterBin := envOr("AKSML_CLUSTER_BIN", filepath.Join(root, "tests", "cluster", "bin"))
	sharedDir := sharedFolder(t, root)
	sb := startSandbox(t, work, clusterBin, sharedDir, dir)
	k := kubectl{kubeconfig: sb.kubeconfig}

	// The example names no plugin location (a user installs the package with
	// `pulumi plugin install`); point this copy at the provider just built.
	project := filepath.Join(work, yamlProject)
	f, err := os.OpenFile(filepath.Join(project, "Pulumi.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fmt.Fprintf(f, "plugins:\n  providers:\n    - name: aksml\n      path: %s\n", providerDir)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	stack := newStack(t, ctx, tc, project, dir, yamlStack)
	require.NoError(t, stack.SetConfig(ctx, "kubeconfig", auto.ConfigValue{Value: sb.kubeconfig}))

	op := startOp(t, dir, "yaml-up")
	res, err := stack.Up(ctx, optup.EventStreams(op.log.ch), optup.ProgressStreams(op.out), optup.ErrorProgressStreams(op.out))
	op.finish(t)
	require.NoError(t, err, "up of %s failed:\n%s", yamlProject, op.tail())
	created := (*res.Summary.ResourceChanges)["create"]
	for _, want := range []string{"aksml:queues:Queues", "aksml:storage:TeamVolumes", "aksml:workloads:CheckpointedJob", "kubernetes:batch/v1:Job", "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue"} {
		require.Contains(t, op.text(), want, "up registers %s", want)
	}
	t.Logf("up: %d resources created in %v", created, op.took.Round(time.Millisecond))

	// Kueue admits the Job the CheckpointedJob component built.
	var admitted string
	deadline := time.Now().Add(admissionTimeout)
	for admitted == "" {
		out, _, err := k.run(ctx, nil, "get", "workloads.kueue.x-k8s.io", "-n", yamlTeam, "-o", "json")
		require.NoError(t, err)
		var list struct {
			Items []struct {
				Metadata struct {
					Name            string `json:"name"`
					OwnerReferences []struct {
						Kind string `json:"kind"`
						Name string `json:"name"`
					} `json:"ownerReferences"`
				} `json:"metadata"`
				Status struct {
					Conditions []struct {
						Type   string `json:"type"`
						Status string `json:"status"`
					} `json:"conditions"`
				} `json:"status"`
			} `json:"items"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &list))
		for _, wl := range list.Items {
			owned := false
			for _, o := range wl.Metadata.OwnerReferences {
				owned = owned || (o.Kind == "Job" && o.Name == yamlJob)
			}
			for _, c := range wl.Status.Conditions {
				if owned && c.Type == "Admitted" && c.Status == "True" {
					admitted = wl.Metadata.Name
				}
			}
		}
		if admitted == "" {
			require.True(t, time.Now().Before(deadline), "Kueue did not admit Job %s/%s within %v:\n%s", yamlTeam, yamlJob, admissionTimeout, out)
			time.Sleep(time.Second)
		}
	}
	t.Logf("Kueue admitted Workload %s/%s of Job %s", yamlTeam, admitted, yamlJob)

	op = startOp(t, dir, "yaml-up-again")
	res, err = stack.Up(ctx, optup.EventStreams(op.log.ch), optup.ProgressStreams(op.out), optup.ErrorProgressStreams(op.out))
	evs := op.finish(t)
	require.NoError(t, err, "second up failed:\n%s", op.tail())
	ch := changes(evs)
	require.Empty(t, ch, "the second up changed resources (perpetual diff):\n%s", describeSteps(ch))
	require.Equal(t, map[string]int{"same": created}, *res.Summary.ResourceChanges)

	op = startOp(t, dir, "yaml-destroy")
	_, err = stack.Destroy(ctx, optdestroy.EventStreams(op.log.ch), optdestroy.ProgressStreams(op.out), optdestroy.ErrorProgressStreams(op.out))
	op.finish(t)
	require.NoError(t, err, "destroy failed:\n%s", op.tail())
	out, stderr, err := k.run(ctx, nil, "get", "pvc", yamlCheckpoints, "-n", yamlTeam, "-o", "jsonpath={.status.phase} {.metadata.deletionTimestamp}")
	require.NoError(t, err, "the checkpoint claim %s/%s is gone after destroy: %s", yamlTeam, yamlCheckpoints, stderr)
	require.Equal(t, "Bound", strings.TrimSpace(out), "the checkpoint claim stays Bound and is not being deleted")
	_, _, err = k.run(ctx, nil, "get", "job", yamlJob, "-n", yamlTeam)
	require.Error(t, err, "destroy deletes the Job")
}
