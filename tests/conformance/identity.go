package conformance

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aksml/aksml/policy/rules"
)

// opaqueKinds are Kubernetes resources that stand for objects rendered by
// the provider (Helm charts, kustomize directories, YAML files). Under
// Pulumi mocks each is one resource whose objects are not visible, so the
// identity check cannot see inside them; they are listed in the report.
var opaqueKinds = []string{
	"helm.sh/v3:Chart", "helm.sh/v4:Chart", "helm.sh/v3:Release",
	"kustomize:Directory", "kustomize/v2:Directory",
	"yaml:ConfigFile", "yaml:ConfigGroup", "yaml/v2:ConfigFile", "yaml/v2:ConfigGroup",
}

// clusterScoped are the kinds (group/Kind) with no namespace that aksml
// registers or may register.
var clusterScoped = []string{
	"/Namespace", "/Node", "/PersistentVolume",
	"storage.k8s.io/StorageClass", "storage.k8s.io/CSIDriver", "scheduling.k8s.io/PriorityClass",
	"rbac.authorization.k8s.io/ClusterRole", "rbac.authorization.k8s.io/ClusterRoleBinding",
	"apiextensions.k8s.io/CustomResourceDefinition",
	"admissionregistration.k8s.io/ValidatingWebhookConfiguration", "admissionregistration.k8s.io/MutatingWebhookConfiguration",
	"kueue.x-k8s.io/ClusterQueue", "kueue.x-k8s.io/ResourceFlavor", "kueue.x-k8s.io/Cohort",
	"kueue.x-k8s.io/WorkloadPriorityClass", "kueue.x-k8s.io/Topology", "kueue.x-k8s.io/AdmissionCheck",
	"scheduling.volcano.sh/Queue",
}

// kubeIdentity returns the (group, kind, namespace, name) of a Kubernetes
// resource: apiVersion and kind from its inputs (the token when they are
// absent), metadata.namespace ("default" for namespaced kinds without one)
// and metadata.name. ok is false for providers, patches, lists, opaque
// resources and objects whose name the provider generates.
func kubeIdentity(r rules.Resource) (key string, opaque, ok bool) {
	parts := strings.Split(r.Type, ":")
	if len(parts) != 3 || parts[0] != "kubernetes" {
		return "", false, false
	}
	if slices.Contains(opaqueKinds, parts[1]+":"+parts[2]) {
		// The rendered objects are not visible; what is visible is what
		// makes two such resources render the same objects: one release
		// name in one namespace, or one directory or file.
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
	if strings.HasSuffix(kind, "Patch") || strings.HasSuffix(kind, "List") {
		return "", false, false
	}
	group := ""
	if g, _, found := strings.Cut(apiVersion, "/"); found && g != "core" {
		group = g
	}
	name := str(getPath(r.Inputs, "metadata", "name"))
	if name == "" {
		return "", false, false
	}
	ns := ""
	if !slices.Contains(clusterScoped, group+"/"+kind) {
		ns = str(getPath(r.Inputs, "metadata", "namespace"))
		if ns == "" {
			ns = "default"
		}
	}
	return fmt.Sprintf("%s/%s %s/%s", group, kind, ns, name), false, true
}

func checkKubernetesIdentity(s *State) []Finding {
	var out []Finding
	seen := map[string]rules.Resource{}
	for _, r := range s.Stack.Resources {
		key, opaque, ok := kubeIdentity(r)
		if !ok {
			continue
		}
		if s.report != nil && opaque {
			s.report.Opaque = append(s.report.Opaque, r.Name+" ("+r.Type+")")
		} else if s.report != nil {
			s.report.KubernetesObjects++
		}
		if first, dup := seen[key]; dup {
			out = append(out, Finding{Resource: r.Name, Message: fmt.Sprintf("Kubernetes object %s is also registered by %s: two owners of one object overwrite each other; rename one or let one component own it", key, first.Name)})
			continue
		}
		seen[key] = r
	}
	return out
}

// azureIdentity is the identity of an Azure resource: type, parent (the
// scope of an extension resource, else the resource group) and full name,
// lower-case (ARM names are case-insensitive).
func azureIdentity(b Body) (string, bool) {
	if b.Name == "" || isExpression(b.Name) || b.Type == "" {
		return "", false
	}
	parent := "resourceGroup " + b.ResourceGroup
	switch {
	case b.Scope != "":
		parent = "scope " + b.Scope
	case strings.EqualFold(b.Type, "Microsoft.Resources/resourceGroups"):
		parent = "subscription"
	}
	return strings.ToLower(fmt.Sprintf("%s %s/%s", b.Type, parent, b.Name)), true
}

func checkAzureIdentity(s *State) []Finding {
	var out []Finding
	seen := map[string]string{}
	add := func(key, describe string, f Finding) {
		if first, dup := seen[key]; dup {
			f.Message = fmt.Sprintf("Azure resource %s is declared twice: by %s and by %s; ARM would apply both bodies to one resource", key, first, describe)
			out = append(out, f)
			return
		}
		seen[key] = describe
	}
	for _, b := range s.Bodies {
		if key, ok := azureIdentity(b); ok {
			add(key, b.Describe(), findingOn(b, "", ""))
		}
		if strings.EqualFold(b.Type, typeVNet) && b.Name != "" {
			// Subnets inline in a VNet are the same ARM resources as
			// separate Subnet resources.
			props := b.Value
			if !b.Typed {
				props = mapOf(b.Value["properties"])
			}
			for i, sn := range listOf(props["subnets"]) {
				inline := Body{Type: typeSubnet, ResourceGroup: b.ResourceGroup, Name: b.Name + "/" + str(mapOf(sn)["name"])}
				if key, ok := azureIdentity(inline); ok && str(mapOf(sn)["name"]) != "" {
					add(key, fmt.Sprintf("%s subnets[%d]", b.Describe(), i), findingOn(b, fmt.Sprintf("subnets[%d]", i), ""))
				}
			}
		}
		if !strings.EqualFold(b.Type, typeManagedCluster) || b.Name == "" {
			continue
		}
		for _, p := range s.Pools {
			if !p.Inline || p.Body.Resource.URN != b.Resource.URN || p.Name == "" {
				continue
			}
			inline := Body{Type: typeAgentPool, ResourceGroup: b.ResourceGroup, Name: b.Name + "/" + p.Name}
			if key, ok := azureIdentity(inline); ok {
				add(key, b.Describe()+" "+p.Where, findingOnPool(p, "", ""))
			}
		}
	}
	return out
}
