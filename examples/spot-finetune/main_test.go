package main

import (
	"strings"
	"sync"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/workloads"
	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/policy/rules"
	"github.com/aksml/aksml/tests/conformance"
)

type mocks struct {
	mu        sync.Mutex
	resources map[string]resource.PropertyMap
	providers map[string]string
}

func (m *mocks) NewResource(args pulumi.MockResourceArgs) (string, resource.PropertyMap, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.resources[args.TypeToken] = args.Inputs
	m.providers[args.TypeToken] = args.Provider
	return args.Name + "-id", args.Inputs, nil
}

func (m *mocks) Call(args pulumi.MockCallArgs) (resource.PropertyMap, error) { return args.Args, nil }

func runProgram(t *testing.T, cfg string) *mocks {
	t.Helper()
	t.Setenv("PULUMI_CONFIG", cfg)
	m := &mocks{resources: map[string]resource.PropertyMap{}, providers: map[string]string{}}
	require.NoError(t, pulumi.RunErr(program, pulumi.WithMocks("spot-finetune", "dev", m)))
	return m
}

func TestProgramRunsCheckpointedFineTuneOnSpot(t *testing.T) {
	m := runProgram(t, `{}`)
	require.Contains(t, m.resources, workloads.CheckpointedJobType)
	job, ok := m.resources["kubernetes:batch/v1:Job"]
	require.True(t, ok)
	in := job.Mappable()
	meta := in["metadata"].(map[string]any)
	assert.Equal(t, "finetune", meta["name"])
	assert.Equal(t, "team-a", meta["namespace"])
	assert.Equal(t, "gpu-queue", meta["labels"].(map[string]any)["kueue.x-k8s.io/queue-name"])
	assert.Equal(t, "true", meta["annotations"].(map[string]any)["pulumi.com/skipAwait"])
	spec := in["spec"].(map[string]any)
	assert.Equal(t, true, spec["suspend"])
	pod := spec["template"].(map[string]any)["spec"].(map[string]any)
	assert.Equal(t, map[string]any{"accelerator": "nvidia", "workload": "gpu-spot", "kubernetes.azure.com/agentpool": "gpuspot"}, pod["nodeSelector"])
	assert.Len(t, pod["tolerations"], 2, "GPU and spot tolerations")
	assert.Equal(t, "", m.providers["kubernetes:batch/v1:Job"], "no kubeconfig: the ambient provider")
	assert.NotContains(t, m.resources, "pulumi:providers:kubernetes")
}

func TestProgramUsesConfiguredKubeconfigAndPool(t *testing.T) {
	m := runProgram(t, `{"spot-finetune:kubeconfig":"/tmp/kubeconfig","spot-finetune:namespace":"team-b","spot-finetune:poolName":"a100spot","spot-finetune:vmSize":"Standard_NC24ads_A100_v4"}`)
	require.Contains(t, m.resources, "pulumi:providers:kubernetes")
	assert.Contains(t, m.providers["kubernetes:batch/v1:Job"], "pulumi:providers:kubernetes::cluster")
	in := m.resources["kubernetes:batch/v1:Job"].Mappable()
	assert.Equal(t, "team-b", in["metadata"].(map[string]any)["namespace"])
	pod := in["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	assert.Equal(t, "a100spot", pod["nodeSelector"].(map[string]any)["kubernetes.azure.com/agentpool"])
}

func TestProgramRefusesTagOnlyImageWhenDigestRequired(t *testing.T) {
	t.Setenv("PULUMI_CONFIG", `{"spot-finetune:requireDigest":"true"}`)
	err := pulumi.RunErr(program, pulumi.WithMocks("spot-finetune", "prod", &mocks{resources: map[string]resource.PropertyMap{}, providers: map[string]string{}}))
	require.ErrorContains(t, err, "finetune.image")
}

// TestGuardrails synthesizes the example as a dev stack and runs every
// policy rule over it (the CI check for examples, SPEC C8).
func TestGuardrails(t *testing.T) {
	st, err := synth.Run("dev", "dev", map[string]string{}, func(ctx *pulumi.Context) (map[string]pulumi.Input, error) {
		return nil, program(ctx)
	})
	require.NoError(t, err)
	require.NotEmpty(t, st.Resources)
	violations := rules.Check(st)
	var report strings.Builder
	_, err = rules.WriteReport(&report, st, violations)
	require.NoError(t, err)
	require.Empty(t, violations, report.String())
}

// TestConformance runs the conformance tier (tests/conformance: Azure specs,
// the AKS rule catalogue and the duplicate-identity check) over the example.
func TestConformance(t *testing.T) {
	rep, err := conformance.CheckProgram("examples/spot-finetune", program)
	require.NoError(t, err)
	t.Log(rep.Summary())
	require.Positive(t, rep.KubernetesObjects)
	require.Empty(t, rep.Findings)
}
