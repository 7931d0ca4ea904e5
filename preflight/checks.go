package preflight

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerregistry/armcontainerregistry"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/storage/armstorage"
)

// Run asks Azure, read-only, whether the subscription can take the plan and
// returns one row per check, grouped by class in Checks order. A stack on an
// existing cluster creates nothing in Azure and gets no rows.
func Run(ctx context.Context, plan Plan, az *Clients) Report {
	r := Report{Plan: plan, Subscription: az.Subscription}
	if plan.ExistingCluster {
		return r
	}
	skus, skuErr := listSKUs(ctx, az, plan.Region)
	usages, usageErr := listUsage(ctx, az, plan.Region)
	switch {
	case skuErr != nil:
		r.Rows = append(r.Rows, unanswered(CheckQuota, "vCPUs per family in "+plan.Region, "the VM sizes' families and vCPUs (ResourceSkus_List)", skuErr))
	case usageErr != nil:
		r.Rows = append(r.Rows, unanswered(CheckQuota, "vCPUs per family in "+plan.Region, "the region's usage and limits (Usage_List)", usageErr))
	default:
		r.Demands = demands(plan.Pools, skus)
		r.Rows = append(r.Rows, quotaRows(plan, az.Subscription, r.Demands, usages)...)
	}
	if skuErr != nil {
		r.Rows = append(r.Rows, unanswered(CheckSKU, "every pool's size in "+plan.Region, "the region's VM sizes (ResourceSkus_List)", skuErr))
	} else {
		r.Rows = append(r.Rows, skuRows(plan, skus)...)
	}
	r.Rows = append(r.Rows, providerRows(ctx, plan, az)...)
	r.Rows = append(r.Rows, featureRows(ctx, plan, az)...)
	r.Rows = append(r.Rows, nameRows(ctx, plan, az)...)
	r.Rows = append(r.Rows, kubernetesRows(ctx, plan, az)...)
	r.Rows = append(r.Rows, workspaceRows(ctx, plan, az)...)
	r.Rows = append(r.Rows, rightsRows(ctx, plan, az)...)
	r.Rows = append(r.Rows, defenderRows(ctx, plan, az, r.Demands)...)
	return r
}

// providerRows reads each provider's registration (Providers_Get,
// Microsoft.Resources 2021-04-01: registrationState Registered,
// NotRegistered, Registering, Unregistering).
func providerRows(ctx context.Context, plan Plan, az *Clients) []Row {
	var rows []Row
	for _, p := range plan.Providers {
		res, err := az.Providers.Get(ctx, p.Namespace, nil)
		if err != nil {
			rows = append(rows, unanswered(CheckProviders, p.Namespace, "the provider's registration (Providers_Get)", err))
			continue
		}
		state := str(res.RegistrationState)
		row := Row{Check: CheckProviders, Subject: p.Namespace, Detail: fmt.Sprintf("%s; needed for %s", state, p.Why)}
		switch state {
		case "Registered":
			row.Status = OK
		case "Registering":
			row.Status = CannotTell
			row.Fix = "wait until az provider show --namespace " + p.Namespace + " --query registrationState says Registered"
		default:
			row.Status = WillFail
			row.Fix = "az provider register --namespace " + p.Namespace
		}
		rows = append(rows, row)
	}
	return rows
}

// featuresAPIVersion is Features_Get, Microsoft.Features 2021-07-01
// (azure-rest-api-specs resources/resource-manager/Microsoft.Features/stable/2021-07-01/features.json:
// GET /subscriptions/{subscriptionId}/providers/Microsoft.Features/providers/{resourceProviderNamespace}/features/{featureName},
// answering FeatureResult {name, properties: {state}, id, type}).
const featuresAPIVersion = "2021-07-01"

