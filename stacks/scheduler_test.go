package stacks

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/cluster"
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

// TestProvisioningRequestOnEveryAcceptedMinor keeps the version rule of
// aksml:scheduler.provisioning true without a check at preview: the AKS
// sample for ProvisioningRequest needs Kubernetes
// queues.ProvisioningRequestMinKubernetes or later, and every minor a
// cluster aksml creates may run (components/cluster KubernetesMinors, which
// refuses any other at preview) is at least that. Adding an older minor to
// the calendar fails here: then validate the pool's cluster version.
func TestProvisioningRequestOnEveryAcceptedMinor(t *testing.T) {
	least := minorNumber(t, queues.ProvisioningRequestMinKubernetes)
	require.NotEmpty(t, cluster.KubernetesMinors)
	for _, m := range cluster.KubernetesMinors {
		assert.GreaterOrEqual(t, minorNumber(t, m), least, "Kubernetes %s is older than %s, the oldest the AKS ProvisioningRequest sample supports", m, queues.ProvisioningRequestMinKubernetes)
	}
}

// minorNumber is the minor of a "1.MINOR" version.
func minorNumber(t *testing.T, v string) int {
	t.Helper()
	major, minor, ok := strings.Cut(v, ".")
	require.True(t, ok && major == "1", "%q is not a 1.MINOR version", v)
	n, err := strconv.Atoi(minor)
	require.NoError(t, err)
	return n
}
