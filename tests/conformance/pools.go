package conformance

import (
	"fmt"
	"strings"
)

// Pool is one AKS agent pool of the desired state, whichever resource
// declares it: an agent pool profile inline in a ManagedCluster, a typed
// AgentPool, or an agentPools resource in an ARM template.
type Pool struct {
	// Cluster identifies the cluster: "<resource group>/<cluster name>",
	// lower-case.
	Cluster string
	// Name is the pool name; "" when it cannot be evaluated.
	Name string
	// Props are the pool's properties (agentPoolProfiles entry, AgentPool
	// inputs without path parameters, or the template's `properties`).
	Props map[string]any
	// Body is the body that declares the pool.
	Body Body
	// Where is the pool's JSON path inside Body.
	Where string
	// Inline is true for a ManagedCluster agentPoolProfiles entry.
	Inline bool
}

// Describe names the pool in findings.
func (p Pool) Describe() string {
	where := p.Body.Describe()
	if p.Where != "" {
		where += " " + p.Where
	}
	return fmt.Sprintf("pool %q (%s)", p.Name, where)
}

// writeUnit is what writes the pool to ARM: the ManagedCluster for inline
// pools, the typed AgentPool, or the deployment that holds the template.
func (p Pool) writeUnit() string { return p.Body.Resource.URN }

// SubnetID is the pool's vnetSubnetID, "" when unset; known is false
// when it is set to a value only known at deployment (an unevaluated ARM
// expression or a Pulumi unknown), which the rules do not judge.
func (p Pool) SubnetID() (id string, known bool) {
	id = str(p.Props["vnetSubnetID"])
	return id, !isExpression(id) && id != unknownValue
}

func clusterKey(rg, name string) string { return strings.ToLower(rg + "/" + name) }

// poolsOf returns every agent pool the bodies declare, in order.
func poolsOf(bodies []Body) []Pool {
	var out []Pool
	for _, b := range bodies {
		switch {
		case strings.EqualFold(b.Type, typeManagedCluster):
			props := b.Value
			if !b.Typed {
				props = mapOf(b.Value["properties"])
			}
			for i, e := range listOf(props["agentPoolProfiles"]) {
				pm := mapOf(e)
				out = append(out, Pool{Cluster: clusterKey(b.ResourceGroup, b.Name), Name: str(pm["name"]), Props: pm,
					Body: b, Where: fmt.Sprintf("agentPoolProfiles[%d]", i), Inline: true})
			}
		case strings.EqualFold(b.Type, typeAgentPool):
			cluster, name, _ := strings.Cut(b.Name, "/")
			p := Pool{Cluster: clusterKey(b.ResourceGroup, cluster), Name: name, Props: b.Value, Body: b}
			if !b.Typed {
				p.Props, p.Where = mapOf(b.Value["properties"]), "properties"
			}
			out = append(out, p)
		}
	}
	return out
}

// poolsByCluster groups pools by cluster, keeping order.
func poolsByCluster(pools []Pool) (keys []string, by map[string][]Pool) {
	by = map[string][]Pool{}
	for _, p := range pools {
		if _, ok := by[p.Cluster]; !ok {
			keys = append(keys, p.Cluster)
		}
		by[p.Cluster] = append(by[p.Cluster], p)
	}
	return keys, by
}
