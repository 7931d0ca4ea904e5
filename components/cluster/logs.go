package cluster

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	containerservice "github.com/pulumi/pulumi-azure-native-sdk/containerservice/v2/v20241001"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/armdeploy"
	"github.com/aksml/aksml/components/field"
)

// ARM types and API versions of the cluster's logs (see the package doc for
// the sources each body is checked against).
const (
	// LogAnalyticsResourceType is the Log Analytics workspace, API
	// 2022-10-01 (azure-rest-api-specs
	// specification/operationalinsights/resource-manager/Microsoft.OperationalInsights/stable/2022-10-01/Workspaces.json).
	LogAnalyticsResourceType   = "Microsoft.OperationalInsights/workspaces"
	LogAnalyticsAPIVersion     = "2022-10-01"
	LogAnalyticsSKU            = "PerGB2018"
	ContainerInsightsDCRType   = "Microsoft.Insights/dataCollectionRules"
	ContainerInsightsDCRAType  = "Microsoft.ContainerService/managedClusters/providers/dataCollectionRuleAssociations"
	DataCollectionAPIVersion   = "2024-03-11"
	DiagnosticSettingsType     = "Microsoft.ContainerService/managedClusters/providers/diagnosticSettings"
	DiagnosticSettingsAPI      = "2021-05-01-preview"
	OMSAgentAddon              = "omsagent"
	ContainerInsightsStream    = "Microsoft-ContainerInsights-Group-Default"
	ContainerInsightsExtension = "ContainerInsights"
	// ContainerInsightsAssociation is the association name Microsoft's
	// managed-identity onboarding template uses.
	ContainerInsightsAssociation = "ContainerInsightsExtension"
	// DiagnosticSettingName is the name of aksml's diagnostic setting on
	// the cluster.
	DiagnosticSettingName = "aksml-audit"
	// MaxDCRNameLength is the length the MSCI-<region>-<cluster> rule name
	// is cut to, as Microsoft's onboarding template does.
	MaxDCRNameLength = 64
)

// Defaults of LogsSpec.
const (
	// DefaultRetentionInDays is the workspace retention aksml sets on a
	// workspace it creates (30 days are included in the PerGB2018 price).
	DefaultRetentionInDays = 30
	// DefaultLogAnalyticsPrefix starts a created workspace's name:
	// law-<cluster>.
	DefaultLogAnalyticsPrefix = "law-"
)

// DefaultAuditCategories are the control-plane log categories sent to the
// workspace: kube-audit-admin (audit events without get and list, which
// "Monitor Azure Kubernetes Service (AKS)",
// https://learn.microsoft.com/azure/aks/monitor-aks, recommends over
// kube-audit for cost) and guard (Entra ID and Azure RBAC audits).
var DefaultAuditCategories = []string{"kube-audit-admin", "guard"}

// AuditCategories are the AKS resource log categories that
// auditCategories may name ("Monitor AKS", resource logs).
var AuditCategories = []string{"kube-audit", "kube-audit-admin", "guard", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "cluster-autoscaler", "cloud-controller-manager", "csi-azuredisk-controller", "csi-azurefile-controller", "csi-snapshot-controller"}

var lawNameRE = regexp.MustCompile(`^[A-Za-z0-9][-A-Za-z0-9]{2,61}[A-Za-z0-9]$`)

