package cluster

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	containerservice "github.com/pulumi/pulumi-azure-native-sdk/containerservice/v2/v20241001"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/armdeploy"
	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/internal/azarm"
)

// Container registry (Microsoft.ContainerRegistry/registries, API
// 2023-07-01, azure-rest-api-specs
// specification/containerregistry/resource-manager/Microsoft.ContainerRegistry/stable/2023-07-01/containerregistry.json:
// sku.name Basic/Standard/Premium, properties.adminUserEnabled), created
// through components/armdeploy because the containerregistry SDK module is
// not served at v2.88.0.
const (
	RegistryResourceType = "Microsoft.ContainerRegistry/registries"
	RegistryAPIVersion   = "2023-07-01"
	// DefaultRegistrySKU is Standard: more storage and throughput than
	// Basic for multi-GB CUDA and model images; Premium adds geo-replication
	// and private endpoints.
	DefaultRegistrySKU = "Standard"
	// RegistryLoginSuffix is the login server suffix of a registry in
	// Azure public cloud: <name>.azurecr.io.
	RegistryLoginSuffix = ".azurecr.io"
	// AcrPullRoleID is the built-in role AcrPull ("Azure built-in roles",
	// https://learn.microsoft.com/azure/role-based-access-control/built-in-roles/containers#acrpull).
	AcrPullRoleID = "7f951dda-4ed3-4680-a7ca-43fe172d538d"
	// KubeletIdentityKey is the identityProfile key of the kubelet identity
	// that pulls images on the nodes.
	KubeletIdentityKey = "kubeletidentity"
)

// RegistrySKUs lists the valid registry SKUs.
var RegistrySKUs = []string{"Basic", "Standard", "Premium"}

var (
	registryNameRE = regexp.MustCompile(`^[a-zA-Z0-9]{5,50}$`)
	registryIDRE   = regexp.MustCompile(`(?i)^/subscriptions/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/resourceGroups/[-\w._()]{1,90}/providers/Microsoft\.ContainerRegistry/registries/([a-zA-Z0-9]{5,50})$`)
)

// RegistrySpec is `aksml:cluster.registry`: the container registry the
// cluster pulls model and training images from, created or brought; the
// kubelet identity gets AcrPull on it. Exactly one of Name and ID.
type RegistrySpec struct {
	// Name creates a registry in the cluster's resource group: 5-50 letters
	// and digits, unique across Azure (it becomes <name>.azurecr.io), so
	// aksml does not guess it. No default.
	Name string `json:"name,omitempty" pulumi:"name,optional"`
	// ID brings an existing registry:
	// /subscriptions/<guid>/resourceGroups/<rg>/providers/Microsoft.ContainerRegistry/registries/<name>.
	ID string `json:"id,omitempty" pulumi:"id,optional"`
	// SKU of a created registry: Basic, Standard (default) or Premium.
	SKU string `json:"sku,omitempty" pulumi:"sku,optional"`
}

// Default fills unset fields.
func (r *RegistrySpec) Default() {
	if r.SKU == "" && r.ID == "" {
		r.SKU = DefaultRegistrySKU
	}
}

// RegistryName is the registry's name (created or from ID).
func (r RegistrySpec) RegistryName() string {
	if m := registryIDRE.FindStringSubmatch(r.ID); m != nil {
		return m[1]
	}
	return r.Name
}

// LoginServer is <name>.azurecr.io, lowercase, which image references use.
func (r RegistrySpec) LoginServer() string {
	return strings.ToLower(r.RegistryName()) + RegistryLoginSuffix
}

