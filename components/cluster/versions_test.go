package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// staleMinors returns the minors of cal whose end of life is before now.
func staleMinors(cal []KubernetesMinor, now time.Time) []string {
	var out []string
	for _, m := range cal {
		if now.After(m.EndOfLife.Add(24*time.Hour - time.Nanosecond)) {
			out = append(out, m.Minor+" (end of life "+m.EndOfLife.Format("2006-01-02")+")")
		}
	}
	return out
}

// TestCalendarIsCurrent fails once a listed minor passes the end of life
// the calendar records, so the list cannot silently keep offering a
// version AKS no longer creates clusters on: remove that row (see
// KubernetesCalendar).
func TestCalendarIsCurrent(t *testing.T) {
	assert.Empty(t, staleMinors(KubernetesCalendar, time.Now().UTC()),
		"AKS has ended community support for these minors: remove them from KubernetesCalendar in components/cluster/versions.go (and add the newer minors of https://learn.microsoft.com/azure/aks/supported-kubernetes-versions#aks-kubernetes-release-calendar)")
}

func TestStaleMinorsSeesEndOfLife(t *testing.T) {
	cal := []KubernetesMinor{{Minor: "1.34", EndOfLife: endOfMonth(2026, time.November)}}
	assert.Empty(t, staleMinors(cal, time.Date(2026, time.November, 30, 23, 0, 0, 0, time.UTC)), "the last day is still supported")
	assert.Equal(t, []string{"1.34 (end of life 2026-11-30)"}, staleMinors(cal, time.Date(2026, time.December, 1, 0, 0, 0, 0, time.UTC)))
}

func TestCalendarIsOrdered(t *testing.T) {
	require.NotEmpty(t, KubernetesCalendar)
	for i, m := range KubernetesCalendar {
		assert.True(t, m.GA.Before(m.EndOfLife), "%s: GA before end of life", m.Minor)
		assert.Regexp(t, versionRE, m.Minor)
		if i > 0 {
			assert.True(t, KubernetesCalendar[i-1].GA.Before(m.GA), "%s is listed after an older minor", m.Minor)
		}
	}
	assert.Equal(t, len(KubernetesCalendar), len(KubernetesMinors))
}
