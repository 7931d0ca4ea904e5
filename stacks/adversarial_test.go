package stacks_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/aksml/aksml/components/storage"
	"github.com/aksml/aksml/policy/rules"
	"github.com/aksml/aksml/stacks"
)

// adversarialBase is a small valid dev stack each case changes: a cluster,
// a regular and a spot GPU pool, two teams and one scheduled scoring job.
const adversarialBase = `
environment: dev
cluster:
  name: aksml-adv
  location: westeurope
  resourceGroup: {name: rg-aksml-adv}
  apiServer: {authorizedIPRanges: [203.0.113.0/24]}
network: {addressSpace: 10.224.0.0/16}
gpuPools:
  - {name: t4, vmSize: Standard_NC4as_T4_v3, workload: training, maxCount: 2}
  - {name: t4spot, vmSize: Standard_NC4as_T4_v3, workload: training, priority: Spot, maxCount: 4}
storage:
  volumes: {datasetsSize: 100Gi, checkpointsSize: 100Gi}
teams:
  - {name: team-a, gpuQuota: {t4: 1, t4spot: 2}, cpu: "16", memory: 64Gi}
  - {name: team-b, gpuQuota: {t4: 1, t4spot: 2}, cpu: "16", memory: 64Gi}
scheduler: {system: kueue}
workloads:
  - kind: ScheduledScoring
    name: nightly
    team: team-b
    image: ubuntu:24.04
    command: [/bin/bash, -c, "echo scoring"]
    resources: {cpu: "1", memory: 2Gi}
    schedule: "0 2 * * *"
`

// config is one stack's config as a tree: top-level keys without the
// `aksml:` prefix (a key with a colon is taken as written, for other
// namespaces), values decoded from YAML.
type config map[string]any

// adversarialCase is one config that aksml must refuse at preview: path is
// the config key the message names, fix a phrase of the advice that follows
// it. Cases of every class (collisions, syntax, silent drops, messages,
// schedulability) share this type and runAdversarial.
type adversarialCase struct {
	name   string
	class  string
	stack  string // default "dev"
	mutate func(c config)
	path   string
	fix    string
}

// acceptedCase is an unusual config aksml must accept: it synthesises and
// passes the mandatory guardrails. class (optional) groups it with the
// refused cases of its class; advisory, when set, is a guardrail that must
// report on it (a prod that differs by policy says so at preview).
type acceptedCase struct {
	name     string
	class    string
	stack    string
	mutate   func(c config)
	advisory string
}

func baseConfig(t *testing.T) config {
	t.Helper()
	var c config
	require.NoError(t, yaml.Unmarshal([]byte(adversarialBase), &c))
	return c
}

// raw renders c as the Pulumi CLI hands config to a program.
func (c config) raw(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, v := range c {
		if !strings.Contains(k, ":") {
			k = stacks.Namespace + ":" + k
		}
		if s, ok := v.(string); ok {
			out[k] = s
			continue
		}
		b, err := json.Marshal(v)
		require.NoError(t, err)
		out[k] = string(b)
	}
	return out
}

// set writes v at a dotted path with list indexes: "gpuPools.0.name".
func (c config) set(path string, v any) {
	parts := strings.Split(path, ".")
	var cur any = map[string]any(c)
	for i, p := range parts {
		last := i == len(parts)-1
		if m, ok := cur.(config); ok {
			cur = map[string]any(m) // yaml.v3 decodes nested maps as the outer map type
		}
		switch node := cur.(type) {
		case map[string]any:
			if last {
				node[p] = v
				return
			}
			if _, ok := node[p]; !ok {
				node[p] = map[string]any{}
			}
			cur = node[p]
		case []any:
			n, _ := strconv.Atoi(p)
			if last {
				node[n] = v
				return
			}
			cur = node[n]
		}
	}
}

// synthesise runs the whole program under mocks, with PULUMI_CONFIG set as
// the language host sets it (so that keys outside aksml: are seen).
func synthesise(t *testing.T, stack string, c config) (*rules.Stack, error) {
	t.Helper()
	return synthesiseAfter(t, stack, c, nil)
}

