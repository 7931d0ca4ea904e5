package workflows

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// WorkflowLevel is the Finding.Job of a problem in the workflow's top-level
// keys.
const WorkflowLevel = "(workflow)"

// PRIdentityVariable is the repository variable holding the client ID of
// the read-only PR identity (README "CI and workflows": Reader on the
// subscription, state read, the dev secrets key only). Any other client ID
// in a pull_request workflow is a deploy identity, which holds Contributor
// and role-assignment rights.
const PRIdentityVariable = "AZURE_PR_CLIENT_ID"

// pullRequestEvents run a workflow for code a pull request proposes
// ("Events that trigger workflows", GitHub docs).
var pullRequestEvents = []string{"pull_request", "pull_request_target"}

// pinnedRE is an action reference pinned by full commit SHA, the only
// immutable reference ("Security hardening for GitHub Actions: using
// third-party actions", GitHub docs: "Pinning an action to a full length
// commit SHA is currently the only way to use an action as an immutable
// release").
var pinnedRE = regexp.MustCompile(`^[^@\s]+@[0-9a-f]{40}$`)

// clientIDKeys are the env keys and action inputs that choose the identity
// a job logs in to Azure as.
var clientIDKeys = []string{"ARM_CLIENT_ID", "AZURE_CLIENT_ID", "client-id"}

// keyVaultKeyRE finds Key Vault key URLs: the key name is group 1.
var keyVaultKeyRE = regexp.MustCompile(`azurekeyvault://[^/\s"']+/keys/([A-Za-z0-9-]+)`)

// writeCommandRE finds Pulumi commands that change resources or state.
var writeCommandRE = regexp.MustCompile(`\bpulumi\s+(up|update|destroy|refresh|import)\b`)

// writeCommands returns the Pulumi commands of a script that change resources
// or state, line continuations joined. `pulumi refresh --preview-only` is a
// dry run (with the DIY backend it neither locks nor writes the state:
// pulumi/pulumi v3.276.0 pkg/backend/diy/backend.go Refresh) and is left out.
func writeCommands(script string) []string {
	var out []string
	for _, line := range strings.Split(strings.ReplaceAll(script, "\\\n", " "), "\n") {
		for _, m := range writeCommandRE.FindAllStringSubmatch(line, -1) {
			if m[1] == "refresh" && strings.Contains(line, "--preview-only") {
				continue
			}
			out = append(out, m[1])
		}
	}
	return out
}

// checkWorkflow checks the workflow's top-level permissions: a token that
// can request OIDC tokens belongs on the jobs that log in, not on every job.
func checkWorkflow(wf workflow) []string {
	if grants(wf.Permissions, "id-token") {
		return []string{"grants id-token: write at workflow level, so every job (tests, third-party actions) can request an OIDC token for the cloud identities; set permissions: contents: read at the top and id-token: write only on the jobs that log in"}
	}
	return nil
}

// grants reports whether a permissions node gives scope write access
// (`write-all`, or `<scope>: write`).
func grants(perms yaml.Node, scope string) bool {
	switch perms.Kind {
	case yaml.ScalarNode:
		return perms.Value == "write-all"
	case yaml.MappingNode:
		for i := 0; i+1 < len(perms.Content); i += 2 {
			if perms.Content[i].Value == scope && perms.Content[i+1].Value == "write" {
				return true
			}
		}
	}
	return false
}

// checkPinned reports the actions and reusable workflows of a job that are
// not pinned by full commit SHA; local actions (./) and docker images by
// digest are pinned by definition.
func checkPinned(j job) []string {
	refs := []string{j.Uses}
	for _, s := range j.Steps {
		refs = append(refs, s.Uses)
	}
	var msgs []string
	for _, ref := range refs {
		switch {
		case ref == "", strings.HasPrefix(ref, "./"):
		case strings.HasPrefix(ref, "docker://"):
			if !strings.Contains(ref, "@sha256:") {
				msgs = append(msgs, fmt.Sprintf("uses %s by tag; pin the image by digest (docker://<image>@sha256:<digest>)", ref))
			}
		case !pinnedRE.MatchString(ref):
			msgs = append(msgs, fmt.Sprintf("uses %s, which is not pinned: a tag or branch can be moved to other code; pin it by full commit SHA with the tag as a comment (uses: owner/repo@<40-hex SHA> # vX.Y.Z)", ref))
		}
	}
	return msgs
}

