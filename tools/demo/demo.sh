#!/usr/bin/env bash
# make demo / make demo-down: the whole platform on this machine, no Azure.
#
#   demo.sh       build what is missing (Pulumi toolchain, control-plane binaries), start
#                 the sandbox with the simulated AKS nodes of the local stack, `pulumi up`
#                 the local stack with the real engine, submit a few Jobs and print a
#                 short live view (Kueue admission per team, pods per pool, a preemption).
#   demo.sh down  stop the sandbox and forget the demo's stack state.
#
# Nothing tracked is written: Pulumi runs from .sandbox/project/ (git-ignored), whose
# Pulumi.yaml points at the repository's program (main: ../..) and whose Pulumi.local.yaml
# is a fresh copy of the tracked one, so the encryptionsalt Pulumi adds lands there. The
# state backend (file://.sandbox/state) and the passphrase (.sandbox/passphrase, random)
# stay in .sandbox/ too.
#
# Environment: AKSML_BIN (Pulumi toolchain, default bin/), AKSML_CLUSTER_BIN (control-plane
# binaries, default tests/cluster/bin/), GO (default go).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
sb=$root/.sandbox
GO=${GO:-go}
BIN=${AKSML_BIN:-$root/bin}
case $BIN in /*) ;; *) BIN=$root/$BIN ;; esac
stack=local
t0=$(date +%s)
# The cluster package finds the repository from this variable first; otherwise from the
# source path recorded at build time, which the shared Go build cache may have recorded
# for another clone of the repository.
export AKSML_CLUSTER_DIR=$root/tests/cluster

say() { printf '[demo %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
elapsed() { printf '%ds' $(($(date +%s) - t0)); }

stop_sandbox() {
	if [ -f "$sb/pid" ] && pid=$(cat "$sb/pid") && [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill "$pid"
		for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
		say "sandbox (pid $pid) stopped"
	else
		say "no sandbox running"
	fi
	rm -f "$sb/pid"
	# The stack's state described objects of the stopped control plane: forget it.
	# The prebuilt program stays: go build relinks it only when the code changed.
	rm -rf "$sb/state" "$sb/project"
}

if [ "${1:-}" = down ]; then
	stop_sandbox
	exit 0
fi

mkdir -p "$sb"
# The CRDs the sandbox installs come first: without network and without a copy this stops
# here, at once, rather than after the builds below.
say "0/5 third-party files the sandbox reads (tools/deps/fetch.sh: a copy, or pinned and fetched into the cache)"
bash "$root/tools/deps/fetch.sh" crds

say "1/5 Pulumi toolchain (pulumi, pulumi-language-go, pulumi-resource-kubernetes); a first build takes 19 to 29 minutes on 2 cores (README, Figures) and prints progress every minute"
AKSML_BIN=$BIN GO=$GO bash "$root/tools/toolchain/build.sh"
[ -d "$BIN" ] && export PATH="$BIN:$PATH"

say "2/5 control-plane binaries (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, KWOK); a first build takes about 18 minutes on 2 cores (README, Figures)"
(cd "$root/tests/cluster" && ./build-assets.sh)

say "3/5 sandbox with the simulated nodes of the $stack stack"
if [ -f "$sb/pid" ] && kill -0 "$(cat "$sb/pid")" 2>/dev/null; then
	say "a sandbox is already running: restarting it"
	stop_sandbox
fi
rm -rf "$sb/state" "$sb/project"
mkdir -p "$sb/bin"
(cd "$root/tests/cluster" && "$GO" build -o "$sb/bin/sandbox" ./cmd/sandbox && "$GO" build -o "$sb/bin/demo" ./cmd/demo)
nohup "$sb/bin/sandbox" -nodes "$stack" >"$sb/sandbox.log" 2>&1 &
for i in $(seq 300); do
	grep -q '^sandbox: ready' "$sb/sandbox.log" 2>/dev/null && break
	if ! kill -0 $! 2>/dev/null; then
		cat "$sb/sandbox.log" >&2
		say "the sandbox exited; its log is above (and in .sandbox/sandbox.log)" >&2
		exit 1
	fi
	[ $((i % 15)) -eq 0 ] && say "  ... sandbox starting (${i}s)"
	sleep 1
done
grep -q '^sandbox: ready' "$sb/sandbox.log" || { say "the sandbox did not get ready in 300 s; see .sandbox/sandbox.log" >&2; exit 1; }
grep '^sandbox:   pool' "$sb/sandbox.log" || true

say "4/5 pulumi up --stack $stack (real engine; state and passphrase in .sandbox/, no tracked file written)"
mkdir -p "$sb/project" "$sb/state"
# The project file, with the program at the repository root.
grep -v '^main:' "$root/Pulumi.yaml" >"$sb/project/Pulumi.yaml"
echo 'main: ../..' >>"$sb/project/Pulumi.yaml"
cp "$root/Pulumi.$stack.yaml" "$sb/project/Pulumi.$stack.yaml"
# The program is built once and run prebuilt (tools/prebuilt/prebuilt.sh), so a later
# `pulumi preview` or `up` of the sandbox's stack does not build it again either.
rm -f "$sb/prebuilt/host/used"
AKSML_BIN=$BIN GO=$GO bash "$root/tools/prebuilt/prebuilt.sh" "$sb/prebuilt" "$sb/project/Pulumi.yaml"
[ -s "$sb/passphrase" ] || head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$sb/passphrase"
export PULUMI_BACKEND_URL="file://$sb/state"
export PULUMI_CONFIG_PASSPHRASE_FILE="$sb/passphrase"
export PULUMI_SKIP_UPDATE_CHECK=true PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true
unset PULUMI_CONFIG_PASSPHRASE
pulumi -C "$sb/project" stack init "$stack" --non-interactive >/dev/null
up0=$(date +%s)
pulumi -C "$sb/project" up --stack "$stack" --yes --non-interactive --skip-preview --suppress-progress >"$sb/pulumi-up.log" 2>&1 || {
	tail -40 "$sb/pulumi-up.log" >&2
	say "pulumi up failed; full output in .sandbox/pulumi-up.log" >&2
	exit 1
}
grep -E '^Resources:|^ *\+ [0-9]+ created|^Duration' "$sb/pulumi-up.log" || true
[ -e "$sb/prebuilt/host/used" ] || { say "pulumi did not run the prebuilt program's language host ($sb/prebuilt/host)" >&2; exit 1; }
say "  pulumi up took $(($(date +%s) - up0))s"

say "5/5 example jobs and a live view"
"$sb/bin/demo"
say "done in $(elapsed). The sandbox keeps running: KUBECONFIG=.sandbox/kubeconfig; pulumi -C .sandbox/project (with PULUMI_BACKEND_URL=file://.sandbox/state and PULUMI_CONFIG_PASSPHRASE_FILE=.sandbox/passphrase) drives the stack. Stop with make demo-down."
