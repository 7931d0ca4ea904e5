package preflight_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v6"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerregistry/armcontainerregistry"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/storage/armstorage"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/preflight"
	"github.com/aksml/aksml/preflight/internal/fakeazure"
	"github.com/aksml/aksml/stacks"
)

// plan parses a shipped stack the way the command does.
func plan(t *testing.T, stack string) preflight.Plan {
	t.Helper()
	raw, err := stacks.ReadConfigFile("..", stack)
	require.NoError(t, err)
	cfg, err := stacks.Parse(stack, raw)
	require.NoError(t, err)
	return preflight.PlanOf(cfg)
}

// fixtures loads the hand-written answers of testdata (SOURCES.md).
func fixtures(t *testing.T) *fakeazure.Azure {
	t.Helper()
	a, err := fakeazure.Load("testdata")
	require.NoError(t, err)
	return a
}

func run(t *testing.T, p preflight.Plan, a *fakeazure.Azure) preflight.Report {
	t.Helper()
	az, err := a.Clients()
	require.NoError(t, err)
	return preflight.Run(context.Background(), p, az)
}

// TestDemandsReproduceTheIssue: prod needs, at its maximum, 192 on-demand
// and 192 spot NCADS_A100_v4 vCPUs, 192 NDSH100v5 and 80 DDSv5 vCPUs in
// westeurope (issue 28); at its minimum one warm A100 inference node
// (24), three system and one CPU node (32 DDSv5). Dev needs NCASv3_T4 on
// demand and spot and NCADS_A100_v4.
func TestDemandsReproduceTheIssue(t *testing.T) {
	type need struct{ min, max int }
	cases := map[string]map[string]need{
		"prod": {
			"StandardNCADSA100v4Family":  {24, 192},
			"standardDDSv5Family":        {32, 80},
			"standardNDSH100v5Family":    {0, 192},
			preflight.UsageTotalRegional: {56, 464},
			preflight.UsageLowPriority:   {0, 192},
		},
		"dev": {
			"StandardNCADSA100v4Family":  {0, 24},
			"standardDDSv5Family":        {12, 52},
			"standardNCASv3_T4Family":    {0, 16},
			preflight.UsageTotalRegional: {12, 92},
			preflight.UsageLowPriority:   {0, 16},
		},
	}
	for stack, want := range cases {
		t.Run(stack, func(t *testing.T) {
			r := run(t, plan(t, stack), fixtures(t))
			got := map[string]need{}
			for _, d := range r.Demands {
				got[d.Quota] = need{d.Min, d.Max}
			}
			require.Equal(t, want, got)
		})
	}
}

// allOK makes every answer pass for the shipped stacks: generous limits,
// every provider and feature registered, names free, workspaces in the
// cluster's region, the deployer an Owner with AKS RBAC Cluster Admin.
// containersPricing is the key of the subscription's Containers plan in the
// fake's resources (Pricings_Get.json).
const containersPricing = "/subscriptions/00000000-0000-0000-0000-000000000000/providers/microsoft.security/pricings/containers"

func allOK(a *fakeazure.Azure) {
	for _, u := range a.Usages {
		u.CurrentValue, u.Limit = to.Ptr[int32](0), to.Ptr[int64](10000)
	}
	for _, p := range a.Providers {
		p.RegistrationState = to.Ptr("Registered")
	}
	for _, r := range a.Resources {
		if props, ok := r.Properties.(map[string]any); ok && props["state"] != nil {
			props["state"] = "Registered"
		}
		r.Location = to.Ptr("westeurope")
	}
	a.StorageNames = map[string]*armstorage.CheckNameAvailabilityResult{}
	a.RegistryNames = map[string]*armcontainerregistry.RegistryNameStatus{}
	for _, s := range a.SKUs {
		s.Restrictions = nil
	}
	a.Permissions = []*armauthorization.Permission{{Actions: []*string{to.Ptr("*")}, DataActions: []*string{to.Ptr("Microsoft.ContainerService/managedClusters/*")}}}
}

