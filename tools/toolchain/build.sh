#!/usr/bin/env bash
# Makes pulumi, pulumi-language-go, pulumi-resource-kubernetes and
# pulumi-language-yaml available
# without the official installer or any plugin download, so the stacks can run
# on an air-gapped machine (only the Go module proxy, or a filled module cache,
# is needed). `make toolchain` calls this.
#
# When the first three are already on PATH (the provider may instead be
# installed in the Pulumi plugin cache as resource-kubernetes v4.32.0), they are
# used and not built; the YAML host is looked up on PATH the same way, on its own. Otherwise each one is built from source into $AKSML_BIN (default: bin/ at the
# repository root, git-ignored) and skipped on later runs while its stamp says
# the binary was built from the same pinned inputs.
#
# Environment:
#   AKSML_BIN                      output directory (default <repo>/bin)
#   AKSML_TOOLCHAIN_IGNORE_PATH=1  build into AKSML_BIN even when all three are found
#   GO                             go command (default: go)
#
# The first build is long: about 21 CPU-minutes, 19 minutes on 2 cores, for
# three large Go programs compiled one after the other to bound memory (the
# provider build peaks near 5 GB of RAM). It needs the Go module proxy or a
# module cache that already holds the wrapper modules' dependencies.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
GO=${GO:-go}
BIN=${AKSML_BIN:-$root/bin}

# Pinned versions. Changing one, or a wrapper module's go.mod/go.sum, triggers a
# rebuild of that binary.
PULUMI_VERSION=3.276.0         # CLI, from github.com/pulumi/pulumi/pkg/v3 (see pulumi/go.mod)
LANGUAGE_GO_VERSION=3.66.0     # Go language host, from github.com/pulumi/pulumi/sdk/v3 (see language-go/go.mod)
KUBERNETES_VERSION=4.32.0      # version the provider reports; matches pulumi-kubernetes/sdk/v4 in the main go.mod
KUBERNETES_MODULE=github.com/pulumi/pulumi-kubernetes/provider/v4
LANGUAGE_YAML_VERSION=1.25.0   # YAML language host, from github.com/pulumi/pulumi-yaml (see language-yaml/go.mod)

log() { printf '[toolchain] %s\n' "$*"; }

fmt_secs() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then sha256sum | cut -d' ' -f1; else shasum -a 256 | cut -d' ' -f1; fi
}

# cpu_now: set CPU to the CPU seconds (user + system) used so far by finished
# child processes. `times` must run in this shell, not in a pipe or $(...).
cpu_now() {
	times >"$BIN/.stamps/.times"
	CPU=$(awk 'NR == 2 {
		n = 0
		for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); n += a[1] * 60 + a[2] }
		printf "%d\n", n
	}' "$BIN/.stamps/.times")
}

# realdir DIR: DIR with symlinks resolved, or DIR itself if it does not exist.
realdir() { (cd "$1" 2>/dev/null && pwd -P) || printf '%s\n' "$1"; }

# --- 1. Everything already on PATH? -------------------------------------------
tools=(pulumi pulumi-language-go pulumi-resource-kubernetes)
if [ "${AKSML_TOOLCHAIN_IGNORE_PATH:-}" != 1 ]; then
	bin_real=$(realdir "$BIN")
	found=()
	# The official installer puts pulumi and the language hosts on PATH, and
	# `pulumi plugin install` puts the provider into the plugin cache: accept that too.
	plugin=${PULUMI_HOME:-$HOME/.pulumi}/plugins/resource-kubernetes-v$KUBERNETES_VERSION/pulumi-resource-kubernetes
	for t in "${tools[@]}"; do
		if p=$(command -v "$t" 2>/dev/null) &&
			# A copy in $BIN itself is managed below, not "from PATH".
			[ "$(realdir "$(dirname "$p")")" != "$bin_real" ]; then
			found+=("$p")
		elif [ "$t" = pulumi-resource-kubernetes ] && [ -x "$plugin" ]; then
			found+=("$plugin")
		else
			break
		fi
	done
	if [ "${#found[@]}" -eq "${#tools[@]}" ]; then
		log "all three found (PATH or Pulumi plugin cache); nothing to build:"
		for p in "${found[@]}"; do log "  $p"; done
		log "  pulumi version: $(pulumi version 2>/dev/null || echo unknown) (this repository pins v$PULUMI_VERSION)"
		log "set AKSML_TOOLCHAIN_IGNORE_PATH=1 to build the pinned versions into $BIN instead."
		core_found=1
	fi
	if p=$(command -v pulumi-language-yaml 2>/dev/null) && [ "$(realdir "$(dirname "$p")")" != "$bin_real" ]; then
		log "pulumi-language-yaml found: $p"
		[ -n "${core_found:-}" ] && exit 0
		yaml_found=1
	fi
fi

command -v "$GO" >/dev/null 2>&1 || { log "error: '$GO' not found; a Go toolchain is needed to build the Pulumi binaries"; exit 1; }
mkdir -p "$BIN/.stamps"

