package workflows

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pinned is a made-up full-length SHA: the checks look at the shape only.
const pinned = "@0123456789abcdef0123456789abcdef01234567"

// testStacks are a dev stack (IP-restricted, local accounts) and a prod
// stack (Entra ID, IP-restricted).
var testStacks = map[string]Stack{
	"dev":        {RestrictedAPI: true, KubernetesLayer: true},
	"prod":       {Prod: true, EntraID: true, RestrictedAPI: true, KubernetesLayer: true},
	"prod-azure": {Prod: true, EntraID: true, RestrictedAPI: true},
}

// compliantPR is a pull_request workflow as the shipped one is built.
const compliantPR = `
on:
  pull_request:
    branches: [main]
permissions:
  contents: read
jobs:
  preview:
    runs-on: [self-hosted, linux, aksml-dev]
    permissions:
      contents: read
      id-token: write
    env:
      ARM_CLIENT_ID: ${{ vars.AZURE_PR_CLIENT_ID }}
      AZURE_CLIENT_ID: ${{ vars.AZURE_PR_CLIENT_ID }}
      AAD_LOGIN_METHOD: workloadidentity
    steps:
      - uses: actions/checkout` + pinned + ` # v4.2.2
      - run: go install github.com/Azure/kubelogin@v0.2.21
      - run: |
          pulumi preview --stack dev \
            --secrets-provider "azurekeyvault://kv.vault.azure.net/keys/aksml-dev"
`

// compliantDeploy is a push workflow deploying prod as the shipped one does.
const compliantDeploy = `
on:
  push:
    branches: [main]
permissions:
  contents: read
jobs:
  prod:
    runs-on: [self-hosted, linux, aksml-prod]
    environment: prod
    permissions:
      id-token: write
    env:
      ARM_CLIENT_ID: ${{ vars.AZURE_CLIENT_ID }}
      AAD_LOGIN_METHOD: workloadidentity
    steps:
      - run: go install github.com/Azure/kubelogin@v0.2.21
      - run: pulumi up --yes --stack prod --secrets-provider "azurekeyvault://kv.vault.azure.net/keys/aksml-prod"
`

// compliantDrift is a scheduled drift job on prod as the shipped drift.yml
// runs it: a read-only identity in the prod-drift environment, dry runs only.
const compliantDrift = `
on:
  schedule:
    - cron: "23 5 * * *"
  workflow_dispatch:
permissions:
  contents: read
jobs:
  prod:
    runs-on: [self-hosted, linux, aksml-prod]
    environment: prod-drift
    permissions:
      id-token: write
    env:
      ARM_CLIENT_ID: ${{ vars.AZURE_CLIENT_ID }}
      AAD_LOGIN_METHOD: workloadidentity
    steps:
      - run: go install github.com/Azure/kubelogin@v0.2.21
      - run: |
          pulumi refresh --preview-only --expect-no-changes --stack prod \
            --non-interactive
      - run: pulumi preview --expect-no-changes --stack prod --secrets-provider "azurekeyvault://kv.vault.azure.net/keys/aksml-prod"
`

