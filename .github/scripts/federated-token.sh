#!/usr/bin/env bash
# Keeps $AZURE_FEDERATED_TOKEN_FILE holding a fresh GitHub OIDC token
# (audience api://AzureADTokenExchange) for as long as the job runs, so the
# Azure SDK's workload identity credential (azidentity, which the Key Vault
# secrets provider and the azblob state backend use through
# DefaultAzureCredential; gocloud.dev secrets/azurekeyvault) never presents
# an expired assertion. An `az login --federated-token` session cannot do
# this: the CLI cannot ask for a new token once the first one expires,
# about 10 minutes in (Azure/azure-cli#28708).
#
# The token endpoint exists only in jobs granted `id-token: write`
# (ACTIONS_ID_TOKEN_REQUEST_URL/_TOKEN, "About security hardening with
# OpenID Connect", GitHub docs). Usage: federated-token.sh start
# The file is $AZURE_FEDERATED_TOKEN_FILE, default $RUNNER_TEMP/azure-federated-token,
# exported to later steps through $GITHUB_ENV.
set -euo pipefail

AZURE_FEDERATED_TOKEN_FILE=${AZURE_FEDERATED_TOKEN_FILE:-${RUNNER_TEMP:?}/azure-federated-token}
: "${ACTIONS_ID_TOKEN_REQUEST_URL:?the job needs permissions: id-token: write}"
: "${ACTIONS_ID_TOKEN_REQUEST_TOKEN:?the job needs permissions: id-token: write}"

# REFRESH_SECONDS: how often the file is rewritten; well inside the token's
# lifetime.
REFRESH_SECONDS=${REFRESH_SECONDS:-60}

fetch() {
	local tmp="$AZURE_FEDERATED_TOKEN_FILE.tmp"
	curl -fsS -H "Authorization: bearer $ACTIONS_ID_TOKEN_REQUEST_TOKEN" \
		"$ACTIONS_ID_TOKEN_REQUEST_URL&audience=api://AzureADTokenExchange" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["value"], end="")' >"$tmp"
	chmod 600 "$tmp"
	mv "$tmp" "$AZURE_FEDERATED_TOKEN_FILE"
}

case "${1:-}" in
start)
	fetch
	echo "AZURE_FEDERATED_TOKEN_FILE=$AZURE_FEDERATED_TOKEN_FILE" >>"${GITHUB_ENV:-/dev/null}"
	# The runner ends this loop with the job ("Cleaning up orphan processes").
	(while sleep "$REFRESH_SECONDS"; do fetch || echo "federated-token: refresh failed, retrying" >&2; done) >/dev/null 2>&1 &
	echo "federated-token: $AZURE_FEDERATED_TOKEN_FILE refreshed every ${REFRESH_SECONDS}s (pid $!)"
	;;
*)
	echo "usage: $0 start" >&2
	exit 2
	;;
esac
