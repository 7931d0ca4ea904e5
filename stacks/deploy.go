package stacks

import (
	"slices"
	"strings"

	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	corev1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/core/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/cluster"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/gpustack"
	"github.com/aksml/aksml/components/network"
	"github.com/aksml/aksml/components/observability"
	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/storage"
	"github.com/aksml/aksml/components/tenancy"
	"github.com/aksml/aksml/components/workloads"
)

// Run is the Pulumi program: load and validate the stack config, build the
// platform, export its outputs. main.go calls it.
func Run(ctx *pulumi.Context) error {
	outputs, err := Program(ctx)
	if err != nil {
		return err
	}
	for _, name := range sortedKeys(outputs) {
		ctx.Export(name, outputs[name])
	}
	return nil
}

// Program loads the config and deploys it, returning the stack outputs
// without exporting them (internal/synth records them with their secretness).
// An invalid config returns the validation error before any resource is
// registered.
func Program(ctx *pulumi.Context) (map[string]pulumi.Input, error) {
	cfg, err := Load(ctx)
	if err != nil {
		return nil, err
	}
	return Deploy(ctx, cfg)
}

// platform carries what later layers need from earlier ones.
type platform struct {
	cfg      *Config
	res      *resolution
	provider *kubernetes.Provider
	// azureStack is the Azure-layer stack an existing-cluster stack reads
	// (aksml:existingCluster.stackReference), nil otherwise.
	azureStack *pulumi.StackReference
	// teamClientIDs are the team identities' client IDs the Azure-layer
	// stack exports (TeamIdentitiesOutput), read by an existing-cluster
	// stack with a stack reference; nil otherwise.
	teamClientIDs map[string]string
	cluster       *cluster.Cluster
	gpustack      *gpustack.GPUStack
	accounts      *storage.StorageAccounts
	classes       *storage.StorageClasses
	queues        *queues.Queues
	tenancy       *tenancy.Tenancy
	operator      *workloads.TrainingOperator
	kaito         *workloads.KAITO
	// kedaClientID is KEDA's identity's client ID when the stack scales
	// InferenceServers with KEDA, nil otherwise.
	kedaClientID pulumi.StringOutput
	kedaOn       bool
	outputs      map[string]pulumi.Input
	// teamStack is, in a team stack (aksml:platformStack), this stack's
	// name: the platform's aksml:teamStacks entry whose teams it deploys.
	// "" in a platform stack.
	teamStack string
	// previous is the stack's reference to itself (previousRef), nil until
	// registered.
	previous *pulumi.StackReference
}

// Deploy wires the components for a parsed, valid Config: the Azure layer
// (cluster, GPU pools, storage accounts, alert rule groups) unless the stack
// targets an existing cluster, then the Kubernetes layer (GPU stack,
// storage classes, the teams' namespaces with their quota, access and
// isolation, team volumes, queues, monitors, training operator, example
// workloads) through one Kubernetes provider.
func Deploy(ctx *pulumi.Context, cfg *Config) (map[string]pulumi.Input, error) {
	if cfg.PlatformStack != "" {
		return deployTeamStack(ctx, cfg)
	}
	res, err := cfg.resolved()
	if err != nil {
		return nil, err
	}
	p := &platform{cfg: cfg, res: res, outputs: map[string]pulumi.Input{}}
	steps := []func(*pulumi.Context) error{
		p.checkPlacement, p.azure, p.azureMonitor, p.ownership, p.gpuStack, p.storageLayer, p.tenancyLayer, p.queueLayer, p.observability, p.trainingOperator, p.installKAITO, p.platformIsolation, p.workloads,
	}
	if !cfg.KubernetesLayerOn() {
		steps = []func(*pulumi.Context) error{p.azure, p.teamIdentities, p.azureMonitor}
	}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return nil, err
		}
	}
	p.costSummary()
	p.exportTeamStackConfig(ctx)
	return p.outputs, nil
}

// existingStackArgs name aksml:existingCluster and, for a referenced stack
// missing an output, the aksml Azure-layer stack that exports it.
var existingStackArgs = cluster.ExistingStackArgs{
	ConfigPath: key("existingCluster"),
	Producer:   "an aksml Azure-layer stack (" + key("cluster").String() + " with " + key("kubernetesLayer").String() + " false)",
}

