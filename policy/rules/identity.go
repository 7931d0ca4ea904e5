package rules

import (
	"fmt"
	"slices"
	"strings"
)

// OpaqueKinds are Kubernetes resource kinds (type token without the
// "kubernetes:" prefix) that stand for objects the provider renders (Helm
// charts, kustomize directories, YAML files). Under Pulumi mocks each is
// one resource whose objects are not visible; KubeIdentity identifies them
// by what makes two of them render the same objects.
var OpaqueKinds = []string{
	"helm.sh/v3:Chart", "helm.sh/v4:Chart", "helm.sh/v3:Release",
	"kustomize:Directory", "kustomize/v2:Directory",
	"yaml:ConfigFile", "yaml:ConfigGroup", "yaml/v2:ConfigFile", "yaml/v2:ConfigGroup",
}

// ClusterScopedKinds are the kinds (group/Kind) with no namespace that
// aksml registers or may register.
var ClusterScopedKinds = []string{
	"/Namespace", "/Node", "/PersistentVolume",
	"storage.k8s.io/StorageClass", "storage.k8s.io/CSIDriver", "scheduling.k8s.io/PriorityClass",
	"rbac.authorization.k8s.io/ClusterRole", "rbac.authorization.k8s.io/ClusterRoleBinding",
	"apiextensions.k8s.io/CustomResourceDefinition",
	"admissionregistration.k8s.io/ValidatingWebhookConfiguration", "admissionregistration.k8s.io/MutatingWebhookConfiguration",
	"kueue.x-k8s.io/ClusterQueue", "kueue.x-k8s.io/ResourceFlavor", "kueue.x-k8s.io/Cohort",
	"kueue.x-k8s.io/WorkloadPriorityClass", "kueue.x-k8s.io/Topology", "kueue.x-k8s.io/AdmissionCheck",
	"scheduling.volcano.sh/Queue",
}

// KubeIdentity returns the identity of a Kubernetes resource as
// "<group>/<Kind> <namespace>/<name>": apiVersion and kind from its inputs
// (the type token when they are absent), metadata.namespace ("default" for
// namespaced kinds without one) and metadata.name ("Kubernetes object
// names and IDs",
// https://kubernetes.io/docs/concepts/overview/working-with-objects/names/).
// For an opaque resource (OpaqueKinds) it is the release namespace and
// name, or the directory or file, and opaque is true. ok is false for
// providers, patches, lists, reads of existing objects and objects whose
// name the provider generates.
func KubeIdentity(r Resource) (key string, opaque, ok bool) {
	parts := strings.Split(r.Type, ":")
	if len(parts) != 3 || parts[0] != "kubernetes" {
		return "", false, false
	}
	if slices.Contains(OpaqueKinds, parts[1]+":"+parts[2]) {
		what := str(r.Inputs["directory"]) + str(r.Inputs["file"]) + str(r.Inputs["files"])
		if name := str(r.Inputs["name"]); name != "" || what == "" {
			what = "release " + str(r.Inputs["namespace"]) + "/" + name
		}
		return parts[1] + ":" + parts[2] + " " + what, true, true
	}
	apiVersion, kind := str(r.Inputs["apiVersion"]), str(r.Inputs["kind"])
	if apiVersion == "" {
		apiVersion = parts[1]
	}
	if kind == "" {
		kind = parts[2]
	}
	// A patch's inputs name the kind it patches; its type token ends in Patch.
	if strings.HasSuffix(parts[2], "Patch") || strings.HasSuffix(kind, "List") || r.Read {
		return "", false, false
	}
	group := ""
	if g, _, found := strings.Cut(apiVersion, "/"); found && g != "core" {
		group = g
	}
	name := str(r.Get("metadata.name"))
	if name == "" || name == Unknown {
		return "", false, false
	}
	ns := ""
	if !slices.Contains(ClusterScopedKinds, group+"/"+kind) {
		ns = objNamespace(r)
	}
	return fmt.Sprintf("%s/%s %s/%s", group, kind, ns, name), false, true
}

