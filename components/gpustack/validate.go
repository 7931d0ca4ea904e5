package gpustack

import (
	"regexp"
	"strings"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/vocab"
)

var (
	digestRE = regexp.MustCompile(`@sha256:[0-9a-f]{64}$`)
	tagRE    = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)
)

// Validate checks a defaulted Spec and returns every problem, each naming
// its path below path (the stack passes field.NewPath("aksml:gpuStack")).
func (s Spec) Validate(path field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateNamespace(s.Namespace, path.Child("namespace"))...)
	if owner := vocab.PlatformNamespaceOwner(s.Namespace); owner != "" && s.Namespace != DefaultNamespace && s.CreateNamespace != nil && *s.CreateNamespace {
		errs = append(errs, field.Invalid(path.Child("namespace"), "%q is a namespace %s owns, and createNamespace would register it a second time; use a namespace of the GPU stack's own (default %s), or set createNamespace: false to deploy into the existing one", s.Namespace, owner, DefaultNamespace))
	}
	errs = append(errs, validateNamespace(s.DevicePluginNamespace, path.Child("devicePluginNamespace"))...)
	if owner := vocab.PlatformNamespaceOwner(s.DevicePluginNamespace); owner != "" && s.DevicePluginNamespace != DefaultDevicePluginNamespace && s.DevicePluginNamespace != s.Namespace {
		// One owner per namespace (vocab.PlatformNamespaces): the device
		// plugin in Kueue's or Gatekeeper's namespace is removed or
		// policed with that component.
		errs = append(errs, field.Invalid(path.Child("devicePluginNamespace"), "%q is the namespace of %s, not of the GPU stack; use %s (the default) or aksml:gpuStack.namespace", s.DevicePluginNamespace, owner, DefaultDevicePluginNamespace))
	}
	errs = append(errs, validateImage(s.DevicePluginImage, path.Child("devicePluginImage"))...)
	errs = append(errs, validateImage(s.DCGMExporterImage, path.Child("dcgmExporterImage"))...)
	errs = append(errs, validateImage(s.MIGManagerImage, path.Child("migManagerImage"))...)
	if s.TimeSlicing != nil {
		r := s.TimeSlicing.Replicas
		if r < MinTimeSlicingReplicas || r > MaxTimeSlicingReplicas {
			errs = append(errs, field.Invalid(path.Child("timeSlicing").Child("replicas"), "%d is out of range; share each GPU between %d and %d pods, or remove timeSlicing to turn sharing off", r, MinTimeSlicingReplicas, MaxTimeSlicingReplicas))
		}
	}
	return errs
}

func validateNamespace(ns string, path field.Path) field.ErrorList {
	if !field.IsDNSLabel(ns) {
		return field.ErrorList{field.Invalid(path, "%q is not a valid namespace name: use at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit", ns)}
	}
	return nil
}

// validateImage requires an image pinned by digest or by a tag other than
// latest, so that a node agent never changes under a running cluster.
func validateImage(image string, path field.Path) field.ErrorList {
	if problem := field.ImageReferenceProblem(image); problem != "" && !strings.ContainsAny(image, " \t") {
		return field.ErrorList{field.Invalid(path, "%q is not an image reference the container runtime pulls: %s; write registry/repository:tag or registry/repository@sha256:<digest>", image, problem)}
	}
	if digestRE.MatchString(image) {
		return nil
	}
	last := image[strings.LastIndex(image, "/")+1:]
	name, tag, hasTag := strings.Cut(last, ":")
	switch {
	case strings.Contains(image, "@"):
		return field.ErrorList{field.Invalid(path, "%q has an invalid digest; write @sha256: followed by 64 lowercase hex digits", image)}
	case name == "" || strings.ContainsAny(image, " \t"):
		return field.ErrorList{field.Invalid(path, "%q is not an image reference; write registry/repository:tag or registry/repository@sha256:<digest>", image)}
	case !hasTag:
		return field.ErrorList{field.Invalid(path, "%q has no tag; pin it with a version tag or an @sha256 digest", image)}
	case tag == "latest":
		return field.ErrorList{field.Invalid(path, "%q uses the latest tag; pin it with a version tag or an @sha256 digest", image)}
	case !tagRE.MatchString(tag):
		return field.ErrorList{field.Invalid(path, "%q has an invalid tag %q", image, tag)}
	}
	return nil
}

// ValidatePools checks what the GPU stack needs from a set of defaulted
// pools beyond each pool's own validation (gpupool.ValidatePools): the one
// device plugin aksml installs runs one MIG strategy, so every DriverOnly
// MIG pool must use the same strategy.
func ValidatePools(pools []gpupool.Spec, path field.Path) field.ErrorList {
	var errs field.ErrorList
	first := -1
	for i, p := range pools {
		if !NeedsDevicePlugin(p) || !p.MIGEnabled() {
			continue
		}
		if first < 0 {
			first = i
			continue
		}
		if want := pools[first].MIG.Strategy; p.MIG.Strategy != want {
			errs = append(errs, field.Invalid(path.Index(i).Child("mig").Child("strategy"), "%s differs from %s on pool %q (%s); the device plugin aksml installs on DriverOnly pools runs one MIG strategy, so use %s here or make one of the pools Managed", p.MIG.Strategy, want, pools[first].Name, path.Index(first), want))
		}
	}
	return errs
}
