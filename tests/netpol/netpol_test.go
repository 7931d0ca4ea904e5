package netpol

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/mattfenwick/cyclonus/pkg/matcher"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/aksml/aksml/components/tenancy"
	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/policy/rules"
	"github.com/aksml/aksml/stacks"
)

// projectDir holds the shipped Pulumi.<stack>.yaml files.
const projectDir = "../.."

// storageIP stands for an Azure Storage endpoint: an address outside the
// cluster's pod and service ranges.
const storageIP = "20.60.0.4"

// imdsIP is the Azure Instance Metadata Service (tenancy.IMDSCIDR).
const imdsIP = "169.254.169.254"

// peer is one end of a connection in the table.
type peer struct {
	name string
	tp   *matcher.TrafficPeer
}

// port is one destination port of the table.
type port struct {
	name     string
	number   int
	portName string
	protocol corev1.Protocol
}

var ports = []port{
	{name: "nccl/29500", number: 29500, protocol: corev1.ProtocolTCP},
	{name: "metrics/8000", number: 8000, portName: tenancy.MetricsPortName, protocol: corev1.ProtocolTCP},
	{name: "dns/53udp", number: 53, protocol: corev1.ProtocolUDP},
	{name: "https/443", number: 443, protocol: corev1.ProtocolTCP},
	{name: "smb/445", number: 445, protocol: corev1.ProtocolTCP},
	{name: "http/80", number: 80, protocol: corev1.ProtocolTCP},
	{name: "webhook/9443", number: 9443, protocol: corev1.ProtocolTCP},
}

func internal(name, ns, ip string, labels map[string]string) peer {
	return peer{name: name, tp: &matcher.TrafficPeer{
		IP: ip,
		Internal: &matcher.InternalPeer{
			Namespace:       ns,
			NamespaceLabels: map[string]string{tenancy.NamespaceNameLabel: ns},
			PodLabels:       labels,
		},
	}}
}

// jobPod is replica i of a distributed job in team's namespace, labelled
// the way components/workloads labels pods.
func jobPod(team string, teamIndex, i int) peer {
	return internal(fmt.Sprintf("%s/ddp-%d", team, i), team, fmt.Sprintf("10.244.%d.%d", teamIndex+1, i+10), map[string]string{
		"aksml.io/team":                  team,
		"app.kubernetes.io/part-of":      "aksml",
		"training.kubeflow.org/job-name": "ddp",
		"aksml.io/metrics":               "true",
	})
}

// evaluation is a stack's policies, compiled by cyclonus, and its peers.
type evaluation struct {
	stack  string
	policy *matcher.Policy
	teams  []string
	// platform are the platform namespaces the stack isolates, each with a
	// pod peer "<ns>/controller".
	platform []string
	peers    map[string]peer
	egress   map[string]string
}

func evaluate(t *testing.T, stack string) *evaluation {
	t.Helper()
	st, err := synth.Synth(projectDir, stack)
	require.NoError(t, err)
	return evaluateStack(t, stack, st)
}

// evaluateStack compiles the policies of a synthesized stack.
func evaluateStack(t *testing.T, stack string, st *rules.Stack) *evaluation {
	t.Helper()
	var nps []*networkingv1.NetworkPolicy
	e := &evaluation{stack: stack, peers: map[string]peer{}, egress: map[string]string{}}
	for _, r := range st.Resources {
		switch {
		case strings.HasSuffix(r.Type, ":NetworkPolicy"):
			nps = append(nps, networkPolicy(t, r))
		case strings.HasSuffix(r.Type, "core/v1:Namespace"):
			if labels, _ := r.Get("metadata.labels").(map[string]any); labels["aksml.io/team"] != nil {
				e.teams = append(e.teams, r.Get("metadata.name").(string))
			}
		case r.Type == tenancy.PlatformIsolationType:
			e.platform = append(e.platform, platformNamespaces(t, st.Resources, r.URN)...)
		}
	}
	sort.Strings(e.platform)
	for i, ns := range e.platform {
		p := internal(ns+"/controller", ns, fmt.Sprintf("10.244.100.%d", i+10), map[string]string{"app": "controller"})
		e.peers[p.name] = p
	}
	sort.Strings(e.teams)
	require.NotEmpty(t, e.teams, "stack %s has team namespaces", stack)
	require.NotEmpty(t, nps)
	e.policy = matcher.BuildNetworkPolicies(true, nps)
	for i, team := range e.teams {
		for r := 0; r < 2; r++ {
			p := jobPod(team, i, r)
			e.peers[p.name] = p
		}
	}
	for _, p := range []peer{
		internal("kube-system/coredns", tenancy.SystemNamespace, "10.244.0.2", map[string]string{tenancy.DNSPodLabel: tenancy.DNSPodValue}),
		internal("kube-system/ama-metrics", tenancy.SystemNamespace, "10.244.0.3", map[string]string{tenancy.ScraperPodLabel: tenancy.ScraperPodValue}),
		internal("kube-system/metrics-server", tenancy.SystemNamespace, "10.244.0.4", map[string]string{"k8s-app": "metrics-server"}),
		internal("default/intruder", "default", "10.244.200.9", map[string]string{"app": "intruder"}),
		{name: "external/storage", tp: &matcher.TrafficPeer{IP: storageIP}},
		{name: "external/imds", tp: &matcher.TrafficPeer{IP: imdsIP}},
		{name: "external/apiserver", tp: &matcher.TrafficPeer{IP: "20.50.0.10"}},
		{name: "node/kubelet", tp: &matcher.TrafficPeer{IP: "10.224.0.4"}},
	} {
		e.peers[p.name] = p
	}
	return e
}

