package provider

import (
	"testing"

	"github.com/pulumi/pulumi-go-provider/infer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/workloads"
)

// TestConstructFillsEmbeddedArgs: the settings a workload kind's Args
// embed (Container, JobRun) reach the Go component through a construct,
// which infer's own construct would drop (it fills top-level fields only):
// with infer.ComponentF the same inputs lose the namespace, team and image.
func TestConstructFillsEmbeddedArgs(t *testing.T) {
	in := obj(with(container(), map[string]any{"pool": a100(), "activeDeadlineSeconds": 600, "backoffLimit": 2}))
	reg, err := construct(t, workloads.CheckpointedJobType, in)
	require.NoError(t, err)
	jobs := reg.inputsOf("kubernetes:batch/v1:Job")
	require.Len(t, jobs, 1)
	spec := jobs[0].Get("spec").AsMap()
	assert.Equal(t, 600.0, spec.Get("activeDeadlineSeconds").AsNumber(), "JobRun.ActiveDeadlineSeconds")
	assert.Equal(t, 2.0, spec.Get("backoffLimit").AsNumber(), "the kind's own field")
	assert.Equal(t, "team-a", jobs[0].Get("metadata").AsMap().Get("namespace").AsString(), "Container.Namespace")
	pod := spec.Get("template").AsMap().Get("spec").AsMap()
	assert.Equal(t, "pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime", pod.Get("containers").AsArray().Get(0).AsMap().Get("image").AsString(), "Container.Image")

	plain, err := infer.NewProviderBuilder().WithNamespace(Name).WithComponents(infer.ComponentF(NewCheckpointedJob)).Build()
	require.NoError(t, err)
	err = constructOn(t, plain, (&registered{}).monitor(), workloads.CheckpointedJobType, in)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "q.image: is required")
}
