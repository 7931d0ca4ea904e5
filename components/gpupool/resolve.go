package gpupool

import (
	"slices"

	"github.com/aksml/aksml/components/field"
)

// Resolved is one GPU pool as every component downstream of the config
// needs it: defaulted, validated once (Resolve), and with what the other
// components derive from it computed here, once: its node ceiling, GPU
// capacity in the unit quota is counted in, the extended resource pods
// request, its placement (node labels and taints) and what one node offers
// to pods. Components that take a Resolved do not default or validate the
// pool again.
//
// The zero value is not a resolved pool (IsResolved reports false): only
// Resolve makes one, so a component given a Resolved knows it passed
// through Resolve.
type Resolved struct {
	// Spec is the defaulted copy of the config entry; it shares no pointer
	// with the caller's spec.
	Spec
	// Path is the config key of the pool, e.g. `aksml:gpuPools[1]`.
	Path field.Path
	// Capacity is the GPU units the pool offers at MaxNodes: GPUs, or MIG
	// instances on a MIG pool (the unit Kueue quota is counted in there).
	// 0 when Sized is false.
	Capacity int
	// GPUResource is the extended resource a pod requests the pool's GPU
	// units by: nvidia.com/gpu, or the MIG profile's resource on a pool with
	// the Mixed strategy (e.g. nvidia.com/mig-1g.10gb).
	GPUResource string
	// MinNodes and MaxNodes are the pool's node-count bounds: count and
	// count on a Managed pool (a fixed count, no autoscaler), minCount
	// (default DefaultMinCount) and maxCount on DriverOnly and None pools.
	// Network sizing, quota and gang checks read MaxNodes, never the
	// spec's count or maxCount. The placement a pod must select and
	// tolerate to run on the pool is Labels and Taints.
	MinNodes, MaxNodes int
	// Allocatable is what one node offers to pods after AKS's reservations
	// (NodeAllocatable); zero when Sized is false.
	Allocatable Allocatable
	// Sized reports whether the VM size is in the catalogue and the MIG
	// profile, if any, is known, so that Capacity and Allocatable hold.
	// Cross-component checks skip pools that are not sized: Resolve
	// already reported why.
	Sized bool
	// Problems are the pool's own validation errors (already returned by
	// Resolve). A component given a pool with problems registers nothing.
	Problems field.ErrorList

	resolved bool
}

// NodeCeiling returns MaxNodes and the config key, relative to the pool,
// that sets it: "count" on a Managed pool, "maxCount" otherwise. Messages
// that tell the user which key to raise name this key.
func (r *Resolved) NodeCeiling() (nodes int, key string) { return r.nodeCeiling() }

// NodeCeilingPath returns the config key that sets the pool's node
// ceiling (NodeCeiling), below the pool's Path: `aksml:gpuPools[1].count`
// on a Managed pool, `aksml:gpuPools[1].maxCount` otherwise.
func (r *Resolved) NodeCeilingPath() field.Path {
	_, k := r.NodeCeiling()
	return r.Path.Child(k)
}

// IsResolved reports whether r was made by Resolve.
func (r *Resolved) IsResolved() bool { return r != nil && r.resolved }

// OK reports whether r was made by Resolve and has no problems.
func (r *Resolved) OK() bool { return r.IsResolved() && len(r.Problems) == 0 }

// Resolve defaults a deep copy of each spec, validates it (Spec.Validate)
// and checks that pool names are unique, once, and returns one Resolved
// per spec in config order with every problem found, each naming its key
// below root (e.g. `aksml:gpuPools`). A Resolved is returned for every spec,
// also an invalid one, so that callers can go on checking the rest of the
// configuration and list every problem at once; a caller must not register
// anything when the error list is not empty.
//
// Specs already defaulted for an environment (DefaultForEnvironment) keep
// those values: defaulting is idempotent.
func Resolve(specs []Spec, root field.Path) ([]Resolved, field.ErrorList) {
	out := make([]Resolved, len(specs))
	var errs field.ErrorList
	seen := map[string]int{}
	for i, raw := range specs {
		path := root.Index(i)
		r := resolveOne(raw, path)
		if j, dup := seen[r.Name]; dup && r.Name != "" {
			r.Problems = append(r.Problems, field.Duplicate(path.Child("name"), "pool name %q is already used by %s; pool names must be unique", r.Name, root.Index(j)))
		} else {
			seen[r.Name] = i
		}
		errs = append(errs, r.Problems...)
		out[i] = r
	}
	return out, errs
}

// ResolveOne resolves a single pool (no uniqueness check): for a platform
// team that builds one workload on one pool.
func ResolveOne(spec Spec, path field.Path) (*Resolved, field.ErrorList) {
	r := resolveOne(spec, path)
	return &r, r.Problems
}

func resolveOne(raw Spec, path field.Path) Resolved {
	s := defaulted(raw)
	r := Resolved{Spec: s, Path: path, resolved: true}
	r.Problems = s.Validate(path)
	r.MinNodes, r.MaxNodes = s.minNodes(), s.maxNodes()
	r.GPUResource = GPUResource
	if s.MIGEnabled() {
		r.GPUResource = s.MIGResourceName()
	}
	_, known := s.SKU()
	r.Sized = known && (!s.MIGEnabled() || slices.Contains(MIGProfiles, s.MIG.Profile))
	if r.Sized {
		r.Capacity = s.maxGPUs()
		if s.MIGEnabled() {
			r.Capacity = s.migInstances()
		}
		if a, err := NodeAllocatable(s.VMSize, 0); err == nil {
			r.Allocatable = a
		}
	}
	return r
}

// Specs returns the defaulted specs of pools, in order.
func Specs(pools []Resolved) []Spec { return each(pools, func(r Resolved) Spec { return r.Spec }) }

// Stacks returns the GPUStack of each pool, in order.
func Stacks(pools []Resolved) []GPUStack {
	return each(pools, func(r Resolved) GPUStack { return r.GPUStack })
}

// each maps f over pools.
func each[T any](pools []Resolved, f func(Resolved) T) []T {
	out := make([]T, len(pools))
	for i, p := range pools {
		out[i] = f(p)
	}
	return out
}

// Lookup returns the resolved pool named name, or nil.
func Lookup(pools []Resolved, name string) *Resolved {
	for i := range pools {
		if pools[i].Name == name {
			return &pools[i]
		}
	}
	return nil
}

// Problems returns every pool's problems, in order.
func Problems(pools []Resolved) field.ErrorList {
	var errs field.ErrorList
	for _, p := range pools {
		errs = append(errs, p.Problems...)
	}
	return errs
}