// featureRows reads each feature's state with the generic read of
// armresources (the armfeatures module is not served).
func featureRows(ctx context.Context, plan Plan, az *Clients) []Row {
	var rows []Row
	for _, f := range plan.Features {
		subject := f.Namespace + "/" + f.Name
		id := fmt.Sprintf("/subscriptions/%s/providers/Microsoft.Features/providers/%s/features/%s", az.Subscription, f.Namespace, f.Name)
		res, err := az.Resources.GetByID(ctx, id, featuresAPIVersion, nil)
		if err != nil {
			rows = append(rows, unanswered(CheckFeatures, subject, "the feature's state (Features_Get)", err))
			continue
		}
		state := ""
		if props, ok := res.Properties.(map[string]any); ok {
			state, _ = props["state"].(string)
		}
		row := Row{Check: CheckFeatures, Subject: subject, Detail: fmt.Sprintf("%s; needed for %s", orUnknown(state), f.Why)}
		switch strings.ToLower(state) {
		case "registered":
			row.Status = OK
		case "pending", "registering":
			row.Status = CannotTell
			row.Fix = fmt.Sprintf("wait until az feature show --namespace %s --name %s says Registered, then az provider register --namespace %s", f.Namespace, f.Name, f.Namespace)
		default:
			row.Status = WillFail
			row.Fix = fmt.Sprintf("az feature register --namespace %s --name %s; when it says Registered: az provider register --namespace %s", f.Namespace, f.Name, f.Namespace)
		}
		rows = append(rows, row)
	}
	return rows
}

func orUnknown(s string) string {
	if s == "" {
		return "state not given"
	}
	return s
}

// nameRows checks that each globally unique name is free, or already the
// stack's (it exists in the stack's resource group).
func nameRows(ctx context.Context, plan Plan, az *Clients) []Row {
	var rows []Row
	for _, n := range plan.Names {
		subject := n.Kind + " " + n.Name
		switch n.Kind {
		case KindStorage:
			res, err := az.Storage.CheckNameAvailability(ctx, armstorage.AccountCheckNameAvailabilityParameters{Name: to.Ptr(n.Name), Type: to.Ptr("Microsoft.Storage/storageAccounts")}, nil)
			if err != nil {
				rows = append(rows, unanswered(CheckNames, subject, "the name's availability (StorageAccounts_CheckNameAvailability)", err))
				continue
			}
			taken := res.Reason != nil && *res.Reason == armstorage.ReasonAlreadyExists
			rows = append(rows, nameRow(n, val(res.NameAvailable), taken, str(res.Message), func() error {
				_, err := az.Storage.GetProperties(ctx, plan.ResourceGroup, n.Name, nil)
				return err
			}, plan.ResourceGroup))
		case KindRegistry:
			res, err := az.Registries.CheckNameAvailability(ctx, armcontainerregistry.RegistryNameCheckRequest{Name: to.Ptr(n.Name), Type: to.Ptr("Microsoft.ContainerRegistry/registries")}, nil)
			if err != nil {
				rows = append(rows, unanswered(CheckNames, subject, "the name's availability (Registries_CheckNameAvailability)", err))
				continue
			}
			taken := strings.EqualFold(str(res.Reason), "AlreadyExists")
			rows = append(rows, nameRow(n, val(res.NameAvailable), taken, str(res.Message), func() error {
				_, err := az.Registries.Get(ctx, plan.ResourceGroup, n.Name, nil)
				return err
			}, plan.ResourceGroup))
		default:
			rows = append(rows, Row{Check: CheckNames, Subject: subject, Status: CannotTell,
				Detail: "Microsoft.Dashboard publishes no name-availability operation (grafana.json 2025-08-01) and its Go module (armdashboard) is not served",
				Fix:    "check the name in the portal's Azure Managed Grafana create form before up"})
		}
	}
	return rows
}

