package observability

import (
	"regexp"
	"slices"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
)

// DefaultConfigPath is the error-path root of a Spec when the caller gives
// no ConfigPath. It carries no program's config namespace: the aksml
// program passes `aksml:observability`.
const DefaultConfigPath = "observability"

// specPath is the caller's ConfigPath, or DefaultConfigPath.
func specPath(p field.Path) field.Path {
	if p == "" {
		return field.NewPath(DefaultConfigPath)
	}
	return p
}

var (
	workspaceIDRE   = regexp.MustCompile(`(?i)^/subscriptions/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/resourceGroups/[-\w._()]{1,90}/providers/Microsoft\.Monitor/accounts/[A-Za-z0-9][-A-Za-z0-9]{2,42}[A-Za-z0-9]$`)
	workspaceNameRE = regexp.MustCompile(`^[A-Za-z0-9][-A-Za-z0-9]{2,42}[A-Za-z0-9]$`)
	grafanaNameRE   = regexp.MustCompile(`^[A-Za-z][-A-Za-z0-9]{0,21}[A-Za-z0-9]$`)
	actionGroupIDRE = regexp.MustCompile(`(?i)^/subscriptions/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/resourceGroups/[-\w._()]{1,90}/providers/Microsoft\.Insights/actionGroups/[^/]{1,260}$`)
	promDurationRE  = regexp.MustCompile(`^([0-9]+h)?([0-9]+m)?([0-9]+s)?$`)
	metricNameRE    = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
)

