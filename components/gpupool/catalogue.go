package gpupool

import (
	"sort"
	"strings"
)

// PriceDate is the day the indicative prices in the catalogue were taken
// (Azure retail prices, USD, Linux pay-as-you-go, East US). Prices differ per
// region and change; they are for comparing pools and sizing budgets, not
// for billing.
const PriceDate = "2025-06-01"

// SpotDiscount is the fraction of the on-demand price assumed saved on spot
// capacity. The GPU node pools guide behind SPEC C2.5 quotes 60-90% savings; aksml reports the conservative
// end so that cost outputs never flatter spot.
const SpotDiscount = 0.60

// SKU describes one NVIDIA GPU VM size.
type SKU struct {
	// VMSize is the Azure VM size, e.g. Standard_NC24ads_A100_v4.
	VMSize string
	// GPUModel is the accelerator, e.g. "A100 80GB".
	GPUModel string
	// GPUsPerNode is the number of physical GPUs in one VM.
	GPUsPerNode int
	// GPUMemoryGiB is the memory of one GPU.
	GPUMemoryGiB int
	// MIGCapable is true for GPUs that support Multi-Instance GPU (A100, H100).
	MIGCapable bool
	// RDMACapable is true for sizes with InfiniBand (NCCL_IB_DISABLE=0 is allowed).
	RDMACapable bool
	// VCPUs is the number of vCPUs of one VM.
	VCPUs int
	// MemoryGiB is the RAM of one VM.
	MemoryGiB int
	// PricePerHour is the indicative on-demand USD price of one VM per hour,
	// taken on PriceDate.
	PricePerHour float64
}

// catalogue is the one table of GPU sizes aksml knows (SPEC C2.1; AKS MLOps best practices, AKS-managed GPU nodes and the
// GPU node pools guide behind SPEC C2 name these families).
var catalogue = []SKU{
	{VMSize: "Standard_NC4as_T4_v3", GPUModel: "T4 16GB", GPUsPerNode: 1, GPUMemoryGiB: 16, VCPUs: 4, MemoryGiB: 28, PricePerHour: 0.526},
	{VMSize: "Standard_NC8as_T4_v3", GPUModel: "T4 16GB", GPUsPerNode: 1, GPUMemoryGiB: 16, VCPUs: 8, MemoryGiB: 56, PricePerHour: 0.752},
	{VMSize: "Standard_NC16as_T4_v3", GPUModel: "T4 16GB", GPUsPerNode: 1, GPUMemoryGiB: 16, VCPUs: 16, MemoryGiB: 110, PricePerHour: 1.204},
	{VMSize: "Standard_NC64as_T4_v3", GPUModel: "T4 16GB", GPUsPerNode: 4, GPUMemoryGiB: 16, VCPUs: 64, MemoryGiB: 440, PricePerHour: 4.352},
	{VMSize: "Standard_NC24ads_A100_v4", GPUModel: "A100 80GB", GPUsPerNode: 1, GPUMemoryGiB: 80, MIGCapable: true, VCPUs: 24, MemoryGiB: 220, PricePerHour: 3.673},
	{VMSize: "Standard_NC48ads_A100_v4", GPUModel: "A100 80GB", GPUsPerNode: 2, GPUMemoryGiB: 80, MIGCapable: true, VCPUs: 48, MemoryGiB: 440, PricePerHour: 7.346},
	{VMSize: "Standard_NC96ads_A100_v4", GPUModel: "A100 80GB", GPUsPerNode: 4, GPUMemoryGiB: 80, MIGCapable: true, VCPUs: 96, MemoryGiB: 880, PricePerHour: 14.692},
	{VMSize: "Standard_ND96asr_v4", GPUModel: "A100 40GB", GPUsPerNode: 8, GPUMemoryGiB: 40, MIGCapable: true, RDMACapable: true, VCPUs: 96, MemoryGiB: 900, PricePerHour: 27.197},
	{VMSize: "Standard_ND96amsr_A100_v4", GPUModel: "A100 80GB", GPUsPerNode: 8, GPUMemoryGiB: 80, MIGCapable: true, RDMACapable: true, VCPUs: 96, MemoryGiB: 1900, PricePerHour: 32.770},
	{VMSize: "Standard_NC40ads_H100_v5", GPUModel: "H100 NVL 94GB", GPUsPerNode: 1, GPUMemoryGiB: 94, MIGCapable: true, VCPUs: 40, MemoryGiB: 320, PricePerHour: 6.980},
	{VMSize: "Standard_ND96isr_H100_v5", GPUModel: "H100 80GB", GPUsPerNode: 8, GPUMemoryGiB: 80, MIGCapable: true, RDMACapable: true, VCPUs: 96, MemoryGiB: 1900, PricePerHour: 98.320},
}

// LookupSKU returns the catalogue entry for vmSize (case-insensitive, as
// Azure treats VM sizes).
func LookupSKU(vmSize string) (SKU, bool) {
	for _, s := range catalogue {
		if strings.EqualFold(s.VMSize, vmSize) {
			return s, true
		}
	}
	return SKU{}, false
}

// Catalogue returns a copy of every known SKU, sorted by VM size.
func Catalogue() []SKU {
	out := append([]SKU(nil), catalogue...)
	sort.Slice(out, func(i, j int) bool { return out[i].VMSize < out[j].VMSize })
	return out
}

// VMSizes returns the VM sizes of the catalogue, sorted.
func VMSizes() []string {
	var out []string
	for _, s := range Catalogue() {
		out = append(out, s.VMSize)
	}
	return out
}

// IsVisualisationOnly reports whether vmSize is an NV-series size. The GPU
// node pools guide behind SPEC C2.1 marks NV (Tesla M60) "visualisation only, not for ML/AI"; the later NV
// families (NVv4 with AMD GPUs, NVads A10 v5 with partitioned A10s) are
// virtual-desktop sizes too, so aksml rejects the whole series.
func IsVisualisationOnly(vmSize string) bool {
	return strings.HasPrefix(strings.ToLower(vmSize), "standard_nv")
}
