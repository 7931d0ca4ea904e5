package gpustack

import (
	"slices"
	"strings"

	"github.com/aksml/aksml/components/gpupool"
)

// Spec is the plain-data GPU software configuration held in stack config
// under `aksml:gpuStack`. Call Default, then Validate(field.NewPath("aksml:gpuStack")).
type Spec struct {
	// Namespace holds the DCGM exporter and mig-parted-config. Default
	// gpu-operator (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops)). A DNS-1123 label.
	Namespace string `json:"namespace,omitempty" pulumi:"namespace,optional"`
	// CreateNamespace creates Namespace (labelled Pod Security privileged).
	// Default true; set false when it already exists, e.g. created by a GPU
	// Operator installation.
	CreateNamespace *bool `json:"createNamespace,omitempty" pulumi:"createNamespace,optional"`
	// DevicePluginNamespace holds the device plugin. Default kube-system
	// (AKS MLOps best practices). A DNS-1123 label; it must already exist.
	DevicePluginNamespace string `json:"devicePluginNamespace,omitempty" pulumi:"devicePluginNamespace,optional"`
	// DevicePluginImage overrides the device plugin image, e.g. with a
	// registry mirror. Default DevicePluginImage. Must be pinned by a tag
	// other than latest or by digest.
	DevicePluginImage string `json:"devicePluginImage,omitempty" pulumi:"devicePluginImage,optional"`
	// DCGMExporter installs the DCGM exporter next to the device plugin.
	// Default true.
	DCGMExporter *bool `json:"dcgmExporter,omitempty" pulumi:"dcgmExporter,optional"`
	// DCGMExporterImage overrides the DCGM exporter image. Default
	// DCGMExporterImage. Must be pinned by a tag other than latest or by
	// digest.
	DCGMExporterImage string `json:"dcgmExporterImage,omitempty" pulumi:"dcgmExporterImage,optional"`
	// MIGManagerImage overrides the MIG Manager image installed on
	// DriverOnly MIG pools. Default MIGManagerImage. Must be pinned by a tag
	// other than latest or by digest.
	MIGManagerImage string `json:"migManagerImage,omitempty" pulumi:"migManagerImage,optional"`
	// TimeSlicing shares each GPU between several pods (dev sharing, no
	// memory or fault isolation). Default nil: off.
	TimeSlicing *TimeSlicingSpec `json:"timeSlicing,omitempty" pulumi:"timeSlicing,optional"`
}

// TimeSlicingSpec configures device plugin time-slicing.
type TimeSlicingSpec struct {
	// Replicas is how many pods share one GPU: every GPU is advertised as
	// Replicas nvidia.com/gpu. 2 to 64. Required.
	Replicas int `json:"replicas" pulumi:"replicas"`
}

// Default fills unset fields with their documented defaults.
func (s *Spec) Default() {
	if s.Namespace == "" {
		s.Namespace = DefaultNamespace
	}
	if s.CreateNamespace == nil {
		v := true
		s.CreateNamespace = &v
	}
	if s.DevicePluginNamespace == "" {
		s.DevicePluginNamespace = DefaultDevicePluginNamespace
	}
	if s.DevicePluginImage == "" {
		s.DevicePluginImage = DevicePluginImage
	}
	if s.DCGMExporter == nil {
		v := true
		s.DCGMExporter = &v
	}
	if s.DCGMExporterImage == "" {
		s.DCGMExporterImage = DCGMExporterImage
	}
	if s.MIGManagerImage == "" {
		s.MIGManagerImage = MIGManagerImage
	}
}

// GPUReplicas is how many nvidia.com/gpu each physical GPU of a device
// plugin pool advertises: TimeSlicing.Replicas, or 1 without time-slicing.
// Quota checks against advertised capacity multiply by it.
func (s Spec) GPUReplicas() int {
	if s.TimeSlicing == nil {
		return 1
	}
	return s.TimeSlicing.Replicas
}

// NeedsDevicePlugin reports whether aksml installs the device plugin and
// DCGM exporter on a (defaulted) pool: only DriverOnly pools. Managed pools
// get AKS's own, and a second device plugin on the same nodes is never
// installed (C4.4); None pools bring their own stack (e.g. the GPU Operator,
// which owns its device plugin and DCGM exporter, AKS MLOps best practices).
func NeedsDevicePlugin(p gpupool.Spec) bool { return p.GPUStack == gpupool.GPUStackDriverOnly }

// NeedsMIGConfig reports whether a (defaulted) pool's MIG layout goes into
// mig-parted-config: MIG pools not managed by AKS, whose nodes carry the
// nvidia.com/mig.config label (gpupool.Spec.Labels).
func NeedsMIGConfig(p gpupool.Spec) bool {
	return p.MIGEnabled() && p.GPUStack != gpupool.GPUStackManaged
}

// NeedsMIGManager reports whether aksml installs the MIG Manager on a
// (defaulted) pool: DriverOnly pools with MIG. On Managed pools AKS
// partitions the GPUs itself (gpuProfile.nvidia.migStrategy) and runs its
// own device plugin; None pools bring their own stack, whose GPU Operator
// deploys its own MIG Manager (NVIDIA, "GPU Operator with MIG",
// https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html).
func NeedsMIGManager(p gpupool.Spec) bool {
	return p.MIGEnabled() && p.GPUStack == gpupool.GPUStackDriverOnly
}

// migLayout is one mig-parted layout: every GPU split into count devices.
type migLayout struct {
	name, device string
	count        int
}

// plan is what the component installs for a set of defaulted pools.
type plan struct {
	// devicePluginPools are the names of the pools the device plugin (and
	// DCGM exporter) select, sorted.
	devicePluginPools []string
	// migStrategy is the device plugin --mig-strategy ("single", "mixed"),
	// or "" when no device plugin pool uses MIG.
	migStrategy string
	// migLayouts are the mig-parted layouts of NeedsMIGConfig pools, sorted
	// by name and deduplicated.
	migLayouts []migLayout
	// migManagerPools are the NeedsMIGManager pools, sorted; the MIG
	// Manager is installed when there is one.
	migManagerPools []string
	// migManagerTaints are the taints of those pools, deduplicated and
	// sorted, which the MIG Manager tolerates.
	migManagerTaints []gpupool.Taint
}

// planFor decides what to install for defaulted pools.
func planFor(pools []gpupool.Spec) plan {
	var p plan
	seen := map[string]bool{}
	for _, pool := range pools {
		if NeedsDevicePlugin(pool) {
			p.devicePluginPools = append(p.devicePluginPools, pool.Name)
			if pool.MIGEnabled() {
				p.migStrategy = strings.ToLower(string(pool.MIG.Strategy))
			}
		}
		if NeedsMIGManager(pool) {
			p.migManagerPools = append(p.migManagerPools, pool.Name)
			for _, t := range pool.Taints() {
				if !slices.Contains(p.migManagerTaints, t) {
					p.migManagerTaints = append(p.migManagerTaints, t)
				}
			}
		}
		if NeedsMIGConfig(pool) && !seen[pool.MIGLayout()] {
			seen[pool.MIGLayout()] = true
			device, count := pool.MIGDevicesPerGPU()
			p.migLayouts = append(p.migLayouts, migLayout{name: pool.MIGLayout(), device: device, count: count})
		}
	}
	slices.Sort(p.devicePluginPools)
	slices.Sort(p.migManagerPools)
	slices.SortFunc(p.migManagerTaints, func(a, b gpupool.Taint) int { return strings.Compare(a.String(), b.String()) })
	slices.SortFunc(p.migLayouts, func(a, b migLayout) int { return strings.Compare(a.name, b.name) })
	return p
}
