#!/usr/bin/env bash
# Puts the Pulumi toolchain a preview or deploy job needs on PATH, pinned by
# version and verified by the Go checksum database (no third-party action,
# no unpinned download); the workflow installs kubelogin in its own step, so
# the workflow guardrails (policy/workflows) can see it:
#   - pulumi, pulumi-language-go, pulumi-resource-kubernetes, built by
#     `make toolchain` (tools/toolchain/build.sh, pinned versions there);
#   - the guardrail policy pack built as a binary analyzer in
#     $RUNNER_TEMP/policy-pack (the Go language host built by the toolchain
#     ignores a pack directory; see tests/e2e policyPackFor);
#   - the aksml program, built once for every preview and up of the job
#     (tools/prebuilt/prebuilt.sh, issue 32): this checkout's Pulumi.yaml is
#     rewritten to run $RUNNER_TEMP/aksml-prebuilt/aksml-program.
set -euo pipefail
cd "$(dirname "$0")/../.."

bin="${AKSML_BIN:-$PWD/bin}"
mkdir -p "$bin"
AKSML_BIN="$bin" make toolchain
pack="${RUNNER_TEMP:-/tmp}/policy-pack"
mkdir -p "$pack"
go build -o "$pack/aksml-policy" ./policy
cp policy/PulumiPolicy.yaml "$pack/"
echo "$bin" >>"${GITHUB_PATH:-/dev/null}"
AKSML_BIN="$bin" bash tools/prebuilt/prebuilt.sh "${RUNNER_TEMP:-/tmp}/aksml-prebuilt" Pulumi.yaml
