package cluster

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"unicode"

	"github.com/aksml/aksml/internal/thirdparty"
)

const (
	// KubernetesVersion is the version of kube-apiserver and kube-controller-manager that
	// build-assets.sh builds from tools/go.mod.
	KubernetesVersion = "v1.36.3"

	// KueueModule is the Go module providing the in-process Kueue controllers, its CRDs
	// (config/components/crd/bases) and its webhook manifests (config/components/webhook).
	KueueModule = "sigs.k8s.io/kueue"

	// kueueVersionFallback is used when the build information of the running binary does
	// not list the Kueue module; it must match go.mod.
	kueueVersionFallback = "v0.17.0"

	// KubeflowTrainingOperatorModule is the module version whose manifests/base/crds are
	// installed (downloaded into the module cache, never imported as code).
	KubeflowTrainingOperatorModule = "github.com/kubeflow/training-operator@v1.8.1"

	// AutoscalerAPIsModule is the cluster autoscaler's API module, at the version Kueue
	// requires: its ProvisioningRequest types are linked with Kueue's ProvisioningRequest
	// admission check, and its config/crd holds the ProvisioningRequest CRD.
	AutoscalerAPIsModule = "k8s.io/autoscaler/cluster-autoscaler/apis"

	// autoscalerAPIsVersionFallback is used when the build information does not list
	// AutoscalerAPIsModule; it must match go.mod.
	autoscalerAPIsVersionFallback = "v0.0.0-20240830133931-adfbe7e45277"

	clusterModulePath = "github.com/aksml/aksml/tests/cluster"
)

// ModuleDir returns the directory of this Go module (tests/cluster). It honours
// AKSML_CLUSTER_DIR, then the source location of this file, then walks up from the
// working directory looking for tests/cluster/go.mod.
func ModuleDir() (string, error) {
	if d := os.Getenv("AKSML_CLUSTER_DIR"); d != "" {
		return filepath.Abs(d)
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		if d := filepath.Dir(file); isClusterModule(d) {
			return d, nil
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		for _, candidate := range []string{d, filepath.Join(d, "tests", "cluster")} {
			if isClusterModule(candidate) {
				return candidate, nil
			}
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return "", fmt.Errorf("cannot locate module %s from %s; set AKSML_CLUSTER_DIR", clusterModulePath, wd)
}

func isClusterModule(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer func() { _ = f.Close() }()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if line := strings.TrimSpace(s.Text()); strings.HasPrefix(line, "module ") {
			return strings.TrimSpace(strings.TrimPrefix(line, "module ")) == clusterModulePath
		}
	}
	return false
}

// RepoRoot returns the root of the aksml repository (two levels above ModuleDir).
func RepoRoot() (string, error) {
	d, err := ModuleDir()
	if err != nil {
		return "", err
	}
	return filepath.Dir(filepath.Dir(d)), nil
}

// SharedCRDDir returns the directory holding the CRDs that are not published in any Go
// module (Azure Monitor PodMonitor/ServiceMonitor, Volcano, KAITO, PrometheusRule), as
// thirdparty.CRDDir finds it from the repository root: $AKSML_SHARED_DIR/crds, a shared/crds
// beside or above the repository, or the cache `make deps` (tools/deps/fetch.sh) fills.
func SharedCRDDir() (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return thirdparty.CRDDir(root)
}

// KueueDir returns the module-cache directory of the Kueue module linked into this binary.
func KueueDir(ctx context.Context) (string, error) {
	return linkedModuleDir(ctx, KueueModule, kueueVersionFallback)
}

// ProvisioningRequestCRDDir returns the directory with the ProvisioningRequest CRD
// (autoscaling.x-k8s.io) of the autoscaler API module linked into this binary: the one
// Kueue's ProvisioningRequest admission check is built against.
func ProvisioningRequestCRDDir(ctx context.Context) (string, error) {
	dir, err := linkedModuleDir(ctx, AutoscalerAPIsModule, autoscalerAPIsVersionFallback)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "config", "crd"), nil
}

// linkedModuleDir returns the module-cache directory of module at the version linked into
// this binary (fallback when the build information does not list it).
func linkedModuleDir(ctx context.Context, module, fallback string) (string, error) {
	version := fallback
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range bi.Deps {
			if dep.Path != module {
				continue
			}
			if dep.Replace != nil {
				dep = dep.Replace
			}
			if dep.Version != "" {
				version = dep.Version
			}
		}
	}
	return moduleCacheDir(ctx, module+"@"+version)
}

// KubeflowCRDDir returns the directory with the Kubeflow training-operator CRDs
// (PyTorchJob, TFJob, MPIJob, ...), downloading the module into the module cache if needed.
func KubeflowCRDDir(ctx context.Context) (string, error) {
	dir, err := moduleCacheDir(ctx, KubeflowTrainingOperatorModule)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "manifests", "base", "crds"), nil
}

