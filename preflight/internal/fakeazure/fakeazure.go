// Package fakeazure answers preflight's Azure calls with the SDK's fake
// servers (the `fake` packages of each resource-manager module, run through
// one transport that dispatches on the SDK client's name), fed with answers
// loaded from preflight/testdata. Tests only: it lets preflight run without
// a subscription.
//
// The fixtures are written by hand in the shape of the published
// azure-rest-api-specs responses (testdata/SOURCES.md names the operation,
// API version and spec file of each); they are not recorded from a real
// subscription.
package fakeazure

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	azfake "github.com/Azure/azure-sdk-for-go/sdk/azcore/fake"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	authfake "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2/fake"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v6"
	computefake "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v6/fake"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerregistry/armcontainerregistry"
	acrfake "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerregistry/armcontainerregistry/fake"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	aksfake "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6/fake"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
	resfake "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/fake"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/storage/armstorage"
	storagefake "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/storage/armstorage/fake"

	"github.com/aksml/aksml/preflight"
)

// Subscription is the subscription ID of the fixtures.
const Subscription = "00000000-0000-0000-0000-000000000000"

// Operations a test can make fail (Azure.Fail keys).
const (
	OpSKUs        = "ResourceSkus_List"
	OpUsage       = "Usage_List"
	OpProviders   = "Providers_Get"
	OpFeatures    = "Features_Get"
	OpResources   = "Resources_GetById"
	OpPricings    = "Pricings_Get"
	OpStorageName = "StorageAccounts_CheckNameAvailability"
	OpACRName     = "Registries_CheckNameAvailability"
	OpVersions    = "ManagedClusters_ListKubernetesVersions"
	OpPermissions = "Permissions_ListForResourceGroup"
)

// Failure is an error answer: an HTTP status and an ARM error code.
type Failure struct {
	Status int
	Code   string
}

// Azure is the state the fake servers answer from. Tests change it between
// Load and Clients.
type Azure struct {
	// SKUs and Usages answer ResourceSkus_List and Usage_List (any region).
	SKUs   []*armcompute.ResourceSKU
	Usages []*armcompute.Usage
	// Providers answer Providers_Get by namespace; a missing one is 404.
	Providers map[string]*armresources.Provider
	// Resources answer Resources_GetById by lower-case ID (features and
	// workspaces); a missing one is 404.
	Resources map[string]*armresources.GenericResource
	// StorageNames and RegistryNames answer the name checks by name; a
	// missing name is available. OwnStorage and OwnRegistries exist in the
	// stack's resource group (StorageAccounts_GetProperties, Registries_Get
	// answer 200; others 404).
	StorageNames  map[string]*armstorage.CheckNameAvailabilityResult
	RegistryNames map[string]*armcontainerregistry.RegistryNameStatus
	OwnStorage    map[string]bool
	OwnRegistries map[string]bool
	// Versions answer ManagedClusters_ListKubernetesVersions.
	Versions []*armcontainerservice.KubernetesVersion
	// Permissions answer Permissions_ListForResourceGroup; GroupMissing
	// answers 404 ResourceGroupNotFound instead.
	Permissions  []*armauthorization.Permission
	GroupMissing bool
	// Fail makes an operation answer an error.
	Fail map[string]Failure
}

