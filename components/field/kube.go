package field

import (
	"slices"
	"strings"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation"
)

// The Kubernetes syntax checks every aksml package uses. They call the
// functions the API server itself validates with (k8s.io/apimachinery
// v0.35.3, the version tests/cluster runs against; robfig/cron v3.0.1, the
// parser kube-apiserver's CronJob validation uses), so that what aksml
// accepts the API server accepts too. The wording of messages stays in the
// calling package; these return whether a value is valid, or a short
// reason.

// IsDNSLabel reports whether v is an RFC 1123 DNS label: at most 63
// lowercase letters, digits and '-', starting and ending with a letter or
// digit (namespace names, container names).
func IsDNSLabel(v string) bool { return len(content.IsDNS1123Label(v)) == 0 }

// IsDNSSubdomain reports whether v is an RFC 1123 DNS subdomain: at most 253
// characters of dot-separated DNS labels (most object names).
func IsDNSSubdomain(v string) bool { return len(content.IsDNS1123Subdomain(v)) == 0 }

// IsLabelValue reports whether v is a valid Kubernetes label value: empty,
// or at most 63 letters, digits, '-', '_' and '.', starting and ending with
// a letter or digit.
func IsLabelValue(v string) bool { return len(content.IsLabelValue(v)) == 0 }

// IsPortName reports whether v is a container port name (IANA_SVC_NAME):
// at most 15 lowercase letters, digits and single '-', with at least one
// letter, not starting or ending with '-'.
func IsPortName(v string) bool { return len(validation.IsValidPortName(v)) == 0 }

// LabelKeyProblem returns "" for a valid label (or taint) key
// `[prefix/]name`, otherwise which part is wrong and how to write it.
func LabelKeyProblem(k string) string {
	if len(content.IsLabelKey(k)) == 0 {
		return ""
	}
	prefix, _, found := strings.Cut(k, "/")
	if found && (prefix == "" || !IsDNSSubdomain(prefix)) {
		return "the prefix must be a lowercase DNS subdomain (at most 253 characters)"
	}
	return "the name must be at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
}

// ParseQuantity returns the value of a non-negative Kubernetes quantity in
// base units (bytes for memory, cores for CPU), or false when s is not one
// ("Quantity", k8s.io/apimachinery/pkg/api/resource,
// https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/).
func ParseQuantity(s string) (float64, bool) {
	q, err := resource.ParseQuantity(s)
	if err != nil || q.Sign() < 0 || !hasDigit(s) {
		return 0, false
	}
	return q.AsApproximateFloat64(), true
}

// ParseByteSize returns the value in bytes of a quantity that is a whole
// number of bytes written without an exponent (100Gi, 1.5Ti, 500G), or
// false otherwise: volume sizes are never meant as 500m or 1e3.
func ParseByteSize(s string) (float64, bool) {
	q, err := resource.ParseQuantity(s)
	if err != nil || q.Sign() < 0 || !hasDigit(s) || q.Format == resource.DecimalExponent || q.MilliValue()%1000 != 0 {
		return 0, false
	}
	return q.AsApproximateFloat64(), true
}

// hasDigit reports whether s has a digit: apimachinery reads a bare suffix
// such as "Gi" as zero, which in a config file is always a mistake.
func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

// CronProblem returns "" for a schedule the API server accepts on a CronJob
// (five fields, or a descriptor such as @daily; parsed with
// cron.ParseStandard as kube-apiserver does, "CronJob",
// https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#schedule-syntax),
// otherwise the parser's reason. A TZ= or CRON_TZ= prefix is refused: the
// API server rejects it in favour of spec.timeZone.
func CronProblem(s string) string {
	if strings.HasPrefix(s, "TZ=") || strings.HasPrefix(s, "CRON_TZ=") {
		return "it carries a time zone; put the zone in timeZone"
	}
	if _, err := cron.ParseStandard(s); err != nil {
		return err.Error()
	}
	return ""
}

// kubeletLabels are the kubernetes.io labels a kubelet may set on its own
// node, and kubeletLabelDomains the kubernetes.io subdomains it may set any
// label under (kubelet --node-labels, "kubelet",
// https://kubernetes.io/docs/reference/command-line-tools-reference/kubelet/;
// k8s.io/kubelet/pkg/apis IsKubeletLabel). AKS passes a pool's node labels
// to the kubelet, so any other kubernetes.io or k8s.io key fails the pool.
var (
	kubeletLabels = []string{
		"kubernetes.io/hostname", "kubernetes.io/os", "kubernetes.io/arch",
		"beta.kubernetes.io/os", "beta.kubernetes.io/arch", "beta.kubernetes.io/instance-type",
		"node.kubernetes.io/instance-type",
		"topology.kubernetes.io/zone", "topology.kubernetes.io/region",
		"failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region",
	}
	kubeletLabelDomains = []string{"kubelet.kubernetes.io", "node.kubernetes.io"}
)

// AKSReservedDomain is the label domain AKS reserves for what it sets on
// nodes ("Use labels in an AKS cluster",
// https://learn.microsoft.com/azure/aks/use-labels, reserved system labels).
const AKSReservedDomain = "kubernetes.azure.com"

// NodeKeyProblem returns "" when a pool may carry a node label or taint
// with key k, otherwise why not and what to use instead. allowed are keys
// under a reserved domain the caller sets on purpose (the spot taint).
func NodeKeyProblem(k string, allowed ...string) string {
	if msg := LabelKeyProblem(k); msg != "" {
		return msg
	}
	if slices.Contains(allowed, k) {
		return ""
	}
	domain, _, found := strings.Cut(k, "/")
	if !found {
		return ""
	}
	inDomain := func(d string) bool { return domain == d || strings.HasSuffix(domain, "."+d) }
	switch {
	case inDomain(AKSReservedDomain):
		return "the " + AKSReservedDomain + "/ prefix is reserved for what AKS sets on nodes; use a key under your own domain (example.com/role) or none"
	case inDomain("kubernetes.io") || inDomain("k8s.io"):
		if slices.Contains(kubeletLabels, k) || slices.ContainsFunc(kubeletLabelDomains, inDomain) {
			return ""
		}
		return "the kubernetes.io and k8s.io prefixes are reserved for Kubernetes, and the kubelet may only set the well-known node labels and keys under node.kubernetes.io/ or kubelet.kubernetes.io/; use a key under your own domain (example.com/role) or none"
	}
	return ""
}

// MinContainerMemory is the smallest memory limit a container starts with:
// below 6 MiB the runtime fails to create it (CreateContainerError,
// "Minimum memory limit allowed is 6MB", kubernetes/kubernetes#124841;
// runc needs the memory to start, opencontainers/runc#1980). A quantity
// below it is almost always a unit left off ("16" for "16Gi").
const MinContainerMemory = 6 << 20

// MinContainerMemoryText is MinContainerMemory as a quantity.
const MinContainerMemoryText = "6Mi"
