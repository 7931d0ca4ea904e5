package workflows

import (
	"fmt"
	"slices"
)

// scheduledEvents start a workflow with nobody watching ("Events that
// trigger workflows: schedule", GitHub docs): no push, no review, no person
// who would notice a deploy.
var scheduledEvents = []string{"schedule"}

// checkScheduled reports what a job of a scheduled workflow (drift
// detection, README "Drift detection") must not do: change resources or
// state, or log in through a deploy environment. `pulumi refresh
// --preview-only` is a dry run (with the DIY backend it neither locks nor
// writes the state: pulumi/pulumi v3.276.0 pkg/backend/diy/backend.go
// Refresh) and is allowed; any other refresh adopts the live state into the
// stack unattended.
func (c Checker) checkScheduled(wf workflow, j job) []string {
	if !slices.ContainsFunc(triggers(wf.On), func(t string) bool { return slices.Contains(scheduledEvents, t) }) {
		return nil
	}
	var msgs []string
	add := func(m string) {
		if !slices.Contains(msgs, m) {
			msgs = append(msgs, m)
		}
	}
	if env := environmentName(j.Environment); env != "" && c.deployEnvironment(env) {
		add(fmt.Sprintf("a scheduled job uses the environment %q, whose federated identity deploys that stack; scheduled jobs run with nobody watching: use a read-only identity (the PR identity for dev, an environment such as %q with a read-only identity for prod; README \"Drift detection\")", env, env+"-drift"))
	}
	for _, text := range expand(j, jobText(wf, j)) {
		for _, cmd := range writeCommands(text) {
			add(fmt.Sprintf("a scheduled job runs `pulumi %s`, which changes resources or state with nobody watching; detect drift with dry runs only (`pulumi refresh --preview-only --expect-no-changes`, `pulumi preview --expect-no-changes`) and deploy from the deploy workflow", cmd))
		}
	}
	return msgs
}

// deployEnvironment reports whether a GitHub environment is a stack's deploy
// environment: named after a shipped stack (README "Identities": subject
// repo:OWNER/REPO:environment:<stack>), or "prod".
func (c Checker) deployEnvironment(env string) bool {
	_, ok := c.Stacks[env]
	return ok || env == "prod"
}
