package rules

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteReport(t *testing.T) {
	s := goodStack(EnvDev)
	set(s, "gpua100", arr{}, "nodeTaints")
	set(s, "gpua100", obj{"accelerator": "nvidia"}, "nodeLabels")
	s.Outputs["kubeconfig"] = Output{Value: "x"}
	var b strings.Builder
	n, err := WriteReport(&b, s, Check(s))
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	out := b.String()
	assert.True(t, strings.HasPrefix(out, "stack dev (environment dev): 2 mandatory, 1 advisory violation(s)\n"), out)
	mandatory, advisory := strings.Index(out, "\nMANDATORY\n"), strings.Index(out, "\nADVISORY\n")
	require.True(t, mandatory > 0 && advisory > mandatory, out)
	assert.Contains(t, out[mandatory:advisory], "  AKSML-GPU-001  AgentPool gpua100")
	assert.Contains(t, out[mandatory:advisory], "      resource: "+urnOf("azure-native:containerservice:AgentPool", "gpua100"))
	assert.Contains(t, out[mandatory:advisory], "  AKSML-SEC-001  stack output \"kubeconfig\"")
	assert.Contains(t, out[advisory:], "  AKSML-GPU-010  AgentPool gpua100 lacks")

	b.Reset()
	n, err = WriteReport(&b, goodStack(EnvProd), nil)
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.Equal(t, "stack prod (environment prod): 0 mandatory, 0 advisory violation(s)\n", b.String())
}

func TestWriteMarkdownTable(t *testing.T) {
	var b strings.Builder
	require.NoError(t, WriteMarkdownTable(&b))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, len(All())+2)
	assert.Equal(t, "| ID | Severity | What it checks | Source |", lines[0])
	assert.True(t, strings.HasPrefix(lines[2], "| AKSML-ARM-001 | mandatory | "), lines[2])
	for _, l := range lines[2:] {
		assert.Equal(t, 5, strings.Count(l, " | ")+2, l)
	}
}
