package stacks

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/teams"
)

// The sources of a name are the config names that are whole words of it.
func TestNameSources(t *testing.T) {
	c := &Config{
		Teams:     []teams.Team{{Team: queues.Team{Name: "a"}}, {Team: queues.Team{Name: "a-b"}}},
		Workloads: []WorkloadSpec{{Name: "b-c", Team: "a"}, {Name: "c", Team: "a-b"}},
	}
	assert.Equal(t, []string{
		`aksml:teams[0].name ("a")`, `aksml:teams[1].name ("a-b")`,
		`aksml:workloads[0].name ("b-c")`, `aksml:workloads[1].name ("c")`,
	}, c.NameSources("a-b-c"))
	assert.Equal(t, []string{`aksml:workloads[1].name ("c")`}, c.NameSources("ab-c"), "a is not a word of ab")
	assert.Empty(t, c.NameSources("team-x"))
}

// ParseAll reads the keys Load reads from a whole stack config: its own
// namespace's, a mistyped namespace's (reported), not another's.
func TestParseAll(t *testing.T) {
	_, err := ParseAll("dev", map[string]string{"akml:teams": "[]", "kubernetes:context": "kind"})
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), `did you mean "aksml:teams"`)
		assert.NotContains(t, err.Error(), "kubernetes:context")
	}
}
