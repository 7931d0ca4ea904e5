package conformance

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/aksml/aksml/components/observability"
)

// dcgmPrefix is the prefix of every series the NVIDIA DCGM exporter serves
// (NVIDIA dcgm-exporter, default-counters.csv,
// https://github.com/NVIDIA/dcgm-exporter): a scrape of the exporter without
// a keep filter ingests them all.
const dcgmPrefix = "DCGM_FI_"

// keepListLine is the kube-state-metrics line of the add-on's
// default-targets-metrics-keep-list ("Customize scraping of Prometheus
// metrics in Azure Monitor managed service for Prometheus",
// https://learn.microsoft.com/azure/azure-monitor/containers/prometheus-metrics-scrape-configmap).
var keepListLine = regexp.MustCompile(`kubestate\s*=\s*"([^"]*)"`)

// collection is what the managed Prometheus add-on ingests on the stack's
// cluster, as the stack's Kubernetes objects configure it.
type collection struct {
	// keep are full-match regexes over metric names: the settings
	// ConfigMap's kube-state-metrics keep-list and the `keep` relabelings
	// on __name__ of the stack's PodMonitors and ServiceMonitors.
	keep []*regexp.Regexp
	// dcgm says a scrape of the DCGM exporter without a keep filter exists.
	dcgm bool
}

// collectionOf reads the collection from the stack's Kubernetes objects.
func collectionOf(s *State) collection {
	var c collection
	for _, r := range s.kubernetesObjects() {
		in := r.Inputs
		name := str(getPath(in, "metadata", "name"))
		switch str(in["kind"]) {
		case "ConfigMap":
			data := mapOf(in["data"])
			if name == observability.AMASettingsConfigMapName {
				if m := keepListLine.FindStringSubmatch(str(data["default-targets-metrics-keep-list"])); m != nil && m[1] != "" {
					c.keep = append(c.keep, regexp.MustCompile("^(?:"+m[1]+")$"))
				}
			}
			if name == observability.AMAPrometheusConfigMapName && strings.Contains(str(data[observability.AMAPrometheusConfigKey]), "dcgm") {
				c.dcgm = true
			}
		case "PodMonitor", "ServiceMonitor":
			endpoints := listOf(getPath(in, "spec", "podMetricsEndpoints"))
			endpoints = append(endpoints, listOf(getPath(in, "spec", "endpoints"))...)
			filtered := false
			for _, e := range endpoints {
				for _, rl := range listOf(mapOf(e)["metricRelabelings"]) {
					m := mapOf(rl)
					if str(m["action"]) == "keep" && slices.Equal(listOf(m["sourceLabels"]), []any{"__name__"}) {
						filtered = true
						if re, err := regexp.Compile("^(?:" + str(m["regex"]) + ")$"); err == nil {
							c.keep = append(c.keep, re)
						}
					}
				}
			}
			if !filtered && strings.Contains(name, "dcgm") {
				c.dcgm = true
			}
		}
	}
	return c
}

// ingests reports whether the collection ingests metric: the minimal
// ingestion profile's kube-state-metrics series, a keep regex, or the DCGM
// exporter's series when it is scraped whole.
func (c collection) ingests(metric string) bool {
	if slices.Contains(observability.MinimalKubeStateMetrics, metric) || (c.dcgm && strings.HasPrefix(metric, dcgmPrefix)) {
		return true
	}
	return slices.ContainsFunc(c.keep, func(re *regexp.Regexp) bool { return re.MatchString(metric) })
}

// checkAlertSeries: every alert of every Prometheus rule group reads only
// series the cluster's collection ingests (CONF-MON-002).
func checkAlertSeries(s *State) []Finding {
	groups := s.BodiesOf(typeRuleGroup)
	if len(groups) == 0 {
		return nil
	}
	c := collectionOf(s)
	var out []Finding
	for _, g := range groups {
		for i, r := range listOf(getPath(g.Value, "properties", "rules")) {
			rule := mapOf(r)
			alert := str(rule["alert"])
			if alert == "" {
				continue // a recording rule writes a series, it does not alert
			}
			for _, m := range observability.MetricsRead(str(rule["expression"])) {
				if !c.ingests(m) {
					out = append(out, findingOn(g, fmt.Sprintf("properties.rules[%d]", i),
						"alert %s reads %s, which the cluster's collection does not ingest (not in the minimal ingestion profile, no keep-list of %s or monitor keeps it): it can never fire",
						alert, m, observability.AMASettingsConfigMapName))
				}
			}
		}
	}
	return out
}
