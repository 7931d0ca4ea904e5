package cluster

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// TestOnlyTerminalPods: the pod-delete stage gets the terminal-phase selector next to its
// own, so that it never overlaps podTerminateStage; a stage without a selector is refused.
func TestOnlyTerminalPods(t *testing.T) {
	stage := []byte("kind: Stage\nspec:\n  selector:\n    matchExpressions:\n    - key: .metadata.deletionTimestamp\n      operator: Exists\n  next:\n    delete: true\n")
	out, err := onlyTerminalPods(stage)
	require.NoError(t, err)
	var s struct {
		Spec struct {
			Selector struct {
				MatchExpressions []struct {
					Key      string   `json:"key"`
					Operator string   `json:"operator"`
					Values   []string `json:"values"`
				} `json:"matchExpressions"`
			} `json:"selector"`
			Next map[string]any `json:"next"`
		} `json:"spec"`
	}
	require.NoError(t, yaml.Unmarshal(out, &s))
	exprs := s.Spec.Selector.MatchExpressions
	require.Len(t, exprs, 2)
	assert.Equal(t, ".metadata.deletionTimestamp", exprs[0].Key)
	assert.Equal(t, ".status.phase", exprs[1].Key)
	assert.Equal(t, "In", exprs[1].Operator)
	assert.Equal(t, []string{"Succeeded", "Failed"}, exprs[1].Values)
	assert.Equal(t, true, s.Spec.Next["delete"])

	_, err = onlyTerminalPods([]byte("kind: Stage\nspec:\n  next:\n    delete: true\n"))
	assert.Error(t, err)

	// podTerminateStage selects exactly the non-terminal phases.
	require.NoError(t, yaml.Unmarshal([]byte(podTerminateStage), &s))
	require.Len(t, s.Spec.Selector.MatchExpressions, 2)
	assert.Equal(t, []string{"Pending", "Running"}, s.Spec.Selector.MatchExpressions[1].Values)
}
