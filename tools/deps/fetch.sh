#!/usr/bin/env bash
# fetch.sh (`make deps`) — provide the third-party files the tests and the demo read but the
# repository does not carry (nothing fetched from a public repository is committed):
#
#   azure-specs/  published Azure REST API specs (Azure/azure-rest-api-specs, MIT License), read
#                 by the conformance tier (tests/conformance) and the spec checks of the
#                 components' unit tests.
#   crds/         CustomResourceDefinitions that no Go module of the build ships (Azure Monitor
#                 PodMonitor/ServiceMonitor, Volcano, KAITO, PrometheusRule), installed by the
#                 cluster tier, the sandbox and `make demo`, and read by the KAITO unit test.
#
# Each set is taken from the first place that has it:
#   1. a copy named by the environment: AKSML_AZURE_SPECS (the folder holding specification/),
#      AKSML_SHARED_DIR (a folder holding azure-specs/ and crds/);
#   2. a `shared/` folder beside the clone or above it (../shared/azure-specs, ../shared/crds);
#   3. the cache outside the clone, $AKSML_CACHE_DIR/shared (default
#      ${XDG_CACHE_HOME:-~/.cache}/aksml/shared), filled here from the pinned upstream files.
# Every file is pinned (upstream commit, or a Go module version whose zip the Go checksum
# database vouches for) and its sha256 checked, in a copy as in the cache. The licence of each
# file is in the lists below and in SOURCES.txt next to the fetched files.
#
# Mirrors: AKSML_SPECS_URL and AKSML_CRDS_URL replace the URL pattern of raw GitHub files
# ({repo}, {commit} and {path} are substituted; e.g. http://127.0.0.1:8000/{repo}/{commit}/{path}
# or file:///mirror/{repo}/{commit}/{path}); GOPROXY stands in for the Go module proxy.
#
# Usage: tools/deps/fetch.sh [specs|crds|all|list] (default all; list prints the pinned files:
# name, repository or "go", commit or module@version, path, sha256, licence). Without network
# and without a copy it stops at the first file it cannot get, with one message that says how
# to provide them.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cache=${AKSML_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/aksml}/shared
github='https://raw.githubusercontent.com/{repo}/{commit}/{path}'
what=${1:-all}

say() { printf 'deps: %s\n' "$*" >&2; }

how_to_provide() {
	cat >&2 <<EOF
deps: provide the files one of these ways, then run make deps again:
  - network access to raw.githubusercontent.com and the Go module proxy;
  - a mirror laid out like upstream: AKSML_SPECS_URL / AKSML_CRDS_URL (URL patterns with
    {repo}, {commit}, {path}) and GOPROXY for the Go module;
  - a copy: AKSML_SHARED_DIR=<folder holding azure-specs/ and crds/>, or AKSML_AZURE_SPECS=<folder
    holding specification/>, or a shared/ folder beside the clone (the layout of $cache).
  The pinned files (commit, path, sha256, licence) are listed in tools/deps/fetch.sh.
EOF
	exit 1
}

# shared_above prints <dir>/shared/$1 for the nearest ancestor of the repository that has it.
shared_above() {
	local dir
	dir=$(dirname "$root")
	while :; do
		if [ -d "$dir/shared/$1" ]; then
			printf '%s\n' "$dir/shared/$1"
			return 0
		fi
		[ "$dir" = / ] && return 1
		dir=$(dirname "$dir")
	done
}

sha256() { sha256sum "$1" 2>/dev/null | cut -d' ' -f1 || shasum -a 256 "$1" | cut -d' ' -f1; }

# check_copy DIR LIST-FUNCTION: every listed file is in DIR with its sha256.
check_copy() {
	local dir=$1 list=$2 bad=0 dest sum
	while read -r dest _ _ _ sum _; do
		if [ ! -f "$dir/$dest" ]; then
			say "$dir/$dest is missing"
			bad=1
		elif [ "$(sha256 "$dir/$dest")" != "$sum" ]; then
			say "$dir/$dest has sha256 $(sha256 "$dir/$dest"), want $sum (the pinned file)"
			bad=1
		fi
	done < <("$list")
	return $bad
}

