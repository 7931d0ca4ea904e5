package stacks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// Project is the Pulumi project name (Pulumi.yaml `name`): config keys in
// Pulumi.<stack>.yaml without a namespace belong to it.
const Project = "aksml"

// ReadConfigFile reads the `config:` map of <dir>/Pulumi.<stack>.yaml and
// returns it as the Pulumi CLI passes config to a program: plain values as
// strings, structured values (objects, lists) as JSON, keys as
// "<namespace>:<key>". Parse takes its result. Encrypted secrets are
// refused: reading the file directly has no secrets provider.
func ReadConfigFile(dir, stack string) (map[string]string, error) {
	path := filepath.Join(dir, "Pulumi."+stack+".yaml")
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Config map[string]any `yaml:"config"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	cfg := map[string]string{}
	for k, v := range doc.Config {
		key := k
		if !strings.Contains(k, ":") {
			key = Project + ":" + k
		}
		switch val := v.(type) {
		case string:
			cfg[key] = val
		case map[string]any, []any:
			if m, ok := val.(map[string]any); ok {
				if _, secure := m["secure"]; secure && len(m) == 1 {
					return nil, fmt.Errorf("%s: %s is an encrypted secret; reading the file directly has no secrets provider, so give a plain test value", path, key)
				}
			}
			b, err := json.Marshal(val)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", path, key, err)
			}
			cfg[key] = string(b)
		default:
			cfg[key] = fmt.Sprint(val)
		}
	}
	return cfg, nil
}