// Validate checks a defaulted Spec and returns every problem, each naming its
// path below path (the stack passes `aksml:observability`).
func (s Spec) Validate(path field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateRPO(s.RPO, path.Child("rpo"))...)
	if s.GPUIdleThresholdPercent < 1 || s.GPUIdleThresholdPercent > 99 {
		errs = append(errs, field.Invalid(path.Child("gpuIdleThresholdPercent"), "%d is out of range; use 1 to 99 (percent GPU utilisation averaged over 30 minutes)", s.GPUIdleThresholdPercent))
	}
	if s.GPUMemoryThresholdPercent < 50 || s.GPUMemoryThresholdPercent > 99 {
		errs = append(errs, field.Invalid(path.Child("gpuMemoryThresholdPercent"), "%d is out of range; use 50 to 99 (percent of GPU framebuffer in use)", s.GPUMemoryThresholdPercent))
	}
	if s.PodReplacementThreshold < 1 || s.PodReplacementThreshold > 100 {
		errs = append(errs, field.Invalid(path.Child("podReplacementThreshold"), "%d is out of range; use 1 to 100 (replaced pods or container restarts of one job per hour)", s.PodReplacementThreshold))
	}

	interval, ierrs := validatePromDuration(s.ScrapeInterval, path.Child("scrapeInterval"))
	timeout, terrs := validatePromDuration(s.ScrapeTimeout, path.Child("scrapeTimeout"))
	errs = append(errs, ierrs...)
	errs = append(errs, terrs...)
	if len(ierrs) == 0 && len(terrs) == 0 && timeout > interval {
		errs = append(errs, field.Invalid(path.Child("scrapeTimeout"), "%s is longer than scrapeInterval %s; use a timeout no longer than the interval", s.ScrapeTimeout, s.ScrapeInterval))
	}

	errs = append(errs, field.Unique(path.Child("additionalTrainingMetrics"), s.AdditionalTrainingMetrics, "%s", func(p field.Path, m string) *field.Error {
		switch {
		case !metricNameRE.MatchString(m):
			return field.Invalid(p, "%q is not a Prometheus metric name; use letters, digits, '_' and ':', not starting with a digit", m)
		case slices.Contains(TrainingMetrics, m):
			return field.Invalid(p, "%s is always kept; remove it from the list", m)
		}
		return nil
	})...)

	if s.AzureMonitorWorkspaceID != "" && !workspaceIDRE.MatchString(s.AzureMonitorWorkspaceID) {
		errs = append(errs, field.Invalid(path.Child("azureMonitorWorkspaceId"), "%q is not an Azure Monitor workspace resource ID; use /subscriptions/<subscription-guid>/resourceGroups/<group>/providers/Microsoft.Monitor/accounts/<name>", s.AzureMonitorWorkspaceID))
	}
	if s.AzureMonitorWorkspaceName != "" {
		switch {
		case s.AzureMonitorWorkspaceID != "":
			errs = append(errs, field.Forbidden(path.Child("azureMonitorWorkspaceName"), "names a workspace to create, but azureMonitorWorkspaceId already names an existing one; set only one"))
		case !workspaceNameRE.MatchString(s.AzureMonitorWorkspaceName):
			errs = append(errs, field.Invalid(path.Child("azureMonitorWorkspaceName"), "%q is not an Azure Monitor workspace name: use 4-44 letters, digits or '-', starting and ending with a letter or digit", s.AzureMonitorWorkspaceName))
		}
	}
	if l := s.AzureMonitorWorkspaceLocation; l != "" && field.LocationProblem(l) != "" {
		errs = append(errs, field.Invalid(path.Child("azureMonitorWorkspaceLocation"), "%q is not an Azure region name: %s", l, field.LocationProblem(l)))
	}
	if g := s.Grafana; g != nil && g.Enabled {
		switch {
		case g.Name == "":
			errs = append(errs, field.Required(path.Child("grafana").Child("name"), "the Azure Managed Grafana name (2-23 letters, digits or '-'), when grafana.enabled is true; it becomes part of the Grafana URL"))
		case !grafanaNameRE.MatchString(g.Name):
			errs = append(errs, field.Invalid(path.Child("grafana").Child("name"), "%q is not an Azure Managed Grafana name: use 2-23 letters, digits or '-', starting with a letter and ending with a letter or digit", g.Name))
		}
	}
	for i, id := range s.ActionGroupIDs {
		if !actionGroupIDRE.MatchString(id) {
			errs = append(errs, field.Invalid(path.Child("actionGroupIds").Index(i), "%q is not an action group resource ID; use /subscriptions/<subscription-guid>/resourceGroups/<group>/providers/Microsoft.Insights/actionGroups/<name>", id))
		}
	}
	if len(s.ActionGroupIDs) > 0 && !s.PrometheusRuleGroups {
		errs = append(errs, field.Invalid(path.Child("actionGroupIds"), "action groups are only notified by Azure Monitor rule groups; set prometheusRuleGroups: true or remove actionGroupIds"))
	}
	if !slices.Contains(MonitorGroups, s.PodMonitorGroup) {
		errs = append(errs, field.NotSupported(path.Child("podMonitorGroup"), s.PodMonitorGroup, MonitorGroups))
	}
	errs = append(errs, validateLabels(s.Labels, path.Child("labels"))...)
	for _, k := range []string{partOfLabel, DashboardLabel} {
		if _, ok := s.Labels[k]; ok {
			errs = append(errs, field.Invalid(path.Child("labels").Key(k), "aksml sets this label; remove it"))
		}
	}
	return errs
}

func validateRPO(rpo string, path field.Path) field.ErrorList {
	d, err := time.ParseDuration(rpo)
	switch {
	case err != nil:
		return field.ErrorList{field.Invalid(path, "%q is not a duration; write it like \"30m\" or \"2h\"", rpo)}
	case d < MinRPO || d > MaxRPO:
		return field.ErrorList{field.Invalid(path, "%s is out of range; use %s to %s", rpo, MinRPO, MaxRPO)}
	case d%time.Second != 0:
		return field.ErrorList{field.Invalid(path, "%s has a fraction of a second; use whole seconds", rpo)}
	}
	return nil
}

