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
	deps      map[string][]string
}

func (m *mocks) NewResource(args pulumi.MockResourceArgs) (string, resource.PropertyMap, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.resources[args.TypeToken] = args.Inputs
	m.deps[args.TypeToken] = args.RegisterRPC.GetDependencies()
	return args.Name + "-id", args.Inputs, nil
}

func (m *mocks) Call(args pulumi.MockCallArgs) (resource.PropertyMap, error) { return args.Args, nil }

func runProgram(t *testing.T, cfg string) *mocks {
	t.Helper()
	t.Setenv("PULUMI_CONFIG", cfg)
	m := &mocks{resources: map[string]resource.PropertyMap{}, deps: map[string][]string{}}
	require.NoError(t, pulumi.RunErr(program, pulumi.WithMocks("pytorch-2node", "dev", m)))
	return m
}

func TestProgramRunsTwoNodePyTorchJob(t *testing.T) {
	m := runProgram(t, `{}`)
	require.Contains(t, m.resources, workloads.PyTorchJobType)
	assert.NotContains(t, m.resources, "kubernetes:kustomize/v2:Directory", "the operator is installed only when asked")
	job := m.resources["kubernetes:kubeflow.org/v1:PyTorchJob"].Mappable()
	assert.Equal(t, "ml-training", job["metadata"].(map[string]any)["namespace"])
	specs := job["spec"].(map[string]any)["pytorchReplicaSpecs"].(map[string]any)
	assert.EqualValues(t, 1, specs["Master"].(map[string]any)["replicas"])
	assert.EqualValues(t, 1, specs["Worker"].(map[string]any)["replicas"])
	ctr := specs["Worker"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	assert.Equal(t, "pytorch", ctr["name"])
	assert.Equal(t, []any{"python", "-c", allReduce}, ctr["command"])
	assert.Equal(t, "1", ctr["resources"].(map[string]any)["limits"].(map[string]any)["nvidia.com/gpu"])

	np := m.resources["kubernetes:networking.k8s.io/v1:NetworkPolicy"].Mappable()
	assert.Equal(t, "allow-pytorch-nccl-example-nccl", np["metadata"].(map[string]any)["name"])
	assert.Equal(t, map[string]any{"training-job": "pytorch-nccl-example"}, np["spec"].(map[string]any)["podSelector"].(map[string]any)["matchLabels"])
}

func TestProgramInstallsTrainingOperatorFirst(t *testing.T) {
	m := runProgram(t, `{"pytorch-2node:installTrainingOperator":"true"}`)
	dir, ok := m.resources["kubernetes:kustomize/v2:Directory"]
	require.True(t, ok)
	assert.Equal(t, "https://github.com/kubeflow/training-operator.git//manifests/overlays/standalone?ref=v1.8.1", dir.Mappable()["directory"])
	for _, typ := range []string{"kubernetes:kubeflow.org/v1:PyTorchJob", "kubernetes:networking.k8s.io/v1:NetworkPolicy"} {
		require.Len(t, m.deps[typ], 1, typ)
		assert.Contains(t, m.deps[typ][0], "kubernetes:kustomize/v2:Directory::training-operator-manifests", "%s waits for the operator's CRDs", typ)
	}
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
	rep, err := conformance.CheckProgram("examples/pytorch-2node", program)
	require.NoError(t, err)
	t.Log(rep.Summary())
	require.Positive(t, rep.KubernetesObjects)
	require.Empty(t, rep.Findings)
}
