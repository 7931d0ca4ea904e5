package cluster

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	autoscaling "k8s.io/autoscaler/cluster-autoscaler/apis/provisioningrequest/autoscaling.x-k8s.io/v1"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crconfig "sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/yaml"

	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueuev1beta1 "sigs.k8s.io/kueue/apis/kueue/v1beta1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	qcache "sigs.k8s.io/kueue/pkg/cache/queue"
	schdcache "sigs.k8s.io/kueue/pkg/cache/scheduler"
	"sigs.k8s.io/kueue/pkg/constants"
	"sigs.k8s.io/kueue/pkg/controller/admissionchecks/provisioning"
	"sigs.k8s.io/kueue/pkg/controller/core"
	"sigs.k8s.io/kueue/pkg/controller/core/indexer"
	"sigs.k8s.io/kueue/pkg/controller/jobframework"
	"sigs.k8s.io/kueue/pkg/controller/tas"
	tasindexer "sigs.k8s.io/kueue/pkg/controller/tas/indexer"
	"sigs.k8s.io/kueue/pkg/features"
	"sigs.k8s.io/kueue/pkg/metrics"
	"sigs.k8s.io/kueue/pkg/scheduler"
	preemptexpectations "sigs.k8s.io/kueue/pkg/scheduler/preemption/expectations"
	"sigs.k8s.io/kueue/pkg/scheduler/preemption/fairsharing"
	"sigs.k8s.io/kueue/pkg/util/kubeversion"
	"sigs.k8s.io/kueue/pkg/util/waitforpodsready"
	"sigs.k8s.io/kueue/pkg/webhooks"

	// Kueue job integrations, as linked by sigs.k8s.io/kueue/pkg/controller/jobs except
	// trainer.kubeflow.org/trainjob (not needed, and its CRDs are not installed). Linked
	// integrations that are not enabled still serve no-op webhooks, so every Kueue
	// webhook that matches built-in kinds (Pods, Deployments, StatefulSets) is served.
	_ "sigs.k8s.io/kueue/pkg/controller/jobs/appwrapper"
	_ "sigs.k8s.io/kueue/pkg/controller/jobs/deployment"
	_ "sigs.k8s.io/kueue/pkg/controller/jobs/job"
	_ "sigs.k8s.io/kueue/pkg/controller/jobs/jobset"
	_ "sigs.k8s.io/kueue/pkg/controller/jobs/kubeflow/jobs"
	_ "sigs.k8s.io/kueue/pkg/controller/jobs/leaderworkerset"
	_ "sigs.k8s.io/kueue/pkg/controller/jobs/mpijob"
	_ "sigs.k8s.io/kueue/pkg/controller/jobs/pod"
	_ "sigs.k8s.io/kueue/pkg/controller/jobs/raycluster"
	_ "sigs.k8s.io/kueue/pkg/controller/jobs/rayjob"
	_ "sigs.k8s.io/kueue/pkg/controller/jobs/rayservice"
	_ "sigs.k8s.io/kueue/pkg/controller/jobs/sparkapplication"
	_ "sigs.k8s.io/kueue/pkg/controller/jobs/statefulset"
)

// DefaultKueueFrameworks are the Kueue integrations enabled by default: batch Jobs and
// the Kubeflow training-operator jobs whose CRDs are installed.
var DefaultKueueFrameworks = []string{
	"batch/job",
	"kubeflow.org/pytorchjob",
	"kubeflow.org/tfjob",
	"kubeflow.org/xgboostjob",
	"kubeflow.org/paddlejob",
}

// NewScheme returns a scheme with the Kubernetes built-in types, apiextensions/v1, Kueue
// (v1beta2, v1beta1 and its configuration API), the cluster autoscaler's
// ProvisioningRequest (autoscaling.x-k8s.io/v1, as cmd/kueue registers it) and the job types of the linked Kueue
// integrations (batch, Kubeflow training jobs, JobSet, Ray, ...).
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme,
		apiextensionsv1.AddToScheme,
		kueue.AddToScheme,
		kueuev1beta1.AddToScheme,
		configapi.AddToScheme,
		autoscaling.AddToScheme,
	} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	err := jobframework.ForEachIntegration(func(_ string, cb jobframework.IntegrationCallbacks) error {
		if cb.AddToScheme != nil {
			return cb.AddToScheme(s)
		}
		return nil
	})
	return s, err
}

