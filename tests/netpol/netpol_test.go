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
	"github.com/aksml/aksml/policy/rules"
	"github.com/aksml/aksml/tests/synth"
)

// projectDir holds the shipped Pulumi.<stack>.yaml files.
const projectDir = "../.."

// storageIP stands for an Azure Storage endpoint: an address outside the
// cluster's pod and service ranges.
const storageIP = "20.60.0.4"

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
	peers  map[string]peer
	egress map[string]string
}

func evaluate(t *testing.T, stack string) *evaluation {
	t.Helper()
	st, err := synth.Synth(projectDir, stack)
	require.NoError(t, err)
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
		}
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
		internal("default/intruder", "default", "10.244.200.9", map[string]string{"app": "intruder"}),
		{name: "external/storage", tp: &matcher.TrafficPeer{IP: storageIP}},
	} {
		e.peers[p.name] = p
	}
	return e
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