// nameRow decides a name check: available is ok; taken is ok when the
// resource exists in the stack's resource group (it is the stack's own),
// and fails otherwise.
func nameRow(n Name, available, taken bool, message string, getOwn func() error, group string) Row {
	row := Row{Check: CheckNames, Subject: n.Kind + " " + n.Name}
	switch {
	case available:
		row.Status, row.Detail = OK, "available"
		return row
	case !taken:
		row.Status, row.Detail = WillFail, "not usable: "+message
		row.Fix = "choose another name for " + n.Key
		return row
	}
	err := getOwn()
	switch {
	case err == nil:
		row.Status, row.Detail = OK, "exists in "+group+", the stack's resource group (the stack's own)"
	case notFound(err):
		row.Status, row.Detail = WillFail, "taken by a resource outside "+group
		row.Fix = "choose another name for " + n.Key
	default:
		return unanswered(CheckNames, row.Subject, "whether the taken name is the stack's own", err)
	}
	return row
}

// kubernetesRows checks a pinned version against the region's offer
// (ManagedClusters_ListKubernetesVersions, Microsoft.ContainerService
// 2025-02-01). Without a pin AKS picks its default, which it offers.
func kubernetesRows(ctx context.Context, plan Plan, az *Clients) []Row {
	want := plan.KubernetesVersion
	if want == "" {
		return []Row{{Check: CheckKubernetes, Subject: "aksml:cluster.kubernetesVersion", Status: OK, Detail: "not pinned: AKS uses its default version in " + plan.Region}}
	}
	subject := "aksml:cluster.kubernetesVersion " + want
	res, err := az.AKS.ListKubernetesVersions(ctx, plan.Region, nil)
	if err != nil {
		return []Row{unanswered(CheckKubernetes, subject, "the region's Kubernetes versions (ManagedClusters_ListKubernetesVersions)", err)}
	}
	var offered []string
	for _, v := range res.Values {
		minor := str(v.Version)
		offered = append(offered, minor)
		if minor == want {
			return []Row{{Check: CheckKubernetes, Subject: subject, Status: OK, Detail: "offered in " + plan.Region + previewNote(val(v.IsPreview))}}
		}
		if _, ok := v.PatchVersions[want]; ok {
			return []Row{{Check: CheckKubernetes, Subject: subject, Status: OK, Detail: "patch offered in " + plan.Region + previewNote(val(v.IsPreview))}}
		}
	}
	slices.Sort(offered)
	return []Row{{Check: CheckKubernetes, Subject: subject, Status: WillFail,
		Detail: "not offered in " + plan.Region + "; offered: " + orNone(offered),
		Fix:    "set aksml:cluster.kubernetesVersion to an offered version (az aks get-versions --location " + plan.Region + ")"}}
}

func previewNote(preview bool) string {
	if preview {
		return " (preview)"
	}
	return ""
}

// workspaceRows reads each brought workspace's region with the generic read
// of armresources.
func workspaceRows(ctx context.Context, plan Plan, az *Clients) []Row {
	var rows []Row
	for _, w := range plan.Workspaces {
		subject := w.Kind + " (" + w.Key + ")"
		res, err := az.Resources.GetByID(ctx, w.ID, w.APIVersion, nil)
		switch {
		case notFound(err):
			rows = append(rows, Row{Check: CheckWorkspaces, Subject: subject, Status: WillFail, Detail: w.ID + " does not exist", Fix: "create it, or point " + w.Key + " at an existing one"})
			continue
		case err != nil:
			rows = append(rows, unanswered(CheckWorkspaces, subject, "the workspace", err))
			continue
		}
		loc := str(res.Location)
		if slices.ContainsFunc(w.Regions, func(r string) bool { return sameRegion(r, loc) }) {
			rows = append(rows, Row{Check: CheckWorkspaces, Subject: subject, Status: OK, Detail: "in " + loc})
			continue
		}
		rows = append(rows, Row{Check: CheckWorkspaces, Subject: subject, Status: WillFail,
			Detail: fmt.Sprintf("in %s; the stack needs %s", loc, strings.Join(w.Regions, " or ")), Fix: w.Fix})
	}
	return rows
}