// runAdversarial runs each case against the base config: the program must
// fail before registering anything, with a line naming the case's key path
// followed by advice containing fix.
func runAdversarial(t *testing.T, cases []adversarialCase) {
	for _, tc := range cases {
		t.Run(tc.class+"/"+tc.name, func(t *testing.T) {
			c := baseConfig(t)
			tc.mutate(c)
			st, err := synthesise(t, tc.stack, c)
			require.Error(t, err, "the config must be refused")
			assert.Empty(t, st.Resources, "a refused config registers no resources")
			line := ""
			for _, l := range strings.Split(err.Error(), "\n") {
				if strings.Contains(l, tc.path+": ") {
					line = l
					break
				}
			}
			require.NotEmpty(t, line, "no problem names %s in:\n%s", tc.path, err)
			assert.Contains(t, line, tc.fix, "the message for %s says how to fix it", tc.path)
		})
	}
}

// runAccepted synthesises each case and checks the mandatory guardrails:
// the program and the policy pack agree on every accepted case.
func runAccepted(t *testing.T, cases []acceptedCase) {
	for _, tc := range cases {
		t.Run("accepted/"+tc.class+"/"+tc.name, func(t *testing.T) {
			c := baseConfig(t)
			tc.mutate(c)
			st, err := synthesise(t, tc.stack, c)
			require.NoError(t, err)
			assert.NotEmpty(t, st.Resources)
			assert.True(t, slices.ContainsFunc(st.Resources, func(r rules.Resource) bool { return strings.HasSuffix(r.Type, ":ManagedCluster") }),
				"the stack declares its cluster, so the schedulability guardrails (AKSML-SCH-*, AKSML-QUE-005/006) judge it")
			seen := map[string]bool{}
			for _, r := range st.Resources {
				if r.URN != "" {
					assert.False(t, seen[r.URN], "%s is registered twice: main.go's checkNames would refuse this accepted config", r.URN)
					seen[r.URN] = true
				}
			}
			found := rules.Check(st)
			assert.Empty(t, rules.MandatoryOnly(found), "an accepted config passes the guardrails")
			if tc.advisory != "" {
				assert.True(t, slices.ContainsFunc(found, func(v rules.Violation) bool { return v.RuleID == tc.advisory }),
					"advisory guardrail %s reports this config at preview", tc.advisory)
			}
		})
	}
}

func TestAdversarialConfigs(t *testing.T) {
	runAdversarial(t, slices.Concat(adversarialCases(), schedulabilityCases(), explicitCases(), round2Cases()))
}

// TestAdversarialAccepted runs every accepted case of every class through
// the program and the policy pack's mandatory guardrails.
func TestAdversarialAccepted(t *testing.T) {
	runAccepted(t, slices.Concat(acceptedCases(), schedulableCases(), explicitAccepted(), round2Accepted()))
}

// cases builds one case per value of a table that only changes one key.
func cases(class, namePrefix, setPath, path, fix string, values ...any) []adversarialCase {
	out := make([]adversarialCase, 0, len(values))
	for _, v := range values {
		v := v
		out = append(out, adversarialCase{
			name: fmt.Sprintf("%s %v", namePrefix, v), class: class,
			mutate: func(c config) { c.set(setPath, v) },
			path:   path, fix: fix,
		})
	}
	return out
}

func withTeam(name string) func(c config) {
	return func(c config) {
		c.set("teams.0.name", name)
		c.set("workloads", []any{})
	}
}

