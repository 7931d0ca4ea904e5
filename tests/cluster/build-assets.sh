#!/usr/bin/env bash
# build-assets.sh builds the control-plane binaries used by the real-cluster test tier
# (kube-apiserver, kube-controller-manager, kube-scheduler, etcd) and KWOK from the pinned
# wrapper module in tools/ into bin/ (or $1, or $AKSML_CLUSTER_BIN).
#
# The binaries share their compiled dependencies with the test modules (issue 30): the
# control plane is Kubernetes v1.36.3, the release whose k8s.io/* v0.36.3 the cluster
# tier (and Kueue v0.17.0 in it) uses; tools/go.mod requires every module it shares with
# the five aksml modules at their version (`go run ./tools/versions` checks it); and this
# script builds with the flags `go vet` and `go test` use (no -trimpath, the environment's
# CGO_ENABLED). So the Go build cache holds one copy of k8s.io/api, client-go, grpc,
# OpenTelemetry..., and a cold `.ci/run` compiles each once.
#
# It is idempotent: when all binaries exist and were built from the current
# tools/go.mod, tools/go.sum, tools/etcd/main.go and this script, it exits 0
# immediately.
#
# Usage: tests/cluster/build-assets.sh [bin-dir]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${1:-${AKSML_CLUSTER_BIN:-$here/bin}}"
mkdir -p "$bin"
bin="$(cd "$bin" && pwd)"

k8s_version="v1.36.3"

# own_packages are the control plane's own modules, which no other aksml module builds
# (tools/versions checks that none of the five test modules' builds holds one of them).
own_packages="k8s.io/kubernetes/... github.com/google/cadvisor/... sigs.k8s.io/kwok/... sigs.k8s.io/kustomize/... k8s.io/kube-aggregator/... k8s.io/controller-manager/... k8s.io/cloud-provider/... k8s.io/kubelet/... go.etcd.io/etcd/server/v3/... go.etcd.io/etcd/pkg/v3/... k8s.io/pod-security-admission/... k8s.io/dynamic-resource-allocation/... k8s.io/metrics/..."
k8s_major="1"
k8s_minor="36"

log() { printf '[build-assets %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# The stamp identifies the inputs the binaries were built from.
stamp_value() {
	cat "$here/tools/go.mod" "$here/tools/go.sum" "$here/tools/etcd/main.go" \
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

version_flags="-s -w"
for kv in "gitVersion=$k8s_version" "gitMajor=$k8s_major" "gitMinor=$k8s_minor" "gitTreeState=clean"; do
	version_flags+=" -X k8s.io/component-base/version.$kv"
done

# The packages only the control plane uses (no aksml module builds them; `go run
# ./tools/versions` checks it) compile without inlining (-l) and without DWARF, which
# -s -w drops at link time anyway (issue 30): measured on k8s.io/kubernetes/pkg/apis/core/
# validation, 5.6 CPU-seconds with inlining and 3.1 without. The packages the binaries
# share with the test modules keep the flags of `go vet` and `go test`, so they are still
# compiled once. Without inlining the control plane's own code runs somewhat slower; the
# libraries it spends its time in (apimachinery, apiserver, client-go, grpc) are shared
# and keep it.
own_gcflags=()
for pattern in $own_packages; do
	own_gcflags+=("-gcflags=$pattern=-l -dwarf=false")
done

# One `go build` for all five: the linker of one binary runs while the compiler works on
# another's packages, and each shared package is compiled once. The -X flags set the
# version kube-apiserver reports; the other binaries do not link that package's variables
# with other values (etcd and KWOK report their own versions).
total_start="$(date +%s)"
tmp="$bin/.build.$$"
mkdir -p "$tmp"
log "building etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok (a cold cache takes about 15 CPU-minutes; README \"Figures\")"
(cd "$here/tools" && go build -ldflags "$version_flags" "${own_gcflags[@]}" -o "$tmp/" ./etcd \
	k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
	k8s.io/kubernetes/cmd/kube-scheduler sigs.k8s.io/kwok/cmd/kwok)
for out in etcd kube-apiserver kube-controller-manager kube-scheduler kwok; do
	mv -f "$tmp/$out" "$bin/$out"
done
rmdir "$tmp"
printf '%s\n' "$stamp" >"$bin/.stamp"
log "all assets built in $(($(date +%s) - total_start))s: $bin"
