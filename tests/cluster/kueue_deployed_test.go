package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"

	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/internal/synth"
)

// TestKueueRunsTheDeployedConfiguration fails when the Kueue of this tier and the Kueue
// aksml installs drift apart: the in-process Kueue must run with exactly the
// configuration the dev stack's Kueue chart renders, every setting in it must be one the
// tier reproduces, and every shipped stack that installs Kueue must install that same
// configuration (otherwise the scenarios prove nothing about it).
func TestKueueRunsTheDeployedConfiguration(t *testing.T) {
	env := testEnv(t)
	cfg, keys, ok, err := StackKueueConfig(env.Scheme, DeployedKueueStack)
	require.NoError(t, err)
	require.True(t, ok, "stack %s installs no Kueue chart", DeployedKueueStack)
	require.Empty(t, UnhonouredKueueSettings(keys), "settings of the deployed Kueue the tier does not reproduce")
	require.NotNil(t, env.KueueConfig)
	assert.Equal(t, cfg, env.KueueConfig, "the in-process Kueue must run the configuration of stack %s's Kueue chart", DeployedKueueStack)

	// The settings that decide the issue-17 scenario, spelled out.
	require.NotNil(t, env.KueueConfig.FairSharing, "fair sharing")
	assert.Equal(t, []configapi.PreemptionStrategy{configapi.LessThanOrEqualToFinalShare, configapi.LessThanInitialShare}, env.KueueConfig.FairSharing.PreemptionStrategies)
	require.NotNil(t, env.KueueConfig.WaitForPodsReady, "waitForPodsReady")
	timeout, err := time.ParseDuration(queues.PodsReadyTimeout)
	require.NoError(t, err)
	assert.Equal(t, timeout, env.KueueConfig.WaitForPodsReady.Timeout.Duration)
	assert.Equal(t, queues.DefaultKueueIntegrations, env.KueueConfig.Integrations.Frameworks)
	t.Logf("in-process Kueue runs stack %s's configuration: settings %v; fairSharing %v; waitForPodsReady timeout %s blockAdmission %v; integrations %v",
		DeployedKueueStack, keys, env.KueueConfig.FairSharing.PreemptionStrategies, env.KueueConfig.WaitForPodsReady.Timeout.Duration,
		*env.KueueConfig.WaitForPodsReady.BlockAdmission, env.KueueConfig.Integrations.Frameworks)

	root, err := RepoRoot()
	require.NoError(t, err)
	names, err := synth.Stacks(root)
	require.NoError(t, err)
	for _, stack := range names {
		other, _, ok, err := StackKueueConfig(env.Scheme, stack)
		require.NoError(t, err, stack)
		if !ok {
			t.Logf("stack %s does not install Kueue", stack)
			continue
		}
		assert.Equal(t, cfg, other, "stack %s installs a Kueue configuration the cluster tier does not run", stack)
	}
}

// TestKueueConfigDriftIsDetected is the negative side of the drift check: Kueue's
// defaults are not the deployed configuration, a setting the tier does not reproduce is
// reported, and a configuration the deployed Kueue would reject is an error.
func TestKueueConfigDriftIsDetected(t *testing.T) {
	scheme, err := NewScheme()
	require.NoError(t, err)
	deployed, err := DeployedKueueConfig()
	require.NoError(t, err)

	defaults := &configapi.Configuration{Integrations: &configapi.Integrations{Frameworks: DefaultKueueFrameworks}}
	scheme.Default(defaults)
	assert.NotEqual(t, deployed, defaults, "Kueue's defaults must not pass for the deployed configuration")
	assert.Nil(t, defaults.FairSharing, "the defaults the tier used to run have no fair sharing")

	values := func(yaml string) map[string]any {
		return map[string]any{"managerConfig": map[string]any{"controllerManagerConfigYaml": yaml}}
	}
	_, keys, err := KueueConfigFromChartValues(scheme, values("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfeatureGates:\n  TopologyAwareScheduling: false\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{"featureGates"}, UnhonouredKueueSettings(keys))

	_, _, err = KueueConfigFromChartValues(scheme, values("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing:\n  enable: true\n"))
	require.Error(t, err, "v1beta2 has no fairSharing.enable: strict decoding must reject it")
	t.Logf("rejected: %v", err)

	_, _, err = KueueConfigFromChartValues(scheme, map[string]any{})
	require.Error(t, err)
}