// checkPullRequest reports what a job of a pull_request workflow must not
// be able to do: the PR's own code runs in it.
func (c Checker) checkPullRequest(wf workflow, j job) []string {
	if !slices.ContainsFunc(triggers(wf.On), func(t string) bool { return slices.Contains(pullRequestEvents, t) }) {
		return nil
	}
	var msgs []string
	add := func(m string) {
		if !slices.Contains(msgs, m) {
			msgs = append(msgs, m)
		}
	}
	if env := environmentName(j.Environment); env != "" && c.isProd(env) {
		add(fmt.Sprintf("a pull_request job uses the environment %q, whose federated identity deploys prod; preview prod only in the deploy workflow behind the environment's reviewers", env))
	}
	for _, text := range expand(j, jobText(wf, j)) {
		for _, m := range keyVaultKeyRE.FindAllStringSubmatch(text, -1) {
			if stack, ok := c.prodStackOfKey(m[1]); ok {
				add(fmt.Sprintf("a pull_request job can reach the prod secrets key %s (stack %s): whoever pushes a branch could decrypt prod state; use only the dev key in pull requests", m[1], stack))
			}
		}
		for _, stack := range targetStacks(text) {
			if c.Stacks[stack].Prod {
				add(fmt.Sprintf("a pull_request job runs Pulumi on the prod stack %s, which needs the prod secrets key and prod access; preview prod in the deploy workflow behind the prod environment", stack))
			}
		}
		if m := writeCommandRE.FindStringSubmatch(text); m != nil {
			add(fmt.Sprintf("a pull_request job runs `pulumi %s`, which changes resources or state; pull requests only preview", m[1]))
		}
	}
	for _, id := range clientIDs(wf, j) {
		if !strings.Contains(id, "vars."+PRIdentityVariable) {
			add(fmt.Sprintf("a pull_request job logs in to Azure as %s, not the read-only PR identity (vars.%s): deploy identities hold Contributor and role-assignment rights, which the PR's code could use", id, PRIdentityVariable))
		}
	}
	return msgs
}

// isProd reports whether an environment name is a prod stack's or "prod".
func (c Checker) isProd(env string) bool {
	return env == "prod" || c.Stacks[env].Prod
}

// prodStackOfKey returns the prod stack whose secrets key is named key
// (aksml-<stack>, README "State secrets").
func (c Checker) prodStackOfKey(key string) (string, bool) {
	for name, st := range c.Stacks {
		if st.Prod && (key == name || strings.HasSuffix(key, "-"+name)) {
			return name, true
		}
	}
	return "", false
}

// triggers lists the events of an `on:` node (a name, a list or a map).
func triggers(on yaml.Node) []string {
	switch on.Kind {
	case yaml.ScalarNode:
		return []string{on.Value}
	case yaml.SequenceNode:
		var out []string
		for _, n := range on.Content {
			out = append(out, n.Value)
		}
		return out
	case yaml.MappingNode:
		var out []string
		for i := 0; i < len(on.Content); i += 2 {
			out = append(out, on.Content[i].Value)
		}
		return out
	}
	return nil
}

// environmentName is the name of a job's environment (a name or {name: }).
func environmentName(n yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "name" {
				return n.Content[i+1].Value
			}
		}
	}
	return ""
}

// clientIDs are the client IDs a job logs in with, as written.
func clientIDs(wf workflow, j job) []string {
	var out []string
	add := func(v string) {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	for _, env := range []map[string]string{wf.Env, j.Env} {
		for _, k := range clientIDKeys {
			add(env[k])
		}
	}
	for _, s := range j.Steps {
		for _, k := range clientIDKeys {
			add(s.Env[k])
			add(s.With[k])
		}
	}
	return out
}

// jobText is everything a job says that can name a stack, a key or a
// command: environments, step scripts, inputs and names.
func jobText(wf workflow, j job) string {
	var b strings.Builder
	for _, env := range []map[string]string{wf.Env, j.Env} {
		for k, v := range env {
			fmt.Fprintf(&b, "%s=%s\n", k, v)
		}
	}
	for _, s := range j.Steps {
		b.WriteString(s.Run + "\n")
		for k, v := range s.Env {
			fmt.Fprintf(&b, "%s=%s\n", k, v)
		}
		for k, v := range s.With {
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
		if s.Uses != "" && s.With["stack-name"] != "" {
			fmt.Fprintf(&b, "pulumi %s --stack %s\n", s.With["command"], s.With["stack-name"])
		}
	}
	return b.String()
}

// matrixRE finds matrix references in expressions.
var matrixRE = regexp.MustCompile(`\$\{\{\s*matrix\.([A-Za-z0-9_-]+)\s*\}\}`)

// expand returns text once per value of each matrix key it references
// (one key at a time, which covers the one-dimensional matrices workflows
// use for stacks), or text itself.
func expand(j job, text string) []string {
	out := []string{text}
	for _, m := range matrixRE.FindAllStringSubmatch(text, -1) {
		values := j.Strategy.Matrix[m[1]]
		if values.Kind != yaml.SequenceNode {
			continue
		}
		var next []string
		for _, t := range out {
			for _, v := range values.Content {
				next = append(next, strings.ReplaceAll(t, m[0], v.Value))
			}
		}
		out = next
	}
	return out
}

// stackRE finds the stack a Pulumi command names (--stack X, -s X,
// --stack=X, `pulumi stack select X`).
var stackRE = regexp.MustCompile(`(?:--stack[= ]|\s-s\s|pulumi\s+stack\s+select\s+)["']?([A-Za-z0-9_./${}-]+)`)

// pulumiCommandRE finds Pulumi commands that talk to the stack's cloud.
var pulumiCommandRE = regexp.MustCompile(`\bpulumi\s+(preview|up|update|destroy|refresh|import|stack\s+select)\b`)

// targetStacks are the stacks the Pulumi commands in text run on.
func targetStacks(text string) []string {
	text = strings.ReplaceAll(text, "\\\n", " ")
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if !pulumiCommandRE.MatchString(line) {
			continue
		}
		for _, m := range stackRE.FindAllStringSubmatch(line, -1) {
			s := strings.Trim(m[1], `"'`)
			// org/project/stack names the same stack file as stack.
			s = s[strings.LastIndex(s, "/")+1:]
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}
