#!/usr/bin/env bash
# prebuilt.sh: build the aksml program once and make a Pulumi project run it prebuilt
# for every operation that follows (preview, up, refresh, destroy), instead of the Go
# language host running `go build` before each one (issue 32). The demo, the deploy
# and drift workflows and the PR workflow use it; README "Build the program once" says how to do the
# same by hand.
#
#   prebuilt.sh OUT_DIR [PULUMI_YAML]
#
# - builds the program at the repository root into OUT_DIR/aksml-program;
# - writes OUT_DIR/host/pulumi-language-go, a wrapper that runs the Go language host
#   the CLI would run ($AKSML_BIN/pulumi-language-go, else the one on PATH) with
#   `-binary OUT_DIR/aksml-program`;
# - with PULUMI_YAML, rewrites that project file's `runtime: go` line to
#     runtime: {name: go, options: {binary: OUT_DIR/aksml-program}}
#     plugins: {languages: [{name: go, path: OUT_DIR/host}]}
#   Run it on a copy or a disposable checkout: the file changes.
#
# Why both: a current language host (the one the official CLI bundles) reads
# runtime.options.binary and ignores -binary, which it still accepts as obsolete
# (sdk/go/pulumi-language-go/main.go, parseRunParams); the host `make toolchain`
# builds (sdk v3.66.0, the last release the Go module proxy serves with the host in
# it) reads only -binary, and CLI v3.276 passes runtime.options in a request field
# that host does not know, so without the wrapper it builds the program again.
#
# Environment: GO (default go), AKSML_BIN (the toolchain directory, default bin/).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
GO=${GO:-go}

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 OUT_DIR [PULUMI_YAML]" >&2
	exit 2
fi
mkdir -p "$1/host"
out=$(cd "$1" && pwd)
program=$out/aksml-program

host=""
bin=${AKSML_BIN:-$root/bin}
case $bin in /*) ;; *) bin=$root/$bin ;; esac
if [ -x "$bin/pulumi-language-go" ]; then
	host=$bin/pulumi-language-go
else
	host=$(command -v pulumi-language-go || true)
fi
if [ -z "$host" ] || [ "$host" = "$out/host/pulumi-language-go" ]; then
	echo "prebuilt.sh: no pulumi-language-go in $bin or on PATH (install the Pulumi CLI, or run make toolchain)" >&2
	exit 1
fi

if [ $# -eq 2 ] && { [ "$(grep -c '^runtime: go[[:space:]]*$' "$2")" != 1 ] || grep -q '^plugins:' "$2"; }; then
	echo "prebuilt.sh: $2 must have one 'runtime: go' line and no plugins section" >&2
	exit 1
fi

start=$(date +%s)
# -s -w: no symbol table and no DWARF in the binary, which only a debugger reads (a
# panic's stack trace comes from the function table, which stays). The link does less.
(cd "$root" && "$GO" build -ldflags="-s -w" -o "$program" .)
echo "prebuilt.sh: built the program in $(($(date +%s) - start))s: $program"

# The wrapper leaves a mark (OUT_DIR/host/used) so a caller can check the CLI ran it.
cat >"$out/host/pulumi-language-go" <<EOF
#!/bin/sh
touch '$out/host/used'
exec '$host' -binary '$program' "\$@"
EOF
chmod +x "$out/host/pulumi-language-go"

if [ $# -eq 2 ]; then
	file=$2
	tmp=$file.prebuilt.$$
	awk -v program="$program" -v host="$out/host" '
		/^runtime: go[[:space:]]*$/ {
			print "runtime:"
			print "  name: go"
			print "  options:"
			print "    binary: " program
			next
		}
		{ print }
		END {
			print "plugins:"
			print "  languages:"
			print "    - name: go"
			print "      path: " host
		}' "$file" >"$tmp"
	mv "$tmp" "$file"
	echo "prebuilt.sh: $file runs the prebuilt program"
fi
