package conformance

import (
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/policy/rules"
)

// projectDir is the repository root, where the Pulumi.<stack>.yaml files are.
const projectDir = "../.."

// gap is a finding the shipped stacks have today because the fix is being
// built in another issue, or a bug reported to the lead. The lead empties
// this table when those land.
type gap struct {
	rule, stack, resource string
	issue                 int
}

// knownGaps are asserted exactly: a gap listed but not found fails ("fixed:
// remove it"), a finding not listed fails.
var knownGaps = []gap{}

func specs(t *testing.T) *Specs {
	t.Helper()
	s, err := DefaultSpecs()
	require.NoError(t, err)
	return s
}

// TestShippedStacks runs the whole catalogue over every
// Pulumi.<stack>.yaml, and over the template-pools variant of dev, and logs
// what it checked.
func TestShippedStacks(t *testing.T) {
	names, err := synth.Stacks(projectDir)
	require.NoError(t, err)
	require.Subset(t, names, []string{"dev", "prod", "local"})
	sp := specs(t)
	listed := map[string]gap{}
	for _, g := range knownGaps {
		listed[g.rule+" "+g.stack+"/"+g.resource] = g
	}
	found := map[string]bool{}
	var states []*rules.Stack
	for _, stack := range names {
		st, err := synth.Synth(projectDir, stack)
		require.NoError(t, err, stack)
		states = append(states, st)
	}
	states = append(states, synthTemplatePools(t))
	for _, st := range states {
		stack := st.Name
		rep := Check(st, sp)
		t.Log(rep.Summary())
		for _, f := range rep.Findings {
			key := f.Rule + " " + f.Stack + "/" + f.Resource
			found[key] = true
			if _, ok := listed[key]; !ok {
				t.Errorf("finding not in knownGaps: %s", f)
			}
		}
		if stack != "local" {
			require.Positive(t, rep.Checked, "%s: no Azure body was checked against a spec", stack)
		}
	}
	for key, g := range listed {
		if !found[key] {
			t.Errorf("fixed: remove it from knownGaps: %s (issue %d)", key, g.issue)
		}
	}
}

// TestCatalogue checks that every rule is stated, sourced, unique, and
// has a negative case below.
func TestCatalogue(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range negativeCases() {
		for _, id := range c.want {
			covered[id] = true
		}
	}
	seen := map[string]bool{}
	for _, r := range Catalogue() {
		require.False(t, seen[r.ID], "duplicate rule ID %s", r.ID)
		seen[r.ID] = true
		require.NotEmpty(t, r.Statement, r.ID)
		require.NotEmpty(t, r.Source, r.ID)
		require.NotNil(t, r.Check, r.ID)
		require.True(t, covered[r.ID], "rule %s has no negative test", r.ID)
	}
	require.True(t, sort.SliceIsSorted(Catalogue(), func(i, j int) bool { return Catalogue()[i].ID < Catalogue()[j].ID }), "catalogue sorted by ID")
}

// TestSpecIndex checks that every spec file in azure-specs was loaded and
// indexes the types aksml sends.
func TestSpecIndex(t *testing.T) {
	sp := specs(t)
	require.Len(t, sp.Files, 8, "one spec per resource-manager file listed in SOURCES.md")
	for _, want := range []struct{ typ, version string }{
		{typeAgentPool, "2026-02-02-preview"},
		{typeAgentPool, "2026-01-02-preview"},
		{typeAgentPool, "2024-10-01"},
		{typeManagedCluster, "2024-10-01"},
		{"Microsoft.ContainerService/managedClusters/maintenanceConfigurations", "2024-10-01"},
		{typeRuleGroup, "2023-03-01"},
		{typeDCR, "2024-03-11"},
		{typeDCRA, "2024-03-11"},
		{"Microsoft.Insights/dataCollectionEndpoints", "2024-03-11"},
		{"Microsoft.Monitor/accounts", "2023-04-03"},
		{"Microsoft.Dashboard/grafana", "2025-08-01"},
		{"Microsoft.Resources/deploymentStacks", "2024-03-01"},
	} {
		s, ok := sp.Lookup(want.typ, want.version)
		require.True(t, ok, "%s@%s", want.typ, want.version)
		require.NotNil(t, s.Schema)
		require.True(t, strings.HasPrefix(s.File, "specification/"), s.File)
	}
}