func TestAccessAndKubernetesChecks(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		wantJob  string
		wantMsgs []string // one finding per phrase, in order; none means compliant
	}{
		{name: "compliant pull request", yaml: compliantPR},
		{name: "compliant prod deploy", yaml: compliantDeploy},
		{name: "compliant scheduled drift check", yaml: compliantDrift},
		{
			name:     "scheduled job refreshes the state",
			yaml:     strings.Replace(compliantDrift, "refresh --preview-only --expect-no-changes", "refresh --yes", 1),
			wantJob:  "prod",
			wantMsgs: []string{"a scheduled job runs `pulumi refresh`"},
		},
		{
			name:     "scheduled job deploys",
			yaml:     strings.Replace(compliantDrift, "pulumi preview --expect-no-changes", "pulumi up --yes", 1),
			wantJob:  "prod",
			wantMsgs: []string{"a scheduled job runs `pulumi up`"},
		},
		{
			name:     "scheduled job in the prod deploy environment",
			yaml:     strings.Replace(compliantDrift, "environment: prod-drift", "environment: prod", 1),
			wantJob:  "prod",
			wantMsgs: []string{`a scheduled job uses the environment "prod"`},
		},
		{
			name:     "scheduled job in the dev deploy environment",
			yaml:     strings.Replace(strings.ReplaceAll(compliantDrift, "--stack prod", "--stack dev"), "environment: prod-drift", "environment: dev", 1),
			wantJob:  "prod",
			wantMsgs: []string{`a scheduled job uses the environment "dev"`},
		},
		{
			name: "the same refresh in a push workflow is the deploy workflow's business",
			yaml: strings.Replace(strings.Replace(compliantDrift, "  schedule:\n    - cron: \"23 5 * * *\"\n", "  push:\n", 1), "refresh --preview-only --expect-no-changes", "refresh --yes", 1),
		},
		{
			name:    "id-token write at workflow level",
			yaml:    strings.Replace(compliantPR, "permissions:\n  contents: read\njobs:", "permissions:\n  contents: read\n  id-token: write\njobs:", 1),
			wantJob: WorkflowLevel, wantMsgs: []string{"grants id-token: write at workflow level"},
		},
		{
			name:    "write-all at workflow level",
			yaml:    strings.Replace(compliantPR, "permissions:\n  contents: read\njobs:", "permissions: write-all\njobs:", 1),
			wantJob: WorkflowLevel, wantMsgs: []string{"grants id-token: write at workflow level"},
		},
		{
			name:    "action pinned by tag",
			yaml:    strings.Replace(compliantPR, "actions/checkout"+pinned, "actions/checkout@v4", 1),
			wantJob: "preview", wantMsgs: []string{"uses actions/checkout@v4, which is not pinned"},
		},
		{
			name:    "action pinned by a short SHA",
			yaml:    strings.Replace(compliantPR, "actions/checkout"+pinned, "actions/checkout@0123456", 1),
			wantJob: "preview", wantMsgs: []string{"which is not pinned"},
		},
		{
			name:    "docker image by tag",
			yaml:    strings.Replace(compliantPR, "actions/checkout"+pinned, "docker://alpine:3.20", 1),
			wantJob: "preview", wantMsgs: []string{"pin the image by digest"},
		},
		{
			name: "local action and docker digest are pinned",
			yaml: strings.Replace(strings.Replace(compliantPR, "actions/checkout"+pinned, "./.github/actions/setup", 1),
				"      - run: go install", "      - uses: docker://alpine@sha256:0000000000000000000000000000000000000000000000000000000000000000\n      - run: go install", 1),
		},
		{
			name:    "pull request reaches the prod key through a matrix",
			yaml:    strings.Replace(strings.Replace(compliantPR, "keys/aksml-dev", "keys/aksml-${{ matrix.stack }}", 1), "    runs-on:", "    strategy:\n      matrix:\n        stack: [dev, prod]\n    runs-on:", 1),
			wantJob: "preview",
			wantMsgs: []string{
				"can reach the prod secrets key aksml-prod",
			},
		},
		{
			name:     "pull request previews prod",
			yaml:     strings.Replace(strings.Replace(compliantPR, "--stack dev", "--stack prod", 1), "keys/aksml-dev", "keys/aksml-prod", 1),
			wantJob:  "preview",
			wantMsgs: []string{"can reach the prod secrets key aksml-prod", "runs Pulumi on the prod stack prod"},
		},
		{
			name:     "pull request job in the prod environment",
			yaml:     strings.Replace(compliantPR, "    runs-on:", "    environment: prod\n    runs-on:", 1),
			wantJob:  "preview",
			wantMsgs: []string{`uses the environment "prod"`},
		},
		{
			name:     "pull request logs in as the deploy identity",
			yaml:     strings.Replace(compliantPR, "ARM_CLIENT_ID: ${{ vars.AZURE_PR_CLIENT_ID }}", "ARM_CLIENT_ID: ${{ vars.AZURE_CLIENT_ID }}", 1),
			wantJob:  "preview",
			wantMsgs: []string{"logs in to Azure as ${{ vars.AZURE_CLIENT_ID }}, not the read-only PR identity"},
		},
		{
			name:     "pull request runs pulumi up",
			yaml:     strings.Replace(compliantPR, "pulumi preview --stack dev", "pulumi up --yes --stack dev", 1),
			wantJob:  "preview",
			wantMsgs: []string{"runs `pulumi up`"},
		},
		{
			name:     "deploy without kubelogin",
			yaml:     strings.Replace(compliantDeploy, "      - run: go install github.com/Azure/kubelogin@v0.2.21\n", "", 1),
			wantJob:  "prod",
			wantMsgs: []string{"without installing it"},
		},
		{
			name:     "deploy without a login method",
			yaml:     strings.Replace(compliantDeploy, "      AAD_LOGIN_METHOD: workloadidentity\n", "", 1),
			wantJob:  "prod",
			wantMsgs: []string{"kubelogin falls back to devicecode"},
		},
		{
			name:     "deploy with the expiring azurecli login",
			yaml:     strings.Replace(compliantDeploy, "AAD_LOGIN_METHOD: workloadidentity", "AAD_LOGIN_METHOD: azurecli", 1),
			wantJob:  "prod",
			wantMsgs: []string{"Azure/azure-cli#28708"},
		},
		{
			name:     "deploy with an interactive login",
			yaml:     strings.Replace(compliantDeploy, "AAD_LOGIN_METHOD: workloadidentity", "AAD_LOGIN_METHOD: devicecode", 1),
			wantJob:  "prod",
			wantMsgs: []string{"AAD_LOGIN_METHOD devicecode, which needs a person"},
		},
		{
			name:     "IP-restricted API server from a GitHub-hosted runner",
			yaml:     strings.Replace(compliantDeploy, "runs-on: [self-hosted, linux, aksml-prod]", "runs-on: ubuntu-latest", 1),
			wantJob:  "prod",
			wantMsgs: []string{"from a GitHub-hosted runner with no stable egress IP"},
		},
		{
			name: "Azure-layer stack from a GitHub-hosted runner needs no API server",
			yaml: strings.Replace(strings.Replace(compliantDeploy, "runs-on: [self-hosted, linux, aksml-prod]", "runs-on: ubuntu-latest", 1),
				"--stack prod", "--stack prod-azure", 1),
		},
		{
			name:     "pulumi/actions on a GitHub-hosted runner",
			yaml:     strings.Replace(strings.Replace(compliantDeploy, "runs-on: [self-hosted, linux, aksml-prod]", "runs-on: ubuntu-24.04", 1), `      - run: pulumi up --yes --stack prod --secrets-provider "azurekeyvault://kv.vault.azure.net/keys/aksml-prod"`, "      - uses: pulumi/actions"+pinned+"\n        with:\n          command: up\n          stack-name: org/aksml/prod", 1),
			wantJob:  "prod",
			wantMsgs: []string{"from a GitHub-hosted runner"},
		},
		{
			name: "unknown stacks are not judged",
			yaml: strings.Replace(strings.Replace(compliantDeploy, "runs-on: [self-hosted, linux, aksml-prod]", "runs-on: ubuntu-latest", 1),
				"--stack prod", "--stack sandbox", 1),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			found, err := Checker{Stacks: testStacks}.Check("w.yml", []byte(tt.yaml))
			require.NoError(t, err)
			require.Len(t, found, len(tt.wantMsgs), "%v", found)
			for i, want := range tt.wantMsgs {
				assert.Equal(t, tt.wantJob, found[i].Job)
				assert.Contains(t, found[i].Message, want)
			}
		})
	}
}

