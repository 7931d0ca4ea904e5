package provider

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/blang/semver"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/infer"
	"github.com/pulumi/pulumi-go-provider/integration"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	presource "github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/queues"
)

var update = flag.Bool("update", false, "rewrite schema.json from the provider")

// schemaFile is the committed schema the SDKs are generated from.
const schemaFile = "schema.json"

// TestSchemaIsCurrent fails when the committed schema.json and the
// provider's schema disagree (an Arg added, renamed or re-documented
// without regenerating). Regenerate with
// `go test ./provider -run TestSchemaIsCurrent -update` (or `make schema`).
func TestSchemaIsCurrent(t *testing.T) {
	got, err := Schema(context.Background())
	require.NoError(t, err)
	if *update {
		require.NoError(t, os.WriteFile(schemaFile, []byte(got+"\n"), 0o644))
	}
	want, err := os.ReadFile(schemaFile)
	require.NoError(t, err)
	assert.Equal(t, strings.TrimSpace(string(want)), got,
		"provider/schema.json is stale: run `make schema` and commit it")
}

// extendedQueuesArgs is QueuesArgs with one Arg more: the drift the check
// must catch.
type extendedQueuesArgs struct {
	QueuesArgs
	Extra *string `pulumi:"extra,optional"`
}

// TestSchemaDriftIsDetected is the negative case of TestSchemaIsCurrent: a
// provider whose Queues has one more Arg produces a schema that differs from
// the committed one exactly there.
func TestSchemaDriftIsDetected(t *testing.T) {
	committed := inputProperties(t, readSchema(t), "aksml:queues:Queues")
	drifted := inputProperties(t, driftedSchema(t), "aksml:queues:Queues")
	assert.NotContains(t, committed, "extra")
	assert.Equal(t, sortedCopy(append(committed, "extra")), drifted)
}

// driftedSchema is the (described) schema of a provider whose Queues has
// the undocumented Arg `extra` more.
func driftedSchema(t *testing.T) []byte {
	t.Helper()
	prov, err := infer.NewProviderBuilder().WithNamespace(Name).WithComponents(
		infer.ComponentF(func(ctx *pulumi.Context, name string, a extendedQueuesArgs, opts ...pulumi.ResourceOption) (*queues.Queues, error) {
			return NewQueues(ctx, name, a.QueuesArgs, opts...)
		})).Build()
	require.NoError(t, err)
	srv, err := integration.NewServer(context.Background(), Name, semver.MustParse(Version), integration.WithProvider(withDescriptions(prov)))
	require.NoError(t, err)
	resp, err := srv.GetSchema(p.GetSchemaRequest{})
	require.NoError(t, err)
	return []byte(resp.Schema)
}

func readSchema(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(schemaFile)
	require.NoError(t, err)
	return b
}

// inputProperties lists a resource's input property names, sorted.
func inputProperties(t *testing.T, schema []byte, token string) []string {
	t.Helper()
	var s struct {
		Resources map[string]struct {
			IsComponent     bool                       `json:"isComponent"`
			InputProperties map[string]json.RawMessage `json:"inputProperties"`
		} `json:"resources"`
	}
	require.NoError(t, json.Unmarshal(schema, &s))
	r, ok := s.Resources[token]
	require.True(t, ok, "schema has no resource %s", token)
	require.True(t, r.IsComponent, "%s is not a component", token)
	var names []string
	for k := range r.InputProperties {
		names = append(names, k)
	}
	return sortedCopy(names)
}

func sortedCopy(in []string) []string {
	out := append([]string(nil), in...)
	sort.Strings(out)
	return out
}

