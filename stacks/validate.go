package stacks

import (
	"net/netip"
	"reflect"
	"slices"
	"strings"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/gpustack"
	"github.com/aksml/aksml/components/network"
	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/storage"
	"github.com/aksml/aksml/components/teams"
	"github.com/aksml/aksml/components/tenancy"
)

// tenancyTeams maps the teams to components/tenancy, defaulted, with the
// GPU ResourceQuota, priorities and namespace quota each team's queue
// implies (queues.Resolved, which Validate resolved first): the namespace
// quota leaves room for the datasets and checkpoints claims the stack
// creates in every team namespace, on the classes it creates. With
// aksml:kaito.install each team also gets the pools its KAITO Workspaces
// may run on (kaitoTeamPools).
func (c *Config) tenancyTeams() []tenancy.Team {
	if c.res == nil || c.res.queues == nil {
		return nil
	}
	out := teams.Tenancy(c.Teams, c.res.queues, storage.ClassNames(), c.teamClaims())
	if c.KAITO.Install && c.ExistingCluster == nil {
		for i := range out {
			out[i].WorkspacePools = c.kaitoTeamPools(out[i].Name)
		}
	}
	return out
}

// teamClaims are the claims the stack creates in every team namespace
// (storage.NewTeamVolumes): the datasets and checkpoints volumes.
func (c *Config) teamClaims() []tenancy.Claim {
	v := c.Storage.Volumes
	v.Default()
	return []tenancy.Claim{{Class: v.DatasetsClass, Size: v.DatasetsSize}, {Class: storage.CheckpointsClass, Size: v.CheckpointsSize}}
}

func key(k string) field.Path { return field.NewPath(Namespace + ":" + k) }

// resolution is the configuration resolved once, by Validate: what Deploy
// hands to the components, which then neither default nor validate it
// again.
type resolution struct {
	pools    []gpupool.Resolved
	gpuStack *gpustack.Resolved
	queues   *queues.Resolved
}

// resolve resolves the GPU pools, the GPU stack and the queueing layer
// (each defaulted and validated once, in the component that owns it),
// keeps the result for Deploy, defaults the network from the resolved
// pools and returns every problem.
func (c *Config) resolve() field.ErrorList {
	pools, errs := gpupool.Resolve(c.GPUPools, key("gpuPools"))
	gs, gerrs := gpustack.Resolve(c.GPUStack, pools, key("gpuStack"), key("gpuPools"))
	queued := teams.Queues(c.Teams)
	if !c.KubernetesLayerOn() {
		// An Azure-layer stack reads only its teams' names and groups
		// (validateAzureLayerOnly); queues and namespaces are the
		// Kubernetes-layer stack's.
		queued = nil
	}
	q, qerrs := queues.Resolve(queued, pools, c.Scheduler, queues.Paths{Teams: key("teams"), Pools: key("gpuPools"), Scheduler: key("scheduler")})
	c.res = &resolution{pools: pools, gpuStack: gs, queues: q}
	if c.Network != nil && c.Cluster != nil {
		c.addressSpaceDefaulted = c.Network.AddressSpace == "" && !c.Network.Existing
		// The node subnet is sized from the resolved pools (networkNeeds).
		c.Network.Default(c.Cluster.Name, c.Cluster.ResourceGroup.Name, c.networkNeeds())
	}
	return append(append(errs, gerrs...), qerrs...)
}

// resolved returns the resolution Validate made, validating first when the
// Config did not come from Parse.
func (c *Config) resolved() (*resolution, error) {
	if c.res == nil {
		if err := c.Validate().ToAggregate(); err != nil {
			return nil, err
		}
	}
	return c.res, nil
}

