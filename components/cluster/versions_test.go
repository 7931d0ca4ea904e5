package cluster

import (
	"fmt"
	"os"
	"strings"
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

// calendarEnv set to "strict" makes TestCalendarIsCurrent fail on a stale
// calendar (the scheduled workflow .github/workflows/calendar.yml); otherwise
// it reports one as a warning (`make test` prints it), so a date alone does
// not turn everyone's unchanged checkout red.
const calendarEnv = "AKSML_CALENDAR"

// TestCalendarIsCurrent reports a listed minor past the end of life the
// calendar records, so the list cannot silently keep offering a version AKS
// no longer creates clusters on: remove that row (see KubernetesCalendar).
// It fails with AKSML_CALENDAR=strict and is skipped with the warning
// otherwise.
func TestCalendarIsCurrent(t *testing.T) {
	fail, msg := calendarVerdict(KubernetesCalendar, time.Now().UTC(), os.Getenv(calendarEnv) == "strict")
	switch {
	case fail:
		t.Fatal(msg)
	case msg != "":
		t.Skip(msg)
	}
}

// calendarVerdict says whether a calendar checked at now fails (strict and
// stale) and what to report ("" when it is current).
func calendarVerdict(cal []KubernetesMinor, now time.Time, strict bool) (fail bool, msg string) {
	stale := staleMinors(cal, now)
	if len(stale) == 0 {
		return false, ""
	}
	msg = fmt.Sprintf("AKS has ended community support for %s: remove them from KubernetesCalendar in components/cluster/versions.go (and add the newer minors of https://learn.microsoft.com/azure/aks/supported-kubernetes-versions#aks-kubernetes-release-calendar)",
		strings.Join(stale, ", "))
	if strict {
		return true, msg
	}
	return false, "WARNING (" + calendarEnv + "=strict fails on it): " + msg
}

func TestCalendarVerdictWarnsOrFails(t *testing.T) {
	cal := []KubernetesMinor{{Minor: "1.34", EndOfLife: endOfMonth(2026, time.November)}}
	before := time.Date(2026, time.November, 30, 12, 0, 0, 0, time.UTC)
	after := time.Date(2026, time.December, 1, 0, 0, 0, 0, time.UTC)
	for _, strict := range []bool{false, true} {
		fail, msg := calendarVerdict(cal, before, strict)
		assert.False(t, fail)
		assert.Empty(t, msg, "a current calendar reports nothing")
	}
	fail, msg := calendarVerdict(cal, after, false)
	assert.False(t, fail, "without strict a stale calendar only warns")
	assert.Contains(t, msg, "WARNING")
	assert.Contains(t, msg, "1.34 (end of life 2026-11-30)")
	fail, msg = calendarVerdict(cal, after, true)
	assert.True(t, fail, "strict fails on a stale calendar")
	assert.Contains(t, msg, "remove them from KubernetesCalendar")
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
