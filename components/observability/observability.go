package observability

import (
	"errors"
	"fmt"

	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/apiextensions"
	corev1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/core/v1"
	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/armdeploy"
	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/vocab"
)

// PrometheusRuleAPIVersion is the Prometheus Operator API version of
// PrometheusRule.
const PrometheusRuleAPIVersion = "monitoring.coreos.com/v1"

// apiVersion is the PodMonitor apiVersion of group: `<group>/v1`.
func (g MonitorGroup) apiVersion() string { return string(g) + "/v1" }

// Common labels on every Kubernetes object NewMonitors creates.
const (
	partOfLabel = vocab.PartOfLabel
	partOfValue = vocab.PartOfValue
)

// MonitorsArgs configures NewMonitors.
type MonitorsArgs struct {
	// Provider is the Kubernetes provider of the target cluster; nil means
	// the ambient default provider.
	Provider *kubernetes.Provider
	// Spec is the observability configuration (thresholds, scrape timing,
	// PrometheusRule toggle). Defaulted and validated by NewMonitors.
	Spec Spec
	// ConfigPath names Spec in validation errors. Default
	// DefaultConfigPath (`observability`).
	ConfigPath field.Path
	// GPUStacks are the GPUStack values of the cluster's GPU pools; they
	// decide which DCGM exporter is scraped (see DCGMTargets). Empty means
	// the pools are unknown (existing cluster): only the exporter PodMonitor.
	GPUStacks []gpupool.GPUStack
	// DCGMExporter locates the exporter pods on DriverOnly and None pools.
	// Zero fields take the AKS MLOps best practices' values.
	DCGMExporter DCGMExporter
	// Namespace holds the training PodMonitor, the PrometheusRule and the
	// dashboard ConfigMap. Default kube-system (exists on every cluster).
	Namespace string
	// TeamNamespaces limits the training PodMonitor and the job, pod and
	// training alert rules to these namespaces. Default none: any namespace
	// (the pod label aksml.io/metrics=true still opts pods in).
	TeamNamespaces []string
	// WorkloadDurations adds one WorkloadDurationOverrun rule per workload
	// to the PrometheusRule. Default none.
	WorkloadDurations []WorkloadDuration
	// KueueNamespace, when set, is the namespace of a Kueue that aksml
	// installed from Kueue's chart (release "kueue"); a ServiceMonitor
	// there scrapes its metrics endpoint, which GangWorkloadsPending reads.
	// Default "": no Kueue scrape (Kueue not installed by aksml, or
	// Volcano).
	KueueNamespace string
	// DependsOn are resources the monitors must wait for, e.g. the
	// component that creates the exporter's namespace. Children of a
	// component do not inherit its DependsOn, so it is applied to each
	// object. Default none.
	DependsOn []pulumi.Resource
}

// Monitors is the Kubernetes-layer observability of one cluster: the DCGM
// exporter scrape (a PodMonitor, or the metrics add-on's node scrape job on
// AKS-managed GPU pools), the training PodMonitor, the dashboard ConfigMap
// and, optionally, a PrometheusRule. It registers no Azure resources.
type Monitors struct {
	pulumi.ResourceState

	// DCGMPodMonitorName is the exporter PodMonitor's name, "" when no pool
	// runs a pod-based exporter.
	DCGMPodMonitorName pulumi.StringOutput `pulumi:"dcgmPodMonitorName"`
	// ManagedDCGMScrapeConfig is the scrape configuration of the AKS-managed
	// exporter (see ManagedDCGMScrapeConfig), "" when no pool is Managed.
	ManagedDCGMScrapeConfig pulumi.StringOutput `pulumi:"managedDcgmScrapeConfig"`
	// TrainingPodMonitorName is the training PodMonitor's name.
	TrainingPodMonitorName pulumi.StringOutput `pulumi:"trainingPodMonitorName"`
	// KueueServiceMonitorName is the Kueue metrics ServiceMonitor's name,
	// "" without MonitorsArgs.KueueNamespace.
	KueueServiceMonitorName pulumi.StringOutput `pulumi:"kueueServiceMonitorName"`
	// PrometheusRuleName is the PrometheusRule's name, "" unless
	// Spec.PrometheusRule.
	PrometheusRuleName pulumi.StringOutput `pulumi:"prometheusRuleName"`
	// DashboardConfigMapName is the dashboard ConfigMap's name.
	DashboardConfigMapName pulumi.StringOutput `pulumi:"dashboardConfigMapName"`
	// DashboardJSON is the Grafana dashboard (DashboardJSON), for import
	// into Azure Managed Grafana.
	DashboardJSON pulumi.StringOutput `pulumi:"dashboardJson"`
}

