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
	prov, err := infer.NewProviderBuilder().WithNamespace(Name).WithComponents(
		infer.ComponentF(func(ctx *pulumi.Context, name string, a extendedQueuesArgs, opts ...pulumi.ResourceOption) (*queues.Queues, error) {
			return NewQueues(ctx, name, a.QueuesArgs, opts...)
		})).Build()
	require.NoError(t, err)
	srv, err := integration.NewServer(context.Background(), Name, semver.MustParse(Version), integration.WithProvider(prov))
	require.NoError(t, err)
	resp, err := srv.GetSchema(p.GetSchemaRequest{})
	require.NoError(t, err)

	committed := inputProperties(t, readSchema(t), "aksml:queues:Queues")
	drifted := inputProperties(t, []byte(resp.Schema), "aksml:queues:Queues")
	assert.NotContains(t, committed, "extra")
	assert.Equal(t, sortedCopy(append(committed, "extra")), drifted)
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
		"aksml:queues:Queues", "aksml:storage:StorageClasses", "aksml:storage:TeamVolumes",
		"aksml:gpustack:GPUStack", "aksml:workloads:CheckpointedJob", "aksml:gpupool:GPUNodePools",
	}, tokens)
	// The team fields keep the config's names (aksml:teams[].gpuQuota).
	assert.Contains(t, inputProperties(t, readSchema(t), "aksml:queues:Queues"), "teams")
	assert.Contains(t, string(readSchema(t)), `"gpuQuota"`)
}

// registered records the resources a construct registers with the mocks.
type registered struct {
	mu    sync.Mutex
	types []string
}

func (r *registered) monitor() *integration.MockResourceMonitor {
	return &integration.MockResourceMonitor{
		NewResourceF: func(args integration.MockResourceArgs) (string, property.Map, error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.types = append(r.types, string(args.TypeToken))
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

// construct runs one component construct the way the engine does for a
// TypeScript, Python or YAML program.
func construct(t *testing.T, token string, inputs property.Map) (*registered, error) {
	t.Helper()
	prov, err := New()
	require.NoError(t, err)
	reg := &registered{}
	srv, err := integration.NewServer(context.Background(), Name, semver.MustParse(Version),
		integration.WithProvider(prov), integration.WithMocks(reg.monitor()))
	require.NoError(t, err)
	_, err = srv.Construct(p.ConstructRequest{
		Urn:    presource.CreateURN("q", token, "", "proj", "stack"),
		Inputs: inputs,
	})
	return reg, err
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
// inputs: the Go component runs underneath and registers its Kueue objects.
func TestConstructQueues(t *testing.T) {
	reg, err := construct(t, "aksml:queues:Queues", property.NewMap(map[string]property.Value{
		"teams": property.New(property.NewArray([]property.Value{
			team("team-a", "16", map[string]int{"t4": 1}), team("team-b", "16", map[string]int{"t4": 1}),
		})),
		"pools":     property.New(property.NewArray([]property.Value{pool()})),
		"scheduler": property.New(property.NewMap(map[string]property.Value{"installKueue": property.New(false)})),
	}))
	require.NoError(t, err)
	assert.Equal(t, 2, reg.count("kubernetes:"+queues.KueueAPIVersion+":ClusterQueue"), "one ClusterQueue per team")
	assert.Equal(t, 2, reg.count("kubernetes:core/v1:Namespace"))
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