var ruleIdentityKube = Rule{
	ID:       "AKSML-IDN-001",
	Title:    "No Kubernetes object (group, kind, namespace, name) is registered twice in one stack",
	Severity: Mandatory,
	Source:   "issue 12 (collisions: one owner per name); Kubernetes \"Object Names and IDs\" (https://kubernetes.io/docs/concepts/overview/working-with-objects/names/)",
	Stack: func(s *Stack) []Finding {
		var out []Finding
		seen := map[string]Resource{}
		for _, r := range s.Resources {
			key, _, ok := KubeIdentity(r)
			if !ok {
				continue
			}
			if first, dup := seen[key]; dup {
				out = append(out, Finding{URN: resourceRef(r), Message: fmt.Sprintf(
					"Kubernetes object %s is registered by %s and again by %s: two owners overwrite each other's settings and the first delete removes it for both; rename one, or let one component own it and have the other depend on it",
					key, first.Name, r.Name)})
				continue
			}
			seen[key] = r
		}
		return out
	},
}

// poolIdentity is the ARM identity of an agent pool: resource group,
// cluster and pool, lower-case (ARM names are case-insensitive). ok is
// false when a part is not known before deployment.
func poolIdentity(p Pool) (string, bool) {
	for _, part := range []string{p.ResourceGroup, p.Cluster, p.Name} {
		if part == "" || part == Unknown || strings.HasPrefix(part, "[") {
			return "", false
		}
	}
	return strings.ToLower(p.ResourceGroup + "/" + p.Cluster + "/" + p.Name), true
}

// subnetIdentities returns the ARM identities (resource group, VNet,
// subnet) of the subnets r declares: a typed Subnet, or the subnets inline
// in a typed VirtualNetwork, with where naming each.
func subnetIdentities(r Resource) (keys, where []string) {
	rg := str(r.Inputs["resourceGroupName"])
	switch module, kind := azureType(r); {
	case module == "network" && kind == "Subnet":
		keys = append(keys, strings.ToLower(rg+"/"+str(r.Inputs["virtualNetworkName"])+"/"+str(r.Inputs["subnetName"])))
		where = append(where, describe(r))
	case module == "network" && kind == "VirtualNetwork":
		vnet := str(r.Inputs["virtualNetworkName"])
		for i, sn := range listOf(r.Inputs["subnets"]) {
			keys = append(keys, strings.ToLower(rg+"/"+vnet+"/"+str(mapOf(sn)["name"])))
			where = append(where, fmt.Sprintf("%s subnets[%d]", describe(r), i))
		}
	}
	for i, k := range keys {
		if strings.Contains(k, Unknown) || strings.Contains(k, "//") || strings.HasPrefix(k, "/") || strings.HasSuffix(k, "/") {
			keys[i] = ""
		}
	}
	return keys, where
}

var ruleIdentityAzure = Rule{
	ID:       "AKSML-IDN-002",
	Title:    "No AKS agent pool or subnet is declared twice, counting inline profiles, typed resources and ARM template resources",
	Severity: Mandatory,
	Source:   "issue 12 (collisions); Azure Resource Manager resource names (https://learn.microsoft.com/azure/azure-resource-manager/management/resource-name-rules); AKS \"Create node pools\" (https://learn.microsoft.com/azure/aks/create-node-pools)",
	Stack: func(s *Stack) []Finding {
		var out []Finding
		seen := map[string]string{}
		check := func(key, what, kind string, r Resource) {
			if key == "" {
				return
			}
			if first, dup := seen[kind+" "+key]; dup {
				out = append(out, Finding{URN: resourceRef(r), Message: fmt.Sprintf(
					"%s %s is declared by %s and again by %s: ARM applies both bodies to one resource and each update undoes the other; remove one declaration or rename it",
					kind, key, first, what)})
				return
			}
			seen[kind+" "+key] = what
		}
		for _, r := range s.Resources {
			for _, p := range poolsOf(r) {
				key, _ := poolIdentity(p)
				check(key, p.Describe(), "agent pool", r)
			}
			keys, where := subnetIdentities(r)
			for i, key := range keys {
				check(key, where[i], "subnet", r)
			}
		}
		return out
	},
}
