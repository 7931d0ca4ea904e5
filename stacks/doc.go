// Package stacks turns a Pulumi stack's config into one typed, validated
// Config and wires the aksml components for it (SPEC C9).
//
// Parse decodes every `aksml:<key>` value (plain strings for scalars, JSON
// for objects and lists, exactly as the Pulumi CLI passes them), reports
// unknown keys and fields with their full path and a suggestion, applies the
// per-environment defaults (dev: cheap and unprotected; prod: Protect,
// digest-pinned images) and validates every section plus the cross-section
// and production rules, returning every problem at once. Nothing is
// registered unless the whole config is valid.
//
// Deploy builds the Azure layer (network, cluster, GPU pools, storage
// accounts and their private endpoints, alert rule groups) unless the stack
// targets an existing cluster, then the Kubernetes layer through one
// provider, unless aksml:kubernetesLayer is false (an Azure-layer stack that
// a Kubernetes-layer stack reads with aksml:existingCluster.stackReference;
// the shape for a private API server). Run is the Pulumi program main.go
// calls; Program returns the outputs without exporting them, for tests.
package stacks
