package stacks

import (
	"strings"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpustack"
)

// Identities and names Azure, Entra or Kubernetes would refuse or misroute
// only in one feature (issue 33, class 4): a team name that is a valid
// namespace but not a valid Blob container, a team group that is also the
// cluster's admin group, a device plugin namespace that does not exist on
// the cluster aksml creates.

// MinBlobContainerNameLength is the shortest Blob container name Azure
// accepts ("Naming and Referencing Containers, Blobs, and Metadata",
// https://learn.microsoft.com/rest/api/storageservices/naming-and-referencing-containers--blobs--and-metadata:
// 3-63 characters, lowercase letters, digits and hyphens, every hyphen
// between a letter or digit).
const MinBlobContainerNameLength = 3

// validateIdentities returns the problems of names and IDs that only one
// feature derives from a team or pool setting.
func (c *Config) validateIdentities() field.ErrorList {
	var errs field.ErrorList
	if a := c.Storage.Accounts; a != nil && a.BlobNFS && c.Cluster != nil {
		// Each team's Blob container is named after the team
		// (components/tenancy, AzureArgs.BlobAccountName).
		for i, t := range c.Teams {
			if len(t.Name) < MinBlobContainerNameLength || strings.Contains(t.Name, "--") {
				errs = append(errs, field.Invalid(key("teams").Index(i).Child("name"), "%q is a valid namespace but not a valid Blob container name (3-63 lowercase letters, digits and single hyphens), and with aksml:storage.accounts.blobNfs each team gets a container of its name; choose a team name of 3 or more characters without '--'", t.Name))
			}
		}
	}
	if c.Cluster != nil && c.Cluster.EntraID != nil {
		admins := map[string]bool{}
		for _, g := range c.Cluster.EntraID.AdminGroupObjectIDs {
			admins[strings.ToLower(g)] = true
		}
		for i, t := range c.Teams {
			for j, g := range t.Groups {
				if admins[strings.ToLower(g)] {
					errs = append(errs, field.Invalid(key("teams").Index(i).Child("groups").Index(j), "%q is also in aksml:cluster.entraID.adminGroupObjectIDs, so the team's members are cluster admins and its namespace bounds nothing; give the team a group of its own", g))
				}
			}
		}
	}
	if c.Cluster != nil && c.KubernetesLayerOn() {
		ns := c.GPUStack.DevicePluginNamespace
		ownNamespace := ns == c.GPUStack.Namespace && (c.GPUStack.CreateNamespace == nil || *c.GPUStack.CreateNamespace)
		if ns != gpustack.DefaultDevicePluginNamespace && !ownNamespace && !c.teamNamespace(ns) {
			// A new AKS cluster has kube-system; aksml creates the GPU
			// stack's namespace. The DaemonSet would be refused in any
			// other ("Namespaces",
			// https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/:
			// objects are created in an existing namespace).
			errs = append(errs, field.Invalid(key("gpuStack").Child("devicePluginNamespace"), "%q does not exist on the cluster aksml creates (it has %s, and aksml creates %q), so the device plugin DaemonSet would be refused at apply; use %s or %q", ns, gpustack.DefaultDevicePluginNamespace, c.GPUStack.Namespace, gpustack.DefaultDevicePluginNamespace, c.GPUStack.Namespace))
		}
	}
	return errs
}

// teamNamespace reports whether ns is a team's namespace (refused for the
// device plugin by validateNames).
func (c *Config) teamNamespace(ns string) bool {
	for _, t := range c.Teams {
		if t.Name == ns {
			return true
		}
	}
	return false
}
