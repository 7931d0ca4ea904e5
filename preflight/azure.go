package preflight

import (
	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v6"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerregistry/armcontainerregistry"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/storage/armstorage"
)

// Clients are the Azure SDK clients preflight reads with. Every call is a
// read (GET, or a POST that only checks a name); none changes the
// subscription.
type Clients struct {
	// Subscription is the subscription ID every check reads.
	Subscription string
	// Usage lists regional vCPU usage and limits (Usage_List, Microsoft.Compute
	// 2024-11-01).
	Usage *armcompute.UsageClient
	// SKUs lists VM sizes per region and zone with their restrictions
	// (ResourceSkus_List, Microsoft.Compute 2021-07-01).
	SKUs *armcompute.ResourceSKUsClient
	// Providers reads resource provider registrations (Providers_Get,
	// Microsoft.Resources 2021-04-01).
	Providers *armresources.ProvidersClient
	// Resources reads resources by ID: subscription features
	// (Features_Get, Microsoft.Features 2021-07-01; the armfeatures module is
	// not served, so the generic read of armresources fetches the feature
	// resource) and brought workspaces.
	Resources *armresources.Client
	// Storage checks storage account names (StorageAccounts_CheckNameAvailability
	// and StorageAccounts_GetProperties, Microsoft.Storage 2024-01-01).
	Storage *armstorage.AccountsClient
	// Registries checks registry names (Registries_CheckNameAvailability and
	// Registries_Get, Microsoft.ContainerRegistry 2023-07-01).
	Registries *armcontainerregistry.RegistriesClient
	// AKS lists the Kubernetes versions of a region
	// (ManagedClusters_ListKubernetesVersions, Microsoft.ContainerService
	// 2025-02-01).
	AKS *armcontainerservice.ManagedClustersClient
	// Permissions lists the caller's effective permissions on a resource
	// group (Permissions_ListForResourceGroup, Microsoft.Authorization
	// 2022-04-01).
	Permissions *armauthorization.PermissionsClient
}

// NewClients builds the clients for subscription with credential (the
// command passes azidentity.DefaultAzureCredential) and options (tests pass
// a transport that answers with the SDK's fake servers).
func NewClients(subscription string, credential azcore.TokenCredential, options *arm.ClientOptions) (*Clients, error) {
	c := &Clients{Subscription: subscription}
	var err error
	if c.Usage, err = armcompute.NewUsageClient(subscription, credential, options); err != nil {
		return nil, err
	}
	if c.SKUs, err = armcompute.NewResourceSKUsClient(subscription, credential, options); err != nil {
		return nil, err
	}
	if c.Providers, err = armresources.NewProvidersClient(subscription, credential, options); err != nil {
		return nil, err
	}
	if c.Resources, err = armresources.NewClient(subscription, credential, options); err != nil {
		return nil, err
	}
	if c.Storage, err = armstorage.NewAccountsClient(subscription, credential, options); err != nil {
		return nil, err
	}
	if c.Registries, err = armcontainerregistry.NewRegistriesClient(subscription, credential, options); err != nil {
		return nil, err
	}
	if c.AKS, err = armcontainerservice.NewManagedClustersClient(subscription, credential, options); err != nil {
		return nil, err
	}
	if c.Permissions, err = armauthorization.NewPermissionsClient(subscription, credential, options); err != nil {
		return nil, err
	}
	return c, nil
}
