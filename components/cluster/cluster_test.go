package cluster

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	containerservice "github.com/pulumi/pulumi-azure-native-sdk/containerservice/v2/v20241001"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/field/fieldtest"

	"github.com/aksml/aksml/components/internal/mocktest"
)

const (
	adminGroup = "00000000-0000-0000-0000-000000000001"
	workspace  = "/subscriptions/00000000-0000-0000-0000-0000000000ab/resourceGroups/rg-ops/providers/Microsoft.OperationalInsights/workspaces/law-ml"
	kubeconfig = "apiVersion: v1\nkind: Config\nclusters: []\n"
)

// devSpec is a minimal dev cluster.
func devSpec() Spec {
	return Spec{Name: "aks-ml-dev", Location: "eastus", ResourceGroup: ResourceGroup{Name: "rg-ml-dev"}}
}

// prodSpec is a prod cluster: Entra ID, IP-restricted API, Defender,
// zones and a maintenance window.
func prodSpec() Spec {
	s := devSpec()
	s.Name = "aks-ml-prod"
	s.ResourceGroup.Name = "rg-ml-prod"
	s.EntraID = &EntraID{AdminGroupObjectIDs: []string{adminGroup}}
	s.APIServer.AuthorizedIPRanges = []string{"203.0.113.0/24"}
	s.Defender = Defender{Enabled: true, LogAnalyticsWorkspaceID: workspace}
	s.SystemPool.Zones = []string{"1", "2", "3"}
	s.MaintenanceWindow = &MaintenanceWindow{DayOfWeek: "Sunday", StartTime: "01:00"}
	return s
}

func boolp(v bool) *bool { return &v }
func intp(v int) *int    { return &v }

