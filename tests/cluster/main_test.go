package cluster

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// The tests of this package share one environment (control plane, controller-manager and
// Kueue), started on first use and stopped by TestMain.
var (
	sharedOnce sync.Once
	sharedEnv  *Env
	sharedErr  error
)

// testEnv returns the shared environment, starting it on first use.
func testEnv(t *testing.T) *Env {
	t.Helper()
	if testing.Short() {
		t.Skip("real-cluster tier skipped in -short mode")
	}
	sharedOnce.Do(func() {
		// A first build of the binaries can take tens of minutes on a cold build cache;
		// it is bounded by `go test -timeout` only.
		assets, _, err := EnsureAssets(context.Background(), "", true)
		if err != nil {
			sharedErr = err
			return
		}
		// Kueue runs with the configuration the dev stack installs (fair sharing,
		// waitForPodsReady, its integrations), not with Kueue's defaults.
		kueueConfig, err := DeployedKueueConfig()
		if err != nil {
			sharedErr = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		start := time.Now()
		sharedEnv, sharedErr = Start(ctx, Options{AssetsDir: assets, ControllerManager: true, Kueue: true, KueueConfig: kueueConfig})
		if sharedErr == nil {
			fmt.Fprintf(os.Stderr, "cluster: environment started in %s (logs: %s)\n", time.Since(start).Round(time.Millisecond), sharedEnv.Dir)
		}
	})
	if sharedErr != nil {
		t.Fatalf("start cluster environment: %v", sharedErr)
	}
	return sharedEnv
}

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedEnv != nil {
		if code != 0 || os.Getenv("AKSML_CLUSTER_KEEP") != "" {
			// Keep the component logs of a failed (or AKSML_CLUSTER_KEEP) run.
			sharedEnv.opts.KeepDir = true
			fmt.Fprintf(os.Stderr, "cluster: kept component logs in %s\n", sharedEnv.Dir)
		}
		if err := sharedEnv.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "cluster: stop: %v\n", err)
		}
	}
	os.Exit(code)
}
