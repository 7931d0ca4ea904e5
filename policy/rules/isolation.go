package rules

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/aksml/aksml/components/storage"
	"github.com/aksml/aksml/components/tenancy"
	"github.com/aksml/aksml/components/vocab"
)

// Guardrails for the tenant-isolation invariants of issue 25: no storage
// key in a team namespace, no team reaching IMDS, platform namespaces
// denied by default, and data that survives routine changes in prod.

// srcNetworkPolicies is Kubernetes "Network Policies".
const srcNetworkPolicies = "Kubernetes \"Network Policies\" (https://kubernetes.io/docs/concepts/services-networking/network-policies/)"

// claimNamespaceMarker stands for "the claim's own namespace" when a class
// is checked without a claim.
const claimNamespaceMarker = "\x00claim"

// classParameters are a StorageClass's parameters as strings.
func classParameters(sc Resource) map[string]string { return stringMap(sc.Inputs["parameters"]) }

var ruleStorageKeyOutOfTeams = Rule{
	ID:       "AKSML-STO-002",
	Title:    "No Azure Files class writes the storage account key into a team namespace",
	Severity: Mandatory,
	Source: "issue 25 (a Job mounts any Secret of its namespace); kubernetes-sigs/azurefile-csi-driver docs/driver-parameters.md " +
		"(secretNamespace defaults to the claim's namespace; storeAccountKey)",
	Stack: func(s *Stack) []Finding {
		teams := teamNamespaces(s)
		classes := map[string]Resource{}
		var out []Finding
		for _, sc := range s.Resources {
			if !isKind(sc, "storage.k8s.io", "StorageClass") {
				continue
			}
			classes[objName(sc)] = sc
			ns := storage.KeySecretNamespaceFor(str(sc.Inputs["provisioner"]), classParameters(sc), claimNamespaceMarker)
			switch {
			case ns == claimNamespaceMarker:
				out = append(out, Finding{URN: resourceRef(sc), Message: fmt.Sprintf(
					"%s makes the Azure Files CSI driver store the account key as a Secret in each claim's namespace, where a team's Job can mount it and open every share of the account; set parameters.%s: %s (components/storage does)",
					describe(sc), storage.ParamSecretNamespace, storage.KeySecretNamespace)})
			case teams[ns]:
				out = append(out, Finding{URN: resourceRef(sc), Message: fmt.Sprintf(
					"%s stores the account key in team namespace %s; set parameters.%s: %s",
					describe(sc), ns, storage.ParamSecretNamespace, storage.KeySecretNamespace)})
			}
		}
		for _, pvc := range s.Resources {
			if !isKind(pvc, "", "PersistentVolumeClaim") || !teams[objNamespace(pvc)] {
				continue
			}
			class := str(pvc.Get("spec.storageClassName"))
			if _, ours := classes[class]; ours || !strings.HasPrefix(class, "azurefile") || !slices.Contains(aksBuiltinClasses, class) {
				continue
			}
			out = append(out, Finding{URN: resourceRef(pvc), Message: fmt.Sprintf(
				"%s uses the AKS built-in class %s, whose driver stores the account key in the claim's namespace %s; use %s or %s",
				describe(pvc), class, objNamespace(pvc), storage.AzureFilePremiumClass, storage.CheckpointsClass)})
		}
		return out
	},
}

// egressPeersReach reports whether an egress rule's ipBlock peers let a pod
// reach ip: some peer's cidr contains it and no except does.
func egressPeersReach(rule map[string]any, ip netip.Addr) bool {
	peers := listOf(rule["to"])
	if len(peers) == 0 {
		return true // no `to`: every destination
	}
	for _, p := range peers {
		block := mapOf(mapOf(p)["ipBlock"])
		cidr, err := netip.ParsePrefix(str(block["cidr"]))
		if err != nil || !cidr.Contains(ip) {
			continue
		}
		excepted := slices.ContainsFunc(listOf(block["except"]), func(e any) bool {
			ex, err := netip.ParsePrefix(str(e))
			return err == nil && ex.Contains(ip)
		})
		if !excepted {
			return true
		}
	}
	return false
}

