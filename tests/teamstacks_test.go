package tests

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/tenancy"
	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/policy/rules"
	"github.com/aksml/aksml/stacks"
)

// kubeObjects returns the Kubernetes objects a stack registers (reads
// excluded), by kind, namespace and name, with their inputs.
func kubeObjects(t *testing.T, st *rules.Stack) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, r := range st.Resources {
		if r.Read || !strings.HasPrefix(r.Type, "kubernetes:") || strings.HasPrefix(r.Type, "kubernetes:helm") || r.Type == "pulumi:providers:kubernetes" {
			continue
		}
		k := fmt.Sprintf("%s %v/%v", r.Inputs["kind"], r.Get("metadata.namespace"), r.Get("metadata.name"))
		if r.Inputs["kind"] == nil {
			k = fmt.Sprintf("%s %v/%v", r.Type, r.Get("metadata.namespace"), r.Get("metadata.name"))
		}
		require.NotContains(t, out, k, "%s registered twice in %s", k, st.Name)
		out[k] = r.Inputs
	}
	return out
}

// withTeamStacks synthesizes the shipped stack with aksml:teamStacks set
// and returns the config it ran with.
func withTeamStacks(stack, teamStacks string) (*rules.Stack, map[string]string, error) {
	var cfg map[string]string
	st, err := synth.SynthEdited(projectDir, stack, func(c map[string]string) error {
		c["aksml:teamStacks"] = teamStacks
		cfg = c
		return nil
	})
	return st, cfg, err
}

// referencePlatform makes the mocks answer a StackReference to the
// platform stack with its synth run's outputs and own the cluster as it.
func referencePlatform(t *testing.T, name string, platform *rules.Stack) {
	t.Helper()
	synth.ReferencedOutputs = map[string]resource.PropertyMap{name: synth.StackOutputs(platform)}
	synth.ClusterOwner = name
	t.Cleanup(func() { synth.ReferencedOutputs, synth.ClusterOwner = nil, "" })
}

// TestTeamStacksSplitTheSingleStack: the local stack with team-b in a team
// stack, plus that team stack, register exactly the Kubernetes objects the
// single local stack does, each object in one of them: team-a's namespace,
// quota, access, isolation, queues, volumes and workload in the team
// stack, everything else in the platform stack. The platform exports its
// config (secret) and owner; the team stack claims no cluster.
func TestTeamStacksSplitTheSingleStack(t *testing.T) {
	single := kubeObjects(t, synthStack(t, "local"))

	platform, cfg, err := withTeamStacks("local", `{"local-team-a":["team-a"]}`)
	require.NoError(t, err)
	exported := platform.Outputs[stacks.TeamStackConfigOutput]
	assert.True(t, exported.Secret, "the platform's config is exported as a secret")
	value, _ := exported.Value.(map[string]any)
	require.NotNil(t, value)
	assert.Equal(t, "organization/aksml/local", value["owner"])
	assert.Equal(t, "local", value["stack"])
	config, _ := value["config"].(map[string]any)
	for k, v := range cfg {
		if strings.HasPrefix(k, "aksml:") {
			assert.Equal(t, v, config[k], "exported %s", k)
		}
	}

	referencePlatform(t, "organization/aksml/local", platform)
	team, err := synth.Run("local-team-a", "dev", map[string]string{"aksml:platformStack": "organization/aksml/local"}, stacks.Program)
	require.NoError(t, err)
	assert.Empty(t, byType(team, ":NamespacePatch"), "a team stack does not claim the cluster")
	assert.Equal(t, map[string]any{"team-a": "team-a"}, team.Outputs["teamNamespaces"].Value)

	platformObjs, teamObjs := kubeObjects(t, platform), kubeObjects(t, team)
	require.NotEmpty(t, teamObjs)
	assert.Contains(t, teamObjs, "Job team-a/resnet-finetune", "team-a's workload is the team stack's")
	for k := range teamObjs {
		assert.NotContains(t, platformObjs, k, "both stacks register %s", k)
		assert.Contains(t, k, "team-a", "the team stack registers %s, not one of team-a's", k)
	}
	union := map[string]map[string]any{}
	for _, m := range []map[string]map[string]any{platformObjs, teamObjs} {
		for k, v := range m {
			union[k] = v
		}
	}
	assert.Equal(t, sortedObjectKeys(single), sortedObjectKeys(union), "the two stacks register the single stack's objects")
	for k, want := range single {
		if got, ok := union[k]; ok {
			assert.Equal(t, want, got, "%s differs from the single stack's", k)
		}
	}
	assert.Empty(t, rules.MandatoryOnly(rules.Check(team)), "the team stack passes the guardrails")
	assert.Empty(t, rules.MandatoryOnly(rules.Check(platform)), "the platform stack passes the guardrails")
}

