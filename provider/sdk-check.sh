#!/usr/bin/env bash
# Generates the TypeScript and Python SDKs from provider/schema.json (with
# the code generators `pulumi package gen-sdk` runs, see cmd/gensdk) into
# .sdk/ (git-ignored) and checks they build:
#   - TypeScript: the SDK compiles with tsc against @pulumi/pulumi from npm,
#     and examples/typescript type-checks against it;
#   - Python: every generated module byte-compiles. Importing it needs the
#     pulumi Python SDK and grpcio>=1.68 from PyPI, which this environment
#     cannot reach (see README), so the import is run only when
#     `python3 -c "import pulumi"` already works.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
sdk="$root/.sdk"
GO="${GO:-go}"

step() { printf '==> %s\n' "$*"; }

cd "$here"
step "generate the SDKs from provider/schema.json"
"$GO" run ./cmd/gensdk -language nodejs -schema schema.json -out "$sdk/nodejs"
"$GO" run ./cmd/gensdk -language python -schema schema.json -out "$sdk/python"

step "TypeScript SDK: npm install and tsc"
cd "$sdk/nodejs"
npm install --no-audit --no-fund --loglevel=error
npx tsc
cp package.json bin/

step "examples/typescript type-checks against the generated SDK"
cd "$root/examples/typescript"
npm install --no-audit --no-fund --loglevel=error
npx tsc -p .

step "Python SDK: byte-compile every module"
python3 -m compileall -q "$sdk/python" >/dev/null
if python3 -c "import pulumi" 2>/dev/null; then
	step "Python SDK: import"
	PYTHONPATH="$sdk/python" python3 -c "import pulumi_aksml; print('pulumi_aksml', pulumi_aksml.queues.Queues)"
else
	step "Python SDK: import skipped (the pulumi Python SDK is not installed here)"
fi
step "SDKs OK"