func usage(a *fakeazure.Azure, name string) *armcompute.Usage {
	for _, u := range a.Usages {
		if strings.EqualFold(*u.Name.Value, name) {
			return u
		}
	}
	panic("no usage " + name)
}

func sku(a *fakeazure.Azure, name string) *armcompute.ResourceSKU {
	for _, s := range a.SKUs {
		if *s.Name == name {
			return s
		}
	}
	panic("no sku " + name)
}

// rows returns the rows of one class.
func rows(r preflight.Report, c preflight.Check) []preflight.Row {
	var out []preflight.Row
	for _, row := range r.Rows {
		if row.Check == c {
			out = append(out, row)
		}
	}
	return out
}

// row returns the row of class c whose subject contains subject.
func row(t *testing.T, r preflight.Report, c preflight.Check, subject string) preflight.Row {
	t.Helper()
	for _, row := range rows(r, c) {
		if strings.Contains(row.Subject, subject) {
			return row
		}
	}
	require.Failf(t, "no row", "%s: no row about %q in %+v", c, subject, rows(r, c))
	return preflight.Row{}
}

// TestChecks: each check passing, failing and unable to tell, against the
// fake servers.
func TestChecks(t *testing.T) {
	cases := []struct {
		name    string
		stack   string
		change  func(a *fakeazure.Azure, p *preflight.Plan)
		check   preflight.Check
		subject string
		want    preflight.Status
		// inFix is a fragment the row's Fix or Detail must hold.
		inFix string
	}{
		{name: "quota ok", stack: "prod", check: preflight.CheckQuota, subject: "NDSH100v5", want: preflight.OK},
		{name: "family quota too small at max", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			usage(a, "standardNDSH100v5Family").Limit = to.Ptr[int64](96)
		}, check: preflight.CheckQuota, subject: "NDSH100v5", want: preflight.WillFail,
			inFix: "az quota update --resource-name standardNDSH100v5Family --scope /subscriptions/00000000-0000-0000-0000-000000000000/providers/Microsoft.Compute/locations/westeurope --limit-object value=192 --resource-type dedicated"},
		{name: "min fits, max does not", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			usage(a, "StandardNCADSA100v4Family").Limit = to.Ptr[int64](48)
		}, check: preflight.CheckQuota, subject: "NCADSA100v4", want: preflight.WillFail, inFix: "cannot scale to their maximum"},
		{name: "usage already taken counts", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			u := usage(a, "standardDDSv5Family")
			u.CurrentValue, u.Limit = to.Ptr[int32](40), to.Ptr[int64](100)
		}, check: preflight.CheckQuota, subject: "DDSv5", want: preflight.WillFail, inFix: "value=120"},
		{name: "spot quota too small", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			usage(a, "lowPriorityCores").Limit = to.Ptr[int64](100)
		}, check: preflight.CheckQuota, subject: "lowPriorityCores", want: preflight.WillFail, inFix: "--resource-type lowPriority"},
		{name: "total regional quota too small", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			usage(a, "cores").Limit = to.Ptr[int64](400)
		}, check: preflight.CheckQuota, subject: "Total Regional vCPUs", want: preflight.WillFail},
		{name: "quota forbidden", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			a.Fail[fakeazure.OpUsage] = fakeazure.Failure{Status: http.StatusForbidden, Code: "AuthorizationFailed"}
		}, check: preflight.CheckQuota, subject: "vCPUs per family", want: preflight.CannotTell, inFix: "Reader on the subscription"},
		{name: "quota throttled", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			a.Fail[fakeazure.OpUsage] = fakeazure.Failure{Status: http.StatusTooManyRequests, Code: "TooManyRequests"}
		}, check: preflight.CheckQuota, subject: "vCPUs per family", want: preflight.CannotTell, inFix: "again in a few minutes"},

		{name: "sizes ok", stack: "prod", check: preflight.CheckSKU, subject: "h100", want: preflight.OK},
		{name: "zone restricted for the subscription", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			s := sku(a, "Standard_ND96isr_H100_v5")
			s.Restrictions = []*armcompute.ResourceSKURestrictions{{Type: to.Ptr(armcompute.ResourceSKURestrictionsTypeZone),
				RestrictionInfo: &armcompute.ResourceSKURestrictionInfo{Zones: []*string{to.Ptr("1")}}, ReasonCode: to.Ptr(armcompute.ResourceSKURestrictionsReasonCodeNotAvailableForSubscription)}}
		}, check: preflight.CheckSKU, subject: "h100", want: preflight.WillFail, inFix: "set aksml:gpuPools[2].zones to zones from [2, 3]"},
		{name: "size not in a requested zone", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			sku(a, "Standard_NC24ads_A100_v4").LocationInfo[0].Zones = []*string{to.Ptr("1"), to.Ptr("2")}
		}, check: preflight.CheckSKU, subject: "a100spot", want: preflight.WillFail, inFix: "zone(s) 3"},
		{name: "size restricted in the region", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			sku(a, "Standard_ND96isr_H100_v5").Restrictions = []*armcompute.ResourceSKURestrictions{{Type: to.Ptr(armcompute.ResourceSKURestrictionsTypeLocation),
				Values: []*string{to.Ptr("westeurope")}, ReasonCode: to.Ptr(armcompute.ResourceSKURestrictionsReasonCodeNotAvailableForSubscription)}}
		}, check: preflight.CheckSKU, subject: "h100", want: preflight.WillFail, inFix: "support request"},
		{name: "size not offered", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			sku(a, "Standard_ND96isr_H100_v5").Locations = []*string{to.Ptr("eastus")}
		}, check: preflight.CheckSKU, subject: "h100", want: preflight.WillFail, inFix: "not offered in westeurope"},
		{name: "size cannot run as spot", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			for _, c := range sku(a, "Standard_NC24ads_A100_v4").Capabilities {
				if *c.Name == "LowPriorityCapable" {
					c.Value = to.Ptr("False")
				}
			}
		}, check: preflight.CheckSKU, subject: "a100spot", want: preflight.WillFail, inFix: "priority Regular"},
		{name: "sizes throttled", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			a.Fail[fakeazure.OpSKUs] = fakeazure.Failure{Status: http.StatusTooManyRequests, Code: "TooManyRequests"}
		}, check: preflight.CheckSKU, subject: "every pool", want: preflight.CannotTell},

		{name: "provider registered", stack: "prod", check: preflight.CheckProviders, subject: "Microsoft.Dashboard", want: preflight.OK},
		{name: "provider not registered", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			a.Providers["microsoft.dashboard"].RegistrationState = to.Ptr("NotRegistered")
		}, check: preflight.CheckProviders, subject: "Microsoft.Dashboard", want: preflight.WillFail, inFix: "az provider register --namespace Microsoft.Dashboard"},
		{name: "provider registering", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			a.Providers["microsoft.dashboard"].RegistrationState = to.Ptr("Registering")
		}, check: preflight.CheckProviders, subject: "Microsoft.Dashboard", want: preflight.CannotTell},
		{name: "providers forbidden", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			a.Fail[fakeazure.OpProviders] = fakeazure.Failure{Status: http.StatusForbidden, Code: "AuthorizationFailed"}
		}, check: preflight.CheckProviders, subject: "Microsoft.ContainerService", want: preflight.CannotTell},

		{name: "InfiniBand feature registered", stack: "prod", check: preflight.CheckFeatures, subject: "AKSInfinibandSupport", want: preflight.OK},
		{name: "managed GPU feature not registered", stack: "dev", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			a.Resources["/subscriptions/00000000-0000-0000-0000-000000000000/providers/microsoft.features/providers/microsoft.containerservice/features/managedgpuexperiencepreview"].Properties = map[string]any{"state": "NotRegistered"}
		}, check: preflight.CheckFeatures, subject: "ManagedGPUExperiencePreview", want: preflight.WillFail,
			inFix: "az feature register --namespace Microsoft.ContainerService --name ManagedGPUExperiencePreview"},
		{name: "features throttled", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			a.Fail[fakeazure.OpFeatures] = fakeazure.Failure{Status: http.StatusTooManyRequests, Code: "TooManyRequests"}
		}, check: preflight.CheckFeatures, subject: "AKSInfinibandSupport", want: preflight.CannotTell},

		{name: "storage name free", stack: "prod", check: preflight.CheckNames, subject: "aksmlprodfiles", want: preflight.OK},
		{name: "storage name the stack's own", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			a.StorageNames["aksmlprodfiles"] = &armstorage.CheckNameAvailabilityResult{NameAvailable: to.Ptr(false), Reason: to.Ptr(armstorage.ReasonAlreadyExists)}
			a.OwnStorage["aksmlprodfiles"] = true
		}, check: preflight.CheckNames, subject: "aksmlprodfiles", want: preflight.OK, inFix: "the stack's own"},
		{name: "storage name taken elsewhere", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			a.StorageNames["aksmlprodfiles"] = &armstorage.CheckNameAvailabilityResult{NameAvailable: to.Ptr(false), Reason: to.Ptr(armstorage.ReasonAlreadyExists)}
		}, check: preflight.CheckNames, subject: "aksmlprodfiles", want: preflight.WillFail, inFix: "aksml:storage.accounts"},
		{name: "registry name taken elsewhere", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			a.RegistryNames["acraksmlprod"] = &armcontainerregistry.RegistryNameStatus{NameAvailable: to.Ptr(false), Reason: to.Ptr("AlreadyExists")}
		}, check: preflight.CheckNames, subject: "acraksmlprod", want: preflight.WillFail, inFix: "aksml:cluster.registry.name"},
		{name: "registry name check forbidden", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			a.Fail[fakeazure.OpACRName] = fakeazure.Failure{Status: http.StatusForbidden, Code: "AuthorizationFailed"}
		}, check: preflight.CheckNames, subject: "acraksmlprod", want: preflight.CannotTell},
		{name: "Grafana name cannot be told", stack: "prod", check: preflight.CheckNames, subject: "amg-aksml-prod", want: preflight.CannotTell},

		{name: "version not pinned", stack: "prod", check: preflight.CheckKubernetes, subject: "kubernetesVersion", want: preflight.OK},
		{name: "pinned minor offered", stack: "prod", change: func(_ *fakeazure.Azure, p *preflight.Plan) { p.KubernetesVersion = "1.33" },
			check: preflight.CheckKubernetes, subject: "1.33", want: preflight.OK},
		{name: "pinned patch offered", stack: "prod", change: func(_ *fakeazure.Azure, p *preflight.Plan) { p.KubernetesVersion = "1.32.5" },
			check: preflight.CheckKubernetes, subject: "1.32.5", want: preflight.OK},
		{name: "pinned version not offered", stack: "prod", change: func(_ *fakeazure.Azure, p *preflight.Plan) { p.KubernetesVersion = "1.29" },
			check: preflight.CheckKubernetes, subject: "1.29", want: preflight.WillFail, inFix: "offered: 1.31, 1.32, 1.33"},
		{name: "AKS provider not registered", stack: "prod", change: func(a *fakeazure.Azure, p *preflight.Plan) {
			p.KubernetesVersion = "1.33"
			a.Fail[fakeazure.OpVersions] = fakeazure.Failure{Status: http.StatusConflict, Code: "MissingSubscriptionRegistration"}
		}, check: preflight.CheckKubernetes, subject: "1.33", want: preflight.CannotTell, inFix: "az provider register"},

		{name: "workspace in the cluster's region", stack: "prod", check: preflight.CheckWorkspaces, subject: "Azure Monitor", want: preflight.OK},
		{name: "workspace in another region", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			a.Resources["/subscriptions/00000000-0000-0000-0000-000000000000/resourcegroups/rg-observability/providers/microsoft.monitor/accounts/amw-aksml-prod"].Location = to.Ptr("northeurope")
		}, check: preflight.CheckWorkspaces, subject: "Azure Monitor", want: preflight.WillFail, inFix: "azureMonitorWorkspaceLocation"},
		{name: "Log Analytics workspace missing", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			delete(a.Resources, "/subscriptions/00000000-0000-0000-0000-000000000000/resourcegroups/rg-observability/providers/microsoft.operationalinsights/workspaces/law-aksml-prod")
		}, check: preflight.CheckWorkspaces, subject: "Log Analytics", want: preflight.WillFail, inFix: "does not exist"},
		{name: "workspace forbidden", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			a.Fail[fakeazure.OpResources] = fakeazure.Failure{Status: http.StatusForbidden, Code: "AuthorizationFailed"}
		}, check: preflight.CheckWorkspaces, subject: "Log Analytics", want: preflight.CannotTell},

		{name: "owner may assign roles", stack: "prod", check: preflight.CheckRights, subject: "role assignments", want: preflight.OK},
		{name: "contributor may not assign roles", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			a.Permissions = []*armauthorization.Permission{{Actions: []*string{to.Ptr("*")}, NotActions: []*string{to.Ptr("Microsoft.Authorization/*/Write")}}}
		}, check: preflight.CheckRights, subject: "role assignments", want: preflight.WillFail, inFix: "Role Based Access Control Administrator"},
		{name: "AKS RBAC data action present", stack: "prod", check: preflight.CheckRights, subject: "Kubernetes API", want: preflight.OK},
		{name: "no data action: admin group membership unknown", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			a.Permissions = []*armauthorization.Permission{{Actions: []*string{to.Ptr("*")}}}
		}, check: preflight.CheckRights, subject: "Kubernetes API", want: preflight.CannotTell, inFix: "11111111-2222-3333-4444-555555555555"},
		{name: "Defender plan on", stack: "prod", check: preflight.CheckDefender, subject: "Defender for Containers plan", want: preflight.OK, inFix: "56 vCores at their minimum, 656 at their maximum"},
		{name: "Defender plan Free", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			a.Resources[containersPricing].Properties = map[string]any{"pricingTier": "Free"}
		}, check: preflight.CheckDefender, subject: "Defender for Containers plan", want: preflight.WillFail, inFix: "az security pricing create --name Containers --tier Standard"},
		{name: "Defender plan never set", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			delete(a.Resources, containersPricing)
		}, check: preflight.CheckDefender, subject: "Defender for Containers plan", want: preflight.WillFail, inFix: "no Containers plan"},
		{name: "Defender plan unreadable", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) {
			a.Fail[fakeazure.OpPricings] = fakeazure.Failure{Status: http.StatusForbidden, Code: "AuthorizationFailed"}
		}, check: preflight.CheckDefender, subject: "Defender for Containers plan", want: preflight.CannotTell},
		{name: "resource group not created yet", stack: "prod", change: func(a *fakeazure.Azure, _ *preflight.Plan) { a.GroupMissing = true },
			check: preflight.CheckRights, subject: "rg-aksml-prod", want: preflight.CannotTell},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := fixtures(t)
			allOK(a)
			p := plan(t, tc.stack)
			if tc.change != nil {
				tc.change(a, &p)
			}
			r := run(t, p, a)
			got := row(t, r, tc.check, tc.subject)
			require.Equal(t, tc.want, got.Status, "%+v", got)
			if tc.inFix != "" {
				require.Contains(t, got.Fix+" "+got.Detail, tc.inFix)
			}
			if tc.want != preflight.OK {
				require.NotEmpty(t, got.Fix, "a row that is not ok says what to do")
			}
		})
	}
}

// TestExitCode: dev with every answer passing exits 0; prod cannot reach 0
// because no served API can tell a Grafana name (3); one failing check
// makes it 1.
func TestExitCode(t *testing.T) {
	a := fixtures(t)
	allOK(a)
	require.Equal(t, preflight.ExitOK, run(t, plan(t, "dev"), a).ExitCode())
	require.Equal(t, preflight.ExitCannotTell, run(t, plan(t, "prod"), a).ExitCode())
	for _, r := range run(t, plan(t, "dev"), a).Rows {
		require.NotEqual(t, preflight.CheckDefender, r.Check, "dev does not promise Defender, so its plan is not read")
	}
	usage(a, "cores").Limit = to.Ptr[int64](1)
	require.Equal(t, preflight.ExitWillFail, run(t, plan(t, "prod"), a).ExitCode())
}