// TestSchemaExposesTheComponents pins the tokens the other languages use:
// the Go components' own type tokens.
func TestSchemaExposesTheComponents(t *testing.T) {
	var s struct {
		Name      string                     `json:"name"`
		Resources map[string]json.RawMessage `json:"resources"`
	}
	require.NoError(t, json.Unmarshal(readSchema(t), &s))
	assert.Equal(t, "aksml", s.Name)
	var tokens []string
	for k := range s.Resources {
		tokens = append(tokens, k)
	}
	assert.ElementsMatch(t, []string{
		"aksml:queues:Queues", "aksml:tenancy:Tenancy", "aksml:storage:StorageClasses", "aksml:storage:TeamVolumes",
		"aksml:gpustack:GPUStack", "aksml:gpupool:GPUNodePools", "aksml:observability:Monitors", "aksml:cluster:Cluster",
		"aksml:workloads:CheckpointedJob", "aksml:workloads:IndexedJob", "aksml:workloads:MIGTrial", "aksml:workloads:ScheduledScoring",
		"aksml:workloads:PyTorchJob", "aksml:workloads:TFJob", "aksml:workloads:FineTuningWorkspace", "aksml:workloads:InferenceWorkspace", "aksml:workloads:InferenceServer",
	}, tokens)
	// teams[].preemption is exposed (an optional object on the Team type).
	assert.Contains(t, string(readSchema(t)), `"preemption"`)
	// The team fields keep the config's names (aksml:teams[].gpuQuota).
	assert.Contains(t, inputProperties(t, readSchema(t), "aksml:queues:Queues"), "teams")
	assert.Contains(t, string(readSchema(t)), `"gpuQuota"`)
}

// registered records the resources a construct registers with the mocks.
type registered struct {
	mu     sync.Mutex
	types  []string
	inputs []property.Map
}

func (r *registered) monitor() *integration.MockResourceMonitor {
	return &integration.MockResourceMonitor{
		NewResourceF: func(args integration.MockResourceArgs) (string, property.Map, error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.types = append(r.types, string(args.TypeToken))
			r.inputs = append(r.inputs, args.Inputs)
			return args.Name + "-id", args.Inputs, nil
		},
	}
}

func (r *registered) count(token string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, t := range r.types {
		if t == token {
			n++
		}
	}
	return n
}

// countSuffix counts the registered resources whose type ends in suffix
// (azure-native tokens carry an API version in the middle).
func (r *registered) countSuffix(suffix string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, t := range r.types {
		if strings.HasSuffix(t, suffix) {
			n++
		}
	}
	return n
}

// inputsOf returns the inputs of the registered resources of type token.
func (r *registered) inputsOf(token string) []property.Map {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []property.Map
	for i, t := range r.types {
		if t == token {
			out = append(out, r.inputs[i])
		}
	}
	return out
}

// construct runs one component construct the way the engine does for a
// TypeScript, Python or YAML program.
func construct(t *testing.T, token string, inputs property.Map) (*registered, error) {
	t.Helper()
	return constructWith(t, token, inputs, nil)
}

// constructWith is construct with a mock monitor built by monitor (nil: the
// default one, which answers no invokes).
func constructWith(t *testing.T, token string, inputs property.Map, monitor func(*registered) *integration.MockResourceMonitor) (*registered, error) {
	t.Helper()
	prov, err := New()
	require.NoError(t, err)
	reg := &registered{}
	mon := reg.monitor()
	if monitor != nil {
		mon = monitor(reg)
	}
	return reg, constructOn(t, prov, mon, token, inputs)
}

// constructOn runs one component construct on prov with the mock monitor
// mon.
func constructOn(t *testing.T, prov p.Provider, mon *integration.MockResourceMonitor, token string, inputs property.Map) error {
	t.Helper()
	srv, err := integration.NewServer(context.Background(), Name, semver.MustParse(Version),
		integration.WithProvider(prov), integration.WithMocks(mon))
	require.NoError(t, err)
	_, err = srv.Construct(p.ConstructRequest{
		Urn:    presource.CreateURN("q", token, "", "proj", "stack"),
		Inputs: inputs,
	})
	return err
}

func team(name, cpu string, quota map[string]int) property.Value {
	q := map[string]property.Value{}
	for k, v := range quota {
		q[k] = property.New(float64(v))
	}
	return property.New(property.NewMap(map[string]property.Value{
		"name":     property.New(name),
		"cpu":      property.New(cpu),
		"memory":   property.New("64Gi"),
		"gpuQuota": property.New(property.NewMap(q)),
	}))
}

func pool() property.Value {
	return property.New(property.NewMap(map[string]property.Value{
		"name":     property.New("t4"),
		"vmSize":   property.New("Standard_NC4as_T4_v3"),
		"workload": property.New("training"),
		"maxCount": property.New(2.0),
	}))
}

