package cluster

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/vocab"
)

func TestOwnerConflict(t *testing.T) {
	const self, other = "org/aksml/dev", "org/aksml/dev-b"
	assert.NoError(t, OwnerConflict("", self, "platform:cluster"), "a cluster nobody claimed")
	assert.NoError(t, OwnerConflict(self, self, "platform:cluster"), "the stack's own claim")
	err := OwnerConflict(other, self, "platform:cluster")
	require.Error(t, err)
	for _, want := range []string{
		"platform:cluster: the cluster is owned by aksml stack " + other,
		"add this stack's teams to " + other + ", or point platform:cluster at another cluster",
		"kubectl annotate namespace kube-system " + vocab.OwnerAnnotation + "-",
	} {
		assert.Contains(t, err.Error(), want)
	}
}