// validatePromDuration checks a scrape duration written the way both
// Prometheus and Go read it (h, m and s units only), between 1s and 5m.
func validatePromDuration(v string, path field.Path) (time.Duration, field.ErrorList) {
	d, err := time.ParseDuration(v)
	if v == "" || !promDurationRE.MatchString(v) || err != nil {
		return 0, field.ErrorList{field.Invalid(path, "%q is not a scrape duration; write it like \"30s\" or \"1m\" (units h, m, s)", v)}
	}
	if d < time.Second || d > 5*time.Minute {
		return 0, field.ErrorList{field.Invalid(path, "%s is out of range; use 1s to 5m", v)}
	}
	return d, nil
}

// validateLabels checks Kubernetes label keys and values.
func validateLabels(labels map[string]string, path field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range sortedKeys(labels) {
		p := path.Key(k)
		if msg := field.LabelKeyProblem(k); msg != "" {
			errs = append(errs, field.Invalid(p, "%q is not a valid label key: %s", k, msg))
		}
		if !field.IsLabelValue(labels[k]) {
			errs = append(errs, field.Invalid(p, "%q is not a valid label value; use at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit", labels[k]))
		}
	}
	return errs
}

func validateNamespace(ns string, path field.Path) field.ErrorList {
	if ns == "" {
		return field.ErrorList{field.Required(path, "a Kubernetes namespace name")}
	}
	if !field.IsDNSLabel(ns) {
		return field.ErrorList{field.Invalid(path, "%q is not a namespace name; use at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit", ns)}
	}
	return nil
}

// validatePortName checks a container port name (IANA_SVC_NAME).
func validatePortName(name string, path field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(path, "the name of the exporter's container port, e.g. \"metrics\"")}
	}
	if !field.IsPortName(name) {
		return field.ErrorList{field.Invalid(path, "%q is not a port name; use at most 15 lowercase letters, digits and single '-', with at least one letter", name)}
	}
	return nil
}

// Validate checks defaulted DCGMExporter settings.
func (d DCGMExporter) Validate(path field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateNamespace(d.Namespace, path.Child("Namespace"))...)
	if len(d.Selector) == 0 {
		errs = append(errs, field.Required(path.Child("Selector"), "the labels of the exporter pods, e.g. app: nvidia-dcgm-exporter"))
	}
	errs = append(errs, validateLabels(d.Selector, path.Child("Selector"))...)
	errs = append(errs, validatePortName(d.PortName, path.Child("PortName"))...)
	return errs
}

// validate checks defaulted MonitorsArgs: the Spec below ConfigPath, the
// rest below path.
func (a *MonitorsArgs) validate(path field.Path) field.ErrorList {
	errs := a.Spec.Validate(specPath(a.ConfigPath))
	errs = append(errs, validateNamespace(a.Namespace, path.Child("Namespace"))...)
	errs = append(errs, a.DCGMExporter.Validate(path.Child("DCGMExporter"))...)
	errs = append(errs, validateTeamNamespaces(a.TeamNamespaces, path.Child("TeamNamespaces"))...)
	errs = append(errs, ValidateWorkloadDurations(a.WorkloadDurations, path.Child("WorkloadDurations"))...)
	if a.KueueNamespace != "" {
		errs = append(errs, validateNamespace(a.KueueNamespace, path.Child("KueueNamespace"))...)
	}
	for i, st := range a.GPUStacks {
		if !slices.Contains(gpupool.GPUStacks, st) {
			errs = append(errs, field.NotSupported(path.Child("GPUStacks").Index(i), st, gpupool.GPUStacks))
		}
	}
	return errs
}

func validateTeamNamespaces(nss []string, path field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, ns := range nss {
		errs = append(errs, validateNamespace(ns, path.Index(i))...)
		if seen[ns] {
			errs = append(errs, field.Duplicate(path.Index(i), "namespace %q is listed twice", ns))
		}
		seen[ns] = true
	}
	return errs
}

