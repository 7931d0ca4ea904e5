package tenancy

import (
	"fmt"
	"strconv"

	"github.com/aksml/aksml/components/armdeploy"
)

// ARM template parameters of the identities stack.
const (
	// IssuerParameter is the cluster's OIDC issuer URL.
	IssuerParameter = "oidcIssuerUrl"
	// LocationParameter is the region of the identities.
	LocationParameter = "location"
	// FederatedCredentialName is the federated credential of each identity.
	FederatedCredentialName = "training-service-account"
)

// IdentityName is the Azure name of team's user-assigned managed identity:
// `<prefix>-<team>` (3-128 characters, letters, digits, '-' and '_').
func IdentityName(prefix, team string) string { return prefix + "-" + team }

// ServiceAccountSubject is the token subject of a service account, the
// federated credential's subject ("Use Microsoft Entra Workload ID with
// AKS": system:serviceaccount:<namespace>:<name>).
func ServiceAccountSubject(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

// clientIDOutput and principalIDOutput are the template outputs of team i.
func clientIDOutput(i int) string    { return "clientId" + strconv.Itoa(i) }
func principalIDOutput(i int) string { return "principalId" + strconv.Itoa(i) }

// IdentitiesTemplate is the ARM template of the team identities: per team a
// user-assigned managed identity and a federated identity credential that
// trusts the cluster's OIDC issuer for the team's training service account,
// and the identity's client and principal IDs as outputs. With no teams it
// is the empty template, which deploys nothing (armdeploy: the stack lives
// as long as the cluster).
func IdentitiesTemplate(prefix string, teams []Team, tags map[string]string) map[string]any {
	var res []map[string]any
	outputs := map[string]any{}
	for i, t := range teams {
		name := IdentityName(prefix, t.Name)
		res = append(res, FederatedIdentityResources(name, FederatedCredentialName, t.Name, TrainingServiceAccount, tags)...)
		outputs[clientIDOutput(i)], outputs[principalIDOutput(i)] = IdentityOutputs(name)
	}
	tpl := armdeploy.Template(res, outputs)
	tpl["parameters"] = map[string]any{
		IssuerParameter:   armdeploy.Param("string"),
		LocationParameter: armdeploy.Param("string"),
	}
	return tpl
}

// FederatedIdentityResources are the two ARM resources of a workload identity: the
// user-assigned managed identity name (in the template's LocationParameter, with tags)
// and its federated identity credential name/credential, which trusts the
// template's IssuerParameter for the service account namespace/serviceAccount. The team
// identities and KEDA's (components/observability) are built from it.
func FederatedIdentityResources(name, credential, namespace, serviceAccount string, tags map[string]string) []map[string]any {
	identity := map[string]any{
		"type":       UserAssignedIdentityType,
		"apiVersion": ManagedIdentityAPIVersion,
		"name":       name,
		"location":   fmt.Sprintf("[parameters('%s')]", LocationParameter),
	}
	if len(tags) > 0 {
		identity["tags"] = tags
	}
	return []map[string]any{identity, {
		"type":       FederatedIdentityCredentialType,
		"apiVersion": ManagedIdentityAPIVersion,
		"name":       name + "/" + credential,
		"dependsOn":  []any{fmt.Sprintf("[resourceId('%s', '%s')]", UserAssignedIdentityType, name)},
		"properties": map[string]any{
			"issuer":    fmt.Sprintf("[parameters('%s')]", IssuerParameter),
			"subject":   ServiceAccountSubject(namespace, serviceAccount),
			"audiences": []any{TokenAudience},
		},
	}}
}

// IdentityOutputs are the template outputs of identity name's client and principal IDs.
func IdentityOutputs(name string) (clientID, principalID map[string]any) {
	ref := fmt.Sprintf("reference(resourceId('%s', '%s'), '%s')", UserAssignedIdentityType, name, ManagedIdentityAPIVersion)
	return armdeploy.Output("string", "["+ref+".clientId]"), armdeploy.Output("string", "["+ref+".principalId]")
}
