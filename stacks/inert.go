package stacks

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/observability"
	"github.com/aksml/aksml/components/workloads"
)

// Settings that mean nothing in the mode they are written in (issue 33,
// class 3): a key whose section is switched off by another key would be
// accepted and ignored, so the user believes it is in effect. Each is
// refused naming the key, the key that switches it off, and both fixes.

// inertRule is one section whose keys (other than keep) are ignored while
// off says so.
type inertRule struct {
	// path is the section's key below aksml: ("observability",
	// "cluster.logs").
	path string
	// keep are the section's keys that are honoured while off.
	keep []string
	// off reports whether the section is switched off, and by what.
	off func(c *Config) (bool, string)
}

var inertRules = []inertRule{
	{path: "observability", keep: []string{"enabled"}, off: func(c *Config) (bool, string) {
		return !c.Observability.IsEnabled(), "aksml:observability.enabled is false, so aksml creates no monitors, alerts, dashboard or Azure Monitor side"
	}},
	{path: "observability.grafana", keep: []string{"enabled"}, off: func(c *Config) (bool, string) {
		g := c.Observability.Grafana
		return g != nil && !g.Enabled && c.Observability.IsEnabled(), "aksml:observability.grafana.enabled is false, so no Grafana is created"
	}},
	// Both log routes off: no workspace is created or written to
	// (cluster.LogsSpec.Wanted).
	{path: "cluster.logs", keep: []string{"containerInsights", "auditLogs"}, off: func(c *Config) (bool, string) {
		return c.Cluster != nil && !c.Cluster.Logs.Wanted(), "aksml:cluster.logs.containerInsights and auditLogs are both false, so no Log Analytics workspace is created or written to"
	}},
	{path: "cluster.defender", keep: []string{"enabled"}, off: func(c *Config) (bool, string) {
		return c.Cluster != nil && !c.Cluster.Defender.Enabled, "aksml:cluster.defender.enabled is false, so Defender reports to no workspace"
	}},
}

// inertSettings returns a problem for every key written in raw that the
// config switches off (inertRules), and for the single keys that only mean
// something when another is on.
func inertSettings(raw map[string]string, c *Config) field.ErrorList {
	var errs field.ErrorList
	for _, r := range inertRules {
		off, why := r.off(c)
		if !off {
			continue
		}
		section := writtenAt(raw, r.path)
		for _, k := range sortedKeys(section) {
			if slices.Contains(r.keep, k) {
				continue
			}
			errs = append(errs, field.Invalid(key(r.path).Child(k), "means nothing here: %s; remove it, or turn the section on", why))
		}
	}
	if c.Cluster != nil && c.Cluster.Logs.Wanted() && c.Cluster.Logs.AuditLogs != nil && !*c.Cluster.Logs.AuditLogs {
		if _, ok := writtenAt(raw, "cluster.logs")["auditCategories"]; ok {
			errs = append(errs, field.Invalid(key("cluster").Child("logs").Child("auditCategories"), "means nothing here: aksml:cluster.logs.auditLogs is false, so no control-plane log category is sent; remove it, or set auditLogs: true"))
		}
	}
	if _, ok := raw[Namespace+":tags"]; ok && c.ExistingCluster != nil {
		errs = append(errs, field.Invalid(key("tags"), "means nothing here: tags go on the Azure resources aksml creates, and with aksml:existingCluster it creates none; remove it (tag the cluster where it is created)"))
	}
	if !c.KubernetesLayerOn() {
		for _, k := range []string{"gpuStack", "trainingOperator"} {
			if _, ok := raw[Namespace+":"+k]; ok {
				errs = append(errs, field.Invalid(key(k), "is deployed by the Kubernetes layer, which aksml:kubernetesLayer: false leaves to the Kubernetes-layer stack; move it there"))
			}
		}
	}
	if c.GPUStack.DCGMExporter != nil && !*c.GPUStack.DCGMExporter {
		if _, ok := writtenAt(raw, "gpuStack")["dcgmExporterImage"]; ok {
			errs = append(errs, field.Invalid(key("gpuStack").Child("dcgmExporterImage"), "means nothing here: aksml:gpuStack.dcgmExporter is false, so no DCGM exporter runs; remove it, or set dcgmExporter: true"))
		}
	}
	return errs
}

// writtenAt returns the object written at a dotted path below aksml: (nil
// when absent or not an object).
func writtenAt(raw map[string]string, path string) map[string]any {
	parts := strings.Split(path, ".")
	var cur any
	if err := json.Unmarshal([]byte(raw[Namespace+":"+parts[0]]), &cur); err != nil {
		return nil
	}
	for _, p := range parts[1:] {
		m, _ := cur.(map[string]any)
		cur = m[p]
	}
	m, _ := cur.(map[string]any)
	return m
}

// validateDurationReachable checks that a workload's expectedDuration can
// fire: its WorkloadDurationOverrun rule exists only with observability on,
// and a run is stopped at its Job's activeDeadlineSeconds ("Jobs", Job
// termination and cleanup,
// https://kubernetes.io/docs/concepts/workloads/controllers/job/#job-termination-and-cleanup),
// so an expected duration at or past that deadline is never exceeded.
func (c *Config) validateDurationReachable(w WorkloadSpec, args workloadArgs, path field.Path) field.ErrorList {
	if w.ExpectedDuration == "" {
		return nil
	}
	if !c.Observability.IsEnabled() {
		return field.ErrorList{field.Invalid(path, "has nowhere to alert: aksml:observability.enabled is false, so no WorkloadDurationOverrun rule is created; remove expectedDuration, or turn observability on")}
	}
	d, errs := observability.ParseExpectedDuration(w.ExpectedDuration, path)
	deadline := time.Duration(runDeadline(args)) * time.Second
	if len(errs) > 0 || deadline == 0 || d < deadline {
		return nil
	}
	return field.ErrorList{field.Invalid(path, "%s cannot be exceeded: the run is stopped at its deadline (activeDeadlineSeconds %d, %s) first, so WorkloadDurationOverrun never fires; set expectedDuration below %s", w.ExpectedDuration, int(deadline.Seconds()), fmtDuration(deadline), fmtDuration(deadline))}
}

// runDeadline is the defaulted activeDeadlineSeconds of a Job kind's args,
// 0 for the other kinds.
func runDeadline(args workloadArgs) int {
	switch a := args.(type) {
	case *workloads.CheckpointedJobArgs:
		return a.ActiveDeadlineSeconds
	case *workloads.IndexedJobArgs:
		return a.ActiveDeadlineSeconds
	case *workloads.MIGTrialArgs:
		return a.ActiveDeadlineSeconds
	case *workloads.ScheduledScoringArgs:
		return a.ActiveDeadlineSeconds
	}
	return 0
}

// fmtDuration writes d as whole hours ("24h") or minutes ("90m").
func fmtDuration(d time.Duration) string {
	if d%time.Hour == 0 {
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dm", int(d.Minutes()))
}
