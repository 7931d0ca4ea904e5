package observability

import "encoding/json"

// The AKS MLOps best practices' dashboard queries, verbatim (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) "Create GPU and throughput dashboards").
const (
	// QueryGPUUtilisation is GPU utilisation per workload pod and GPU.
	QueryGPUUtilisation = "avg by (namespace, pod, gpu) (\n  avg_over_time(DCGM_FI_DEV_GPU_UTIL[5m])\n)"
	// QueryFramebufferPercent is framebuffer memory use in percent.
	QueryFramebufferPercent = "100 *\nDCGM_FI_DEV_FB_USED\n/\n(DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE)"
	// QuerySamplesPerSecond is training samples processed per second per job.
	QuerySamplesPerSecond = "sum by (job_name) (\n  rate(ml_training_samples_total[5m])\n)"
	// QueryStepDuration is the average step duration per job.
	QueryStepDuration = "avg by (job_name) (\n  ml_training_step_duration_seconds\n)"
)

// Grafana dashboard JSON model, with only the fields this dashboard sets.
type dashboard struct {
	UID           string     `json:"uid"`
	Title         string     `json:"title"`
	Description   string     `json:"description"`
	Tags          []string   `json:"tags"`
	Timezone      string     `json:"timezone"`
	Editable      bool       `json:"editable"`
	SchemaVersion int        `json:"schemaVersion"`
	Version       int        `json:"version"`
	Refresh       string     `json:"refresh"`
	Time          timeRange  `json:"time"`
	Templating    templating `json:"templating"`
	Panels        []panel    `json:"panels"`
}

type timeRange struct {
	From string `json:"from"`
	To   string `json:"to"`
}

type templating struct {
	List []variable `json:"list"`
}

type variable struct {
	Name  string `json:"name"`
	Label string `json:"label"`
	Type  string `json:"type"`
	Query string `json:"query"`
}

type datasourceRef struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

type panel struct {
	ID          int           `json:"id"`
	Type        string        `json:"type"`
	Title       string        `json:"title"`
	Description string        `json:"description"`
	Datasource  datasourceRef `json:"datasource"`
	GridPos     gridPos       `json:"gridPos"`
	FieldConfig fieldConfig   `json:"fieldConfig"`
	Targets     []target      `json:"targets"`
}

type gridPos struct {
	H int `json:"h"`
	W int `json:"w"`
	X int `json:"x"`
	Y int `json:"y"`
}

type fieldConfig struct {
	Defaults  fieldDefaults `json:"defaults"`
	Overrides []any         `json:"overrides"`
}

type fieldDefaults struct {
	Unit string `json:"unit"`
	Min  *int   `json:"min,omitempty"`
	Max  *int   `json:"max,omitempty"`
}

type target struct {
	RefID        string        `json:"refId"`
	Datasource   datasourceRef `json:"datasource"`
	Expr         string        `json:"expr"`
	LegendFormat string        `json:"legendFormat"`
}

// promDatasource points panels at the dashboard's data source variable, so
// the dashboard imports into any Grafana (Azure Managed Grafana included)
// and asks for the Azure Monitor workspace's Prometheus data source.
var promDatasource = datasourceRef{Type: "prometheus", UID: "${datasource}"}

// DashboardJSON returns the Grafana dashboard built from the AKS MLOps best practices' four
// PromQL queries: GPU utilisation, framebuffer use, training samples per
// second and average step duration, read together as AKS MLOps best practices advises (low
// GPU utilisation with high data wait points at the input pipeline; falling
// throughput at steady utilisation at communication or sequence length). The
// result is deterministic, so it diffs cleanly; import it into Azure Managed
// Grafana or let a Grafana dashboard sidecar load the ConfigMap.
func DashboardJSON() string {
	zero, hundred := 0, 100
	d := dashboard{
		UID:           DashboardUID,
		Title:         "aksml GPU utilisation and training throughput",
		Description:   "GPU utilisation and memory from the DCGM exporter with training throughput and step duration from the training jobs' /metrics (AKS MLOps best practices).",
		Tags:          []string{"aksml", "gpu", "training"},
		Timezone:      "browser",
		Editable:      true,
		SchemaVersion: 39,
		Version:       1,
		Refresh:       "1m",
		Time:          timeRange{From: "now-6h", To: "now"},
		Templating: templating{List: []variable{{
			Name: "datasource", Label: "Prometheus", Type: "datasource", Query: "prometheus",
		}}},
		Panels: []panel{
			timeseries(1, "GPU utilisation", "Average GPU utilisation per workload pod and GPU over 5 minutes. Low utilisation on allocated GPUs is idle capacity.",
				QueryGPUUtilisation, "{{namespace}}/{{pod}} GPU {{gpu}}", "percent", &zero, &hundred, gridPos{H: 8, W: 12, X: 0, Y: 0}),
			timeseries(2, "GPU framebuffer memory used", "Framebuffer memory in use. High use with recurring out-of-memory errors means batch size, sequence length, activations or optimizer state need tuning.",
				QueryFramebufferPercent, "{{Hostname}}{{node}} GPU {{gpu}}", "percent", &zero, &hundred, gridPos{H: 8, W: 12, X: 12, Y: 0}),
			timeseries(3, "Training samples per second", "Samples (or tokens) processed per second per training job.",
				QuerySamplesPerSecond, "{{job_name}}", "short", &zero, nil, gridPos{H: 8, W: 12, X: 0, Y: 8}),
			timeseries(4, "Average step duration", "Average optimizer step duration per training job.",
				QueryStepDuration, "{{job_name}}", "s", &zero, nil, gridPos{H: 8, W: 12, X: 12, Y: 8}),
		},
	}
	// Marshalling a struct of strings, ints and slices cannot fail.
	out, _ := json.MarshalIndent(d, "", "  ")
	return string(out)
}

func timeseries(id int, title, description, expr, legend, unit string, lo, hi *int, pos gridPos) panel {
	return panel{
		ID:          id,
		Type:        "timeseries",
		Title:       title,
		Description: description,
		Datasource:  promDatasource,
		GridPos:     pos,
		FieldConfig: fieldConfig{Defaults: fieldDefaults{Unit: unit, Min: lo, Max: hi}, Overrides: []any{}},
		Targets:     []target{{RefID: "A", Datasource: promDatasource, Expr: expr, LegendFormat: legend}},
	}
}
