package synth

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/aksml/aksml/policy/rules"
	"github.com/aksml/aksml/stacks"
)

// Synth reads <dir>/Pulumi.<stack>.yaml and runs the aksml program for that
// stack under mocks. An invalid config returns the validation error and
// registers nothing.
func Synth(dir, stack string) (*rules.Stack, error) {
	cfg, err := ReadStackConfig(dir, stack)
	if err != nil {
		return nil, err
	}
	parsed, err := stacks.Parse(stack, cfg)
	if err != nil {
		return nil, err
	}
	return Run(stack, string(parsed.Environment), cfg, stacks.Program)
}

// Stacks returns the names of the stacks that have a Pulumi.<stack>.yaml in
// dir, sorted.
func Stacks(dir string) ([]string, error) {
	matches, err := filepath.Glob(filepath.Join(dir, "Pulumi.*.yaml"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range matches {
		out = append(out, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(m), "Pulumi."), ".yaml"))
	}
	sort.Strings(out)
	return out, nil
}

// Golden renders a desired state as the golden file format: one YAML
// document per resource, sorted by URN, secret values redacted, then one
// document with the stack outputs.
func Golden(s *rules.Stack) ([]byte, error) {
	res := append([]rules.Resource(nil), s.Resources...)
	sort.Slice(res, func(i, j int) bool { return res[i].URN < res[j].URN })
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	for _, r := range res {
		r.Inputs = redact(r.Inputs, r.SecretInputs)
		if err := enc.Encode(r); err != nil {
			return nil, fmt.Errorf("%s: %w", r.URN, err)
		}
	}
	outputs := map[string]any{}
	for name, o := range s.Outputs {
		if o.Secret {
			outputs[name] = "[secret]"
			continue
		}
		outputs[name] = o.Value
	}
	if err := enc.Encode(map[string]any{"stackOutputs": outputs}); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// redact replaces the values of secret keys with "[secret]".
func redact(in map[string]any, secret []string) map[string]any {
	if len(secret) == 0 {
		return in
	}
	out := make(map[string]any, len(in))
	for k, v := range in {
		out[k] = v
	}
	for _, k := range secret {
		out[k] = "[secret]"
	}
	return out
}

// WriteFile writes data to path, creating its folder.
func WriteFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
