package rules

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPoolsOfAgentPool(t *testing.T) {
	pools := poolsOf(spotPool("gpuspot"))
	require.Len(t, pools, 1)
	p := pools[0]
	assert.Equal(t, "gpuspot", p.Name)
	assert.True(t, p.IsGPU())
	assert.True(t, p.IsSpot())
	assert.False(t, p.IsManaged())
	assert.Equal(t, 8, *p.MaxCount)
	assert.Equal(t, 0, *p.MinCount)
	assert.Equal(t, -1.0, *p.SpotMaxPrice)
	assert.Equal(t, 1, p.GPUsPerNode())
	assert.Equal(t, "AgentPool gpuspot", p.Describe())
	assert.Equal(t, "gpuspot", p.NodeLabels()["kubernetes.azure.com/agentpool"])
	assert.Equal(t, "spot", p.NodeLabels()["kubernetes.azure.com/scalesetpriority"])
	assert.Equal(t, []string{"sku=gpu:NoSchedule", "kubernetes.azure.com/scalesetpriority=spot:NoSchedule"}, p.NodeTaints())
}

func TestPoolsOfAgentPoolNames(t *testing.T) {
	r := agentPool("gpua100")
	delete(r.Inputs, "agentPoolName")
	assert.Equal(t, "gpua100", poolsOf(r)[0].Name, "falls back to the Pulumi name")
	r.Inputs["name"] = "fromstate"
	assert.Equal(t, "fromstate", poolsOf(r)[0].Name, "reads the output name (stack analysis sees outputs)")
	r.Type = "azure-native:containerservice/v20240901:AgentPool"
	assert.Len(t, poolsOf(r), 1, "versioned tokens are pools too")

	spot := spotPool("gpuspot")
	spot.Inputs["nodeTaints"] = arr{"sku=gpu:NoSchedule"}
	assert.Contains(t, poolsOf(spot)[0].NodeTaints(), "kubernetes.azure.com/scalesetpriority=spot:NoSchedule", "AKS adds the spot taint")
}

func TestPoolsOfManagedCluster(t *testing.T) {
	mc := resource("azure-native:containerservice:ManagedCluster", "aks", obj{"agentPoolProfiles": arr{
		obj{"name": "system", "vmSize": "Standard_D4s_v5", "mode": "System", "count": 3.0},
		obj{"name": "gput4", "vmSize": "Standard_NC4as_T4_v3", "mode": "User", "enableAutoScaling": true, "minCount": 0.0, "maxCount": 2.0},
	}})
	pools := poolsOf(mc)
	require.Len(t, pools, 2)
	assert.False(t, pools[0].IsGPU())
	assert.True(t, pools[1].IsGPU())
	assert.Equal(t, "pool gput4 (in ManagedCluster aks)", pools[1].Describe())
	s := &Stack{Resources: []Resource{mc}}
	gpu := gpuPools(s)
	require.Len(t, gpu, 1)
	assert.Equal(t, "gput4", gpu[0].Name)
}

func TestPoolsOfDeploymentStack(t *testing.T) {
	pools := poolsOf(managedPoolStack("gpuh100"))
	require.Len(t, pools, 2)
	p := pools[0]
	assert.Equal(t, "gpuh100", p.Name, "the pool name comes from the parameters of the name expression")
	assert.True(t, p.IsManaged())
	assert.True(t, p.InTemplate)
	assert.False(t, p.AutoScaling)
	assert.False(t, p.MIGEnabled())
	assert.Equal(t, 0, *p.Count, "count comes from the parameter default")
	assert.Nil(t, p.MaxCount)
	assert.Equal(t, 0, *p.Ceiling(), "a pool without the autoscaler holds count nodes")
	assert.Equal(t, 8, p.GPUsPerNode())
	assert.Equal(t, "pool gpuh100 (in DeploymentStackAtResourceGroup gpuh100)", p.Describe())
	assert.Empty(t, p.DependsOn)

	byo := pools[1]
	assert.Equal(t, "gpubyo", byo.Name, "the pool name is the literal last argument of the name expression")
	assert.Equal(t, []string{"gpuh100"}, byo.DependsOn, "dependsOn resolves to the pool its resourceId names")
	assert.False(t, byo.IsManaged())
	assert.Equal(t, 2, *byo.Ceiling())
}