// platformNamespaces are the namespaces of the NetworkPolicies whose parent
// is the PlatformIsolation component urn.
func platformNamespaces(t *testing.T, rs []rules.Resource, urn string) []string {
	t.Helper()
	seen := map[string]bool{}
	var out []string
	for _, r := range rs {
		if r.Parent == urn && strings.HasSuffix(r.Type, ":NetworkPolicy") {
			ns := r.Get("metadata.namespace").(string)
			if !seen[ns] {
				seen[ns] = true
				out = append(out, ns)
			}
		}
	}
	require.NotEmpty(t, out, "PlatformIsolation %s registers policies", urn)
	return out
}

// networkPolicy converts a registered NetworkPolicy's inputs to the
// Kubernetes type cyclonus reads.
func networkPolicy(t *testing.T, r rules.Resource) *networkingv1.NetworkPolicy {
	t.Helper()
	b, err := json.Marshal(r.Inputs)
	require.NoError(t, err)
	np := &networkingv1.NetworkPolicy{}
	require.NoError(t, json.Unmarshal(b, np), "NetworkPolicy %s", r.Name)
	return np
}

func (e *evaluation) allowed(t *testing.T, from, to string, p port) bool {
	t.Helper()
	src, ok := e.peers[from]
	require.True(t, ok, "unknown peer %s", from)
	dst, ok := e.peers[to]
	require.True(t, ok, "unknown peer %s", to)
	return e.policy.IsTrafficAllowed(&matcher.Traffic{
		Source: src.tp, Destination: dst.tp,
		ResolvedPort: p.number, ResolvedPortName: p.portName, Protocol: p.protocol,
	}).IsAllowed()
}