func sortedObjectKeys(m map[string]map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestTeamStackOnAClusterAksmlCreates: the dev stack (which creates the
// cluster and the team identities) with team-b in a team stack exports
// team-b's identity; the team stack connects with the platform's
// kubeconfig and annotates team-b's training ServiceAccount with it.
func TestTeamStackOnAClusterAksmlCreates(t *testing.T) {
	platform, _, err := withTeamStacks("dev", `{"dev-team-b":["team-b"]}`)
	require.NoError(t, err)
	ids, _ := platform.Outputs[stacks.TeamIdentitiesOutput].Value.(map[string]any)
	require.Contains(t, ids, "team-b")
	assert.NotContains(t, ids, "team-a", "only the team stacks' teams are exported")
	for _, r := range byType(platform, "kubernetes:core/v1:Namespace") {
		assert.NotEqual(t, "team-b", r.Get("metadata.name"), "the platform registers team-b's namespace")
	}

	referencePlatform(t, "organization/aksml/dev", platform)
	team, err := synth.Run("dev-team-b", "dev", map[string]string{"aksml:platformStack": "organization/aksml/dev"}, stacks.Program)
	require.NoError(t, err)
	for _, r := range team.Resources {
		assert.False(t, strings.HasPrefix(r.Type, "azure-native:"), "the team stack registered %s", r.URN)
	}
	providers := byType(team, "pulumi:providers:kubernetes")
	require.Len(t, providers, 1)
	assert.Contains(t, providers[0].SecretInputs, "kubeconfig")
	var sa *rules.Resource
	for _, r := range byType(team, "kubernetes:core/v1:ServiceAccount") {
		if r.Get("metadata.name") == tenancy.TrainingServiceAccount {
			sa = &r
		}
	}
	require.NotNil(t, sa)
	want := ids["team-b"].(map[string]any)["clientId"]
	assert.NotEmpty(t, want)
	assert.Equal(t, want, sa.Get("metadata.annotations").(map[string]any)[tenancy.ClientIDAnnotation])
	assert.Empty(t, rules.MandatoryOnly(rules.Check(team)), "the team stack passes the guardrails")

	// A platform that does not export the team's identity (it has not run
	// since the team was assigned) fails the team stack, naming the team's
	// key in the platform's config.
	outputs := synth.StackOutputs(platform)
	delete(outputs, stacks.TeamIdentitiesOutput)
	synth.ReferencedOutputs["organization/aksml/dev"] = outputs
	_, err = synth.Run("dev-team-b", "dev", map[string]string{"aksml:platformStack": "organization/aksml/dev"}, stacks.Program)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `aksml:teams[1].name: team "team-b" has no identity in stack organization/aksml/dev`)
}

// TestTeamStackRefusals: a team stack fails before registering any object
// when the platform does not export its config, assigns it no team, or
// does not own the cluster, and when its own config sets other keys.
func TestTeamStackRefusals(t *testing.T) {
	platform, _, err := withTeamStacks("local", `{"local-team-b":["team-b"]}`)
	require.NoError(t, err)
	const ref = "organization/aksml/local"
	own := map[string]string{"aksml:platformStack": ref}
	for _, tc := range []struct {
		name, stack, owner string
		config             map[string]string
		outputs            resource.PropertyMap
		want               string
	}{
		{"not a platform with team stacks", "local-team-b", ref, own, resource.PropertyMap{},
			"aksml:platformStack: stack organization/aksml/local exports no " + stacks.TeamStackConfigOutput},
		{"no team assigned", "local-team-c", ref, own, nil,
			"platform stack organization/aksml/local assigns no team to this stack (local-team-c): its aksml:teamStacks names local-team-b"},
		{"cluster owned by another stack", "local-team-b", "organization/aksml/other", own, nil,
			"aksml:platformStack: the cluster is owned by organization/aksml/other, not by platform stack organization/aksml/local"},
		{"platform never ran", "local-team-b", "", own, nil,
			"the cluster is owned by no stack, not by platform stack"},
		{"own keys", "local-team-b", ref, map[string]string{"aksml:platformStack": ref, "aksml:teams": `[{"name":"x"}]`}, nil,
			"aksml:teams: a team stack (aksml:platformStack) takes its whole config from its platform stack"},
		{"not a stack name", "local-team-b", ref, map[string]string{"aksml:platformStack": ref + " "}, nil,
			`aksml:platformStack: "organization/aksml/local " is not a stack name`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			referencePlatform(t, ref, platform)
			synth.ClusterOwner = tc.owner
			if tc.outputs != nil {
				synth.ReferencedOutputs[ref] = tc.outputs
			}
			st, err := synth.Run(tc.stack, "dev", tc.config, stacks.Program)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			for _, r := range st.Resources {
				if strings.HasPrefix(r.Type, "kubernetes:") {
					assert.True(t, r.Read, "%s registered by a refused team stack", r.URN)
				}
			}
		})
	}
}

