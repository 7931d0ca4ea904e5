package queues

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/field/fieldtest"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/internal/mocktest"
)

const (
	admissionCheckType = "kubernetes:kueue.x-k8s.io/v1beta2:AdmissionCheck"
	provReqConfigType  = "kubernetes:kueue.x-k8s.io/v1beta2:ProvisioningRequestConfig"
)

// provisioningPools are testPools plus a Managed pool and an autoscaled
// pool kept at one node.
func provisioningPools() []gpupool.Spec {
	pools := testPools()
	return append(pools,
		gpupool.Spec{Name: "managed", VMSize: "Standard_NC24ads_A100_v4", Workload: gpupool.WorkloadTraining, GPUStack: gpupool.GPUStackManaged, Count: ptr(1)},
		gpupool.Spec{Name: "warm", VMSize: "Standard_NC24ads_A100_v4", Workload: gpupool.WorkloadTraining, MinCount: ptr(1), MaxCount: 2},
	)
}

func TestValidateProvisioning(t *testing.T) {
	tests := []struct {
		name  string
		sched SchedulerSpec
		want  []fieldtest.Want
	}{
		{name: "atomic scale-up by default on pools at zero", sched: SchedulerSpec{Provisioning: []ProvisioningPool{{Pool: "a100"}, {Pool: "mig"}}}},
		{name: "check-capacity on a pool that keeps a node", sched: SchedulerSpec{Provisioning: []ProvisioningPool{{Pool: "warm", Class: ProvisioningCheckCapacity}}}},
		{name: "not kueue", sched: SchedulerSpec{System: SystemVolcano, Provisioning: []ProvisioningPool{{Pool: "a100"}}},
			want: []fieldtest.Want{fieldtest.Forbidden("aksml:scheduler.provisioning")}},
		{name: "unknown pool", sched: SchedulerSpec{Provisioning: []ProvisioningPool{{Pool: "h100"}}},
			want: []fieldtest.Want{fieldtest.Invalid("aksml:scheduler.provisioning[0].pool")}},
		{name: "pool missing", sched: SchedulerSpec{Provisioning: []ProvisioningPool{{}}},
			want: []fieldtest.Want{fieldtest.Required("aksml:scheduler.provisioning[0].pool")}},
		{name: "pool twice", sched: SchedulerSpec{Provisioning: []ProvisioningPool{{Pool: "a100"}, {Pool: "a100", Class: ProvisioningCheckCapacity}}},
			want: []fieldtest.Want{fieldtest.Duplicate("aksml:scheduler.provisioning[1]"), fieldtest.Invalid("aksml:scheduler.provisioning[1].class")}},
		{name: "unknown class", sched: SchedulerSpec{Provisioning: []ProvisioningPool{{Pool: "a100", Class: "queued-provisioning.gke.io"}}},
			want: []fieldtest.Want{fieldtest.NotSupported("aksml:scheduler.provisioning[0].class")}},
		{name: "managed pool has no autoscaler", sched: SchedulerSpec{Provisioning: []ProvisioningPool{{Pool: "managed"}}},
			want: []fieldtest.Want{fieldtest.Invalid("aksml:scheduler.provisioning[0].pool")}},
		{name: "check-capacity never scales a pool up from zero", sched: SchedulerSpec{Provisioning: []ProvisioningPool{{Pool: "a100", Class: ProvisioningCheckCapacity}}},
			want: []fieldtest.Want{fieldtest.Invalid("aksml:scheduler.provisioning[0].class")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			teams := testTeams()
			if tc.sched.System == SystemVolcano {
				teams = volcanoTeams()
			}
			errs := ValidateTeams(teams, provisioningPools(), tc.sched, aksmlPaths())
			fieldtest.Equal(t, errs.ToAggregate(), tc.want...)
		})
	}
}

