package stacks

import (
	"fmt"

	"github.com/aksml/aksml/components/workloads"
)

// scheduledScoringConfig is the config of a ScheduledScoring CronJob (CPU
// nodes: no pool).
type scheduledScoringConfig struct {
	ContainerSpec
	// Schedule is the cron schedule, e.g. "0 2 * * *". Default nightly.
	Schedule string `json:"schedule,omitempty"`
}

// KindScheduledScoring is a CronJob on CPU nodes
// (workloads.ScheduledScoring).
const KindScheduledScoring WorkloadKind = "ScheduledScoring"

func init() {
	registerKind(&workloadKind{
		kind: KindScheduledScoring, started: cronJobStartTime,
		config:       func() any { return &scheduledScoringConfig{} },
		zeroDefaults: map[string]string{"schedule": fmt.Sprintf("%q", workloads.DefaultScoringSchedule)},
		build: func(_ *Config, w WorkloadSpec, t workloadTarget) workloadArgs {
			a := &workloads.ScheduledScoringArgs{Common: t.common, Schedule: w.Config.(*scheduledScoringConfig).Schedule}
			a.Default(w.Name)
			return a
		},
		register: register(workloads.NewScheduledScoring),
	})
}