# Background jobs (the build and its heartbeat) die with the script.
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# run_with_heartbeat LABEL CMD...: run CMD, printing a line every minute so a
# long first build does not look stuck.
run_with_heartbeat() {
	local label=$1 start=$SECONDS rc=0
	shift
	"$@" &
	local cmd=$!
	pids+=("$cmd")
	(
		while sleep 60; do log "  ... still building $label ($(fmt_secs $((SECONDS - start))) so far)"; done
	) &
	local hb=$!
	pids+=("$hb")
	wait "$cmd" || rc=$?
	kill "$hb" 2>/dev/null || true
	wait "$hb" 2>/dev/null || true
	return "$rc"
}

# in_dir DIR CMD...: run CMD in DIR (called in the background, so in a subshell).
in_dir() {
	local dir=$1
	shift
	cd "$dir"
	"$@"
}

# build_tool NAME MODULE_DIR RECIPE ESTIMATE BUILD_FN: build $BIN/NAME by calling
# BUILD_FN OUTPUT inside MODULE_DIR, unless the binary exists and its stamp
# records the same inputs: the wrapper's go.mod and go.sum, RECIPE (which names
# the version) and the text of BUILD_FN and gobuild (so a changed flag rebuilds).
build_tool() {
	local name=$1 mod=$2 recipe=$3 estimate=$4 fn=$5
	local out=$BIN/$name stamp=$BIN/.stamps/$name
	local want
	want=$({
		cat "$mod/go.mod" "$mod/go.sum"
		printf '%s\n' "$recipe"
		declare -f gobuild "$fn"
	} | sha256)
	if [ -x "$out" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
		log "$name: up to date ($out)"
		return 0
	fi
	log "$name: building ($recipe); a cold build takes $estimate ..."
	local start=$SECONDS cpu
	cpu_now
	cpu=$CPU
	rm -f "$stamp" "$out.tmp"
	run_with_heartbeat "$name" in_dir "$mod" "$fn" "$out.tmp"
	mv -f "$out.tmp" "$out"
	printf '%s\n' "$want" >"$stamp"
	cpu_now
	log "$name: built $out in $(fmt_secs $((SECONDS - start))) ($(fmt_secs $((CPU - cpu))) CPU)"
}

gobuild() { "$GO" build -trimpath -buildvcs=false "$@"; }

build_pulumi() {
	gobuild -o "$1" \
		-ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$PULUMI_VERSION" \
		github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
}

build_language_go() {
	gobuild -o "$1" \
		-ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$LANGUAGE_GO_VERSION" \
		github.com/pulumi/pulumi/sdk/v3/go/pulumi-language-go
}

build_language_yaml() {
	gobuild -o "$1" \
		-ldflags "-s -w -X github.com/pulumi/pulumi-yaml/pkg/version.Version=v$LANGUAGE_YAML_VERSION" \
		github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml
}

# The provider's main package embeds schema-embed.json and
# terraform-mapping-embed.json, which upstream generates (go:generate) and which
# the module zip lacks. Assemble the package in scratch/ (git-ignored) from the
# module cache and generate them with the provider's own generate.go.
build_kubernetes() {
	local out=$1 src scratch=scratch
	"$GO" mod download "$KUBERNETES_MODULE"
	src=$("$GO" list -m -f '{{.Dir}}' "$KUBERNETES_MODULE")/cmd/pulumi-resource-kubernetes
	rm -rf "$scratch"
	mkdir -p "$scratch"
	sed '/^\/\/go:generate /{N;d;}' "$src/main.go" >"$scratch/main.go"
	cp "$src/generate.go" "$src/schema.json" "$src/terraform-mapping.json" "$scratch/"
	chmod u+w "$scratch"/*
	(
		cd "$scratch"
		VERSION=$KUBERNETES_VERSION "$GO" run -trimpath -buildvcs=false ./generate.go
	)
	gobuild -o "$out" \
		-ldflags "-s -w -X $KUBERNETES_MODULE/pkg/version.Version=$KUBERNETES_VERSION" \
		"./$scratch"
}

total=$SECONDS
log "output directory: $BIN"
if [ -z "${core_found:-}" ]; then
	build_tool pulumi "$here/pulumi" "pulumi v$PULUMI_VERSION" \
		"about 7 CPU-minutes" build_pulumi
	build_tool pulumi-language-go "$here/language-go" "pulumi-language-go v$LANGUAGE_GO_VERSION" \
		"about 1 CPU-minute" build_language_go
	build_tool pulumi-resource-kubernetes "$here/kubernetes" "pulumi-resource-kubernetes v$KUBERNETES_VERSION" \
		"about 14 CPU-minutes and up to 5 GB of RAM" build_kubernetes
fi
# The YAML language host runs the Pulumi YAML example (examples/yaml) in the
# e2e tier; it is looked up and built on its own.
if [ -z "${yaml_found:-}" ]; then
	build_tool pulumi-language-yaml "$here/language-yaml" "pulumi-language-yaml v$LANGUAGE_YAML_VERSION" \
		"about 3 CPU-minutes" build_language_yaml
fi
log "done in $(fmt_secs $((SECONDS - total))). To use them:"
log "  export PATH=\"$BIN:\$PATH\""
log "  export PULUMI_SKIP_UPDATE_CHECK=true PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true"