// imdsAddr is the address of IMDS (tenancy.IMDSCIDR).
var imdsAddr = netip.MustParsePrefix(tenancy.IMDSCIDR).Addr()

var ruleTenancyNoIMDS = Rule{
	ID:       "AKSML-TEN-011",
	Title:    "No team namespace can reach IMDS: egress is denied by default and no allowance covers 169.254.169.254",
	Severity: Mandatory,
	Source: "issue 25; \"Azure Instance Metadata Service\" (https://learn.microsoft.com/azure/virtual-machines/instance-metadata-service) " +
		"hands out the node identities' tokens; " + srcNetworkPolicies + " (a pod selected by no Egress policy is open)",
	Stack: func(s *Stack) []Finding {
		var out []Finding
		for _, nsr := range s.Resources {
			if !isTeamNamespace(nsr) {
				continue
			}
			ns := objName(nsr)
			denied := false
			for _, np := range s.Resources {
				if !isKind(np, "networking.k8s.io", "NetworkPolicy") || objNamespace(np) != ns {
					continue
				}
				types := listOf(np.Get("spec.policyTypes"))
				if isDefaultDenyIngress(np) && slices.Contains(types, any("Egress")) && len(listOf(np.Get("spec.egress"))) == 0 {
					denied = true
				}
				for _, rule := range listOf(np.Get("spec.egress")) {
					if egressPeersReach(mapOf(rule), imdsAddr) {
						out = append(out, Finding{URN: resourceRef(np), Message: fmt.Sprintf(
							"%s lets team %s reach IMDS (%s), which hands out the node's managed identity tokens; add %s to the ipBlock's except (components/tenancy does for Restricted and Unrestricted teams)",
							describe(np), ns, imdsAddr, tenancy.IMDSCIDR)})
						break
					}
				}
			}
			if !denied {
				out = append(out, Finding{URN: resourceRef(nsr), Message: fmt.Sprintf(
					"team namespace %s has no NetworkPolicy that selects every pod and denies egress, so its pods reach IMDS and every namespace; register components/tenancy for it (policy %s with policyTypes [Ingress, Egress])",
					ns, tenancy.DefaultDenyPolicy)})
			}
		}
		return out
	},
}

var ruleTenancyPlatformDefaultDeny = Rule{
	ID:       "AKSML-TEN-012",
	Title:    "Every platform namespace the stack creates has a default deny of ingress and egress",
	Severity: Mandatory,
	Source:   "issue 25 (gpu-operator, kueue-system, kubeflow had no policies); " + srcNetworkPolicies + " default deny",
	Stack: func(s *Stack) []Finding {
		var out []Finding
		for _, ns := range s.Resources {
			name := objName(ns)
			if !isKind(ns, "", "Namespace") || vocab.PlatformNamespaces[name] == "" || name == vocab.DefaultNamespace {
				continue
			}
			found := slices.ContainsFunc(s.Resources, func(np Resource) bool {
				return objNamespace(np) == name && isDefaultDenyIngress(np) &&
					slices.Contains(listOf(np.Get("spec.policyTypes")), any("Egress")) && len(listOf(np.Get("spec.egress"))) == 0
			})
			if !found {
				out = append(out, Finding{URN: resourceRef(ns), Message: fmt.Sprintf(
					"%s is %s's namespace but no NetworkPolicy in it denies ingress and egress to every pod, so every team's pods reach its webhooks and metrics; register components/tenancy NewPlatformIsolation for it",
					describe(ns), vocab.PlatformNamespaces[name])})
			}
		}
		return out
	},
}

