package observability

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/armdeploy"
	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/internal/azarm"
)

// ARM types and API versions of the Azure Monitor managed Prometheus
// resources. Each API version is the one whose published spec aksml checks
// the template bodies against (Azure/azure-rest-api-specs):
// Microsoft.Monitor/accounts 2023-04-03 (monitoringAccounts_API.json),
// Microsoft.Insights data collection 2024-03-11 (dataCollection.json) and
// Microsoft.Dashboard/grafana 2025-08-01 (grafana.json).
const (
	WorkspaceResourceType = "Microsoft.Monitor/accounts"
	WorkspaceAPIVersion   = "2023-04-03"
	DCEResourceType       = "Microsoft.Insights/dataCollectionEndpoints"
	DCRResourceType       = "Microsoft.Insights/dataCollectionRules"
	// DCRAResourceType is the data collection rule association as an
	// extension of the AKS cluster, in the form Microsoft's onboarding
	// template uses (Azure/prometheus-collector
	// AddonArmTemplate/FullAzureMonitorMetricsProfile.json).
	DCRAResourceType         = "Microsoft.ContainerService/managedClusters/providers/dataCollectionRuleAssociations"
	DataCollectionAPIVersion = "2024-03-11"
	GrafanaResourceType      = "Microsoft.Dashboard/grafana"
	GrafanaAPIVersion        = "2025-08-01"

	// PrometheusStream is the data collection stream of managed Prometheus.
	PrometheusStream = "Microsoft-PrometheusMetrics"
	// PrometheusDataSourceName and MonitoringDestinationName are the
	// names Microsoft's onboarding template gives the prometheusForwarder
	// data source and the monitoring account destination.
	PrometheusDataSourceName  = "PrometheusDataSource"
	MonitoringDestinationName = "MonitoringAccount1"
	// DataCollectionKind is the kind of the DCE and DCR (Linux nodes).
	DataCollectionKind = "Linux"
	// MSPromPrefix starts the DCE, DCR and DCRA names, as in Microsoft's
	// template: MSProm-<workspace region>-<cluster> for the DCE and DCR,
	// MSProm-<cluster region>-<cluster> for the association.
	MSPromPrefix = "MSProm"
	// MaxDataCollectionNameLength is the length the DCE and DCR names are
	// cut to, as the AKS onboarding templates do (take(..., 44)).
	MaxDataCollectionNameLength = 44

	// MonitoringDataReaderRoleID is the built-in role "Monitoring Data
	// Reader", which lets Grafana's identity query the Azure Monitor
	// workspace (prometheus-collector AddonArmTemplate README).
	MonitoringDataReaderRoleID = "b0d8363b-8ddd-447d-831f-62ca05bff136"
	// GrafanaAdminRoleID is the built-in role "Grafana Admin" ("Azure
	// built-in roles for Monitor",
	// https://learn.microsoft.com/azure/role-based-access-control/built-in-roles/monitor).
	// Signing in to Azure Managed Grafana needs one of the Grafana Admin,
	// Editor or Viewer roles on it ("How to share access to Azure Managed
	// Grafana", https://learn.microsoft.com/azure/managed-grafana/how-to-share-grafana-workspace),
	// and a Grafana created from a template has no assignment.
	GrafanaAdminRoleID = "22926164-76b3-42b3-bc55-97df8dab3e41"
	// DefaultGrafanaSKU is the Azure Managed Grafana SKU.
	DefaultGrafanaSKU = "Standard"
)

// Parameters and outputs of the Azure Monitor template.
const (
	monParamClusterName       = "clusterName"
	monParamClusterLocation   = "clusterLocation"
	monParamWorkspaceLocation = "workspaceLocation"
	monParamWorkspaceName     = "workspaceName"
	monParamWorkspaceID       = "workspaceId"
	monParamGrafanaName       = "grafanaName"
	outDCR                    = "dataCollectionRuleId"
	outDCE                    = "dataCollectionEndpointId"
	outGrafanaPrincipal       = "grafanaPrincipalId"
	outGrafanaEndpoint        = "grafanaEndpoint"
	outQueryEndpoint          = "prometheusQueryEndpoint"
	dceNameExpr               = "take(format('" + MSPromPrefix + "-{0}-{1}', parameters('workspaceLocation'), parameters('clusterName')), 44)"
	dcraNameExpr              = "format('" + MSPromPrefix + "-{0}-{1}', parameters('clusterLocation'), parameters('clusterName'))"
)

