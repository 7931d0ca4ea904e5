package cluster

import (
	"strings"
	"time"
)

// KubernetesMinor is one Kubernetes minor version in the AKS release
// calendar.
type KubernetesMinor struct {
	// Minor is MAJOR.MINOR, e.g. "1.35".
	Minor string
	// GA is the month AKS made the minor generally available (first day).
	GA time.Time
	// EndOfLife is the last day of community support on AKS. After it AKS
	// creates no cluster on the minor without long-term support (tier
	// Premium and support plan AKSLongTermSupport, which aksml does not
	// configure), so a listed minor past this date is a stale list.
	EndOfLife time.Time
}

// endOfMonth is the last day of the month: the calendar writes "Mar 2027"
// for March 31, 2027 unless it gives an explicit date.
func endOfMonth(year int, month time.Month) time.Time {
	return time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC)
}

func month(year int, m time.Month) time.Time { return time.Date(year, m, 1, 0, 0, 0, 0, time.UTC) }

// KubernetesCalendar lists the Kubernetes minor versions AKS offers for
// new clusters with community support, with the dates of "AKS Kubernetes
// release calendar" in "Supported Kubernetes versions in Azure Kubernetes
// Service (AKS)",
// https://learn.microsoft.com/azure/aks/supported-kubernetes-versions#aks-kubernetes-release-calendar
// (source: MicrosoftDocs/azure-aks-docs, articles/aks/supported-kubernetes-versions.md,
// read for aksml on 2026-11-30). 1.30 to 1.34 are left out: their community
// support had ended by then (1.30 Aug 22, 2025; 1.31 Nov 1, 2025; 1.32 Mar
// 2026; 1.33 Jul 2026) or ends that day (1.34, Nov 2026), and only
// long-term support (tier Premium, support plan AKSLongTermSupport) runs
// them after it. No Go module on the module
// proxy carries this calendar; the AKS API lists the versions per region
// at run time (`az aks get-versions`), which a preview without
// credentials cannot call.
//
// To update: when AKS announces a new minor, add its row from the
// calendar; when a minor's end of life passes, TestCalendarIsCurrent warns
// in `make test` and fails the scheduled calendar workflow until its row is
// removed. A version outside the list is refused at
// preview with a message pointing here.
var KubernetesCalendar = []KubernetesMinor{
	{Minor: "1.35", GA: month(2026, time.March), EndOfLife: endOfMonth(2027, time.March)},
	{Minor: "1.36", GA: month(2026, time.June), EndOfLife: endOfMonth(2027, time.June)},
	{Minor: "1.37", GA: month(2026, time.October), EndOfLife: endOfMonth(2027, time.October)},
}

// KubernetesMinors are the minors of KubernetesCalendar, oldest first.
var KubernetesMinors = calendarMinors(KubernetesCalendar)

func calendarMinors(cal []KubernetesMinor) []string {
	out := make([]string, len(cal))
	for i, m := range cal {
		out[i] = m.Minor
	}
	return out
}

// minorOf returns the MAJOR.MINOR part of a version written MAJOR.MINOR or
// MAJOR.MINOR.PATCH.
func minorOf(v string) string {
	if i := strings.LastIndex(v, "."); strings.Count(v, ".") == 2 {
		return v[:i]
	}
	return v
}

// PoolNames returns the names of the node pools the cluster itself declares
// (the system pool, and the CPU pool unless disabled). A GPU pool of the
// same cluster may not take one of them: AKS would see two definitions of
// one agent pool.
func (s Spec) PoolNames() []string {
	names := []string{SystemPoolName}
	if !s.CPUPool.Disabled {
		names = append(names, CPUPoolName)
	}
	return names
}
