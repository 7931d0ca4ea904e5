package tenancy

import (
	"regexp"
	"slices"
	"strings"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/vocab"
)

// guidRE is an Entra object ID: a GUID in its 8-4-4-4-12 hex form.
var guidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// ValidateNames checks the team names as names: required, a DNS label of
// at most MaxTeamNameLength characters, unique. NewTenancy runs it; the
// aksml stacks do not, because components/queues checks the same names as
// queue names (with the same rules and its own messages) and every problem
// is listed once.
func ValidateNames(teams []Team, path field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]int{}
	for i, t := range teams {
		p := path.Index(i).Child("name")
		switch {
		case t.Name == "":
			errs = append(errs, field.Required(p, "the team's namespace name"))
		case len(t.Name) > MaxTeamNameLength || !field.IsDNSLabel(t.Name):
			errs = append(errs, field.Invalid(p, "%q is not a valid team name: use lowercase letters, digits and '-', start and end with a letter or digit, at most %d characters", t.Name, MaxTeamNameLength))
		default:
			if j, dup := seen[t.Name]; dup {
				errs = append(errs, field.Duplicate(p, "team %q is already defined at %s; team names must be unique", t.Name, path.Index(j)))
			}
			seen[t.Name] = i
		}
	}
	return errs
}

// ValidateTeams checks what the namespace of each defaulted team needs
// beyond a valid name (ValidateNames): a name the platform does not
// reserve, its Pod Security level, Entra groups, egress policy and
// ResourceQuota. path is the list's config key (the aksml stacks pass
// `aksml:teams`), so problems read `aksml:teams[1].groups[0]: ...`. Every
// problem is returned at once.
func ValidateTeams(teams []Team, path field.Path) field.ErrorList {
	errs := validateTeamGroups(teams, path)
	errs = append(errs, validateResourceNames(teams, path)...)
	for i, t := range teams {
		p := path.Index(i)
		errs = append(errs, validateNotReserved(t.Name, p.Child("name"))...)
		if !slices.Contains(PodSecurityLevels, t.PodSecurity) {
			errs = append(errs, field.NotSupported(p.Child("podSecurity"), t.PodSecurity, PodSecurityLevels))
		}
		errs = append(errs, validateQuota(t.Quota, p.Child("quota"))...)
		errs = append(errs, validateQuota(t.NamespaceQuota, p.Child("namespaceQuota"))...)
		for j, pc := range t.Priorities {
			if strings.HasPrefix(pc, "system-") {
				errs = append(errs, field.Forbidden(p.Child("priorities").Index(j), "%q: system-* priority classes are the platform's; a team's pods never run at them", pc))
			}
		}
		if !slices.Contains(Egresses, t.Egress) {
			errs = append(errs, field.NotSupported(p.Child("egress"), t.Egress, Egresses))
		}
	}
	return errs
}

// ValidateIdentityTeams checks what NewTeamIdentities reads of each team
// beyond a valid name: a namespace name the platform does not reserve (the
// federated credential's subject) and its Entra groups.
func ValidateIdentityTeams(teams []Team, path field.Path) field.ErrorList {
	errs := validateTeamGroups(teams, path)
	for i, t := range teams {
		errs = append(errs, validateNotReserved(t.Name, path.Index(i).Child("name"))...)
	}
	return errs
}

// validateNotReserved refuses a team name that is a namespace the platform
// owns.
func validateNotReserved(name string, p field.Path) field.ErrorList {
	if owner := vocab.PlatformNamespaceOwner(name); owner != "" {
		return field.ErrorList{field.Forbidden(p, "%q is a system namespace (owned by %s); choose another team name (a team name is its namespace, and may not be %s)", name, owner, strings.Join(vocab.ReservedNamespaceNames(), ", "))}
	}
	return nil
}

// validateTeamGroups checks every team's Entra group object IDs: GUIDs,
// not the nil GUID, each once per team, and no group in two teams (its
// members would hold both namespaces, which makes the two teams one
// security boundary).
func validateTeamGroups(teams []Team, path field.Path) field.ErrorList {
	var errs field.ErrorList
	owner := map[string]int{}
	for i, t := range teams {
		p := path.Index(i).Child("groups")
		seen := map[string]int{}
		for j, g := range t.Groups {
			gp := p.Index(j)
			if !guidRE.MatchString(g) {
				errs = append(errs, field.Invalid(gp, "%q is not a Microsoft Entra group object ID (a GUID such as 00000000-0000-0000-0000-000000000000); copy the group's Object ID from Entra ID", g))
				continue
			}
			if normalGUID(g) == field.NilGUID {
				errs = append(errs, field.Invalid(gp, "%q is the nil GUID, which no Entra group has (a placeholder from an example); copy the group's Object ID from Entra ID", g))
				continue
			}
			if k, dup := seen[normalGUID(g)]; dup {
				errs = append(errs, field.Duplicate(gp, "%q is already listed at %s; list each group once", g, p.Index(k)))
			} else if k, other := owner[normalGUID(g)]; other && k != i {
				errs = append(errs, field.Duplicate(gp, "%q is also a group of team %q (%s): its members would hold both namespaces, so the two teams would be one security boundary; give each team its own group", g, teams[k].Name, path.Index(k).Child("groups")))
			} else {
				owner[normalGUID(g)] = i
			}
			seen[normalGUID(g)] = j
		}
	}
	return errs
}

// normalGUID lower-cases a GUID for comparison.
func normalGUID(g string) string { return strings.ToLower(g) }

// validateResourceNames refuses two teams whose objects would be registered
// under one Pulumi name: NewTenancy names a team's namespace quota
// `<name>-<team>-quota` and its team quota `<name>-<team>-team-quota`, both
// ResourceQuotas under the component, so team "x-team"'s namespace quota
// and team "x"'s team quota share a URN. The engine finds a duplicate URN
// only when the second registers, mid-`up`, after it has started creating
// the others ("one owner per name").
func validateResourceNames(teams []Team, path field.Path) field.ErrorList {
	var errs field.ErrorList
	index := map[string]int{}
	for i, t := range teams {
		index[t.Name] = i
	}
	for i, t := range teams {
		base, ok := strings.CutSuffix(t.Name, "-team")
		if j, clash := index[base]; ok && clash {
			errs = append(errs, field.Invalid(path.Index(i).Child("name"), "%q: its namespace quota would be registered under the same Pulumi name as the team quota of team %q (%s), <component>-%s-quota; rename one of the two teams", t.Name, base, path.Index(j), t.Name))
		}
	}
	return errs
}