# fetch_into DIR LIST-FUNCTION URL-PATTERN: every listed file not yet in DIR with its sha256 is
# downloaded (source github) or copied out of its Go module (source go) and checked.
fetch_into() {
	local dir=$1 list=$2 pattern=$3 dest src ref path sum licence url origin tmp n=0 moddir
	mkdir -p "$dir"
	# SOURCES.txt marks a complete set (internal/thirdparty looks for it): written last.
	rm -f "$dir/SOURCES.txt"
	: >"$dir/SOURCES.txt.tmp"
	while read -r dest src ref path sum licence; do
		tmp="$dir/$dest.tmp"
		mkdir -p "$(dirname "$dir/$dest")"
		case $src in
		go)
			url="Go module $ref, $path"
			origin=$url
			if [ ! -f "$dir/$dest" ] || [ "$(sha256 "$dir/$dest")" != "$sum" ]; then
				if ! moddir=$(cd "${TMPDIR:-/tmp}" && GOWORK=off GOFLAGS= go mod download -json "$ref" | grep '"Dir":' | sed 's/.*"Dir": "\(.*\)",*$/\1/') || [ -z "$moddir" ]; then
					say "cannot download the Go module $ref (GOPROXY=$(go env GOPROXY))"
					how_to_provide
				fi
				cp "$moddir/$path" "$tmp"
				chmod u+w "$tmp"
			fi
			;;
		*)
			url=$(printf '%s' "$pattern" | sed -e "s|{repo}|$src|g" -e "s|{commit}|$ref|g" -e "s|{path}|$path|g")
			origin="https://github.com/$src/blob/$ref/$path"
			if [ ! -f "$dir/$dest" ] || [ "$(sha256 "$dir/$dest")" != "$sum" ]; then
				if ! curl -fsSL --connect-timeout 10 --retry 2 -o "$tmp" "$url"; then
					rm -f "$tmp"
					say "cannot fetch $url"
					how_to_provide
				fi
			fi
			;;
		esac
		if [ -f "$tmp" ]; then
			if [ "$(sha256 "$tmp")" != "$sum" ]; then
				say "$url has sha256 $(sha256 "$tmp"), want $sum: not the pinned file (a mirror serving another revision?)"
				rm -f "$tmp"
				exit 1
			fi
			mv "$tmp" "$dir/$dest"
			n=$((n + 1))
		fi
		printf '%s\t%s\tsha256:%s\t%s\n' "$dest" "$origin" "$sum" "$licence" >>"$dir/SOURCES.txt.tmp"
	done < <("$list")
	mv "$dir/SOURCES.txt.tmp" "$dir/SOURCES.txt"
	say "$n file(s) fetched into $dir ($(wc -l <"$dir/SOURCES.txt") pinned, origins and licences in $dir/SOURCES.txt)"
}

# provide NAME ENV-COPY LIST-FUNCTION URL-PATTERN
provide() {
	local name=$1 copy=$2 list=$3 pattern=$4
	if [ -z "$copy" ]; then
		copy=$(shared_above "$name") || copy=""
	fi
	if [ -n "$copy" ]; then
		if ! check_copy "$copy" "$list"; then
			say "the copy in $copy is not the pinned set"
			how_to_provide
		fi
		say "$name: the copy in $copy ($(wc -l < <("$list")) files, sha256 checked)"
		return
	fi
	fetch_into "$cache/$name" "$list" "$pattern"
}

