package stacks

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/workloads"
)

// TestSchedulerNamesAgree guards the conversion in target: a workload's
// scheduler is the queueing system queues resolved, by the same name.
func TestSchedulerNamesAgree(t *testing.T) {
	assert.Equal(t, string(queues.SystemKueue), string(workloads.SchedulerKueue))
	assert.Equal(t, string(queues.SystemVolcano), string(workloads.SchedulerVolcano))
	assert.Equal(t, string(queues.SystemNone), string(workloads.SchedulerNone))
	assert.Len(t, workloads.Schedulers, len(queues.Systems))
}