// AzureMonitorArgs configures NewAzureMonitor.
type AzureMonitorArgs struct {
	// ResourceGroupName is the cluster's resource group; the deployment
	// stack and everything it creates go there. Required.
	ResourceGroupName pulumi.StringInput
	// ClusterName is the AKS cluster's name output (the association waits
	// for the cluster through it). Required.
	ClusterName pulumi.StringInput
	// ClusterResourceID is the AKS cluster's ARM ID; the ID of a created
	// workspace and the Monitoring Data Reader role are derived from its
	// subscription and group. Required.
	ClusterResourceID pulumi.StringInput
	// ClusterLocation is the cluster's region (the association's name uses
	// it). Required.
	ClusterLocation string
	// DefaultWorkspaceName names the workspace aksml creates when
	// Spec.AzureMonitorWorkspaceID and Spec.AzureMonitorWorkspaceName are
	// unset. Required then; the stack passes `amw-<cluster>`.
	DefaultWorkspaceName string
	// Spec is the observability configuration (workspace, Grafana).
	// Defaulted and validated by NewAzureMonitor. With Spec.Enabled false
	// the stack's template is empty, which deletes what it created.
	Spec Spec
	// ConfigPath names Spec in validation errors. Default
	// DefaultConfigPath (`observability`).
	ConfigPath field.Path
	// Tags are put on every resource of the template and on the stack.
	Tags map[string]string
	// GrafanaAdminGroupObjectIDs are the Entra groups (object IDs) that get
	// Grafana Admin on the Grafana: without a Grafana role nobody can sign
	// in. Default none; the aksml stack passes
	// aksml:cluster.entraID.adminGroupObjectIDs.
	GrafanaAdminGroupObjectIDs []string
}

// AzureMonitor is the Azure Monitor side of managed Prometheus for one AKS
// cluster, deployed as one ARM deployment stack (see the package doc).
type AzureMonitor struct {
	pulumi.ResourceState

	// WorkspaceID is the ARM ID of the Azure Monitor workspace the
	// cluster's metrics go to (created or configured).
	WorkspaceID pulumi.StringOutput
	// WorkspaceLocation is the workspace's region; the DCE, DCR and rule
	// groups live there.
	WorkspaceLocation pulumi.StringOutput
	// DataCollectionRuleID is the ARM ID of the Prometheus DCR.
	DataCollectionRuleID pulumi.StringOutput
	// GrafanaEndpoint is the Azure Managed Grafana URL, "" without Grafana.
	GrafanaEndpoint pulumi.StringOutput
	// PrometheusQueryEndpoint is the workspace's Prometheus query endpoint
	// (https://<workspace>-<id>.<region>.prometheus.monitor.azure.com), the
	// serverAddress of KEDA's prometheus triggers; "" with observability
	// off.
	PrometheusQueryEndpoint pulumi.StringOutput
	// StackName is the Azure name of the deployment stack.
	StackName pulumi.StringOutput
}

// WorkspaceName returns the name of the workspace aksml creates, or "" when
// Spec.AzureMonitorWorkspaceID names an existing one.
func (s Spec) WorkspaceName(defaultName string) string {
	if s.AzureMonitorWorkspaceID != "" {
		return ""
	}
	if s.AzureMonitorWorkspaceName != "" {
		return s.AzureMonitorWorkspaceName
	}
	return defaultName
}

