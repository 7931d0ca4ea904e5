// Package cluster is the real-cluster test tier of aksml: it runs a real Kubernetes
// control plane on loopback (controller-runtime envtest with etcd and kube-apiserver
// v1.36.3 built from source, plus kube-controller-manager as a subprocess), installs the
// Kueue, Kubeflow training-operator and shared CRDs, and can run the Kueue v0.17.0
// controllers, scheduler and webhooks in-process.
//
// The package is a non-test package so that test files and long-running programs (for
// example a sandbox) can reuse it:
//
//	env, err := cluster.Start(ctx, cluster.Options{ControllerManager: true, Kueue: true})
//	if err != nil { ... }
//	defer env.Stop()
//	err = env.Apply(ctx, obj) // server-side apply as field manager "aksml"
package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"
)

// FieldManager is the server-side apply field manager used by Env.Apply.
const FieldManager = "aksml"

// ControllerManagerControllers are the kube-controller-manager controllers started when
// Options.ControllerManager is set: without them namespaces never finish terminating,
// Jobs never create Pods, and PersistentVolumeClaims (which the API server's
// StorageObjectInUseProtection admission gives a protection finalizer) are never deleted.
// The DaemonSet, ResourceQuota, Endpoints, EndpointSlice and PersistentVolume binder
// controllers fill in the status the Pulumi Kubernetes provider waits for on every real
// cluster (a DaemonSet's rollout, a ResourceQuota's status.hard, a Service's endpoints, a
// claim's binding), so `pulumi up` completes against the sandbox. The pod garbage collector
// does for simulated nodes what it does on AKS when a spot VM is gone: Pods bound to a
// deleted node are marked Failed with the DisruptionTarget condition and deleted after 40 s
// ("Garbage collection of Pods",
// https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-garbage-collection).
// The ephemeral volume controller creates the claim of a pod's generic ephemeral volume,
// which the namespace's ResourceQuota counts like any other claim ("Ephemeral Volumes",
// https://kubernetes.io/docs/concepts/storage/ephemeral-volumes/#generic-ephemeral-volumes).
// The Deployment and ReplicaSet controllers turn a Deployment (a model server the
// platform deploys in a team namespace) into its pods; the disruption controller keeps
// its PodDisruptionBudget's status, which the Eviction API reads when a node is drained
// ("Specifying a Disruption Budget for your Application",
// https://kubernetes.io/docs/tasks/run-application/configure-pdb/).
var ControllerManagerControllers = []string{
	"namespace-controller",
	"job-controller",
	"garbage-collector-controller",
	"cronjob-controller",
	"ttl-after-finished-controller",
	"persistentvolumeclaim-protection-controller",
	"persistentvolume-protection-controller",
	"daemonset-controller",
	"resourcequota-controller",
	"endpoints-controller",
	"endpointslice-controller",
	"persistentvolume-binder-controller",
	"pod-garbage-collector-controller",
	"ephemeral-volume-controller",
	"deployment-controller",
	"replicaset-controller",
	"disruption-controller",
}

// Options configures Start. The zero value starts etcd and kube-apiserver with all CRDs.
type Options struct {
	// AssetsDir is a directory containing etcd and kube-apiserver (and optionally
	// kube-controller-manager). Empty means $KUBEBUILDER_ASSETS, else binaries built by
	// build-assets.sh into $AKSML_CLUSTER_BIN or <module>/bin. See EnsureAssets.
	AssetsDir string

	// ControllerManager starts kube-controller-manager (ControllerManagerControllers)
	// as a subprocess against the API server.
	ControllerManager bool

	// Kueue runs the Kueue controllers, scheduler and webhooks in-process.
	Kueue bool

	// KueueFrameworks are the Kueue job integrations to enable (Kueue's
	// integrations.frameworks) when KueueConfig is nil. Empty means
	// DefaultKueueFrameworks.
	KueueFrameworks []string

	// KueueConfig is the Kueue controller configuration to run with, for example the
	// one a stack installs (see KueueConfigFromChartValues). nil means Kueue's
	// defaults with KueueFrameworks.
	KueueConfig *configapi.Configuration

	// SharedCRDDir overrides SharedCRDDir() (the directory with the non-Go-module CRDs).
	SharedCRDDir string

	// SkipSharedCRDs does not install the shared CRDs (for environments without them).
	SkipSharedCRDs bool

	// ExtraCRDPaths are additional CRD files or directories to install.
	ExtraCRDPaths []string

	// StartTimeout bounds the start of etcd and kube-apiserver; default 2 minutes.
	StartTimeout time.Duration

	// KeepDir keeps Env.Dir (kubeconfig and component logs) after Stop.
	KeepDir bool
}