var ruleTenancyUnrestrictedEgressProd = Rule{
	ID:       "AKSML-TEN-013",
	Title:    "Production teams with Unrestricted egress are reviewed",
	Severity: Advisory,
	Source:   "issue 25; " + srcNetworkPolicies,
	Resource: func(r Resource, s *Stack) []string {
		team := labels(r)[TeamLabel]
		if !isProd(s) || !isKind(r, "networking.k8s.io", "NetworkPolicy") || team == "" {
			return nil
		}
		to, open := egressOnEveryPort(r)
		if !open {
			return nil
		}
		return []string{fmt.Sprintf(
			"team %s: %s lets its pods reach %s on every port, as aksml:teams[].egress: Unrestricted does (aksml's allowance keeps IMDS and the cluster's ranges out); confirm the team needs it, else remove the key (Restricted: HTTPS only)",
			team, describe(r), to)}
	},
}

// protectedInProd are the Azure resource types that hold or route to data:
// deleting one loses data or cuts the nodes off it.
var protectedInProd = map[string]string{
	"storage:StorageAccount":      "holds the teams' shares and containers",
	"network:PrivateEndpoint":     "is the nodes' route to private storage",
	"network:PrivateDnsZoneGroup": "resolves the storage account to its private endpoint",
	"network:PrivateZone":         "resolves the storage account to its private endpoint",
	"network:VirtualNetworkLink":  "makes the private DNS zone answer in the nodes' VNet",
}

var ruleStorageProtectedInProd = Rule{
	ID:       "AKSML-STO-003",
	Title:    "Production storage accounts, private endpoints and private DNS zones are protected",
	Severity: Mandatory,
	Source:   "SPEC C3.4, C9; issue 25 (routine changes deleted dataset shares, endpoints and DNS zones)",
	Resource: func(r Resource, s *Stack) []string {
		module, kind := azureType(r)
		why, ok := protectedInProd[module+":"+kind]
		if !isProd(s) || !ok || r.Protect {
			return nil
		}
		return []string{fmt.Sprintf("%s %s but is not protected, so a routine change or `pulumi destroy` deletes it; register it with pulumi.Protect (aksml:protect, components/storage and components/network do)", describe(r), why)}
	},
}

var ruleStorageTeamDataRetained = Rule{
	ID:       "AKSML-STO-004",
	Title:    "Production team claims and Blob containers outlive the team's removal",
	Severity: Advisory,
	Source:   "SPEC C3.4; issue 25 (removing or renaming a team deleted its data)",
	Stack: func(s *Stack) []Finding {
		if !isProd(s) || !s.RetainOnDeleteKnown {
			return nil
		}
		teams := teamNamespaces(s)
		var out []Finding
		for _, r := range s.Resources {
			_, kind := azureType(r)
			claim := isKind(r, "", "PersistentVolumeClaim") && teams[objNamespace(r)]
			if (!claim && kind != "BlobContainer") || r.RetainOnDelete || r.Protect {
				continue
			}
			out = append(out, Finding{URN: resourceRef(r), Message: fmt.Sprintf(
				"%s is not retained: removing or renaming its team deletes its data; unless that is the intent, remove aksml:retainTeamData: false (components/storage TeamVolumesArgs.RetainDatasets, components/tenancy AzureArgs.RetainContainers)",
				describe(r))})
		}
		return out
	},
}

// egressOnEveryPort reports whether the NetworkPolicy has an egress rule
// without ports to an ipBlock or to every destination (no `to`, as
// egressPeersReach reads it), and says which: what components/tenancy's
// TeamAllowPolicy has for an Unrestricted team, where a Restricted team's
// rule names port 443. Rules to pods by selector are not counted.
func egressOnEveryPort(np Resource) (to string, open bool) {
	for _, rule := range listOf(np.Get("spec.egress")) {
		m := mapOf(rule)
		if len(listOf(m["ports"])) > 0 {
			continue
		}
		peers := listOf(m["to"])
		if len(peers) == 0 {
			return "every destination", true
		}
		for _, peer := range peers {
			if block := mapOf(mapOf(peer)["ipBlock"]); block != nil {
				return fmt.Sprintf("addresses in %v", block["cidr"]), true
			}
		}
	}
	return "", false
}