// Load reads the fixtures in dir (preflight/testdata).
func Load(dir string) (*Azure, error) {
	a := &Azure{Providers: map[string]*armresources.Provider{}, Resources: map[string]*armresources.GenericResource{},
		StorageNames: map[string]*armstorage.CheckNameAvailabilityResult{}, RegistryNames: map[string]*armcontainerregistry.RegistryNameStatus{},
		OwnStorage: map[string]bool{}, OwnRegistries: map[string]bool{}, Fail: map[string]Failure{}}
	var skus armcompute.ResourceSKUsResult
	var usages armcompute.ListUsagesResult
	var providers, features, resources, pricings struct {
		Value []json.RawMessage `json:"value"`
	}
	var versions armcontainerservice.KubernetesVersionListResult
	var perms armauthorization.PermissionGetResult
	var names struct {
		Storage     map[string]*armstorage.CheckNameAvailabilityResult  `json:"storage"`
		Registry    map[string]*armcontainerregistry.RegistryNameStatus `json:"registry"`
		OwnStorage  []string                                            `json:"ownStorage"`
		OwnRegistry []string                                            `json:"ownRegistry"`
	}
	for file, into := range map[string]any{
		"ResourceSkus_List.westeurope.json":                      &skus,
		"Usage_List.westeurope.json":                             &usages,
		"Providers_Get.json":                                     &providers,
		"Features_Get.json":                                      &features,
		"GenericResources_GetById.json":                          &resources,
		"Pricings_Get.json":                                      &pricings,
		"ManagedClusters_ListKubernetesVersions.westeurope.json": &versions,
		"Permissions_ListForResourceGroup.json":                  &perms,
		"CheckNameAvailability.json":                             &names,
	} {
		raw, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(raw, into); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	a.SKUs, a.Usages, a.Versions, a.Permissions = skus.Value, usages.Value, versions.Values, perms.Value
	for _, raw := range providers.Value {
		var p armresources.Provider
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		a.Providers[strings.ToLower(*p.Namespace)] = &p
	}
	for _, raw := range slices.Concat(features.Value, resources.Value, pricings.Value) {
		var r armresources.GenericResource
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, err
		}
		a.Resources[strings.ToLower(*r.ID)] = &r
	}
	a.StorageNames, a.RegistryNames = names.Storage, names.Registry
	for _, n := range names.OwnStorage {
		a.OwnStorage[n] = true
	}
	for _, n := range names.OwnRegistry {
		a.OwnRegistries[n] = true
	}
	return a, nil
}

// Clients returns preflight's clients (preflight.NewClients) wired to the
// fake servers, with retries off so throttling answers at once.
func (a *Azure) Clients() (*preflight.Clients, error) {
	router := dispatch{
		"UsageClient":           computefake.NewServerFactoryTransport(&computefake.ServerFactory{UsageServer: a.usage(), ResourceSKUsServer: a.skus()}),
		"ResourceSKUsClient":    computefake.NewServerFactoryTransport(&computefake.ServerFactory{UsageServer: a.usage(), ResourceSKUsServer: a.skus()}),
		"ProvidersClient":       resfake.NewServerFactoryTransport(&resfake.ServerFactory{ProvidersServer: a.providers(), Server: a.resources()}),
		"Client":                resfake.NewServerFactoryTransport(&resfake.ServerFactory{ProvidersServer: a.providers(), Server: a.resources()}),
		"AccountsClient":        storagefake.NewServerFactoryTransport(&storagefake.ServerFactory{AccountsServer: a.storage()}),
		"RegistriesClient":      acrfake.NewServerFactoryTransport(&acrfake.ServerFactory{RegistriesServer: a.registries()}),
		"ManagedClustersClient": aksfake.NewServerFactoryTransport(&aksfake.ServerFactory{ManagedClustersServer: a.aks()}),
		"PermissionsClient":     authfake.NewServerFactoryTransport(&authfake.ServerFactory{PermissionsServer: a.permissions()}),
	}
	opts := &arm.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: router, Retry: policy.RetryOptions{MaxRetries: -1}}}
	return preflight.NewClients(Subscription, &azfake.TokenCredential{}, opts)
}

// dispatch routes a request to the fake server of the SDK client that sent
// it (the client name the SDK puts in the request context).
type dispatch map[string]policy.Transporter

func (d dispatch) Do(req *http.Request) (*http.Response, error) {
	method, _ := req.Context().Value(runtime.CtxAPINameKey{}).(string)
	client, _, _ := strings.Cut(method, ".")
	t, ok := d[client]
	if !ok {
		return nil, fmt.Errorf("fakeazure: no fake server for %q", method)
	}
	return t.Do(req)
}

