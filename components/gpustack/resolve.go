package gpustack

import (
	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
)

// Resolved is the GPU stack decided once (Resolve): the defaulted Spec, the
// resolved pools it serves, what it installs on which pools and where its
// DCGM exporter runs. NewGPUStack given a Resolved does not default or
// validate again; the observability component reads the exporter's
// location from it instead of rebuilding it.
type Resolved struct {
	// Spec is the defaulted `aksml:gpuStack`.
	Spec Spec
	// Pools are the resolved GPU pools.
	Pools []gpupool.Resolved
	// Problems are the errors Resolve returned (the pools' own problems
	// included); NewGPUStack registers nothing while there are any.
	Problems field.ErrorList

	plan plan
}

// ExporterLocation is where aksml's DCGM exporter pods run: what a
// PodMonitor selects them by. Its fields match observability.DCGMExporter,
// so the stack converts one into the other.
type ExporterLocation struct {
	// Namespace of the exporter pods.
	Namespace string
	// Selector is the exporter pods' labels.
	Selector map[string]string
	// PortName is the name of the exporter's metrics port.
	PortName string
}

// Resolve defaults a copy of spec and checks it (Spec.Validate, under
// specPath) together with the pools' GPU-stack rules (ValidatePools, under
// poolsPath), once. The pools are gpupool.Resolve's result; their own
// problems are carried in Problems but not returned again.
func Resolve(spec Spec, pools []gpupool.Resolved, specPath, poolsPath field.Path) (*Resolved, field.ErrorList) {
	spec.Default()
	specs := gpupool.Specs(pools)
	errs := spec.Validate(specPath)
	errs = append(errs, ValidatePools(specs, poolsPath)...)
	r := &Resolved{Spec: spec, Pools: pools, plan: planFor(specs)}
	r.Problems = append(gpupool.Problems(pools), errs...)
	return r, errs
}

// DevicePluginPools are the pools the device plugin runs on, sorted.
func (r *Resolved) DevicePluginPools() []string { return r.plan.devicePluginPools }

// DCGMExporterPools are the pools aksml's DCGM exporter runs on, sorted;
// empty when no pool needs it or Spec.DCGMExporter is false.
func (r *Resolved) DCGMExporterPools() []string {
	if r.Spec.DCGMExporter == nil || !*r.Spec.DCGMExporter {
		return nil
	}
	return r.plan.devicePluginPools
}

// Exporter returns where aksml's DCGM exporter runs: Spec.Namespace, the
// pods' labels (DCGMExporterLabels) and the port name.
func (r *Resolved) Exporter() ExporterLocation {
	return ExporterLocation{Namespace: r.Spec.Namespace, Selector: DCGMExporterLabels(), PortName: DCGMExporterPortName}
}