// AzureMonitorTemplate returns the ARM template of the managed Prometheus
// wiring, laid out as Microsoft's onboarding template
// (Azure/prometheus-collector AddonArmTemplate/FullAzureMonitorMetricsProfile.json):
// the Azure Monitor workspace when createWorkspace; a data collection
// endpoint and a data collection rule in the workspace's region, the rule
// forwarding the Microsoft-PrometheusMetrics stream (prometheusForwarder
// data source) to the workspace (monitoringAccounts destination); the
// association of the rule with the cluster; and, with grafana, an Azure
// Managed Grafana (system-assigned identity) integrated with the workspace.
// Each resource depends on what it references, so ARM creates them in
// order. With enabled false the template has no resources.
func AzureMonitorTemplate(enabled, createWorkspace, grafana bool, tags map[string]string) map[string]any {
	params := map[string]any{
		monParamClusterName:       armdeploy.Param("string"),
		monParamClusterLocation:   armdeploy.Param("string"),
		monParamWorkspaceLocation: armdeploy.Param("string"),
	}
	if !enabled {
		tpl := armdeploy.Template(nil, nil)
		tpl["parameters"] = params
		return tpl
	}
	workspaceID := fmt.Sprintf("[parameters('%s')]", monParamWorkspaceID)
	var res []map[string]any
	var onWorkspace []string
	if createWorkspace {
		params[monParamWorkspaceName] = armdeploy.Param("string")
		workspaceID = fmt.Sprintf("[resourceId('%s', parameters('%s'))]", WorkspaceResourceType, monParamWorkspaceName)
		onWorkspace = []string{workspaceID}
		res = append(res, withTags(map[string]any{
			"type":       WorkspaceResourceType,
			"apiVersion": WorkspaceAPIVersion,
			"name":       fmt.Sprintf("[parameters('%s')]", monParamWorkspaceName),
			"location":   fmt.Sprintf("[parameters('%s')]", monParamWorkspaceLocation),
			"properties": map[string]any{},
		}, tags))
	} else {
		params[monParamWorkspaceID] = armdeploy.Param("string")
	}
	dceID := fmt.Sprintf("[resourceId('%s', %s)]", DCEResourceType, dceNameExpr)
	dcrID := fmt.Sprintf("[resourceId('%s', %s)]", DCRResourceType, dceNameExpr)
	dcr := dataCollectionResource(DCRResourceType, tags)
	dcr["dependsOn"] = append([]string{dceID}, onWorkspace...)
	res = append(res,
		dataCollectionResource(DCEResourceType, tags),
		withProperties(dcr, map[string]any{
			"description":              "aksml: managed Prometheus metrics of the AKS cluster to its Azure Monitor workspace",
			"dataCollectionEndpointId": dceID,
			"dataSources": map[string]any{
				"prometheusForwarder": []any{map[string]any{
					"name":               PrometheusDataSourceName,
					"streams":            []any{PrometheusStream},
					"labelIncludeFilter": map[string]any{},
				}},
			},
			"destinations": map[string]any{
				"monitoringAccounts": []any{map[string]any{
					"accountResourceId": workspaceID,
					"name":              MonitoringDestinationName,
				}},
			},
			"dataFlows": []any{map[string]any{
				"streams":      []any{PrometheusStream},
				"destinations": []any{MonitoringDestinationName},
			}},
		}),
		map[string]any{
			"type":       DCRAResourceType,
			"apiVersion": DataCollectionAPIVersion,
			"name":       fmt.Sprintf("[format('{0}/microsoft.insights/{1}', parameters('%s'), %s)]", monParamClusterName, dcraNameExpr),
			"dependsOn":  []string{dcrID},
			"properties": map[string]any{
				"description":          "Association of data collection rule. Deleting this association will break the data collection for this AKS Cluster.",
				"dataCollectionRuleId": dcrID,
			},
		},
	)
	outputs := map[string]any{
		outDCR: armdeploy.Output("string", dcrID),
		outDCE: armdeploy.Output("string", dceID),
		// The workspace's Prometheus query endpoint (properties.metrics.prometheusQueryEndpoint,
		// read-only, Microsoft.Monitor/accounts 2023-04-03 monitoringAccounts_API.json), which
		// KEDA's prometheus trigger queries: read from the created workspace or from the
		// configured one by its ID.
		outQueryEndpoint: armdeploy.Output("string", fmt.Sprintf("[reference(%s, '%s').metrics.prometheusQueryEndpoint]", strings.TrimSuffix(strings.TrimPrefix(workspaceID, "["), "]"), WorkspaceAPIVersion)),
	}
	if grafana {
		params[monParamGrafanaName] = armdeploy.Param("string")
		grafanaID := fmt.Sprintf("resourceId('%s', parameters('%s'))", GrafanaResourceType, monParamGrafanaName)
		g := withTags(map[string]any{
			"type":       GrafanaResourceType,
			"apiVersion": GrafanaAPIVersion,
			"name":       fmt.Sprintf("[parameters('%s')]", monParamGrafanaName),
			"location":   fmt.Sprintf("[parameters('%s')]", monParamWorkspaceLocation),
			"sku":        map[string]any{"name": DefaultGrafanaSKU},
			"identity":   map[string]any{"type": "SystemAssigned"},
			"properties": map[string]any{
				"grafanaIntegrations": map[string]any{
					"azureMonitorWorkspaceIntegrations": []any{map[string]any{"azureMonitorWorkspaceResourceId": workspaceID}},
				},
			},
		}, tags)
		if len(onWorkspace) > 0 {
			g["dependsOn"] = onWorkspace
		}
		res = append(res, g)
		outputs[outGrafanaPrincipal] = armdeploy.Output("string", fmt.Sprintf("[reference(%s, '%s', 'Full').identity.principalId]", grafanaID, GrafanaAPIVersion))
		outputs[outGrafanaEndpoint] = armdeploy.Output("string", fmt.Sprintf("[reference(%s, '%s').endpoint]", grafanaID, GrafanaAPIVersion))
	}
	tpl := armdeploy.Template(res, outputs)
	tpl["parameters"] = params
	return tpl
}