func adversarialCases() []adversarialCase {
	var all []adversarialCase
	add := func(cs ...adversarialCase) { all = append(all, cs...) }
	long := func(n int) string { return strings.Repeat("a", n) }

	// Syntax: Azure regions, Kubernetes versions, resource groups.
	add(cases("syntax", "location", "cluster.location", "aksml:cluster.location", "write the programmatic name", "westeu", "mars1", "europe")...)
	add(cases("syntax", "location display name", "cluster.location", "aksml:cluster.location", `write the region's programmatic name "westeurope"`, "West Europe", "WestEurope")...)
	add(cases("syntax", "workspace location", "observability.azureMonitorWorkspaceLocation", "aksml:observability.azureMonitorWorkspaceLocation", "write the programmatic name", "westus9")...)
	for _, v := range []string{"1.12", "2.0", "1.99.1", "1.29", "1.30", "1.33", "1.34"} {
		v := v
		add(adversarialCase{name: "kubernetes version " + v, class: "syntax", path: "aksml:cluster.kubernetesVersion", fix: "add it to KubernetesMinors",
			mutate: func(c config) { c.set("cluster.upgradeChannel", "none"); c.set("cluster.kubernetesVersion", v) }})
	}
	add(adversarialCase{name: "kubernetes version v-prefix", class: "syntax", path: "aksml:cluster.kubernetesVersion", fix: "write MAJOR.MINOR",
		mutate: func(c config) { c.set("cluster.upgradeChannel", "none"); c.set("cluster.kubernetesVersion", "v1.33") }})
	add(cases("syntax", "resource group", "cluster.resourceGroup.name", "aksml:cluster.resourceGroup.name", "not ending in '.'",
		"rg.", "rg with space", long(91), "rg/slash", "rg#1", "rg:colon", "rg*star")...)

	// Syntax: Azure tags.
	for _, name := range []string{"a<b", "a>b", "a%b", "a&b", `a\b`, "a?b", "a/b"} {
		name := name
		add(adversarialCase{name: "tag name " + name, class: "syntax", path: fmt.Sprintf("aksml:tags[%q]", name), fix: "rename the tag",
			mutate: func(c config) { c.set("tags", map[string]any{name: "x"}) }})
	}
	add(adversarialCase{name: "tag name too long", class: "syntax", path: fmt.Sprintf("aksml:tags[%q]", long(513)), fix: "shorten it",
		mutate: func(c config) { c.set("tags", map[string]any{long(513): "x"}) }})
	add(adversarialCase{name: "tag name too long for storage accounts", class: "syntax", path: fmt.Sprintf("aksml:tags[%q]", long(200)), fix: "storage accounts",
		mutate: func(c config) {
			c.set("tags", map[string]any{long(200): "x"})
			c.set("storage.accounts", map[string]any{"namePrefix": "aksmladv"})
		}})
	add(adversarialCase{name: "tag value too long", class: "syntax", path: `aksml:tags["owner"]`, fix: "shorten it",
		mutate: func(c config) { c.set("tags", map[string]any{"owner": long(257)}) }})
	add(adversarialCase{name: "51 tags", class: "syntax", path: "aksml:tags", fix: "remove some",
		mutate: func(c config) {
			m := map[string]any{}
			for i := range 51 {
				m[fmt.Sprintf("t%d", i)] = "x"
			}
			c.set("tags", m)
		}})
	add(adversarialCase{name: "tag names differing in case", class: "collision", path: `aksml:tags["env"]`, fix: "keep one",
		mutate: func(c config) { c.set("tags", map[string]any{"Env": "a", "env": "b"}) }})
	add(adversarialCase{name: "empty tag name", class: "syntax", path: `aksml:tags[""]`, fix: "name the tag",
		mutate: func(c config) { c.set("tags", map[string]any{"": "x"}) }})

	// Syntax: node labels and taints a pool may carry.
	for key, fix := range map[string]string{
		"kubernetes.azure.com/role":        "reserved for what AKS sets",
		"team.kubernetes.azure.com/x":      "reserved for what AKS sets",
		"kubernetes.io/role":               "reserved for Kubernetes",
		"node-role.kubernetes.io/gpu":      "reserved for Kubernetes",
		"k8s.io/x":                         "reserved for Kubernetes",
		"foo.k8s.io/x":                     "reserved for Kubernetes",
		"node-restriction.kubernetes.io/x": "reserved for Kubernetes",
		"bad key!":                         "the name must be",
		"Example.COM/x":                    "the prefix must be a lowercase DNS subdomain",
		"/x":                               "the prefix must be a lowercase DNS subdomain",
		"a/b/c":                            "the name must be",
		"accelerator":                      "set by aksml",
	} {
		key, fix := key, fix
		add(adversarialCase{name: "node label " + key, class: "syntax", path: fmt.Sprintf("aksml:gpuPools[0].additionalLabels[%q]", key), fix: fix,
			mutate: func(c config) { c.set("gpuPools.0.additionalLabels", map[string]any{key: "x"}) }})
	}
	for _, v := range []string{"has space", long(64), "-x", "x_"} {
		v := v
		add(adversarialCase{name: "node label value " + v, class: "syntax", path: `aksml:gpuPools[0].additionalLabels["example.com/role"]`, fix: "not a valid label value",
			mutate: func(c config) { c.set("gpuPools.0.additionalLabels", map[string]any{"example.com/role": v}) }})
	}
	for taint, fix := range map[string]string{
		"kubernetes.azure.com/x=y:NoSchedule":                   "reserved for what AKS sets",
		"kubernetes.io/x=y:NoSchedule":                          "reserved for Kubernetes",
		"node-role.kubernetes.io/x=y:NoExecute":                 "reserved for Kubernetes",
		"bad key=v:NoSchedule":                                  "the name must be",
		"k=bad value:NoSchedule":                                "taint value",
		"k=v:Sometimes":                                         "use NoSchedule, PreferNoSchedule or NoExecute",
		"kubernetes.azure.com/scalesetpriority=spot:NoSchedule": "set by aksml",
		"sku=gpu:NoSchedule":                                    "set by aksml",
		"novalue":                                               "write key=value:Effect",
	} {
		taint, fix := taint, fix
		add(adversarialCase{name: "taint " + taint, class: "syntax", path: "aksml:gpuPools[0].additionalTaints[0]", fix: fix,
			mutate: func(c config) { c.set("gpuPools.0.additionalTaints", []any{taint}) }})
	}

	// Syntax: cron schedules as kube-apiserver parses them.
	add(cases("syntax", "schedule", "workloads.0.schedule", "aksml:workloads[0].schedule", "write five fields",
		"60 2 * * *", "0 24 * * *", "*/0 * * * *", "0 0 32 * *", "0 0 * 13 *", "0 0 * * 8", "0 2 * *", "0 2 * * * *",
		"@fortnightly", "5-1 * * * *", "a b c d e", "0 0 0 * *")...)
	add(cases("syntax", "schedule time zone", "workloads.0.schedule", "aksml:workloads[0].schedule", "put the zone in timeZone", "TZ=UTC 0 2 * * *", "CRON_TZ=Europe/Lisbon 0 2 * * *")...)

	// Syntax: quantities, one grammar (k8s.io/apimachinery).
	add(cases("syntax", "team cpu", "teams.0.cpu", "aksml:teams[0].cpu", "write e.g.", "lots", "1e", "-4", "4 cores")...)
	add(cases("syntax", "team memory", "teams.0.memory", "aksml:teams[0].memory", "write e.g.", "64GB", "-1Gi", "64 Gi")...)
	add(cases("syntax", "checkpoints size", "storage.volumes.checkpointsSize", "aksml:storage.volumes.checkpointsSize", "write e.g. 100Gi", "100GB", "500m", "1e12")...)
	add(cases("syntax", "workload memory", "workloads.0.resources.memory", "aksml:workloads[0].resources.memory", "write e.g.", "16 Gi", "lots")...)
	add(cases("syntax", "workload cpu", "workloads.0.resources.cpu", "aksml:workloads[0].resources.cpu", "write e.g.", "0.5.5", "-1")...)

	// Collisions: names another part of the platform owns.
	for _, ns := range []string{"kube-system", "kube-public", "default", "kueue-system", "volcano-system", "kubeflow", "gatekeeper-system", "gpu-operator", "kaito-workspace"} {
		add(adversarialCase{name: "team namespace " + ns, class: "collision", path: "aksml:teams[0].name", fix: "choose another team name", mutate: withTeam(ns)})
	}
	add(adversarialCase{name: "team named like the GPU stack namespace", class: "collision", path: "aksml:teams[0].name", fix: "choose another team name",
		mutate: func(c config) { c.set("gpuStack.namespace", "gpu-stack"); withTeam("gpu-stack")(c) }})
	for _, ns := range []string{"kueue-system", "kube-system", "default", "kubeflow", "gatekeeper-system"} {
		add(adversarialCase{name: "GPU stack namespace " + ns, class: "collision", path: "aksml:gpuStack.namespace", fix: "createNamespace: false",
			mutate: func(c config) { c.set("gpuStack.namespace", ns) }})
	}
	add(cases("collision", "GPU pool named like a cluster pool", "gpuPools.0.name", "aksml:gpuPools[0].name", "choose another GPU pool name", "system", "cpu")...)
	add(adversarialCase{name: "two GPU pools with one name", class: "collision", path: "aksml:gpuPools[1].name", fix: "must be unique",
		mutate: func(c config) { c.set("gpuPools.1.name", "t4") }})

	// Silent drops: a mistyped namespace or key never vanishes quietly.
	for _, ns := range []string{"akml", "aksm", "AKSML", "aksmll", "asml", "aksnl"} {
		ns := ns
		add(adversarialCase{name: "namespace " + ns, class: "silent-drop", path: ns + ":teams", fix: `did you mean "aksml:teams"`,
			mutate: func(c config) { c[ns+":teams"] = c["teams"] }})
	}
	add(adversarialCase{name: "unknown key", class: "silent-drop", path: "aksml:gpupools", fix: `did you mean "gpuPools"`,
		mutate: func(c config) { c["gpupools"] = []any{} }})
	add(adversarialCase{name: "unknown pool field", class: "silent-drop", path: "aksml:gpuPools[0].vmsize", fix: `did you mean "vmSize"`,
		mutate: func(c config) { c.set("gpuPools.0.vmsize", "Standard_NC4as_T4_v3") }})
	add(adversarialCase{name: "unknown team field", class: "silent-drop", path: "aksml:teams[0].gpuquota", fix: `did you mean "gpuQuota"`,
		mutate: func(c config) { c.set("teams.0.gpuquota", map[string]any{"t4": 1}) }})

	// Messages: enumerations list their choices, names say their rule.
	add(cases("message", "environment", "environment", "aksml:environment", `use one of "dev", "prod"`, "staging")...)
	add(cases("message", "scheduler", "scheduler.system", "aksml:scheduler.system", "use one of", "slurm")...)
	add(cases("message", "pool priority", "gpuPools.0.priority", "aksml:gpuPools[0].priority", "use one of", "Cheap")...)
	add(cases("message", "tier", "cluster.tier", "aksml:cluster.tier", "use one of", "Gold")...)
	add(cases("message", "zone", "gpuPools.0.zones", "aksml:gpuPools[0].zones[0]", `use "1", "2" or "3"`, []any{"4"})...)
	add(cases("message", "team name", "teams.0.name", "aksml:teams[0].name", "use lowercase letters", "Team_A")...)
	add(cases("message", "cohort", "scheduler.cohort", "aksml:scheduler.cohort", "use lowercase letters", "Bad Cohort")...)
	add(cases("message", "cluster name", "cluster.name", "aksml:cluster.name", "use 1-63 letters", "bad name!")...)
	add(adversarialCase{name: "quota on an unknown pool", class: "message", path: `aksml:teams[0].gpuQuota["h100"]`, fix: "use one of",
		mutate: func(c config) { c.set("teams.0.gpuQuota.h100", 1) }})

	// Namespace quota below the stack's own claims (datasets and
	// checkpoints, 100Gi each in the base config): the API server would
	// refuse them at `pulumi up`.
	checkpointsStorage := storage.CheckpointsClass + ".storageclass.storage.k8s.io/requests.storage"
	add(adversarialCase{name: "namespace quota below the checkpoints claim", class: "message", path: fmt.Sprintf("aksml:teams[0].namespaceQuota[%q]", checkpointsStorage),
		fix: "raise it to at least 100Gi", mutate: func(c config) { c.set("teams.0.namespaceQuota", map[string]any{checkpointsStorage: "50Gi"}) }})
	add(adversarialCase{name: "namespace quota of fewer claims than the stack's", class: "message", path: `aksml:teams[0].namespaceQuota["persistentvolumeclaims"]`,
		fix: "raise it to at least 2", mutate: func(c config) { c.set("teams.0.namespaceQuota", map[string]any{"persistentvolumeclaims": "1"}) }})
	add(adversarialCase{name: "namespace storage quota below the stack's claims", class: "message", path: `aksml:teams[0].namespaceQuota["requests.storage"]`,
		fix: "raise it to at least 200Gi", mutate: func(c config) { c.set("teams.0.namespaceQuota", map[string]any{"requests.storage": "150Gi"}) }})
	return all
}