// Env is a running control plane. Create it with Start and release it with Stop.
type Env struct {
	// Config is an admin (system:masters) REST config for the API server.
	Config *rest.Config
	// Client is a controller-runtime client using Scheme.
	Client client.Client
	// Scheme holds the Kubernetes built-in, apiextensions, Kueue and Kueue-integration
	// (batch, Kubeflow, ...) types.
	Scheme *runtime.Scheme
	// KubeconfigPath is an admin kubeconfig file for kubectl or subprocesses.
	KubeconfigPath string
	// Dir holds the kubeconfig and the logs of the components (etcd.log,
	// kube-apiserver.log, kube-controller-manager.log, kueue.log).
	Dir string
	// AssetsDir is the directory the etcd and kube-apiserver binaries came from.
	AssetsDir string
	// CRDs are the installed CustomResourceDefinitions.
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// KueueWebhooks lists the Kueue webhook paths installed into the API server (empty
	// unless Options.Kueue).
	KueueWebhooks []string
	// KueueConfig is the controller configuration the in-process Kueue runs with (nil
	// unless Options.Kueue).
	KueueConfig *configapi.Configuration

	opts      Options
	testEnv   *envtest.Environment
	kcm       *process
	scheduler *process
	kwok      *process
	kueue     *kueueRunner
	logs      []*os.File
	stopOnce  sync.Once
	stopErr   error
}

// Start starts etcd and kube-apiserver through envtest, installs the Kueue, Kubeflow
// training-operator, shared and extra CRDs, and, as requested by opts, starts
// kube-controller-manager and the in-process Kueue. On error everything started so far is
// stopped. The context bounds the start-up only (including a first build of the binaries,
// see EnsureAssets); call Stop to shut the environment down.
//
// The in-process Kueue uses process-global state (controller-runtime and klog loggers,
// Kueue's integration registry and feature gates): run at most one Env with Kueue per
// process at a time.
func Start(ctx context.Context, opts Options) (_ *Env, err error) {
	e := &Env{opts: opts}
	defer func() {
		if err != nil {
			_ = e.Stop()
		}
	}()

	if e.Dir, err = os.MkdirTemp("", "aksml-cluster-"); err != nil {
		return nil, err
	}
	e.Scheme, err = NewScheme()
	if err != nil {
		return nil, err
	}

	assets, kcmPath, err := EnsureAssets(ctx, opts.AssetsDir, opts.ControllerManager)
	if err != nil {
		return nil, err
	}
	e.AssetsDir = assets

	crdPaths, err := crdPaths(ctx, opts)
	if err != nil {
		return nil, err
	}

	// CRD conversion webhooks (Kueue v1beta1 <-> v1beta2) are configured by envtest for
	// every convertible type in the CRD scheme; they only work while Kueue serves them.
	crdScheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(crdScheme); err != nil {
		return nil, err
	}
	if opts.Kueue {
		crdScheme = e.Scheme
	}

	timeout := opts.StartTimeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	te := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     crdPaths,
		ErrorIfCRDPathMissing: true,
		Scheme:                e.Scheme,
		// The CRDs take far longer than envtest's default 10 s to be served on a loaded machine.
		CRDInstallOptions:        envtest.CRDInstallOptions{Scheme: crdScheme, MaxTime: timeout},
		ControlPlaneStartTimeout: timeout,
		ControlPlaneStopTimeout:  time.Minute,
	}
	apiLog, err := e.logFile("kube-apiserver.log")
	if err != nil {
		return nil, err
	}
	etcdLog, err := e.logFile("etcd.log")
	if err != nil {
		return nil, err
	}
	api := te.ControlPlane.GetAPIServer()
	api.Out, api.Err = apiLog, apiLog
	te.ControlPlane.Etcd = &envtest.Etcd{Out: etcdLog, Err: etcdLog}

	e.testEnv = te
	if e.Config, err = te.Start(); err != nil {
		return nil, fmt.Errorf("start envtest (logs in %s): %w", e.Dir, err)
	}
	e.CRDs = te.CRDs

	admin, err := te.AddUser(envtest.User{Name: "aksml-admin", Groups: []string{"system:masters"}}, &rest.Config{QPS: 1000, Burst: 2000})
	if err != nil {
		return nil, fmt.Errorf("add admin user: %w", err)
	}
	kubeconfig, err := admin.KubeConfig()
	if err != nil {
		return nil, err
	}
	e.KubeconfigPath = filepath.Join(e.Dir, "kubeconfig")
	if err := os.WriteFile(e.KubeconfigPath, kubeconfig, 0o600); err != nil {
		return nil, err
	}

	if e.Client, err = NewClient(e.Config, client.Options{Scheme: e.Scheme}); err != nil {
		return nil, err
	}

	if opts.ControllerManager {
		if err := e.startControllerManager(kcmPath); err != nil {
			return nil, err
		}
	}
	if opts.Kueue {
		if err := e.startKueue(ctx); err != nil {
			return nil, fmt.Errorf("start kueue (logs in %s): %w", e.Dir, err)
		}
	}
	return e, nil
}

