package workflows

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// kubeloginInstallRE finds a step that puts kubelogin on PATH: a pinned
// `go install github.com/Azure/kubelogin@vX`, `az aks install-cli` (which
// installs kubectl and kubelogin) or the azure/use-kubelogin action.
var kubeloginInstallRE = regexp.MustCompile(`github\.com/Azure/kubelogin@v[0-9]|az\s+aks\s+install-cli`)

// LastingLoginMethods are the kubelogin login methods (AAD_LOGIN_METHOD)
// that work unattended for a whole run: workloadidentity (in GitHub
// Actions kubelogin requests a fresh OIDC token for each exchange,
// kubelogin pkg/internal/token/provider.go), msi (a managed identity on a
// self-hosted runner) and spn (a service principal secret or
// certificate). devicecode (kubelogin's default) and interactive wait for a
// person; azurecli rides on an `az login` whose OIDC assertion expires
// after about 10 minutes (Azure/azure-cli#28708).
var LastingLoginMethods = []string{"workloadidentity", "msi", "spn"}

// githubHostedPrefixes are the labels of GitHub-hosted runners ("GitHub-hosted
// runners", GitHub docs), which leave from thousands of ranges, more than
// the 200 authorizedIPRanges AKS accepts.
var githubHostedPrefixes = []string{"ubuntu-", "windows-", "macos-"}

// checkKubernetes reports a job that runs Pulumi on a stack whose
// Kubernetes layer it cannot reach or authenticate to.
func (c Checker) checkKubernetes(wf workflow, j job) []string {
	var msgs []string
	add := func(m string) {
		if !slices.Contains(msgs, m) {
			msgs = append(msgs, m)
		}
	}
	for _, text := range expand(j, jobText(wf, j)) {
		for _, name := range targetStacks(text) {
			st, ok := c.Stacks[name]
			if !ok || !st.KubernetesLayer {
				continue
			}
			if st.RestrictedAPI && githubHosted(j.RunsOn) {
				add(fmt.Sprintf("runs Pulumi on stack %s, whose API server accepts only its authorizedIPRanges (or is private), from a GitHub-hosted runner with no stable egress IP: every Kubernetes call times out; run the job on a self-hosted runner in (or peered with) the cluster's VNet whose egress IP is in the ranges (README \"Reaching the API server from CI\")", name))
			}
			if st.EntraID {
				for _, m := range c.kubeloginProblems(wf, j, name) {
					add(m)
				}
			}
		}
	}
	return msgs
}

// kubeloginProblems are the reasons a job cannot log in to the Entra ID
// cluster of stack for a whole run.
func (c Checker) kubeloginProblems(wf workflow, j job, stack string) []string {
	var msgs []string
	installed := false
	for _, s := range j.Steps {
		if kubeloginInstallRE.MatchString(s.Run) || strings.HasPrefix(s.Uses, "azure/use-kubelogin@") {
			installed = true
		}
	}
	if !installed {
		msgs = append(msgs, fmt.Sprintf("runs Pulumi on stack %s, whose Entra ID kubeconfig runs kubelogin, without installing it; add a step `go install github.com/Azure/kubelogin@<version>` (or az aks install-cli)", stack))
	}
	method := merge(wf.Env, j.Env)["AAD_LOGIN_METHOD"]
	switch {
	case method == "":
		msgs = append(msgs, fmt.Sprintf("runs Pulumi on stack %s without AAD_LOGIN_METHOD: kubelogin falls back to devicecode and waits for a person; set AAD_LOGIN_METHOD: workloadidentity (with id-token: write) on the job", stack))
	case method == "azurecli":
		msgs = append(msgs, fmt.Sprintf("runs Pulumi on stack %s with AAD_LOGIN_METHOD azurecli: an az login from a GitHub OIDC token cannot refresh after about 10 minutes (Azure/azure-cli#28708) and creating a cluster takes longer; use workloadidentity", stack))
	case !slices.Contains(LastingLoginMethods, method):
		msgs = append(msgs, fmt.Sprintf("runs Pulumi on stack %s with AAD_LOGIN_METHOD %s, which needs a person; use one of %s", stack, method, strings.Join(LastingLoginMethods, ", ")))
	}
	return msgs
}

// githubHosted reports whether runs-on selects a GitHub-hosted runner: no
// "self-hosted" label and a GitHub-hosted image label. A runner group or an
// expression is not judged.
func githubHosted(runsOn yaml.Node) bool {
	var labels []string
	switch runsOn.Kind {
	case yaml.ScalarNode:
		labels = []string{runsOn.Value}
	case yaml.SequenceNode:
		for _, n := range runsOn.Content {
			labels = append(labels, n.Value)
		}
	default:
		return false
	}
	if slices.Contains(labels, "self-hosted") {
		return false
	}
	return slices.ContainsFunc(labels, func(l string) bool { return hasAnyPrefix(l, githubHostedPrefixes) })
}