// TestConstructQueues builds aksml:queues:Queues from language-neutral
// inputs: the Go component runs underneath and registers its Kueue objects
// in the namespaces it is given; it creates no team namespace or quota.
func TestConstructQueues(t *testing.T) {
	args := map[string]property.Value{
		"teams": property.New(property.NewArray([]property.Value{
			team("team-a", "16", map[string]int{"t4": 1}), team("team-b", "16", map[string]int{"t4": 1}),
		})),
		"pools":     property.New(property.NewArray([]property.Value{pool()})),
		"scheduler": property.New(property.NewMap(map[string]property.Value{"installKueue": property.New(false)})),
	}
	_, err := construct(t, "aksml:queues:Queues", property.NewMap(args))
	require.ErrorContains(t, err, "Namespaces is required", "the LocalQueues need the namespaces")

	args["namespaces"] = property.New(property.NewMap(map[string]property.Value{"team-a": property.New("team-a"), "team-b": property.New("team-b")}))
	reg, err := construct(t, "aksml:queues:Queues", property.NewMap(args))
	require.NoError(t, err)
	assert.Equal(t, 2, reg.count("kubernetes:"+queues.KueueAPIVersion+":ClusterQueue"), "one ClusterQueue per team")
	assert.Equal(t, 4, reg.count("kubernetes:"+queues.KueueAPIVersion+":LocalQueue"), "gpu-queue and default per team namespace")
	assert.Zero(t, reg.count("kubernetes:core/v1:Namespace"), "the team namespaces are aksml:tenancy:Tenancy's")
	assert.Zero(t, reg.count("kubernetes:core/v1:ResourceQuota"))
}

// TestConstructTenancy builds aksml:tenancy:Tenancy from the same teams,
// pools and scheduler: a namespace and a ResourceQuota sized to what the
// team's queue can admit per team; a bad team is the Go message, and
// nothing is registered.
func TestConstructTenancy(t *testing.T) {
	reg, err := construct(t, "aksml:tenancy:Tenancy", property.NewMap(map[string]property.Value{
		"teams": property.New(property.NewArray([]property.Value{
			team("team-a", "16", map[string]int{"t4": 1}), team("team-b", "16", map[string]int{"t4": 1}),
		})),
		"pools":            property.New(property.NewArray([]property.Value{pool()})),
		"retainNamespaces": property.New(true),
	}))
	require.NoError(t, err)
	assert.Equal(t, 2, reg.count("kubernetes:core/v1:Namespace"))
	quotas := reg.inputsOf("kubernetes:core/v1:ResourceQuota")
	require.Len(t, quotas, 4, "gpu-quota and team-quota per team")
	for len(quotas) > 0 && quotas[0].Get("metadata").AsMap().Get("name").AsString() != "gpu-quota" {
		quotas = quotas[1:]
	}
	require.NotEmpty(t, quotas, "a gpu-quota")
	// nominal 1 + what the other team lends on t4 (1).
	assert.Equal(t, "2", quotas[0].Get("spec").AsMap().Get("hard").AsMap().Get("requests.nvidia.com/gpu").AsString())
	assert.Equal(t, 2*2, reg.count("kubernetes:networking.k8s.io/v1:NetworkPolicy"), "each restricted team's default deny and allowances")

	reg, err = construct(t, "aksml:tenancy:Tenancy", property.NewMap(map[string]property.Value{
		"teams": property.New(property.NewArray([]property.Value{team("kube-system", "16", nil), team("Team_B", "lots", nil)})),
	}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `teams[0].name: "kube-system" is a system namespace`)
	assert.Contains(t, err.Error(), "teams[1].name")
	assert.Contains(t, err.Error(), "teams[1].cpu")
	assert.Zero(t, reg.count("kubernetes:core/v1:Namespace"))
}

// TestConstructReportsValidationLikeGo is the negative case: a bad team
// fails the construct with the Go component's message (same field and
// wording a Go program gets), and nothing is registered.
func TestConstructReportsValidationLikeGo(t *testing.T) {
	reg, err := construct(t, "aksml:queues:Queues", property.NewMap(map[string]property.Value{
		"teams": property.New(property.NewArray([]property.Value{
			team("Team_A", "lots", map[string]int{"t4": 1}),
		})),
		"pools": property.New(property.NewArray([]property.Value{pool()})),
	}))
	require.Error(t, err)
	goErrs := queues.ValidateTeams([]queues.Team{{Name: "Team_A", CPU: "lots", Memory: "64Gi"}},
		nil, queues.SchedulerSpec{}, queues.DefaultPaths())
	require.NotEmpty(t, goErrs)
	for _, e := range goErrs {
		if f := string(e.Path); strings.HasSuffix(f, "teams[0].name") || strings.HasSuffix(f, "teams[0].cpu") {
			assert.Contains(t, err.Error(), e.Error(), "the other language sees the Go message")
		}
	}
	assert.Contains(t, err.Error(), "teams[0].name")
	assert.Contains(t, err.Error(), "teams[0].cpu")
	assert.Zero(t, reg.count("kubernetes:core/v1:Namespace"))
}

// TestDocsAreCurrent fails when docs_gen.go (the Go doc comments the
// schema's descriptions come from) is stale. Regenerate with `make schema`.
func TestDocsAreCurrent(t *testing.T) {
	got, err := GenerateDocs(context.Background(), "../components")
	require.NoError(t, err)
	want, err := os.ReadFile(DocsFile)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "provider/docs_gen.go is stale: run `make schema` and commit it")
}

