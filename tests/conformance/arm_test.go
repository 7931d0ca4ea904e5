package conformance

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/policy/rules"
)

func TestEvalARM(t *testing.T) {
	sc := &armScope{
		params:        map[string]any{"clusterName": "aks1", "n": 3.0, "list": []any{"a", "b"}},
		variables:     map[string]any{"pool": "[format('{0}-gpu', parameters('clusterName'))]", "self": "[variables('self')]"},
		resourceGroup: "rg1",
	}
	for expr, want := range map[string]any{
		"[parameters('clusterName')]":                                       "aks1",
		"[format('{0}/{1}', parameters('clusterName'), 'a100')]":            "aks1/a100",
		"[concat(parameters('clusterName'), '-', string(parameters('n')))]": "aks1-3",
		"[toLower('ABC')]":                             "abc",
		"[parameters('list')[1]]":                      "b",
		"[variables('pool')]":                          "aks1-gpu",
		"[resourceGroup().name]":                       "rg1",
		"[resourceId('Microsoft.X/a/b', 'n1', 'n2')]":  "/subscriptions/" + scopeSubscription + "/resourceGroups/rg1/providers/Microsoft.X/a/n1/b/n2",
		"[resourceId('other', 'Microsoft.X/a', 'n1')]": "/subscriptions/" + scopeSubscription + "/resourceGroups/other/providers/Microsoft.X/a/n1",
		"[subscriptionResourceId('Microsoft.Authorization/roleDefinitions', 'r1')]": "/subscriptions/" + scopeSubscription + "/providers/Microsoft.Authorization/roleDefinitions/r1",
		"[format('it''s {0}', 'x')]": "it's x",
		"[reference('x').id]":        "[reference('x').id]",
		"[variables('self')]":        "[variables('self')]",
		"[parameters('missing')]":    "[parameters('missing')]",
		"[[not an expression]":       "[[not an expression]",
		"[take(format('MSProm-{0}-{1}', 'westeurope', parameters('clusterName')), 12)]": "MSProm-weste",
		"[take('ab', 44)]":              "ab",
		"[take(parameters('list'), 1)]": []any{"a"},
	} {
		require.Equal(t, want, sc.evalValue(expr), expr)
	}
}

// TestPositiveShapes: legitimate shapes other than the ones the
// components choose must not be reported either.
func TestPositiveShapes(t *testing.T) {
	sp := specs(t)
	for name, mutate := range map[string]func(t *testing.T, st *rules.Stack){
		"DCR association as an extension resource with a scope": func(t *testing.T, st *rules.Stack) {
			dcra := monitorResource(t, st, nestedDCRA)
			dcra["type"] = typeDCRA
			dcra["name"] = "dcra-aksml-prod"
			dcra["scope"] = "[resourceId('Microsoft.ContainerService/managedClusters', parameters('clusterName'))]"
		},
		"serial copy loop of pools": func(t *testing.T, st *rules.Stack) {
			makeLoop(t, st, 0, map[string]any{"mode": "serial", "batchSize": 1.0})
			r := find(t, st, prodPoolsStack)
			setTemplateResources(r, templateResources(t, r)[:1])
		},
		"Network Contributor on the node subnet's VNet": func(t *testing.T, st *rules.Stack) {
			vnet := find(t, st, prodVNetName)
			find(t, st, prodSubnetRole).Inputs["scope"] = synth.ResourceID(vnet.Type, vnet.Name, vnet.Inputs)
		},
		"pool subnet known only at deployment": func(t *testing.T, st *rules.Stack) {
			mapOf(mapOf(templateResources(t, find(t, st, prodPoolsStack))[0])["properties"])["vnetSubnetID"] = "[parameters('subnetId')]"
		},
		"storage reached through a VNet rule on the node subnet, written as its ARM ID": func(t *testing.T, st *rules.Stack) {
			removeResource("storage-files-file-pe")(t, st)
			removeResource("storage-files-file-pe-dns")(t, st)
			subnet := find(t, st, prodSubnetName).Inputs
			id := prodVNet + "/subnets/" + str(subnet["subnetName"])
			mapOf(find(t, st, "storage-files").Inputs["networkRuleSet"])["virtualNetworkRules"] = []any{map[string]any{"virtualNetworkResourceId": id}}
		},
		"Network Contributor from a nested deployment with a relative scope": func(t *testing.T, st *rules.Stack) {
			removeResource(prodSubnetRole)(t, st)
			r := find(t, st, prodPoolsStack)
			assignment := map[string]any{
				"type": typeRoleAssignment, "apiVersion": "2022-04-01", "name": "[guid('subnet')]",
				"scope": "Microsoft.Network/virtualNetworks/vnet-aksml-prod",
				"properties": map[string]any{
					"roleDefinitionId": "[subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '" + roleNetworkContributor + "')]",
					"principalId":      "[parameters('principalId')]",
				},
			}
			setTemplateResources(r, append(templateResources(t, r), map[string]any{
				"type": "Microsoft.Resources/deployments", "apiVersion": "2022-09-01", "name": "subnet-role",
				"resourceGroup": "rg-aksml-prod-net",
				"properties": map[string]any{
					"mode":       "Incremental",
					"parameters": map[string]any{"principalId": map[string]any{"value": "00000000-0000-0000-0000-00000000c0de"}},
					"template":   map[string]any{"parameters": map[string]any{"principalId": map[string]any{"type": "string"}}, "resources": []any{assignment}},
				},
			}))
		},
	} {
		t.Run(name, func(t *testing.T) {
			st := cleanProd(t)
			mutate(t, st)
			rep := Check(st, sp)
			require.Empty(t, rep.Findings)
		})
	}
}

func TestCopyLoopExpands(t *testing.T) {
	st := cleanProd(t)
	makeLoop(t, st, 0, map[string]any{"mode": "serial", "batchSize": 1.0})
	var names []string
	for _, p := range NewState(st).Pools {
		if !p.Body.Typed {
			names = append(names, p.Name)
		}
	}
	require.Equal(t, []string{"loop0", "loop1", "gpunone"}, names)
}