// azure builds the cluster, its GPU pools and storage accounts, or the
// provider of an existing cluster.
func (p *platform) azure(ctx *pulumi.Context) error {
	cfg := p.cfg
	if cfg.ExistingCluster != nil {
		prov, ref, err := cluster.ExistingStack(ctx, "existing-cluster", *cfg.ExistingCluster, existingStackArgs)
		if err != nil {
			return err
		}
		p.provider, p.azureStack = prov, ref
		if ref == nil || len(cfg.Teams) == 0 {
			return nil
		}
		// Read before any Kubernetes object is registered, so that a team
		// the Azure-layer stack does not know fails the preview and an
		// `up` registers nothing.
		ids, err := readTeamIdentities(ref, cfg.ExistingCluster.StackReference, cfg.Teams, nil)
		p.teamClientIDs = ids
		return err
	}
	// Read before anything else is registered, so that a network the
	// existing cluster cannot move into fails the preview and an `up`
	// changes nothing.
	prev, err := p.readPreviousDeployment(ctx)
	if err != nil {
		return err
	}
	if err := cfg.validateNetworkContinuity(prev, ctx.Stack()).ToAggregate(); err != nil {
		return err
	}
	// Default gives every stack with aksml:cluster a network; with mode
	// aks-managed the pools stay in the VNet AKS generated (no subnet).
	var net *network.Network
	var nodeSubnet pulumi.StringInput
	mode := network.ModeAKSManaged
	if !cfg.Network.AKSManaged() {
		mode = network.ModeAksml
		net, err = network.NewNetwork(ctx, "network", &network.NetworkArgs{
			Spec:                 *cfg.Network,
			ConfigPath:           key("network"),
			ClusterName:          cfg.Cluster.Name,
			ClusterResourceGroup: cfg.Cluster.ResourceGroup.Name,
			Location:             cfg.Cluster.Location,
			Needs:                cfg.networkNeeds(),
			Overlay:              cfg.networkOverlay(),
			Tags:                 cfg.Tags,
			Protect:              cfg.Protected(),
		})
		if err != nil {
			return err
		}
		nodeSubnet = net.NodeSubnetID
		p.outputs[NodeSubnetIDOutput] = net.NodeSubnetID
	}
	// A plain string, so guardrail AKSML-NET-003 reads it at preview.
	p.outputs[network.ModeOutput] = pulumi.String(mode)
	cl, err := cluster.NewCluster(ctx, cfg.Cluster.Name, &cluster.ClusterArgs{
		Spec:         *cfg.Cluster,
		ConfigPath:   key("cluster"),
		Tags:         cfg.Tags,
		Protect:      cfg.Protected(),
		NodeSubnetID: nodeSubnet,
		// Observability off deploys no data collection rule for the
		// metrics add-on to write to (azureMonitor).
		ManagedPrometheusOff: !cfg.Observability.IsEnabled(),
	})
	if err != nil {
		return err
	}
	if net != nil {
		if _, err := net.GrantNodeSubnet(ctx, cfg.Cluster.Name+"-node-subnet-access", cl.IdentityPrincipalID); err != nil {
			return err
		}
	}
	p.cluster, p.provider = cl, cl.Provider
	p.outputs["clusterName"] = cl.Name
	p.outputs[ClusterResourceIDOutput] = cl.ResourceID
	p.outputs["resourceGroupName"] = cl.ResourceGroupName
	p.outputs["oidcIssuerUrl"] = cl.OIDCIssuerURL
	p.outputs["kubeconfig"] = cl.Kubeconfig
	if cl.RegistryLoginServer != "" {
		p.outputs["registryId"] = cl.RegistryID
		// A plain string, so guardrail AKSML-SEC-003 can compare images
		// with it at preview.
		p.outputs["registryLoginServer"] = pulumi.String(cl.RegistryLoginServer)
	}

	// Always registered, even with no pools: Managed/None pools live in one
	// deployment stack per cluster, and removing the last of them must be a
	// stack update (which deletes the pool), never a stack delete (which
	// would leave it running). See components/gpupool.
	gpu, err := gpupool.NewGPUNodePools(ctx, cfg.Cluster.Name+"-gpupools", &gpupool.GPUNodePoolsArgs{
		Pools:             p.res.pools,
		ResourceGroupName: cl.ResourceGroupName,
		ClusterName:       cl.Name,
		Tags:              cfg.Tags,
		NodeSubnetID:      nodeSubnet,
	}, pulumi.Parent(cl))
	if err != nil {
		return err
	}
	pools := pulumi.Map{}
	for _, spec := range cfg.GPUPools {
		pools[spec.Name] = gpu.Pools[spec.Name].Summary()
	}
	p.outputs["gpuPools"] = pools

	if cfg.Storage.Accounts != nil {
		acc, err := storage.NewStorageAccounts(ctx, "storage", &storage.StorageAccountsArgs{
			ConfigPath:        key("storage"),
			NetworkConfigPath: key("network"),
			ResourceGroupName: cl.ResourceGroupName,
			Location:          pulumi.StringPtr(cfg.Cluster.Location),
			Spec:              *cfg.Storage.Accounts,
			Protect:           cfg.Protected(),
			Tags:              cfg.Tags,
			CSIPrincipalID:    cl.IdentityPrincipalID,
			NodeSubnetID:      nodeSubnet,
			PrivateEndpoints:  net != nil,
		})
		if err != nil {
			return err
		}
		p.accounts = acc
		if net != nil && cfg.Storage.Accounts.Route() == storage.NodeAccessPrivateEndpoint {
			targets := []network.Target{{Name: "files", ResourceID: acc.FilesAccountResourceID, GroupIDs: []string{network.FileGroupID}}}
			if cfg.Storage.Accounts.BlobNFS {
				targets = append(targets, network.Target{Name: "blob", ResourceID: acc.BlobAccountResourceID, GroupIDs: []string{network.BlobGroupID}})
			}
			if err := net.PrivateEndpoints(ctx, "storage", targets); err != nil {
				return err
			}
		}
		p.outputs["filesStorageAccount"] = acc.FilesAccountName
	}
	return nil
}

