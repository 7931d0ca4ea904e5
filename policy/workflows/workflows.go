// Package workflows checks the GitHub Actions workflows that run Pulumi for
// the mistakes that make a deploy unsafe or unable to work (README "CI and
// workflows"). Each finding names the file and job and says what to do.
//
// State secrets. With a DIY backend (azblob://, s3://, gs://) the stack's
// secrets provider encrypts config secrets and secret outputs (the
// kubeconfig among them). The passphrase provider derives its key from
// PULUMI_CONFIG_PASSPHRASE; an empty passphrase is a key anyone can derive,
// so whoever can read the state container can decrypt it. Pulumi documents
// the cloud KMS providers for this case ("Configuring secrets encryption",
// https://www.pulumi.com/docs/iac/concepts/secrets/#configuring-secrets-encryption);
// aksml uses Azure Key Vault (azurekeyvault://<vault>.vault.azure.net/keys/<key>).
// A job fails when its effective environment (workflow, job and step env,
// later levels overriding earlier ones) names a cloud backend and
//   - sets PULUMI_CONFIG_PASSPHRASE to the empty string, or
//   - runs pulumi/actions without a KMS secrets-provider (azurekeyvault://,
//     awskms://, gcpkms://, hashivault://) and without a passphrase.
//
// Access (access.go): `id-token: write` granted at workflow level; an
// action not pinned by full commit SHA; a pull_request workflow that can
// reach a prod stack, its secrets key or environment, change resources, or
// log in as anything but the read-only PR identity.
//
// Scheduled (scheduled.go): a job of a scheduled workflow (drift
// detection) that changes resources or state (anything but a preview and a
// preview-only refresh) or logs in through a deploy environment.
//
// Kubernetes (kube.go, with the shipped stacks' config, LoadStacks): a job
// that runs Pulumi on a stack whose cluster uses Entra ID without
// installing kubelogin and choosing a login that lasts, or on a stack whose
// API server is IP-restricted or private from a GitHub-hosted runner.
//
// Checkpoints (checkpoints.go): a step that changes resources or state with
// PULUMI_SKIP_CHECKPOINTS on, which saves only the final state.
//
// The checks read the YAML only; they cannot see what a `run:` script
// does beyond its own text.
package workflows

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Finding is one problem in one job of one workflow file.
type Finding struct {
	// File is the workflow file name as given to Check.
	File string
	// Job is the job ID.
	Job string
	// Message says what is wrong and what to do.
	Message string
}

func (f Finding) String() string {
	return fmt.Sprintf("%s: job %s: %s", f.File, f.Job, f.Message)
}

// cloudBackendSchemes are the DIY state backends whose secrets are encrypted
// by the stack's secrets provider (Pulumi "State and backends",
// https://www.pulumi.com/docs/iac/concepts/state-and-backends/).
var cloudBackendSchemes = []string{"azblob://", "s3://", "gs://"}

// kmsSchemes are the secrets providers whose key lives outside the state.
var kmsSchemes = []string{"azurekeyvault://", "awskms://", "gcpkms://", "hashivault://"}

type workflow struct {
	On          yaml.Node         `yaml:"on"`
	Permissions yaml.Node         `yaml:"permissions"`
	Env         map[string]string `yaml:"env"`
	Jobs        map[string]job    `yaml:"jobs"`
}

type job struct {
	RunsOn      yaml.Node         `yaml:"runs-on"`
	Permissions yaml.Node         `yaml:"permissions"`
	Environment yaml.Node         `yaml:"environment"`
	Strategy    strategy          `yaml:"strategy"`
	Uses        string            `yaml:"uses"`
	Env         map[string]string `yaml:"env"`
	Steps       []step            `yaml:"steps"`
}

type strategy struct {
	Matrix map[string]yaml.Node `yaml:"matrix"`
}

type step struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	Env  map[string]string `yaml:"env"`
	With map[string]string `yaml:"with"`
}

// Checker checks workflows against the stacks they deploy.
type Checker struct {
	// Stacks are the project's stacks by name (LoadStacks); without them
	// the Kubernetes checks, and the prod checks that need a stack's
	// environment, find nothing.
	Stacks map[string]Stack
}

// Check returns the findings for one workflow file's content without stack
// config; name is used in the findings only. A file that is not valid YAML
// is an error.
func Check(name string, data []byte) ([]Finding, error) {
	return Checker{}.Check(name, data)
}

