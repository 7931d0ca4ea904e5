package workflows

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShippedWorkflows is the CI check: the repository's workflows pass
// every check against the shipped stacks.
func TestShippedWorkflows(t *testing.T) {
	stacks, err := LoadStacks("../..")
	require.NoError(t, err)
	require.Contains(t, stacks, "prod")
	require.True(t, stacks["prod"].Prod && stacks["prod"].EntraID && stacks["prod"].RestrictedAPI, "the prod stack's facts as the checks read them: %+v", stacks["prod"])
	found, err := Checker{Stacks: stacks}.CheckDir("../../.github/workflows")
	require.NoError(t, err)
	assert.Empty(t, found)
}

const keyVaultJob = `
on: push
jobs:
  up:
    runs-on: ubuntu-latest
    env:
      PULUMI_BACKEND_URL: azblob://state
      AZURE_KEYVAULT_AUTH_VIA_CLI: "true"
    steps:
      - uses: pulumi/actions@0123456789abcdef0123456789abcdef01234567 # test fixture
        with:
          command: up
          stack-name: dev
          diff: true
          secrets-provider: azurekeyvault://kv.vault.azure.net/keys/aksml-dev
`

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		wantJob string
		wantMsg string
	}{
		{name: "key vault provider with azblob passes", yaml: keyVaultJob},
		{
			name:    "empty passphrase with azblob at job level",
			yaml:    strings.Replace(keyVaultJob, `AZURE_KEYVAULT_AUTH_VIA_CLI: "true"`, `PULUMI_CONFIG_PASSPHRASE: ""`, 1),
			wantJob: "up", wantMsg: "PULUMI_CONFIG_PASSPHRASE is empty with the cloud backend azblob://state",
		},
		{
			name:    "empty passphrase at workflow level reaches the job",
			yaml:    strings.Replace(keyVaultJob, "on: push\n", "on: push\nenv:\n  PULUMI_CONFIG_PASSPHRASE: ''\n", 1),
			wantJob: "up", wantMsg: "PULUMI_CONFIG_PASSPHRASE is empty",
		},
		{
			name: "empty passphrase in step env with a pulumi login script",
			yaml: `
jobs:
  preview:
    runs-on: ubuntu-latest
    steps:
      - run: pulumi login s3://bucket && pulumi preview
        env:
          PULUMI_CONFIG_PASSPHRASE: ""
`,
			wantJob: "preview", wantMsg: "cloud backend s3://bucket",
		},
		{
			name:    "pulumi/actions on azblob without any secrets provider",
			yaml:    strings.Replace(keyVaultJob, "          secrets-provider: azurekeyvault://kv.vault.azure.net/keys/aksml-dev\n", "", 1),
			wantJob: "up", wantMsg: "neither a KMS secrets-provider nor a passphrase",
		},
		{
			name: "passphrase secret with azblob passes",
			yaml: strings.Replace(strings.Replace(keyVaultJob, "          secrets-provider: azurekeyvault://kv.vault.azure.net/keys/aksml-dev\n", "", 1),
				`AZURE_KEYVAULT_AUTH_VIA_CLI: "true"`, `PULUMI_CONFIG_PASSPHRASE: ${{ secrets.PASSPHRASE }}`, 1),
		},
		{
			name: "empty passphrase with the local backend is not this check's business",
			yaml: strings.Replace(strings.Replace(keyVaultJob, "azblob://state", "file://.", 1),
				`AZURE_KEYVAULT_AUTH_VIA_CLI: "true"`, `PULUMI_CONFIG_PASSPHRASE: ""`, 1),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			found, err := Check("w.yml", []byte(tt.yaml))
			require.NoError(t, err)
			if tt.wantMsg == "" {
				assert.Empty(t, found)
				return
			}
			require.Len(t, found, 1, "%v", found)
			assert.Equal(t, tt.wantJob, found[0].Job)
			assert.Contains(t, found[0].Message, tt.wantMsg)
		})
	}
}

func TestCheckRejectsInvalidYAML(t *testing.T) {
	_, err := Check("w.yml", []byte("jobs: [unclosed"))
	assert.Error(t, err)
}

const checkpointsJob = `
on: push
jobs:
  deploy:
    runs-on: ubuntu-latest
    env:
      PULUMI_BACKEND_URL: azblob://state
      PULUMI_CONFIG_PASSPHRASE: ${{ secrets.PASSPHRASE }}
    steps:
      - name: preview
        run: pulumi preview --stack dev
        env:
          PULUMI_SKIP_CHECKPOINTS: "true"
      - name: drift
        run: pulumi refresh --preview-only --expect-no-changes --stack dev
        env:
          PULUMI_SKIP_CHECKPOINTS: "true"
      - name: up
        run: |
          pulumi up --yes --stack dev \
            --diff
`

// TestCheckpointsStayOnForWrites: previews may skip checkpoints, a step that
// changes resources or state may not, wherever the variable is set.
func TestCheckpointsStayOnForWrites(t *testing.T) {
	found, err := Check("w.yml", []byte(checkpointsJob))
	require.NoError(t, err)
	assert.Empty(t, found, "previews with PULUMI_SKIP_CHECKPOINTS pass")

	tests := []struct {
		name, yaml, want string
	}{
		{
			name: "job level reaches the up step",
			yaml: strings.Replace(checkpointsJob, "      PULUMI_BACKEND_URL: azblob://state\n", "      PULUMI_BACKEND_URL: azblob://state\n      PULUMI_SKIP_CHECKPOINTS: \"1\"\n", 1),
			want: "step \"up\" runs `pulumi up` with PULUMI_SKIP_CHECKPOINTS set",
		},
		{
			name: "workflow level, any case",
			yaml: strings.Replace(checkpointsJob, "on: push\n", "on: push\nenv:\n  PULUMI_SKIP_CHECKPOINTS: TRUE\n", 1),
			want: "runs `pulumi up`",
		},
		{
			name: "a refresh that writes the state",
			yaml: strings.Replace(checkpointsJob, "pulumi refresh --preview-only --expect-no-changes", "pulumi refresh --yes", 1),
			want: "step \"drift\" runs `pulumi refresh`",
		},
		{
			name: "pulumi/actions destroy",
			yaml: checkpointsJob + `      - uses: pulumi/actions@0123456789abcdef0123456789abcdef01234567 # test fixture
        with:
          command: destroy
          stack-name: dev
        env:
          PULUMI_SKIP_CHECKPOINTS: "true"
`,
			want: "runs `pulumi destroy`",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			found, err := Check("w.yml", []byte(tt.yaml))
			require.NoError(t, err)
			require.Len(t, found, 1, "%v", found)
			assert.Equal(t, "deploy", found[0].Job)
			assert.Contains(t, found[0].Message, tt.want)
		})
	}
	// A value the CLI reads as false is not a finding.
	off := strings.Replace(checkpointsJob, "      PULUMI_BACKEND_URL: azblob://state\n", "      PULUMI_BACKEND_URL: azblob://state\n      PULUMI_SKIP_CHECKPOINTS: \"false\"\n", 1)
	found, err = Check("w.yml", []byte(off))
	require.NoError(t, err)
	assert.Empty(t, found)
}