// LogsSpec is `aksml:cluster.logs`: Container Insights and the control
// plane's audit logs, both to one Log Analytics workspace, created or
// brought.
type LogsSpec struct {
	// ContainerInsights enables Container Insights (addon omsagent with
	// managed-identity auth, its data collection rule and association).
	// Default true.
	ContainerInsights *bool `json:"containerInsights,omitempty" pulumi:"containerInsights,optional"`
	// AuditLogs sends AuditCategories to the workspace with a diagnostic
	// setting on the cluster. Default true.
	AuditLogs *bool `json:"auditLogs,omitempty" pulumi:"auditLogs,optional"`
	// AuditCategories are the control-plane log categories. Default
	// kube-audit-admin and guard; valid: AuditCategories.
	AuditCategories []string `json:"auditCategories,omitempty" pulumi:"auditCategories,optional"`
	// LogAnalyticsWorkspaceID is an existing workspace:
	// /subscriptions/<guid>/resourceGroups/<rg>/providers/Microsoft.OperationalInsights/workspaces/<name>.
	// Default none: aksml creates LogAnalyticsWorkspaceName.
	LogAnalyticsWorkspaceID string `json:"logAnalyticsWorkspaceId,omitempty" pulumi:"logAnalyticsWorkspaceId,optional"`
	// LogAnalyticsWorkspaceLocation is the region of the existing
	// workspace LogAnalyticsWorkspaceID: the Container Insights data
	// collection rule is created there, as Microsoft's onboarding template
	// does (parameter workspaceRegion, "Workspace Region for data collection
	// rule"). Default: the cluster's region, where a created workspace is.
	// Only with LogAnalyticsWorkspaceID.
	LogAnalyticsWorkspaceLocation string `json:"logAnalyticsWorkspaceLocation,omitempty" pulumi:"logAnalyticsWorkspaceLocation,optional"`
	// LogAnalyticsWorkspaceName is the workspace aksml creates in the
	// cluster's resource group and region: 4-63 letters, digits or '-',
	// starting and ending with a letter or digit. Default law-<cluster>.
	LogAnalyticsWorkspaceName string `json:"logAnalyticsWorkspaceName,omitempty" pulumi:"logAnalyticsWorkspaceName,optional"`
	// RetentionInDays is the created workspace's retention, 30-730.
	// Default 30.
	RetentionInDays int `json:"retentionInDays,omitempty" pulumi:"retentionInDays,optional"`
}

// Default fills unset fields; clusterName names the created workspace.
func (l *LogsSpec) Default(clusterName string) {
	if l.ContainerInsights == nil {
		v := true
		l.ContainerInsights = &v
	}
	if l.AuditLogs == nil {
		v := true
		l.AuditLogs = &v
	}
	if len(l.AuditCategories) == 0 {
		l.AuditCategories = slices.Clone(DefaultAuditCategories)
	}
	if l.LogAnalyticsWorkspaceID == "" && l.LogAnalyticsWorkspaceName == "" {
		// A workspace name takes letters, digits and '-' (4-63), a cluster
		// name also '_': the default replaces it, as defaultDNSPrefix does,
		// so that a valid cluster name never derives an invalid workspace
		// name ("Naming rules and restrictions for Azure resources",
		// Microsoft.OperationalInsights/workspaces,
		// https://learn.microsoft.com/azure/azure-resource-manager/management/resource-name-rules).
		n := DefaultLogAnalyticsPrefix + strings.ReplaceAll(clusterName, "_", "-")
		if len(n) > 63 {
			n = n[:63]
		}
		l.LogAnalyticsWorkspaceName = strings.TrimRight(n, "-")
	}
	if l.RetentionInDays == 0 {
		l.RetentionInDays = DefaultRetentionInDays
	}
}

// DCRLocation returns the region of the Container Insights data collection
// rule: the workspace's (LogAnalyticsWorkspaceLocation), else
// clusterLocation.
func (l LogsSpec) DCRLocation(clusterLocation string) string {
	if l.LogAnalyticsWorkspaceLocation != "" {
		return l.LogAnalyticsWorkspaceLocation
	}
	return clusterLocation
}

// Wanted reports whether any log goes to the workspace.
func (l LogsSpec) Wanted() bool { return l.insights() || l.audit() }

func (l LogsSpec) insights() bool { return l.ContainerInsights == nil || *l.ContainerInsights }
func (l LogsSpec) audit() bool    { return l.AuditLogs == nil || *l.AuditLogs }

// CreatesWorkspace reports whether aksml creates the workspace.
func (l LogsSpec) CreatesWorkspace() bool { return l.Wanted() && l.LogAnalyticsWorkspaceID == "" }

