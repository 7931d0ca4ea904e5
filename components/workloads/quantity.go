package workloads

import "github.com/aksml/aksml/components/field"

// parseQuantity returns the value of a Kubernetes quantity in base units
// (bytes for memory, cores for CPU), or false when s is not a quantity.
func parseQuantity(s string) (float64, bool) { return field.ParseQuantity(s) }

// gib is one GiB in bytes.
const gib = 1 << 30

// mib is one MiB in bytes.
const mib = 1 << 20
