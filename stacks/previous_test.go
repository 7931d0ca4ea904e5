package stacks_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/network"
	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/policy/rules"
	"github.com/aksml/aksml/stacks"
)

const previousClusterID = "/subscriptions/" + testGUID + "/resourceGroups/rg-aksml-adv/providers/Microsoft.ContainerService/managedClusters/aksml-adv"

// previousOutputs are the outputs of an earlier deployment of the stack:
// its cluster, and its node subnet when it had one.
func previousOutputs(nodeSubnetID string) resource.PropertyMap {
	out := resource.PropertyMap{
		stacks.ClusterResourceIDOutput: resource.NewProperty(previousClusterID),
		"kubeconfig":                   resource.MakeSecret(resource.NewProperty("apiVersion: v1\n")),
	}
	if nodeSubnetID != "" {
		out[stacks.NodeSubnetIDOutput] = resource.NewProperty(nodeSubnetID)
	}
	return out
}

// synthesiseAfter runs the program as stack with c after a deployment that
// exported previous.
func synthesiseAfter(t *testing.T, stack string, c config, previous resource.PropertyMap) (*rules.Stack, error) {
	t.Helper()
	if stack == "" {
		stack = "dev"
	}
	raw := c.raw(t)
	b, err := json.Marshal(raw)
	require.NoError(t, err)
	t.Setenv(pulumi.EnvConfig, string(b))
	return synth.RunPrevious(stack, rules.Environment(stack), raw, previous, stacks.Program)
}

// TestNetworkContinuity: a stack that an older aksml deployed without
// aksml:network (its cluster in the VNet AKS generated: outputs with a
// cluster and no node subnet) is refused at preview when this version would
// put its pools in a VNet, naming aksml:network and both ways out; nothing
// but the stack's reference to itself is registered. mode aks-managed keeps
// it, in dev, and passes the guardrails; a stack deployed in aksml's VNet
// cannot switch to aks-managed; a fresh stack is judged by its config only.
func TestNetworkContinuity(t *testing.T) {
	const subnet = "/subscriptions/" + testGUID + "/resourceGroups/rg-aksml-adv-net/providers/Microsoft.Network/virtualNetworks/aksml-adv-vnet/subnets/aks-nodes"
	aksManaged := set("network", map[string]any{"mode": network.ModeAKSManaged})
	refused := []struct {
		name, stack string
		mutate      func(c config)
		previous    resource.PropertyMap
		path        string
		fix         []string
	}{
		{"no aksml:network after a deployment in the VNet AKS generated", "", del("network"), previousOutputs(""), "aksml:network",
			[]string{"without aksml:network aksml now creates a VNet", "set aksml:network to {mode: aks-managed}", "deploy a new cluster with aksml:network", "destroy the old one"}},
		{"a written VNet after a deployment in the VNet AKS generated", "", set("cluster.name", "AKSML-ADV"), previousOutputs(""), "aksml:network",
			[]string{"aksml:network puts every pool in a VNet the stack declares", "{mode: aks-managed}"}},
		{"prod without aksml:network after a deployment in the VNet AKS generated", "prod", prod(del("network")), previousOutputs(""), "aksml:network",
			[]string{"prod cannot keep the VNet AKS generated", "deploy a new cluster with aksml:network"}},
		{"aks-managed after a deployment in aksml's VNet", "", aksManaged, previousOutputs(subnet), "aksml:network.mode",
			[]string{"last deployed its cluster in the VNet aksml declared", "remove mode"}},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			c := baseConfig(t)
			tc.mutate(c)
			st, err := synthesiseAfter(t, tc.stack, c, tc.previous)
			require.Error(t, err)
			line := ""
			for _, l := range strings.Split(err.Error(), "\n") {
				if strings.Contains(l, tc.path+": ") {
					line = l
				}
			}
			require.NotEmpty(t, line, "no problem names %s in:\n%s", tc.path, err)
			for _, f := range tc.fix {
				assert.Contains(t, line, f)
			}
			for _, r := range st.Resources {
				assert.Equal(t, "pulumi:pulumi:StackReference", r.Type, "%s registered before the network was checked", r.URN)
			}
		})
	}

	accepted := []struct {
		name     string
		mutate   func(c config)
		previous resource.PropertyMap
		vnet     bool
	}{
		{"aks-managed after a deployment in the VNet AKS generated", aksManaged, previousOutputs(""), false},
		{"aksml's VNet after a deployment in it", del("network"), previousOutputs(subnet), true},
		{"a fresh stack without aksml:network", del("network"), nil, true},
		{"a fresh stack on the VNet AKS generated", aksManaged, nil, false},
		{"a renamed cluster, created in aksml's VNet, after one in the VNet AKS generated", then(del("network"), set("cluster.name", "aksml-adv2")), previousOutputs(""), true},
		{"the cluster in another resource group after one in the VNet AKS generated", set("cluster.resourceGroup.name", "rg-aksml-adv2"), previousOutputs(""), true},
	}
	for _, tc := range accepted {
		t.Run(tc.name, func(t *testing.T) {
			c := baseConfig(t)
			tc.mutate(c)
			st, err := synthesiseAfter(t, "", c, tc.previous)
			require.NoError(t, err)
			assert.Empty(t, rules.MandatoryOnly(rules.Check(st)), "the program and the guardrails agree")
			vnets := slices.ContainsFunc(st.Resources, func(r rules.Resource) bool { return strings.HasSuffix(r.Type, ":VirtualNetwork") })
			assert.Equal(t, tc.vnet, vnets, "a VNet is created")
			mode := network.ModeAksml
			if !tc.vnet {
				mode = network.ModeAKSManaged
				assert.NotContains(t, st.Outputs, stacks.NodeSubnetIDOutput)
			}
			assert.Equal(t, mode, st.Outputs[network.ModeOutput].Value)
			refs := 0
			for _, r := range st.Resources {
				if r.Type == "pulumi:pulumi:StackReference" {
					refs++
					assert.Equal(t, "organization/"+stacks.Project+"/dev", r.Inputs["name"], "the stack reads its own previous outputs")
				}
			}
			assert.Equal(t, 1, refs)
		})
	}
}
