package synth

import (
	"bytes"
	"encoding/json"
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
	return SynthEdited(dir, stack, nil)
}

// SynthEdited is Synth with the stack's config changed by edit first (nil:
// unchanged), for tests that ask what a variant of a shipped stack would
// deploy.
func SynthEdited(dir, stack string, edit func(config map[string]string) error) (*rules.Stack, error) {
	cfg, err := ReadStackConfig(dir, stack)
	if err != nil {
		return nil, err
	}
	if edit != nil {
		if err := edit(cfg); err != nil {
			return nil, err
		}
	}
	if err := sandboxKubeconfig(dir, cfg); err != nil {
		return nil, err
	}
	parsed, err := stacks.Parse(stack, cfg)
	if err != nil {
		return nil, err
	}
	return Run(stack, string(parsed.Environment), cfg, stacks.Program)
}

// sandboxKubeconfig points an existing-cluster stack whose kubeconfig file
// does not exist (the local sandbox is not running, as in CI) at a fake
// kubeconfig, so its desired state can still be synthesized: synth never
// talks to a cluster. The file is written under the OS temp dir.
func sandboxKubeconfig(dir string, cfg map[string]string) error {
	raw, ok := cfg[stacks.Namespace+":existingCluster"]
	if !ok {
		return nil
	}
	var ec map[string]any
	if err := json.Unmarshal([]byte(raw), &ec); err != nil {
		return nil // stacks.Parse reports it with the key
	}
	path, _ := ec["kubeconfigPath"].(string)
	if path == "" {
		return nil
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	if _, err := os.Stat(path); err == nil {
		ec["kubeconfigPath"] = path
	} else {
		fake := filepath.Join(os.TempDir(), "aksml-synth-kubeconfig")
		if err := os.WriteFile(fake, []byte(FakeKubeconfig), 0o600); err != nil {
			return err
		}
		ec["kubeconfigPath"] = fake
	}
	b, err := json.Marshal(ec)
	if err != nil {
		return err
	}
	cfg[stacks.Namespace+":existingCluster"] = string(b)
	return nil
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
