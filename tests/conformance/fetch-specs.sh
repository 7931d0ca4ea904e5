#!/usr/bin/env bash
# fetch-specs.sh DIR — put the Azure REST API spec files the conformance tier
# reads (tests/conformance) into DIR, each from Azure/azure-rest-api-specs at
# the commit it was assembled from, and check each file's size. The list is
# the one in ../shared/azure-specs/SOURCES.md (path, commit, bytes); files
# already present with the right size are kept. Point the tier at DIR with
# AKSML_AZURE_SPECS=DIR. AKSML_SPECS_URL overrides the URL pattern ({commit}
# and {path} are replaced), e.g. file:///mirror/{path}.
set -euo pipefail
dir=${1:?usage: fetch-specs.sh DIR}
default_url='https://raw.githubusercontent.com/Azure/azure-rest-api-specs/{commit}/{path}'
url=${AKSML_SPECS_URL:-$default_url}
n=0
while read -r path commit bytes; do
  dest="$dir/$path"
  if [ -f "$dest" ] && [ "$(wc -c <"$dest")" -eq "$bytes" ]; then
    continue
  fi
  mkdir -p "$(dirname "$dest")"
  u=$(printf '%s' "$url" | sed -e "s|{commit}|$commit|g" -e "s|{path}|$path|g")
  curl -fsSL --retry 3 -o "$dest.tmp" "$u"
  got=$(wc -c <"$dest.tmp")
  if [ "$got" -ne "$bytes" ]; then
    echo "fetch-specs: $path at $commit is $got bytes, want $bytes" >&2
    exit 1
  fi
  mv "$dest.tmp" "$dest"
  n=$((n + 1))
done <<'LIST'
specification/containerservice/resource-manager/Microsoft.ContainerService/aks/preview/2026-02-02-preview/managedClusters.json 3f825d3a3f9f4e91feddd0f9ea21a713227c56c1 621892
specification/containerservice/resource-manager/Microsoft.ContainerService/aks/preview/2026-01-02-preview/managedClusters.json 05c1891c31193483396c3c1999dc7d40fe73d357 616692
specification/containerservice/resource-manager/Microsoft.ContainerService/aks/stable/2024-10-01/managedClusters.json 15f38e5b507c1875212fabd59839498f3a6e2015 303504
specification/alertsmanagement/resource-manager/Microsoft.AlertsManagement/PrometheusRuleGroups/stable/2023-03-01/PrometheusRuleGroups.json 07de5c4a7e99ce23b17f008f8209255d87640ab6 18240
specification/monitor/resource-manager/Microsoft.Insights/Insights/stable/2024-03-11/dataCollection.json 2675fd7230739936bd7818fb801572b5ccde3f94 132044
specification/monitor/resource-manager/Microsoft.Monitor/Accounts/stable/2023-04-03/monitoringAccounts_API.json 147b32333aa20a82493002fc381a4f36f92935ec 22967
specification/dashboard/resource-manager/Microsoft.Dashboard/Dashboard/stable/2025-08-01/grafana.json 4aee256d40872caaf8bafeb9f57b1a4175e859f1 111015
specification/resources/resource-manager/Microsoft.Resources/deploymentStacks/stable/2024-03-01/deploymentStacks.json 022e829d92d6a1d19e4601cc9dfe26c06e1dc6e7 71809
specification/common-types/resource-management/v3/types.json c5cfc1050b460025f64c49171470a16e8ae52ae3 22326
specification/common-types/resource-management/v3/privatelinks.json 05432ee0bc8a3feb5bc0f6fd21f49bb7aeaf13af 7547
specification/common-types/resource-management/v3/managedidentity.json 05432ee0bc8a3feb5bc0f6fd21f49bb7aeaf13af 5225
specification/common-types/resource-management/v4/managedidentitywithdelegation.json a647670a83ee16bd39ca9c20ed1113b889c5e461 1710
specification/common-types/resource-management/v4/managedidentity.json 05432ee0bc8a3feb5bc0f6fd21f49bb7aeaf13af 5228
specification/common-types/resource-management/v5/types.json e18652588ea9f6668aeaedb19918b58025398ab1 23221
specification/common-types/resource-management/v6/types.json 69117b31a3b1d2b0984b27eff0a8631431900ad5 22194
specification/common-types/resource-management/v6/managedidentity.json 05432ee0bc8a3feb5bc0f6fd21f49bb7aeaf13af 4718
specification/common-types/resource-management/v6/managedidentitywithdelegation.json 5580afb1b7297c3d19948b713b4e33d2a118e5a6 1711
LIST
echo "fetch-specs: $n file(s) fetched into $dir"
