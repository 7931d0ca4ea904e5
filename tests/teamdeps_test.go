package tests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/policy/rules"
)

// teamComponents are the components whose children are one team's objects,
// each placed in that team's namespace.
var teamComponents = []string{"aksml:tenancy:Tenancy$", "aksml:queues:Queues$", "aksml:storage:TeamVolumes$"}

// crossTeamDependencies lists the team objects of st (children of
// teamComponents in a team namespace) that depend on another team's Namespace.
// Such a dependency makes every team object wait for every namespace, and the
// stack's state records it per object: state size, and so the time of each
// checkpoint, grows with the square of the number of teams (issue 32).
func crossTeamDependencies(st *rules.Stack) []string {
	nsURN := map[string]string{} // namespace name -> URN of its Namespace resource
	for _, r := range st.Resources {
		if strings.HasSuffix(r.Type, ":core/v1:Namespace") && strings.Contains(r.URN, "aksml:tenancy:Tenancy$") {
			if name, ok := metadata(r)["name"].(string); ok {
				nsURN[name] = r.URN
			}
		}
	}
	var out []string
	for _, r := range st.Resources {
		if !containsAny(r.URN, teamComponents) {
			continue
		}
		ns, ok := metadata(r)["namespace"].(string)
		if !ok || nsURN[ns] == "" {
			continue
		}
		for _, d := range r.DependsOn {
			if strings.HasSuffix(strings.SplitN(d, "::", 4)[2], ":core/v1:Namespace") && d != nsURN[ns] && strings.Contains(d, "aksml:tenancy:Tenancy$") {
				out = append(out, fmt.Sprintf("%s (namespace %s) depends on %s", r.Name, ns, d))
			}
		}
	}
	return out
}

func metadata(r rules.Resource) map[string]any {
	m, _ := r.Inputs["metadata"].(map[string]any)
	return m
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestTeamObjectsDependOnTheirNamespaceOnly: in every shipped stack, a team's
// queues, claims and tenancy objects wait for their own namespace, not for
// every team's.
func TestTeamObjectsDependOnTheirNamespaceOnly(t *testing.T) {
	names, err := synth.Stacks(projectDir)
	require.NoError(t, err)
	for _, stack := range names {
		t.Run(stack, func(t *testing.T) {
			st := synthStack(t, stack)
			require.Empty(t, crossTeamDependencies(st))
			// The check saw team objects at all: LocalQueues of two teams or more.
			require.GreaterOrEqual(t, len(byType(st, ":LocalQueue")), 2)
		})
	}
}

// TestCrossTeamDependenciesFound: the check names an object that waits for
// another team's namespace (what Tenancy.Namespaces.MapIndex gave).
func TestCrossTeamDependenciesFound(t *testing.T) {
	ns := func(team string) rules.Resource {
		return rules.Resource{
			Type:   "kubernetes:core/v1:Namespace",
			Name:   "tenancy-" + team + "-namespace",
			URN:    "urn:pulumi:s::aksml::aksml:tenancy:Tenancy$kubernetes:core/v1:Namespace::tenancy-" + team + "-namespace",
			Inputs: map[string]any{"metadata": map[string]any{"name": team}},
		}
	}
	a, b := ns("team-a"), ns("team-b")
	lq := rules.Resource{
		Type:      "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue",
		Name:      "queues-lq-team-a",
		URN:       "urn:pulumi:s::aksml::aksml:queues:Queues$kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue::queues-lq-team-a",
		DependsOn: []string{a.URN, b.URN},
		Inputs:    map[string]any{"metadata": map[string]any{"name": "team-a", "namespace": "team-a"}},
	}
	got := crossTeamDependencies(&rules.Stack{Resources: []rules.Resource{a, b, lq}})
	require.Equal(t, []string{"queues-lq-team-a (namespace team-a) depends on " + b.URN}, got)

	lq.DependsOn = []string{a.URN}
	require.Empty(t, crossTeamDependencies(&rules.Stack{Resources: []rules.Resource{a, b, lq}}))
}
