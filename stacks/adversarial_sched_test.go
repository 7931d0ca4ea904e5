package stacks

import (
	"sync/atomic"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// schedCase is one config that can never be admitted or scheduled (issue
// 12, "work that can never be admitted or scheduled"): path is the key the
// error must name, fix a phrase of the message that says what to do. A
// case with an empty path must be accepted.
type schedCase struct {
	name   string
	mutate func(tree map[string]any)
	path   string
	fix    string
}

// countingMocks counts the resources a program registers.
type countingMocks struct{ n atomic.Int64 }

func (m *countingMocks) NewResource(args pulumi.MockResourceArgs) (string, resource.PropertyMap, error) {
	m.n.Add(1)
	return args.Name + "-id", args.Inputs, nil
}

func (m *countingMocks) Call(args pulumi.MockCallArgs) (resource.PropertyMap, error) {
	return args.Args, nil
}

// runSchedCase runs the program (Parse, then Deploy) on the case's config
// under mocks and checks the error and that nothing was registered.
func runSchedCase(t *testing.T, tc schedCase) {
	t.Helper()
	tree := baseTree(t)
	tc.mutate(tree)
	if tc.path == "" {
		// Accepted: it passes every check (the mocks cannot deploy an AKS
		// cluster's kubeconfig, so the valid cases stop after Parse).
		_, err := Parse("dev", rawConfig(t, tree))
		require.NoError(t, err)
		return
	}
	m := &countingMocks{}
	err := pulumi.RunErr(func(ctx *pulumi.Context) error {
		cfg, err := Parse("dev", rawConfig(t, tree))
		if err != nil {
			return err
		}
		_, err = Deploy(ctx, cfg)
		return err
	}, pulumi.WithMocks("aksml", "dev", m))
	require.Error(t, err)
	assert.Contains(t, err.Error(), tc.path+":")
	assert.Contains(t, err.Error(), tc.fix)
	assert.Zero(t, m.n.Load(), "a rejected config registers no resource")
}

// gpuJob is a CheckpointedJob of team on pool with gpus GPUs.
func gpuJob(team, pool string, gpus int) map[string]any {
	return map[string]any{"kind": "CheckpointedJob", "name": "job", "team": team, "pool": pool, "image": "busybox:1.36",
		"resources": map[string]any{"cpu": "3", "memory": "16Gi", "gpus": gpus}}
}

func withWorkload(w map[string]any, set func(w map[string]any)) func(tree map[string]any) {
	return func(tree map[string]any) {
		if set != nil {
			set(w)
		}
		tree["workloads"] = []any{w}
		tree["trainingOperator"] = map[string]any{"enabled": true}
	}
}

func TestAdversarialSchedulability(t *testing.T) {
	res := func(w map[string]any) map[string]any { return w["resources"].(map[string]any) }
	cases := []schedCase{
		// Requests at or above a node's allocatable (NC4as_T4_v3: 4 vCPUs, 3860m; NC24ads_A100_v4: 24 vCPUs, 220 GiB).
		{"cpu equal to the T4 VM's vCPUs", withWorkload(gpuJob("team-a", "t4", 1), func(w map[string]any) { res(w)["cpu"] = "4" }),
			"aksml:workloads[0].resources.cpu", "request less than 3860m"},
		{"cpu equal to T4 allocatable", withWorkload(gpuJob("team-a", "t4", 1), func(w map[string]any) { res(w)["cpu"] = "3860m" }),
			"aksml:workloads[0].resources.cpu", "or use a larger VM size"},
		{"memory equal to the T4 VM's", withWorkload(gpuJob("team-a", "t4", 1), func(w map[string]any) { res(w)["memory"] = "28Gi" }),
			"aksml:workloads[0].resources.memory", "request less than 23522Mi"},
		{"memory above the A100 VM's", withWorkload(gpuJob("team-a", "a100spot", 1), func(w map[string]any) { res(w)["memory"] = "221Gi" }),
			"aksml:workloads[0].resources.memory", "or use a larger VM size"},
		{"cpu of a CPU job equal to the CPU pool's vCPUs", withWorkload(map[string]any{"kind": "ScheduledScoring", "name": "score", "team": "team-a", "image": "busybox:1.36",
			"resources": map[string]any{"cpu": "8", "memory": "4Gi"}}, nil),
			"aksml:workloads[0].resources.cpu", "can never be scheduled on a Standard_D8ds_v5 node"},
		{"cpu just below T4 allocatable", withWorkload(gpuJob("team-a", "t4", 1), func(w map[string]any) { res(w)["cpu"] = "3800m" }), "", ""},
		// Gangs larger than the pool.
		{"PyTorchJob gang above the pool", withWorkload(map[string]any{"kind": "PyTorchJob", "name": "ddp", "team": "team-a", "pool": "t4", "image": "busybox:1.36",
			"resources": map[string]any{"cpu": "3", "memory": "16Gi", "gpus": 1}, "replicas": 3}, nil),
			"aksml:workloads[0].replicas", "holds 2 at most (maxCount 2); lower the replicas or GPUs, or raise aksml:gpuPools[0].maxCount"},
		{"TFJob gang above the spot pool", withWorkload(map[string]any{"kind": "TFJob", "name": "tf", "team": "team-a", "pool": "a100spot", "image": "busybox:1.36",
			"resources": map[string]any{"cpu": "3", "memory": "16Gi", "gpus": 1}, "workers": 5}, nil),
			"aksml:workloads[0].replicas", "raise aksml:gpuPools[1].maxCount"},
		{"IndexedJob parallel shards above the pool", withWorkload(map[string]any{"kind": "IndexedJob", "name": "shards", "team": "team-a", "pool": "t4", "image": "busybox:1.36",
			"resources": map[string]any{"cpu": "3", "memory": "16Gi", "gpus": 1}, "completions": 3}, nil),
			"aksml:workloads[0].resources.gpus", "holds 2 at most"},
		{"job on a managed pool at count 0", func(tree map[string]any) {
			tree["gpuPools"] = append(tree["gpuPools"].([]any), map[string]any{"name": "t4mgd", "vmSize": "Standard_NC4as_T4_v3", "workload": "training", "gpuStack": "Managed", "count": 0})
			withWorkload(gpuJob("team-a", "t4mgd", 1), nil)(tree)
		}, "aksml:workloads[0].resources.gpus", "raise aksml:gpuPools[2].count"},
		// More than the team can ever be admitted, and pools without quota.
		{"gang above nominal + borrowing", func(tree map[string]any) {
			at(tree, "teams", 0)["borrowingLimit"] = 0
			withWorkload(map[string]any{"kind": "PyTorchJob", "name": "ddp", "team": "team-a", "pool": "t4", "image": "busybox:1.36",
				"resources": map[string]any{"cpu": "3", "memory": "16Gi", "gpus": 1}, "replicas": 2}, nil)(tree)
		}, "aksml:workloads[0]", `team "team-a" can be admitted at most 1 there (nominal 1 + borrowing 0)`},
		{"spot gang above what the team can borrow", func(tree map[string]any) {
			at(tree, "teams", 0)["borrowingLimit"] = 1
			withWorkload(map[string]any{"kind": "PyTorchJob", "name": "ddp", "team": "team-a", "pool": "a100spot", "image": "busybox:1.36",
				"resources": map[string]any{"cpu": "3", "memory": "16Gi", "gpus": 1}, "replicas": 4}, nil)(tree)
		}, "aksml:workloads[0]", "raise aksml:teams[0].gpuQuota.a100spot or its borrowingLimit"},
		{"gang within nominal + borrowing", func(tree map[string]any) {
			withWorkload(map[string]any{"kind": "PyTorchJob", "name": "ddp", "team": "team-a", "pool": "t4", "image": "busybox:1.36",
				"resources": map[string]any{"cpu": "3", "memory": "16Gi", "gpus": 1}, "replicas": 2}, nil)(tree)
		}, "", ""},
		{"job on a pool the team has no quota on", func(tree map[string]any) {
			delete(at(tree, "teams", 1)["gpuQuota"].(map[string]any), "a100spot")
			withWorkload(gpuJob("team-b", "a100spot", 1), nil)(tree)
		}, "aksml:workloads[0].pool", "add aksml:teams[1].gpuQuota.a100spot (0 to only borrow), or choose a pool the team lists (t4)"},
		{"job on a pool with quota 0 borrows", func(tree map[string]any) {
			at(tree, "teams", 1)["gpuQuota"].(map[string]any)["a100spot"] = 0
			at(tree, "teams", 0)["gpuQuota"].(map[string]any)["a100spot"] = 4
			withWorkload(gpuJob("team-b", "a100spot", 1), nil)(tree)
		}, "", ""},
		{"Volcano team without GPUs of the resource", func(tree map[string]any) {
			tree["scheduler"] = map[string]any{"system": "volcano"}
			at(tree, "teams", 0)["gpuQuota"] = map[string]any{}
			at(tree, "teams", 0)["borrowingLimit"] = 0
			withWorkload(gpuJob("team-a", "t4", 1), nil)(tree)
		}, "aksml:workloads[0]", "may hold at most 0 (its ResourceQuota); lower the replicas or GPUs, or raise aksml:teams[0].gpuQuota"},
		// CPU-only pods on a cluster with no untainted pool.
		{"CPU job with the CPU pool disabled", func(tree map[string]any) {
			at(tree, "cluster")["cpuPool"] = map[string]any{"disabled": true}
			withWorkload(map[string]any{"kind": "ScheduledScoring", "name": "score", "team": "team-a", "image": "busybox:1.36",
				"resources": map[string]any{"cpu": "2", "memory": "4Gi"}}, nil)(tree)
		}, "aksml:workloads[0]", "enable the CPU pool, or run the workload on a GPU pool"},
		{"CPU checkpointed job with the CPU pool disabled", func(tree map[string]any) {
			at(tree, "cluster")["cpuPool"] = map[string]any{"disabled": true}
			w := gpuJob("team-a", "", 0)
			delete(w, "pool")
			withWorkload(w, nil)(tree)
		}, "aksml:workloads[0]", "without an untainted pool"},
		{"CPU job with the CPU pool on", withWorkload(map[string]any{"kind": "ScheduledScoring", "name": "score", "team": "team-a", "image": "busybox:1.36",
			"resources": map[string]any{"cpu": "2", "memory": "4Gi"}}, nil), "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { runSchedCase(t, tc) })
	}
}
