package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var guidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// TestBootstrapConditionCoversAssignedRoles: the ABAC condition the README
// bootstrap puts on the deploy identities' role-assignment rights
// (AKSML_ROLES) names every role a shipped stack assigns, and only roles
// the components assign: a new role assignment in a component fails here
// before it fails a real `pulumi up` with an authorization error.
func TestBootstrapConditionCoversAssignedRoles(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(projectDir, "README.md"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^AKSML_ROLES="([^"]+)"$`).FindSubmatch(readme)
	require.NotNil(t, m, `README bootstrap lost its AKSML_ROLES="..." line`)
	allowed := guidRE.FindAllString(string(m[1]), -1)
	require.NotEmpty(t, allowed)

	goldens, err := filepath.Glob(filepath.Join("golden", "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, goldens)
	assigned := map[string]string{}
	roleDefRE := regexp.MustCompile(`roleDefinitions/(` + guidRE.String() + `)`)
	for _, g := range goldens {
		data, err := os.ReadFile(g)
		require.NoError(t, err)
		for _, r := range roleDefRE.FindAllStringSubmatch(string(data), -1) {
			assigned[r[1]] = g
		}
	}
	require.NotEmpty(t, assigned, "no role assignment in the golden files")
	for role, file := range assigned {
		assert.Contains(t, allowed, role, "%s assigns role %s, which the README's AKSML_ROLES condition does not allow", file, role)
	}

	var code strings.Builder
	require.NoError(t, filepath.WalkDir(filepath.Join(projectDir, "components"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		b, err := os.ReadFile(p)
		code.Write(b)
		return err
	}))
	for _, role := range allowed {
		assert.Contains(t, code.String(), role, "AKSML_ROLES allows %s, which no component assigns; remove it", role)
	}
}
