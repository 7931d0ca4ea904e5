package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// yamlExample is the Pulumi YAML program that uses the package; make e2e runs it with
// the real engine (tests/e2e TestYAMLPackage).
const yamlExample = "../examples/yaml/Pulumi.yaml"

// TestYAMLExampleMatchesSchema checks, without an engine, that every aksml resource of
// the YAML example names a component of the committed schema and only its input
// properties, the required ones included, so that a renamed or removed Arg breaks
// `make test` and not only `make e2e`.
func TestYAMLExampleMatchesSchema(t *testing.T) {
	raw, err := os.ReadFile(yamlExample)
	require.NoError(t, err)
	schema := schemaDoc(t)
	problems, used := yamlAgainstSchema(t, raw, schema)
	require.Empty(t, problems)
	require.NotEmpty(t, used, "the example uses no aksml component")
	t.Logf("examples/yaml uses %s", strings.Join(used, ", "))
}

// TestYAMLExampleCheckFails proves the check sees an unknown property, a missing
// required one and an unknown component.
func TestYAMLExampleCheckFails(t *testing.T) {
	schema := schemaDoc(t)
	bad := []byte(`
resources:
  q:
    type: aksml:queues:Queues
    properties:
      teamz: []
  j:
    type: aksml:workloads:CheckpointedJob
    properties:
      team: team-a
      image: x
      resources: {gpus: 1}
  n:
    type: aksml:queues:Nope
`)
	problems, _ := yamlAgainstSchema(t, bad, schema)
	require.ElementsMatch(t, []string{
		`q (aksml:queues:Queues): property "teamz" is not an input`,
		`j (aksml:workloads:CheckpointedJob): required input "namespace" is missing`,
		`n: aksml:queues:Nope is not a component of the schema`,
	}, problems)
}

func schemaDoc(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile(schemaFile)
	require.NoError(t, err)
	var schema map[string]any
	require.NoError(t, json.Unmarshal(b, &schema))
	return schema
}

// yamlAgainstSchema returns what in the program's aksml resources disagrees with the
// schema, and the components it uses.
func yamlAgainstSchema(t *testing.T, program []byte, schema map[string]any) (problems, used []string) {
	t.Helper()
	var doc struct {
		Resources map[string]struct {
			Type       string         `yaml:"type"`
			Properties map[string]any `yaml:"properties"`
		} `yaml:"resources"`
	}
	require.NoError(t, yaml.Unmarshal(program, &doc))
	resources, _ := schema["resources"].(map[string]any)
	names := make([]string, 0, len(doc.Resources))
	for n := range doc.Resources {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		r := doc.Resources[name]
		if !strings.HasPrefix(r.Type, "aksml:") {
			continue
		}
		spec, ok := resources[r.Type].(map[string]any)
		if !ok {
			problems = append(problems, fmt.Sprintf("%s: %s is not a component of the schema", name, r.Type))
			continue
		}
		used = append(used, r.Type)
		inputs, _ := spec["inputProperties"].(map[string]any)
		for prop := range r.Properties {
			if _, ok := inputs[prop]; !ok {
				problems = append(problems, fmt.Sprintf("%s (%s): property %q is not an input", name, r.Type, prop))
			}
		}
		required, _ := spec["requiredInputs"].([]any)
		for _, req := range required {
			if _, ok := r.Properties[req.(string)]; !ok {
				problems = append(problems, fmt.Sprintf("%s (%s): required input %q is missing", name, r.Type, req))
			}
		}
	}
	return problems, used
}
