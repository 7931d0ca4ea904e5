package conformance

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/aksml/aksml/policy/rules"
)

// previousRelease is the commit whose synthesized stacks
// testdata/release-<commit>/ holds: the last main that passed CI before
// issue 27's fixes, whose bodies the rules must reject. Each file is
// that commit's golden file, `git show 96e524c:tests/golden/<stack>.yaml |
// gzip -n -9`: TestGolden held it equal to the commit's own synthesis.
const previousRelease = "96e524c"

// previousEnvironments are the aksml:environment of the previous release's
// stacks (its Pulumi.<stack>.yaml); a golden file does not record it.
var previousEnvironments = map[string]string{"dev": "dev", "prod": "prod", "local": "dev"}

// previousFindings are the findings of issue 27's rules on the previous
// release's stacks, by rule, as "<stack>/<resource>": the bodies those
// rules exist to stop. The current stacks have none (TestShippedStacks).
var previousFindings = map[string][]string{
	// The Azure Monitor and rule-group stacks were named without the
	// cluster (finding 3).
	"CONF-ID-003": {"dev/azure-monitor-stack", "prod/alert-rules-rulegroup", "prod/azure-monitor-stack"},
	// JobPodsReplacedRepeatedly read kube_job_status_failed with no
	// keep-list ingesting it (finding 5).
	"CONF-MON-002": {"prod/alert-rules-rulegroup"},
	// The inline system and CPU pools and the typed pools sent count with
	// the autoscaler on (finding 1).
	"CONF-POOL-006": {
		"dev/aksml-dev-aks", "dev/aksml-dev-aks", "dev/aksml-dev-gpupools-a100mig", "dev/aksml-dev-gpupools-t4", "dev/aksml-dev-gpupools-t4spot",
		"prod/aksml-prod-aks", "prod/aksml-prod-aks", "prod/aksml-prod-gpupools-a100", "prod/aksml-prod-gpupools-a100spot", "prod/aksml-prod-gpupools-h100",
	},
	// Both Blob classes left the account to the driver inside aksml's VNet
	// (finding 7).
	"CONF-STO-002": {"dev/storage-classes-blob-blockcache", "dev/storage-classes-blob-nfs", "prod/storage-classes-blob-blockcache", "prod/storage-classes-blob-nfs"},
}

// TestPreviousReleaseFails runs the catalogue over the previous release's
// synthesized stacks and asserts that each of issue 27's rules finds exactly
// the bodies listed in previousFindings: each rule fails on the code it was
// written against, so a rule that cannot fail would show here.
func TestPreviousReleaseFails(t *testing.T) {
	sp := specs(t)
	got := map[string][]string{}
	for _, name := range sortedStrings(previousEnvironments) {
		st, err := readGolden(filepath.Join("testdata", "release-"+previousRelease, name+".yaml.gz"), name, previousEnvironments[name])
		require.NoError(t, err)
		require.NotEmpty(t, st.Resources, name)
		for _, f := range Check(st, sp).Findings {
			if _, ok := previousFindings[f.Rule]; ok {
				got[f.Rule] = append(got[f.Rule], f.Stack+"/"+f.Resource)
				t.Log(f)
			}
		}
	}
	for rule, want := range previousFindings {
		sort.Strings(got[rule])
		require.NotEmpty(t, got[rule], "%s finds nothing on %s, whose bodies it was written to reject", rule, previousRelease)
		require.Equal(t, want, got[rule], "%s on %s", rule, previousRelease)
	}
}

// readGolden reads a (gzipped) golden file back into the desired state it
// renders (internal/synth.Golden): one document per resource, then the stack
// outputs. Numbers come back as float64, as synthesis gives them; secret
// inputs stay "[secret]".
func readGolden(path, stack, environment string) (*rules.Stack, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	dec := yaml.NewDecoder(zr)
	st := &rules.Stack{Name: stack, Environment: environment, Outputs: map[string]rules.Output{}, RetainOnDeleteKnown: true}
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return st, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if outs, ok := doc["stackOutputs"].(map[string]any); ok {
			for k, v := range outs {
				st.Outputs[k] = rules.Output{Value: asSynth(v), Secret: v == "[secret]"}
			}
			continue
		}
		b, err := yaml.Marshal(doc)
		if err != nil {
			return nil, err
		}
		var r rules.Resource
		if err := yaml.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r.Inputs, _ = asSynth(r.Inputs).(map[string]any)
		st.Resources = append(st.Resources, r)
	}
}

// asSynth turns decoded YAML into the JSON-like data synthesis gives:
// integers as float64.
func asSynth(v any) any {
	switch val := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(val))
		for k, e := range val {
			out[k] = asSynth(e)
		}
		return out
	case []any:
		out := make([]any, len(val))
		for i, e := range val {
			out[i] = asSynth(e)
		}
		return out
	case int:
		return float64(val)
	case int64:
		return float64(val)
	case uint64:
		return float64(val)
	default:
		return v
	}
}

// sortedStrings returns the keys of m, sorted.
func sortedStrings(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
