package stacks

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/internals"

	"github.com/aksml/aksml/components/cluster"
)

// ownership refuses, before any Kubernetes object is registered, a stack
// whose cluster another aksml stack owns (vocab.OwnerAnnotation on
// kube-system), and claims the cluster for this stack otherwise. On an
// existing cluster the owner is read at preview, so the preview fails and an
// `up` registers nothing of the Kubernetes layer; on a cluster this stack
// creates, the read waits for the cluster (a preview that creates it cannot
// read it, and nobody else can own a cluster that does not exist yet).
func (p *platform) ownership(ctx *pulumi.Context) error {
	var ready pulumi.StringOutput
	configKey := key("existingCluster")
	if p.cluster != nil {
		ready, configKey = p.cluster.ResourceID, key("cluster").Child("name")
	}
	owner, err := cluster.ReadOwner(ctx, p.provider, ready)
	if err != nil {
		return err
	}
	read, err := internals.UnsafeAwaitOutput(ctx.Context(), owner)
	if err != nil {
		return err
	}
	self := cluster.StackOwner(ctx)
	if read.Known {
		found, _ := read.Value.(string)
		if err := cluster.OwnerConflict(found, self, configKey.String()); err != nil {
			return err
		}
	}
	_, err = cluster.ClaimCluster(ctx, p.provider, self)
	return err
}