// logSink routes controller-runtime and klog output of the in-process controllers to the
// log file of the most recently started Env (loggers are process-global).
var logSink = &switchWriter{w: io.Discard}

var initLogging sync.Once

type switchWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *switchWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *switchWriter) set(w io.Writer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w = w
}

// recordingServer is a webhook server that remembers which paths were registered, so
// only served webhooks are installed into the API server (a registered webhook without a
// handler would reject every matching request).
type recordingServer struct {
	webhook.Server
	mu    sync.Mutex
	paths map[string]bool
}

func (r *recordingServer) Register(path string, h http.Handler) {
	r.mu.Lock()
	if r.paths == nil {
		r.paths = map[string]bool{}
	}
	r.paths[path] = true
	r.mu.Unlock()
	r.Server.Register(path, h)
}

func (r *recordingServer) served(path string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.paths[path]
}

type kueueRunner struct {
	cancel context.CancelFunc
	done   chan error
}

func (k *kueueRunner) stop() error {
	k.cancel()
	select {
	case err := <-k.done:
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	case <-time.After(30 * time.Second):
		return errors.New("kueue manager did not stop within 30s")
	}
}

// startKueue wires Kueue like its own integration suites and cmd/kueue do (cache, queue
// manager, core controllers, job integrations, webhooks, scheduler) in one
// controller-runtime manager, serves the webhooks on envtest's local webhook endpoint and
// installs Kueue's webhook configurations for the served paths.
func (e *Env) startKueue(ctx context.Context) error {
	logFile, err := e.logFile("kueue.log")
	if err != nil {
		return err
	}
	logSink.set(logFile)
	initLogging.Do(func() {
		logger := zap.New(zap.WriteTo(logSink))
		ctrl.SetLogger(logger)
		klog.SetLogger(logger)
	})
	log := ctrl.Log.WithName("aksml-cluster")

	wio := &e.testEnv.WebhookInstallOptions
	srv := &recordingServer{Server: webhook.NewServer(webhook.Options{
		Host:    wio.LocalServingHost,
		Port:    wio.LocalServingPort,
		CertDir: wio.LocalServingCertDir,
	})}
	mgr, err := ctrl.NewManager(e.Config, manager.Options{
		Scheme:                 e.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		WebhookServer:          srv,
		Controller:             crconfig.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		return fmt.Errorf("new manager: %w", err)
	}

	cfg := e.opts.KueueConfig.DeepCopy()
	if cfg == nil {
		frameworks := e.opts.KueueFrameworks
		if len(frameworks) == 0 {
			frameworks = DefaultKueueFrameworks
		}
		cfg = &configapi.Configuration{Integrations: &configapi.Integrations{Frameworks: frameworks}}
		mgr.GetScheme().Default(cfg)
	}
	e.KueueConfig = cfg.DeepCopy()

	kctx, cancel := context.WithCancel(context.Background())
	e.kueue = &kueueRunner{cancel: cancel, done: make(chan error, 1)}
	if err := setupKueue(kctx, mgr, cfg, log); err != nil {
		cancel()
		e.kueue.done <- nil
		return err
	}
	go func() { e.kueue.done <- mgr.Start(kctx) }()

	if err := waitForTLS(ctx, net.JoinHostPort(wio.LocalServingHost, strconv.Itoa(wio.LocalServingPort)), e.kueue.done); err != nil {
		return err
	}
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return errors.New("kueue manager caches did not sync")
	}

	kueueDir, err := KueueDir(ctx)
	if err != nil {
		return err
	}
	mutating, validating, err := readWebhookManifests(filepath.Join(kueueDir, "config", "components", "webhook", "manifests.yaml"))
	if err != nil {
		return err
	}
	installed := map[string]bool{}
	for _, m := range mutating {
		m.Webhooks = slices.DeleteFunc(m.Webhooks, func(w admissionv1.MutatingWebhook) bool {
			return !keepWebhook(srv, w.ClientConfig, installed)
		})
	}
	for _, v := range validating {
		v.Webhooks = slices.DeleteFunc(v.Webhooks, func(w admissionv1.ValidatingWebhook) bool {
			return !keepWebhook(srv, w.ClientConfig, installed)
		})
	}
	for p := range installed {
		e.KueueWebhooks = append(e.KueueWebhooks, p)
	}
	sort.Strings(e.KueueWebhooks)
	wio.MutatingWebhooks, wio.ValidatingWebhooks = mutating, validating
	if err := wio.ModifyWebhookDefinitions(); err != nil {
		return err
	}
	if err := wio.Install(e.Config); err != nil {
		return fmt.Errorf("install kueue webhooks: %w", err)
	}
	return waitForKueueWebhooks(ctx, e.Client)
}