func TestSpecValidate(t *testing.T) {
	root := field.NewPath("aksml:cluster")
	tests := []struct {
		name       string
		mutate     func(*Spec)
		wantErr    []fieldtest.Want // the problems, exactly; nil means valid
		wantDetail string           // one phrase the message must hold, where the wording (the fix, the numbers) is the point
	}{
		{name: "dev is valid"},
		{name: "prod is valid", mutate: func(s *Spec) { *s = prodSpec() }},
		{name: "private prod is valid", mutate: func(s *Spec) { *s = prodSpec(); s.APIServer = APIServer{Private: true} }},
		{name: "patch channel with minor pin is valid", mutate: func(s *Spec) { s.UpgradeChannel = "patch"; s.KubernetesVersion = "1.35" }},
		{name: "missing name", mutate: func(s *Spec) { s.Name = "" }, wantErr: []fieldtest.Want{fieldtest.Required("aksml:cluster.name"), fieldtest.Invalid("aksml:cluster.logs.logAnalyticsWorkspaceName")}},
		{name: "bad name", mutate: func(s *Spec) { s.Name = "-aks" }, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.name")}},
		{name: "name too long", mutate: func(s *Spec) { s.Name = strings.Repeat("a", 64) }, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.name")}},
		{name: "missing location", mutate: func(s *Spec) { s.Location = "" }, wantErr: []fieldtest.Want{fieldtest.Required("aksml:cluster.location")}},
		{name: "display-name location", mutate: func(s *Spec) { s.Location = "East US" }, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.location")}},
		{name: "missing resource group", mutate: func(s *Spec) { s.ResourceGroup.Name = "" }, wantErr: []fieldtest.Want{fieldtest.Required("aksml:cluster.resourceGroup.name")}},
		{name: "resource group ending in dot", mutate: func(s *Spec) { s.ResourceGroup.Name = "rg." }, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.resourceGroup.name")}},
		{name: "Automatic rejected", mutate: func(s *Spec) { s.Mode = ModeAutomatic }, wantErr: []fieldtest.Want{fieldtest.Forbidden("aksml:cluster.mode")}},
		{name: "unknown mode", mutate: func(s *Spec) { s.Mode = "Auto" }, wantErr: []fieldtest.Want{fieldtest.NotSupported("aksml:cluster.mode")}},
		{name: "unknown tier", mutate: func(s *Spec) { s.Tier = "Gold" }, wantErr: []fieldtest.Want{fieldtest.NotSupported("aksml:cluster.tier")}},
		{name: "own client rate limit is valid", mutate: func(s *Spec) { s.KubeClient = KubeClient{QPS: 20.5, Burst: 40} }},
		{name: "negative client rate and burst", mutate: func(s *Spec) { s.KubeClient = KubeClient{QPS: -1, Burst: -5} },
			wantErr:    []fieldtest.Want{fieldtest.Invalid("aksml:cluster.kubeClient.qps"), fieldtest.Invalid("aksml:cluster.kubeClient.burst")},
			wantDetail: "a negative rate would turn the provider's limit off"},
		{name: "client rate under 1", mutate: func(s *Spec) { s.KubeClient.QPS = 0.2 },
			wantErr:    []fieldtest.Want{fieldtest.Invalid("aksml:cluster.kubeClient.qps")},
			wantDetail: "give at least 1 request per second"},
		{name: "bad dns prefix", mutate: func(s *Spec) { s.DNSPrefix = "aks_ml" }, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.dnsPrefix")}},
		{name: "bad kubernetes version", mutate: func(s *Spec) { s.UpgradeChannel = "none"; s.KubernetesVersion = "v1.33" }, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.kubernetesVersion")}},
		{name: "version pinned with stable channel", mutate: func(s *Spec) { s.KubernetesVersion = "1.35" }, wantErr: []fieldtest.Want{fieldtest.Forbidden("aksml:cluster.kubernetesVersion")}},
		{name: "patch pinned with patch channel", mutate: func(s *Spec) { s.UpgradeChannel = "patch"; s.KubernetesVersion = "1.35.2" }, wantErr: []fieldtest.Want{fieldtest.Forbidden("aksml:cluster.kubernetesVersion")}, wantDetail: "write MAJOR.MINOR (1.35)"},
		{name: "unknown upgrade channel", mutate: func(s *Spec) { s.UpgradeChannel = "weekly" }, wantErr: []fieldtest.Want{fieldtest.NotSupported("aksml:cluster.upgradeChannel")}},
		{name: "unknown node OS channel", mutate: func(s *Spec) { s.NodeOSUpgradeChannel = "nodeimage" }, wantErr: []fieldtest.Want{fieldtest.NotSupported("aksml:cluster.nodeOSUpgradeChannel")}},
		{name: "bad system vmSize", mutate: func(s *Spec) { s.SystemPool.VMSize = "D4ds_v5" }, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.systemPool.vmSize")}},
		{name: "system maxCount below minCount", mutate: func(s *Spec) { s.SystemPool.MinCount = intp(3); s.SystemPool.MaxCount = 2 }, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.systemPool.maxCount")}, wantDetail: "maxCount (2) must be between minCount (3) and 1000"},
		{name: "system bad zone", mutate: func(s *Spec) { s.SystemPool.Zones = []string{"0"} }, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.systemPool.zones[0]")}},
		{name: "system OS disk too small", mutate: func(s *Spec) { s.SystemPool.OSDiskSizeGB = 10 }, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.systemPool.osDiskSizeGB")}},
		{name: "cpu minCount negative", mutate: func(s *Spec) { s.CPUPool.MinCount = intp(-1) }, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.cpuPool.minCount")}},
		{name: "cpu duplicate zone", mutate: func(s *Spec) { s.CPUPool.Zones = []string{"1", "1"} }, wantErr: []fieldtest.Want{fieldtest.Duplicate("aksml:cluster.cpuPool.zones[1]")}},
		{name: "disabled cpu pool is not checked", mutate: func(s *Spec) { s.CPUPool = CPUPool{Disabled: true, VMSize: "bad"} }},
		{name: "bad pod CIDR", mutate: func(s *Spec) { s.Network.PodCIDR = "10.244.0.0" }, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.network.podCidr")}},
		{name: "overlapping CIDRs", mutate: func(s *Spec) { s.Network.ServiceCIDR = "10.244.128.0/20"; s.Network.DNSServiceIP = "10.244.128.10" }, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.network.serviceCidr")}},
		{name: "DNS IP outside service CIDR", mutate: func(s *Spec) { s.Network.DNSServiceIP = "10.1.0.10" }, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.network.dnsServiceIP")}},
		{name: "local accounts off without admins", mutate: func(s *Spec) { s.EntraID = &EntraID{} }, wantErr: []fieldtest.Want{fieldtest.Required("aksml:cluster.entraID.adminGroupObjectIDs")}},
		{name: "Entra ID with local accounts needs no admins", mutate: func(s *Spec) { s.EntraID = &EntraID{DisableLocalAccounts: boolp(false)} }},
		{name: "admin group not a GUID", mutate: func(s *Spec) { s.EntraID = &EntraID{AdminGroupObjectIDs: []string{"ml-admins"}} }, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.entraID.adminGroupObjectIDs[0]")}},
		{name: "private and IP ranges", mutate: func(s *Spec) { s.APIServer = APIServer{Private: true, AuthorizedIPRanges: []string{"203.0.113.0/24"}} }, wantErr: []fieldtest.Want{fieldtest.Forbidden("aksml:cluster.apiServer.authorizedIPRanges")}},
		{name: "bad authorized range", mutate: func(s *Spec) { s.APIServer.AuthorizedIPRanges = []string{"203.0.113.0/24", "203.0.113.7/24"} }, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.apiServer.authorizedIPRanges[1]")}},
		{name: "not a CIDR", mutate: func(s *Spec) { s.APIServer.AuthorizedIPRanges = []string{"office"} }, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.apiServer.authorizedIPRanges[0]")}},
		{name: "Defender without workspace", mutate: func(s *Spec) { s.Defender.Enabled = true }, wantErr: []fieldtest.Want{fieldtest.Required("aksml:cluster.defender.logAnalyticsWorkspaceId")}},
		{name: "Defender with bad workspace", mutate: func(s *Spec) { s.Defender = Defender{Enabled: true, LogAnalyticsWorkspaceID: "law-ml"} }, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.defender.logAnalyticsWorkspaceId")}},
		{name: "unknown autoscaler key", mutate: func(s *Spec) { s.AutoscalerProfile = map[string]string{"scanInterval": "30s"} }, wantErr: []fieldtest.Want{fieldtest.NotSupported(`aksml:cluster.autoscalerProfile["scanInterval"]`)}},
		{name: "bad autoscaler bool", mutate: func(s *Spec) { s.AutoscalerProfile = map[string]string{"ignore-daemonsets-utilization": "yes"} }, wantErr: []fieldtest.Want{fieldtest.Invalid(`aksml:cluster.autoscalerProfile["ignore-daemonsets-utilization"]`)}},
		{name: "empty autoscaler value", mutate: func(s *Spec) { s.AutoscalerProfile = map[string]string{"scan-interval": ""} }, wantErr: []fieldtest.Want{fieldtest.Invalid(`aksml:cluster.autoscalerProfile["scan-interval"]`)}},
		{name: "maintenance missing day", mutate: func(s *Spec) { s.MaintenanceWindow = &MaintenanceWindow{StartTime: "01:00"} }, wantErr: []fieldtest.Want{fieldtest.Required("aksml:cluster.maintenanceWindow.dayOfWeek")}},
		{name: "maintenance bad day", mutate: func(s *Spec) { s.MaintenanceWindow = &MaintenanceWindow{DayOfWeek: "sunday", StartTime: "01:00"} }, wantErr: []fieldtest.Want{fieldtest.NotSupported("aksml:cluster.maintenanceWindow.dayOfWeek")}},
		{name: "maintenance bad time", mutate: func(s *Spec) { s.MaintenanceWindow = &MaintenanceWindow{DayOfWeek: "Sunday", StartTime: "25:00"} }, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.maintenanceWindow.startTime")}},
		{name: "maintenance too short", mutate: func(s *Spec) {
			s.MaintenanceWindow = &MaintenanceWindow{DayOfWeek: "Sunday", StartTime: "01:00", DurationHours: 2}
		}, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.maintenanceWindow.durationHours")}, wantDetail: "AKS needs 4 to 24 hours"},
		{name: "maintenance bad offset", mutate: func(s *Spec) {
			s.MaintenanceWindow = &MaintenanceWindow{DayOfWeek: "Sunday", StartTime: "01:00", UTCOffset: "UTC+1"}
		}, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.maintenanceWindow.utcOffset")}},
		{name: "maintenance bad interval", mutate: func(s *Spec) {
			s.MaintenanceWindow = &MaintenanceWindow{DayOfWeek: "Sunday", StartTime: "01:00", IntervalWeeks: 5}
		}, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.maintenanceWindow.intervalWeeks")}},
		{name: "system minCount 0 is rejected, not replaced", mutate: func(s *Spec) { s.SystemPool.MinCount = intp(0) },
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.systemPool.minCount")}, wantDetail: "use 1 to 1000"},
		{name: "node-image channel with its forced node OS channel", mutate: func(s *Spec) { s.UpgradeChannel = "node-image" }},
		{name: "maintenance window with both channels off", mutate: func(s *Spec) {
			s.UpgradeChannel, s.NodeOSUpgradeChannel = "none", "None"
			s.MaintenanceWindow = &MaintenanceWindow{DayOfWeek: "Sunday", StartTime: "01:00", DurationHours: 4}
		}, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.maintenanceWindow")}, wantDetail: "schedules nothing"},
		{name: "maintenance window with the node OS channel on", mutate: func(s *Spec) {
			s.UpgradeChannel = "none"
			s.MaintenanceWindow = &MaintenanceWindow{DayOfWeek: "Sunday", StartTime: "01:00", DurationHours: 4}
		}},
		{name: "private authorized range", mutate: func(s *Spec) { s.APIServer.AuthorizedIPRanges = []string{"203.0.113.0/24", "172.16.0.0/12"} },
			wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.apiServer.authorizedIPRanges[1]")}, wantDetail: "lets nobody in"},
		{name: "nil GUID admin group", mutate: func(s *Spec) {
			s.EntraID = &EntraID{AdminGroupObjectIDs: []string{"00000000-0000-0000-0000-000000000000"}}
		}, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.entraID.adminGroupObjectIDs[0]")}, wantDetail: "nil GUID"},
		{name: "node-image channel with another node OS channel", mutate: func(s *Spec) { s.UpgradeChannel = "node-image"; s.NodeOSUpgradeChannel = "SecurityPatch" },
			wantErr: []fieldtest.Want{fieldtest.Forbidden("aksml:cluster.nodeOSUpgradeChannel")}},
		{name: "defender workspace with a non-GUID subscription", mutate: func(s *Spec) {
			s.Defender = Defender{Enabled: true, LogAnalyticsWorkspaceID: "/subscriptions/prod/resourceGroups/rg/providers/Microsoft.OperationalInsights/workspaces/law"}
		}, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.defender.logAnalyticsWorkspaceId")}, wantDetail: "<subscription-guid>"},
		{name: "valid autoscaler values", mutate: func(s *Spec) {
			s.AutoscalerProfile = map[string]string{"expander": "least-waste", "scan-interval": "30", "scale-down-utilization-threshold": "0.6",
				"new-pod-scale-up-delay": "0s", "max-node-provision-time": "20m", "max-total-unready-percentage": "45", "skip-nodes-with-system-pods": "false",
				"scale-down-delay-after-delete": "0m", "max-empty-bulk-delete": "10", "ok-total-unready-count": "3", "max-graceful-termination-sec": "600"}
		}},
		{name: "unknown expander", mutate: func(s *Spec) { s.AutoscalerProfile = map[string]string{"expander": "cheapest"} },
			wantErr: []fieldtest.Want{fieldtest.NotSupported(`aksml:cluster.autoscalerProfile["expander"]`)}, wantDetail: "use one of least-waste, most-pods, priority, random"},
		{name: "delay in seconds (AKS refused 0s)", mutate: func(s *Spec) { s.AutoscalerProfile = map[string]string{"scale-down-delay-after-add": "0s"} },
			wantErr: []fieldtest.Want{fieldtest.Invalid(`aksml:cluster.autoscalerProfile["scale-down-delay-after-add"]`)}, wantDetail: "is not a whole number of minutes"},
		{name: "bad autoscaler values", mutate: func(s *Spec) {
			s.AutoscalerProfile = map[string]string{"scan-interval": "0s", "scale-down-utilization-threshold": "1.5", "new-pod-scale-up-delay": "soon",
				"max-node-provision-time": "0m", "max-total-unready-percentage": "101", "balance-similar-node-groups": "yes", "max-graceful-termination-sec": "-1"}
		}, wantErr: []fieldtest.Want{fieldtest.Invalid(`aksml:cluster.autoscalerProfile["balance-similar-node-groups"]`), fieldtest.Invalid(`aksml:cluster.autoscalerProfile["max-graceful-termination-sec"]`), fieldtest.Invalid(`aksml:cluster.autoscalerProfile["max-node-provision-time"]`), fieldtest.Invalid(`aksml:cluster.autoscalerProfile["max-total-unready-percentage"]`), fieldtest.Invalid(`aksml:cluster.autoscalerProfile["new-pod-scale-up-delay"]`), fieldtest.Invalid(`aksml:cluster.autoscalerProfile["scale-down-utilization-threshold"]`), fieldtest.Invalid(`aksml:cluster.autoscalerProfile["scan-interval"]`)}, wantDetail: `"0m" must be at least 1m`},
		{name: "deployer in an admin group is valid", mutate: func(s *Spec) {
			*s = prodSpec()
			s.EntraID.Deployer = &Deployer{Access: DeployerAdminGroup, AdminGroupObjectID: adminGroup}
		}},
		{name: "deployer as a user is valid", mutate: func(s *Spec) {
			*s = prodSpec()
			s.EntraID.Deployer = &Deployer{PrincipalType: PrincipalUser}
		}},
		{name: "deployer with an unknown access and principal type", mutate: func(s *Spec) {
			*s = prodSpec()
			s.EntraID.Deployer = &Deployer{Access: "Owner", PrincipalType: "Group"}
		}, wantErr: []fieldtest.Want{fieldtest.NotSupported("aksml:cluster.entraID.deployer.access")}},
		{name: "deployer as a group is refused", mutate: func(s *Spec) {
			*s = prodSpec()
			s.EntraID.Deployer = &Deployer{PrincipalType: "Group"}
		}, wantErr: []fieldtest.Want{fieldtest.NotSupported("aksml:cluster.entraID.deployer.principalType")}},
		{name: "deployer's group is not an admin group", mutate: func(s *Spec) {
			*s = prodSpec()
			s.EntraID.Deployer = &Deployer{Access: DeployerAdminGroup, AdminGroupObjectID: "99999999-9999-4999-8999-999999999999", PrincipalType: PrincipalUser}
		}, wantErr: []fieldtest.Want{fieldtest.Invalid("aksml:cluster.entraID.deployer.adminGroupObjectID"), fieldtest.Forbidden("aksml:cluster.entraID.deployer.principalType")}, wantDetail: "is not one of entraID.adminGroupObjectIDs"},
		{name: "deployer admin group missing", mutate: func(s *Spec) {
			*s = prodSpec()
			s.EntraID.Deployer = &Deployer{Access: DeployerAdminGroup}
		}, wantErr: []fieldtest.Want{fieldtest.Required("aksml:cluster.entraID.deployer.adminGroupObjectID")}},
		{name: "admin group with role assignment", mutate: func(s *Spec) {
			*s = prodSpec()
			s.EntraID.Deployer = &Deployer{AdminGroupObjectID: adminGroup}
		}, wantErr: []fieldtest.Want{fieldtest.Forbidden("aksml:cluster.entraID.deployer.adminGroupObjectID")}},
		{name: "every problem at once", mutate: func(s *Spec) { s.Location = ""; s.Mode = ModeAutomatic; s.Defender.Enabled = true }, wantErr: []fieldtest.Want{fieldtest.Required("aksml:cluster.location"), fieldtest.Forbidden("aksml:cluster.mode"), fieldtest.Required("aksml:cluster.defender.logAnalyticsWorkspaceId")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := devSpec()
			if tc.mutate != nil {
				tc.mutate(&s)
			}
			s.Default()
			err := s.Validate(root).ToAggregate()
			if fieldtest.Equal(t, err, tc.wantErr...) && tc.wantDetail != "" {
				assert.Contains(t, err.Error(), tc.wantDetail)
			}
		})
	}
}

func TestInvalidNameReportedOnce(t *testing.T) {
	s := devSpec()
	s.Name = "-aks"
	s.Default()
	errs := s.Validate(field.NewPath("aksml:cluster"))
	require.Len(t, errs, 1, "the derived dnsPrefix is not reported again")
	assert.Equal(t, field.Path("aksml:cluster.name"), errs[0].Path)
}

func TestValidateUndefaultedSpecDoesNotPanic(t *testing.T) {
	s := devSpec()
	s.EntraID = &EntraID{}
	assert.NotEmpty(t, s.Validate(field.NewPath("aksml:cluster")))
}

func TestDefaults(t *testing.T) {
	s := Spec{Name: "aks_ml", Location: "eastus", ResourceGroup: ResourceGroup{Name: "rg"}, EntraID: &EntraID{}}
	s.Default()
	assert.Equal(t, ModeStandard, s.Mode)
	assert.Equal(t, TierStandard, s.Tier)
	assert.Equal(t, "aks-ml", s.DNSPrefix)
	assert.Equal(t, "stable", s.UpgradeChannel)
	assert.Equal(t, "NodeImage", s.NodeOSUpgradeChannel)
	assert.Equal(t, SystemPool{VMSize: "Standard_D4ds_v5", MinCount: intp(2), MaxCount: 3, OSDiskSizeGB: 128}, s.SystemPool)
	assert.Equal(t, "Standard_D8ds_v5", s.CPUPool.VMSize)
	assert.Equal(t, 1, *s.CPUPool.MinCount)
	assert.Equal(t, 5, s.CPUPool.MaxCount)
	assert.Equal(t, 128, s.CPUPool.OSDiskSizeGB)

	// A minCount above the default ceiling raises it; a written value stays.
	raised := Spec{SystemPool: SystemPool{MinCount: intp(4)}, CPUPool: CPUPool{MinCount: intp(7), VMSize: "Standard_D4ds_v5"}}
	raised.Default()
	assert.Equal(t, 4, raised.SystemPool.MaxCount)
	assert.Equal(t, 7, raised.CPUPool.MaxCount)
	assert.Equal(t, "Standard_D4ds_v5", raised.CPUPool.VMSize)
	assert.Equal(t, Network{PodCIDR: "10.244.0.0/16", ServiceCIDR: "10.0.0.0/16", DNSServiceIP: "10.0.0.10"}, s.Network)
	assert.True(t, s.LocalAccountsDisabled(), "Entra ID disables local accounts by default")
	assert.True(t, *s.AzurePolicy)
	assert.Equal(t, map[string]string{
		"scan-interval":                "20s",
		"scale-down-unneeded-time":     "10m",
		"scale-down-delay-after-add":   "15m",
		"max-graceful-termination-sec": "120",
	}, s.Autoscaler())

	s.AutoscalerProfile = map[string]string{"scan-interval": "30s", "expander": "least-waste"}
	assert.Equal(t, "30s", s.Autoscaler()["scan-interval"])
	assert.Equal(t, "least-waste", s.Autoscaler()["expander"])
	assert.Equal(t, "10m", s.Autoscaler()["scale-down-unneeded-time"])
}

func TestAutoscalerKeysAllMapToProviderFields(t *testing.T) {
	profile := map[string]string{}
	for _, k := range AutoscalerKeys() {
		profile[k] = "true"
	}
	a := autoscalerProfile(profile)
	assert.Len(t, AutoscalerKeys(), 20)
	assert.NotNil(t, a.ScanInterval)
	assert.NotNil(t, a.SkipNodesWithSystemPods)
	assert.NotNil(t, a.DaemonsetEvictionForEmptyNodes)
	assert.NotNil(t, a.BalanceSimilarNodeGroups)
}

type clusterOutputs struct {
	name, resourceID, rg, issuer, nodeRG, kubeconfig string
	secret                                           bool
}

// newMocks returns mocks that answer like ARM: deployment stacks report
// every declared template output as "deployed:<key>", a managed cluster its
// name, node resource group, OIDC issuer and ARM ID, a resource group its
// name; listManagedClusterUserCredentials returns a kubeconfig.
func newMocks() *mocktest.Mocks {
	return &mocktest.Mocks{
		State: func(args pulumi.MockResourceArgs, state resource.PropertyMap) (string, resource.PropertyMap) {
			id := args.Name + "-id"
			switch {
			case strings.HasSuffix(args.TypeToken, ":DeploymentStackAtResourceGroup"):
				state["outputs"] = mocktest.StackOutputs(args.Inputs, func(k string) string { return "deployed:" + k })
			case strings.HasSuffix(args.TypeToken, ":ManagedCluster"):
				state["name"] = args.Inputs["resourceName"]
				state["nodeResourceGroup"] = resource.NewStringProperty("MC_rg_" + args.Inputs["resourceName"].StringValue())
				state["oidcIssuerProfile"] = resource.NewObjectProperty(resource.PropertyMap{
					"enabled":   resource.NewBoolProperty(true),
					"issuerURL": resource.NewStringProperty("https://eastus.oic.prod-aks.azure.com/tenant/cluster/"),
				})
				id = "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/" + args.Inputs["resourceName"].StringValue()
			case strings.HasSuffix(args.TypeToken, ":ResourceGroup"):
				state["name"] = args.Inputs["resourceGroupName"]
			}
			return id, state
		},
		OnCall: func(args pulumi.MockCallArgs) (resource.PropertyMap, error) {
			if args.Token == "azure-native:authorization:getClientConfig" {
				return resource.PropertyMap{"objectId": resource.NewStringProperty(deployerObjectID)}, nil
			}
			if strings.HasSuffix(args.Token, ":listManagedClusterUserCredentials") {
				return resource.PropertyMap{"kubeconfigs": resource.NewArrayProperty([]resource.PropertyValue{
					resource.NewObjectProperty(resource.PropertyMap{
						"name":  resource.NewStringProperty("clusterUser"),
						"value": resource.NewStringProperty(base64.StdEncoding.EncodeToString([]byte(kubeconfig))),
					}),
				})}, nil
			}
			return resource.PropertyMap{}, nil
		},
	}
}

// runCluster builds a cluster under mocks and returns its resolved outputs.
func runCluster(t *testing.T, args *ClusterArgs) (*mocktest.Mocks, clusterOutputs, error) {
	t.Helper()
	m := newMocks()
	ch := make(chan clusterOutputs, 1)
	var kc pulumi.StringOutput
	err := m.Run(func(ctx *pulumi.Context) error {
		c, err := NewCluster(ctx, "aks", args)
		if err != nil {
			return err
		}
		if c.Provider == nil {
			t.Error("Provider is nil")
		}
		kc = c.Kubeconfig
		pulumi.All(c.Name, c.ResourceID, c.ResourceGroupName, c.OIDCIssuerURL, c.NodeResourceGroup, c.Kubeconfig).ApplyT(func(vs []any) int {
			ch <- clusterOutputs{name: vs[0].(string), resourceID: vs[1].(string), rg: vs[2].(string), issuer: vs[3].(string), nodeRG: vs[4].(string), kubeconfig: vs[5].(string)}
			return 0
		})
		return nil
	})
	if err != nil {
		return m, clusterOutputs{}, err
	}
	select {
	case out := <-ch:
		out.secret = pulumi.IsSecret(kc)
		return m, out, nil
	case <-time.After(10 * time.Second):
		t.Fatal("cluster outputs did not resolve")
		return m, clusterOutputs{}, nil
	}
}

func stringsOf(v resource.PropertyValue) []string {
	var out []string
	for _, e := range v.ArrayValue() {
		out = append(out, e.StringValue())
	}
	return out
}

func TestDevClusterMatchesBestPractices(t *testing.T) {
	m, out, err := runCluster(t, &ClusterArgs{Spec: devSpec(), Tags: map[string]string{"env": "dev"}})
	require.NoError(t, err)

	rgs := m.ByTypeSuffix(":ResourceGroup")
	require.Len(t, rgs, 1)
	assert.Equal(t, "aks-rg", rgs[0].Name)
	assert.Equal(t, "rg-ml-dev", rgs[0].Props["resourceGroupName"].StringValue())
	assert.Equal(t, "eastus", rgs[0].Props["location"].StringValue())

	mcs := m.ByTypeSuffix(":ManagedCluster")
	require.Len(t, mcs, 1)
	assert.Equal(t, "azure-native:containerservice/v20241001:ManagedCluster", mcs[0].Type)
	assert.Equal(t, "aks-aks", mcs[0].Name)
	assert.Equal(t, []string{"agentPoolProfiles"}, mcs[0].IgnoreChanges, "inline pools are the creation body only: a refresh must not turn the GPU pools into cluster inputs")
	assert.False(t, mcs[0].Protect)
	in := mcs[0].Props
	assert.Equal(t, "aks-ml-dev", in["resourceName"].StringValue())
	assert.Equal(t, "rg-ml-dev", in["resourceGroupName"].StringValue())
	assert.Equal(t, "aks-ml-dev", in["dnsPrefix"].StringValue())
	assert.Equal(t, "Standard", in["sku"].ObjectValue()["tier"].StringValue())
	assert.Equal(t, "Base", in["sku"].ObjectValue()["name"].StringValue())
	assert.Equal(t, "SystemAssigned", in["identity"].ObjectValue()["type"].StringValue())
	assert.False(t, in.HasValue("kubernetesVersion"))
	assert.Equal(t, "dev", in["tags"].ObjectValue()["env"].StringValue())

	pools := in["agentPoolProfiles"].ArrayValue()
	require.Len(t, pools, 2)
	sys := pools[0].ObjectValue()
	assert.Equal(t, "system", sys["name"].StringValue())
	assert.Equal(t, "System", sys["mode"].StringValue())
	assert.Equal(t, "Standard_D4ds_v5", sys["vmSize"].StringValue())
	assert.Equal(t, []string{"CriticalAddonsOnly=true:NoSchedule"}, stringsOf(sys["nodeTaints"]))
	assert.True(t, sys["enableAutoScaling"].BoolValue())
	assert.Equal(t, 2.0, sys["minCount"].NumberValue())
	assert.Equal(t, 3.0, sys["maxCount"].NumberValue())
	assert.False(t, sys.HasValue("count"), "an autoscaled inline pool sends no count")
	cpu := pools[1].ObjectValue()
	assert.Equal(t, "cpu", cpu["name"].StringValue())
	assert.Equal(t, "User", cpu["mode"].StringValue())
	assert.Equal(t, "cpu", cpu["nodeLabels"].ObjectValue()["workload"].StringValue())
	assert.False(t, cpu.HasValue("nodeTaints"))

	net := in["networkProfile"].ObjectValue()
	assert.Equal(t, "azure", net["networkPlugin"].StringValue())
	assert.Equal(t, "overlay", net["networkPluginMode"].StringValue())
	assert.Equal(t, "cilium", net["networkDataplane"].StringValue())
	assert.Equal(t, "cilium", net["networkPolicy"].StringValue())
	assert.Equal(t, "10.244.0.0/16", net["podCidr"].StringValue())

	assert.True(t, in["oidcIssuerProfile"].ObjectValue()["enabled"].BoolValue())
	sec := in["securityProfile"].ObjectValue()
	assert.True(t, sec["workloadIdentity"].ObjectValue()["enabled"].BoolValue())
	assert.True(t, in["workloadAutoScalerProfile"].ObjectValue()["keda"].ObjectValue()["enabled"].BoolValue(), "the AKS KEDA add-on, the InferenceServers' scaler")
	assert.False(t, sec.HasValue("defender"))
	storage := in["storageProfile"].ObjectValue()
	for _, k := range []resource.PropertyKey{"blobCSIDriver", "fileCSIDriver", "diskCSIDriver", "snapshotController"} {
		assert.True(t, storage[k].ObjectValue()["enabled"].BoolValue(), "%s enabled", k)
	}
	assert.True(t, in["azureMonitorProfile"].ObjectValue()["metrics"].ObjectValue()["enabled"].BoolValue())
	assert.True(t, in["addonProfiles"].ObjectValue()["azurepolicy"].ObjectValue()["enabled"].BoolValue())
	up := in["autoUpgradeProfile"].ObjectValue()
	assert.Equal(t, "stable", up["upgradeChannel"].StringValue())
	assert.Equal(t, "NodeImage", up["nodeOSUpgradeChannel"].StringValue())
	as := in["autoScalerProfile"].ObjectValue()
	assert.Equal(t, "20s", as["scanInterval"].StringValue())
	assert.Equal(t, "10m", as["scaleDownUnneededTime"].StringValue())
	assert.Equal(t, "15m", as["scaleDownDelayAfterAdd"].StringValue())
	assert.Equal(t, "120", as["maxGracefulTerminationSec"].StringValue())
	assert.Len(t, as, 4)
	assert.False(t, in["disableLocalAccounts"].BoolValue())
	assert.False(t, in.HasValue("aadProfile"))
	assert.False(t, in.HasValue("apiServerAccessProfile"))

	assert.Empty(t, m.ByTypeSuffix(":MaintenanceConfiguration"), "no window, no maintenance configuration")

	require.Len(t, m.Calls(), 1)
	assert.Equal(t, "azure-native:containerservice/v20241001:listManagedClusterUserCredentials", m.Calls()[0].Token)
	assert.False(t, m.Calls()[0].Args.HasValue("format"), "local-account clusters get the default kubeconfig")

	providers := m.ByTypeSuffix("pulumi:providers:kubernetes")
	require.Len(t, providers, 1)
	assert.Equal(t, "aks-k8s", providers[0].Name)
	assert.True(t, providers[0].Props["enableServerSideApply"].BoolValue())
	assertKubeClient(t, providers[0].Props, DefaultKubeClientQPS, DefaultKubeClientBurst)

	assert.Equal(t, "aks-ml-dev", out.name)
	assert.Equal(t, "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/aks-ml-dev", out.resourceID)
	assert.Equal(t, "rg-ml-dev", out.rg)
	assert.Equal(t, "https://eastus.oic.prod-aks.azure.com/tenant/cluster/", out.issuer)
	assert.Equal(t, "MC_rg_aks-ml-dev", out.nodeRG)
	assert.Equal(t, kubeconfig, out.kubeconfig, "the kubeconfig is base64-decoded")
	assert.True(t, out.secret, "the kubeconfig output is secret")
}

func TestProdClusterSecurity(t *testing.T) {
	m, _, err := runCluster(t, &ClusterArgs{Spec: prodSpec(), Protect: true})
	require.NoError(t, err)
	in := m.ByTypeSuffix(":ManagedCluster")[0].Props
	assert.True(t, m.ByTypeSuffix(":ManagedCluster")[0].Protect)
	assert.True(t, m.ByTypeSuffix(":ResourceGroup")[0].Protect)
	assert.True(t, in["disableLocalAccounts"].BoolValue())
	aad := in["aadProfile"].ObjectValue()
	assert.True(t, aad["managed"].BoolValue())
	assert.True(t, aad["enableAzureRBAC"].BoolValue())
	assert.Equal(t, []string{adminGroup}, stringsOf(aad["adminGroupObjectIDs"]))
	api := in["apiServerAccessProfile"].ObjectValue()
	assert.Equal(t, []string{"203.0.113.0/24"}, stringsOf(api["authorizedIPRanges"]))
	assert.False(t, api.HasValue("enablePrivateCluster"))
	assert.False(t, api.HasValue("enablePrivateClusterPublicFQDN"))
	def := in["securityProfile"].ObjectValue()["defender"].ObjectValue()
	assert.Equal(t, workspace, def["logAnalyticsWorkspaceResourceId"].StringValue())
	assert.True(t, def["securityMonitoring"].ObjectValue()["enabled"].BoolValue())
	assert.Equal(t, []string{"1", "2", "3"}, stringsOf(in["agentPoolProfiles"].ArrayValue()[0].ObjectValue()["availabilityZones"]))

	creds := callsOf(m, "azure-native:containerservice/v20241001:listManagedClusterUserCredentials")
	require.Len(t, creds, 1)
	assert.Equal(t, "exec", creds[0].Args["format"].StringValue(), "Entra ID clusters get the kubelogin exec kubeconfig")
	assert.False(t, creds[0].Args.HasValue("serverFqdn"), "a public cluster's kubeconfig has its only FQDN")

	mcs := m.ByTypeSuffix(":MaintenanceConfiguration")
	require.Len(t, mcs, 2)
	names := []string{mcs[0].Props["configName"].StringValue(), mcs[1].Props["configName"].StringValue()}
	assert.ElementsMatch(t, []string{"aksManagedAutoUpgradeSchedule", "aksManagedNodeOSUpgradeSchedule"}, names)
	w := mcs[0].Props["maintenanceWindow"].ObjectValue()
	assert.Equal(t, "Sunday", w["schedule"].ObjectValue()["weekly"].ObjectValue()["dayOfWeek"].StringValue())
	assert.Equal(t, 1.0, w["schedule"].ObjectValue()["weekly"].ObjectValue()["intervalWeeks"].NumberValue())
	assert.Equal(t, "01:00", w["startTime"].StringValue())
	assert.Equal(t, 4.0, w["durationHours"].NumberValue())
	assert.Equal(t, "+00:00", w["utcOffset"].StringValue())
	assert.Equal(t, "aks-ml-prod", mcs[0].Props["resourceName"].StringValue())
}

func TestPrivateClusterAndOverrides(t *testing.T) {
	s := prodSpec()
	s.APIServer = APIServer{Private: true}
	s.AzurePolicy = boolp(false)
	s.CPUPool.Disabled = true
	s.UpgradeChannel = "patch"
	s.KubernetesVersion = "1.35"
	s.AutoscalerProfile = map[string]string{"scan-interval": "30s", "skip-nodes-with-local-storage": "false", "daemonset-eviction-for-empty-nodes": "true"}
	args := &ClusterArgs{Spec: s, Transform: func(a *containerservice.ManagedClusterArgs) { a.SupportPlan = pulumi.String("KubernetesOfficial") }}
	m, _, err := runCluster(t, args)
	require.NoError(t, err)
	in := m.ByTypeSuffix(":ManagedCluster")[0].Props
	assert.True(t, in["apiServerAccessProfile"].ObjectValue()["enablePrivateCluster"].BoolValue())
	assert.True(t, in["apiServerAccessProfile"].ObjectValue()["enablePrivateClusterPublicFQDN"].BoolValue(), "the public FQDN resolves to the private IP from a peered VNet")
	creds := callsOf(m, "azure-native:containerservice/v20241001:listManagedClusterUserCredentials")
	require.Len(t, creds, 1)
	assert.Equal(t, ServerFQDNPublic, creds[0].Args["serverFqdn"].StringValue(), "the kubeconfig names the public FQDN")
	assert.False(t, in["addonProfiles"].ObjectValue()["azurepolicy"].ObjectValue()["enabled"].BoolValue())
	assert.Len(t, in["agentPoolProfiles"].ArrayValue(), 1)
	assert.Equal(t, "1.35", in["kubernetesVersion"].StringValue())
	assert.Equal(t, "patch", in["autoUpgradeProfile"].ObjectValue()["upgradeChannel"].StringValue())
	as := in["autoScalerProfile"].ObjectValue()
	assert.Equal(t, "30s", as["scanInterval"].StringValue())
	assert.Equal(t, "false", as["skipNodesWithLocalStorage"].StringValue())
	assert.True(t, as["daemonsetEvictionForEmptyNodes"].BoolValue())
	assert.Equal(t, "10m", as["scaleDownUnneededTime"].StringValue())
	assert.Equal(t, "KubernetesOfficial", in["supportPlan"].StringValue())
}

func TestExistingResourceGroupRegistersNone(t *testing.T) {
	s := devSpec()
	s.ResourceGroup.Existing = true
	m, out, err := runCluster(t, &ClusterArgs{Spec: s})
	require.NoError(t, err)
	assert.Empty(t, m.ByTypeSuffix(":ResourceGroup"))
	assert.Equal(t, "rg-ml-dev", m.ByTypeSuffix(":ManagedCluster")[0].Props["resourceGroupName"].StringValue())
	assert.Equal(t, "rg-ml-dev", out.rg)
}

func TestInvalidClusterRegistersNothing(t *testing.T) {
	tests := []struct {
		name    string
		args    *ClusterArgs
		wantErr string
	}{
		{name: "nil args", wantErr: "args are required"},
		{name: "Automatic", args: &ClusterArgs{Spec: func() Spec { s := devSpec(); s.Mode = ModeAutomatic; return s }()}, wantErr: "cluster.mode: Automatic needs"},
		{name: "config path", args: &ClusterArgs{Spec: Spec{Name: "aks"}, ConfigPath: "aksml:clusterProd"}, wantErr: "aksml:clusterProd.location: is required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, _, err := runCluster(t, tc.args)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
			assert.Empty(t, m.All())
			assert.Empty(t, m.Calls())
		})
	}
}

func TestNewClusterDoesNotDefaultCallerSpec(t *testing.T) {
	s := prodSpec()
	_, _, err := runCluster(t, &ClusterArgs{Spec: s})
	require.NoError(t, err)
	assert.Nil(t, s.EntraID.DisableLocalAccounts)
	assert.Empty(t, s.Tier)
	assert.Zero(t, s.MaintenanceWindow.DurationHours)
}

func TestExistingProvider(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config")
	require.NoError(t, os.WriteFile(path, []byte(kubeconfig), 0o600))

	tests := []struct {
		name     string
		spec     ExistingClusterSpec
		wantErr  string
		wantID   string
		wantKube bool
		// wantQPS and wantBurst are the provider's client rate limit; zero means the defaults.
		wantQPS   float64
		wantBurst int
	}{
		{name: "path and context", spec: ExistingClusterSpec{KubeconfigPath: path, Context: "kind-ml"}, wantID: "kind-ml", wantKube: true},
		{name: "ambient kubeconfig", spec: ExistingClusterSpec{}, wantID: "existing-cluster"},
		{name: "explicit identifier", spec: ExistingClusterSpec{KubeconfigPath: path, ClusterIdentifier: "onprem-a"}, wantID: "onprem-a", wantKube: true},
		{name: "missing file", spec: ExistingClusterSpec{KubeconfigPath: filepath.Join(dir, "nope")}, wantErr: "existingCluster.kubeconfigPath: cannot read"},
		{name: "directory", spec: ExistingClusterSpec{KubeconfigPath: dir}, wantErr: "is a directory"},
		{name: "own client rate limit", spec: ExistingClusterSpec{KubeClient: KubeClient{QPS: 30}}, wantID: "existing-cluster", wantQPS: 30, wantBurst: DefaultKubeClientBurst},
		{name: "negative client rate", spec: ExistingClusterSpec{KubeClient: KubeClient{QPS: -1}}, wantErr: "existingCluster.kubeClient.qps: -1: give at least 1 request per second"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := mocktest.Run(t, func(ctx *pulumi.Context) error {
				_, err := ExistingProvider(ctx, "existing", tc.spec)
				return err
			})
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				assert.Empty(t, m.All())
				return
			}
			require.NoError(t, err)
			require.Len(t, m.All(), 1)
			r := m.All()[0]
			assert.Equal(t, "pulumi:providers:kubernetes", r.Type)
			assert.Equal(t, tc.wantID, r.Props["clusterIdentifier"].StringValue())
			assert.True(t, r.Props["enableServerSideApply"].BoolValue())
			assert.Equal(t, tc.wantKube, r.Props.HasValue("kubeconfig"))
			if tc.wantQPS == 0 {
				tc.wantQPS, tc.wantBurst = DefaultKubeClientQPS, DefaultKubeClientBurst
			}
			assertKubeClient(t, r.Props, tc.wantQPS, tc.wantBurst)
			if tc.wantKube {
				kc := r.Props["kubeconfig"]
				assert.True(t, kc.IsSecret(), "the kubeconfig contents are secret")
				assert.Equal(t, kubeconfig, kc.SecretValue().Element.StringValue())
			}
			assert.Empty(t, m.ByTypeSuffix(":ManagedCluster"))
		})
	}
}

// TestNodeSubnetOnInlinePools: the system and CPU pools join the node subnet.
func TestNodeSubnetOnInlinePools(t *testing.T) {
	const subnet = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/aks-nodes"
	m, _, err := runCluster(t, &ClusterArgs{Spec: devSpec(), NodeSubnetID: pulumi.String(subnet)})
	require.NoError(t, err)
	pools := m.ByTypeSuffix(":ManagedCluster")[0].Props["agentPoolProfiles"].ArrayValue()
	require.Len(t, pools, 2)
	for _, p := range pools {
		assert.Equal(t, subnet, p.ObjectValue()["vnetSubnetID"].StringValue(), p.ObjectValue()["name"].StringValue())
	}
	m, _, err = runCluster(t, &ClusterArgs{Spec: devSpec()})
	require.NoError(t, err)
	for _, p := range m.ByTypeSuffix(":ManagedCluster")[0].Props["agentPoolProfiles"].ArrayValue() {
		assert.False(t, p.ObjectValue().HasValue("vnetSubnetID"))
	}
}

func TestOverlayRulesAndRangeLimit(t *testing.T) {
	s := devSpec()
	s.Network = Network{PodCIDR: "172.31.0.0/16", ServiceCIDR: "10.0.0.0/16", DNSServiceIP: "10.0.0.0"}
	s.APIServer.AuthorizedIPRanges = make([]string, 201)
	for i := range s.APIServer.AuthorizedIPRanges {
		s.APIServer.AuthorizedIPRanges[i] = "203.0.113.0/24"
	}
	s.Default()
	err := s.Validate("aksml:cluster").ToAggregate()
	if fieldtest.Equal(t, err, fieldtest.Forbidden("aksml:cluster.network.podCidr"), fieldtest.Invalid("aksml:cluster.network.dnsServiceIP"), fieldtest.Invalid("aksml:cluster.apiServer.authorizedIPRanges")) {
		assert.Contains(t, err.Error(), "lists 201 ranges; AKS accepts at most 200")
	}
}

func TestExistingClusterSpecStackReference(t *testing.T) {
	p := field.NewPath("aksml:existingCluster")
	assert.Empty(t, ExistingClusterSpec{StackReference: "org/aksml/prod-azure"}.Validate(p))
	fieldtest.ListEqual(t, ExistingClusterSpec{StackReference: "org/aksml/prod-azure", KubeconfigPath: "/tmp/kubeconfig"}.Validate(p),
		fieldtest.Forbidden("aksml:existingCluster.stackReference"))
	fieldtest.ListEqual(t, ExistingClusterSpec{StackReference: "org//prod"}.Validate(p), fieldtest.Invalid("aksml:existingCluster.stackReference"))
}

// TestExistingStackNamesTheCallersConfig: ExistingStack's errors name the
// spec below the caller's ConfigPath and say to deploy the referenced stack
// as the caller's Producer; without them they use the library's own
// defaults, never the aksml program's config keys.
func TestExistingStackNamesTheCallersConfig(t *testing.T) {
	dir := t.TempDir()
	_, err := mocktest.Run(t, func(ctx *pulumi.Context) error {
		_, _, err := ExistingStack(ctx, "existing", ExistingClusterSpec{KubeconfigPath: dir}, ExistingStackArgs{ConfigPath: "platform:cluster"})
		return err
	})
	fieldtest.Equal(t, err, fieldtest.Invalid("platform:cluster.kubeconfigPath"))

	for _, tc := range []struct {
		args ExistingStackArgs
		want string
	}{
		{ExistingStackArgs{Producer: "a platform:cluster stack"}, `"; deploy it as a platform:cluster stack first`},
		{ExistingStackArgs{}, `"; deploy it as ` + DefaultProducer + " first"},
	} {
		// The referenced stack exists but has no outputs.
		m := &mocktest.Mocks{State: func(args pulumi.MockResourceArgs, state resource.PropertyMap) (string, resource.PropertyMap) {
			if args.TypeToken == "pulumi:pulumi:StackReference" {
				state["outputs"] = resource.NewObjectProperty(resource.PropertyMap{})
			}
			return args.Name + "-id", state
		}}
		err := m.Run(func(ctx *pulumi.Context) error {
			prov, _, err := ExistingStack(ctx, "existing", ExistingClusterSpec{StackReference: "org/platform/azure"}, tc.args)
			if err != nil {
				return err
			}
			ctx.Export("provider", prov.URN())
			return nil
		})
		require.Error(t, err, "the referenced stack has no outputs")
		assert.ErrorContains(t, err, tc.want)
		assert.NotContains(t, err.Error(), "aksml:")
	}
}

// assertKubeClient checks the Kubernetes provider's client rate limit
// (kubeClientSettings) in its registered properties.
func assertKubeClient(t *testing.T, props resource.PropertyMap, qps float64, burst int) {
	t.Helper()
	require.True(t, props.HasValue("kubeClientSettings"), "the provider has no kubeClientSettings: it would keep its own 50 requests a second")
	settings := props["kubeClientSettings"].ObjectValue()
	assert.Equal(t, resource.NewNumberProperty(qps), settings["qps"])
	assert.Equal(t, resource.NewNumberProperty(float64(burst)), settings["burst"])
}
