package conformance

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/policy/rules"
	"github.com/aksml/aksml/tests/synth"
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
	} {
		require.Equal(t, want, sc.evalValue(expr), expr)
	}
}

// TestPositiveShapes: shapes issues 10 and 11 may choose that satisfy the
// rules must not be reported.
func TestPositiveShapes(t *testing.T) {
	sp := specs(t)
	for name, mutate := range map[string]func(t *testing.T, st *rules.Stack){
		"DCR association in the nested managedClusters/providers form": func(t *testing.T, st *rules.Stack) {
			r := find(t, st, "alert-rules-rulegroup")
			l := templateResources(t, r)
			dcra := mapOf(l[len(l)-1])
			delete(dcra, "scope")
			dcra["type"] = "Microsoft.ContainerService/managedClusters/providers/dataCollectionRuleAssociations"
			dcra["name"] = "[concat(parameters('clusterName'), '/microsoft.insights/dcra')]"
		},
		"serial copy loop of pools": func(t *testing.T, st *rules.Stack) {
			r := find(t, st, "aksml-prod-gpupools-stack")
			pool := mapOf(templateResources(t, r)[0])
			makeLoop(pool, map[string]any{"mode": "serial", "batchSize": 1.0})
			setTemplateResources(r, []any{pool})
		},
		"VNet and subnet created by the stack, referenced by their IDs": func(t *testing.T, st *rules.Stack) {
			vnet := find(t, st, "vnet")
			subnet := rules.Resource{Type: "azure-native:network:Subnet", Name: "aks-nodes",
				URN: "urn:pulumi:prod::aksml::azure-native:network:Subnet::aks-nodes",
				// The VNet's name output under synth is its Pulumi name.
				Inputs: map[string]any{"resourceGroupName": "rg-aksml-prod-net", "virtualNetworkName": vnet.Name,
					"subnetName": "aks-nodes", "addressPrefix": "10.10.0.0/20"}}
			st.Resources = append(st.Resources, subnet)
			subnetID := synth.ResourceID(subnet.Type, subnet.Name, subnet.Inputs)
			for _, p := range NewState(st).Pools {
				p.Props["vnetSubnetID"] = subnetID // typed and inline pools: the inputs themselves
			}
			for _, p := range templateResources(t, find(t, st, "aksml-prod-gpupools-stack")) {
				mapOf(mapOf(p)["properties"])["vnetSubnetID"] = subnetID
			}
			mapOf(listOf(getPath(find(t, st, "storage-files").Inputs, "networkRuleSet", "virtualNetworkRules"))[0])["virtualNetworkResourceId"] = subnetID
			find(t, st, "subnet-role").Inputs["scope"] = synth.ResourceID(vnet.Type, vnet.Name, vnet.Inputs)
		},
		"pool subnet known only at deployment": func(t *testing.T, st *rules.Stack) {
			mapOf(mapOf(templateResources(t, find(t, st, "aksml-prod-gpupools-stack"))[0])["properties"])["vnetSubnetID"] = "[parameters('subnetId')]"
		},
		"Network Contributor from a nested deployment with a relative scope": func(t *testing.T, st *rules.Stack) {
			removeResource("subnet-role")(t, st)
			r := find(t, st, "aksml-prod-gpupools-stack")
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
	pool := mapOf(templateResources(t, find(t, st, "aksml-prod-gpupools-stack"))[0])
	makeLoop(pool, map[string]any{"mode": "serial", "batchSize": 1.0})
	var names []string
	for _, p := range NewState(st).Pools {
		if !p.Body.Typed {
			names = append(names, p.Name)
		}
	}
	require.Equal(t, []string{"loop0", "loop1", "mgd2"}, names)
}
