#!/usr/bin/env bash
# build.sh VERSION [DIR] — the files of an aksml release, into DIR (default dist/):
#
#   pulumi-resource-aksml-v<version>-<os>-<arch>.tar.gz  the component provider plugin for
#       linux, darwin and windows on amd64 and arm64, named as the Pulumi CLI looks for it
#       under the schema's pluginDownloadURL (github://api.github.com/aksml/aksml: the release
#       tagged v<version>; sdk/go/common/workspace/plugins.go, standardAssetName), with LICENSE;
#   schema.json                      the package schema the plugin serves, at <version>;
#   aksml-sdk-<lang>-v<version>.tar.gz  the nodejs, python and go SDKs generated from it;
#   notes.md                         the CHANGELOG.md section of <version>;
#   checksums.txt                    sha256 of every file above (`sha256sum -c checksums.txt`).
#
# VERSION is the tag (v1.2.3) or the version (1.2.3), semantic-versioning syntax; it is stamped
# into the plugin with -ldflags -X github.com/aksml/aksml/provider.Version, so the schema, the
# plugin's reported version and the SDKs' package versions all follow the tag. A version
# without a CHANGELOG.md section is refused unless it is a pre-release (1.2.3-snapshot, the
# dry run: `make release-snapshot`). AKSML_RELEASE_TARGETS (default all six, "os/arch ...")
# narrows the plugin builds.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
version=${1:?usage: tools/release/build.sh VERSION [DIR]}
version=${version#v}
out=${2:-$root/dist}
targets=${AKSML_RELEASE_TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}
GO=${GO:-go}
semver='^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$'

say() { printf '[release %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

if ! [[ $version =~ $semver ]]; then
	say "$version is not a semantic version (vMAJOR.MINOR.PATCH[-pre][+build])"
	exit 2
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out"/pulumi-resource-aksml-v*.tar.gz "$out"/aksml-sdk-*.tar.gz "$out/checksums.txt"

# The release notes: the CHANGELOG.md section "## [<version>]" up to the next "## ".
awk -v v="$version" '
	index($0, "## [" v "]") == 1 { on = 1; next }
	on && /^## / { exit }
	on { print }
' "$root/CHANGELOG.md" >"$out/notes.md"
if [ ! -s "$out/notes.md" ]; then
	if [[ $version != *-* ]]; then
		say "CHANGELOG.md has no section \"## [$version]\": write the release's notes first"
		exit 1
	fi
	echo "Pre-release $version (no CHANGELOG.md section)." >"$out/notes.md"
fi

# -w drops the debug information at link time, so the compiler is told not to produce it
# (-dwarf=false: 15-18 % less compile CPU, measured for .ci/run).
ldflags="-s -w -X github.com/aksml/aksml/provider.Version=$version"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

for t in $targets; do
	os=${t%/*} arch=${t#*/}
	exe=pulumi-resource-aksml
	[ "$os" = windows ] && exe=$exe.exe
	start=$(date +%s)
	rm -rf "${stage:?}/plugin" && mkdir -p "$stage/plugin"
	(cd "$root/provider" && CGO_ENABLED=0 GOOS=$os GOARCH=$arch "$GO" build -gcflags=all=-dwarf=false -ldflags "$ldflags" -o "$stage/plugin/$exe" ./cmd/pulumi-resource-aksml)
	cp "$root/LICENSE" "$stage/plugin/"
	tar -czf "$out/pulumi-resource-aksml-v$version-$os-$arch.tar.gz" -C "$stage/plugin" "$exe" LICENSE
	say "pulumi-resource-aksml-v$version-$os-$arch.tar.gz ($(($(date +%s) - start))s)"
done

# The schema as the stamped plugin serves it, and the SDKs generated from it.
(cd "$root/provider" && "$GO" run -ldflags "-X github.com/aksml/aksml/provider.Version=$version" ./cmd/pulumi-resource-aksml -schema) >"$out/schema.json"
for lang in nodejs python go; do
	(cd "$root/provider" && "$GO" run ./cmd/gensdk -language "$lang" -schema "$out/schema.json" -version "$version" -out "$stage/sdk/$lang") >/dev/null
	tar -czf "$out/aksml-sdk-$lang-v$version.tar.gz" -C "$stage/sdk/$lang" .
done

(cd "$out" && sha256sum pulumi-resource-aksml-v"$version"-*.tar.gz aksml-sdk-*-v"$version".tar.gz schema.json notes.md >checksums.txt)
say "release $version in $out:"
(cd "$out" && ls -l -- *.tar.gz schema.json notes.md checksums.txt) >&2