# The Azure REST API specs at the commits they were assembled from, kept at their
# repository-relative paths so every relative $ref resolves. Columns: file, repository, commit,
# path, sha256, licence.
specs() {
	local lic='MIT License, Microsoft Corporation (https://github.com/Azure/azure-rest-api-specs/blob/main/LICENSE)'
	while read -r path commit sum; do
		printf '%s Azure/azure-rest-api-specs %s %s %s %s\n' "$path" "$commit" "$path" "$sum" "$lic"
	done <<'LIST'
specification/containerservice/resource-manager/Microsoft.ContainerService/aks/preview/2026-02-02-preview/managedClusters.json 3f825d3a3f9f4e91feddd0f9ea21a713227c56c1 42dacb5ff2ca117205f5d6b5ecc65acd2c931a0be55d02f84055279f1019d51e
specification/containerservice/resource-manager/Microsoft.ContainerService/aks/preview/2026-01-02-preview/managedClusters.json 05c1891c31193483396c3c1999dc7d40fe73d357 53cfb37f8d3f017aadbe9ffecc537427f0147badf7f9cc4be03ce219b057fab1
specification/containerservice/resource-manager/Microsoft.ContainerService/aks/stable/2024-10-01/managedClusters.json 15f38e5b507c1875212fabd59839498f3a6e2015 ba67abd3d7d804e580a49b65a0750245e1b90b84e8e0534dd423d0212a99e694
specification/alertsmanagement/resource-manager/Microsoft.AlertsManagement/PrometheusRuleGroups/stable/2023-03-01/PrometheusRuleGroups.json 07de5c4a7e99ce23b17f008f8209255d87640ab6 94ce1c0385910e8a80763bb3e197d8c1c63ca5effe26edc317645ee04f78abac
specification/monitor/resource-manager/Microsoft.Insights/Insights/stable/2024-03-11/dataCollection.json 2675fd7230739936bd7818fb801572b5ccde3f94 d865501b1b2d8226937282938f93c7107def695318cdd5c18dc553305123a5a6
specification/monitor/resource-manager/Microsoft.Monitor/Accounts/stable/2023-04-03/monitoringAccounts_API.json 147b32333aa20a82493002fc381a4f36f92935ec aaa270d69dd918d7eab5e3a365c4a4c65c8db6a7a6b09f53132205a6f96c72b2
specification/dashboard/resource-manager/Microsoft.Dashboard/Dashboard/stable/2025-08-01/grafana.json 4aee256d40872caaf8bafeb9f57b1a4175e859f1 cae55a9a4dc6c86cc7b056982ee7516f744209c7b379597f553563e08fb2b0c8
specification/resources/resource-manager/Microsoft.Resources/deploymentStacks/stable/2024-03-01/deploymentStacks.json 022e829d92d6a1d19e4601cc9dfe26c06e1dc6e7 127e3845e57e35942200f41d275e421c49555e77ea13bf9c361c307d9ab80f8f
specification/common-types/resource-management/v3/types.json c5cfc1050b460025f64c49171470a16e8ae52ae3 49a69595e22c4711ac7329eabf7c741c297bdda5e98c4bbe2134faf1c4dba043
specification/common-types/resource-management/v3/privatelinks.json 05432ee0bc8a3feb5bc0f6fd21f49bb7aeaf13af 6c6a5c2d837298e42371bc201f5f07c4719b5c7d32044ced5425eacf461b5780
specification/common-types/resource-management/v3/managedidentity.json 05432ee0bc8a3feb5bc0f6fd21f49bb7aeaf13af 1598a52813a3a46085abaa105710d72c0f839e2630905c93f0ecc0a4441905c4
specification/common-types/resource-management/v4/managedidentitywithdelegation.json a647670a83ee16bd39ca9c20ed1113b889c5e461 f4af3d69cd720c8e6ba7fba5f14e88562a0113771ba961c99ce12ed1969bd37a
specification/common-types/resource-management/v4/managedidentity.json 05432ee0bc8a3feb5bc0f6fd21f49bb7aeaf13af 1a783687daf97f421a4235374b650e3eb5fb9da4540b5e3e9476f06dfc082303
specification/common-types/resource-management/v5/types.json e18652588ea9f6668aeaedb19918b58025398ab1 dd3469840cfb8c27805659524cf516633ad5fa95a474286f6b99164453915101
specification/common-types/resource-management/v6/types.json 69117b31a3b1d2b0984b27eff0a8631431900ad5 e92dd93350194b599af6dc0fbd16c3e764495cc5bd767fe84fbaacb0d60e4ec5
specification/common-types/resource-management/v6/managedidentity.json 05432ee0bc8a3feb5bc0f6fd21f49bb7aeaf13af e66ea86b86b73654c76dc7c0d9a50e4b92ecdaddf576f9a4650f4f4b872ab655
specification/common-types/resource-management/v6/managedidentitywithdelegation.json 5580afb1b7297c3d19948b713b4e33d2a118e5a6 630b5c4ceb09484f5900a61ad19d87bcc063f65b80f2b293a58b8beebe525b0f
LIST
}

