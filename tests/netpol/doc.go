// Package netpol evaluates the NetworkPolicies every shipped stack
// registers with a NetworkPolicy engine instead of a data plane:
// github.com/mattfenwick/cyclonus (pkg/matcher) computes, for a set of
// policies, whether a given connection (source pod or IP, destination pod
// or IP, port, protocol) is allowed, following the Kubernetes NetworkPolicy
// semantics (https://kubernetes.io/docs/concepts/services-networking/network-policies/).
//
// It is its own Go module so that cyclonus and the client-go tree it
// depends on stay out of the main module; `make test` runs it.
package netpol
