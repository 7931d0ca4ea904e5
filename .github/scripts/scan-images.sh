#!/usr/bin/env bash
# scan-images.sh STACK [fail|report]: scans every container image STACK runs
# for known vulnerabilities with Trivy (README "Image scanning").
#
# The images are the ones the stack's desired state names
# (`go run ./policy/cmd/check -images`), plus the images of each Helm chart it
# installs at its pinned version (rendered with `helm template`). Each image
# is scanned for CRITICAL vulnerabilities that have a fixed version
# (--ignore-unfixed: a finding the team can act on). With `fail` (prod) a
# finding fails the script; with `report` (dev) it is printed only.
#
# Needs trivy and helm on PATH (images.yml installs both with `go install`
# at pinned versions) and network access to the registries and to Trivy's
# vulnerability database (ghcr.io/aquasecurity/trivy-db, downloaded on the
# first run and cached; TRIVY_DB_REPOSITORY names a mirror).
set -euo pipefail
cd "$(dirname "$0")/../.."

stack=${1:?usage: scan-images.sh STACK [fail|report]}
mode=${2:-fail}
case $mode in
fail) exit_code=1 ;;
report) exit_code=0 ;;
*) echo "scan-images.sh: mode must be fail or report, not $mode" >&2; exit 2 ;;
esac

list=$(go run ./policy/cmd/check -images -stack "$stack")
images=$(awk '$1 == "image" { print $2 }' <<<"$list")
while read -r kind chart version repo; do
	[ "$kind" = chart ] || continue
	args=(--version "$version")
	[ -n "${repo:-}" ] && args+=(--repo "$repo")
	rendered=$(helm template scan "$chart" "${args[@]}")
	images+=$'\n'$(awk '$1 == "image:" || $1 == "-image:" { gsub(/["\047]/, "", $2); print $2 }' <<<"$rendered")
done <<<"$list"
images=$(grep -v '^$' <<<"$images" | sort -u)

echo "stack $stack: $(wc -l <<<"$images") images"
failed=0
while read -r image; do
	echo "== $image"
	if ! trivy image --quiet --scanners vuln --severity CRITICAL --ignore-unfixed \
		--exit-code "$exit_code" "$image"; then
		failed=$((failed + 1))
	fi
done <<<"$images"
if [ "$failed" -gt 0 ]; then
	echo "stack $stack: $failed image(s) with fixable CRITICAL vulnerabilities (or not scannable)" >&2
	exit 1
fi