# The CRDs no Go module of the build ships, as named in crds/ (the Azure Monitor ones are
# renamed from the chart's template files, which hold no template directives). Columns: file,
# repository (or "go" for a file inside a Go module version), commit (or module@version), path,
# sha256, licence. The PrometheusRule CRD is the same blob in prometheus-operator v0.93.0 (its
# operator.prometheus.io/version annotation), which the Go module proxy serves; the others are
# in no module the proxy serves, so they come from their repositories at a fixed commit.
crds() {
	cat <<'LIST'
azmonitoring.coreos.com_podmonitors.yaml Azure/prometheus-collector 39583fd50b2f828f83cc18fc0cece9e3074f56db otelcollector/deploy/addon-chart/azure-monitor-metrics-addon/templates/ama-metrics-podmonitor-crd.yaml 6a7a1a539227e7b69cffb4c4ba58302d4a6292dbb2b6f60e387a8c7a6b322d7b MIT License, Microsoft Corporation
azmonitoring.coreos.com_servicemonitors.yaml Azure/prometheus-collector 39583fd50b2f828f83cc18fc0cece9e3074f56db otelcollector/deploy/addon-chart/azure-monitor-metrics-addon/templates/ama-metrics-servicemonitor-crd.yaml 74dccec78a5b2d5d9811632650cbfa3cdb01d301cda0569a5a04709bc1cd1df3 MIT License, Microsoft Corporation
batch.volcano.sh_jobs.yaml volcano-sh/volcano ed72c7c815a9fd547a787134676f73d42e9d049c installer/helm/chart/volcano/crd/bases/batch.volcano.sh_jobs.yaml 789680b2c6197fc99057dd46a1a6e266f371279305f64d5e88df1ffd94393361 Apache License 2.0
scheduling.volcano.sh_queues.yaml volcano-sh/volcano ed72c7c815a9fd547a787134676f73d42e9d049c installer/helm/chart/volcano/crd/bases/scheduling.volcano.sh_queues.yaml 6cc9f8815486d4f78081d697456941d5699ab692b27bbdbdcdeba03a69b40407 Apache License 2.0
scheduling.volcano.sh_podgroups.yaml volcano-sh/volcano ed72c7c815a9fd547a787134676f73d42e9d049c installer/helm/chart/volcano/crd/bases/scheduling.volcano.sh_podgroups.yaml b8267a9d95be622fbd6200cad6cbaa7b4e68ea6394c486f2675e5473ae9b55f9 Apache License 2.0
kaito.sh_workspaces.yaml kaito-project/kaito 056b8280b1a8debf644bc6f4399e913a1f9c7e70 config/crd/bases/kaito.sh_workspaces.yaml 20e24ffe9ef60eba6d31ef7cd4e7402769824a2ad78e26f61c21e5aba186ec64 Apache License 2.0
monitoring.coreos.com_prometheusrules.yaml go github.com/prometheus-operator/prometheus-operator@v0.93.0 example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml 78be98554b9c8506ab2b4f4feb91c5f3a56e536a0a510f3a8e876a459970d56d Apache License 2.0
LIST
}

case $what in
specs | crds | all) ;;
list)
	specs
	crds
	exit 0
	;;
*)
	say "usage: tools/deps/fetch.sh [specs|crds|all|list]"
	exit 2
	;;
esac
if [ "$what" != crds ]; then
	provide azure-specs "${AKSML_AZURE_SPECS:-${AKSML_SHARED_DIR:+$AKSML_SHARED_DIR/azure-specs}}" specs "${AKSML_SPECS_URL:-$github}"
fi
if [ "$what" != specs ]; then
	provide crds "${AKSML_SHARED_DIR:+$AKSML_SHARED_DIR/crds}" crds "${AKSML_CRDS_URL:-$github}"
fi
