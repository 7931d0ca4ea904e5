// Command sandbox runs a local control plane for trying aksml without Azure:
// etcd, kube-apiserver and kube-controller-manager v1.36.3 with the Kueue,
// Kubeflow and shared CRDs installed and Kueue v0.17.0 running in-process —
// the same environment the real-cluster tests use (package cluster). It
// writes an admin kubeconfig to <repo>/.sandbox/kubeconfig, which the
// `local` stack (Pulumi.local.yaml, existing-cluster mode) deploys onto,
// and runs until Ctrl-C, SIGTERM or `make sandbox-down`.
//
// By default there are no nodes: Pods stay Pending, but Kueue admits and
// holds Jobs by the quotas the stack creates, and the Job controller creates
// their Pods. With -nodes <stack> (make demo uses -nodes local) the real
// kube-scheduler and KWOK run too, with the simulated AKS nodes of that stack's
// pools (cluster.NodePoolsOf, each pool at its max count), so Pods are bound
// and run.
// No CSI driver runs either: RunVolumeProvisioner gives each claim a volume
// that points at no storage, so claims bind as they would on AKS.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	cluster "github.com/aksml/aksml/tests/cluster"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "sandbox:", err)
		os.Exit(1)
	}
}

func run() error {
	nodes := flag.String("nodes", "", "simulate the AKS nodes of this stack's pools (for example local); empty: no nodes")
	flag.Parse()
	root, err := cluster.RepoRoot()
	if err != nil {
		return err
	}
	dir := filepath.Join(root, ".sandbox")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	pidFile := filepath.Join(dir, "pid")
	if b, err := os.ReadFile(pidFile); err == nil {
		if pid, _ := strconv.Atoi(string(b)); pid > 0 && syscall.Kill(pid, 0) == nil {
			return fmt.Errorf("a sandbox is already running (pid %d); stop it with make sandbox-down", pid)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	fmt.Println("sandbox: starting etcd, kube-apiserver, kube-controller-manager and Kueue (about 10 s)...")
	// Kueue runs with the configuration aksml installs it with (the dev stack's chart
	// values: fair sharing, waitForPodsReady, integrations), as in the tests.
	kueueConfig, err := cluster.DeployedKueueConfig()
	if err != nil {
		return err
	}
	// A loaded machine can take minutes to serve the CRDs.
	env, err := cluster.Start(ctx, cluster.Options{ControllerManager: true, Kueue: true, KueueConfig: kueueConfig, StartTimeout: 5 * time.Minute})
	if err != nil {
		return err
	}
	defer func() {
		fmt.Println("sandbox: stopping")
		if err := env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "sandbox: stop:", err)
		}
		_ = os.Remove(pidFile)
	}()

	if *nodes != "" {
		if err := startNodes(ctx, env, root, *nodes); err != nil {
			return err
		}
	}

	kubeconfig, err := os.ReadFile(env.KubeconfigPath)
	if err != nil {
		return err
	}
	kubeconfigPath := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfigPath, kubeconfig, 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return err
	}

	fmt.Printf(`sandbox: ready (Kubernetes %s, Kueue in-process). Kubeconfig: %s

make demo deploys the local stack onto it and submits a few Jobs; by hand, see the
README's quick start (run pulumi from .sandbox/project so that Pulumi.local.yaml is
not rewritten). Stop with Ctrl-C here, or make sandbox-down.
`, cluster.KubernetesVersion, kubeconfigPath)

	// No CSI driver runs here: stand in for the Azure Files and Blob
	// provisioners so the stack's claims bind.
	return cluster.RunVolumeProvisioner(ctx, env.Client, 500*time.Millisecond)
}

// startNodes starts kube-scheduler and KWOK and creates the simulated nodes of stack's pools.
func startNodes(ctx context.Context, env *cluster.Env, root, stack string) error {
	fmt.Printf("sandbox: starting kube-scheduler and KWOK with the simulated AKS nodes of stack %s...\n", stack)
	pools, err := cluster.NodePoolsOf(root, stack, env.Dir)
	if err != nil {
		return err
	}
	if err := env.StartNodeSimulation(ctx); err != nil {
		return err
	}
	if err := env.CreateNodes(ctx, pools); err != nil {
		return err
	}
	for _, p := range pools {
		spot := ""
		if p.Spot {
			spot = ", spot"
		}
		fmt.Printf("sandbox:   pool %s: %d × %s%s\n", p.Name, p.Count, p.VMSize, spot)
	}
	return nil
}