// Validate checks a defaulted Config: every section's own rules, the
// cross-section rules (quota vs pool capacity, Azure-only settings in
// existing-cluster mode) and the production rules of SPEC C9. It returns
// every problem at once.
func (c *Config) Validate() field.ErrorList {
	var errs field.ErrorList
	if c.Environment != EnvDev && c.Environment != EnvProd {
		errs = append(errs, field.NotSupported(key("environment"), c.Environment, []Environment{EnvDev, EnvProd}))
	}

	switch {
	case c.Cluster == nil && c.ExistingCluster == nil:
		errs = append(errs, field.Required(key("cluster"), "an AKS cluster to create, or aksml:existingCluster to deploy the Kubernetes layer onto a cluster aksml does not create"))
	case c.Cluster != nil && c.ExistingCluster != nil:
		errs = append(errs, field.Invalid(key("existingCluster"), "aksml:cluster and aksml:existingCluster are mutually exclusive; choose a single approach"))
	case c.Cluster != nil:
		errs = append(errs, c.Cluster.Validate(key("cluster"))...)
	default:
		errs = append(errs, c.ExistingCluster.Validate(key("existingCluster"))...)
	}

	errs = append(errs, c.resolve()...)
	errs = append(errs, c.Storage.Validate(key("storage"))...)
	teams := c.tenancyTeams()
	errs = append(errs, tenancy.ValidateTeams(teams, key("teams"))...)
	errs = append(errs, tenancy.ValidateClaimsFit(teams, c.teamClaims(), key("teams"))...)
	errs = append(errs, c.validateTenancyHonest()...)
	errs = append(errs, c.Observability.Validate(key("observability"))...)
	errs = append(errs, c.validateWorkloads()...)

	errs = append(errs, c.validateNames()...)
	if c.ExistingCluster != nil {
		errs = append(errs, c.validateExistingCluster()...)
	}
	if c.Cluster != nil {
		errs = append(errs, c.validateNetwork()...)
	}
	if !c.KubernetesLayerOn() {
		errs = append(errs, c.validateAzureLayerOnly()...)
	}
	if c.IsProd() {
		errs = append(errs, c.validateProd()...)
		errs = append(errs, c.validateProdPromises()...)
	}
	errs = append(errs, c.validateDatasetsClass()...)
	errs = append(errs, c.validatePackAgreement()...)
	errs = append(errs, c.validateIdentities()...)
	errs = append(errs, c.validateTeamStacks()...)
	return errs
}

// driverBlobAccountsAllowed reports whether the Blob CSI driver may back a
// class with a storage account of its own choice (storage.StorageClassesArgs
// PinnedBlobOnly): never in prod (also on an existing cluster), and not on
// an AKS cluster, which is always in a VNet aksml owns (aksml:network).
func (c *Config) driverBlobAccountsAllowed() bool {
	return !c.IsProd() && c.Cluster == nil
}

// validateDatasetsClass refuses a datasets class that the stack does not
// create because the Blob driver would have to create its storage account.
func (c *Config) validateDatasetsClass() field.ErrorList {
	if c.driverBlobAccountsAllowed() {
		return nil
	}
	path := key("storage").Child("volumes").Child("datasetsClass")
	why := "the cluster's nodes are in aksml:network"
	if c.IsProd() {
		why = "this is prod"
	}
	switch c.Storage.Volumes.DatasetsClass {
	case storage.BlobNFSClass:
		if c.Storage.Accounts == nil || !c.Storage.Accounts.BlobNFS {
			return field.ErrorList{field.Invalid(path, "%s needs aksml's Blob NFS account because %s (the Blob CSI driver would otherwise create an account and change the node subnet); set aksml:storage.accounts.blobNfs: true", storage.BlobNFSClass, why)}
		}
	case storage.BlobBlockCacheClass:
		return field.ErrorList{field.Invalid(path, "%s is not created because %s: the Blob CSI driver would create a storage account outside aksml (public unless told otherwise); use %s or %s", storage.BlobBlockCacheClass, why, storage.AzureFilePremiumClass, storage.BlobNFSClass)}
	}
	return nil
}

// validateNames checks names two sections decide: Azure tags on every
// resource, GPU pool names against the pools the cluster declares, and team
// namespaces against the GPU stack's namespace.
func (c *Config) validateNames() field.ErrorList {
	var errs field.ErrorList
	maxTagName := field.MaxTagNameLength
	if c.Storage.Accounts != nil {
		maxTagName = field.MaxStorageTagNameLength
	}
	errs = append(errs, field.ValidateTags(c.Tags, maxTagName, key("tags"))...)
	if c.Cluster != nil {
		taken := c.Cluster.PoolNames()
		for i, p := range c.GPUPools {
			if slices.Contains(taken, p.Name) {
				errs = append(errs, field.Duplicate(key("gpuPools").Index(i).Child("name"), "%q is a pool aksml:cluster already declares (%s); choose another GPU pool name", p.Name, strings.Join(taken, ", ")))
			}
		}
	}
	for i, t := range c.Teams {
		if t.Name != "" && (t.Name == c.GPUStack.Namespace || t.Name == c.GPUStack.DevicePluginNamespace) {
			errs = append(errs, field.Invalid(key("teams").Index(i).Child("name"), "%q is the GPU stack's namespace (aksml:gpuStack); a team name is its namespace, so choose another team name or move the GPU stack", t.Name))
		}
	}
	return errs
}