// setupKueue registers Kueue's indexes, controllers, job integrations, webhooks and
// scheduler with mgr, following cmd/kueue/main.go without leader election, internal cert
// management, metrics, MultiKueue or provisioning requests. The admission settings of cfg
// reach the same cache, queue manager and scheduler options as in cmd/kueue/main.go:
// waitForPodsReady (blockAdmission, requeuing timestamp), fairSharing, admissionFairSharing
// and resources (excluded prefixes, transformations); KueueHonouredSettings lists them.
func setupKueue(ctx context.Context, mgr manager.Manager, cfg *configapi.Configuration, log logr.Logger) error {
	if len(cfg.FeatureGates) > 0 {
		return fmt.Errorf("kueue featureGates %v: the in-process Kueue shares the process's feature gates and does not set them", cfg.FeatureGates)
	}
	lqMetrics := metrics.NewLocalQueueMetricsConfig(cfg.Metrics.LocalQueueMetrics)
	cacheOptions := []schdcache.Option{
		schdcache.WithPodsReadyTracking(blockForPodsReady(cfg)),
		schdcache.WithResourceMetrics(cfg.Metrics.EnableClusterQueueResources),
		schdcache.WithLocalQueueMetrics(lqMetrics),
	}
	queueOptions := []qcache.Option{
		qcache.WithPodsReadyRequeuingTimestamp(podsReadyRequeuingTimestamp(cfg)),
		qcache.WithLocalQueueMetrics(lqMetrics),
	}
	if cfg.Resources != nil && len(cfg.Resources.ExcludeResourcePrefixes) > 0 {
		cacheOptions = append(cacheOptions, schdcache.WithExcludedResourcePrefixes(cfg.Resources.ExcludeResourcePrefixes))
		queueOptions = append(queueOptions, qcache.WithExcludedResourcePrefixes(cfg.Resources.ExcludeResourcePrefixes))
	}
	if cfg.Resources != nil && len(cfg.Resources.Transformations) > 0 {
		cacheOptions = append(cacheOptions, schdcache.WithResourceTransformations(cfg.Resources.Transformations))
		queueOptions = append(queueOptions, qcache.WithResourceTransformations(cfg.Resources.Transformations))
	}
	if cfg.FairSharing != nil {
		cacheOptions = append(cacheOptions, schdcache.WithFairSharing(fairsharing.Enabled(cfg.FairSharing)))
	}
	if cfg.AdmissionFairSharing != nil {
		queueOptions = append(queueOptions, qcache.WithAdmissionFairSharing(cfg.AdmissionFairSharing))
		cacheOptions = append(cacheOptions, schdcache.WithAdmissionFairSharing(cfg.AdmissionFairSharing))
	}
	cCache := schdcache.New(mgr.GetClient(), cacheOptions...)
	requeuer := qcache.NewRequeuer()
	if err := mgr.Add(requeuer); err != nil {
		return err
	}
	preemption := preemptexpectations.New()
	queueOptions = append(queueOptions, qcache.WithPreemptionExpectations(preemption))
	queues := qcache.NewManager(mgr.GetClient(), cCache, requeuer, queueOptions...)

	if err := indexer.Setup(ctx, mgr.GetFieldIndexer()); err != nil {
		return fmt.Errorf("kueue indexes: %w", err)
	}
	tasEnabled := features.Enabled(features.TopologyAwareScheduling)
	if tasEnabled {
		if err := tasindexer.SetupIndexes(ctx, mgr.GetFieldIndexer()); err != nil {
			return fmt.Errorf("kueue TAS indexes: %w", err)
		}
	}
	if err := jobframework.SetupIndexes(ctx, mgr.GetFieldIndexer(),
		jobframework.WithEnabledFrameworks(cfg.Integrations.Frameworks)); err != nil {
		return fmt.Errorf("kueue job indexes: %w", err)
	}
	// The ProvisioningRequest admission check, as cmd/kueue/main.go sets it up: only when
	// the API server serves autoscaling.x-k8s.io/v1 ProvisioningRequests at start (the CRD
	// is installed here from the autoscaler API module, ProvisioningRequestCRDDir).
	provisioningServed := provisioning.ServerSupportsProvisioningRequest(mgr) == nil
	if provisioningServed {
		if err := provisioning.SetupIndexer(ctx, mgr.GetFieldIndexer()); err != nil {
			return fmt.Errorf("kueue provisioning indexes: %w", err)
		}
	}

	dc, err := discovery.NewDiscoveryClientForConfig(mgr.GetConfig())
	if err != nil {
		return err
	}
	versions := kubeversion.NewServerVersionFetcher(dc)
	if err := mgr.Add(versions); err != nil {
		return err
	}
	if err := versions.FetchServerVersion(); err != nil {
		return err
	}

	if failed, err := core.SetupControllers(mgr, queues, cCache, cfg, nil, preemption, nil); err != nil {
		return fmt.Errorf("kueue controller %s: %w", failed, err)
	}
	if provisioningServed {
		//lint:ignore SA1019 required by sigs.k8s.io/kueue/pkg/controller/admissionchecks/provisioning.NewController
		recorder := mgr.GetEventRecorderFor("kueue-provisioning-request-controller") //nolint:staticcheck // see above
		controller, err := provisioning.NewController(mgr.GetClient(), recorder, nil)
		if err != nil {
			return fmt.Errorf("kueue provisioning controller: %w", err)
		}
		if err := controller.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("kueue provisioning controller: %w", err)
		}
	}
	if tasEnabled {
		if failed, err := tas.SetupControllers(mgr, queues, cCache, cfg, nil); err != nil {
			return fmt.Errorf("kueue TAS controller %s: %w", failed, err)
		}
	}
	nsSelector, err := metav1.LabelSelectorAsSelector(cfg.ManagedJobsNamespaceSelector)
	if err != nil {
		return err
	}
	if err := jobframework.SetupControllers(ctx, mgr, ctrl.Log.WithName("jobframework"),
		jobframework.WithManageJobsWithoutQueueName(cfg.ManageJobsWithoutQueueName),
		jobframework.WithManagedJobsNamespaceSelector(nsSelector),
		jobframework.WithWaitForPodsReady(cfg.WaitForPodsReady),
		jobframework.WithKubeServerVersion(versions),
		jobframework.WithEnabledFrameworks(cfg.Integrations.Frameworks),
		jobframework.WithManagerName(constants.KueueName),
		jobframework.WithLabelKeysToCopy(cfg.Integrations.LabelKeysToCopy),
		jobframework.WithObjectRetentionPolicies(cfg.ObjectRetentionPolicies),
		jobframework.WithCache(cCache),
		// The Job webhook dereferences the queue manager: without it, it panics.
		jobframework.WithQueues(queues),
	); err != nil {
		return fmt.Errorf("kueue job integrations: %w", err)
	}
	if failed, err := webhooks.Setup(mgr, nil); err != nil {
		return fmt.Errorf("kueue webhook %s: %w", failed, err)
	}
	go queues.CleanUpOnContext(ctx)
	go cCache.CleanUpOnContext(ctx)

	// Kueue's scheduler takes the old-API record.EventRecorder.
	//lint:ignore SA1019 required by sigs.k8s.io/kueue/pkg/scheduler.New
	recorder := mgr.GetEventRecorderFor(constants.AdmissionName) //nolint:staticcheck // see above
	sched := scheduler.New(queues, cCache, mgr.GetClient(), recorder,
		scheduler.WithPodsReadyRequeuingTimestamp(podsReadyRequeuingTimestamp(cfg)),
		scheduler.WithFairSharing(cfg.FairSharing),
		scheduler.WithAdmissionFairSharing(cfg.AdmissionFairSharing),
		scheduler.WithPreemptionExpectations(preemption),
	)
	if err := mgr.Add(sched); err != nil {
		return err
	}
	log.Info("kueue set up", "frameworks", cfg.Integrations.Frameworks, "fairSharing", cfg.FairSharing != nil, "waitForPodsReady", cfg.WaitForPodsReady != nil, "provisioningRequests", provisioningServed)
	return nil
}