func TestProvisioningMessagesSayWhatToDo(t *testing.T) {
	errs := ValidateTeams(testTeams(), provisioningPools(), SchedulerSpec{Provisioning: []ProvisioningPool{
		{Pool: "managed"}, {Pool: "a100", Class: ProvisioningCheckCapacity},
	}}, aksmlPaths())
	require.Len(t, errs, 2)
	assert.Contains(t, errs[0].Error(), `pool "managed" is gpuStack Managed: it runs a fixed count without the cluster autoscaler`)
	assert.Contains(t, errs[1].Error(), "use best-effort-atomic-scale-up.autoscaling.x-k8s.io, or raise aksml:gpuPools[0].minCount")
}

func TestProvisioningAdmissionChecks(t *testing.T) {
	args := kueueArgs()
	args.Pools = provisioningPools()
	args.Scheduler.Provisioning = []ProvisioningPool{{Pool: "a100"}, {Pool: "mig"}, {Pool: "warm", Class: ProvisioningCheckCapacity}}
	m, _, err := run(t, args)
	require.NoError(t, err)

	atomic := m.Named(t, provReqConfigType, "q-prc-aksml-best-effort-atomic-scale-up").Inputs
	assert.Equal(t, "aksml-best-effort-atomic-scale-up", mocktest.Dig(t, atomic, "metadata", "name"))
	assert.Equal(t, map[string]any{
		"provisioningClassName": "best-effort-atomic-scale-up.autoscaling.x-k8s.io",
		"managedResources":      []any{"nvidia.com/gpu", "nvidia.com/mig-1g.10gb"},
	}, atomic["spec"], "one config per class, managing the GPU resources of its pools")
	check := m.Named(t, provReqConfigType, "q-prc-aksml-check-capacity").Inputs
	assert.Equal(t, []any{"nvidia.com/gpu"}, mocktest.Dig(t, check, "spec", "managedResources"))

	ac := m.Named(t, admissionCheckType, "q-ac-aksml-best-effort-atomic-scale-up")
	assert.Equal(t, map[string]any{
		"controllerName": "kueue.x-k8s.io/provisioning-request",
		"parameters":     map[string]any{"apiGroup": "kueue.x-k8s.io", "kind": "ProvisioningRequestConfig", "name": "aksml-best-effort-atomic-scale-up"},
	}, mocktest.Dig(t, ac.Inputs, "spec"))
	assert.True(t, dependsOn(ac, "q-prc-aksml-best-effort-atomic-scale-up"), "the check waits for its config")

	a := m.Named(t, clusterQueueType, "q-cq-team-a")
	assert.Equal(t, map[string]any{"admissionChecks": []any{
		map[string]any{"name": "aksml-best-effort-atomic-scale-up", "onFlavors": []any{"gpu-a100", "gpu-mig"}},
	}}, mocktest.Dig(t, a.Inputs, "spec", "admissionChecksStrategy"), "only on the flavors of opted-in pools, never on the spot pool or the cpu flavor")
	assert.True(t, dependsOn(a, "q-ac-aksml-best-effort-atomic-scale-up"), "the ClusterQueue waits for its admission check")
}

func TestNoProvisioningWithoutOptIn(t *testing.T) {
	m, _, err := run(t, kueueArgs())
	require.NoError(t, err)
	assert.Empty(t, m.ByType(admissionCheckType))
	assert.Empty(t, m.ByType(provReqConfigType))
	assert.NotContains(t, mocktest.Dig(t, m.Named(t, clusterQueueType, "q-cq-team-a").Inputs, "spec"), "admissionChecksStrategy")

	// A team with no quota on the opted-in pool gets no strategy.
	args := kueueArgs()
	args.Scheduler.Provisioning = []ProvisioningPool{{Pool: "mig"}}
	m, _, err = run(t, args)
	require.NoError(t, err)
	assert.NotContains(t, mocktest.Dig(t, m.Named(t, clusterQueueType, "q-cq-team-b").Inputs, "spec"), "admissionChecksStrategy")
	assert.Contains(t, mocktest.Dig(t, m.Named(t, clusterQueueType, "q-cq-team-a").Inputs, "spec"), "admissionChecksStrategy")
}