// validateTenancyHonest refuses team groups the cluster cannot
// authenticate: without Microsoft Entra ID (aksml:cluster.entraID) AKS
// issues only local accounts, so a RoleBinding to an Entra group object ID
// matches nobody and every kubeconfig holder is cluster admin ("Control
// access to cluster resources using Kubernetes RBAC and Microsoft Entra
// identities", https://learn.microsoft.com/azure/aks/azure-ad-rbac: the
// groups are Entra groups, which need the Entra ID integration). Accepting
// them would show a tenancy that does not exist. aksml:tenancyEnforced:
// false declares that, and is refused in prod. Existing clusters are not
// checked: aksml does not know how they authenticate.
func (c *Config) validateTenancyHonest() field.ErrorList {
	var errs field.ErrorList
	if !c.TenancyIsEnforced() {
		if c.IsProd() {
			errs = append(errs, field.Invalid(key("tenancyEnforced"), "must be true in prod: prod teams are security boundaries (Entra groups, RBAC, network isolation); remove the key"))
		}
		return errs
	}
	if c.Cluster == nil || c.Cluster.EntraID != nil {
		return errs
	}
	for i, t := range c.Teams {
		if len(t.Groups) == 0 {
			continue
		}
		errs = append(errs, field.Invalid(key("teams").Index(i).Child("groups"), "names Microsoft Entra groups, but aksml:cluster has no entraID, so the cluster authenticates no Entra user: the groups match nobody and every kubeconfig holder is cluster admin; set aksml:cluster.entraID.adminGroupObjectIDs, or set aksml:tenancyEnforced: false to declare a stack without tenancy (README, Security and tenancy)"))
	}
	return errs
}

// validateExistingCluster rejects settings that need Azure resources when
// aksml does not create the cluster.
func (c *Config) validateExistingCluster() field.ErrorList {
	var errs field.ErrorList
	if c.Storage.Accounts != nil {
		errs = append(errs, field.Invalid(key("storage").Child("accounts"), "storage accounts need aksml:cluster (Azure); remove them in existing-cluster mode, the StorageClasses then provision through the cluster's CSI drivers"))
	}
	errs = append(errs, c.Observability.ValidateExistingCluster(key("observability"))...)
	if c.Network != nil {
		errs = append(errs, field.Invalid(key("network"), "creates or uses a VNet for aksml:cluster; remove it in existing-cluster mode, where the cluster's network is not aksml's"))
	}
	return errs
}

// validateNetwork checks the cluster's network against the rest of the
// stack: the VNet plan, a route from the nodes to every storage account that
// denies public networks, no storage rule naming a subnet the nodes are not
// in, and an API server this stack's Kubernetes layer can reach.
func (c *Config) validateNetwork() field.ErrorList {
	// Default gives every stack with aksml:cluster a network.
	errs := c.Network.Validate(key("network"), c.networkNeeds(), c.networkOverlay())
	errs = append(errs, network.ValidatePodCapacity(c.Cluster.Network.PodCIDR, c.Network.Nodes(c.networkNeeds()), key("cluster").Child("network").Child("podCidr"))...)
	if a := c.Storage.Accounts; a != nil {
		ap := key("storage").Child("accounts")
		if !c.Network.AKSManaged() {
			// With the AKS-generated VNet the route is refused on
			// aksml:network.mode (network.Spec.Validate).
			errs = append(errs, a.ValidateRoute(ap, key("network"), true, true)...)
		}
		for i, id := range a.AllowedSubnetIDs {
			errs = append(errs, field.Invalid(ap.Child("allowedSubnetIds").Index(i), "%q is a subnet the cluster's nodes are not in (they are in aksml:network's node subnet, whose rule aksml adds itself with nodeAccess ServiceEndpoint); remove it", id))
		}
	}
	if c.Cluster.APIServer.Private && c.KubernetesLayerOn() {
		errs = append(errs, field.Invalid(key("cluster").Child("apiServer").Child("private"), "a private API server is reachable only from inside the cluster's VNet, so this stack's Kubernetes layer (which the same pulumi up deploys) cannot reach it; use authorizedIPRanges with your egress ranges, or split the deployment in two stacks: this one with aksml:kubernetesLayer: false, and a Kubernetes-layer stack with aksml:existingCluster.stackReference naming it, run from a machine inside the VNet (README, Network)"))
	}
	return errs
}

// validateAzureLayerOnly rejects what an Azure-layer stack would silently
// not deploy.
func (c *Config) validateAzureLayerOnly() field.ErrorList {
	var errs field.ErrorList
	k := key("kubernetesLayer")
	if c.Cluster == nil {
		errs = append(errs, field.Invalid(k, "false deploys only the Azure layer, which needs aksml:cluster; remove it in existing-cluster mode"))
	}
	identities := make([]tenancy.Team, len(c.Teams))
	for i, t := range c.Teams {
		identities[i] = tenancy.Team{Name: t.Name, Groups: t.Groups}
		bare := teams.Team{Team: queues.Team{Name: t.Name}, Namespace: teams.Namespace{Groups: t.Groups}}
		bare.Default()
		if !reflect.DeepEqual(t, bare) {
			errs = append(errs, field.Invalid(key("teams").Index(i), "an Azure-layer stack (aksml:kubernetesLayer: false) reads only a team's name and groups: it creates the team's managed identity and its groups' Azure roles, and exports them as %s; set the team's quotas, egress, priorities and the rest in the Kubernetes-layer stack's aksml:teams", TeamIdentitiesOutput))
		}
	}
	errs = append(errs, tenancy.ValidateNames(identities, key("teams"))...)
	errs = append(errs, tenancy.ValidateIdentityTeams(identities, key("teams"))...)
	if len(c.Workloads) > 0 {
		errs = append(errs, field.Invalid(key("workloads"), "is deployed by the Kubernetes layer, which aksml:kubernetesLayer: false leaves to the Kubernetes-layer stack; move it there"))
	}
	return errs
}