// dataCollectionResource is a data collection endpoint or rule (same name,
// kind Linux) in the workspace's region, with empty properties.
func dataCollectionResource(typ string, tags map[string]string) map[string]any {
	return withTags(map[string]any{
		"type":       typ,
		"apiVersion": DataCollectionAPIVersion,
		"name":       "[" + dceNameExpr + "]",
		"location":   fmt.Sprintf("[parameters('%s')]", monParamWorkspaceLocation),
		"kind":       DataCollectionKind,
		"properties": map[string]any{},
	}, tags)
}

// withProperties sets the properties of an ARM resource.
func withProperties(r, props map[string]any) map[string]any {
	r["properties"] = props
	return r
}

// withTags sets tags on an ARM resource when there are any.
func withTags(r map[string]any, tags map[string]string) map[string]any {
	if len(tags) > 0 {
		r["tags"] = tags
	}
	return r
}

// validate checks AzureMonitorArgs: the Spec below ConfigPath, the rest
// below path.
func (a *AzureMonitorArgs) validate(path field.Path) field.ErrorList {
	errs := a.Spec.Validate(specPath(a.ConfigPath))
	if a.ResourceGroupName == nil {
		errs = append(errs, field.Required(path.Child("ResourceGroupName"), "the cluster's resource group"))
	}
	if a.ClusterName == nil {
		errs = append(errs, field.Required(path.Child("ClusterName"), "the AKS cluster name"))
	}
	if a.ClusterResourceID == nil {
		errs = append(errs, field.Required(path.Child("ClusterResourceID"), "the AKS cluster's resource ID"))
	}
	if a.ClusterLocation == "" {
		errs = append(errs, field.Required(path.Child("ClusterLocation"), "the AKS cluster's region"))
	}
	if a.Spec.WorkspaceName(a.DefaultWorkspaceName) == "" && a.Spec.AzureMonitorWorkspaceID == "" {
		errs = append(errs, field.Required(path.Child("DefaultWorkspaceName"), "the name of the Azure Monitor workspace to create when "+specPath(a.ConfigPath).Child("azureMonitorWorkspaceId").String()+" is unset"))
	}
	return errs
}

