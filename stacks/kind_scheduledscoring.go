package stacks

import "github.com/aksml/aksml/components/workloads"

// scheduledScoringConfig is the config of a ScheduledScoring CronJob (CPU
// nodes: no pool).
type scheduledScoringConfig struct {
	ContainerSpec
	// Schedule is the cron schedule, e.g. "0 2 * * *". Default nightly.
	Schedule string `json:"schedule,omitempty"`
}

var scheduledScoringKind = workloadKind{
	kind:   KindScheduledScoring,
	config: func() any { return &scheduledScoringConfig{} },
	build: func(_ *Config, w WorkloadSpec, t workloadTarget) workloadArgs {
		a := &workloads.ScheduledScoringArgs{Common: t.common, Schedule: w.Config.(*scheduledScoringConfig).Schedule}
		a.Default(w.Name)
		return a
	},
	register: register(workloads.NewScheduledScoring),
}