// CheckDir checks every *.yml and *.yaml file in dir without stack config.
func CheckDir(dir string) ([]Finding, error) {
	return Checker{}.CheckDir(dir)
}

// Check returns the findings for one workflow file's content; name is used
// in the findings only. A file that is not valid YAML is an error.
func (c Checker) Check(name string, data []byte) ([]Finding, error) {
	var wf workflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	ids := make([]string, 0, len(wf.Jobs))
	for id := range wf.Jobs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []Finding
	for _, msg := range checkWorkflow(wf) {
		out = append(out, Finding{File: name, Job: WorkflowLevel, Message: msg})
	}
	for _, id := range ids {
		j := wf.Jobs[id]
		msgs := checkJob(wf.Env, j)
		msgs = append(msgs, checkPinned(j)...)
		msgs = append(msgs, c.checkPullRequest(wf, j)...)
		msgs = append(msgs, c.checkKubernetes(wf, j)...)
		msgs = append(msgs, c.checkScheduled(wf, j)...)
		msgs = append(msgs, checkCheckpoints(wf.Env, j)...)
		for _, msg := range msgs {
			out = append(out, Finding{File: name, Job: id, Message: msg})
		}
	}
	return out, nil
}

// CheckDir checks every *.yml and *.yaml file in dir (a .github/workflows
// folder).
func (c Checker) CheckDir(dir string) ([]Finding, error) {
	var files []string
	for _, pattern := range []string{"*.yml", "*.yaml"} {
		m, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			return nil, err
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	var out []Finding
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		found, err := c.Check(filepath.Base(f), data)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	return out, nil
}

// checkJob evaluates each step with its effective environment.
func checkJob(workflowEnv map[string]string, j job) []string {
	var msgs []string
	seen := map[string]bool{}
	add := func(m string) {
		if !seen[m] {
			seen[m] = true
			msgs = append(msgs, m)
		}
	}
	base := merge(workflowEnv, j.Env)
	if len(j.Steps) == 0 {
		checkEnv(base, nil, add)
	}
	for _, s := range j.Steps {
		checkEnv(merge(base, s.Env), &s, add)
	}
	return msgs
}

func checkEnv(env map[string]string, s *step, add func(string)) {
	backend, cloud := cloudBackend(env, s)
	if !cloud {
		return
	}
	pass, hasPass := env["PULUMI_CONFIG_PASSPHRASE"]
	if hasPass && strings.TrimSpace(pass) == "" {
		add(fmt.Sprintf("PULUMI_CONFIG_PASSPHRASE is empty with the cloud backend %s: every secret in state (the kubeconfig too) is encrypted with a key anyone can derive; remove it and use a Key Vault secrets provider (azurekeyvault://<vault>.vault.azure.net/keys/<key>)", backend))
		return
	}
	if s == nil || !strings.HasPrefix(s.Uses, "pulumi/actions@") {
		return
	}
	if provider := s.With["secrets-provider"]; hasAnyPrefix(provider, kmsSchemes) {
		return
	}
	_, hasFile := env["PULUMI_CONFIG_PASSPHRASE_FILE"]
	if !hasPass && !hasFile {
		add(fmt.Sprintf("step %q runs pulumi/actions against %s with neither a KMS secrets-provider nor a passphrase; set with.secrets-provider to azurekeyvault://<vault>.vault.azure.net/keys/<key>", stepName(s), backend))
	}
}

// cloudBackend reports the DIY cloud backend a step uses, from
// PULUMI_BACKEND_URL, the cloud-url input of pulumi/actions, or a
// `pulumi login <url>` in a run script.
func cloudBackend(env map[string]string, s *step) (string, bool) {
	candidates := []string{env["PULUMI_BACKEND_URL"]}
	if s != nil {
		candidates = append(candidates, s.With["cloud-url"])
		candidates = append(candidates, strings.Fields(s.Run)...)
	}
	for _, c := range candidates {
		if hasAnyPrefix(c, cloudBackendSchemes) {
			return c, true
		}
	}
	return "", false
}

func hasAnyPrefix(s string, prefixes []string) bool {
	s = strings.TrimSpace(s)
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func merge(envs ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, e := range envs {
		for k, v := range e {
			out[k] = v
		}
	}
	return out
}

func stepName(s *step) string {
	if s.Name != "" {
		return s.Name
	}
	return s.Uses
}