// NewAzureMonitor registers one deployment stack, `<name>-stack`, holding
// AzureMonitorTemplate for the cluster (token
// `aksml:observability:AzureMonitor`) and, with Grafana, a Monitoring Data
// Reader role assignment for Grafana's identity on the workspace. Register
// it on every run for as long as the cluster lives, also with
// observability disabled: its template is then empty, so turning
// observability off deletes what it created instead of detaching it.
func NewAzureMonitor(ctx *pulumi.Context, name string, args *AzureMonitorArgs, opts ...pulumi.ResourceOption) (*AzureMonitor, error) {
	if args == nil {
		return nil, errors.New("observability: AzureMonitorArgs are required")
	}
	a := *args
	a.Spec.Default()
	if err := a.validate(field.NewPath("AzureMonitorArgs")).ToAggregate(); err != nil {
		return nil, err
	}
	spec := a.Spec
	enabled := spec.IsEnabled()
	workspaceName := spec.WorkspaceName(a.DefaultWorkspaceName)
	create := workspaceName != ""
	grafana := enabled && spec.Grafana != nil && spec.Grafana.Enabled
	location := spec.AzureMonitorWorkspaceLocation
	if location == "" {
		location = a.ClusterLocation
	}

	params := map[string]any{
		monParamClusterName:       a.ClusterName,
		monParamClusterLocation:   a.ClusterLocation,
		monParamWorkspaceLocation: location,
	}
	var workspaceID pulumi.StringOutput
	if create {
		// Same subscription and group as the cluster: derive the ID
		// rather than read it back from the deployment.
		workspaceID = a.ClusterResourceID.ToStringOutput().ApplyT(func(clusterID string) string {
			return resourceGroupID(clusterID) + "/providers/" + WorkspaceResourceType + "/" + workspaceName
		}).(pulumi.StringOutput)
	} else {
		workspaceID = pulumi.String(spec.AzureMonitorWorkspaceID).ToStringOutput()
	}
	if enabled {
		if create {
			params[monParamWorkspaceName] = workspaceName
		} else {
			params[monParamWorkspaceID] = spec.AzureMonitorWorkspaceID
		}
	}
	if grafana {
		params[monParamGrafanaName] = spec.Grafana.Name
	}

	c := &AzureMonitor{}
	if err := ctx.RegisterComponentResource(AzureMonitorType, name, c, opts...); err != nil {
		return nil, err
	}
	stack, err := armdeploy.NewTemplateStack(ctx, name+"-stack", &armdeploy.Args{
		ResourceGroupName: a.ResourceGroupName,
		Template:          AzureMonitorTemplate(enabled, create, grafana, a.Tags),
		Parameters:        params,
		Description:       "aksml managed Prometheus: Azure Monitor workspace, data collection endpoint, rule and association, optional Azure Managed Grafana. Removing a resource from this template deletes it; deleting the stack detaches them.",
		Tags:              a.Tags,
	}, pulumi.Parent(c))
	if err != nil {
		return nil, err
	}
	c.StackName = stack.Name
	c.WorkspaceID = workspaceID
	c.WorkspaceLocation = pulumi.String(location).ToStringOutput()
	c.DataCollectionRuleID = pulumi.String("").ToStringOutput()
	c.GrafanaEndpoint = pulumi.String("").ToStringOutput()
	c.PrometheusQueryEndpoint = pulumi.String("").ToStringOutput()
	if enabled {
		c.DataCollectionRuleID = armdeploy.OutputString(stack, outDCR)
		c.PrometheusQueryEndpoint = armdeploy.OutputString(stack, outQueryEndpoint)
	}
	if grafana {
		c.GrafanaEndpoint = armdeploy.OutputString(stack, outGrafanaEndpoint)
		_, err := azarm.NewRoleAssignment(ctx, name+"-grafana-reader", &azarm.RoleAssignmentArgs{
			PrincipalID:      armdeploy.OutputString(stack, outGrafanaPrincipal),
			PrincipalType:    pulumi.String("ServicePrincipal"),
			RoleDefinitionID: workspaceID.ApplyT(roleDefinitionID).(pulumi.StringOutput),
			Scope:            workspaceID,
			Description:      pulumi.String("aksml: Azure Managed Grafana reads the cluster's Prometheus metrics"),
		}, pulumi.Parent(c), pulumi.DependsOn([]pulumi.Resource{stack}))
		if err != nil {
			return nil, err
		}
		grafanaID := a.ClusterResourceID.ToStringOutput().ApplyT(func(clusterID string) string {
			return resourceGroupID(clusterID) + "/providers/" + GrafanaResourceType + "/" + spec.Grafana.Name
		}).(pulumi.StringOutput)
		for _, group := range a.GrafanaAdminGroupObjectIDs {
			// Named by the group, so reordering the list changes nothing.
			_, err := azarm.NewRoleAssignment(ctx, name+"-grafana-admin-"+group, &azarm.RoleAssignmentArgs{
				PrincipalID:      pulumi.String(group),
				PrincipalType:    pulumi.String("Group"),
				RoleDefinitionID: grafanaID.ApplyT(func(id string) string { return armdeploy.RoleDefinitionID(id, GrafanaAdminRoleID) }).(pulumi.StringOutput),
				Scope:            grafanaID,
				Description:      pulumi.String("aksml: the cluster's admin groups administer its Azure Managed Grafana"),
			}, pulumi.Parent(c), pulumi.DependsOn([]pulumi.Resource{stack}))
			if err != nil {
				return nil, err
			}
		}
	}
	if err := ctx.RegisterResourceOutputs(c, pulumi.Map{
		"workspaceId":             c.WorkspaceID,
		"workspaceLocation":       c.WorkspaceLocation,
		"dataCollectionRuleId":    c.DataCollectionRuleID,
		"grafanaEndpoint":         c.GrafanaEndpoint,
		"prometheusQueryEndpoint": c.PrometheusQueryEndpoint,
		"stackName":               c.StackName,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// resourceGroupID returns /subscriptions/<s>/resourceGroups/<g> of an ARM ID.
func resourceGroupID(id string) string {
	if i := strings.Index(strings.ToLower(id), "/providers/"); i >= 0 {
		return id[:i]
	}
	return id
}

// roleDefinitionID is the Monitoring Data Reader role definition in the
// subscription of the workspace resourceID.
func roleDefinitionID(workspaceID string) string {
	return armdeploy.RoleDefinitionID(workspaceID, MonitoringDataReaderRoleID)
}
