package cluster

import "strings"

// KubernetesMinors are the Kubernetes minor versions AKS offers for new
// clusters, including the long-term-support minors (which need tier Premium
// past their community end of life), as listed in "Supported Kubernetes
// versions in AKS", AKS Kubernetes release calendar,
// https://learn.microsoft.com/azure/aks/supported-kubernetes-versions,
// and `az aks get-versions --location <region>`. Written for aksml on
// 2026-11-30.
//
// To update: when AKS announces a new minor (or retires one), run
// `az aks get-versions --location <your region> --query "values[].version"`
// and make this list match it; a version outside the list is refused at
// preview with a message pointing here.
var KubernetesMinors = []string{"1.30", "1.31", "1.32", "1.33", "1.34", "1.35", "1.36", "1.37"}

// minorOf returns the MAJOR.MINOR part of a version written MAJOR.MINOR or
// MAJOR.MINOR.PATCH.
func minorOf(v string) string {
	if i := strings.LastIndex(v, "."); strings.Count(v, ".") == 2 {
		return v[:i]
	}
	return v
}

// PoolNames returns the names of the node pools the cluster itself declares
// (the system pool, and the CPU pool unless disabled). A GPU pool of the
// same cluster may not take one of them: AKS would see two definitions of
// one agent pool.
func (s Spec) PoolNames() []string {
	names := []string{SystemPoolName}
	if !s.CPUPool.Disabled {
		names = append(names, CPUPoolName)
	}
	return names
}
