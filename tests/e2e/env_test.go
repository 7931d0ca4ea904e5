//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/internal/thirdparty"
)

// toolchainBinaries are the Pulumi programs the test drives: the CLI, the Go
// language host (which builds the program and the policy pack) and the
// Kubernetes provider. `make toolchain` puts them in <repo>/bin.
var toolchainBinaries = []string{"pulumi", "pulumi-language-go", "pulumi-resource-kubernetes"}

const (
	// sandboxReady is the line the sandbox prints once the control plane,
	// the CRDs and Kueue are up and the kubeconfig is written.
	sandboxReady = "sandbox: ready"
	// sandboxStartTimeout bounds the sandbox start (about 10 s when warm).
	sandboxStartTimeout = 5 * time.Minute
	// stopTimeout is how long a stopped process may take to exit before it is
	// killed.
	stopTimeout = time.Minute
)

// repoRoot is the repository this test file belongs to.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	require.True(t, ok, "cannot locate the test source")
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// toolchain is where the Pulumi binaries are.
type toolchain struct {
	// dir holds all three binaries; "" when they are found on PATH.
	dir string
}

// findToolchain returns $AKSML_BIN (default <repo>/bin) when it holds the
// three binaries, else PATH when it does, else fails with what to run.
func findToolchain(t *testing.T, root string) toolchain {
	t.Helper()
	dir := envOr("AKSML_BIN", "bin")
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	var missing []string
	for _, b := range toolchainBinaries {
		if fi, err := os.Stat(filepath.Join(dir, b)); err != nil || fi.Mode()&0o111 == 0 {
			missing = append(missing, b)
		}
	}
	if len(missing) == 0 {
		return toolchain{dir: dir}
	}
	var notOnPath []string
	for _, b := range toolchainBinaries {
		if _, err := exec.LookPath(b); err != nil {
			notOnPath = append(notOnPath, b)
		}
	}
	if len(notOnPath) == 0 {
		return toolchain{}
	}
	t.Fatalf("the Pulumi toolchain is missing (%s not in %s, %s not on PATH): run make toolchain first",
		strings.Join(missing, ", "), dir, strings.Join(notOnPath, ", "))
	return toolchain{}
}

// startRun returns the context of one run of the named test (ending 30 s
// before the test's deadline, so that cleanups can run) and its directory
// (runDir), which is removed when the test passes and kept, its path logged,
// when it fails.
func startRun(t *testing.T, name string) (context.Context, string) {
	t.Helper()
	ctx := context.Background()
	if deadline, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-30*time.Second))
		t.Cleanup(cancel)
	}
	dir := runDir(t, name)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("kept the working copy, state, sandbox and operation logs in %s", dir)
			return
		}
		_ = os.RemoveAll(dir)
	})
	return ctx, dir
}

// runDir returns the directory of one run of the named test, emptied first:
// <os.TempDir()>/aksml-e2e/<name>. Its path is the same on every run, so the
// Go build cache, whose keys include source paths, reuses what the previous
// run compiled for the copy of the tree (the sandbox, the program the Go
// language host builds, the policy pack); a fresh path would recompile the
// main module's packages each time. Concurrent runs of one test on one
// machine are not supported.
func runDir(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(os.TempDir(), "aksml-e2e", name)
	require.NoError(t, os.RemoveAll(dir))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// copyWorkingTree copies the files git knows in root (tracked, and untracked
// but not ignored) into dst, so that the run never writes into the working
// tree. Files deleted in the working tree are skipped; symlinks stay links.
func copyWorkingTree(t *testing.T, root, dst string) int {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	require.NoError(t, err, "git ls-files in %s", root)
	n := 0
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if rel == "" {
			continue
		}
		src := filepath.Join(root, rel)
		fi, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue
		}
		require.NoError(t, err)
		target := filepath.Join(dst, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(target), 0o755))
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			link, err := os.Readlink(src)
			require.NoError(t, err)
			require.NoError(t, os.Symlink(link, target))
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(src)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(target, b, fi.Mode().Perm()))
		default:
			continue
		}
		n++
	}
	return n
}

// stackSecretsKeys are the top-level keys of Pulumi.<stack>.yaml that tie the file to one
// secrets provider and passphrase: `pulumi stack init` (for example following the README
// by hand) writes them into the working tree's copy of the file.
var stackSecretsKeys = []string{"encryptionsalt:", "encryptedkey:", "secretsprovider:"}

