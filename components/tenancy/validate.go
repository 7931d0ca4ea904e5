package tenancy

import (
	"regexp"
	"slices"
	"strings"

	"github.com/aksml/aksml/components/field"
)

// guidRE is an Entra object ID: a GUID in its 8-4-4-4-12 hex form.
var guidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// ValidateTeams checks defaulted teams; path is the list's config key (the
// aksml stacks pass `aksml:teams`), so problems read
// `aksml:teams[1].groups[0]: ...`. Every problem is returned at once. Team
// names and their uniqueness are checked by the component that creates the
// namespaces (components/queues).
func ValidateTeams(teams []Team, path field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range teams {
		p := path.Index(i)
		if t.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), "the team's namespace name"))
		}
		seen := map[string]int{}
		for j, g := range t.Groups {
			gp := p.Child("groups").Index(j)
			if !guidRE.MatchString(g) {
				errs = append(errs, field.Invalid(gp, "%q is not a Microsoft Entra group object ID (a GUID such as 00000000-0000-0000-0000-000000000000); copy the group's Object ID from Entra ID", g))
				continue
			}
			if k, dup := seen[normalGUID(g)]; dup {
				errs = append(errs, field.Duplicate(gp, "%q is already listed at %s; list each group once", g, p.Child("groups").Index(k)))
			}
			seen[normalGUID(g)] = j
		}
		if !slices.Contains(Egresses, t.Egress) {
			errs = append(errs, field.NotSupported(p.Child("egress"), t.Egress, Egresses))
		}
	}
	return errs
}

// normalGUID lower-cases a GUID for comparison.
func normalGUID(g string) string { return strings.ToLower(g) }
