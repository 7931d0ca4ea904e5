package provider

import (
	"context"
	"encoding/base64"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/blang/semver"
	p "github.com/pulumi/pulumi-go-provider"
	presource "github.com/pulumi/pulumi/sdk/v3/go/common/resource"

	"github.com/pulumi/pulumi-go-provider/integration"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/cluster"
	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/observability"
	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/teams"
	"github.com/aksml/aksml/components/tenancy"
	"github.com/aksml/aksml/components/workloads"
)

// val converts plain Go test data (strings, ints, bools, []any,
// map[string]any) to a property value, the form the engine sends.
func val(x any) property.Value {
	switch x := x.(type) {
	case string:
		return property.New(x)
	case int:
		return property.New(float64(x))
	case bool:
		return property.New(x)
	case []any:
		out := make([]property.Value, len(x))
		for i, e := range x {
			out[i] = val(e)
		}
		return property.New(property.NewArray(out))
	case map[string]any:
		return property.New(obj(x))
	}
	panic("val: unsupported test value")
}

func obj(m map[string]any) property.Map {
	out := map[string]property.Value{}
	for k, v := range m {
		out[k] = val(v)
	}
	return property.NewMap(out)
}

// with returns a copy of base with the keys of over replaced.
func with(base, over map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

func container() map[string]any {
	return map[string]any{
		"namespace": "team-a", "team": "team-a", "image": "pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime",
		"resources": map[string]any{"cpu": "3", "memory": "16Gi", "gpus": 1},
	}
}

func goCommon() workloads.Common {
	return workloads.Common{Namespace: pulumi.String("team-a"), Team: "team-a", Image: "pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime",
		Resources: workloads.Resources{CPU: "3", Memory: "16Gi", GPUs: 1}}
}

func a100() map[string]any {
	return map[string]any{"name": "a100", "vmSize": "Standard_NC24ads_A100_v4", "workload": "training", "maxCount": 4}
}

func goPool(s gpupool.Spec) *gpupool.Resolved {
	r, _ := gpupool.ResolveOne(s, field.NewPath("pool"))
	return r
}

func goA100() *gpupool.Resolved {
	return goPool(gpupool.Spec{Name: "a100", VMSize: "Standard_NC24ads_A100_v4", Workload: gpupool.WorkloadTraining, MaxCount: 4})
}

// validated is a Go component's Args after Default and Validate, under the
// name construct gives the component ("q").
type validated interface {
	Default(name string)
	Validate(p field.Path) field.ErrorList
}

func goErrors(a validated) field.ErrorList {
	a.Default("q")
	return a.Validate(field.NewPath("q"))
}

// componentCase is one component built from language-neutral inputs:
// what a valid construct registers, and a bad input whose error must be the
// Go component's.
type componentCase struct {
	token string
	good  map[string]any
	// child is a type the good construct registers, with its count.
	child string
	count int
	bad   map[string]any
	// goErrs are the Go component's errors for the same bad input.
	goErrs func() field.ErrorList
	// monitor, when set, answers the component's invokes.
	monitor func(*registered) *integration.MockResourceMonitor
}

func workloadCases() []componentCase {
	ix := with(container(), map[string]any{"completions": 4, "resources": map[string]any{"cpu": "2", "memory": "16Gi"}})
	pt := with(container(), map[string]any{"pool": a100(), "totalGPUs": 2})
	tf := with(container(), map[string]any{"pool": a100(), "totalGPUs": 2})
	mig := with(container(), map[string]any{"pool": with(a100(), map[string]any{"name": "mig", "maxCount": 2, "mig": map[string]any{"strategy": "Mixed", "profile": "MIG1g"}})})
	delete(mig, "resources")
	scoring := with(container(), map[string]any{"resources": map[string]any{"cpu": "2", "memory": "4Gi"}})
	serve := with(container(), map[string]any{"pool": with(a100(), map[string]any{"name": "serve", "workload": "inference"}), "serving": true,
		"keda": map[string]any{"queryEndpoint": testQueryEndpoint}})
	ws := map[string]any{"namespace": "team-a", "team": "team-a", "instanceType": "Standard_NC24ads_A100_v4", "preset": "phi-3-mini-4k-instruct",
		"inputURLs": []any{"https://huggingface.co/datasets/yahma/alpaca-cleaned/resolve/main/alpaca_data_cleaned.json"}, "outputPVC": "adapters"}
	iws := map[string]any{"namespace": "team-a", "team": "team-a", "instanceType": "Standard_NC24ads_A100_v4", "preset": "Qwen/Qwen3-0.6B", "count": 2}
	return []componentCase{
		{
			token: workloads.CheckpointedJobType, good: with(container(), map[string]any{"pool": a100()}), child: "kubernetes:batch/v1:Job", count: 1,
			bad: with(container(), map[string]any{"pool": a100(), "checkpointPVC": "Bad_Claim", "backoffLimit": -1}),
			goErrs: func() field.ErrorList {
				c := goCommon()
				c.CheckpointPVC = "Bad_Claim"
				return goErrors(&workloads.CheckpointedJobArgs{Common: c, Pool: goA100(), BackoffLimit: -1})
			},
		},
		{
			token: workloads.IndexedJobType, good: ix, child: "kubernetes:batch/v1:Job", count: 1,
			bad: with(ix, map[string]any{"completions": 0, "shardManifest": "shards.txt"}),
			goErrs: func() field.ErrorList {
				c := goCommon()
				c.Resources = workloads.Resources{CPU: "2", Memory: "16Gi"}
				return goErrors(&workloads.IndexedJobArgs{Common: c, ShardManifest: "shards.txt"})
			},
		},
		{
			token: workloads.PyTorchJobType, good: pt, child: "kubernetes:kubeflow.org/v1:PyTorchJob", count: 1,
			bad: with(pt, map[string]any{"totalGPUs": 3, "nccl": map[string]any{"debug": "LOUD"}}),
			goErrs: func() field.ErrorList {
				return goErrors(&workloads.PyTorchJobArgs{Common: goCommon(), Distributed: workloads.Distributed{Pool: goA100(), TotalGPUs: 3, NCCL: workloads.NCCL{Debug: "LOUD"}}})
			},
		},
		{
			token: workloads.TFJobType, good: tf, child: "kubernetes:kubeflow.org/v1:TFJob", count: 1,
			bad: with(tf, map[string]any{"ps": 1, "allowEgressCIDRs": []any{"10.0.8.0"}}),
			goErrs: func() field.ErrorList {
				return goErrors(&workloads.TFJobArgs{Common: goCommon(), Distributed: workloads.Distributed{Pool: goA100(), TotalGPUs: 2, AllowEgressCIDRs: []string{"10.0.8.0"}}, PS: 1})
			},
		},
		{
			token: workloads.MIGTrialType, good: mig, child: "kubernetes:batch/v1:Job", count: 1,
			bad: with(mig, map[string]any{"pool": a100(), "migDevices": 2}),
			goErrs: func() field.ErrorList {
				c := goCommon()
				c.Resources = workloads.Resources{}
				return goErrors(&workloads.MIGTrialArgs{Common: c, Pool: goA100(), MIGDevices: 2})
			},
		},
		{
			token: workloads.ScheduledScoringType, good: scoring, child: "kubernetes:batch/v1:CronJob", count: 1,
			bad: with(scoring, map[string]any{"schedule": "at midnight", "concurrencyPolicy": "Sometimes"}),
			goErrs: func() field.ErrorList {
				c := goCommon()
				c.Resources = workloads.Resources{CPU: "2", Memory: "4Gi"}
				return goErrors(&workloads.ScheduledScoringArgs{Common: c, Schedule: "at midnight", ConcurrencyPolicy: "Sometimes"})
			},
		},
		{
			token: workloads.InferenceServerType, good: serve, child: "kubernetes:apps/v1:Deployment", count: 1,
			bad: with(serve, map[string]any{"pool": a100(), "serving": false, "priorityClass": "inference-critical"}),
			goErrs: func() field.ErrorList {
				c := goCommon()
				c.PriorityClass = "inference-critical"
				return goErrors(&workloads.InferenceServerArgs{Common: c, Pool: goA100(), KEDA: &workloads.KEDASource{QueryEndpoint: pulumi.String(testQueryEndpoint)}})
			},
		},
		{
			token: workloads.FineTuningWorkspaceType, good: ws, child: "kubernetes:kaito.sh/v1alpha1:Workspace", count: 1,
			bad: with(ws, map[string]any{"instanceType": "Standard_NV6", "method": "full"}),
			goErrs: func() field.ErrorList {
				a := &workloads.FineTuningWorkspaceArgs{Namespace: pulumi.String("team-a"), Team: "team-a", InstanceType: "Standard_NV6", Preset: "phi-3-mini-4k-instruct",
					InputURLs: []string{"https://huggingface.co/datasets/yahma/alpaca-cleaned/resolve/main/alpaca_data_cleaned.json"}, OutputPVC: "adapters", Method: "full"}
				return goErrors(a)
			},
		},
		{
			token: workloads.InferenceWorkspaceType, good: iws, child: "kubernetes:kaito.sh/v1alpha1:Workspace", count: 1,
			bad: with(iws, map[string]any{"instanceType": "Standard_NV6", "preset": "Phi 3"}),
			goErrs: func() field.ErrorList {
				return goErrors(&workloads.InferenceWorkspaceArgs{Namespace: pulumi.String("team-a"), Team: "team-a", InstanceType: "Standard_NV6", Preset: "Phi 3"})
			},
		},
	}
}

// testQueryEndpoint is an Azure Monitor workspace query endpoint for the
// InferenceServer's keda scaler (its default).
const testQueryEndpoint = "https://amw-ml-a1b2.westeurope.prometheus.monitor.azure.com"

// kubeconfigMonitor answers the cluster's credentials invoke like ARM.
func kubeconfigMonitor(r *registered) *integration.MockResourceMonitor {
	m := r.monitor()
	m.CallF = func(args integration.MockCallArgs) (property.Map, error) {
		if strings.HasSuffix(string(args.Token), ":listManagedClusterUserCredentials") {
			kc := base64.StdEncoding.EncodeToString([]byte("apiVersion: v1\nkind: Config\n"))
			return obj(map[string]any{"kubeconfigs": []any{map[string]any{"name": "clusterUser", "value": kc}}}), nil
		}
		return property.Map{}, nil
	}
	return m
}

func platformCases() []componentCase {
	// Logs off: the Log Analytics workspace's deployment stack has no
	// outputs under mocks.
	c := map[string]any{"name": "aks-ml", "location": "eastus", "resourceGroup": map[string]any{"name": "rg-ml"},
		"logs": map[string]any{"containerInsights": false, "auditLogs": false}}
	return []componentCase{
		{
			token: observability.MonitorsType, good: map[string]any{"gpuStacks": []any{"DriverOnly"}, "spec": map[string]any{"prometheusRule": true}},
			child: "kubernetes:azmonitoring.coreos.com/v1:PodMonitor", count: 2,
			bad: map[string]any{"spec": map[string]any{"rpo": "1m", "gpuIdleThresholdPercent": 100}},
			goErrs: func() field.ErrorList {
				s := observability.Spec{RPO: "1m", GPUIdleThresholdPercent: 100}
				s.Default()
				return s.Validate(observability.DefaultConfigPath)
			},
		},
		{
			token: cluster.ComponentType, good: c, child: ":ManagedCluster", count: 1,
			bad: with(c, map[string]any{"name": "-aks", "systemPool": map[string]any{"minCount": 0}}),
			goErrs: func() field.ErrorList {
				off := false
				s := cluster.Spec{Name: "-aks", Location: "eastus", ResourceGroup: cluster.ResourceGroup{Name: "rg-ml"}, SystemPool: cluster.SystemPool{MinCount: new(int)},
					Logs: cluster.LogsSpec{ContainerInsights: &off, AuditLogs: &off}}
				s.Default()
				return s.Validate(field.NewPath(cluster.DefaultConfigPath))
			},
			monitor: kubeconfigMonitor,
		},
	}
}

// TestConstructEveryComponent builds each added component from
// language-neutral inputs (the Go component runs underneath and registers
// its objects), then from a bad input: the construct fails with every
// message the Go component gives for the same Args (same key paths and
// wording) and registers none of the component's objects.
func TestConstructEveryComponent(t *testing.T) {
	for _, tc := range append(workloadCases(), platformCases()...) {
		t.Run(tc.token, func(t *testing.T) {
			reg, err := constructWith(t, tc.token, obj(tc.good), tc.monitor)
			require.NoError(t, err)
			assert.Equal(t, tc.count, reg.countSuffix(tc.child), "the Go component registers %s", tc.child)

			reg, err = constructWith(t, tc.token, obj(tc.bad), tc.monitor)
			require.Error(t, err)
			want := tc.goErrs()
			require.NotEmpty(t, want, "the bad input is invalid in Go too")
			for _, e := range want {
				assert.Contains(t, err.Error(), e.Error())
			}
			assert.Zero(t, reg.countSuffix(tc.child), "a rejected construct registers nothing")
		})
	}
}

// TestMonitorsRejectsABadDuration covers the one conversion the provider
// adds: a workload duration that is not a duration is an error at the Go
// component's key path.
func TestMonitorsRejectsABadDuration(t *testing.T) {
	_, err := construct(t, observability.MonitorsType, obj(map[string]any{"workloadDurations": []any{
		map[string]any{"namespace": "team-a", "name": "nightly", "expected": "4h"},
		map[string]any{"namespace": "team-a", "name": "train", "expected": "soon"},
	}}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `MonitorsArgs.WorkloadDurations[1].Expected: "soon" is not a duration`)
	assert.NotContains(t, err.Error(), "WorkloadDurations[0]")
}

// TestConstructQueuesPreemption: teams[].preemption reaches the team's
// ClusterQueue, and an invalid policy is the Go component's error.
func TestConstructQueuesPreemption(t *testing.T) {
	inputs := func(p map[string]any) property.Map {
		tm := map[string]any{"name": "team-a", "cpu": "16", "memory": "64Gi", "gpuQuota": map[string]any{"t4": 1}, "preemption": p}
		return obj(map[string]any{
			"teams":      []any{tm},
			"pools":      []any{map[string]any{"name": "t4", "vmSize": "Standard_NC4as_T4_v3", "workload": "training", "maxCount": 2}},
			"scheduler":  map[string]any{"installKueue": false},
			"namespaces": map[string]any{"team-a": "team-a"},
		})
	}
	reg, err := construct(t, queues.ComponentType, inputs(map[string]any{"withinClusterQueue": "Never", "reclaimWithinCohort": "LowerPriority"}))
	require.NoError(t, err)
	cq := reg.inputsOf("kubernetes:" + queues.KueueAPIVersion + ":ClusterQueue")
	require.Len(t, cq, 1)
	pre := cq[0].Get("spec").AsMap().Get("preemption").AsMap()
	assert.Equal(t, "Never", pre.Get("withinClusterQueue").AsString())
	assert.Equal(t, "LowerPriority", pre.Get("reclaimWithinCohort").AsString())

	_, err = construct(t, queues.ComponentType, inputs(map[string]any{"withinClusterQueue": "Sometimes"}))
	require.Error(t, err)
	goErrs := queues.ValidateTeams([]queues.Team{{Name: "team-a", CPU: "16", Memory: "64Gi", GPUQuota: map[string]int{"t4": 1},
		Preemption: queues.Preemption{WithinClusterQueue: "Sometimes"}}}, nil, queues.SchedulerSpec{}, queues.DefaultPaths())
	require.NotEmpty(t, goErrs)
	for _, e := range goErrs {
		if strings.Contains(string(e.Path), "preemption") {
			assert.Contains(t, err.Error(), e.Error())
		}
	}
	assert.Contains(t, err.Error(), "teams[0].preemption.withinClusterQueue")
}

// TestArgsCoverTheGoArgs: every field of a Go component's Args that can
// cross a language boundary has a provider Arg of the same name (and so a
// property named like the Go errors name it); assign converts by name.
func TestArgsCoverTheGoArgs(t *testing.T) {
	for _, tc := range []struct {
		provider any
		goTypes  []any
		notHere  []string // Go-only fields: funcs, providers, paths, resolved values
	}{
		{CheckpointedJobArgs{}, []any{workloads.CheckpointedJobArgs{}}, []string{"Provider"}},
		{IndexedJobArgs{}, []any{workloads.IndexedJobArgs{}}, []string{"Provider"}},
		{MIGTrialArgs{}, []any{workloads.MIGTrialArgs{}}, []string{"Provider"}},
		{ScheduledScoringArgs{}, []any{workloads.ScheduledScoringArgs{}}, []string{"Provider"}},
		{PyTorchJobArgs{}, []any{workloads.PyTorchJobArgs{}}, []string{"Provider"}},
		{TFJobArgs{}, []any{workloads.TFJobArgs{}}, []string{"Provider"}},
		{FineTuningWorkspaceArgs{}, []any{workloads.FineTuningWorkspaceArgs{}}, []string{"Provider"}},
		{InferenceWorkspaceArgs{}, []any{workloads.InferenceWorkspaceArgs{}}, []string{"Provider"}},
		{InferenceServerArgs{}, []any{workloads.InferenceServerArgs{}}, []string{"Provider"}},
		{Team{}, []any{teams.Team{}}, nil},
		{TenancyArgs{}, []any{tenancy.TenancyArgs{}}, []string{"Provider", "ConfigPath", "Azure", "IdentityClientIDs", "QueuesName", "ElsewhereTeams"}},
		{Preemption{}, []any{queues.Preemption{}}, nil},
		{MonitorsArgs{}, []any{observability.MonitorsArgs{}}, []string{"Provider", "DependsOn", "ConfigPath"}},
		{WorkloadDuration{}, []any{observability.WorkloadDuration{}}, nil},
		{ClusterArgs{}, []any{cluster.Spec{}, cluster.ClusterArgs{}}, []string{"Spec", "ConfigPath", "Transform"}},
	} {
		have := map[string]bool{}
		for _, f := range reflect.VisibleFields(reflect.TypeOf(tc.provider)) {
			have[f.Name] = true
		}
		for _, g := range tc.goTypes {
			for _, f := range reflect.VisibleFields(reflect.TypeOf(g)) {
				if f.Anonymous || !f.IsExported() || slices.Contains(tc.notHere, f.Name) {
					continue
				}
				assert.True(t, have[f.Name], "%T has no Arg for %T.%s", tc.provider, g, f.Name)
			}
		}
	}
}

// TestAssignRefusesAFieldWithoutDestination is the negative case of
// assign: an Arg the Go Args lack is an error, not dropped.
func TestAssignRefusesAFieldWithoutDestination(t *testing.T) {
	src := struct {
		Completions int     `pulumi:"completions"`
		Shards      *string `pulumi:"shards,optional"`
	}{Completions: 3}
	var dst workloads.IndexedJobArgs
	err := assign(&dst, src)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no field Shards")
	require.NoError(t, assign(&dst, src, "Shards"))
	assert.Equal(t, 3, dst.Completions)
}

// TestMonitorsPassDependsOnToTheMonitors: the component's dependsOn option
// reaches its children (which do not inherit it), as MonitorsArgs.DependsOn
// does in Go; without it the children carry no such dependency.
func TestMonitorsPassDependsOnToTheMonitors(t *testing.T) {
	const dep = "urn:pulumi:stack::proj::aksml:gpustack:GPUStack::gpu"
	podMonitorDeps := func(deps []presource.URN) []string {
		prov, err := New()
		require.NoError(t, err)
		var got []string
		var mu sync.Mutex
		mon := &integration.MockResourceMonitor{NewResourceF: func(args integration.MockResourceArgs) (string, property.Map, error) {
			if strings.HasSuffix(string(args.TypeToken), ":PodMonitor") && args.RegisterRPC != nil {
				mu.Lock()
				got = append(got, args.RegisterRPC.GetDependencies()...)
				mu.Unlock()
			}
			return args.Name + "-id", args.Inputs, nil
		}}
		srv, err := integration.NewServer(context.Background(), Name, semver.MustParse(Version), integration.WithProvider(prov), integration.WithMocks(mon))
		require.NoError(t, err)
		_, err = srv.Construct(p.ConstructRequest{
			Urn:          presource.CreateURN("q", observability.MonitorsType, "", "proj", "stack"),
			Inputs:       obj(map[string]any{"gpuStacks": []any{"DriverOnly"}}),
			Dependencies: deps,
		})
		require.NoError(t, err)
		return got
	}
	assert.Contains(t, podMonitorDeps([]presource.URN{dep}), dep)
	assert.NotContains(t, podMonitorDeps(nil), dep)
}
