package queues

import (
	"strings"
	"testing"

	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	corev1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/core/v1"
	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/internals"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/aksml/aksml/components/gpupool"

	"github.com/aksml/aksml/components/internal/mocktest"

	"github.com/aksml/aksml/components/field/fieldtest"
)

const (
	namespaceType     = "kubernetes:core/v1:Namespace"
	quotaType         = "kubernetes:core/v1:ResourceQuota"
	priorityClassType = "kubernetes:scheduling.k8s.io/v1:PriorityClass"
	chartType         = "kubernetes:helm.sh/v4:Chart"
	flavorType        = "kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor"
	clusterQueueType  = "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue"
	localQueueType    = "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue"
	cohortType        = "kubernetes:kueue.x-k8s.io/v1beta2:Cohort"
	wpcType           = "kubernetes:kueue.x-k8s.io/v1beta2:WorkloadPriorityClass"
	volcanoQueueType  = "kubernetes:scheduling.volcano.sh/v1beta1:Queue"
)

// outputs are the component's outputs, awaited.
type outputs struct {
	QueueNames, FlavorNames map[string]string
	LocalQueueName, System  string
}

func await[T any](t *testing.T, ctx *pulumi.Context, o pulumi.Output) T {
	t.Helper()
	r, err := internals.UnsafeAwaitOutput(ctx.Context(), o)
	require.NoError(t, err)
	return r.Value.(T)
}

// teamNamespaces registers a namespace `ns-<team>` per team, as
// components/tenancy would, and returns their names by team.
func teamNamespaces(ctx *pulumi.Context, teams []Team) (pulumi.StringMap, error) {
	out := pulumi.StringMap{}
	for _, t := range teams {
		ns, err := corev1.NewNamespace(ctx, "ns-"+t.Name, &corev1.NamespaceArgs{Metadata: &metav1.ObjectMetaArgs{Name: pulumi.String(t.Name)}})
		if err != nil {
			return nil, err
		}
		out[t.Name] = ns.Metadata.Name().Elem()
	}
	return out, nil
}

// plainNamespaces names each team's namespace after the team, with no
// resource behind it.
func plainNamespaces(teams []Team) pulumi.StringMap {
	out := pulumi.StringMap{}
	for _, t := range teams {
		out[t.Name] = pulumi.String(t.Name)
	}
	return out
}

// run builds Queues under mocks and returns what was registered. Unless
// args name the team namespaces, the program registers them first
// (teamNamespaces).
// rawQueues is the raw config a test resolves (at Paths, whose unset roots
// keep their defaults) and hands to NewQueues.
type rawQueues struct {
	Teams      []Team
	Pools      []gpupool.Spec
	Scheduler  SchedulerSpec
	Paths      Paths
	Namespaces pulumi.StringMapInput
}

// args resolves in; the problems travel in the resolved value.
func (in *rawQueues) args() *QueuesArgs {
	paths := in.Paths.orDefault()
	pools, _ := gpupool.Resolve(in.Pools, paths.Pools)
	r, _ := Resolve(in.Teams, pools, in.Scheduler, paths)
	return &QueuesArgs{Resolved: r, Namespaces: in.Namespaces}
}

func run(t *testing.T, in *rawQueues) (*mocktest.Mocks, outputs, error) {
	t.Helper()
	return runArgs(t, in.args())
}

func runArgs(t *testing.T, args *QueuesArgs) (*mocktest.Mocks, outputs, error) {
	t.Helper()
	var out outputs
	m, err := mocktest.Run(t, func(ctx *pulumi.Context) error {
		if args != nil && args.Namespaces == nil && args.Resolved != nil {
			a := *args
			ns, err := teamNamespaces(ctx, a.Resolved.Teams)
			if err != nil {
				return err
			}
			a.Namespaces, args = ns, &a
		}
		q, err := NewQueues(ctx, "q", args)
		if err != nil {
			return err
		}
		out.QueueNames = await[map[string]string](t, ctx, q.QueueNames)
		out.FlavorNames = await[map[string]string](t, ctx, q.FlavorNames)
		out.LocalQueueName = await[string](t, ctx, q.LocalQueueName)
		out.System = await[string](t, ctx, q.System)
		return nil
	})
	return m, out, err
}

func kueueArgs() *rawQueues {
	return &rawQueues{Teams: testTeams(), Pools: testPools()}
}

func dependsOn(r mocktest.Resource, name string) bool {
	for _, urn := range r.Deps {
		if strings.HasSuffix(urn, "::"+name) {
			return true
		}
	}
	return false
}