// gpuStack installs the device plugin, DCGM exporter and MIG layouts for
// the pools AKS does not manage.
func (p *platform) gpuStack(ctx *pulumi.Context) error {
	gs, err := gpustack.NewGPUStack(ctx, "gpustack", &gpustack.GPUStackArgs{
		Provider: p.provider,
		Resolved: p.res.gpuStack,
	})
	p.gpustack = gs
	return err
}

// storageLayer creates the StorageClasses; the team volumes follow
// tenancy, which creates the team namespaces.
func (p *platform) storageLayer(ctx *pulumi.Context) error {
	args := &storage.StorageClassesArgs{Provider: p.provider, ScratchDiskSKU: p.cfg.Storage.ScratchDiskSKU, ConfigPath: key("storage"),
		PinnedBlobOnly: !p.cfg.driverBlobAccountsAllowed()}
	switch {
	case p.accounts != nil:
		args.Accounts = p.accounts.ClassAccounts()
	case p.azureStack != nil:
		// The Azure-layer stack's Azure Files account (Blob NFS stays with
		// the driver's choice: the reference cannot tell whether it exists).
		args.Accounts = &storage.ClassAccounts{
			ResourceGroupName: cluster.RequiredOutput(p.azureStack, cluster.ExistingStackOutputs.ResourceGroupName, existingStackArgs.Producer),
			FilesAccountName:  cluster.RequiredOutput(p.azureStack, cluster.ExistingStackOutputs.FilesStorageAccount, existingStackArgs.Producer),
		}
	}
	classes, err := storage.NewStorageClasses(ctx, "storage-classes", args)
	p.classes = classes
	return err
}

