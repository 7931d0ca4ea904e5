package stacks

import (
	"slices"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/teams"
)

// TeamIdentitiesOutput is the output in which an Azure-layer stack
// (aksml:kubernetesLayer false) exports its teams' Azure side, by team name:
// `{clientId, groups}`, the client ID of the team's managed identity and the
// Entra groups given its roles. A Kubernetes-layer stack that references it
// (aksml:existingCluster.stackReference) annotates each team's training
// ServiceAccount with the client ID and refuses a team the Azure-layer
// stack does not know or whose groups differ.
const TeamIdentitiesOutput = "teamIdentities"

// readTeamIdentities reads TeamIdentitiesOutput from the Azure-layer stack
// ref and returns the client ID of each of teams that deploys accepts (nil:
// every team); a team missing there, or with other groups, is an error
// naming its key in this stack's config.
func readTeamIdentities(ref *pulumi.StackReference, name string, teams []teams.Team, deploys func(string) bool) (map[string]string, error) {
	v, err := outputValue(ref, TeamIdentitiesOutput)
	if err != nil {
		return nil, err
	}
	exported, _ := v.(map[string]any)
	return teamClientIDs(exported, teams, "stack "+name, deploys)
}

// teamClientIDs checks teams against an Azure-layer stack's
// TeamIdentitiesOutput value exported (stack names it in messages).
func teamClientIDs(exported map[string]any, teams []teams.Team, stack string, deploys func(string) bool) (map[string]string, error) {
	ids := map[string]string{}
	var errs field.ErrorList
	for i, t := range teams {
		if deploys != nil && !deploys(t.Name) {
			continue
		}
		p := key("teams").Index(i)
		entry, _ := exported[t.Name].(map[string]any)
		id, _ := entry["clientId"].(string)
		if id == "" {
			errs = append(errs, field.Invalid(p.Child("name"), "team %q has no identity in %s (output %s): its Azure side (managed identity, federated credential, group roles) is created there; add {name: %s, groups: [...]} to that stack's aksml:teams and run its pulumi up first", t.Name, stack, TeamIdentitiesOutput, t.Name))
			continue
		}
		var groups []string
		if gs, ok := entry["groups"].([]any); ok {
			for _, g := range gs {
				if s, ok := g.(string); ok {
					groups = append(groups, s)
				}
			}
		}
		if !sameGroups(groups, t.Groups) {
			errs = append(errs, field.Invalid(p.Child("groups"), "%v differ from the groups %s gives team %q Azure roles ([%s]): the namespace's RoleBinding and the Azure roles must name the same people; change both stacks' aksml:teams together", t.Groups, stack, t.Name, strings.Join(groups, " ")))
			continue
		}
		ids[t.Name] = id
	}
	if err := errs.ToAggregate(); err != nil {
		return nil, err
	}
	return ids, nil
}

// sameGroups compares Entra group object IDs as sets, ignoring case.
func sameGroups(a, b []string) bool {
	norm := func(gs []string) []string {
		out := make([]string, len(gs))
		for i, g := range gs {
			out[i] = strings.ToLower(g)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	return slices.Equal(norm(a), norm(b))
}
