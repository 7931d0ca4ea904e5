package field

import (
	"fmt"
	"regexp"
	"strings"
)

// Container image references as the registry protocol defines them (OCI
// Distribution Specification v1.1, "Definitions",
// https://github.com/opencontainers/distribution-spec/blob/main/spec.md#definitions:
// a repository <name> is lowercase path components separated by '/', at
// most 255 characters; a tag is [a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}; a
// digest is <algorithm>:<encoded>, sha256 with 64 lowercase hex digits).
// The registry host in front follows the distribution reference grammar
// (host[:port], a name containing '.' or ':', or localhost). A reference
// outside it is refused by the container runtime when the kubelet pulls
// ("invalid reference format"), so the pod never starts.
var (
	imagePathComponentRE = regexp.MustCompile(`^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$`)
	imageHostRE          = regexp.MustCompile(`^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?$`)
	imageTagRE           = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)
	imageDigestRE        = regexp.MustCompile(`^sha256:[a-f0-9]{64}$`)
)

// MaxImageNameLength is the longest repository name, registry host
// included, the distribution grammar allows.
const MaxImageNameLength = 255

// ImageReferenceProblem returns "" when ref is a well-formed image
// reference ([host[:port]/]path[:tag][@sha256:digest]), otherwise what is
// wrong with it, for a message that goes on with the fix.
func ImageReferenceProblem(ref string) string {
	name, digest, hasDigest := strings.Cut(ref, "@")
	if hasDigest && !imageDigestRE.MatchString(digest) {
		return fmt.Sprintf("the digest %q is not sha256: followed by 64 lowercase hex digits", digest)
	}
	if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
		tag := name[i+1:]
		name = name[:i]
		if !imageTagRE.MatchString(tag) {
			return fmt.Sprintf("the tag %q is not 1-128 letters, digits, '_', '.' or '-' starting with a letter, digit or '_'", tag)
		}
	}
	if name == "" {
		return "it names no repository"
	}
	if len(name) > MaxImageNameLength {
		return fmt.Sprintf("the name is %d characters, over the %d a registry accepts", len(name), MaxImageNameLength)
	}
	parts := strings.Split(name, "/")
	if len(parts) > 1 && (strings.ContainsAny(parts[0], ".:") || parts[0] == "localhost") {
		if !imageHostRE.MatchString(parts[0]) {
			return fmt.Sprintf("the registry host %q is not a host name with an optional :port", parts[0])
		}
		parts = parts[1:]
	}
	for _, p := range parts {
		if imagePathComponentRE.MatchString(p) {
			continue
		}
		if strings.ToLower(p) != p {
			return fmt.Sprintf("the repository %q has uppercase letters, and repository names are lowercase", strings.Join(parts, "/"))
		}
		return fmt.Sprintf("the repository part %q is not lowercase letters and digits separated by '.', '_', '__' or '-'", p)
	}
	return ""
}