// applyDefaults fills unset fields with their documented defaults.
func (a *MonitorsArgs) applyDefaults() {
	a.Spec.Default()
	a.DCGMExporter.Default()
	if a.Namespace == "" {
		a.Namespace = DefaultNamespace
	}
}

// NewMonitors registers the Kubernetes-layer observability (token
// `aksml:observability:Monitors`). It works against any cluster: the
// azmonitoring.coreos.com CRDs come with the AKS metrics add-on, and
// monitoring.coreos.com (Spec.PodMonitorGroup, Spec.PrometheusRule) with
// the Prometheus Operator.
func NewMonitors(ctx *pulumi.Context, name string, args *MonitorsArgs, opts ...pulumi.ResourceOption) (*Monitors, error) {
	if args == nil {
		return nil, errors.New("observability: MonitorsArgs are required")
	}
	a := *args
	a.applyDefaults()
	if err := a.validate(field.NewPath("MonitorsArgs")).ToAggregate(); err != nil {
		return nil, err
	}

	c := &Monitors{}
	if a.Provider != nil {
		opts = append(opts, pulumi.Providers(a.Provider))
	}
	if err := ctx.RegisterComponentResource(MonitorsType, name, c, opts...); err != nil {
		return nil, err
	}
	parent := pulumi.Composite(pulumi.Parent(c), pulumi.DependsOn(a.DependsOn))
	managed, pod := DCGMTargets(a.GPUStacks)

	c.DCGMPodMonitorName = pulumi.String("").ToStringOutput()
	if pod {
		pm, err := newCustomResource(ctx, name+"-dcgm", a.Spec.PodMonitorGroup.apiVersion(), "PodMonitor",
			DCGMPodMonitorName, a.DCGMExporter.Namespace, a.Spec.Labels, dcgmPodMonitorSpec(a.DCGMExporter, a.Spec), parent)
		if err != nil {
			return nil, err
		}
		c.DCGMPodMonitorName = objectName(pm.Metadata)
	}

	c.ManagedDCGMScrapeConfig = pulumi.String("").ToStringOutput()
	if managed {
		scrape := ManagedDCGMScrapeConfig(a.Spec)
		c.ManagedDCGMScrapeConfig = pulumi.String(scrape).ToStringOutput()
		if a.Spec.CreatesManagedDCGMScrapeConfig() {
			cm, err := corev1.NewConfigMap(ctx, name+"-managed-dcgm", &corev1.ConfigMapArgs{
				Metadata: objectMeta(AMAPrometheusConfigMapName, AMANamespace, a.Spec.Labels),
				Data:     pulumi.StringMap{AMAPrometheusConfigKey: pulumi.String(scrape)},
			}, parent)
			if err != nil {
				return nil, err
			}
			c.ManagedDCGMScrapeConfig = cm.Data.MapIndex(pulumi.String(AMAPrometheusConfigKey))
		}
	}

	if a.Spec.CreatesManagedSettingsConfigMap() {
		if _, err := corev1.NewConfigMap(ctx, name+"-ama-settings", &corev1.ConfigMapArgs{
			Metadata: objectMeta(AMASettingsConfigMapName, AMANamespace, a.Spec.Labels),
			Data:     pulumi.ToStringMap(ManagedSettingsConfigMapData()),
		}, parent); err != nil {
			return nil, err
		}
	}

	tpm, err := newCustomResource(ctx, name+"-training", a.Spec.PodMonitorGroup.apiVersion(), "PodMonitor",
		TrainingPodMonitorName, a.Namespace, a.Spec.Labels, trainingPodMonitorSpec(a.Spec, a.TeamNamespaces), parent)
	if err != nil {
		return nil, err
	}
	c.TrainingPodMonitorName = objectName(tpm.Metadata)

	c.KueueServiceMonitorName = pulumi.String("").ToStringOutput()
	if a.KueueNamespace != "" {
		sm, err := newCustomResource(ctx, name+"-kueue", a.Spec.PodMonitorGroup.apiVersion(), "ServiceMonitor",
			KueueServiceMonitorName, a.KueueNamespace, a.Spec.Labels, kueueServiceMonitorSpec(a.Spec), parent)
		if err != nil {
			return nil, err
		}
		c.KueueServiceMonitorName = objectName(sm.Metadata)
	}

	c.PrometheusRuleName = pulumi.String("").ToStringOutput()
	if a.Spec.PrometheusRule {
		pr, err := newCustomResource(ctx, name+"-rules", PrometheusRuleAPIVersion, "PrometheusRule",
			PrometheusRuleName, a.Namespace, a.Spec.Labels,
			prometheusRuleSpec(Rules(a.Spec, a.TeamNamespaces, a.WorkloadDurations...)), parent)
		if err != nil {
			return nil, err
		}
		c.PrometheusRuleName = objectName(pr.Metadata)
	}

	dashboardJSON := DashboardJSON()
	dcm, err := corev1.NewConfigMap(ctx, name+"-dashboard", &corev1.ConfigMapArgs{
		Metadata: objectMeta(DashboardConfigMapName, a.Namespace, mergeLabels(a.Spec.Labels, map[string]string{DashboardLabel: DashboardLabelValue})),
		Data:     pulumi.StringMap{DashboardConfigMapKey: pulumi.String(dashboardJSON)},
	}, parent)
	if err != nil {
		return nil, err
	}
	c.DashboardConfigMapName = dcm.Metadata.Name().Elem()
	c.DashboardJSON = pulumi.String(dashboardJSON).ToStringOutput()

	if err := ctx.RegisterResourceOutputs(c, pulumi.Map{
		"dcgmPodMonitorName":      c.DCGMPodMonitorName,
		"managedDcgmScrapeConfig": c.ManagedDCGMScrapeConfig,
		"trainingPodMonitorName":  c.TrainingPodMonitorName,
		"kueueServiceMonitorName": c.KueueServiceMonitorName,
		"prometheusRuleName":      c.PrometheusRuleName,
		"dashboardConfigMapName":  c.DashboardConfigMapName,
		"dashboardJson":           c.DashboardJSON,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// mergeLabels returns the union of label maps, later maps winning.
func mergeLabels(maps ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// objectMeta is the metadata of an object aksml owns: the part-of label
// plus extra labels.
func objectMeta(name, namespace string, extra map[string]string) metav1.ObjectMetaArgs {
	return metav1.ObjectMetaArgs{
		Name:      pulumi.String(name),
		Namespace: pulumi.String(namespace),
		Labels:    pulumi.ToStringMap(mergeLabels(extra, map[string]string{partOfLabel: partOfValue})),
	}
}

// newCustomResource registers a namespaced custom resource with a spec.
func newCustomResource(ctx *pulumi.Context, resourceName, apiVersion, kind, name, namespace string,
	labels map[string]string, spec map[string]any, opts ...pulumi.ResourceOption) (*apiextensions.CustomResource, error) {
	return apiextensions.NewCustomResource(ctx, resourceName, &apiextensions.CustomResourceArgs{
		ApiVersion:  pulumi.String(apiVersion),
		Kind:        pulumi.String(kind),
		Metadata:    objectMeta(name, namespace, labels),
		OtherFields: kubernetes.UntypedArgs{"spec": spec},
	}, opts...)
}

// objectName is the name of a created object.
func objectName(meta metav1.ObjectMetaPtrOutput) pulumi.StringOutput {
	return meta.Name().Elem()
}

// AlertRulesArgs configures NewAlertRules.
type AlertRulesArgs struct {
	// ResourceGroupName is the resource group the rule group (and the
	// deployment stack carrying it) is created in. Required.
	ResourceGroupName pulumi.StringInput
	// Location is the rule group's Azure region, normally the Azure Monitor
	// workspace's. Required.
	Location pulumi.StringInput
	// ClusterName is the AKS cluster name; rules evaluate only that
	// cluster's series, and the rule group is named
	// `<clusterName>-aksml-gpu-training`. Required.
	ClusterName pulumi.StringInput
	// ClusterResourceID is the AKS cluster's ARM ID; when set it is added to
	// the rule group's scopes next to the workspace, which links the rule
	// group to the cluster in the portal. Optional.
	ClusterResourceID pulumi.StringInput
	// AzureMonitorWorkspaceID is the ARM ID of the workspace the rule group
	// evaluates (AzureMonitor.WorkspaceID). Default
	// Spec.AzureMonitorWorkspaceID; one of them is required.
	AzureMonitorWorkspaceID pulumi.StringInput
	// Spec is the observability configuration: thresholds, RPO,
	// ActionGroupIDs. Defaulted and validated by NewAlertRules. With
	// observability off or Spec.PrometheusRuleGroups false the stack holds
	// an empty template (Spec.RuleGroupWanted), and only ResourceGroupName
	// is required.
	Spec Spec
	// ConfigPath names Spec in validation errors. Default
	// DefaultConfigPath (`observability`).
	ConfigPath field.Path
	// TeamNamespaces limits the job, pod and training rules to these
	// namespaces, as for MonitorsArgs. Default none: any namespace.
	TeamNamespaces []string
	// WorkloadDurations adds one WorkloadDurationOverrun rule per workload,
	// as for MonitorsArgs. Default none.
	WorkloadDurations []WorkloadDuration
}

// AlertRules is the Azure-layer observability: the alert Rules as an Azure
// Monitor managed Prometheus rule group, deployed through an ARM deployment
// stack (the azure-native alertsmanagement module is not served at v2.88.0).
type AlertRules struct {
	pulumi.ResourceState

	// Name is the rule group's name.
	Name pulumi.StringOutput
	// ResourceID is the rule group's ARM ID.
	ResourceID pulumi.StringOutput
}

// Template parameter names and outputs of the rule group template.
const (
	paramClusterName       = "clusterName"
	paramLocation          = "location"
	paramClusterResourceID = "clusterResourceId"
	paramWorkspaceID       = "azureMonitorWorkspaceId"
	outputName             = "ruleGroupName"
	outputResourceID       = "ruleGroupId"
	ruleGroupNameExpr      = "format('{0}-aksml-gpu-training', parameters('clusterName'))"
)

// RuleGroupTemplate returns the ARM template of the managed Prometheus rule
// group for a defaulted Spec: one Microsoft.AlertsManagement/prometheusRuleGroups
// (API 2023-03-01) scoped to the Azure Monitor workspace of
// parameters('azureMonitorWorkspaceId') (and the cluster when
// withClusterScope), filtered to parameters('clusterName'), evaluated every
// minute, with Rules and the action groups. It outputs the rule group's
// name and ID. durations add one WorkloadDurationOverrun rule each.
func RuleGroupTemplate(s Spec, teamNamespaces []string, withClusterScope bool, durations ...WorkloadDuration) map[string]any {
	scopes := []any{fmt.Sprintf("[parameters('%s')]", paramWorkspaceID)}
	if withClusterScope {
		scopes = append(scopes, fmt.Sprintf("[parameters('%s')]", paramClusterResourceID))
	}
	group := map[string]any{
		"type":       RuleGroupResourceType,
		"apiVersion": RuleGroupAPIVersion,
		"name":       "[" + ruleGroupNameExpr + "]",
		"location":   fmt.Sprintf("[parameters('%s')]", paramLocation),
		"properties": map[string]any{
			"description": "aksml GPU and training alerts (AKS MLOps best practices): GPU under-utilisation, GPU memory, XID errors, stalled throughput, failed jobs, pending workloads and pods, checkpoints older than the RPO, repeated pod replacement, AKS GPU health conditions, jobs past their expected duration.",
			"scopes":      scopes,
			"clusterName": fmt.Sprintf("[parameters('%s')]", paramClusterName),
			"enabled":     true,
			"interval":    isoDuration(RuleGroupInterval),
			"rules":       azureRules(Rules(s, teamNamespaces, durations...), s.ActionGroupIDs),
		},
	}
	return armdeploy.Template([]map[string]any{group}, map[string]any{
		outputName:       armdeploy.Output("string", "["+ruleGroupNameExpr+"]"),
		outputResourceID: armdeploy.Output("string", fmt.Sprintf("[resourceId('%s', %s)]", RuleGroupResourceType, ruleGroupNameExpr)),
	})
}

// NewAlertRules registers the deployment stack `<name>-rulegroup` of the
// Azure Monitor managed Prometheus rule group (token
// `aksml:observability:AlertRules`). Register it on every run for as long
// as the AKS cluster lives: when Spec.RuleGroupWanted is false its template
// is empty, so switching the rules (or observability) off deletes the rule
// group, where removing the stack would only detach it and leave it
// evaluating (components/armdeploy). Existing clusters use
// Spec.PrometheusRule on NewMonitors instead.
func NewAlertRules(ctx *pulumi.Context, name string, args *AlertRulesArgs, opts ...pulumi.ResourceOption) (*AlertRules, error) {
	if args == nil {
		return nil, errors.New("observability: AlertRulesArgs are required")
	}
	a := *args
	a.Spec.Default()
	if err := a.validate(field.NewPath("AlertRulesArgs")).ToAggregate(); err != nil {
		return nil, err
	}

	c := &AlertRules{}
	if err := ctx.RegisterComponentResource(AlertRulesType, name, c, opts...); err != nil {
		return nil, err
	}
	c.Name = pulumi.String("").ToStringOutput()
	c.ResourceID = pulumi.String("").ToStringOutput()
	template, params := armdeploy.Template(nil, nil), map[string]any(nil)
	if a.Spec.RuleGroupWanted() {
		template = RuleGroupTemplate(a.Spec, a.TeamNamespaces, a.ClusterResourceID != nil, a.WorkloadDurations...)
		params = map[string]any{
			paramClusterName: a.ClusterName,
			paramLocation:    a.Location,
			paramWorkspaceID: a.workspaceID(),
		}
		if a.ClusterResourceID != nil {
			params[paramClusterResourceID] = a.ClusterResourceID
		}
	}
	stack, err := armdeploy.NewTemplateStack(ctx, name+"-rulegroup", &armdeploy.Args{
		ResourceGroupName: a.ResourceGroupName,
		Template:          template,
		Parameters:        params,
		Description:       "aksml managed Prometheus alert rules. Removing the rule group from this template deletes it; deleting the stack detaches it.",
	}, pulumi.Parent(c))
	if err != nil {
		return nil, err
	}
	if a.Spec.RuleGroupWanted() {
		c.Name = armdeploy.OutputString(stack, outputName)
		c.ResourceID = armdeploy.OutputString(stack, outputResourceID)
	}

	if err := ctx.RegisterResourceOutputs(c, pulumi.Map{
		"name":       c.Name,
		"resourceId": c.ResourceID,
	}); err != nil {
		return nil, err
	}
	return c, nil
}
