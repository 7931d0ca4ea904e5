package rules

import (
	"fmt"
	"strings"
)

// ARM types of the managed Prometheus wiring (Azure/prometheus-collector
// AddonArmTemplate/FullAzureMonitorMetricsProfile.json).
const (
	armDCRType       = "Microsoft.Insights/dataCollectionRules"
	armDCRAType      = "Microsoft.Insights/dataCollectionRuleAssociations"
	armDCRANested    = "Microsoft.ContainerService/managedClusters/providers/dataCollectionRuleAssociations"
	armRuleGroupType = "Microsoft.AlertsManagement/prometheusRuleGroups"
	armWorkspaceType = "Microsoft.Monitor/accounts"
	prometheusStream = "Microsoft-PrometheusMetrics"
)

// templateResources returns the resources of the ARM template a deployment
// stack or deployment carries, with parameter references resolved.
func templateResources(r Resource) []map[string]any {
	if module, kind := azureType(r); module != "resources" || !(strings.HasPrefix(kind, "DeploymentStack") || kind == "Deployment") {
		return nil
	}
	template, params := armTemplate(r)
	var out []map[string]any
	for _, res := range listOf(template["resources"]) {
		if m := mapOf(resolveARM(res, params)); m != nil {
			out = append(out, m)
		}
	}
	return out
}

// forwardsPrometheus reports whether a data collection rule forwards the
// Microsoft-PrometheusMetrics stream to an Azure Monitor workspace.
func forwardsPrometheus(dcr map[string]any) bool {
	props := mapOf(dcr["properties"])
	source := false
	for _, ds := range listOf(get(props, "dataSources.prometheusForwarder")) {
		if containsString(listOf(mapOf(ds)["streams"]), prometheusStream) {
			source = true
		}
	}
	destinations := map[string]bool{}
	for _, d := range listOf(get(props, "destinations.monitoringAccounts")) {
		if name := str(mapOf(d)["name"]); name != "" && str(mapOf(d)["accountResourceId"]) != "" {
			destinations[name] = true
		}
	}
	for _, f := range listOf(props["dataFlows"]) {
		fm := mapOf(f)
		if !containsString(listOf(fm["streams"]), prometheusStream) {
			continue
		}
		for _, d := range listOf(fm["destinations"]) {
			if destinations[str(d)] && source {
				return true
			}
		}
	}
	return false
}

func containsString(list []any, want string) bool {
	for _, v := range list {
		if strings.EqualFold(str(v), want) {
			return true
		}
	}
	return false
}

var ruleMonPrometheusWired = Rule{
	ID:       "AKSML-MON-001",
	Title:    "Clusters with managed Prometheus have a data collection rule to an Azure Monitor workspace and its association",
	Severity: Mandatory,
	Source:   "Azure/prometheus-collector AddonArmTemplate/FullAzureMonitorMetricsProfile.json (DCE, DCR with Microsoft-PrometheusMetrics to the workspace, DCRA on the cluster); without them the metrics add-on writes nowhere and every rule group stays silent; SPEC C1.6, C6.3",
	Stack: func(s *Stack) []Finding {
		var dcr, dcra bool
		for _, r := range s.Resources {
			for _, res := range templateResources(r) {
				switch typ := str(res["type"]); {
				case strings.EqualFold(typ, armDCRType) && forwardsPrometheus(res):
					dcr = true
				case strings.EqualFold(typ, armDCRAType), strings.EqualFold(typ, armDCRANested):
					dcra = true
				}
			}
		}
		var out []Finding
		for _, r := range s.Resources {
			if module, kind := azureType(r); module != "containerservice" || kind != "ManagedCluster" {
				continue
			}
			if enabled, _ := boolOf(get(r.Inputs, "azureMonitorProfile.metrics.enabled")); !enabled {
				continue
			}
			var missing []string
			if !dcr {
				missing = append(missing, "a data collection rule forwarding Microsoft-PrometheusMetrics to an Azure Monitor workspace")
			}
			if !dcra {
				missing = append(missing, "a data collection rule association on the cluster")
			}
			if len(missing) > 0 {
				out = append(out, Finding{URN: r.URN, Message: fmt.Sprintf("%s enables managed Prometheus (azureMonitorProfile.metrics) but the stack has no %s, so the metrics go nowhere; deploy them as Microsoft's onboarding template does (observability.NewAzureMonitor)", describe(r), strings.Join(missing, " and no "))})
			}
		}
		return out
	},
}

var ruleMonRuleGroupScope = Rule{
	ID:       "AKSML-MON-002",
	Title:    "Prometheus rule groups are scoped to an Azure Monitor workspace",
	Severity: Mandatory,
	Source:   "Microsoft.AlertsManagement/prometheusRuleGroups 2023-03-01: scopes name the Azure Monitor workspace the rules query (and optionally the cluster); SPEC C6.3",
	Resource: func(r Resource, _ *Stack) []string {
		var out []string
		for _, res := range templateResources(r) {
			if !strings.EqualFold(str(res["type"]), armRuleGroupType) {
				continue
			}
			scoped := false
			for _, sc := range listOf(get(mapOf(res["properties"]), "scopes")) {
				if strings.Contains(strings.ToLower(str(sc)), strings.ToLower(armWorkspaceType)) {
					scoped = true
				}
			}
			if !scoped {
				out = append(out, fmt.Sprintf("rule group %s (in %s) has no Azure Monitor workspace (%s) in its scopes, so its rules query nothing; add the workspace's resource ID to properties.scopes", str(res["name"]), describe(r), armWorkspaceType))
			}
		}
		return out
	},
}
