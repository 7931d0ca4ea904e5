package workflows

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// Stack is what the workflow checks need to know about one stack, read
// from its Pulumi.<stack>.yaml.
type Stack struct {
	// Prod is true for `aksml:environment: prod`.
	Prod bool
	// EntraID is true when `aksml:cluster.entraID` is set: the kubeconfig
	// then runs kubelogin.
	EntraID bool
	// RestrictedAPI is true when the API server accepts only
	// `apiServer.authorizedIPRanges` or is private.
	RestrictedAPI bool
	// KubernetesLayer is false for an Azure-layer-only stack
	// (`aksml:kubernetesLayer: false`), which never calls the API server.
	KubernetesLayer bool
}

// stackFile is the part of Pulumi.<stack>.yaml the checks read.
type stackFile struct {
	Config struct {
		PlatformStack   string `yaml:"aksml:platformStack"`
		Environment     string `yaml:"aksml:environment"`
		KubernetesLayer *bool  `yaml:"aksml:kubernetesLayer"`
		Cluster         *struct {
			EntraID   any `yaml:"entraID"`
			APIServer struct {
				AuthorizedIPRanges []string `yaml:"authorizedIPRanges"`
				Private            bool     `yaml:"private"`
			} `yaml:"apiServer"`
		} `yaml:"aksml:cluster"`
	} `yaml:"config"`
}

// LoadStacks reads every Pulumi.<stack>.yaml in projectDir.
func LoadStacks(projectDir string) (map[string]Stack, error) {
	files, err := filepath.Glob(filepath.Join(projectDir, "Pulumi.*.yaml"))
	if err != nil {
		return nil, err
	}
	out := map[string]Stack{}
	platformOf := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "Pulumi."), ".yaml")
		st, platform, err := parseStack(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out[name] = st
		if platform != "" {
			platformOf[name] = platform
		}
	}
	// A team stack (aksml:platformStack) runs its platform stack's config on
	// its platform's cluster: it is what its platform is.
	for name, platform := range platformOf {
		p := platform[strings.LastIndex(platform, "/")+1:]
		st, ok := out[p]
		if !ok || platformOf[p] != "" {
			return nil, fmt.Errorf("team stack %s: aksml:platformStack %s names no platform stack of this project (Pulumi.%s.yaml); the workflow checks need it to know what the team stack deploys to", name, platform, p)
		}
		out[name] = st
	}
	return out, nil
}

// parseStack reads one stack file; platform is its aksml:platformStack
// (a team stack's), "" for a platform stack.
func parseStack(data []byte) (st Stack, platform string, err error) {
	var sf stackFile
	if err := yaml.Unmarshal(data, &sf); err != nil {
		return Stack{}, "", err
	}
	c := sf.Config
	st = Stack{Prod: c.Environment == "prod", KubernetesLayer: c.KubernetesLayer == nil || *c.KubernetesLayer}
	if c.Cluster != nil {
		st.EntraID = c.Cluster.EntraID != nil
		st.RestrictedAPI = len(c.Cluster.APIServer.AuthorizedIPRanges) > 0 || c.Cluster.APIServer.Private
	}
	return st, c.PlatformStack, nil
}
