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
	found, known, err := p.readOwner(ctx, ready)
	if err != nil {
		return err
	}
	self := cluster.StackOwner(ctx)
	if known {
		if err := cluster.OwnerConflict(found, self, configKey.String()); err != nil {
			return err
		}
	}
	_, err = cluster.ClaimCluster(ctx, p.provider, self)
	return err
}

// readOwner reads, before anything is registered through the provider, the
// stack that owns the cluster (cluster.ReadOwner; "" for none); known is
// false in a preview that creates the cluster (ready unknown).
func (p *platform) readOwner(ctx *pulumi.Context, ready pulumi.StringOutput) (found string, known bool, err error) {
	owner, err := cluster.ReadOwner(ctx, p.provider, ready)
	if err != nil {
		return "", false, err
	}
	read, err := internals.UnsafeAwaitOutput(ctx.Context(), owner)
	if err != nil {
		return "", false, err
	}
	found, _ = read.Value.(string)
	return found, read.Known, nil
}
