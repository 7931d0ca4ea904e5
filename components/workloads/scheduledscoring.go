package workloads

import (
	"regexp"
	"slices"
	"strings"
	"time"

	batchv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/batch/v1"
	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
)

// ConcurrencyPolicies are the valid CronJob concurrency policies.
var ConcurrencyPolicies = []string{"Forbid", "Replace", "Allow"}

var (
	timeZoneRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+)*$`)
)

// ScheduledScoringArgs describe nightly batch scoring as a batch/v1 CronJob
// on CPU nodes (SPEC C7.3; AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) "Best practices for running batch jobs": a CronJob for scheduled work, with
// retry limits, deadlines and cleanup). The pods never tolerate the GPU
// taint and request no GPU. Scheduler defaults to none; with Kueue, name a
// LocalQueue with a CPU flavour in QueueName.
type ScheduledScoringArgs struct {
	Common
	// Schedule is a five-field cron expression or a macro (@daily...).
	// Default "0 2 * * *" (nightly at 02:00). Time zones go in TimeZone.
	Schedule string
	// TimeZone is an IANA zone such as "Europe/Lisbon". Default: the
	// controller's zone (UTC on AKS).
	TimeZone string
	// ConcurrencyPolicy is Forbid (default), Replace or Allow.
	ConcurrencyPolicy string
	// StartingDeadlineSeconds skips a run not started this long after its
	// time. Default 600.
	StartingDeadlineSeconds int
	// SuccessfulJobsHistoryLimit is the finished runs kept. Default 3.
	SuccessfulJobsHistoryLimit int
	// FailedJobsHistoryLimit is the failed runs kept. Default 3.
	FailedJobsHistoryLimit int
	// BackoffLimit is each run's retry budget. Default 2.
	BackoffLimit int
	// ActiveDeadlineSeconds bounds each run. Default 21600 (6 h).
	ActiveDeadlineSeconds int
	// TTLSecondsAfterFinished removes each finished run. Default 86400.
	TTLSecondsAfterFinished int
	// TerminationGracePeriodSeconds is the SIGTERM-to-SIGKILL time. Default 120.
	TerminationGracePeriodSeconds int
	// NonRetryableExitCodes fail the run at once. Default none; 1..255.
	NonRetryableExitCodes []int
	// NodeSelector places the pods on a CPU pool, e.g.
	// {"kubernetes.azure.com/agentpool": "cpu"}. It may not select GPU
	// nodes. Default none.
	NodeSelector map[string]string
}

// Default fills unset fields with their documented defaults.
func (a *ScheduledScoringArgs) Default(name string) {
	a.applyDefaults(name, commonDefaults{shm: DefaultScoringShmSize})
	if a.Schedule == "" {
		a.Schedule = DefaultScoringSchedule
	}
	if a.ConcurrencyPolicy == "" {
		a.ConcurrencyPolicy = DefaultConcurrencyPolicy
	}
	a.StartingDeadlineSeconds = orDefault(a.StartingDeadlineSeconds, DefaultStartingDeadlineSeconds)
	a.SuccessfulJobsHistoryLimit = orDefault(a.SuccessfulJobsHistoryLimit, DefaultSuccessfulJobsHistoryLimit)
	a.FailedJobsHistoryLimit = orDefault(a.FailedJobsHistoryLimit, DefaultFailedJobsHistoryLimit)
	a.BackoffLimit = orDefault(a.BackoffLimit, DefaultScoringBackoffLimit)
	a.ActiveDeadlineSeconds = orDefault(a.ActiveDeadlineSeconds, DefaultScoringActiveDeadlineSeconds)
	a.TTLSecondsAfterFinished = orDefault(a.TTLSecondsAfterFinished, DefaultTTLSecondsAfterFinished)
	a.TerminationGracePeriodSeconds = orDefault(a.TerminationGracePeriodSeconds, DefaultTerminationGracePeriodSeconds)
}

// Validate checks defaulted args and returns every problem.
func (a *ScheduledScoringArgs) Validate(p field.Path) field.ErrorList {
	errs := a.validate(p, false, MaxCronJobNameLength)
	if a.Resources.GPUs != 0 {
		errs = append(errs, field.Forbidden(p.Child("resources").Child("gpus"), "scheduled scoring runs on CPU nodes and may not request %s; use a CheckpointedJob or IndexedJob on a batch-inference GPU pool", gpupool.GPUResource))
	}
	errs = append(errs, validateSchedule(a.Schedule, p.Child("schedule"))...)
	if a.TimeZone != "" {
		if _, err := time.LoadLocation(a.TimeZone); err != nil || a.TimeZone == "Local" || !timeZoneRE.MatchString(a.TimeZone) {
			errs = append(errs, field.Invalid(p.Child("timeZone"), "%q is not an IANA time zone; write e.g. \"Europe/Lisbon\" or \"UTC\"", a.TimeZone))
		}
	}
	if !slices.Contains(ConcurrencyPolicies, a.ConcurrencyPolicy) {
		errs = append(errs, field.NotSupported(p.Child("concurrencyPolicy"), a.ConcurrencyPolicy, ConcurrencyPolicies))
	}
	errs = append(errs, validatePositive(a.StartingDeadlineSeconds, p.Child("startingDeadlineSeconds"))...)
	errs = append(errs, validatePositive(a.SuccessfulJobsHistoryLimit, p.Child("successfulJobsHistoryLimit"))...)
	errs = append(errs, validatePositive(a.FailedJobsHistoryLimit, p.Child("failedJobsHistoryLimit"))...)
	errs = append(errs, validateJobLifecycle(a.BackoffLimit, a.ActiveDeadlineSeconds, a.TTLSecondsAfterFinished, a.TerminationGracePeriodSeconds, p)...)
	errs = append(errs, validateExitCodes(a.NonRetryableExitCodes, p.Child("nonRetryableExitCodes"))...)
	for _, k := range sortedKeys(a.NodeSelector) {
		kp := p.Child("nodeSelector").Key(k)
		errs = append(errs, validateLabelKey(k, kp)...)
		errs = append(errs, validateLabelValue(a.NodeSelector[k], kp)...)
		if k == gpupool.AcceleratorLabel || strings.HasPrefix(k, "nvidia.com/") {
			errs = append(errs, field.Forbidden(kp, "selects GPU nodes; scheduled scoring runs on CPU nodes and does not tolerate the GPU taint"))
		}
	}
	return errs
}

// validateSchedule checks a cron schedule: a macro or five fields, with no
// TZ prefix (Kubernetes rejects it; use timeZone).
func validateSchedule(s string, p field.Path) field.ErrorList {
	if strings.HasPrefix(s, "TZ=") || strings.HasPrefix(s, "CRON_TZ=") {
		return field.ErrorList{field.Invalid(p, "%q carries a time zone; put the zone in timeZone and keep the schedule to five fields", s)}
	}
	if msg := field.CronProblem(s); msg != "" {
		return field.ErrorList{field.Invalid(p, "%q is not a cron schedule (%s); write five fields (minute 0-59, hour 0-23, day of month 1-31, month 1-12, day of week 0-6) or a descriptor such as @daily, e.g. \"0 2 * * *\"", s, msg)}
	}
	return nil
}

// scheduledScoringArgs maps defaulted args to the CronJob's provider
// arguments. The job template carries the Kueue labels and starts
// suspended when Kueue admits the runs.
func scheduledScoringArgs(a *ScheduledScoringArgs) *batchv1.CronJobArgs {
	c := &a.Common
	ps := podSpec{
		common:       c,
		kind:         kindScheduledScoring,
		container:    "scorer",
		resources:    a.Resources,
		nodeSelector: a.NodeSelector,
	}
	js := batchJob(ps, jobRun{a.BackoffLimit, a.ActiveDeadlineSeconds, a.TTLSecondsAfterFinished, a.TerminationGracePeriodSeconds, a.NonRetryableExitCodes}, actionFailJob)
	tmplMeta := metav1.ObjectMetaArgs{Labels: pulumi.ToStringMap(merge(objectLabels(c, kindScheduledScoring), queueLabels(c)))}
	if ann := volcanoJobAnnotations(c, 1); len(ann) > 0 {
		tmplMeta.Annotations = pulumi.ToStringMap(ann)
	}
	spec := batchv1.CronJobSpecArgs{
		Schedule:                   pulumi.String(a.Schedule),
		ConcurrencyPolicy:          pulumi.String(a.ConcurrencyPolicy),
		StartingDeadlineSeconds:    pulumi.Int(a.StartingDeadlineSeconds),
		SuccessfulJobsHistoryLimit: pulumi.Int(a.SuccessfulJobsHistoryLimit),
		FailedJobsHistoryLimit:     pulumi.Int(a.FailedJobsHistoryLimit),
		JobTemplate:                batchv1.JobTemplateSpecArgs{Metadata: tmplMeta, Spec: jobSpecArgs(js)},
	}
	if a.TimeZone != "" {
		spec.TimeZone = pulumi.String(a.TimeZone)
	}
	return &batchv1.CronJobArgs{
		Metadata: objectMeta(c, objectLabels(c, kindScheduledScoring), awaitAnnotations(c)),
		Spec:     spec,
	}
}

// ScheduledScoring is a nightly batch-scoring CronJob on CPU nodes.
type ScheduledScoring struct {
	pulumi.ResourceState
	// Object is the CronJob's name and namespace.
	Object
}

var scheduledScoringKind = kind[ScheduledScoringArgs, *ScheduledScoringArgs]{
	token: ScheduledScoringType, what: "ScheduledScoringArgs",
	children: func(ctx *pulumi.Context, name string, a *ScheduledScoringArgs, c pulumi.ComponentResource, opts []pulumi.ResourceOption) (metaOutput, error) {
		cj, err := batchv1.NewCronJob(ctx, name+"-cronjob", scheduledScoringArgs(a), childOptions(c, opts)...)
		if err != nil {
			return nil, err
		}
		return cj.Metadata, nil
	},
}

// NewScheduledScoring registers a ScheduledScoring (token
// aksml:workloads:ScheduledScoring) and its CronJob child `name-cronjob`.
func NewScheduledScoring(ctx *pulumi.Context, name string, args *ScheduledScoringArgs, opts ...pulumi.ResourceOption) (*ScheduledScoring, error) {
	return newWorkload(ctx, scheduledScoringKind, name, args, &ScheduledScoring{}, opts)
}

// targetPool is nil: scheduled scoring runs on CPU nodes.
func (a *ScheduledScoringArgs) targetPool() *gpupool.Resolved { return nil }