// queueLayer creates the priorities and queues in the team namespaces
// tenancy created, then each team's datasets and checkpoints claims.
func (p *platform) queueLayer(ctx *pulumi.Context) error {
	q, err := queues.NewQueues(ctx, queuesName, &queues.QueuesArgs{
		Resolved: p.res.queues,
		Provider: p.provider,
		// One input per team: a team's LocalQueues wait for its namespace alone.
		Namespaces: p.tenancy.TeamNamespaces,
		// A team stack's platform registers the cluster-wide objects.
		ElsewhereTeams: p.elsewhereTeams(),
		TeamsOnly:      p.teamStack != "",
	})
	if err != nil {
		return err
	}
	p.queues = q
	for _, t := range p.cfg.Teams {
		if !p.deploysTeam(t.Name) {
			continue
		}
		_, err := storage.NewTeamVolumes(ctx, t.Name+"-volumes", &storage.TeamVolumesArgs{
			ConfigPath:        key("storage"),
			Provider:          p.provider,
			Namespace:         p.tenancy.TeamNamespaces[t.Name],
			Spec:              p.cfg.Storage.Volumes,
			RetainCheckpoints: p.cfg.Protected(),
			RetainDatasets:    p.cfg.RetainsTeamData(),
			Classes:           p.classes,
			Accounts:          p.accounts,
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// queuesName is the name of the Queues component. Stacks deployed before
// the team namespaces and quotas moved to tenancy registered them under
// it; tenancy aliases them to it (TenancyArgs.QueuesName).
const queuesName = "queues"

// tenancyLayer creates each team's slice of the cluster
// (components/tenancy): its namespace and ResourceQuota, access, network
// isolation and, on AKS, its workload identity.
func (p *platform) tenancyLayer(ctx *pulumi.Context) error {
	args := &tenancy.TenancyArgs{
		Provider:      p.provider,
		ExcludedCIDRs: p.cfg.clusterCIDRs(),
		Teams:         p.cfg.tenancyTeams(),
		ConfigPath:    key("teams"),
		// Deleting a namespace deletes its claims: protected stacks keep
		// the team namespaces so checkpoint claims survive a destroy.
		RetainNamespaces: p.cfg.Protected(),
		QueuesName:       queuesName,
		ElsewhereTeams:   p.elsewhereTeams(),
	}
	switch {
	case p.cluster != nil:
		args.Azure = p.tenancyAzure()
	case p.teamClientIDs != nil:
		args.IdentityClientIDs = p.teamClientIDs
	}
	t, err := tenancy.NewTenancy(ctx, "tenancy", args)
	if err != nil {
		return err
	}
	p.tenancy = t
	p.outputs["teamNamespaces"] = t.Namespaces
	if args.Azure != nil {
		p.outputs["teamIdentityClientIds"] = t.IdentityClientIDs
		p.exportTeamIdentities(args.ElsewhereTeams, t.IdentityClientIDs)
	}
	return nil
}

// tenancyAzure is the Azure side of tenancy on the cluster this stack
// creates: identities in its resource group trusted by its OIDC issuer, the
// groups' roles through Azure RBAC when the cluster uses Entra ID, and a
// container per team in the Blob account.
func (p *platform) tenancyAzure() *tenancy.AzureArgs {
	cl := p.cfg.Cluster
	authz := tenancy.AuthorizationKubernetesRBAC
	if cl.EntraID != nil {
		authz = tenancy.AuthorizationAzureRBAC
	}
	az := &tenancy.AzureArgs{
		Authorization:      authz,
		ClusterResourceID:  p.cluster.ResourceID,
		ResourceGroupName:  p.cluster.ResourceGroupName,
		Location:           cl.Location,
		OIDCIssuerURL:      p.cluster.OIDCIssuerURL,
		IdentityNamePrefix: cl.Name,
		RetainContainers:   p.cfg.RetainsTeamData(),
		Tags:               p.cfg.Tags,
	}
	if p.accounts != nil && p.cfg.Storage.Accounts.BlobNFS {
		az.BlobAccountName = p.accounts.BlobAccountName
		az.BlobAccountResourceID = p.accounts.BlobAccountResourceID
	}
	return az
}

// teamIdentities is the Azure-layer stack's share of tenancy: each team's
// identity, its groups' roles and its container (tenancy.NewTeamIdentities),
// exported as TeamIdentitiesOutput for the Kubernetes-layer stack, which
// creates the namespaces and annotates each team's training ServiceAccount
// with the client ID.
func (p *platform) teamIdentities(ctx *pulumi.Context) error {
	if len(p.cfg.Teams) == 0 {
		return nil
	}
	teams := make([]tenancy.Team, len(p.cfg.Teams))
	for i, t := range p.cfg.Teams {
		teams[i] = tenancy.Team{Name: t.Name, Groups: t.Groups}
	}
	ids, err := tenancy.NewTeamIdentities(ctx, "team-identities", &tenancy.TeamIdentitiesArgs{
		Teams: teams, ConfigPath: key("teams"), Azure: p.tenancyAzure(),
	})
	if err != nil {
		return err
	}
	export := pulumi.Map{}
	for _, t := range teams {
		export[t.Name] = pulumi.Map{
			"clientId": ids.ClientIDs.MapIndex(pulumi.String(t.Name)),
			"groups":   pulumi.ToStringArray(slices.Clone(t.Groups)),
		}
	}
	p.outputs[TeamIdentitiesOutput] = export
	return nil
}

// exportTeamIdentities exports TeamIdentitiesOutput for the teams of names
// (a platform stack's teams in team stacks), whose identities this stack
// created: each team stack reads its teams' client IDs there. Nothing
// without names.
func (p *platform) exportTeamIdentities(names []string, clientIDs pulumi.StringMapOutput) {
	if len(names) == 0 {
		return
	}
	export := pulumi.Map{}
	for _, t := range p.cfg.Teams {
		if slices.Contains(names, t.Name) {
			export[t.Name] = pulumi.Map{
				"clientId": clientIDs.MapIndex(pulumi.String(t.Name)),
				"groups":   pulumi.ToStringArray(slices.Clone(t.Groups)),
			}
		}
	}
	p.outputs[TeamIdentitiesOutput] = export
}

// clusterCIDRs are the cluster's pod and service ranges, or nil (tenancy's
// AKS defaults) for an existing cluster.
func (c *Config) clusterCIDRs() []string {
	if cl := c.Cluster; cl != nil {
		return []string{cl.Network.PodCIDR, cl.Network.ServiceCIDR}
	}
	return nil
}

// platformIsolation gives each namespace aksml created for a platform
// component (the GPU stack's, the installed scheduler's, the training
// operator's) its own default deny with the allowances the component needs
// (components/tenancy NewPlatformIsolation), so no team reaches them.
func (p *platform) platformIsolation(ctx *pulumi.Context) error {
	var namespaces []tenancy.PlatformNamespace
	if created(p.gpustack.Resources()) {
		namespaces = append(namespaces, tenancy.PlatformNamespace{Name: p.res.gpuStack.Spec.Namespace, DependsOn: p.gpustack.Resources()})
	}
	if created(p.queues.Resources()) {
		ns := queues.VolcanoNamespace
		if p.cfg.Scheduler.Kueue() {
			ns = queues.KueueNamespace
		}
		namespaces = append(namespaces, tenancy.PlatformNamespace{Name: ns, DependsOn: p.queues.Resources()})
	}
	if p.operator != nil {
		namespaces = append(namespaces, tenancy.PlatformNamespace{Name: workloads.TrainingOperatorNamespace, DependsOn: p.operator.Resources()})
	}
	if p.kaito != nil {
		namespaces = append(namespaces, tenancy.PlatformNamespace{Name: workloads.KAITONamespace, DependsOn: p.kaito.Resources()})
	}
	if len(namespaces) == 0 {
		return nil
	}
	_, err := tenancy.NewPlatformIsolation(ctx, "platform-isolation", &tenancy.PlatformIsolationArgs{
		Provider: p.provider, Namespaces: namespaces, ExcludedCIDRs: p.cfg.clusterCIDRs(),
	})
	return err
}

// created reports whether resources include a Namespace: the component
// created its namespace (rather than using an existing one).
func created(resources []pulumi.Resource) bool {
	return slices.ContainsFunc(resources, func(r pulumi.Resource) bool {
		_, ok := r.(*corev1.Namespace)
		return ok
	})
}

// teamNames returns the team names, which are also their namespaces.
func (p *platform) teamNames() []string {
	var out []string
	for _, t := range p.cfg.Teams {
		out = append(out, t.Name)
	}
	return out
}

// azureMonitor creates, on AKS, the Azure Monitor side of managed
// Prometheus (workspace, data collection endpoint, rule and association,
// optional Grafana) and the Prometheus rule groups on that workspace.
func (p *platform) azureMonitor(ctx *pulumi.Context) error {
	if p.cluster == nil {
		return nil
	}
	spec := p.cfg.Observability
	// Both deployment stacks are always registered on AKS, also with
	// observability or the rule groups off (their templates are then
	// empty): removing one would detach, not delete, what it created.
	//
	// Their Azure names carry the cluster name: a stack name is unique per
	// resource group, and with actionOnUnmanage delete a second cluster
	// PUTting the same stack name would delete the first cluster's
	// resources. The aliases keep the Pulumi identity of stacks deployed
	// under the old names ("azure-monitor", "alert-rules"); their new Azure
	// name replaces them create-before-delete: the new stack takes over the
	// same resources, then the old one is deleted, which detaches rather
	// than deletes (components/armdeploy, ../shared/NOTES.md).
	monName, rulesName := stackNames(p.cfg.Cluster.Name)
	monArgs := &observability.AzureMonitorArgs{
		ConfigPath:           key("observability"),
		ResourceGroupName:    p.cluster.ResourceGroupName,
		ClusterName:          p.cluster.Name,
		ClusterResourceID:    p.cluster.ResourceID,
		ClusterLocation:      p.cfg.Cluster.Location,
		DefaultWorkspaceName: defaultWorkspaceName(p.cfg.Cluster.Name),
		Spec:                 spec,
		Tags:                 p.cfg.Tags,
	}
	if e := p.cfg.Cluster.EntraID; e != nil {
		monArgs.GrafanaAdminGroupObjectIDs = e.AdminGroupObjectIDs
	}
	mon, err := observability.NewAzureMonitor(ctx, monName, monArgs, pulumi.Parent(p.cluster), pulumi.Aliases([]pulumi.Alias{{Name: pulumi.String(legacyMonitorName)}}))
	if err != nil {
		return err
	}
	rules, err := observability.NewAlertRules(ctx, rulesName, &observability.AlertRulesArgs{
		ConfigPath:              key("observability"),
		ResourceGroupName:       p.cluster.ResourceGroupName,
		Location:                mon.WorkspaceLocation,
		ClusterName:             p.cluster.Name,
		ClusterResourceID:       p.cluster.ResourceID,
		AzureMonitorWorkspaceID: mon.WorkspaceID,
		Spec:                    spec,
		TeamNamespaces:          p.teamNames(),
		WorkloadDurations:       p.cfg.workloadDurations(),
	}, pulumi.Parent(p.cluster), pulumi.Aliases([]pulumi.Alias{{Name: pulumi.String(legacyAlertRulesName)}}))
	if err != nil {
		return err
	}
	if !spec.IsEnabled() {
		return nil
	}
	if p.cfg.usesKEDA() {
		// KEDA's identity reads this workspace for the InferenceServers'
		// keda scaler (observability.NewKEDAAccess); the Kubernetes layer
		// names it in the platform's ClusterTriggerAuthentication.
		keda, err := observability.NewKEDAAccess(ctx, p.cfg.Cluster.Name+"-keda", &observability.KEDAAccessArgs{
			ResourceGroupName: p.cluster.ResourceGroupName,
			Location:          p.cfg.Cluster.Location,
			OIDCIssuerURL:     p.cluster.OIDCIssuerURL,
			ClusterName:       p.cfg.Cluster.Name,
			WorkspaceID:       mon.WorkspaceID,
			Tags:              p.cfg.Tags,
		}, pulumi.Parent(p.cluster))
		if err != nil {
			return err
		}
		p.kedaClientID, p.kedaOn = keda.ClientID, true
		p.cfg.keda = &workloads.KEDASource{QueryEndpoint: mon.PrometheusQueryEndpoint, TriggerAuthentication: observability.DefaultKEDATriggerAuthentication}
		p.outputs["kedaClientId"] = keda.ClientID
		p.outputs["prometheusQueryEndpoint"] = mon.PrometheusQueryEndpoint
	}
	p.outputs["azureMonitorWorkspaceId"] = mon.WorkspaceID
	if spec.Grafana != nil && spec.Grafana.Enabled {
		p.outputs["grafanaEndpoint"] = mon.GrafanaEndpoint
	}
	if spec.RuleGroupWanted() {
		p.outputs["alertRuleGroupId"] = rules.ResourceID
	}
	return nil
}

// Names of the Azure Monitor components before they carried the cluster
// name, kept as aliases.
const (
	legacyMonitorName    = "azure-monitor"
	legacyAlertRulesName = "alert-rules"
)

// stackNames returns the component names of the Azure Monitor resources
// and of the alert rules of cluster; their deployment stacks are
// `<cluster>-azure-monitor-stack` and `<cluster>-alert-rules-rulegroup`.
func stackNames(cluster string) (monitor, alertRules string) {
	return cluster + "-" + legacyMonitorName, cluster + "-" + legacyAlertRulesName
}

// observability creates the PodMonitors and dashboard on the cluster, and
// the platform's ClusterTriggerAuthentication when InferenceServers scale
// with KEDA.
func (p *platform) observability(ctx *pulumi.Context) error {
	spec := p.cfg.Observability
	if !spec.IsEnabled() {
		return nil
	}
	if p.kedaOn {
		if _, err := observability.NewKEDATriggerAuth(ctx, "keda", &observability.KEDATriggerAuthArgs{
			Provider: p.provider, ClientID: p.kedaClientID,
		}); err != nil {
			return err
		}
	}
	mon, err := observability.NewMonitors(ctx, "observability", &observability.MonitorsArgs{
		ConfigPath:        key("observability"),
		Provider:          p.provider,
		Spec:              spec,
		GPUStacks:         gpupool.Stacks(p.res.pools),
		DCGMExporter:      observability.DCGMExporter(p.res.gpuStack.Exporter()),
		TeamNamespaces:    p.teamNames(),
		WorkloadDurations: p.cfg.workloadDurations(),
		KueueNamespace:    p.cfg.kueueNamespace(),
		// The DCGM PodMonitor goes into gpustack's namespace, the Kueue
		// monitor into Kueue's (queues); the team namespaces (tenancy) must
		// exist for the training monitors' selectors.
		DependsOn: slices.Concat(p.gpustack.Resources(), p.tenancy.Resources(), p.queues.Resources()),
	})
	if err != nil {
		return err
	}
	p.outputs["grafanaDashboard"] = mon.DashboardJSON
	return nil
}

// kueueNamespace is the namespace of the Kueue aksml installs, whose
// metrics the observability layer scrapes, or "" when aksml does not
// install Kueue (Volcano, none, or a Kueue the cluster already runs, whose
// Service labels aksml does not know).
func (c *Config) kueueNamespace() string {
	s := c.Scheduler
	if s.Kueue() && s.InstallKueue != nil && *s.InstallKueue {
		return queues.KueueNamespace
	}
	return ""
}

// trainingOperator installs the Kubeflow Training Operator when enabled.
func (p *platform) trainingOperator(ctx *pulumi.Context) error {
	if !p.cfg.TrainingOperator.Enabled {
		return nil
	}
	op, err := workloads.NewTrainingOperator(ctx, "training-operator", &workloads.TrainingOperatorArgs{Provider: p.provider})
	p.operator = op
	return err
}

// installKAITO installs the KAITO workspace controller when
// aksml:kaito.install is set (validation refuses it on an existing cluster).
func (p *platform) installKAITO(ctx *pulumi.Context) error {
	if !p.cfg.KAITO.Install {
		return nil
	}
	k, err := workloads.NewKAITO(ctx, "kaito", &workloads.KAITOArgs{Provider: p.provider})
	p.kaito = k
	return err
}

// costSummary exports the indicative idle and maximum cost per hour of the
// GPU pools, per pool and in total (gpupool.CostSummary).
func (p *platform) costSummary() {
	p.outputs["costSummary"] = gpupool.CostSummary(p.res.pools)
}

// defaultWorkspaceName is the Azure Monitor workspace aksml creates for a
// cluster: amw-<cluster>, '_' replaced by '-', at most 44 characters.
func defaultWorkspaceName(cluster string) string {
	n := "amw-" + strings.ReplaceAll(cluster, "_", "-")
	if len(n) > 44 {
		n = n[:44]
	}
	return strings.TrimRight(n, "-")
}