func TestPriorityClassesAsBestPractices(t *testing.T) {
	m, _, err := run(t, kueueArgs())
	require.NoError(t, err)

	tb := m.Named(t, priorityClassType, "q-priority-training-batch").Inputs
	assert.Equal(t, "training-batch", mocktest.Dig(t, tb, "metadata", "name"))
	assert.Equal(t, 10000.0, tb["value"])
	assert.Equal(t, false, tb["globalDefault"])
	assert.Equal(t, "Never", tb["preemptionPolicy"])
	assert.Equal(t, "Batch training can wait and can be preempted by higher-priority workloads.", tb["description"])

	ic := m.Named(t, priorityClassType, "q-priority-inference-critical").Inputs
	assert.Equal(t, "inference-critical", mocktest.Dig(t, ic, "metadata", "name"))
	assert.Equal(t, 100000.0, ic["value"])
	assert.Equal(t, false, ic["globalDefault"])
	assert.Equal(t, "PreemptLowerPriority", ic["preemptionPolicy"])
	assert.Equal(t, "Latency-sensitive production inference can preempt lower-priority workloads.", ic["description"])
}

func TestNoTeamNamespacesOrQuotas(t *testing.T) {
	for _, system := range []System{SystemKueue, SystemVolcano, SystemNone} {
		teams := testTeams()
		if system != SystemKueue {
			teams[0].BorrowingLimit, teams[0].LendingLimit = nil, nil
		}
		m, _, err := run(t, &rawQueues{Teams: teams, Pools: testPools(), Scheduler: SchedulerSpec{System: system}})
		require.NoError(t, err)
		assert.Empty(t, m.ByType(quotaType), "%s: the ResourceQuotas are components/tenancy's", system)
		for _, ns := range m.ByType(namespaceType) {
			if !strings.HasPrefix(ns.Name, "ns-") { // not the test program's team namespaces
				assert.Contains(t, []any{KueueNamespace, VolcanoNamespace}, mocktest.Dig(t, ns.Inputs, "metadata", "name"),
					"%s: the only namespace Queues registers is its scheduler's", system)
			}
		}
	}
}

func TestLocalQueuesNeedNamespaces(t *testing.T) {
	m, err := mocktest.Run(t, func(ctx *pulumi.Context) error {
		_, err := NewQueues(ctx, "q", kueueArgs().args())
		return err
	})
	assert.ErrorContains(t, err, "Namespaces is required")
	assert.Empty(t, m.All(), "nothing is registered without the namespaces")
}

func TestKueueInstalledFromPinnedChart(t *testing.T) {
	m, _, err := run(t, kueueArgs())
	require.NoError(t, err)

	charts := m.ByType(chartType)
	require.Len(t, charts, 1)
	chart := charts[0].Inputs
	assert.Equal(t, "oci://registry.k8s.io/kueue/charts/kueue", chart["chart"])
	assert.Equal(t, "0.17.0", chart["version"])
	assert.Equal(t, "kueue-system", chart["namespace"])
	assert.Equal(t, "restricted", mocktest.Dig(t, m.Named(t, namespaceType, "q-kueue-ns").Inputs, "metadata", "labels", "pod-security.kubernetes.io/enforce"))
	assert.Equal(t, []any{map[string]any{"key": "CriticalAddonsOnly", "operator": "Exists", "effect": "NoSchedule"}},
		mocktest.Dig(t, chart, "values", "controllerManager", "tolerations"))

	var config map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(mocktest.Dig(t, chart, "values", "managerConfig", "controllerManagerConfigYaml").(string)), &config))
	assert.Equal(t, "config.kueue.x-k8s.io/v1beta2", config["apiVersion"])
	assert.Equal(t, []any{"batch/job", "kubeflow.org/pytorchjob", "kubeflow.org/tfjob"}, mocktest.Dig(t, config, "integrations", "frameworks"))
	assert.NotNil(t, config["fairSharing"], "fair sharing must be on for the teams' weights to count")
	assert.Equal(t, "15m", mocktest.Dig(t, config, "waitForPodsReady", "timeout"))
	assert.Equal(t, true, config["manageJobsWithoutQueueName"], "a Job without the queue label in a team namespace is suspended, never run")
	assert.Equal(t, []any{map[string]any{"key": "aksml.io/team", "operator": "Exists"}}, mocktest.Dig(t, config, "managedJobsNamespaceSelector", "matchExpressions"),
		"only team namespaces are managed without a queue label; the platform's stay unmanaged")

	for _, typ := range []string{flavorType, clusterQueueType, cohortType, wpcType} {
		for _, r := range m.ByType(typ) {
			assert.True(t, dependsOn(r, "q-kueue"), "%s %s must depend on the Kueue chart", typ, r.Name)
		}
	}
}

func TestKueueChartValuesOverride(t *testing.T) {
	args := kueueArgs()
	args.Scheduler.KueueChartValues = map[string]any{"controllerManager": map[string]any{"replicas": 2}}
	m, _, err := run(t, args)
	require.NoError(t, err)
	chart := m.ByType(chartType)[0].Inputs
	assert.Equal(t, 2.0, mocktest.Dig(t, chart, "values", "controllerManager", "replicas"))
	assert.NotNil(t, mocktest.Dig(t, chart, "values", "controllerManager", "tolerations"), "maps merge key by key")
}