func TestPoolsOfDeploymentStackShapes(t *testing.T) {
	r := managedPoolStack("gpu")
	template := r.Inputs["template"].(obj)
	pool := template["resources"].(arr)[0].(obj)

	t.Run("template and parameters as JSON text", func(t *testing.T) {
		tb, err := json.Marshal(template)
		require.NoError(t, err)
		pb, err := json.Marshal(r.Inputs["parameters"])
		require.NoError(t, err)
		in := resource(r.Type, "gpu", obj{"template": string(tb), "parameters": string(pb)})
		require.Len(t, poolsOf(in), 2)
		assert.Equal(t, "gpuh100", poolsOf(in)[0].Name)
	})
	t.Run("literal cluster/pool name", func(t *testing.T) {
		lit := resource(r.Type, "gpu", obj{"template": obj{"resources": arr{obj{
			"type": "Microsoft.ContainerService/managedClusters/agentPools", "name": "aks/gpulit", "properties": pool["properties"],
		}}}})
		assert.Equal(t, "gpulit", poolsOf(lit)[0].Name)
	})
	t.Run("concat expression and plain parameter values", func(t *testing.T) {
		in := resource(r.Type, "gpu", obj{
			"template": obj{"resources": arr{obj{
				"type": "microsoft.containerservice/managedclusters/agentpools", "name": "[concat(parameters('cluster'), '/', parameters('pool'))]",
				"properties": obj{"vmSize": "[parameters('size')]", "maxCount": "[parameters('max')]"},
			}}},
			"parameters": obj{"cluster": "aks", "pool": "gpuexpr", "size": "Standard_NC24ads_A100_v4", "max": 3.0},
		})
		p := poolsOf(in)[0]
		assert.Equal(t, "gpuexpr", p.Name)
		assert.Equal(t, "Standard_NC24ads_A100_v4", p.VMSize)
		assert.Equal(t, 3, *p.MaxCount)
	})
	t.Run("symbolic-name resources (languageVersion 2.0)", func(t *testing.T) {
		in := resource(r.Type, "gpu", obj{"template": obj{"languageVersion": "2.0", "resources": obj{
			"pool":    obj{"type": "Microsoft.ContainerService/managedClusters/agentPools", "name": "aks/gpusym", "properties": pool["properties"]},
			"cluster": obj{"type": "Microsoft.ContainerService/managedClusters", "existing": true, "name": "aks"},
		}}})
		require.Len(t, poolsOf(in), 1)
		assert.Equal(t, "gpusym", poolsOf(in)[0].Name)
	})
	t.Run("pool name literal next to the cluster parameter (components/gpupool)", func(t *testing.T) {
		in := resource(r.Type, "gpu", obj{
			"template": obj{"resources": arr{obj{
				"type": "Microsoft.ContainerService/managedClusters/agentPools", "name": "[format('{0}/{1}', parameters('clusterName'), 'gpua100')]",
				"properties": pool["properties"],
			}}},
			"parameters": obj{"clusterName": obj{"value": "aks-dev"}},
		})
		assert.Equal(t, "gpua100", poolsOf(in)[0].Name, "the cluster name is not the pool name")
	})
	t.Run("unresolvable name expression stays visible", func(t *testing.T) {
		in := resource(r.Type, "gpu", obj{"template": obj{"resources": arr{obj{
			"type": "Microsoft.ContainerService/managedClusters/agentPools", "name": "[format('{0}/{1}', parameters('c'), parameters('p'))]",
		}}}})
		assert.Equal(t, "[format('{0}/{1}', parameters('c'), parameters('p'))]", poolsOf(in)[0].Name)
	})
	t.Run("other resource types hold no pools", func(t *testing.T) {
		assert.Empty(t, poolsOf(resource("azure-native:storage:StorageAccount", "sa", obj{})))
		assert.Empty(t, poolsOf(daemonSet("x", "y")))
	})
}