// validateProd enforces the production baseline of SPEC C9 and C1.5/C1.6.
func (c *Config) validateProd() field.ErrorList {
	var errs field.ErrorList
	if !c.Protected() {
		errs = append(errs, field.Invalid(key("protect"), "must be true in prod: the cluster and checkpoint storage are protected against accidental deletion"))
	}
	if !c.DigestRequired() {
		errs = append(errs, field.Invalid(key("requireImageDigest"), "must be true in prod: images are pinned by digest for reproducible CUDA/cuDNN behaviour (AKS MLOps best practices)"))
	}
	if c.Cluster == nil {
		return errs
	}
	cl := key("cluster")
	if c.Network.AKSManaged() {
		errs = append(errs, field.Forbidden(key("network").Child("mode"), "must not be %s in prod: prod nodes live in a VNet the stack names, which its private storage, private endpoints and peerings need (README, Stacks; guardrail AKSML-NET-003); a prod cluster deployed without aksml:network must be replaced by one deployed with it (README, Network, upgrading a stack deployed without aksml:network)", network.ModeAKSManaged))
	}
	if !c.Cluster.APIServer.Private {
		errs = append(errs, validateProdRanges(c.Cluster.APIServer.AuthorizedIPRanges, cl.Child("apiServer").Child("authorizedIPRanges"))...)
	}
	if !c.Cluster.LocalAccountsDisabled() {
		errs = append(errs, field.Invalid(cl.Child("entraID").Child("disableLocalAccounts"), "prod needs local accounts off and Entra ID RBAC; set entraID.adminGroupObjectIDs and leave disableLocalAccounts unset or true"))
	}
	if !c.Cluster.Defender.Enabled {
		errs = append(errs, field.Invalid(cl.Child("defender").Child("enabled"), "prod needs Defender for Containers; set enabled: true with logAnalyticsWorkspaceId"))
	}
	if c.Cluster.MaintenanceWindow == nil {
		errs = append(errs, field.Required(cl.Child("maintenanceWindow"), "prod needs a planned maintenance window (dayOfWeek, startTime, durationHours)"))
	}
	if c.Storage.Accounts != nil && !c.Storage.Accounts.PrivateNetwork {
		errs = append(errs, field.Invalid(key("storage").Child("accounts").Child("privateNetwork"), "must be true in prod: storage accounts deny public network access"))
	}
	// An Azure Monitor alert without an action group fires into the portal
	// only; nobody is told (Action groups,
	// https://learn.microsoft.com/azure/azure-monitor/alerts/action-groups;
	// prometheusRuleGroups rules[].actions, Microsoft.AlertsManagement
	// PrometheusRuleGroups 2023-03-01).
	if len(c.Observability.ActionGroupIDs) == 0 {
		errs = append(errs, field.Required(key("observability").Child("actionGroupIds"),
			"prod alerts must reach people: list the Azure Monitor action groups (ARM IDs) the rule group notifies, with prometheusRuleGroups: true"))
	}
	return errs
}

// validateProdRanges requires authorized IP ranges in prod, none broader than
// MaxAuthorizedPrefix.
func validateProdRanges(ranges []string, path field.Path) field.ErrorList {
	if len(ranges) == 0 {
		return field.ErrorList{field.Required(path, "prod restricts the public API server to the ranges that administer it and run pulumi up (CI egress, office); list them as CIDRs")}
	}
	var errs field.ErrorList
	for i, r := range ranges {
		p, err := netip.ParsePrefix(r)
		switch {
		case err != nil:
			continue // reported by the cluster's own validation
		case p.Bits() == 0:
			errs = append(errs, field.Invalid(path.Index(i), "%s allows every address on the internet, which is no restriction at all; list the egress ranges of your CI runners and admin networks instead", r))
		case p.Bits() < MaxAuthorizedPrefix:
			errs = append(errs, field.Invalid(path.Index(i), "%s is broader than a /%d; prod lists the specific ranges that administer the cluster, so narrow it", r, MaxAuthorizedPrefix))
		}
	}
	return errs
}

// MaxAuthorizedPrefix is the broadest authorized IP range prod accepts.
const MaxAuthorizedPrefix = 8
