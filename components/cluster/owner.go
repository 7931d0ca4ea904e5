package cluster

import (
	"fmt"

	"github.com/aksml/aksml/components/vocab"
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	corev1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/core/v1"
	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// StackOwner is the running stack's fully qualified name,
// <organization>/<project>/<stack>, as a StackReference takes it: how a
// stack names itself in vocab.OwnerAnnotation and refers to itself.
func StackOwner(ctx *pulumi.Context) string {
	return ctx.Organization() + "/" + ctx.Project() + "/" + ctx.Stack()
}

// ReadOwner reads vocab.OwnerAnnotation of namespace kube-system through
// provider (a read named vocab.OwnerRead; it creates nothing) and returns
// its value: the stack that owns the cluster, "" when no stack does.
//
// ready, when set, is an output of the cluster's creation (its resource
// ID): the read waits for it, and in a preview that creates the cluster the
// read is skipped (the engine does not read an object by an unknown ID) and
// the owner is unknown. Reads run during previews ("Unlike most steps, Read
// steps run during previews", pulumi/pulumi pkg/resource/deploy/step.go
// ReadStep.Apply), so on an existing cluster the owner is known at preview.
func ReadOwner(ctx *pulumi.Context, provider *kubernetes.Provider, ready pulumi.StringOutput, opts ...pulumi.ResourceOption) (pulumi.StringOutput, error) {
	var id pulumi.IDInput = pulumi.ID(vocab.SystemNamespace)
	if ready != (pulumi.StringOutput{}) {
		id = ready.ApplyT(func(string) pulumi.ID { return vocab.SystemNamespace }).(pulumi.IDOutput)
	}
	ns, err := corev1.GetNamespace(ctx, vocab.OwnerRead, id, nil, append(opts, pulumi.Provider(provider))...)
	if err != nil {
		return pulumi.StringOutput{}, err
	}
	return ns.Metadata.Annotations().MapIndex(pulumi.String(vocab.OwnerAnnotation)), nil
}

// OwnerConflict returns the error of a stack (self, as StackOwner) whose
// cluster another stack (owner, as ReadOwner returns it) owns, naming key,
// the config that points the stack at the cluster; nil when owner is empty
// or self.
func OwnerConflict(owner, self, key string) error {
	if owner == "" || owner == self {
		return nil
	}
	return fmt.Errorf("%s: the cluster is owned by aksml stack %s (annotation %s on namespace %s), and a second aksml stack on one cluster would declare the same platform objects "+
		"(the StorageClasses, PriorityClasses, Kueue's cluster queues and resource flavors, the device plugin DaemonSet, the %s and %s namespaces), overwrite %s's and delete them on its destroy; "+
		"run one aksml stack per cluster: add this stack's teams to %s, or point %s at another cluster; "+
		"if %s no longer exists (its state was lost or the stack was renamed), remove the claim with `kubectl annotate namespace %s %s-` and run again",
		key, owner, vocab.OwnerAnnotation, vocab.SystemNamespace, vocab.GPUStackNamespace, vocab.KueueNamespace, owner,
		owner, key, owner, vocab.SystemNamespace, vocab.OwnerAnnotation)
}

// ClaimCluster writes vocab.OwnerAnnotation = owner on namespace
// kube-system with a server-side apply patch (vocab.OwnerClaim): the stack
// claims the cluster for as long as the patch exists, and its destroy
// removes the annotation (a patch resource relinquishes its fields on
// delete: "Server-side apply patch resources", pulumi-kubernetes
// https://www.pulumi.com/registry/packages/kubernetes/how-to-guides/managing-resources-with-server-side-apply/).
func ClaimCluster(ctx *pulumi.Context, provider *kubernetes.Provider, owner string, opts ...pulumi.ResourceOption) (*corev1.NamespacePatch, error) {
	return corev1.NewNamespacePatch(ctx, vocab.OwnerClaim, &corev1.NamespacePatchArgs{
		Metadata: &metav1.ObjectMetaPatchArgs{
			Name:        pulumi.String(vocab.SystemNamespace),
			Annotations: pulumi.StringMap{vocab.OwnerAnnotation: pulumi.String(owner)},
		},
	}, append(opts, pulumi.Provider(provider))...)
}