func acceptedCases() []acceptedCase {
	teams := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = map[string]any{"name": fmt.Sprintf("team-%02d", i), "gpuQuota": map[string]any{"t4": 1}, "cpu": "4", "memory": "16Gi"}
		}
		return out
	}
	return []acceptedCase{
		{name: "one team", mutate: func(c config) {
			c.set("teams", []any{map[string]any{"name": "solo", "gpuQuota": map[string]any{"t4": 2, "t4spot": 4}, "cpu": "16", "memory": "64Gi"}})
			c.set("workloads.0.team", "solo")
		}},
		{name: "spot-only training cluster", mutate: func(c config) {
			c.set("gpuPools", []any{map[string]any{"name": "spot", "vmSize": "Standard_NC4as_T4_v3", "workload": "training", "priority": "Spot", "maxCount": 4}})
			c.set("teams.0.gpuQuota", map[string]any{"spot": 2})
			c.set("teams.1.gpuQuota", map[string]any{"spot": 2})
		}},
		{name: "20 teams", mutate: func(c config) {
			c.set("gpuPools", []any{map[string]any{"name": "t4", "vmSize": "Standard_NC4as_T4_v3", "workload": "training", "maxCount": 20}})
			c.set("teams", teams(20))
			c.set("workloads.0.team", "team-00")
		}},
		{name: "resource group with non-ASCII letters", mutate: func(c config) { c.set("cluster.resourceGroup.name", "rg-münchen-数据_(ml)") }},
		{name: "tags with spaces and unicode values", mutate: func(c config) {
			c.set("tags", map[string]any{"cost center": "ML Plattform – Zürich", "owner": "équipe-ml"})
		}},
		{name: "pinned minor with the patch channel", mutate: func(c config) {
			c.set("cluster.upgradeChannel", "patch")
			c.set("cluster.kubernetesVersion", "1.35")
		}},
		{name: "another region", mutate: func(c config) { c.set("cluster.location", "swedencentral") }},
		{name: "namespace quota exactly the stack's own claims", mutate: func(c config) {
			c.set("teams.0.namespaceQuota", map[string]any{
				storage.CheckpointsClass + ".storageclass.storage.k8s.io/requests.storage":       "100Gi",
				storage.CheckpointsClass + ".storageclass.storage.k8s.io/persistentvolumeclaims": "1",
				"persistentvolumeclaims": "2", "requests.storage": "200Gi",
			})
		}},
		{name: "kubelet-allowed and own-domain node labels", mutate: func(c config) {
			c.set("gpuPools.0.additionalLabels", map[string]any{"node.kubernetes.io/pool-role": "train", "example.com/team": "a"})
			c.set("gpuPools.0.additionalTaints", []any{"example.com/dedicated=ml:NoSchedule"})
		}},
		{name: "descriptor and stepped schedules", mutate: func(c config) { c.set("workloads.0.schedule", "*/15 8-18 * * 1-5") }},
		{name: "milli and fractional quantities", mutate: func(c config) {
			c.set("teams.0.cpu", "16000m")
			c.set("teams.0.memory", "0.0625Ti")
			c.set("storage.volumes.checkpointsSize", "1.5Ti")
		}},
		{name: "GPU stack in kube-system without creating it", mutate: func(c config) {
			c.set("gpuStack.namespace", "kube-system")
			c.set("gpuStack.createNamespace", false)
		}},
		{name: "daily descriptor", mutate: func(c config) { c.set("workloads.0.schedule", "@daily") }},
	}
}
