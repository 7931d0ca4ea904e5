package tenancy

import (
	"slices"

	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
	networkingv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/networking/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// NetworkPolicies are additive: a connection is allowed when any policy
// that selects the pod allows it, and a pod selected by no policy of a
// direction is open in that direction ("Network Policies",
// https://kubernetes.io/docs/concepts/services-networking/network-policies/).
// So the namespace gets one default-deny policy selecting every pod and one
// policy with every allowance the team has, one rule per platform need.
// One allow policy rather than one per need: the rules of a policy are a
// union just as separate policies are, and each policy is a resource in
// the stack's state, which a checkpointed `up` rewrites after every step
// (issue 32; README "Test tiers", the bench).

var allPods = metav1.LabelSelectorArgs{}

// policyArgs maps the policies of team t in namespace ns by name:
// DefaultDenyPolicy and TeamAllowPolicy. excluded are the cluster's pod and
// service ranges, never reachable through the external allowance; IMDSCIDR
// is never reachable either.
//
// Every team gets the same default deny of ingress and egress and the same
// allowances: same-namespace traffic both ways, the metrics scrape in and
// DNS out. Restricted teams then reach addresses outside the cluster on
// HTTPS only; Unrestricted teams on every port. Neither reaches the pod or
// service ranges, so no team reaches another namespace (the platform's or
// another team's) through its egress allowance, and neither reaches IMDS,
// whose tokens are the node's identities.
func policyArgs(t Team, ns pulumi.StringInput, excluded []string) map[string]*networkingv1.NetworkPolicyArgs {
	sameNamespace := networkingv1.NetworkPolicyPeerArray{networkingv1.NetworkPolicyPeerArgs{PodSelector: allPods}}
	external := networkingv1.NetworkPolicyEgressRuleArgs{To: outsideCluster(excluded)}
	if t.Egress != EgressUnrestricted {
		external.Ports = networkingv1.NetworkPolicyPortArray{port("TCP", pulumi.Int(HTTPSPort))}
	}
	return map[string]*networkingv1.NetworkPolicyArgs{
		DefaultDenyPolicy: policy(t, ns, DefaultDenyPolicy, nil, nil),
		TeamAllowPolicy: policy(t, ns, TeamAllowPolicy,
			networkingv1.NetworkPolicyIngressRuleArray{
				networkingv1.NetworkPolicyIngressRuleArgs{From: sameNamespace},
				networkingv1.NetworkPolicyIngressRuleArgs{
					From:  networkingv1.NetworkPolicyPeerArray{systemPods(ScraperPodLabel, ScraperPodValue)},
					Ports: networkingv1.NetworkPolicyPortArray{port("TCP", pulumi.String(MetricsPortName))},
				},
			},
			append(networkingv1.NetworkPolicyEgressRuleArray{networkingv1.NetworkPolicyEgressRuleArgs{To: sameNamespace}},
				append(dnsEgress(), external)...)),
	}
}

// outsideCluster is every IPv4 address but the cluster's pod and service
// ranges (excluded) and IMDS (IMDSCIDR).
func outsideCluster(excluded []string) networkingv1.NetworkPolicyPeerArray {
	except := append(slices.Clone(excluded), IMDSCIDR)
	return networkingv1.NetworkPolicyPeerArray{networkingv1.NetworkPolicyPeerArgs{
		IpBlock: networkingv1.IPBlockArgs{Cidr: pulumi.String(AnyIPv4), Except: pulumi.ToStringArray(except)},
	}}
}

// dnsEgress allows CoreDNS on port 53 over UDP and TCP.
func dnsEgress() networkingv1.NetworkPolicyEgressRuleArray {
	return networkingv1.NetworkPolicyEgressRuleArray{networkingv1.NetworkPolicyEgressRuleArgs{
		To:    networkingv1.NetworkPolicyPeerArray{systemPods(DNSPodLabel, DNSPodValue)},
		Ports: networkingv1.NetworkPolicyPortArray{port("UDP", pulumi.Int(53)), port("TCP", pulumi.Int(53))},
	}}
}

// policy is a NetworkPolicy of team t selecting every pod of ns, for
// ingress and egress.
func policy(t Team, ns pulumi.StringInput, name string, ingress networkingv1.NetworkPolicyIngressRuleArray, egress networkingv1.NetworkPolicyEgressRuleArray) *networkingv1.NetworkPolicyArgs {
	return &networkingv1.NetworkPolicyArgs{
		Metadata: objectMeta(name, ns, t, nil),
		Spec: networkingv1.NetworkPolicySpecArgs{
			PodSelector: allPods,
			PolicyTypes: pulumi.ToStringArray([]string{"Ingress", "Egress"}),
			Ingress:     ingress,
			Egress:      egress,
		},
	}
}

// systemPods selects the pods labelled key=value in kube-system.
func systemPods(key, value string) networkingv1.NetworkPolicyPeerArgs {
	return networkingv1.NetworkPolicyPeerArgs{
		NamespaceSelector: metav1.LabelSelectorArgs{MatchLabels: pulumi.StringMap{NamespaceNameLabel: pulumi.String(SystemNamespace)}},
		PodSelector:       metav1.LabelSelectorArgs{MatchLabels: pulumi.StringMap{key: pulumi.String(value)}},
	}
}

func port(protocol string, p pulumi.Input) networkingv1.NetworkPolicyPortArgs {
	return networkingv1.NetworkPolicyPortArgs{Protocol: pulumi.String(protocol), Port: p}
}