// Validate checks a defaulted RegistrySpec below path.
func (r RegistrySpec) Validate(path field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case r.Name == "" && r.ID == "":
		errs = append(errs, field.Required(path, "name (a registry to create) or id (an existing registry)"))
	case r.Name != "" && r.ID != "":
		errs = append(errs, field.Forbidden(path.Child("id"), "names an existing registry, but name asks to create one; set only one"))
	case r.ID != "" && !registryIDRE.MatchString(r.ID):
		errs = append(errs, field.Invalid(path.Child("id"), "%q is not a container registry resource ID; use /subscriptions/<subscription-guid>/resourceGroups/<rg>/providers/Microsoft.ContainerRegistry/registries/<name>", r.ID))
	case r.Name != "" && !registryNameRE.MatchString(r.Name):
		errs = append(errs, field.Invalid(path.Child("name"), "%q is not a container registry name: use 5-50 letters and digits only (no '-'); it must be unique across Azure, as it becomes <name>.azurecr.io", r.Name))
	}
	if r.ID != "" && r.SKU != "" {
		errs = append(errs, field.Forbidden(path.Child("sku"), "applies to a registry aksml creates; an existing registry keeps its SKU, so remove sku"))
	} else if r.ID == "" && !slices.Contains(RegistrySKUs, r.SKU) {
		errs = append(errs, field.NotSupported(path.Child("sku"), r.SKU, RegistrySKUs))
	}
	return errs
}

// RegistryTemplate is the ARM template of a created registry: admin user
// off (nodes pull with the kubelet identity), with its ID as output.
func RegistryTemplate(tags map[string]string) map[string]any {
	reg := map[string]any{
		"type":       RegistryResourceType,
		"apiVersion": RegistryAPIVersion,
		"name":       "[parameters('registryName')]",
		"location":   "[parameters('location')]",
		"sku":        map[string]any{"name": "[parameters('sku')]"},
		"properties": map[string]any{"adminUserEnabled": false},
	}
	if len(tags) > 0 {
		reg["tags"] = tags
	}
	return armdeploy.Template([]map[string]any{reg}, map[string]any{
		"registryId": armdeploy.Output("string", fmt.Sprintf("[resourceId('%s', parameters('registryName'))]", RegistryResourceType)),
	})
}

// registry registers the registry stack (when created) and the kubelet
// identity's AcrPull assignment on the registry; it returns the
// registry's ID.
func registry(ctx *pulumi.Context, name string, spec Spec, rgName pulumi.StringInput, mc *containerservice.ManagedCluster, tags map[string]string, opts []pulumi.ResourceOption) (pulumi.StringOutput, error) {
	r := *spec.Registry
	id := pulumi.String(r.ID).ToStringOutput()
	var deps []pulumi.Resource
	if r.ID == "" {
		stack, err := armdeploy.NewTemplateStack(ctx, name+"-registry", &armdeploy.Args{
			ResourceGroupName: rgName,
			Template:          RegistryTemplate(tags),
			Parameters:        map[string]any{"registryName": r.Name, "location": spec.Location, "sku": r.SKU},
			Description:       "aksml container registry for model and training images. Deleting the stack detaches the registry.",
			Tags:              tags,
		}, opts...)
		if err != nil {
			return id, err
		}
		// Same subscription and group as the cluster: derive the ID rather
		// than read it back from the deployment.
		id = mc.ID().ToStringOutput().ApplyT(func(clusterID string) string {
			group := clusterID
			if i := strings.Index(strings.ToLower(clusterID), "/providers/"); i >= 0 {
				group = clusterID[:i]
			}
			return group + "/providers/" + RegistryResourceType + "/" + r.Name
		}).(pulumi.StringOutput)
		deps = append(deps, stack)
	}
	kubelet := mc.IdentityProfile.MapIndex(pulumi.String(KubeletIdentityKey)).ObjectId().Elem()
	_, err := azarm.NewRoleAssignment(ctx, name+"-acrpull", &azarm.RoleAssignmentArgs{
		PrincipalID:      kubelet,
		PrincipalType:    pulumi.String("ServicePrincipal"),
		RoleDefinitionID: id.ApplyT(acrPullRoleDefinition).(pulumi.StringOutput),
		Scope:            id,
		Description:      pulumi.String("aksml: the cluster's kubelet identity pulls images from the registry"),
	}, append(opts, pulumi.DependsOn(deps))...)
	return id, err
}

// acrPullRoleDefinition is AcrPull in the subscription of the registry ID.
func acrPullRoleDefinition(registryID string) string {
	return armdeploy.RoleDefinitionID(registryID, AcrPullRoleID)
}
