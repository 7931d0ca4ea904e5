package cluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueueconfig "sigs.k8s.io/kueue/pkg/config"

	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/policy/rules"
)

// KueueHonouredSettings are the top-level keys of Kueue's controller configuration whose
// effect on admission the in-process Kueue reproduces (see setupKueue): they reach the
// same cache, queue manager, scheduler, controller and job-framework options as in
// cmd/kueue/main.go.
var KueueHonouredSettings = []string{
	"integrations", "waitForPodsReady", "fairSharing", "admissionFairSharing", "resources",
	"manageJobsWithoutQueueName", "managedJobsNamespaceSelector", "objectRetentionPolicies", "metrics",
}

// KueueProcessSettings are the top-level keys that configure Kueue's process (its
// listeners, leader election, API client, controller concurrency, certificates, the
// chart's namespace), not admission: the in-process Kueue runs inside the test's manager
// on envtest's webhook endpoint and ignores them.
var KueueProcessSettings = []string{
	"apiVersion", "kind", "namespace", "health", "webhook", "leaderElection", "controller",
	"clientConnection", "internalCertManagement",
}

// KueueConfigFromChartValues returns the Kueue controller configuration that Kueue's Helm
// chart (v0.17.0, templates/manager/manager-config.yaml) renders from the chart values:
// `managerConfig.controllerManagerConfigYaml`, loaded the way the deployed controller
// loads its configuration file (sigs.k8s.io/kueue/pkg/config.Load: strict decoding, the
// API's defaults, Kueue's validation). It also returns the top-level keys the YAML sets,
// so that callers can check each is honoured (KueueHonouredSettings) or process-level
// (KueueProcessSettings).
func KueueConfigFromChartValues(scheme *runtime.Scheme, values map[string]any) (*configapi.Configuration, []string, error) {
	manager, _ := values["managerConfig"].(map[string]any)
	raw, _ := manager["controllerManagerConfigYaml"].(string)
	if raw == "" {
		return nil, nil, errors.New("the chart values have no managerConfig.controllerManagerConfigYaml")
	}
	var top map[string]any
	if err := yaml.Unmarshal([]byte(raw), &top); err != nil {
		return nil, nil, fmt.Errorf("managerConfig.controllerManagerConfigYaml: %w", err)
	}
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	sort.Strings(keys)

	dir, err := os.MkdirTemp("", "aksml-kueue-config-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "controller_manager_config.yaml")
	if err := os.WriteFile(file, []byte(raw), 0o600); err != nil {
		return nil, nil, err
	}
	_, cfg, err := kueueconfig.Load(scheme, file)
	if err != nil {
		return nil, nil, fmt.Errorf("kueue rejects the configuration aksml installs: %w", err)
	}
	return &cfg, keys, nil
}

// UnhonouredKueueSettings returns the keys that are neither KueueHonouredSettings nor
// KueueProcessSettings: settings the deployed Kueue would act on that the in-process
// Kueue does not reproduce.
func UnhonouredKueueSettings(keys []string) []string {
	var out []string
	for _, k := range keys {
		if !slices.Contains(KueueHonouredSettings, k) && !slices.Contains(KueueProcessSettings, k) {
			out = append(out, k)
		}
	}
	return out
}

// DeployedKueueStack is the stack whose Kueue configuration the shared environment's
// in-process Kueue runs with: every admission and preemption claim of this tier holds for
// the configuration aksml installs, not for Kueue's defaults.
const DeployedKueueStack = "dev"

// KueueChartValues returns the values of the stack's Kueue Helm chart (the chart aksml
// installs Kueue from), or false when the stack does not install Kueue.
func KueueChartValues(s *rules.Stack) (map[string]any, bool) {
	for _, r := range s.Resources {
		if r.Type == "kubernetes:helm.sh/v4:Chart" && r.Inputs["chart"] == queues.KueueChart {
			values, _ := r.Inputs["values"].(map[string]any)
			return values, true
		}
	}
	return nil, false
}

// StackKueueConfig synthesizes the stack (internal/synth, under mocks) and loads the Kueue configuration its chart
// values render; ok is false when the stack does not install Kueue.
func StackKueueConfig(scheme *runtime.Scheme, stack string) (cfg *configapi.Configuration, keys []string, ok bool, err error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, nil, false, err
	}
	s, err := synth.Synth(root, stack)
	if err != nil {
		return nil, nil, false, fmt.Errorf("synthesize stack %s: %w", stack, err)
	}
	values, ok := KueueChartValues(s)
	if !ok {
		return nil, nil, false, nil
	}
	cfg, keys, err = KueueConfigFromChartValues(scheme, values)
	return cfg, keys, true, err
}

// DeployedKueueConfig is the configuration of DeployedKueueStack: what the tests' shared
// environment and the sandbox run Kueue with.
func DeployedKueueConfig() (*configapi.Configuration, error) {
	scheme, err := NewScheme()
	if err != nil {
		return nil, err
	}
	cfg, keys, ok, err := StackKueueConfig(scheme, DeployedKueueStack)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, fmt.Errorf("stack %s does not install Kueue; the cluster tier needs a stack that does", DeployedKueueStack)
	case len(UnhonouredKueueSettings(keys)) > 0:
		return nil, fmt.Errorf("stack %s configures Kueue with %v, which the in-process Kueue does not reproduce: wire them in setupKueue", DeployedKueueStack, UnhonouredKueueSettings(keys))
	}
	return cfg, nil
}