func (a *Azure) failed(op string) (Failure, bool) {
	f, ok := a.Fail[op]
	return f, ok
}

func (a *Azure) skus() computefake.ResourceSKUsServer {
	return computefake.ResourceSKUsServer{NewListPager: func(*armcompute.ResourceSKUsClientListOptions) (resp azfake.PagerResponder[armcompute.ResourceSKUsClientListResponse]) {
		if f, ok := a.failed(OpSKUs); ok {
			resp.AddResponseError(f.Status, f.Code)
			return
		}
		resp.AddPage(http.StatusOK, armcompute.ResourceSKUsClientListResponse{ResourceSKUsResult: armcompute.ResourceSKUsResult{Value: a.SKUs}}, nil)
		return
	}}
}

func (a *Azure) usage() computefake.UsageServer {
	return computefake.UsageServer{NewListPager: func(string, *armcompute.UsageClientListOptions) (resp azfake.PagerResponder[armcompute.UsageClientListResponse]) {
		if f, ok := a.failed(OpUsage); ok {
			resp.AddResponseError(f.Status, f.Code)
			return
		}
		resp.AddPage(http.StatusOK, armcompute.UsageClientListResponse{ListUsagesResult: armcompute.ListUsagesResult{Value: a.Usages}}, nil)
		return
	}}
}

func (a *Azure) providers() resfake.ProvidersServer {
	return resfake.ProvidersServer{Get: func(_ context.Context, ns string, _ *armresources.ProvidersClientGetOptions) (resp azfake.Responder[armresources.ProvidersClientGetResponse], errResp azfake.ErrorResponder) {
		if f, ok := a.failed(OpProviders); ok {
			errResp.SetResponseError(f.Status, f.Code)
			return
		}
		p, ok := a.Providers[strings.ToLower(ns)]
		if !ok {
			errResp.SetResponseError(http.StatusNotFound, "InvalidResourceNamespace")
			return
		}
		resp.SetResponse(http.StatusOK, armresources.ProvidersClientGetResponse{Provider: *p}, nil)
		return
	}}
}

func (a *Azure) resources() resfake.Server {
	return resfake.Server{GetByID: func(_ context.Context, id, _ string, _ *armresources.ClientGetByIDOptions) (resp azfake.Responder[armresources.ClientGetByIDResponse], errResp azfake.ErrorResponder) {
		op := OpResources
		switch lid := strings.ToLower(id); {
		case strings.Contains(lid, "/providers/microsoft.features/"):
			op = OpFeatures
		case strings.Contains(lid, "/providers/microsoft.security/pricings/"):
			op = OpPricings
		}
		if f, ok := a.failed(op); ok {
			errResp.SetResponseError(f.Status, f.Code)
			return
		}
		r, ok := a.Resources[strings.ToLower(strings.TrimPrefix(id, "/"))]
		if !ok {
			r, ok = a.Resources[strings.ToLower("/"+strings.TrimPrefix(id, "/"))]
		}
		if !ok {
			errResp.SetResponseError(http.StatusNotFound, "ResourceNotFound")
			return
		}
		resp.SetResponse(http.StatusOK, armresources.ClientGetByIDResponse{GenericResource: *r}, nil)
		return
	}}
}