// TestSchemaDescribesEverything: every type, component and property of the
// committed schema has a description.
func TestSchemaDescribesEverything(t *testing.T) {
	var spec schema.PackageSpec
	require.NoError(t, json.Unmarshal(readSchema(t), &spec))
	assert.Empty(t, undocumented(&spec))
}

// TestUndocumentedIsDetected is the negative case: an Arg with neither an
// Annotate description nor a Go field of its name is reported, and
// describeSchema does not invent one.
func TestUndocumentedIsDetected(t *testing.T) {
	var spec schema.PackageSpec
	require.NoError(t, json.Unmarshal(driftedSchema(t), &spec))
	assert.Equal(t, []string{"aksml:queues:Queues.inputs.extra"}, undocumented(&spec))

	// Without the Go docs, the component types are undocumented again.
	var bare schema.PackageSpec
	require.NoError(t, json.Unmarshal(readSchema(t), &bare))
	for tok, typ := range bare.Types {
		typ.Description = ""
		bare.Types[tok] = typ
	}
	describeSchema(&bare, map[string]goDoc{})
	assert.Contains(t, undocumented(&bare), "aksml:queues:Team")
}

// TestPackageDocsReadsTheSource is the negative side of
// TestDocsAreCurrent: the table follows the source (a changed doc comment
// changes it), keys fields by Go and tag name, and flattens embedded
// structs with the outer field winning.
func TestPackageDocsReadsTheSource(t *testing.T) {
	dir := t.TempDir()
	write := func(doc string) map[string]goDoc {
		src := "package x\n\n// Inner is embedded.\ntype Inner struct {\n\t// Shared is inner.\n\tShared string\n\t// Deep is only inner.\n\tDeep int\n}\n\n" +
			"// Outer is the type.\ntype Outer struct {\n\tInner\n\t// " + doc + "\n\t// continued.\n\tCPUQuota string `json:\"cpu\" pulumi:\"cpuQuota,optional\"`\n\t// Shared is outer.\n\tShared string\n}\n"
		require.NoError(t, os.WriteFile(dir+"/x.go", []byte(src), 0o644))
		docs, err := packageDocs(dir)
		require.NoError(t, err)
		return docs
	}
	docs := write("CPUQuota is the quota,")
	o := docs["Outer"]
	assert.Equal(t, "Outer is the type.", o.Doc)
	assert.Equal(t, "CPUQuota is the quota, continued.", o.Fields["cpuquota"])
	assert.Equal(t, o.Fields["cpuquota"], o.Fields["cpu"])
	assert.Equal(t, "Shared is outer.", o.Fields["shared"])
	assert.Equal(t, "Deep is only inner.", o.Fields["deep"])
	assert.NotEqual(t, o.Fields["cpuquota"], write("CPUQuota changed,")["Outer"].Fields["cpuquota"])
}
