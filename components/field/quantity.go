package field

import (
	"math"
	"regexp"
	"strconv"
)

// quantityRE matches a Kubernetes resource quantity: a non-negative decimal
// number with an optional binary (Ki..Ei), decimal (n, u, m, k, M..E) or
// exponent (e3, E-2) suffix ("Quantity", k8s.io/apimachinery/pkg/api/resource,
// https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/).
var quantityRE = regexp.MustCompile(`^\+?([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$`)

var quantitySuffix = map[string]float64{
	"":   1,
	"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50, "Ei": 1 << 60,
	"n": 1e-9, "u": 1e-6, "m": 1e-3,
	"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
}

// ParseQuantity returns the value of a Kubernetes quantity in base units
// (bytes for memory, cores for CPU), or false when s is not a non-negative
// quantity.
func ParseQuantity(s string) (float64, bool) {
	m := quantityRE.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, false
	}
	suffix := m[2]
	if mult, ok := quantitySuffix[suffix]; ok {
		return n * mult, true
	}
	exp, err := strconv.Atoi(suffix[1:])
	if err != nil {
		return 0, false
	}
	return n * math.Pow(10, float64(exp)), true
}