// validate checks AlertRulesArgs: the Spec below ConfigPath, the rest below
// path.
func (a *AlertRulesArgs) validate(path field.Path) field.ErrorList {
	errs := a.Spec.Validate(specPath(a.ConfigPath))
	if a.ResourceGroupName == nil {
		errs = append(errs, field.Required(path.Child("ResourceGroupName"), "the resource group the rule group is created in"))
	}
	if !a.Spec.RuleGroupWanted() {
		return errs
	}
	if a.workspaceID() == nil {
		errs = append(errs, field.Required(path.Child("AzureMonitorWorkspaceID"), "the Azure Monitor workspace the rules evaluate (AzureMonitor.WorkspaceID, or "+specPath(a.ConfigPath).Child("azureMonitorWorkspaceId").String()+")"))
	}
	if a.ClusterName == nil {
		errs = append(errs, field.Required(path.Child("ClusterName"), "the AKS cluster name the rules evaluate data of"))
	}
	if a.Location == nil {
		errs = append(errs, field.Required(path.Child("Location"), "the Azure region of the rule group, e.g. the Azure Monitor workspace's region"))
	}
	errs = append(errs, validateTeamNamespaces(a.TeamNamespaces, path.Child("TeamNamespaces"))...)
	errs = append(errs, ValidateWorkloadDurations(a.WorkloadDurations, path.Child("WorkloadDurations"))...)
	return errs
}

// ValidateWorkloadDurations checks the per-workload expected durations;
// path indexes them (the stack passes each workload's own key instead, see
// ValidateExpectedDuration).
func ValidateWorkloadDurations(ds []WorkloadDuration, path field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, d := range ds {
		p := path.Index(i)
		errs = append(errs, validateNamespace(d.Namespace, p.Child("Namespace"))...)
		if !field.IsDNSLabel(d.Name) {
			errs = append(errs, field.Invalid(p.Child("Name"), "%q is not a Job or CronJob name; use at most 63 lowercase letters, digits and '-'", d.Name))
		}
		if d.Expected < MinExpectedDuration || d.Expected > MaxExpectedDuration {
			errs = append(errs, field.Invalid(p.Child("Expected"), "%s is out of range; use %s to %s", d.Expected, promDuration(MinExpectedDuration), promDuration(MaxExpectedDuration)))
		}
		id := d.Namespace + "/" + d.Name
		if seen[id] {
			errs = append(errs, field.Duplicate(p, "%s has two expected durations; keep one", id))
		}
		seen[id] = true
	}
	return errs
}

// ParseExpectedDuration parses a workload's expectedDuration, a Go
// duration in whole minutes such as "4h" or "90m", between
// MinExpectedDuration and MaxExpectedDuration. The error says what to write.
func ParseExpectedDuration(v string, path field.Path) (time.Duration, field.ErrorList) {
	d, err := time.ParseDuration(v)
	switch {
	case err != nil:
		return 0, field.ErrorList{field.Invalid(path, "%q is not a duration; write it like \"4h\" or \"90m\"", v)}
	case d < MinExpectedDuration || d > MaxExpectedDuration:
		return 0, field.ErrorList{field.Invalid(path, "%s is out of range; use %s to %s", v, promDuration(MinExpectedDuration), promDuration(MaxExpectedDuration))}
	case d%time.Minute != 0:
		return 0, field.ErrorList{field.Invalid(path, "%s is not whole minutes; round it to minutes", v)}
	}
	return d, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// workspaceID is the workspace the rule group evaluates, or nil when none
// is given.
func (a *AlertRulesArgs) workspaceID() pulumi.StringInput {
	switch {
	case a.AzureMonitorWorkspaceID != nil:
		return a.AzureMonitorWorkspaceID
	case a.Spec.AzureMonitorWorkspaceID != "":
		return pulumi.String(a.Spec.AzureMonitorWorkspaceID)
	}
	return nil
}
