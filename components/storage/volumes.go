package storage

import (
	"errors"
	"slices"

	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	corev1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/core/v1"
	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
)

// TeamVolumesArgs configures NewTeamVolumes.
type TeamVolumesArgs struct {
	// ConfigPath is the root of validation error paths (`<ConfigPath>.volumes`).
	// Default DefaultConfigPath (`storage`).
	ConfigPath field.Path
	// Provider is the Kubernetes provider; nil uses the ambient default.
	Provider *kubernetes.Provider
	// Namespace is the team namespace the claims are created in, normally
	// the output of the component that creates the namespace, so that the
	// claims wait for it. Required.
	Namespace pulumi.StringInput
	// Spec sizes the claims and picks the datasets class
	// (`aksml:storage.volumes`); unset fields take their defaults.
	Spec VolumesSpec
	// RetainCheckpoints registers the checkpoints claim with
	// pulumi.RetainOnDelete, so `pulumi destroy` leaves it (and its volume)
	// in the cluster (C3.4). Default false; prod stacks set it.
	RetainCheckpoints bool
	// RetainDatasets registers the datasets claim with
	// pulumi.RetainOnDelete, so removing the team from the stack (or
	// renaming it, which removes the old name) or `pulumi destroy` leaves
	// the claim, and with it the share or container its class would delete
	// with it (reclaimPolicy Delete), in the cluster. Default false; the
	// aksml stacks set it from `aksml:retainTeamData` (default: protect).
	RetainDatasets bool
	// Classes, when set, makes the claims wait for the StorageClasses they
	// name. Default nil (the classes already exist).
	Classes *StorageClasses
	// Accounts, when set, makes the claims wait for the CSI identity's role
	// assignments on aksml's storage accounts: on the first up the claims
	// would otherwise be created while the driver cannot yet create a share
	// or container, and provisioning fails until the claim is retried.
	// Default nil (no aksml accounts, or the assignments already exist).
	Accounts *StorageAccounts
}

// TeamVolumes is the shared datasets claim and the checkpoints claim of one
// team namespace.
type TeamVolumes struct {
	pulumi.ResourceState

	// DatasetsClaimName is the name of the datasets claim (DatasetsPVCName).
	DatasetsClaimName pulumi.StringOutput `pulumi:"datasetsClaimName"`
	// CheckpointsClaimName is the name of the checkpoints claim
	// (CheckpointsPVCName).
	CheckpointsClaimName pulumi.StringOutput `pulumi:"checkpointsClaimName"`
}

// claimArgs maps one claim to provider arguments: RWX, the class, the size.
func claimArgs(namespace pulumi.StringInput, name, class, size string) *corev1.PersistentVolumeClaimArgs {
	return &corev1.PersistentVolumeClaimArgs{
		Metadata: &metav1.ObjectMetaArgs{
			Name:      pulumi.String(name),
			Namespace: namespace.ToStringOutput(),
		},
		Spec: &corev1.PersistentVolumeClaimSpecArgs{
			AccessModes:      pulumi.StringArray{pulumi.String(AccessModeRWX)},
			StorageClassName: pulumi.String(class),
			Resources: &corev1.VolumeResourceRequirementsArgs{
				Requests: pulumi.StringMap{"storage": pulumi.String(size)},
			},
		},
	}
}

// NewTeamVolumes creates the datasets claim (DatasetsPVCName) and the
// checkpoints claim (CheckpointsPVCName, class ml-checkpoints-azurefile) in
// a team namespace.
func NewTeamVolumes(ctx *pulumi.Context, name string, args *TeamVolumesArgs, opts ...pulumi.ResourceOption) (*TeamVolumes, error) {
	if args == nil {
		return nil, errors.New("storage: NewTeamVolumes needs args")
	}
	if args.Namespace == nil {
		return nil, errors.New("storage: NewTeamVolumes needs Namespace")
	}
	spec := args.Spec
	spec.Default()
	if err := spec.Validate(configPath(args.ConfigPath).Child("volumes")).ToAggregate(); err != nil {
		return nil, err
	}
	if args.Provider != nil {
		opts = append(opts, pulumi.Providers(args.Provider))
	}
	c := &TeamVolumes{}
	if err := ctx.RegisterComponentResource(TeamVolumesType, name, c, opts...); err != nil {
		return nil, err
	}

	childOpts := []pulumi.ResourceOption{pulumi.Parent(c)}
	if args.Classes != nil {
		// The class resources themselves, not their component: the SDK
		// expands a component in DependsOn to the children it has
		// registered so far, which varies from run to run.
		childOpts = append(childOpts, pulumi.DependsOn(args.Classes.classes))
	}
	if args.Accounts != nil && len(args.Accounts.csiGrants) > 0 {
		childOpts = append(childOpts, pulumi.DependsOn(args.Accounts.csiGrants))
	}
	datasetOpts := append(slices.Clone(childOpts), pulumi.RetainOnDelete(args.RetainDatasets))
	datasets, err := corev1.NewPersistentVolumeClaim(ctx, name+"-datasets",
		claimArgs(args.Namespace, DatasetsPVCName, spec.DatasetsClass, spec.DatasetsSize), datasetOpts...)
	if err != nil {
		return nil, err
	}
	checkpointOpts := append(slices.Clone(childOpts), pulumi.RetainOnDelete(args.RetainCheckpoints))
	checkpoints, err := corev1.NewPersistentVolumeClaim(ctx, name+"-checkpoints",
		claimArgs(args.Namespace, CheckpointsPVCName, CheckpointsClass, spec.CheckpointsSize), checkpointOpts...)
	if err != nil {
		return nil, err
	}
	c.DatasetsClaimName = datasets.Metadata.Name().Elem()
	c.CheckpointsClaimName = checkpoints.Metadata.Name().Elem()

	if err := ctx.RegisterResourceOutputs(c, pulumi.Map{
		"datasetsClaimName":    c.DatasetsClaimName,
		"checkpointsClaimName": c.CheckpointsClaimName,
	}); err != nil {
		return nil, err
	}
	return c, nil
}