// table renders the whole allowed-traffic table, one line per connection.
func (e *evaluation) table(t *testing.T) string {
	names := make([]string, 0, len(e.peers))
	for n := range e.peers {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, from := range names {
		for _, to := range names {
			if from == to {
				continue
			}
			var open []string
			for _, p := range ports {
				if e.allowed(t, from, to, p) {
					open = append(open, p.name)
				}
			}
			if len(open) > 0 {
				fmt.Fprintf(&b, "%-26s -> %-26s %s\n", from, to, strings.Join(open, " "))
			}
		}
	}
	return b.String()
}

func portNamed(name string) port {
	for _, p := range ports {
		if p.name == name {
			return p
		}
	}
	panic("no port " + name)
}

// TestShippedStackNetworkPolicies computes the allowed-traffic table of
// every shipped stack and checks the isolation the tenancy component
// promises.
func TestShippedStackNetworkPolicies(t *testing.T) {
	stacks, err := synth.Stacks(projectDir)
	require.NoError(t, err)
	require.Subset(t, stacks, []string{"dev", "prod", "local"})
	for _, stack := range stacks {
		t.Run(stack, func(t *testing.T) {
			e := evaluate(t, stack)
			t.Logf("allowed traffic, stack %s:\n%s", stack, e.table(t))
			for _, a := range e.teams {
				a0, a1 := a+"/ddp-0", a+"/ddp-1"
				for _, p := range ports {
					if p.protocol == corev1.ProtocolTCP {
						assert.True(t, e.allowed(t, a0, a1, p), "%s: replicas of one job in %s talk on %s (NCCL)", stack, a, p.name)
					}
				}
				assert.True(t, e.allowed(t, a0, "kube-system/coredns", portNamed("dns/53udp")), "%s: %s resolves names", stack, a)
				assert.True(t, e.allowed(t, "kube-system/ama-metrics", a0, portNamed("metrics/8000")), "%s: managed Prometheus scrapes %s", stack, a)
				assert.False(t, e.allowed(t, "kube-system/ama-metrics", a0, portNamed("nccl/29500")), "%s: the scraper reaches only the metrics port", stack)
				assert.True(t, e.allowed(t, a0, "external/storage", portNamed("https/443")), "%s: %s reaches Azure Storage over HTTPS", stack, a)
				assert.False(t, e.allowed(t, "default/intruder", a0, portNamed("nccl/29500")), "%s: a pod outside the teams cannot reach %s", stack, a)
				assert.False(t, e.allowed(t, "external/storage", a0, portNamed("https/443")), "%s: nothing outside the cluster reaches %s", stack, a)
				for _, b := range e.teams {
					if a == b {
						continue
					}
					for _, p := range ports {
						assert.False(t, e.allowed(t, a0, b+"/ddp-0", p), "%s: team %s must not reach team %s on %s", stack, a, b, p.name)
					}
				}
			}
		})
	}
}

// TestIMDSAndPlatformUnreachable: from every team of every shipped stack,
// as shipped and with every team's egress Unrestricted, IMDS and the
// platform namespaces are unreachable on every port, and kube-system only
// through CoreDNS on port 53, while the platform itself keeps its paths:
// kube-system (the scraper, the API server's webhook calls through the
// konnectivity agent) and the nodes reach it, and it reaches the API
// server on 443 and DNS. The platform namespaces are the ones the stack
// ships: every namespace it deploys into (its objects and its charts) that
// is neither a team's nor kube-system is isolated.
func TestIMDSAndPlatformUnreachable(t *testing.T) {
	stackNames, err := synth.Stacks(projectDir)
	require.NoError(t, err)
	for _, stack := range stackNames {
		for _, variant := range []string{"as shipped", "every team Unrestricted"} {
			t.Run(stack+"/"+variant, func(t *testing.T) {
				var (
					st  *rules.Stack
					err error
				)
				if variant == "as shipped" {
					st, err = synth.Synth(projectDir, stack)
				} else {
					st, err = allUnrestricted(stack)
				}
				require.NoError(t, err)
				e := evaluateStack(t, stack, st)
				assert.ElementsMatch(t, deployedNamespaces(st, e.teams), e.platform, "%s: every platform namespace the stack deploys into is isolated", stack)
				for _, a := range e.teams {
					from := a + "/ddp-0"
					if variant != "as shipped" {
						assert.True(t, e.allowed(t, from, "external/storage", portNamed("smb/445")), "%s: team %s is Unrestricted in this variant", stack, a)
					}
					for _, p := range ports {
						assert.False(t, e.allowed(t, from, "external/imds", p), "%s: team %s reaches IMDS on %s", stack, a, p.name)
						assert.False(t, e.allowed(t, from, "kube-system/metrics-server", p), "%s: team %s reaches kube-system beyond CoreDNS on %s", stack, a, p.name)
						assert.Equal(t, p.name == "dns/53udp", e.allowed(t, from, "kube-system/coredns", p), "%s: team %s reaches CoreDNS on %s only if it is DNS", stack, a, p.name)
						for _, ns := range e.platform {
							assert.False(t, e.allowed(t, from, ns+"/controller", p), "%s: team %s reaches platform namespace %s on %s", stack, a, ns, p.name)
						}
					}
				}
				for _, ns := range e.platform {
					c := ns + "/controller"
					assert.True(t, e.allowed(t, "kube-system/ama-metrics", c, portNamed("metrics/8000")), "%s: the scraper reaches %s", stack, ns)
					assert.True(t, e.allowed(t, "node/kubelet", c, portNamed("webhook/9443")), "%s: the API server (via the nodes) calls %s's webhook", stack, ns)
					assert.True(t, e.allowed(t, c, "external/apiserver", portNamed("https/443")), "%s: %s reaches the API server", stack, ns)
					assert.True(t, e.allowed(t, c, "kube-system/coredns", portNamed("dns/53udp")), "%s: %s resolves names", stack, ns)
					assert.False(t, e.allowed(t, c, "external/imds", portNamed("http/80")), "%s: %s does not reach IMDS", stack, ns)
					assert.False(t, e.allowed(t, "default/intruder", c, portNamed("webhook/9443")), "%s: a pod outside kube-system does not reach %s", stack, ns)
				}
			})
		}
	}
}

// allUnrestricted synthesizes stack with every team's egress Unrestricted.
func allUnrestricted(stack string) (*rules.Stack, error) {
	return synth.SynthEdited(projectDir, stack, func(cfg map[string]string) error {
		var teams []map[string]any
		if err := json.Unmarshal([]byte(cfg["aksml:teams"]), &teams); err != nil {
			return err
		}
		for _, team := range teams {
			team["egress"] = string(tenancy.EgressUnrestricted)
		}
		b, err := json.Marshal(teams)
		cfg["aksml:teams"] = string(b)
		return err
	})
}

// deployedNamespaces are the namespaces a stack deploys into (its
// Kubernetes objects' and its Helm charts'), other than its teams' and
// kube-system: the platform namespaces.
func deployedNamespaces(st *rules.Stack, teams []string) []string {
	seen := map[string]bool{tenancy.SystemNamespace: true}
	for _, team := range teams {
		seen[team] = true
	}
	var out []string
	for _, r := range st.Resources {
		if !strings.HasPrefix(r.Type, "kubernetes:") {
			continue
		}
		ns, _ := r.Get("metadata.namespace").(string)
		if chart, _ := r.Inputs["namespace"].(string); chart != "" {
			ns = chart
		}
		if ns != "" && !seen[ns] {
			seen[ns] = true
			out = append(out, ns)
		}
	}
	sort.Strings(out)
	return out
}

// TestUnrestrictedEgress: an Unrestricted team reaches the internet on any
// port, but still not IMDS, other namespaces or the platform.
func TestUnrestrictedEgress(t *testing.T) {
	raw, err := synth.ReadStackConfig(projectDir, "dev")
	require.NoError(t, err)
	raw["aksml:teams"] = strings.Replace(raw["aksml:teams"], `"name":"team-b"`, `"egress":"Unrestricted","name":"team-b"`, 1)
	require.Contains(t, raw["aksml:teams"], `"egress":"Unrestricted"`)
	st, err := synth.Run("dev", "dev", raw, stacks.Program)
	require.NoError(t, err)
	e := evaluateStack(t, "dev", st)
	b := "team-b/ddp-0"
	assert.True(t, e.allowed(t, b, "external/storage", portNamed("smb/445")), "Unrestricted: any port outside the cluster")
	assert.True(t, e.allowed(t, b, "external/storage", portNamed("http/80")))
	for _, p := range ports {
		assert.False(t, e.allowed(t, b, "external/imds", p), "Unrestricted still never reaches IMDS (%s)", p.name)
		assert.False(t, e.allowed(t, b, "default/intruder", p), "Unrestricted does not reach other namespaces (%s)", p.name)
		assert.False(t, e.allowed(t, b, "team-a/ddp-0", p), "nor other teams (%s)", p.name)
	}
	assert.True(t, e.allowed(t, b, "team-b/ddp-1", portNamed("nccl/29500")))
}

// TestRestrictedEgress: a restricted team reaches nothing outside the
// cluster but HTTPS, and never the cluster's other pods through the HTTPS
// allowance.
func TestRestrictedEgress(t *testing.T) {
	e := evaluate(t, "dev")
	a0 := e.teams[0] + "/ddp-0"
	assert.False(t, e.allowed(t, a0, "external/storage", portNamed("smb/445")), "SMB is mounted by the node, not the pod")
	assert.False(t, e.allowed(t, a0, "default/intruder", portNamed("https/443")), "the HTTPS allowance excludes the pod range")
	assert.False(t, e.allowed(t, a0, "kube-system/coredns", portNamed("https/443")), "CoreDNS only on 53")
}

// TestEvaluatorSeesMissingDefaultDeny is the negative control: without
// aksml's policies every connection is open, so the assertions above are
// real.
func TestEvaluatorSeesMissingDefaultDeny(t *testing.T) {
	e := evaluate(t, "dev")
	e.policy = matcher.BuildNetworkPolicies(true, nil)
	a, b := e.teams[0], e.teams[1]
	assert.True(t, e.allowed(t, a+"/ddp-0", b+"/ddp-0", portNamed("nccl/29500")), "no policy: team a reaches team b")
	assert.True(t, e.allowed(t, a+"/ddp-0", "external/storage", portNamed("smb/445")))
}