// TestTeamStacksConfigRefusals: every problem of aksml:teamStacks is
// reported at once, naming its key, before anything is registered.
func TestTeamStacksConfigRefusals(t *testing.T) {
	st, _, err := withTeamStacks("local", `{"local":["team-a"],"b c":["team-b"],"x":["team-b","nobody"],"empty":[]}`)
	require.Error(t, err)
	for _, want := range []string{
		`aksml:teamStacks["local"]: is this stack`,
		`aksml:teamStacks["b c"]: is not a Pulumi stack name`,
		`aksml:teamStacks["x"][0]: team "team-b" is also assigned to team stack "b c"`,
		`aksml:teamStacks["x"][1]: "nobody" is not a team of aksml:teams`,
		`aksml:teamStacks["empty"]: lists no team`,
	} {
		assert.Contains(t, err.Error(), want)
	}
	assert.Nil(t, st)

	_, _, err = withTeamStacks("local", `{"local-y":["team-a","team-a"]}`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `aksml:teamStacks["local-y"][1]: team "team-a" is listed twice`)
	assert.NotContains(t, err.Error(), "also assigned")

	_, err = synth.SynthEdited(projectDir, "prod", func(c map[string]string) error {
		c["aksml:kubernetesLayer"] = "false"
		c["aksml:teamStacks"] = `{"prod-team-a":["team-a"]}`
		return nil
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "aksml:teamStacks: an Azure-layer stack")

	raw, err := json.Marshal(map[string][]string{"local-team-b": {"team-b"}})
	require.NoError(t, err)
	_, _, err = withTeamStacks("local", string(raw))
	require.NoError(t, err, "the valid assignment")
}

// TestMovingADeployedTeamIsRefused: a team whose objects the stack's last
// deployment left in one stack, and that aksml:teamStacks now puts in
// another, fails the preview of the platform (into a team stack, back from
// one) or of the team stack that holds it, before any object is
// registered; the same assignment as before, and a new team, pass.
func TestMovingADeployedTeamIsRefused(t *testing.T) {
	namespaces := func(teams ...string) resource.PropertyValue {
		m := resource.PropertyMap{}
		for _, n := range teams {
			m[resource.PropertyKey(n)] = resource.NewProperty(n)
		}
		return resource.NewProperty(m)
	}
	assigned := func(teamStacks string) resource.PropertyValue {
		return resource.MakeSecret(resource.NewProperty(resource.PropertyMap{
			"owner": resource.NewProperty("organization/aksml/local"), "stack": resource.NewProperty("local"),
			"config": resource.NewProperty(resource.PropertyMap{"aksml:teamStacks": resource.NewProperty(teamStacks)}),
		}))
	}
	_, split, err := withTeamStacks("local", `{"local-team-b":["team-b"]}`)
	require.NoError(t, err)
	_, single, err := withTeamStacks("local", `{}`)
	require.NoError(t, err)
	delete(single, "aksml:teamStacks")
	for _, tc := range []struct {
		name     string
		config   map[string]string
		previous resource.PropertyMap
		want     string
	}{
		{"into a team stack", split, resource.PropertyMap{"teamNamespaces": namespaces("team-a", "team-b")},
			`team "team-b" (aksml:teams[1]) has its namespace, quota, access, isolation, queues and volumes in stack local, which its last deployment put there, and aksml:teamStacks now puts them in local-team-b`},
		{"back from a team stack", single, resource.PropertyMap{"teamNamespaces": namespaces("team-a"), stacks.TeamStackConfigOutput: assigned(`{"local-team-b":["team-b"]}`)},
			`team "team-b" (aksml:teams[1]) has its namespace, quota, access, isolation, queues and volumes in stack local-team-b, which its last deployment put there, and aksml:teamStacks now puts them in local`},
		{"between team stacks", split, resource.PropertyMap{"teamNamespaces": namespaces("team-a"), stacks.TeamStackConfigOutput: assigned(`{"local-team-c":["team-b"]}`)},
			`team "team-b" (aksml:teams[1]) has its namespace, quota, access, isolation, queues and volumes in stack local-team-c, which its last deployment put there, and aksml:teamStacks now puts them in local-team-b`},
		{"unchanged", split, resource.PropertyMap{"teamNamespaces": namespaces("team-a"), stacks.TeamStackConfigOutput: assigned(`{"local-team-b":["team-b"]}`)}, ""},
		{"new team", split, resource.PropertyMap{"teamNamespaces": namespaces("team-a")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := synth.RunPrevious("local", "dev", tc.config, tc.previous, stacks.Program)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), "aksml:teamStacks: "+tc.want)
			assert.Contains(t, err.Error(), "moving a deployed team between stacks is not supported")
			for _, r := range st.Resources {
				assert.Equal(t, "pulumi:pulumi:StackReference", r.Type, "%s registered before the move was refused", r.URN)
			}
		})
	}

	// A team stack that holds team-b, which the platform now assigns to
	// another team stack, refuses too.
	platform, _, err := withTeamStacks("local", `{"local-team-b":["team-a"],"local-team-c":["team-b"]}`)
	require.NoError(t, err)
	referencePlatform(t, "organization/aksml/local", platform)
	_, err = synth.RunPrevious("local-team-b", "dev", map[string]string{"aksml:platformStack": "organization/aksml/local"},
		resource.PropertyMap{"teamNamespaces": namespaces("team-b")}, stacks.Program)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `team "team-b" (aksml:teams[1]) has its namespace, quota, access, isolation, queues and volumes in stack local-team-b, which its last deployment put there, and aksml:teamStacks now puts them in local-team-c`)
	_, err = synth.RunPrevious("local-team-b", "dev", map[string]string{"aksml:platformStack": "organization/aksml/local"},
		resource.PropertyMap{"teamNamespaces": namespaces("team-a")}, stacks.Program)
	require.NoError(t, err, "the team it held before")
}
