package stacks

import (
	"fmt"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/cluster"
	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/network"
)

// Outputs the stack reads back from its own last deployment.
const (
	// ClusterResourceIDOutput is the ARM ID of the cluster the stack
	// deployed (aksml:cluster).
	ClusterResourceIDOutput = "clusterResourceId"
	// NodeSubnetIDOutput is the node subnet of the VNet aksml created or
	// brought; a stack whose cluster ran in the VNet AKS generated has none.
	NodeSubnetIDOutput = "nodeSubnetId"
	// previousDeploymentName is the logical name of the stack's reference
	// to itself.
	previousDeploymentName = "previous-deployment"
)

// previousDeployment is what the stack's last deployment says about the
// network its cluster runs in.
type previousDeployment struct {
	// ClusterID is the ARM ID of the cluster the stack deployed
	// (ClusterResourceIDOutput), "" when it deployed none.
	ClusterID string
	// NodeSubnetID is its NodeSubnetIDOutput, "" when the cluster runs in
	// the VNet AKS generated.
	NodeSubnetID string
}

// readPreviousDeployment reads the stack's own outputs from its last
// deployment through a StackReference to itself
// (<organization>/<project>/<stack>): the Pulumi engine answers a stack
// reference with the outputs of the named stack's latest checkpoint
// (backend.GetStackOutputs, pulumi/pulumi pkg/v3 backend/backend.go), and
// during this stack's own preview or update that is the previous deployment:
// the root stack resource keeps its old outputs until the program
// registers new ones at its end. A stack never deployed has no outputs.
func (p *platform) readPreviousDeployment(ctx *pulumi.Context) (previousDeployment, error) {
	ref, err := p.previousRef(ctx)
	if err != nil {
		return previousDeployment{}, err
	}
	value := func(name string) (string, error) {
		v, err := outputValue(ref, name)
		s, _ := v.(string)
		return s, err
	}
	clusterID, err := value(ClusterResourceIDOutput)
	if err != nil {
		return previousDeployment{}, err
	}
	subnet, err := value(NodeSubnetIDOutput)
	return previousDeployment{ClusterID: clusterID, NodeSubnetID: subnet}, err
}

// outputValue reads output name of the stack ref references, secret or not
// (nil when the stack has no such output). The read happens at preview:
// the engine answers a StackReference from the stack's last checkpoint.
func outputValue(ref *pulumi.StackReference, name string) (any, error) {
	d, err := ref.GetOutputDetails(name)
	if err != nil {
		return nil, err
	}
	if d.Value != nil {
		return d.Value, nil
	}
	return d.SecretValue, nil
}

// previousRef returns the stack's reference to itself, registered once
// (readPreviousDeployment, checkPlacement).
func (p *platform) previousRef(ctx *pulumi.Context) (*pulumi.StackReference, error) {
	if p.previous != nil {
		return p.previous, nil
	}
	ref, err := pulumi.NewStackReference(ctx, previousDeploymentName, &pulumi.StackReferenceArgs{Name: pulumi.String(cluster.StackOwner(ctx))})
	p.previous = ref
	return ref, err
}

// validateNetworkContinuity refuses a network the stack's existing cluster
// cannot move into. AKS sets a pool's subnet when the pool is created and
// keeps a cluster's pools in one VNet ("at this time when provisioning/
// updating clusters AKS requires that all Node Pools are located on the
// same subnet (or are all public)", and vnetSubnetID "has to be set at
// Cluster/Node Pool creation time", hashicorp/terraform-provider-azurerm#8662;
// components/gpupool puts vnetSubnetID in ReplaceOnChanges and the
// cluster's inline pools are its creation body only). So a cluster an older
// aksml deployed in the VNet AKS generated (no aksml:network, no
// NodeSubnetIDOutput) would, under a created VNet, have its GPU pools
// deleted and recreated in a subnet of another VNet than its system pool,
// and the update would fail halfway; the reverse move fails the same way.
// stack names the stack in messages.
func (c *Config) validateNetworkContinuity(prev previousDeployment, stack string) field.ErrorList {
	if c.Cluster == nil || c.Network == nil || !c.sameCluster(prev.ClusterID) {
		// No cluster before, or a new one (another name or group), which
		// is created in the network it is given.
		return nil
	}
	aksManaged := c.Network.AKSManaged()
	switch {
	case prev.NodeSubnetID == "" && !aksManaged:
		was := fmt.Sprintf("stack %q", stack) + " last deployed its cluster in the VNet AKS generated (its outputs have " + ClusterResourceIDOutput + " and no " + NodeSubnetIDOutput + ": aksml before a VNet was the default)"
		what := "without aksml:network aksml now creates a VNet and puts every pool in it"
		if !c.networkUnwritten {
			what = "aksml:network puts every pool in a VNet the stack declares"
		}
		keep := "either keep the VNet AKS generated: set aksml:network to {mode: " + network.ModeAKSManaged + "} (dev only); or move"
		if c.IsProd() {
			keep = "prod cannot keep the VNet AKS generated (mode " + network.ModeAKSManaged + " is dev only), so move"
		}
		return field.ErrorList{field.Invalid(key("network"), "%s, and %s; AKS sets a pool's subnet only when the pool is created and keeps a cluster's pools in one VNet, so this update would delete and recreate the GPU pools and then fail with the system pool in the other VNet; %s to a VNet aksml creates: deploy a new cluster with aksml:network (a new stack, or a new aksml:cluster.name), move the workloads, then destroy the old one (README, Network, upgrading a stack deployed without aksml:network)",
			was, what, keep)}
	case prev.NodeSubnetID != "" && aksManaged:
		return field.ErrorList{field.Invalid(key("network").Child("mode"), "%s, but stack %q last deployed its cluster in the VNet aksml declared (output %s %s); AKS cannot move an existing cluster's pools to the VNet it would generate; remove mode", network.ModeAKSManaged, stack, NodeSubnetIDOutput, prev.NodeSubnetID)}
	}
	return nil
}

// sameCluster reports whether the ARM ID id names the cluster this config
// declares (resource group and name; ARM compares them case-insensitively).
func (c *Config) sameCluster(id string) bool {
	parts := strings.Split(id, "/")
	// /subscriptions/<s>/resourceGroups/<rg>/providers/Microsoft.ContainerService/managedClusters/<name>
	if len(parts) != 9 || !strings.EqualFold(parts[3], "resourceGroups") {
		return false
	}
	return strings.EqualFold(parts[4], c.Cluster.ResourceGroup.Name) && strings.EqualFold(parts[8], c.Cluster.Name)
}