// Validate checks a defaulted LogsSpec below path.
func (l LogsSpec) Validate(path field.Path) field.ErrorList {
	var errs field.ErrorList
	if id := l.LogAnalyticsWorkspaceID; id != "" && !workspaceRE.MatchString(id) {
		errs = append(errs, field.Invalid(path.Child("logAnalyticsWorkspaceId"), "%q is not a Log Analytics workspace resource ID; use /subscriptions/<subscription-guid>/resourceGroups/<rg>/providers/Microsoft.OperationalInsights/workspaces/<name>", id))
	}
	if l.LogAnalyticsWorkspaceLocation != "" && l.LogAnalyticsWorkspaceID == "" {
		errs = append(errs, field.Forbidden(path.Child("logAnalyticsWorkspaceLocation"), "is the region of an existing workspace, but logAnalyticsWorkspaceId is unset (a created workspace is in the cluster's region); remove it"))
	}
	if n := l.LogAnalyticsWorkspaceName; n != "" {
		switch {
		case l.LogAnalyticsWorkspaceID != "":
			errs = append(errs, field.Forbidden(path.Child("logAnalyticsWorkspaceName"), "names a workspace to create, but logAnalyticsWorkspaceId already names an existing one; set only one"))
		case !lawNameRE.MatchString(n):
			errs = append(errs, field.Invalid(path.Child("logAnalyticsWorkspaceName"), "%q is not a Log Analytics workspace name: use 4-63 letters, digits or '-', starting and ending with a letter or digit", n))
		}
	}
	if l.RetentionInDays < 30 || l.RetentionInDays > 730 {
		errs = append(errs, field.Invalid(path.Child("retentionInDays"), "%d is out of range; use 30 to 730 days", l.RetentionInDays))
	}
	errs = append(errs, field.Unique(path.Child("auditCategories"), l.AuditCategories, "%s", field.OneOf(AuditCategories))...)
	return errs
}

// SetContainerInsights turns on the omsagent add-on with managed-identity
// authentication (useAADAuth "true") writing to workspaceID, as
// Microsoft's managed-identity onboarding template does
// (microsoft/Docker-Provider
// scripts/onboarding/aks/onboarding-using-msi-auth/existingClusterOnboarding.json).
func SetContainerInsights(a *containerservice.ManagedClusterArgs, workspaceID pulumi.StringInput) {
	addons, _ := a.AddonProfiles.(containerservice.ManagedClusterAddonProfileMap)
	if addons == nil {
		addons = containerservice.ManagedClusterAddonProfileMap{}
	}
	addons[OMSAgentAddon] = containerservice.ManagedClusterAddonProfileArgs{
		Enabled: pulumi.Bool(true),
		Config: pulumi.StringMap{
			"logAnalyticsWorkspaceResourceID": workspaceID,
			"useAADAuth":                      pulumi.String("true"),
		},
	}
	a.AddonProfiles = addons
}

// Template parameters and outputs of the log templates.
const (
	logParamWorkspaceName = "workspaceName"
	logParamLocation      = "location"
	logParamDCRLocation   = "workspaceLocation"
	logParamRetention     = "retentionInDays"
	logParamClusterName   = "clusterName"
	logParamWorkspaceID   = "workspaceId"
	logOutWorkspaceID     = "workspaceId"
	msciNameExpr          = "take(format('MSCI-{0}-{1}', parameters('location'), parameters('clusterName')), 64)"
)

// WorkspaceTemplate is the ARM template of the Log Analytics workspace
// aksml creates (SKU PerGB2018, RetentionInDays), or an empty template when
// create is false (so a workspace aksml created is deleted when it is no
// longer wanted, see components/armdeploy).
func WorkspaceTemplate(create bool, tags map[string]string) map[string]any {
	if !create {
		return armdeploy.Template(nil, nil)
	}
	ws := map[string]any{
		"type":       LogAnalyticsResourceType,
		"apiVersion": LogAnalyticsAPIVersion,
		"name":       fmt.Sprintf("[parameters('%s')]", logParamWorkspaceName),
		"location":   fmt.Sprintf("[parameters('%s')]", logParamLocation),
		"properties": map[string]any{
			"sku":             map[string]any{"name": LogAnalyticsSKU},
			"retentionInDays": fmt.Sprintf("[parameters('%s')]", logParamRetention),
		},
	}
	if len(tags) > 0 {
		ws["tags"] = tags
	}
	id := fmt.Sprintf("[resourceId('%s', parameters('%s'))]", LogAnalyticsResourceType, logParamWorkspaceName)
	return armdeploy.Template([]map[string]any{ws}, map[string]any{logOutWorkspaceID: armdeploy.Output("string", id)})
}

