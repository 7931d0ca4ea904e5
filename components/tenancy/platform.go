package tenancy

import (
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
	networkingv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/networking/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/vocab"
)

// PlatformIsolationType is the Pulumi type token of NewPlatformIsolation.
const PlatformIsolationType = "aksml:tenancy:PlatformIsolation"

// Names of the NetworkPolicies NewPlatformIsolation puts in each platform
// namespace, next to DefaultDenyPolicy, SameNamespacePolicy and DNSPolicy.
const (
	// ControlPlanePolicy lets in what runs the platform: every pod of
	// kube-system (the managed Prometheus scraper; on AKS the
	// konnectivity agent that carries the API server's webhook and
	// aggregated-API calls) and every address outside the cluster's pod
	// range (the nodes: kubelet probes, host-network agents; an API server
	// with VNet integration).
	ControlPlanePolicy = "aksml-allow-control-plane"
	// APIServerPolicy lets the platform's controllers out to the API server
	// (TCP 443, never IMDS).
	APIServerPolicy = "aksml-allow-apiserver"
)

// PlatformNamespace is a namespace aksml creates for a platform component.
type PlatformNamespace struct {
	// Name is the namespace, one of the names vocab.PlatformNamespaceOwner
	// reserves (gpu-operator, kueue-system, volcano-system, kubeflow, ...).
	// Required.
	Name string
	// DependsOn are the resources that create the namespace; the policies
	// wait for them. Default none.
	DependsOn []pulumi.Resource
}

// PlatformIsolationArgs configures NewPlatformIsolation.
type PlatformIsolationArgs struct {
	// Provider is the Kubernetes provider of the cluster. nil: the ambient
	// default provider.
	Provider *kubernetes.Provider
	// Namespaces are the platform namespaces to isolate. Default none.
	Namespaces []PlatformNamespace
	// ExcludedCIDRs are the cluster's pod and service ranges: no connection
	// from them enters a platform namespace except from kube-system and
	// the namespace itself, so no team pod does. Default
	// DefaultExcludedCIDRs.
	ExcludedCIDRs []string
}

// PlatformIsolation is the default deny of the platform namespaces aksml
// creates, with the allowances their components need.
type PlatformIsolation struct {
	pulumi.ResourceState

	// Namespaces are the isolated namespaces, sorted.
	Namespaces []string
}

// NewPlatformIsolation gives each platform namespace its own default deny
// (ingress and egress, every pod) and allows what the platform's
// components need and nothing a team could use: traffic inside the
// namespace, DNS, the API server on 443 (not IMDS), and in from kube-system
// and from outside the pod range (ControlPlanePolicy). NetworkPolicies are
// additive allow lists, so a team pod, in the pod range and outside
// kube-system, matches no rule and is refused ("Network Policies",
// https://kubernetes.io/docs/concepts/services-networking/network-policies/).
// Whether an ipBlock matches node addresses is up to the network policy
// engine (same document: "ipBlock ... cluster-external IPs"); both AKS
// engines (Azure NPM, Cilium) let a node reach its own pods.
func NewPlatformIsolation(ctx *pulumi.Context, name string, args *PlatformIsolationArgs, opts ...pulumi.ResourceOption) (*PlatformIsolation, error) {
	if args == nil {
		return nil, errors.New("tenancy: NewPlatformIsolation needs args")
	}
	excluded := args.ExcludedCIDRs
	if excluded == nil {
		excluded = DefaultExcludedCIDRs
	}
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, ns := range args.Namespaces {
		p := field.NewPath("PlatformIsolationArgs.Namespaces").Index(i).Child("name")
		switch {
		case vocab.PlatformNamespaceOwner(ns.Name) == "" || strings.HasPrefix(ns.Name, vocab.SystemNamespacePrefix) || ns.Name == vocab.DefaultNamespace:
			errs = append(errs, field.Invalid(p, "%q is not a namespace aksml creates for a platform component (%s)", ns.Name, strings.Join(vocab.ReservedNamespaceNames(), ", ")))
		case seen[ns.Name]:
			errs = append(errs, field.Duplicate(p, "%q is listed twice", ns.Name))
		}
		seen[ns.Name] = true
	}
	if err := errs.ToAggregate(); err != nil {
		return nil, err
	}
	c := &PlatformIsolation{}
	if err := ctx.RegisterComponentResource(PlatformIsolationType, name, c, opts...); err != nil {
		return nil, err
	}
	for _, ns := range args.Namespaces {
		kopts := []pulumi.ResourceOption{pulumi.Parent(c), pulumi.DependsOn(ns.DependsOn)}
		if args.Provider != nil {
			kopts = append(kopts, pulumi.Provider(args.Provider))
		}
		policies := platformPolicyArgs(ns.Name, excluded)
		for _, n := range slices.Sorted(maps.Keys(policies)) {
			if _, err := networkingv1.NewNetworkPolicy(ctx, name+"-"+ns.Name+"-"+strings.TrimPrefix(n, "aksml-"), policies[n], kopts...); err != nil {
				return nil, err
			}
		}
		c.Namespaces = append(c.Namespaces, ns.Name)
	}
	slices.Sort(c.Namespaces)
	return c, ctx.RegisterResourceOutputs(c, pulumi.Map{"namespaces": pulumi.ToStringArray(c.Namespaces)})
}

