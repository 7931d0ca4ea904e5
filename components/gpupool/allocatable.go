package gpupool

import (
	"fmt"
	"regexp"
	"strconv"
)

// This file is the one place aksml computes what a node of a pool offers to
// pods: the VM's vCPUs and memory (the GPU catalogue, or the general-purpose
// D-series naming rule for system and CPU pools) minus what AKS reserves.
//
// Source for the reservations: "Node resource reservations in Azure
// Kubernetes Service (AKS)",
// https://learn.microsoft.com/en-us/azure/aks/node-resource-reservations
// (AKS 1.29 and later):
//
//   - CPU: kube-reserved millicores per host core count, documented at 1, 2,
//     4, 8, 16, 32 and 64 cores as 60, 100, 140, 180, 260, 420 and 740. The
//     documented points lie on a piecewise-linear curve (60 for the first
//     core, +40 for the second, +20 per core up to 4, +10 per core above
//     4); core counts between or above the documented points (24, 40, 48,
//     96) are read off that curve.
//   - Memory: kube-reserved is the lesser of "20 MB × max pods + 50 MB" and
//     25% of the VM's memory, plus the kubelet's memory.available<100Mi hard
//     eviction threshold. The page writes MB; its example (8 GB, 30 pods →
//     650 MB) is computed here in MiB.
//
// Max pods: Azure CNI Overlay (the network plugin mode of every aksml
// cluster, components/cluster) defaults to 250 pods per node, "Azure CNI
// Overlay networking in AKS",
// https://learn.microsoft.com/en-us/azure/aks/azure-cni-overlay.

// DefaultMaxPods is the AKS default maximum number of pods per node with
// Azure CNI Overlay.
const DefaultMaxPods = 250

// EvictionHardMemoryMiB is the kubelet's memory.available hard eviction
// threshold on AKS 1.29 and later.
const EvictionHardMemoryMiB = 100

// kubeReservedCPUPoints are the documented (cores, millicores) points.
var kubeReservedCPUPoints = [][2]int64{{1, 60}, {2, 100}, {4, 140}, {8, 180}, {16, 260}, {32, 420}, {64, 740}}

// KubeReservedCPUMilli returns the CPU AKS reserves on a node with vcpus
// cores, in millicores. vcpus < 1 returns 0.
func KubeReservedCPUMilli(vcpus int) int64 {
	if vcpus < 1 {
		return 0
	}
	n := int64(vcpus)
	pts := kubeReservedCPUPoints
	for i := 1; i < len(pts); i++ {
		lo, hi := pts[i-1], pts[i]
		if n <= hi[0] {
			return lo[1] + (n-lo[0])*(hi[1]-lo[1])/(hi[0]-lo[0])
		}
	}
	// Above 64 cores: the 10 millicores per core slope of the 4..64 range.
	last := pts[len(pts)-1]
	return last[1] + (n-last[0])*10
}

// KubeReservedMemoryMiB returns the memory AKS reserves for the kubelet on a
// node with memoryMiB of RAM and maxPods pods: min(20 MiB × maxPods + 50 MiB,
// 25% of memoryMiB). It excludes the eviction threshold.
func KubeReservedMemoryMiB(memoryMiB int64, maxPods int) int64 {
	byPods := 20*int64(maxPods) + 50
	quarter := memoryMiB / 4
	return min(byPods, quarter)
}

// VMShape is what one VM of a size has.
type VMShape struct {
	// VCPUs and MemoryGiB are the VM's vCPUs and RAM.
	VCPUs     int
	MemoryGiB int
	// GPUs is the number of physical GPUs (0 for CPU sizes).
	GPUs int
}

// dSeries matches the general-purpose D-series v4/v5 sizes without the "l"
// (low memory) or "m" suffixes, e.g. Standard_D4ds_v5, Standard_D8as_v5.
var dSeries = regexp.MustCompile(`(?i)^standard_d(\d+)(a?d?s?)_v[45]$`)

// LookupVMShape returns the vCPUs, memory and GPUs of vmSize: the GPU
// catalogue for GPU sizes, else the general-purpose D-series v4/v5 rule of
// 4 GiB per vCPU with the vCPU count in the name ("Ddsv5 sizes series",
// https://learn.microsoft.com/en-us/azure/virtual-machines/sizes/general-purpose/ddsv5-series;
// the Dv5, Dsv5, Ddv5, Dasv5 and Dadsv5 pages list the same ratio).
func LookupVMShape(vmSize string) (VMShape, bool) {
	if sku, ok := LookupSKU(vmSize); ok {
		return VMShape{VCPUs: sku.VCPUs, MemoryGiB: sku.MemoryGiB, GPUs: sku.GPUsPerNode}, true
	}
	m := dSeries.FindStringSubmatch(vmSize)
	if m == nil {
		return VMShape{}, false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n < 1 {
		return VMShape{}, false
	}
	return VMShape{VCPUs: n, MemoryGiB: 4 * n}, true
}

// Allocatable is what a node offers to pods after AKS's reservations.
type Allocatable struct {
	// CPUMilli is allocatable CPU in millicores.
	CPUMilli int64
	// MemoryMiB is allocatable memory in MiB.
	MemoryMiB int64
	// Pods is the maximum number of pods.
	Pods int
}

// NodeAllocatable returns the allocatable CPU, memory and pods of a node of
// vmSize with maxPods pods (0 means DefaultMaxPods), or an error for a size
// neither the GPU catalogue nor the D-series rule knows.
func NodeAllocatable(vmSize string, maxPods int) (Allocatable, error) {
	shape, ok := LookupVMShape(vmSize)
	if !ok {
		return Allocatable{}, fmt.Errorf("VM size %q: not in the GPU catalogue and not a general-purpose D-series v4/v5 size", vmSize)
	}
	if maxPods == 0 {
		maxPods = DefaultMaxPods
	}
	memMiB := int64(shape.MemoryGiB) * 1024
	return Allocatable{
		CPUMilli:  int64(shape.VCPUs)*1000 - KubeReservedCPUMilli(shape.VCPUs),
		MemoryMiB: memMiB - KubeReservedMemoryMiB(memMiB, maxPods) - EvictionHardMemoryMiB,
		Pods:      maxPods,
	}, nil
}