// crdPaths lists the CRD directories and files: Kueue, Kubeflow training-operator, the
// cluster autoscaler's ProvisioningRequest, KEDA's three CRD files, shared, extra.
func crdPaths(ctx context.Context, opts Options) ([]string, error) {
	kueueDir, err := KueueDir(ctx)
	if err != nil {
		return nil, err
	}
	kubeflow, err := KubeflowCRDDir(ctx)
	if err != nil {
		return nil, err
	}
	provreq, err := ProvisioningRequestCRDDir(ctx)
	if err != nil {
		return nil, err
	}
	keda, err := KEDACRDFiles(ctx)
	if err != nil {
		return nil, err
	}
	paths := append([]string{filepath.Join(kueueDir, "config", "components", "crd", "bases"), kubeflow, provreq}, keda...)
	if !opts.SkipSharedCRDs {
		shared := opts.SharedCRDDir
		if shared == "" {
			if shared, err = SharedCRDDir(); err != nil {
				return nil, err
			}
		}
		paths = append(paths, shared)
	}
	return append(paths, opts.ExtraCRDPaths...), nil
}

func (e *Env) logFile(name string) (*os.File, error) {
	f, err := os.Create(filepath.Join(e.Dir, name))
	if err != nil {
		return nil, err
	}
	e.logs = append(e.logs, f)
	return f, nil
}

// ControllerManagerQPS is the request rate kube-controller-manager's clients may use
// (--kube-api-qps; --kube-api-burst is twice it). At its default, 20 (burst 30), the
// PersistentVolume binder and the ResourceQuota controller share 20 writes a second
// while a 100-team `pulumi up` creates 200 claims (a binding is about four writes) and
// 100 quotas, so `up` would wait on the controller's client-side rate limiter rather than
// on the API server. The sandbox is one process tree on one machine, with no other
// clients to protect.
const ControllerManagerQPS = 200