// platformPolicyArgs maps the policies of platform namespace ns by name.
func platformPolicyArgs(ns string, excluded []string) map[string]*networkingv1.NetworkPolicyArgs {
	sameNamespace := networkingv1.NetworkPolicyPeerArray{networkingv1.NetworkPolicyPeerArgs{PodSelector: allPods}}
	kubeSystem := networkingv1.NetworkPolicyPeerArgs{
		NamespaceSelector: metav1.LabelSelectorArgs{MatchLabels: pulumi.StringMap{NamespaceNameLabel: pulumi.String(SystemNamespace)}},
	}
	outsidePods := networkingv1.NetworkPolicyPeerArgs{
		IpBlock: networkingv1.IPBlockArgs{Cidr: pulumi.String(AnyIPv4), Except: pulumi.ToStringArray(excluded)},
	}
	notIMDS := networkingv1.NetworkPolicyPeerArgs{
		IpBlock: networkingv1.IPBlockArgs{Cidr: pulumi.String(AnyIPv4), Except: pulumi.ToStringArray([]string{IMDSCIDR})},
	}
	meta := func(name string) metav1.ObjectMetaArgs {
		return metav1.ObjectMetaArgs{
			Name: pulumi.String(name), Namespace: pulumi.String(ns),
			Labels: pulumi.StringMap{PartOfLabel: pulumi.String(PartOfValue)},
		}
	}
	np := func(name string, types []string, ingress networkingv1.NetworkPolicyIngressRuleArray, egress networkingv1.NetworkPolicyEgressRuleArray) *networkingv1.NetworkPolicyArgs {
		return &networkingv1.NetworkPolicyArgs{
			Metadata: meta(name),
			Spec: networkingv1.NetworkPolicySpecArgs{
				PodSelector: allPods, PolicyTypes: pulumi.ToStringArray(types), Ingress: ingress, Egress: egress,
			},
		}
	}
	return map[string]*networkingv1.NetworkPolicyArgs{
		DefaultDenyPolicy: np(DefaultDenyPolicy, []string{"Ingress", "Egress"}, nil, nil),
		SameNamespacePolicy: np(SameNamespacePolicy, []string{"Ingress", "Egress"},
			networkingv1.NetworkPolicyIngressRuleArray{networkingv1.NetworkPolicyIngressRuleArgs{From: sameNamespace}},
			networkingv1.NetworkPolicyEgressRuleArray{networkingv1.NetworkPolicyEgressRuleArgs{To: sameNamespace}}),
		DNSPolicy: np(DNSPolicy, []string{"Egress"}, nil, dnsEgress()),
		ControlPlanePolicy: np(ControlPlanePolicy, []string{"Ingress"},
			networkingv1.NetworkPolicyIngressRuleArray{networkingv1.NetworkPolicyIngressRuleArgs{
				From: networkingv1.NetworkPolicyPeerArray{kubeSystem, outsidePods},
			}}, nil),
		APIServerPolicy: np(APIServerPolicy, []string{"Egress"}, nil,
			networkingv1.NetworkPolicyEgressRuleArray{networkingv1.NetworkPolicyEgressRuleArgs{
				To:    networkingv1.NetworkPolicyPeerArray{notIMDS},
				Ports: networkingv1.NetworkPolicyPortArray{port("TCP", pulumi.Int(HTTPSPort))},
			}}),
	}
}
