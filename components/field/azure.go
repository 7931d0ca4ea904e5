package field

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Azure naming and tagging rules shared by every component that sends a
// name or tags to ARM.

// MaxResourceGroupNameLength is the longest resource group name.
const MaxResourceGroupNameLength = 90

// ResourceGroupNameProblem returns "" for a name Azure accepts for a
// resource group, otherwise the rule it breaks: 1-90 characters, Unicode
// letters or digits (as .NET's Char.IsLetterOrDigit), '_', '-', '.', '(' or
// ')', not ending in '.' ("Naming rules and restrictions for Azure
// resources", Microsoft.Resources/resourcegroups,
// https://learn.microsoft.com/azure/azure-resource-manager/management/resource-name-rules#microsoftresources).
func ResourceGroupNameProblem(name string) string {
	const rule = "use 1-90 letters (any script), digits, '-', '_', '.', '(' or ')', not ending in '.'"
	if n := utf8.RuneCountInString(name); n == 0 || n > MaxResourceGroupNameLength {
		return rule
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("_-.()", r) {
			return rule
		}
	}
	if strings.HasSuffix(name, ".") {
		return rule
	}
	return ""
}

// Azure tag limits ("Use tags to organize your Azure resources and
// management hierarchy", Limitations,
// https://learn.microsoft.com/azure/azure-resource-manager/management/tag-resources#limitations).
const (
	// MaxTags is the most tag name/value pairs a resource can carry.
	MaxTags = 50
	// MaxTagNameLength is the longest tag name on most resources.
	MaxTagNameLength = 512
	// MaxStorageTagNameLength is the longest tag name on a storage account.
	MaxStorageTagNameLength = 128
	// MaxTagValueLength is the longest tag value.
	MaxTagValueLength = 256
	// forbiddenTagNameChars may not appear in a tag name.
	forbiddenTagNameChars = `<>%&\?/`
)

// ValidateTags checks Azure tags against the limits every tagged resource
// shares. maxName is MaxTagNameLength, or MaxStorageTagNameLength when the
// tags also go on storage accounts. Tag names are case-insensitive in Azure,
// so two names differing only in case are one tag.
func ValidateTags(tags map[string]string, maxName int, path Path) ErrorList {
	var errs ErrorList
	if len(tags) > MaxTags {
		errs = append(errs, Invalid(path, "has %d tags; Azure allows at most %d per resource; remove some, or join related values into one JSON tag value", len(tags), MaxTags))
	}
	names := make([]string, 0, len(tags))
	for k := range tags {
		names = append(names, k)
	}
	slices.Sort(names)
	seen := map[string]string{}
	for _, k := range names {
		p := path.Key(k)
		switch {
		case strings.TrimSpace(k) == "":
			errs = append(errs, Invalid(p, "a tag name may not be empty; name the tag"))
		case strings.ContainsAny(k, forbiddenTagNameChars):
			errs = append(errs, Invalid(p, "tag name %q contains one of %s, which Azure refuses in tag names; rename the tag", k, strings.Join(strings.Split(forbiddenTagNameChars, ""), " ")))
		case utf8.RuneCountInString(k) > maxName:
			errs = append(errs, Invalid(p, "tag name is %d characters; Azure allows at most %d here%s; shorten it", utf8.RuneCountInString(k), maxName, storageNote(maxName)))
		}
		if other, dup := seen[strings.ToLower(k)]; dup {
			errs = append(errs, Invalid(p, "tag names are case-insensitive in Azure, so %q and %q are the same tag; keep one", other, k))
		}
		seen[strings.ToLower(k)] = k
		if n := utf8.RuneCountInString(tags[k]); n > MaxTagValueLength {
			errs = append(errs, Invalid(p, "tag value is %d characters; Azure allows at most %d; shorten it", n, MaxTagValueLength))
		}
	}
	return errs
}

// ValidateZones checks a list of availability zones: each "1", "2" or "3"
// (the zone numbers AKS agent pools take, "Create an AKS cluster that uses
// availability zones",
// https://learn.microsoft.com/azure/aks/availability-zones), each once.
func ValidateZones(zones []string, path Path) ErrorList {
	return Unique(path, zones, "zone %q", func(p Path, z string) *Error {
		if z != "1" && z != "2" && z != "3" {
			return Invalid(p, "%q is not an availability zone; use \"1\", \"2\" or \"3\"", z)
		}
		return nil
	})
}

func storageNote(maxName int) string {
	if maxName == MaxStorageTagNameLength {
		return " (the tags also go on storage accounts, whose limit is lower)"
	}
	return ""
}

// LocationProblem returns "" for a known Azure region name, otherwise what
// to write instead.
func LocationProblem(loc string) string {
	if slices.Contains(AzureLocations, loc) {
		return ""
	}
	lower := strings.ToLower(strings.ReplaceAll(loc, " ", ""))
	if slices.Contains(AzureLocations, lower) {
		return fmt.Sprintf("write the region's programmatic name %q (lowercase, no spaces)", lower)
	}
	hint := ""
	best, bestD := "", 4
	for _, l := range AzureLocations {
		if d := Distance(lower, l); d < bestD {
			best, bestD = l, d
		}
	}
	if best != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", best)
	}
	return "is not an Azure region aksml knows" + hint + "; write the programmatic name `az account list-locations --query [].name` prints, e.g. westeurope or eastus2. If Azure has opened a region since this list was written, add it to AzureLocations in components/field/locations.go"
}

// Distance is the Levenshtein distance of a and b (for "did you mean"
// hints).
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// NilGUID is the all-zero GUID: no Microsoft Entra object has it (Entra
// object IDs are generated GUIDs; the nil UUID is the "special case" of
// RFC 9562 section 5.9, https://www.rfc-editor.org/rfc/rfc9562#section-5.9),
// so an object ID equal to it is a placeholder copied from an example.
const NilGUID = "00000000-0000-0000-0000-000000000000"
