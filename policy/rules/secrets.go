package rules

import (
	"fmt"
	"slices"
	"strings"
)

// KubernetesProviderType is the type token of an explicit Kubernetes provider.
const KubernetesProviderType = "pulumi:providers:kubernetes"

var ruleSecretKubeconfigOutput = Rule{
	ID:       "AKSML-SEC-001",
	Title:    "Kubeconfig stack outputs are secret",
	Severity: Mandatory,
	Source:   "SPEC C1.5 \"kubeconfig exported only as a secret\"; STYLE 9 (pulumi-eks secret kubeconfig)",
	Stack: func(s *Stack) []Finding {
		var out []Finding
		for _, name := range sortedKeys(s.Outputs) {
			if strings.Contains(strings.ToLower(name), "kubeconfig") && !s.Outputs[name].Secret {
				out = append(out, Finding{Message: fmt.Sprintf(
					"stack output %q is not secret; export it with pulumi.ToSecret so that cluster credentials never appear in plain text in state, previews or CI logs", name)})
			}
		}
		return out
	},
}

// looksLikeKubeconfig tells kubeconfig contents from a path to a file.
func looksLikeKubeconfig(v string) bool {
	return strings.Contains(v, "\n") || strings.Contains(v, "apiVersion") || strings.HasPrefix(strings.TrimSpace(v), "{")
}

var ruleSecretProviderKubeconfig = Rule{
	ID:       "AKSML-SEC-002",
	Title:    "Kubernetes providers take their kubeconfig as a secret",
	Severity: Mandatory,
	Source:   "SPEC C1.5, C1.8 (provider built from the cluster's credentials)",
	Resource: perResource(func(r Resource) []string {
		if r.Type != KubernetesProviderType || slices.Contains(r.SecretInputs, "kubeconfig") {
			return nil
		}
		v, set := r.Inputs["kubeconfig"]
		if !set || v == nil {
			return nil
		}
		if s, isString := v.(string); isString && s != Unknown && !looksLikeKubeconfig(s) {
			return nil
		}
		return []string{fmt.Sprintf("Kubernetes provider %s takes its kubeconfig in plain text; pass it as a secret (pulumi.ToSecret) so that the credentials are encrypted in state", r.Name)}
	}),
}

// RegistryLoginServerOutput is the stack output holding the login server of
// the stack's container registry (aksml:cluster.registry).
const RegistryLoginServerOutput = "registryLoginServer"

var ruleSecretRegistryImages = Rule{
	ID:       "AKSML-SEC-003",
	Title:    "Production ML workload images come from the stack's container registry",
	Severity: Mandatory,
	Source:   "\"Authenticate with Azure Container Registry (ACR) from Azure Kubernetes Service (AKS)\", https://learn.microsoft.com/azure/aks/cluster-container-registry-integration: the kubelet identity pulls with AcrPull; SPEC C7.1 (prod images pinned)",
	Resource: func(r Resource, s *Stack) []string {
		if !isProd(s) {
			return nil
		}
		login := ""
		if o, ok := s.Outputs[RegistryLoginServerOutput]; ok {
			login = strings.ToLower(str(o.Value))
		}
		var out []string
		for _, t := range podTemplates(r) {
			if !isMLWorkload(r, t) {
				continue
			}
			for _, c := range containers(t.spec) {
				image := str(c["image"])
				if image == "" || image == Unknown {
					continue
				}
				switch {
				case login == "":
					out = append(out, fmt.Sprintf("%s%s: %s runs %q in production stack %q, which declares no container registry; set aksml:cluster.registry (name or id) and push the image there, so the nodes pull it with the kubelet identity from a registry you control",
						describe(r), t.where(), containerName(c), image, s.Name))
				case !strings.HasPrefix(strings.ToLower(image), login+"/"):
					out = append(out, fmt.Sprintf("%s%s: %s runs %q, which is not in the stack's registry %s; push it there and reference it as %s/<repository>@sha256:<digest>",
						describe(r), t.where(), containerName(c), image, login, login))
				}
			}
		}
		return out
	},
}
