#!/usr/bin/env bash
# build-assets.sh builds the control-plane binaries used by the real-cluster test tier
# (kube-apiserver, kube-controller-manager, kube-scheduler, etcd) and KWOK from the pinned
# wrapper modules in tools/, tools/etcd/ and tools/kwok/ into bin/ (or $1, or
# $AKSML_CLUSTER_BIN).
#
# It is idempotent: when all binaries exist and were built from the current
# tools/go.mod, tools/go.sum, tools/etcd/{go.mod,go.sum,main.go}, tools/kwok/{go.mod,go.sum}
# and this script, it
# exits 0 immediately. The first build takes ~15 CPU-minutes and ~3 GB of build cache.
#
# Usage: tests/cluster/build-assets.sh [bin-dir]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${1:-${AKSML_CLUSTER_BIN:-$here/bin}}"
mkdir -p "$bin"
bin="$(cd "$bin" && pwd)"

k8s_version="v1.37.2"
k8s_major="1"
k8s_minor="37"

log() { printf '[build-assets %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# The stamp identifies the inputs the binaries were built from.
stamp_value() {
	cat "$here/tools/go.mod" "$here/tools/go.sum" \
		"$here/tools/etcd/go.mod" "$here/tools/etcd/go.sum" "$here/tools/etcd/main.go" \
		"$here/tools/kwok/go.mod" "$here/tools/kwok/go.sum" \
		"$here/build-assets.sh" | sha256sum | cut -d' ' -f1
}

up_to_date() {
	local want
	want="$(stamp_value)"
	[[ -x "$bin/kube-apiserver" && -x "$bin/kube-controller-manager" && -x "$bin/kube-scheduler" &&
		-x "$bin/etcd" && -x "$bin/kwok" ]] &&
		[[ -f "$bin/.stamp" && "$(cat "$bin/.stamp")" == "$want" ]]
}

if up_to_date; then
	log "assets up to date in $bin"
	exit 0
fi

# Serialise concurrent builds (for example several test processes starting at once).
exec 9>"$bin/.lock"
if command -v flock >/dev/null 2>&1; then
	log "waiting for build lock $bin/.lock"
	flock 9
	if up_to_date; then
		log "assets up to date in $bin (built by another process)"
		exit 0
	fi
fi

stamp="$(stamp_value)"
rm -f "$bin/.stamp"

export GOWORK=off
export CGO_ENABLED=0

version_flags="-s -w"
for kv in "gitVersion=$k8s_version" "gitMajor=$k8s_major" "gitMinor=$k8s_minor" "gitTreeState=clean"; do
	version_flags+=" -X k8s.io/component-base/version.$kv"
done

build() { # build <module-dir> <output-name> <package> <ldflags>
	local dir="$1" out="$2" pkg="$3" ldflags="$4" start tmp
	start="$(date +%s)"
	tmp="$bin/.$out.tmp.$$"
	log "building $out from $pkg (this can take several minutes on a cold cache)"
	(cd "$dir" && go build -trimpath -ldflags "$ldflags" -o "$tmp" "$pkg")
	mv -f "$tmp" "$bin/$out"
	log "built $bin/$out in $(($(date +%s) - start))s"
}

total_start="$(date +%s)"
build "$here/tools/etcd" etcd . "-s -w"
build "$here/tools" kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver "$version_flags"
build "$here/tools" kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager "$version_flags"
build "$here/tools" kube-scheduler k8s.io/kubernetes/cmd/kube-scheduler "$version_flags"
build "$here/tools/kwok" kwok sigs.k8s.io/kwok/cmd/kwok "-s -w"
printf '%s\n' "$stamp" >"$bin/.stamp"
log "all assets built in $(($(date +%s) - total_start))s: $bin"