// KEDAModule is the KEDA release whose ScaledObject, TriggerAuthentication and
// ClusterTriggerAuthentication CRDs the tier installs: the KEDA minor the AKS add-on runs
// for the Kubernetes minors aksml accepts (README "Serving" says where that is read and how
// to move the pin). The Go module proxy serves it and the checksum database vouches for
// its zip, so the CRDs come from the module cache like Kubeflow's, not from a shared/ copy.
const KEDAModule = "github.com/kedacore/keda/v2@v2.17.2"

// KEDACRDFiles returns the paths of the three KEDA CRDs aksml's stacks create objects of
// (ScaledJob's, 624 KB, and the others are left out: aksml creates none), downloading the
// module into the module cache if needed.
func KEDACRDFiles(ctx context.Context) ([]string, error) {
	dir, err := moduleCacheDir(ctx, KEDAModule)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, kind := range []string{"scaledobjects", "triggerauthentications", "clustertriggerauthentications"} {
		files = append(files, filepath.Join(dir, "config", "crd", "bases", "keda.sh_"+kind+".yaml"))
	}
	return files, nil
}

// moduleCacheDir returns the extracted module-cache directory of path@version, running
// `go mod download` (outside any module, so no go.mod or go.sum is touched) when the
// module is not extracted yet.
func moduleCacheDir(ctx context.Context, pathAtVersion string) (string, error) {
	if cache := goModCache(ctx); cache != "" {
		dir := filepath.Join(cache, escapeModulePath(pathAtVersion))
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return dir, nil
		}
	}
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", pathAtVersion)
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	out, err := cmd.Output()
	var info struct {
		Dir   string
		Error string
	}
	if jerr := json.Unmarshal(out, &info); jerr == nil && info.Error != "" {
		return "", fmt.Errorf("go mod download %s: %s", pathAtVersion, info.Error)
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("go mod download %s: %w: %s", pathAtVersion, err, ee.Stderr)
		}
		return "", fmt.Errorf("go mod download %s: %w", pathAtVersion, err)
	}
	if info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: no directory in output", pathAtVersion)
	}
	return info.Dir, nil
}

func goModCache(ctx context.Context) string {
	if c := os.Getenv("GOMODCACHE"); c != "" {
		return c
	}
	if out, err := exec.CommandContext(ctx, "go", "env", "GOMODCACHE").Output(); err == nil {
		if c := strings.TrimSpace(string(out)); c != "" {
			return c
		}
	}
	if gopath := os.Getenv("GOPATH"); gopath != "" {
		return filepath.Join(filepath.SplitList(gopath)[0], "pkg", "mod")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, "go", "pkg", "mod")
	}
	return ""
}

// escapeModulePath applies the module cache's case encoding (upper-case letters become
// '!' followed by the lower-case letter).
func escapeModulePath(p string) string {
	var b strings.Builder
	for _, r := range p {
		if unicode.IsUpper(r) {
			b.WriteByte('!')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// EnsureAssets returns a directory containing etcd and kube-apiserver, and the path of a
// kube-controller-manager binary (empty unless withControllerManager).
//
// The directory is, in order: dir when non-empty, $KUBEBUILDER_ASSETS when set, otherwise
// $AKSML_CLUSTER_BIN or <module>/bin, populated by build-assets.sh (a no-op when the
// binaries are up to date; the first build takes ~15 CPU-minutes). When the chosen
// directory lacks kube-controller-manager (for example a setup-envtest download), it is
// built into <module>/bin.
func EnsureAssets(ctx context.Context, dir string, withControllerManager bool) (assets, controllerManager string, err error) {
	if dir == "" {
		dir = os.Getenv("KUBEBUILDER_ASSETS")
	}
	if dir == "" {
		if dir, err = buildAssets(ctx); err != nil {
			return "", "", err
		}
	}
	for _, name := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return "", "", fmt.Errorf("control-plane assets in %s: %w", dir, err)
		}
	}
	if !withControllerManager {
		return dir, "", nil
	}
	controllerManager = filepath.Join(dir, "kube-controller-manager")
	if _, err := os.Stat(controllerManager); err != nil {
		built, err := buildAssets(ctx)
		if err != nil {
			return "", "", err
		}
		controllerManager = filepath.Join(built, "kube-controller-manager")
	}
	return dir, controllerManager, nil
}

// buildAssets runs build-assets.sh into $AKSML_CLUSTER_BIN or <module>/bin.
func buildAssets(ctx context.Context) (string, error) {
	mod, err := ModuleDir()
	if err != nil {
		return "", err
	}
	bin := os.Getenv("AKSML_CLUSTER_BIN")
	if bin == "" {
		bin = filepath.Join(mod, "bin")
	}
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(mod, "build-assets.sh"), bin)
	cmd.Dir = mod
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	setGroupCancel(cmd)
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build-assets.sh: %w", err)
	}
	return bin, nil
}