func (a *Azure) storage() storagefake.AccountsServer {
	return storagefake.AccountsServer{
		CheckNameAvailability: func(_ context.Context, p armstorage.AccountCheckNameAvailabilityParameters, _ *armstorage.AccountsClientCheckNameAvailabilityOptions) (resp azfake.Responder[armstorage.AccountsClientCheckNameAvailabilityResponse], errResp azfake.ErrorResponder) {
			if f, ok := a.failed(OpStorageName); ok {
				errResp.SetResponseError(f.Status, f.Code)
				return
			}
			r, ok := a.StorageNames[*p.Name]
			if !ok {
				r = &armstorage.CheckNameAvailabilityResult{NameAvailable: to.Ptr(true)}
			}
			resp.SetResponse(http.StatusOK, armstorage.AccountsClientCheckNameAvailabilityResponse{CheckNameAvailabilityResult: *r}, nil)
			return
		},
		GetProperties: func(_ context.Context, _, name string, _ *armstorage.AccountsClientGetPropertiesOptions) (resp azfake.Responder[armstorage.AccountsClientGetPropertiesResponse], errResp azfake.ErrorResponder) {
			if !a.OwnStorage[name] {
				errResp.SetResponseError(http.StatusNotFound, "ResourceNotFound")
				return
			}
			resp.SetResponse(http.StatusOK, armstorage.AccountsClientGetPropertiesResponse{Account: armstorage.Account{Name: &name}}, nil)
			return
		},
	}
}

func (a *Azure) registries() acrfake.RegistriesServer {
	return acrfake.RegistriesServer{
		CheckNameAvailability: func(_ context.Context, p armcontainerregistry.RegistryNameCheckRequest, _ *armcontainerregistry.RegistriesClientCheckNameAvailabilityOptions) (resp azfake.Responder[armcontainerregistry.RegistriesClientCheckNameAvailabilityResponse], errResp azfake.ErrorResponder) {
			if f, ok := a.failed(OpACRName); ok {
				errResp.SetResponseError(f.Status, f.Code)
				return
			}
			r, ok := a.RegistryNames[*p.Name]
			if !ok {
				r = &armcontainerregistry.RegistryNameStatus{NameAvailable: to.Ptr(true)}
			}
			resp.SetResponse(http.StatusOK, armcontainerregistry.RegistriesClientCheckNameAvailabilityResponse{RegistryNameStatus: *r}, nil)
			return
		},
		Get: func(_ context.Context, _, name string, _ *armcontainerregistry.RegistriesClientGetOptions) (resp azfake.Responder[armcontainerregistry.RegistriesClientGetResponse], errResp azfake.ErrorResponder) {
			if !a.OwnRegistries[name] {
				errResp.SetResponseError(http.StatusNotFound, "ResourceNotFound")
				return
			}
			resp.SetResponse(http.StatusOK, armcontainerregistry.RegistriesClientGetResponse{Registry: armcontainerregistry.Registry{Name: &name}}, nil)
			return
		},
	}
}

func (a *Azure) aks() aksfake.ManagedClustersServer {
	return aksfake.ManagedClustersServer{ListKubernetesVersions: func(_ context.Context, _ string, _ *armcontainerservice.ManagedClustersClientListKubernetesVersionsOptions) (resp azfake.Responder[armcontainerservice.ManagedClustersClientListKubernetesVersionsResponse], errResp azfake.ErrorResponder) {
		if f, ok := a.failed(OpVersions); ok {
			errResp.SetResponseError(f.Status, f.Code)
			return
		}
		resp.SetResponse(http.StatusOK, armcontainerservice.ManagedClustersClientListKubernetesVersionsResponse{KubernetesVersionListResult: armcontainerservice.KubernetesVersionListResult{Values: a.Versions}}, nil)
		return
	}}
}

func (a *Azure) permissions() authfake.PermissionsServer {
	return authfake.PermissionsServer{NewListForResourceGroupPager: func(string, *armauthorization.PermissionsClientListForResourceGroupOptions) (resp azfake.PagerResponder[armauthorization.PermissionsClientListForResourceGroupResponse]) {
		if f, ok := a.failed(OpPermissions); ok {
			resp.AddResponseError(f.Status, f.Code)
			return
		}
		if a.GroupMissing {
			resp.AddResponseError(http.StatusNotFound, "ResourceGroupNotFound")
			return
		}
		resp.AddPage(http.StatusOK, armauthorization.PermissionsClientListForResourceGroupResponse{PermissionGetResult: armauthorization.PermissionGetResult{Value: a.Permissions}}, nil)
		return
	}}
}
