package conformance

import (
	"fmt"
	"strings"

	"github.com/aksml/aksml/policy/rules"
)

// checkKubernetesIdentity is CONF-ID-001: rules.KubeIdentity, the identity
// the guardrail AKSML-IDN-001 uses, over every Kubernetes resource, with
// the opaque ones (Helm charts, kustomize directories) counted for the
// report.
func checkKubernetesIdentity(s *State) []Finding {
	var out []Finding
	seen := map[string]rules.Resource{}
	for _, r := range s.Stack.Resources {
		key, opaque, ok := rules.KubeIdentity(r)
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