func TestLoadStacksReadsTheFacts(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		require.NoError(t, writeFile(dir+"/Pulumi."+name+".yaml", body))
	}
	write("prod", "config:\n  aksml:environment: prod\n  aksml:cluster:\n    entraID:\n      adminGroupObjectIDs: [x]\n    apiServer:\n      private: true\n")
	write("dev", "config:\n  aksml:environment: dev\n  aksml:cluster:\n    name: aks\n")
	write("prod-azure", "config:\n  aksml:environment: prod\n  aksml:kubernetesLayer: false\n  aksml:cluster:\n    apiServer:\n      authorizedIPRanges: [203.0.113.0/24]\n")
	// A team stack is what its platform stack is (a prod team stack gets
	// prod's gates).
	write("prod-teams-a", "config:\n  aksml:platformStack: organization/aksml/prod\n")
	stacks, err := LoadStacks(dir)
	require.NoError(t, err)
	assert.Equal(t, map[string]Stack{
		"prod":         {Prod: true, EntraID: true, RestrictedAPI: true, KubernetesLayer: true},
		"dev":          {KubernetesLayer: true},
		"prod-azure":   {Prod: true, RestrictedAPI: true},
		"prod-teams-a": {Prod: true, EntraID: true, RestrictedAPI: true, KubernetesLayer: true},
	}, stacks)

	// A team stack whose platform is not a stack of the project is refused:
	// the checks could not tell what it deploys to.
	write("teams-b", "config:\n  aksml:platformStack: organization/aksml/elsewhere\n")
	_, err = LoadStacks(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "aksml:platformStack organization/aksml/elsewhere names no platform stack of this project")
}

func writeFile(path, body string) error { return os.WriteFile(path, []byte(body), 0o644) }