// dropStackSecrets removes stackSecretsKeys from the Pulumi.<stack>.yaml files of the
// copy in work, so that the run, which has its own state and passphrase, does not depend on
// the working tree's stack files being untouched by an earlier hand-run `pulumi` (which
// would otherwise fail with "incorrect passphrase").
func dropStackSecrets(t *testing.T, work string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(work, "Pulumi.*.yaml"))
	require.NoError(t, err)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var kept []string
		for _, line := range strings.SplitAfter(string(b), "\n") {
			drop := false
			for _, k := range stackSecretsKeys {
				drop = drop || strings.HasPrefix(line, k)
			}
			if !drop {
				kept = append(kept, line)
			}
		}
		require.NoError(t, os.WriteFile(f, []byte(strings.Join(kept, "")), 0o644))
	}
}

// process is a child process whose output goes to a log file.
type process struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan error
}

// start runs cmd with its output appended to logPath. The child gets SIGTERM
// if the test binary dies without running its cleanups (e.g. on -timeout).
func start(name string, cmd *exec.Cmd, logPath string, stdout io.Writer) (*process, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd.Stderr = f
	if stdout != nil {
		cmd.Stdout = io.MultiWriter(f, stdout)
	} else {
		cmd.Stdout = f
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, log: logPath, done: make(chan error, 1)}
	go func() {
		err := cmd.Wait()
		_ = f.Close()
		p.done <- err
		close(p.done)
	}()
	return p, nil
}

// stop sends sig and waits for the process to exit, killing it after
// stopTimeout. It returns the exit error (nil for a clean exit) and whether
// the process had to be killed.
func (p *process) stop(sig syscall.Signal) (exit error, killed bool) {
	select {
	case err := <-p.done:
		return err, false
	default:
	}
	_ = p.cmd.Process.Signal(sig)
	select {
	case err := <-p.done:
		return err, false
	case <-time.After(stopTimeout):
		_ = p.cmd.Process.Kill()
		return <-p.done, true
	}
}

// tail returns the last n lines of the process log.
func (p *process) tail(n int) string {
	b, err := os.ReadFile(p.log)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// sandbox is a running `tests/cluster/cmd/sandbox` of the working copy.
type sandbox struct {
	proc       *process
	kubeconfig string
}

// startSandbox builds and starts the sandbox of the copy in work, waits for
// "sandbox: ready" and stops it with SIGINT (as Ctrl-C does) when the test
// ends. The sandbox is built and run rather than `go run`, so that the
// signal reaches it and not only the go command.
// sharedFolder returns the folder holding crds/ that the sandbox reads (AKSML_SHARED_DIR), as
// thirdparty.CRDDir finds it from the repository root.
func sharedFolder(t *testing.T, root string) string {
	t.Helper()
	crds, err := thirdparty.CRDDir(root)
	require.NoError(t, err)
	return filepath.Dir(crds)
}

func startSandbox(t *testing.T, work, clusterBin, sharedDir, logDir string) *sandbox {
	t.Helper()
	moduleDir := filepath.Join(work, "tests", "cluster")
	bin := filepath.Join(logDir, "sandbox")
	build := exec.Command("go", "build", "-o", bin, "./cmd/sandbox")
	build.Dir = moduleDir
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build ./cmd/sandbox in %s:\n%s", moduleDir, out)

	cmd := exec.Command(bin)
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), "AKSML_CLUSTER_BIN="+clusterBin, "AKSML_SHARED_DIR="+sharedDir, "AKSML_CLUSTER_DIR="+moduleDir)
	pr, pw := io.Pipe()
	proc, err := start("sandbox", cmd, filepath.Join(logDir, "sandbox.log"), pw)
	require.NoError(t, err)
	t.Cleanup(func() {
		err, killed := proc.stop(syscall.SIGINT)
		_ = pw.Close()
		if err != nil || killed {
			t.Errorf("sandbox did not stop cleanly on SIGINT (exit %v, killed after %v: %t):\n%s", err, stopTimeout, killed, proc.tail(20))
		}
	})

	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		signalled := false
		for sc.Scan() {
			if !signalled && strings.HasPrefix(sc.Text(), sandboxReady) {
				signalled = true
				close(ready)
			}
		}
	}()
	select {
	case <-ready:
	case err := <-proc.done:
		t.Fatalf("sandbox exited before it was ready (%v):\n%s", err, proc.tail(40))
	case <-time.After(sandboxStartTimeout):
		t.Fatalf("sandbox not ready after %v:\n%s", sandboxStartTimeout, proc.tail(40))
	}
	kubeconfig := filepath.Join(work, ".sandbox", "kubeconfig")
	require.FileExists(t, kubeconfig, "the sandbox writes its kubeconfig under the copy's .sandbox/")
	return &sandbox{proc: proc, kubeconfig: kubeconfig}
}

// kubectl runs kubectl against the sandbox.
type kubectl struct {
	kubeconfig string
}

// run runs kubectl with args and stdin; it returns stdout, stderr and the
// exit error.
func (k kubectl) run(ctx context.Context, stdin []byte, args ...string) (string, string, error) {
	cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", k.kubeconfig}, args...)...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}