// blockForPodsReady and podsReadyRequeuingTimestamp are cmd/kueue/main.go's.
func blockForPodsReady(cfg *configapi.Configuration) bool {
	return waitforpodsready.Enabled(cfg.WaitForPodsReady) && cfg.WaitForPodsReady.BlockAdmission != nil && *cfg.WaitForPodsReady.BlockAdmission
}

func podsReadyRequeuingTimestamp(cfg *configapi.Configuration) configapi.RequeuingTimestamp {
	if cfg.WaitForPodsReady != nil && cfg.WaitForPodsReady.RequeuingStrategy != nil && cfg.WaitForPodsReady.RequeuingStrategy.Timestamp != nil {
		return *cfg.WaitForPodsReady.RequeuingStrategy.Timestamp
	}
	return configapi.EvictionTimestamp
}

func keepWebhook(srv *recordingServer, cc admissionv1.WebhookClientConfig, installed map[string]bool) bool {
	if cc.Service == nil || cc.Service.Path == nil || !srv.served(*cc.Service.Path) {
		return false
	}
	installed[*cc.Service.Path] = true
	return true
}

// readWebhookManifests parses the Mutating/ValidatingWebhookConfigurations in file.
func readWebhookManifests(file string) ([]*admissionv1.MutatingWebhookConfiguration, []*admissionv1.ValidatingWebhookConfiguration, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	var (
		mutating   []*admissionv1.MutatingWebhookConfiguration
		validating []*admissionv1.ValidatingWebhookConfiguration
	)
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", file, err)
		}
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", file, err)
		}
		switch meta.Kind {
		case "MutatingWebhookConfiguration":
			m := &admissionv1.MutatingWebhookConfiguration{}
			if err := yaml.Unmarshal(doc, m); err != nil {
				return nil, nil, err
			}
			mutating = append(mutating, m)
		case "ValidatingWebhookConfiguration":
			v := &admissionv1.ValidatingWebhookConfiguration{}
			if err := yaml.Unmarshal(doc, v); err != nil {
				return nil, nil, err
			}
			validating = append(validating, v)
		}
	}
	if len(mutating) == 0 && len(validating) == 0 {
		return nil, nil, fmt.Errorf("%s: no webhook configurations", file)
	}
	return mutating, validating, nil
}

// waitForTLS waits until the webhook server accepts TLS connections, failing early when
// the manager exits.
func waitForTLS(ctx context.Context, addr string, done chan error) error {
	dialer := &net.Dialer{Timeout: time.Second}
	deadline := time.Now().Add(time.Minute)
	for {
		conn, err := tls.DialWithDialer(dialer, "tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // loopback readiness probe
		if err == nil {
			return conn.Close()
		}
		select {
		case merr := <-done:
			done <- merr
			return fmt.Errorf("kueue manager exited: %v", merr)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kueue webhook server %s not ready: %w", addr, err)
		}
	}
}

// waitForKueueWebhooks waits until a server-side dry-run create of a ResourceFlavor,
// which goes through Kueue's mutating and validating webhooks, succeeds.
func waitForKueueWebhooks(ctx context.Context, c client.Client) error {
	deadline := time.Now().Add(time.Minute)
	for {
		rf := &kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "aksml-webhook-probe"}}
		err := c.Create(ctx, rf, client.DryRunAll)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kueue webhooks not serving: %w", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