// InsightsTemplate is the ARM template of what needs the cluster to exist:
// with insights, the Container Insights data collection rule
// MSCI-<location>-<cluster> in the workspace's region (parameter
// workspaceLocation, LogsSpec.DCRLocation; cut to 64 characters; ContainerInsights
// extension data source, stream Microsoft-ContainerInsights-Group-Default,
// to the workspace) and its association ContainerInsightsExtension on the
// cluster; with audit, the diagnostic setting aksml-audit on the cluster
// sending categories to the workspace in resource-specific tables
// (logAnalyticsDestinationType Dedicated). Empty when neither.
func InsightsTemplate(insights, audit bool, categories []string, tags map[string]string) map[string]any {
	var res []map[string]any
	ws := fmt.Sprintf("[parameters('%s')]", logParamWorkspaceID)
	if insights {
		dcr := map[string]any{
			"type":       ContainerInsightsDCRType,
			"apiVersion": DataCollectionAPIVersion,
			"name":       "[" + msciNameExpr + "]",
			"location":   fmt.Sprintf("[parameters('%s')]", logParamDCRLocation),
			"kind":       "Linux",
			"properties": map[string]any{
				"description": "aksml: Container Insights logs and inventory of the AKS cluster to its Log Analytics workspace",
				"dataSources": map[string]any{"extensions": []any{map[string]any{
					"name":          ContainerInsightsAssociation,
					"extensionName": ContainerInsightsExtension,
					"streams":       []any{ContainerInsightsStream},
					"extensionSettings": map[string]any{"dataCollectionSettings": map[string]any{
						"interval":               "1m",
						"namespaceFilteringMode": "Off",
						"enableContainerLogV2":   true,
					}},
				}}},
				"destinations": map[string]any{"logAnalytics": []any{map[string]any{"workspaceResourceId": ws, "name": "ciworkspace"}}},
				"dataFlows":    []any{map[string]any{"streams": []any{ContainerInsightsStream}, "destinations": []any{"ciworkspace"}}},
			},
		}
		if len(tags) > 0 {
			dcr["tags"] = tags
		}
		res = append(res, dcr, map[string]any{
			"type":       ContainerInsightsDCRAType,
			"apiVersion": DataCollectionAPIVersion,
			"name":       fmt.Sprintf("[format('{0}/microsoft.insights/%s', parameters('%s'))]", ContainerInsightsAssociation, logParamClusterName),
			"dependsOn":  []string{fmt.Sprintf("[resourceId('%s', %s)]", ContainerInsightsDCRType, msciNameExpr)},
			"properties": map[string]any{
				"description":          "Association of data collection rule. Deleting this association will break the data collection for this AKS Cluster.",
				"dataCollectionRuleId": fmt.Sprintf("[resourceId('%s', %s)]", ContainerInsightsDCRType, msciNameExpr),
			},
		})
	}
	if audit {
		logs := make([]any, 0, len(categories))
		for _, c := range categories {
			logs = append(logs, map[string]any{"category": c, "enabled": true})
		}
		res = append(res, map[string]any{
			"type":       DiagnosticSettingsType,
			"apiVersion": DiagnosticSettingsAPI,
			"name":       fmt.Sprintf("[format('{0}/microsoft.insights/%s', parameters('%s'))]", DiagnosticSettingName, logParamClusterName),
			"properties": map[string]any{
				"workspaceId":                 ws,
				"logAnalyticsDestinationType": "Dedicated",
				"logs":                        logs,
			},
		})
	}
	return armdeploy.Template(res, nil)
}
