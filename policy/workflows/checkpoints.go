package workflows

import (
	"fmt"
	"strings"
)

// checkCheckpoints reports a step that changes resources or state with
// PULUMI_SKIP_CHECKPOINTS on in its effective environment (workflow, job and
// step env). The variable makes the engine keep its snapshot in memory and
// save only the final state (pulumi/pulumi v3.276.0
// pkg/backend/snapshot.go, unsafeServiceLoop; "Skip saving state checkpoints
// and only save the final deployment", sdk/go/common/env/env.go): an `up`
// killed half-way (a cancelled job, a runner lost, a timeout) leaves
// resources in Azure and the cluster that the state does not know, and the
// next `up` tries to create them again. A preview and a preview-only
// refresh persist nothing, so the variable only saves them time there
// (README "Test tiers", the bench).
func checkCheckpoints(workflowEnv map[string]string, j job) []string {
	var msgs []string
	base := merge(workflowEnv, j.Env)
	for _, s := range j.Steps {
		env := merge(base, s.Env)
		if !truthy(env["PULUMI_SKIP_CHECKPOINTS"]) {
			continue
		}
		for _, cmd := range stateWrites(s) {
			msgs = append(msgs, fmt.Sprintf("step %q runs `pulumi %s` with PULUMI_SKIP_CHECKPOINTS set: only the final state is saved, so an interrupted run leaves resources the state does not know; set the variable on the preview steps only (a preview persists nothing)", stepName(&s), cmd))
		}
	}
	return msgs
}

// stateWrites are the Pulumi commands a step runs that change resources or
// state: those in its script (a `pulumi refresh --preview-only` is a dry run)
// and the command of pulumi/actions.
func stateWrites(s step) []string {
	out := writeCommands(s.Run)
	if strings.HasPrefix(s.Uses, "pulumi/actions@") {
		switch c := s.With["command"]; c {
		case "up", "update", "destroy", "refresh":
			out = append(out, c)
		}
	}
	return out
}

// truthy is how the Pulumi CLI reads a boolean variable: "1" or "true" in
// any case, everything else false (pulumi/pulumi v3.276.0
// sdk/go/common/util/env/env.go, BoolValue.Value).
func truthy(v string) bool {
	return v == "1" || strings.EqualFold(v, "true")
}