// ResourceQuotaSyncPeriod is kube-controller-manager's --resource-quota-sync-period
// (default 5m). The ResourceQuota controller recomputes a quota's usage from its own
// informer cache when a tracked object is deleted or changed, and writes that figure
// over the one admission keeps: when its cache lags the creations admission has just
// counted (a burst of creates right after deletions), the quota undercounts until the
// next full resync, and one object more than the quota is admitted. AKS runs the
// default; a test that fills a quota to its bound and expects the next object refused
// would wait up to five minutes for the correction, so the sandbox resyncs often.
const ResourceQuotaSyncPeriod = 10 * time.Second

// startControllerManager runs kube-controller-manager with the admin kubeconfig.
func (e *Env) startControllerManager(path string) (err error) {
	e.kcm, err = e.startProcess("kube-controller-manager", path,
		"--kubeconfig="+e.KubeconfigPath,
		"--authentication-kubeconfig="+e.KubeconfigPath,
		"--authorization-kubeconfig="+e.KubeconfigPath,
		"--leader-elect=false",
		"--controllers="+strings.Join(ControllerManagerControllers, ","),
		"--bind-address=127.0.0.1",
		"--secure-port=0",
		fmt.Sprintf("--kube-api-qps=%d", ControllerManagerQPS),
		fmt.Sprintf("--kube-api-burst=%d", 2*ControllerManagerQPS),
		"--resource-quota-sync-period="+ResourceQuotaSyncPeriod.String(),
	)
	return err
}

// Stop stops Kueue, kube-controller-manager and the control plane, and removes Dir unless
// Options.KeepDir. It is safe to call more than once.
func (e *Env) Stop() error {
	e.stopOnce.Do(func() {
		var errs []error
		if e.kueue != nil {
			errs = append(errs, e.kueue.stop())
			logSink.set(io.Discard)
		}
		e.StopNodeSimulation()
		e.kcm.stop()
		if e.testEnv != nil {
			errs = append(errs, e.testEnv.Stop())
		}
		for _, f := range e.logs {
			_ = f.Close()
		}
		if e.Dir != "" && !e.opts.KeepDir {
			errs = append(errs, os.RemoveAll(e.Dir))
		}
		e.stopErr = errors.Join(errs...)
	})
	return e.stopErr
}

// Apply server-side applies obj with field manager FieldManager (forcing ownership of
// conflicting fields) and updates obj with the server's response.
func (e *Env) Apply(ctx context.Context, obj *unstructured.Unstructured) error {
	return e.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj),
		client.FieldOwner(FieldManager), client.ForceOwnership)
}

// NewClient is client.New whose creates and applies are sent again when the API
// server answers with a ResourceQuota Conflict: in a namespace with a quota, admission
// updates the quota's usage with optimistic concurrency and, when its own three
// attempts lose to the ResourceQuota controller, answers the write with "Operation
// cannot be fulfilled on resourcequotas", which asks the client to send it again. The
// object itself was not written; any other error is returned at once.
func NewClient(cfg *rest.Config, opts client.Options) (client.Client, error) {
	c, err := client.NewWithWatch(cfg, opts)
	if err != nil {
		return nil, err
	}
	return interceptor.NewClient(c, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			return retryOnQuotaConflict(func() error { return c.Create(ctx, obj, opts...) })
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			return retryOnQuotaConflict(func() error { return c.Apply(ctx, obj, opts...) })
		},
	}), nil
}

// retryOnQuotaConflict runs write again, with client-go's default backoff (four
// attempts over about 1.5 s), while it fails with a Conflict on a ResourceQuota.
func retryOnQuotaConflict(write func() error) error {
	return retry.OnError(retry.DefaultBackoff, func(err error) bool {
		return apierrors.IsConflict(err) && strings.Contains(err.Error(), "resourcequotas")
	}, write)
}

// LogTail returns the last n lines of the named component log in Dir (for example
// "kueue.log" or "kube-controller-manager.log"), for failure messages.
func (e *Env) LogTail(name string, n int) string {
	f, err := os.Open(filepath.Join(e.Dir, name))
	if err != nil {
		return err.Error()
	}
	defer func() { _ = f.Close() }()
	b, err := io.ReadAll(f)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