func TestKueueNotInstalled(t *testing.T) {
	args := kueueArgs()
	args.Scheduler.InstallKueue = ptr(false)
	m, out, err := run(t, args)
	require.NoError(t, err)

	assert.Empty(t, m.ByType(chartType))
	for _, ns := range m.ByType(namespaceType) {
		assert.NotEqual(t, "kueue-system", mocktest.Dig(t, ns.Inputs, "metadata", "name"))
	}
	assert.Len(t, m.ByType(flavorType), 4, "the Kueue objects are still created")
	assert.Len(t, m.ByType(clusterQueueType), 2)
	assert.Len(t, m.ByType(localQueueType), 4, "gpu-queue and default per team")
	assert.Equal(t, "gpu-queue", out.LocalQueueName)
}

func TestResourceFlavors(t *testing.T) {
	m, out, err := run(t, kueueArgs())
	require.NoError(t, err)
	gpuTaint := map[string]any{"key": "sku", "value": "gpu", "effect": "NoSchedule"}
	spotTaint := map[string]any{"key": "kubernetes.azure.com/scalesetpriority", "value": "spot", "effect": "NoSchedule"}
	gpuToleration := []any{map[string]any{"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}}

	onDemand := m.Named(t, flavorType, "q-flavor-gpu-a100").Inputs
	assert.Equal(t, "gpu-a100", mocktest.Dig(t, onDemand, "metadata", "name"))
	assert.Equal(t, map[string]any{"accelerator": "nvidia", "workload": "training", "kubernetes.azure.com/agentpool": "a100"}, mocktest.Dig(t, onDemand, "spec", "nodeLabels"))
	assert.Equal(t, []any{gpuTaint}, mocktest.Dig(t, onDemand, "spec", "nodeTaints"))
	assert.Equal(t, gpuToleration, mocktest.Dig(t, onDemand, "spec", "tolerations"))

	spot := m.Named(t, flavorType, "q-flavor-gpu-a100spot").Inputs
	assert.Equal(t, map[string]any{"accelerator": "nvidia", "workload": "gpu-spot", "kubernetes.azure.com/agentpool": "a100spot"}, mocktest.Dig(t, spot, "spec", "nodeLabels"))
	assert.Equal(t, []any{gpuTaint, spotTaint}, mocktest.Dig(t, spot, "spec", "nodeTaints"),
		"the spot taint is a nodeTaint: Kueue assigns the flavor only to workloads that tolerate spot")
	assert.Equal(t, gpuToleration, mocktest.Dig(t, spot, "spec", "tolerations"),
		"the spot toleration must never be injected, or every workload could land on spot")

	cpu := m.Named(t, flavorType, "q-flavor-cpu").Inputs
	assert.Equal(t, "cpu", mocktest.Dig(t, cpu, "metadata", "name"))
	assert.Equal(t, map[string]any{}, cpu["spec"])

	assert.Equal(t, map[string]string{"a100": "gpu-a100", "a100spot": "gpu-a100spot", "mig": "gpu-mig"}, out.FlavorNames)
	assert.Equal(t, "gpu-a100", FlavorName("a100"))
}

func TestClusterQueues(t *testing.T) {
	m, out, err := run(t, kueueArgs())
	require.NoError(t, err)

	cq := m.Named(t, clusterQueueType, "q-cq-team-a").Inputs
	assert.Equal(t, "team-a-gpu", mocktest.Dig(t, cq, "metadata", "name"))
	spec := mocktest.Dig(t, cq, "spec").(map[string]any)
	assert.Equal(t, map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": "team-a"}}, spec["namespaceSelector"])
	assert.Equal(t, "BestEffortFIFO", spec["queueingStrategy"])
	assert.Equal(t, "aksml", spec["cohortName"])
	assert.Nil(t, spec["cohort"], "v1beta2 names the field cohortName")
	assert.Equal(t, map[string]any{
		"withinClusterQueue":  "LowerPriority",
		"reclaimWithinCohort": "Any",
		"borrowWithinCohort":  map[string]any{"policy": "Never"},
	}, spec["preemption"])
	assert.Equal(t, map[string]any{"weight": "2"}, spec["fairSharing"])
	assert.Equal(t, map[string]any{"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor"}, spec["flavorFungibility"])

	assert.Equal(t, []any{
		map[string]any{
			"coveredResources": []any{"nvidia.com/gpu"},
			"flavors": []any{
				map[string]any{"name": "gpu-a100", "resources": []any{map[string]any{"name": "nvidia.com/gpu", "nominalQuota": "4", "borrowingLimit": "2", "lendingLimit": "3"}}},
				map[string]any{"name": "gpu-a100spot", "resources": []any{map[string]any{"name": "nvidia.com/gpu", "nominalQuota": "2", "borrowingLimit": "2", "lendingLimit": "2"}}},
			},
		},
		map[string]any{
			"coveredResources": []any{"nvidia.com/mig-1g.10gb"},
			"flavors": []any{
				map[string]any{"name": "gpu-mig", "resources": []any{map[string]any{"name": "nvidia.com/mig-1g.10gb", "nominalQuota": "7", "borrowingLimit": "2", "lendingLimit": "3"}}},
			},
		},
		map[string]any{
			"coveredResources": []any{"cpu", "memory"},
			"flavors": []any{map[string]any{"name": "cpu", "resources": []any{
				map[string]any{"name": "cpu", "nominalQuota": "64"},
				map[string]any{"name": "memory", "nominalQuota": "256Gi"},
			}}},
		},
	}, spec["resourceGroups"], "lendingLimit is capped at the flavor's nominal quota (2 on a100spot)")

	b := mocktest.Dig(t, m.Named(t, clusterQueueType, "q-cq-team-b").Inputs, "spec").(map[string]any)
	assert.Equal(t, map[string]any{"weight": "1"}, b["fairSharing"])
	assert.Equal(t, []any{map[string]any{"name": "nvidia.com/gpu", "nominalQuota": "2"}}, mocktest.Dig(t, b, "resourceGroups", 0, "flavors", 0, "resources"),
		"no limits when the team sets none")
	assert.Len(t, b["resourceGroups"], 2, "no MIG group for a team without MIG quota")

	for _, name := range []string{"q-cq-team-a", "q-cq-team-b"} {
		r := m.Named(t, clusterQueueType, name)
		for _, dep := range []string{"q-flavor-gpu-a100", "q-flavor-cpu", "q-cohort"} {
			assert.True(t, dependsOn(r, dep), "%s must depend on %s", name, dep)
		}
	}
	cohort := m.Named(t, cohortType, "q-cohort").Inputs
	assert.Equal(t, "aksml", mocktest.Dig(t, cohort, "metadata", "name"))
	assert.Equal(t, map[string]string{"team-a": "team-a-gpu", "team-b": "team-b-gpu"}, out.QueueNames)
}

func TestFlavorOrder(t *testing.T) {
	teams := testTeams()
	assert.Equal(t, []string{"a100", "mig", "a100spot"}, poolNames(teamPools(teams[0], defaultedPools())), "on-demand before spot by default")

	teams[0].FlavorOrder = []string{"a100spot"}
	args := kueueArgs()
	args.Teams = teams
	m, _, err := run(t, args)
	require.NoError(t, err)
	flavors := mocktest.Dig(t, m.Named(t, clusterQueueType, "q-cq-team-a").Inputs, "spec", "resourceGroups", 0, "flavors").([]any)
	require.Len(t, flavors, 2)
	assert.Equal(t, "gpu-a100spot", mocktest.Dig(t, flavors[0], "name"))
	assert.Equal(t, "gpu-a100", mocktest.Dig(t, flavors[1], "name"))
}

func TestLocalQueuesAndPriorityClassesForWorkloads(t *testing.T) {
	m, out, err := run(t, kueueArgs())
	require.NoError(t, err)

	for _, team := range []string{"team-a", "team-b"} {
		lq := m.Named(t, localQueueType, "q-lq-"+team)
		assert.Equal(t, "gpu-queue", mocktest.Dig(t, lq.Inputs, "metadata", "name"))
		assert.Equal(t, team, mocktest.Dig(t, lq.Inputs, "metadata", "namespace"))
		assert.Equal(t, team+"-gpu", mocktest.Dig(t, lq.Inputs, "spec", "clusterQueue"))
		assert.True(t, dependsOn(lq, "q-cq-"+team), "the LocalQueue must follow its ClusterQueue")
		assert.True(t, dependsOn(lq, "ns-"+team), "the LocalQueue must follow its namespace (through the Namespaces output)")

		// The default LocalQueue Kueue gives queue-less Jobs: the team's own
		// ClusterQueue, nothing else.
		dlq := m.Named(t, localQueueType, "q-dlq-"+team)
		assert.Equal(t, "default", mocktest.Dig(t, dlq.Inputs, "metadata", "name"))
		assert.Equal(t, team, mocktest.Dig(t, dlq.Inputs, "metadata", "namespace"))
		assert.Equal(t, team+"-gpu", mocktest.Dig(t, dlq.Inputs, "spec", "clusterQueue"), "a queue-less Job of %s reaches only its own quota", team)
		assert.True(t, dependsOn(dlq, "q-cq-"+team), "the default LocalQueue must follow its ClusterQueue")
		assert.True(t, dependsOn(dlq, "ns-"+team), "the default LocalQueue must follow its namespace")
	}
	assert.Equal(t, "gpu-queue", out.LocalQueueName)

	// One owner per name: in each namespace every LocalQueue aksml
	// declares has its own name, and `default` is only the default queue.
	names := map[string]string{}
	for _, r := range m.ByType(localQueueType) {
		key := mocktest.Dig(t, r.Inputs, "metadata", "namespace").(string) + "/" + mocktest.Dig(t, r.Inputs, "metadata", "name").(string)
		assert.NotContains(t, names, key, "%s and %s declare the same LocalQueue", names[key], r.Name)
		names[key] = r.Name
	}
	assert.Len(t, names, 4, "two LocalQueues per team")
	assert.NotEqual(t, DefaultLocalQueueName, LocalQueueName, "the team's named queue is not Kueue's default")

	tb := m.Named(t, wpcType, "q-wpc-training-batch").Inputs
	assert.Equal(t, "training-batch", mocktest.Dig(t, tb, "metadata", "name"))
	assert.Equal(t, 10000.0, tb["value"])
	assert.Equal(t, TrainingBatchDescription, tb["description"])
	ic := m.Named(t, wpcType, "q-wpc-inference-critical").Inputs
	assert.Equal(t, "inference-critical", mocktest.Dig(t, ic, "metadata", "name"))
	assert.Equal(t, 100000.0, ic["value"])
}

// resolved resolves teams, the test pools and sched.
func resolved(t *testing.T, teams []Team, sched SchedulerSpec) *Resolved {
	t.Helper()
	pools, errs := gpupool.Resolve(testPools(), DefaultPaths().Pools)
	require.Empty(t, errs)
	r, errs := Resolve(teams, pools, sched, DefaultPaths())
	require.Empty(t, errs)
	return r
}

func TestResourceQuotaHard(t *testing.T) {
	r := resolved(t, testTeams(), SchedulerSpec{})
	// team-a: a100 4 + min(borrow 2, team-b lends 2) + a100spot 2 + min(2, nobody lends) = 8; mig 7.
	assert.Equal(t, map[string]string{"requests.nvidia.com/gpu": "8", "requests.nvidia.com/mig-1g.10gb": "7"}, r.ResourceQuotaHard("team-a"))
	// team-b: a100 2 + team-a's lendingLimit 3 (no borrowing limit) = 5; no MIG quota.
	assert.Equal(t, map[string]string{"requests.nvidia.com/gpu": "5", "requests.nvidia.com/mig-1g.10gb": "0"}, r.ResourceQuotaHard("team-b"))
	assert.Nil(t, r.ResourceQuotaHard("team-z"), "no quota for a team that is not declared")
}

func TestAdmissibleGPUs(t *testing.T) {
	pools := defaultedPools()
	teams := volcanoTeams()
	assert.Equal(t, map[string]int{"nvidia.com/gpu": 6, "nvidia.com/mig-1g.10gb": 7}, AdmissibleGPUs(teams[0], teams, nil, pools, SystemNone), "none: nominal only")
	// volcano: team-a gpu 6 + min(2, team-b 2); team-b gpu 2 + team-a 6 (no limit).
	assert.Equal(t, map[string]int{"nvidia.com/gpu": 8, "nvidia.com/mig-1g.10gb": 7}, AdmissibleGPUs(teams[0], teams, nil, pools, SystemVolcano))
	assert.Equal(t, map[string]int{"nvidia.com/gpu": 8, "nvidia.com/mig-1g.10gb": 7}, AdmissibleGPUs(teams[1], teams, nil, pools, SystemVolcano))
	teams[1].BorrowingLimit = ptr(0)
	assert.Equal(t, map[string]int{"nvidia.com/gpu": 2, "nvidia.com/mig-1g.10gb": 0}, AdmissibleGPUs(teams[1], teams, nil, pools, SystemKueue), "borrowingLimit 0 turns borrowing off")
}

func TestVolcanoMode(t *testing.T) {
	m, out, err := run(t, &rawQueues{Teams: volcanoTeams(), Pools: testPools(), Scheduler: SchedulerSpec{System: SystemVolcano}})
	require.NoError(t, err)

	charts := m.ByType(chartType)
	require.Len(t, charts, 1)
	chart := charts[0].Inputs
	assert.Equal(t, "volcano", chart["chart"])
	assert.Equal(t, "1.12.2", chart["version"])
	assert.Equal(t, "https://volcano-sh.github.io/helm-charts", mocktest.Dig(t, chart, "repositoryOpts", "repo"))
	assert.Equal(t, "volcano-system", chart["namespace"])

	queues := m.ByType(volcanoQueueType)
	require.Len(t, queues, 2)
	a := m.Named(t, volcanoQueueType, "q-vcqueue-team-a")
	assert.Equal(t, "team-a-gpu", mocktest.Dig(t, a.Inputs, "metadata", "name"))
	assert.Equal(t, map[string]any{
		"weight":      2.0,
		"reclaimable": true,
		"capability":  map[string]any{"cpu": "64", "memory": "256Gi", "nvidia.com/gpu": "8", "nvidia.com/mig-1g.10gb": "7"},
		"deserved":    map[string]any{"cpu": "64", "memory": "256Gi", "nvidia.com/gpu": "6", "nvidia.com/mig-1g.10gb": "7"},
	}, a.Inputs["spec"])
	assert.True(t, dependsOn(a, "q-volcano"), "queues must follow the Volcano chart")

	for _, r := range m.All() {
		assert.False(t, strings.Contains(r.Type, "kueue.x-k8s.io"), "no Kueue objects in volcano mode: %s", r.Type)
	}
	assert.Len(t, m.ByType(priorityClassType), 2)
	assert.Equal(t, "", out.LocalQueueName)
	assert.Empty(t, out.FlavorNames)
	assert.Equal(t, map[string]string{"team-a": "team-a-gpu", "team-b": "team-b-gpu"}, out.QueueNames)
	assert.Equal(t, "volcano", out.System)
}

func TestNoQueueingSystem(t *testing.T) {
	teams := testTeams()
	teams[0].BorrowingLimit, teams[0].LendingLimit = nil, nil
	m, out, err := run(t, &rawQueues{Teams: teams, Pools: testPools(), Scheduler: SchedulerSpec{System: SystemNone}})
	require.NoError(t, err)

	assert.Empty(t, m.ByType(chartType))
	for _, r := range m.All() {
		assert.NotContains(t, r.Type, "kueue.x-k8s.io")
		assert.NotContains(t, r.Type, "volcano.sh")
	}
	assert.Equal(t, map[string]string{"requests.nvidia.com/gpu": "6", "requests.nvidia.com/mig-1g.10gb": "7"},
		resolved(t, teams, SchedulerSpec{System: SystemNone}).ResourceQuotaHard("team-a"), "nominal quota only: nothing to borrow through")
	assert.Empty(t, out.QueueNames)
	assert.Equal(t, "none", out.System)
}

func TestInvalidConfigRegistersNothing(t *testing.T) {
	args := kueueArgs()
	args.Namespaces = plainNamespaces(args.Teams)
	args.Teams[1].GPUQuota["a100"] = 8
	args.Pools[0].MaxCount = 0
	m, _, err := run(t, args)
	fieldtest.Contains(t, err, fieldtest.Invalid("gpuPools[0].maxCount"), fieldtest.Invalid("teams"))
	assert.Empty(t, m.All())

	// The caller's roots name the keys; an unset root keeps its default.
	args.Paths = Paths{Teams: "aksml:teams"}
	_, _, err = run(t, args)
	fieldtest.Contains(t, err, fieldtest.Invalid("gpuPools[0].maxCount"), fieldtest.Invalid("aksml:teams"))

	_, _, err = runArgs(t, nil)
	assert.ErrorContains(t, err, "args are required")
	m, _, err = runArgs(t, &QueuesArgs{})
	assert.ErrorContains(t, err, "QueuesArgs.Resolved is required", "the one input shape is the resolved layer")
	assert.Empty(t, m.All())
}

func TestProviderIsInherited(t *testing.T) {
	m, err := mocktest.Run(t, func(ctx *pulumi.Context) error {
		p, err := kubernetes.NewProvider(ctx, "k8s", &kubernetes.ProviderArgs{})
		if err != nil {
			return err
		}
		in := kueueArgs()
		in.Namespaces = plainNamespaces(in.Teams)
		args := in.args()
		args.Provider = p
		_, err = NewQueues(ctx, "q", args)
		return err
	})
	require.NoError(t, err)
	for _, typ := range []string{namespaceType, clusterQueueType, chartType} {
		for _, r := range m.ByType(typ) {
			assert.Contains(t, r.Provider, "pulumi:providers:kubernetes::k8s", "%s %s", typ, r.Name)
		}
	}
}

func defaultedPools() []gpupool.Resolved {
	pools, _ := gpupool.Resolve(testPools(), aksmlPaths().Pools)
	return pools
}

func poolNames(pools []gpupool.Resolved) []string {
	var out []string
	for _, p := range pools {
		out = append(out, p.Name)
	}
	return out
}

func TestOvercommitIsDeclaredOnFlavors(t *testing.T) {
	m, _, err := run(t, kueueArgs())
	require.NoError(t, err)
	meta := m.Named(t, flavorType, "q-flavor-gpu-a100").Inputs["metadata"].(map[string]any)
	assert.NotContains(t, meta, "annotations", "no overcommit, no annotation")

	args := kueueArgs()
	args.Scheduler.OvercommitRatio = 1.5
	m, _, err = run(t, args)
	require.NoError(t, err)
	for _, name := range []string{"q-flavor-gpu-a100", "q-flavor-gpu-a100spot"} {
		assert.Equal(t, map[string]any{OvercommitAnnotation: "1.5"}, mocktest.Dig(t, m.Named(t, flavorType, name).Inputs, "metadata", "annotations"))
	}
}

func TestPriorityLevelsCreatePairs(t *testing.T) {
	args := kueueArgs()
	args.Scheduler.Priorities = []PriorityLevel{
		{Name: "high", Value: 1000, Description: "Deadline work."},
		{Name: "low", Value: 10, PreemptionPolicy: PreemptNever},
	}
	m, _, err := run(t, args)
	require.NoError(t, err)

	require.Len(t, m.ByType(priorityClassType), 2, "the levels replace the defaults")
	require.Len(t, m.ByType(wpcType), 2)
	high := m.Named(t, priorityClassType, "q-priority-high").Inputs
	assert.Equal(t, 1000.0, high["value"])
	assert.Equal(t, "PreemptLowerPriority", high["preemptionPolicy"], "Kubernetes' default policy")
	assert.Equal(t, "Deadline work.", high["description"])
	low := m.Named(t, priorityClassType, "q-priority-low").Inputs
	assert.Equal(t, "Never", low["preemptionPolicy"])
	assert.Nil(t, low["description"])
	for _, name := range []string{"high", "low"} {
		pc := m.Named(t, priorityClassType, "q-priority-"+name).Inputs
		wpc := m.Named(t, wpcType, "q-wpc-"+name).Inputs
		assert.Equal(t, name, mocktest.Dig(t, wpc, "metadata", "name"))
		assert.Equal(t, pc["value"], wpc["value"], "%s: the WorkloadPriorityClass carries the PriorityClass's value", name)
		assert.Equal(t, pc["description"], wpc["description"])
	}
}

func TestPriorityLevelsWithoutKueue(t *testing.T) {
	args := &rawQueues{Teams: volcanoTeams(), Pools: testPools(), Scheduler: SchedulerSpec{System: SystemVolcano,
		Priorities: []PriorityLevel{{Name: "urgent", Value: 5000}}}}
	m, _, err := run(t, args)
	require.NoError(t, err)
	assert.Len(t, m.ByType(priorityClassType), 1)
	assert.Empty(t, m.ByType(wpcType), "WorkloadPriorityClasses are Kueue objects")
}

func TestTeamPreemptionAndResourceLimits(t *testing.T) {
	teams := testTeams()
	teams[0].Weight = DefaultWeight // read only under fair sharing, off here
	teams[1].Preemption = Preemption{WithinClusterQueue: PolicyNever, ReclaimWithinCohort: PolicyLowerPriority,
		BorrowWithinCohort: BorrowWithinCohort{Policy: PolicyLowerPriority, MaxPriorityThreshold: ptr(10000)}}
	teams[1].CPUBorrowingLimit, teams[1].CPULendingLimit = "8", "16"
	teams[1].MemoryBorrowingLimit, teams[1].MemoryLendingLimit = "32Gi", "64Gi"
	args := kueueArgs()
	args.Teams = teams
	args.Scheduler.FairSharing = ptr(false)
	m, _, err := run(t, args)
	require.NoError(t, err)

	spec := mocktest.Dig(t, m.Named(t, clusterQueueType, "q-cq-team-b").Inputs, "spec").(map[string]any)
	assert.Equal(t, map[string]any{
		"withinClusterQueue":  "Never",
		"reclaimWithinCohort": "LowerPriority",
		"borrowWithinCohort":  map[string]any{"policy": "LowerPriority", "maxPriorityThreshold": 10000.0},
	}, spec["preemption"])
	assert.Equal(t, []any{
		map[string]any{"name": "cpu", "nominalQuota": "32", "borrowingLimit": "8", "lendingLimit": "16"},
		map[string]any{"name": "memory", "nominalQuota": "128Gi", "borrowingLimit": "32Gi", "lendingLimit": "64Gi"},
	}, mocktest.Dig(t, spec, "resourceGroups", 1, "flavors", 0, "resources"))

	var config map[string]any
	chart := m.ByType(chartType)[0].Inputs
	require.NoError(t, yaml.Unmarshal([]byte(mocktest.Dig(t, chart, "values", "managerConfig", "controllerManagerConfigYaml").(string)), &config))
	assert.NotContains(t, config, "fairSharing", "fairSharing false leaves it out of Kueue's configuration")
}

func TestLendingOnlyMember(t *testing.T) {
	args := kueueArgs()
	args.Scheduler.Lenders = []Lender{{Name: "shared", GPUQuota: map[string]int{"a100": 2}, CPU: "16"}}
	m, out, err := run(t, args)
	require.NoError(t, err)

	lender := m.Named(t, clusterQueueType, "q-cq-lender-shared")
	assert.Equal(t, "shared-gpu", mocktest.Dig(t, lender.Inputs, "metadata", "name"))
	assert.Equal(t, "shared", mocktest.Dig(t, lender.Inputs, "metadata", "labels", LenderLabel))
	spec := mocktest.Dig(t, lender.Inputs, "spec").(map[string]any)
	assert.NotContains(t, spec, "namespaceSelector", "an unset namespaceSelector admits no namespace")
	assert.NotContains(t, spec, "preemption")
	assert.Equal(t, "aksml", spec["cohortName"])
	assert.Equal(t, []any{
		map[string]any{"coveredResources": []any{"nvidia.com/gpu"}, "flavors": []any{
			map[string]any{"name": "gpu-a100", "resources": []any{map[string]any{"name": "nvidia.com/gpu", "nominalQuota": "2", "borrowingLimit": "0"}}},
		}},
		map[string]any{"coveredResources": []any{"cpu", "memory"}, "flavors": []any{map[string]any{"name": "cpu", "resources": []any{
			map[string]any{"name": "cpu", "nominalQuota": "16", "borrowingLimit": "0"},
			map[string]any{"name": "memory", "nominalQuota": "0", "borrowingLimit": "0"},
		}}}},
	}, spec["resourceGroups"])
	for _, dep := range []string{"q-flavor-gpu-a100", "q-flavor-cpu", "q-cohort"} {
		assert.True(t, dependsOn(lender, dep), "the lender must depend on %s", dep)
	}
	for _, r := range m.ByType(localQueueType) {
		assert.NotContains(t, r.Name, "shared", "a lender has no LocalQueue")
	}
	assert.NotContains(t, out.QueueNames, "shared", "queueNames lists teams only")

	// team-b: a100 2 + min(no limit, team-a lends 3 + shared lends 2) = 7.
	assert.Equal(t, "7", resolved(t, testTeams(), args.Scheduler).ResourceQuotaHard("team-b")["requests.nvidia.com/gpu"])
}

func TestTeamPriorities(t *testing.T) {
	teams := testTeams()
	teams[1].Serving = true
	r := resolved(t, teams, SchedulerSpec{})
	assert.Equal(t, []string{"training-batch"}, r.TeamPriorities("team-a"), "inference-critical preempts: not for a team that is not serving")
	assert.Equal(t, []string{"training-batch", "inference-critical"}, r.TeamPriorities("team-b"))
	assert.Nil(t, r.TeamPriorities("team-z"))

	custom := resolved(t, testTeams(), SchedulerSpec{Priorities: []PriorityLevel{
		{Name: "low", Value: 1, PreemptionPolicy: PreemptNever},
		{Name: "urgent", Value: 500}, // defaults to PreemptLowerPriority
	}})
	assert.Equal(t, []string{"low"}, custom.TeamPriorities("team-a"), "any preempting level is serving-only, whatever its name")
	assert.True(t, ServingOnly(PriorityLevel{PreemptionPolicy: PreemptLowerPriority}))
	assert.False(t, ServingOnly(PriorityLevel{PreemptionPolicy: PreemptNever}))
}

func TestCPUMemoryBound(t *testing.T) {
	teams := testTeams()
	teams[1].CPUBorrowingLimit, teams[1].MemoryBorrowingLimit = "8", "500Gi"
	r := resolved(t, teams, SchedulerSpec{Lenders: []Lender{{Name: "spare", CPU: "16", Memory: "64Gi"}}})
	cpu, memory, ok := r.CPUMemoryBound("team-a")
	require.True(t, ok)
	assert.Equal(t, 64.0+32+16, cpu, "no cpu borrowing limit: nominal plus everyone else's nominal")
	assert.Equal(t, float64((256+128+64)<<30), memory)
	cpu, memory, _ = r.CPUMemoryBound("team-b")
	assert.Equal(t, 32.0+8, cpu, "the borrowing limit caps what can be borrowed")
	assert.Equal(t, float64((128+256+64)<<30), memory, "and never more than the others hold")

	plain := testTeams()
	plain[0].BorrowingLimit, plain[0].LendingLimit = nil, nil
	none := resolved(t, plain, SchedulerSpec{System: SystemNone})
	cpu, _, _ = none.CPUMemoryBound("team-a")
	assert.Equal(t, 64.0, cpu, "nothing to borrow through without a queueing system")
	_, _, ok = none.CPUMemoryBound("team-z")
	assert.False(t, ok)
}

// TestTeamsElsewhereAndTeamsOnly: ElsewhereTeams' queues are not
// registered (a team stack registers them), and TeamsOnly registers the
// named teams' ClusterQueue and LocalQueues alone, with no cluster-wide
// object; a team's queue is the same object in both layouts.
func TestTeamsElsewhereAndTeamsOnly(t *testing.T) {
	all, _, err := run(t, kueueArgs())
	require.NoError(t, err)

	args := kueueArgs().args()
	args.ElsewhereTeams = []string{"team-b"}
	platform, out, err := runArgs(t, args)
	require.NoError(t, err)
	assert.NotContains(t, out.QueueNames, "team-b")
	assert.Contains(t, out.QueueNames, "team-a")
	for _, r := range platform.All() {
		if !strings.HasSuffix(r.Type, ":Namespace") { // the test's own (runArgs)
			assert.NotContains(t, r.Name, "team-b", "team-b's %s is registered by another stack", r.Type)
		}
	}
	assert.NotEmpty(t, platform.SortedByType("kubernetes:scheduling.k8s.io/v1:PriorityClass"))

	args = kueueArgs().args()
	args.ElsewhereTeams, args.TeamsOnly = []string{"team-a"}, true
	team, out, err := runArgs(t, args)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"team-b": "team-b-gpu"}, out.QueueNames)
	var kinds []string
	for _, r := range team.All() {
		if strings.HasPrefix(r.Type, "kubernetes:") && !strings.HasSuffix(r.Type, ":Namespace") {
			kinds = append(kinds, r.Name)
			assert.Equal(t, all.Named(t, r.Type, r.Name).Inputs, r.Inputs, "%s as in one stack", r.Name)
		}
	}
	assert.ElementsMatch(t, []string{"q-cq-team-b", "q-lq-team-b", "q-dlq-team-b"}, kinds, "only team-b's queues")
}
