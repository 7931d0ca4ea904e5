package provider

import (
	"time"

	"github.com/pulumi/pulumi-go-provider/infer"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/observability"
)

// MonitorsArgs are the inputs of aksml:observability:Monitors
// (observability.MonitorsArgs): the GPU, training and Kueue scrapes, the
// dashboard and the optional PrometheusRule on any cluster. Resources the
// monitors must wait for go in the `dependsOn` resource option, which
// NewMonitors passes on to every monitor.
type MonitorsArgs struct {
	Spec              *observability.Spec         `pulumi:"spec,optional"`
	GPUStacks         []string                    `pulumi:"gpuStacks,optional"`
	DCGMExporter      *observability.DCGMExporter `pulumi:"dcgmExporter,optional"`
	Namespace         *string                     `pulumi:"namespace,optional"`
	TeamNamespaces    []string                    `pulumi:"teamNamespaces,optional"`
	WorkloadDurations []WorkloadDuration          `pulumi:"workloadDurations,optional"`
	KueueNamespace    *string                     `pulumi:"kueueNamespace,optional"`
}

// WorkloadDuration is observability.WorkloadDuration with the expected
// duration as text.
type WorkloadDuration struct {
	Namespace string `pulumi:"namespace"`
	Name      string `pulumi:"name"`
	CronJob   *bool  `pulumi:"cronJob,optional"`
	Expected  string `pulumi:"expected"`
}

// Annotate keeps the Go type's token and documents Expected, the one field
// whose type differs from the Go one.
func (w *WorkloadDuration) Annotate(an infer.Annotator) {
	an.SetToken("observability", "WorkloadDuration")
	an.Describe(&w.Expected, "How long one run may stay active, a duration such as \"4h\" or \"90m\" (5m to 720h); longer raises WorkloadDurationOverrun.")
}

// NewMonitors constructs observability.Monitors.
func NewMonitors(ctx *pulumi.Context, name string, args MonitorsArgs, opts ...pulumi.ResourceOption) (*observability.Monitors, error) {
	a := &observability.MonitorsArgs{
		Spec:           deref(args.Spec),
		DCGMExporter:   deref(args.DCGMExporter),
		Namespace:      deref(args.Namespace),
		TeamNamespaces: args.TeamNamespaces,
		KueueNamespace: deref(args.KueueNamespace),
	}
	// The `dependsOn` resource option reaches every monitor: children do
	// not inherit their parent's dependencies, which is what the Go Args'
	// DependsOn is for.
	if ro, err := pulumi.NewResourceOptions(opts...); err == nil {
		a.DependsOn = ro.DependsOn
	}
	for _, s := range args.GPUStacks {
		a.GPUStacks = append(a.GPUStacks, gpupool.GPUStack(s))
	}
	// The durations are parsed here, the one conversion the Go Args do not
	// have; the path is the one the Go component's errors use.
	var errs field.ErrorList
	for i, w := range args.WorkloadDurations {
		d, err := time.ParseDuration(w.Expected)
		if err != nil {
			errs = append(errs, field.Invalid(field.NewPath("MonitorsArgs").Child("WorkloadDurations").Index(i).Child("Expected"), "%q is not a duration; write e.g. 4h or 90m", w.Expected))
		}
		a.WorkloadDurations = append(a.WorkloadDurations, observability.WorkloadDuration{Namespace: w.Namespace, Name: w.Name, CronJob: deref(w.CronJob), Expected: d})
	}
	if err := errs.ToAggregate(); err != nil {
		return nil, err
	}
	return observability.NewMonitors(ctx, name, a, opts...)
}
