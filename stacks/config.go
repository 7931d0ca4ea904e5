package stacks

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/cluster"
	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/gpustack"
	"github.com/aksml/aksml/components/network"
	"github.com/aksml/aksml/components/observability"
	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/storage"
	"github.com/aksml/aksml/components/teams"
	"github.com/aksml/aksml/components/workloads"
)

// Namespace is the config namespace of every aksml key (`aksml:<key>`).
const Namespace = "aksml"

// Environment selects the per-environment defaults and checks.
type Environment string

// Valid environments.
const (
	// EnvDev is a cheap, intermittent environment: GPU pools scale to zero,
	// no Protect, tag-only images allowed.
	EnvDev Environment = "dev"
	// EnvProd is production: Protect on the cluster and checkpoint storage,
	// digest-pinned images, a restricted API server, Entra ID RBAC without
	// local accounts, Defender, a maintenance window, private storage.
	EnvProd Environment = "prod"
)

// Config is one stack's whole configuration, decoded from `aksml:*` keys.
// Each field's `key` tag is its config key; Parse fills it, applies the
// per-environment defaults and validates it.
type Config struct {
	// Stack is the Pulumi stack name.
	Stack string `key:"-"`
	// Environment is dev or prod. Default: prod for a stack whose name
	// starts with "prod", dev otherwise.
	Environment Environment `key:"environment"`
	// Cluster is the AKS cluster (C1), including its resource group and
	// location. Exactly one of Cluster and ExistingCluster is set.
	Cluster *cluster.Spec `key:"cluster"`
	// ExistingCluster points the Kubernetes layer at a cluster aksml does
	// not create; no Azure resource is registered (SPEC C1.8).
	ExistingCluster *cluster.ExistingClusterSpec `key:"existingCluster"`
	// Network is the VNet the cluster's nodes join, created or brought
	// (C1.4). Default with aksml:cluster: a VNet aksml creates
	// (network.DefaultAddressSpace), because a pool without vnetSubnetID
	// lands in a VNet AKS generates, which nothing else can name and the
	// mandatory guardrail AKSML-NET-003 refuses (AgentPool vnetSubnetID, "If
	// this is not specified, a VNET and subnet will be generated and used",
	// azure-specs aks/stable/2024-10-01/managedClusters.json). mode:
	// aks-managed keeps that generated VNet for a cluster an older aksml
	// deployed without aksml:network (dev only; see previousNetwork). Not
	// allowed with aksml:existingCluster.
	Network *network.Spec `key:"network"`
	// GPUPools are the GPU node pools (C2). With ExistingCluster they
	// describe the existing cluster's pools (for flavors, quotas and the
	// GPU stack) and nothing is created in Azure.
	GPUPools []gpupool.Spec `key:"gpuPools"`
	// GPUStack configures the device plugin, DCGM exporter and MIG layouts
	// for pools that AKS does not manage (C4).
	GPUStack gpustack.Spec `key:"gpuStack"`
	// Storage is the storage accounts, classes and per-team volumes (C3).
	Storage storage.Spec `key:"storage"`
	// Teams are the tenants with their quotas (C5).
	Teams []teams.Team `key:"teams"`
	// Scheduler selects Kueue (default), Volcano or none (C5).
	Scheduler queues.SchedulerSpec `key:"scheduler"`
	// Observability configures monitors, alerts and dashboards (C6).
	Observability observability.Spec `key:"observability"`
	// TrainingOperator installs the Kubeflow Training Operator (C7.4).
	TrainingOperator TrainingOperatorSpec `key:"trainingOperator"`
	// KAITO installs the KAITO workspace controller (issue 29).
	KAITO KAITOSpec `key:"kaito"`
	// Workloads are example workloads the stack deploys (C7). Default none.
	Workloads []WorkloadSpec `key:"workloads"`
	// KubernetesLayer deploys the Kubernetes layer (GPU stack, storage
	// classes, queues, monitors, workloads) in this stack. Default true.
	// false makes an Azure-layer stack (cluster, network, pools, storage
	// accounts, rule groups) whose outputs a Kubernetes-layer stack reads
	// with aksml:existingCluster.stackReference: the shape for a private API
	// server, with the second stack run from inside the VNet.
	KubernetesLayer *bool `key:"kubernetesLayer"`
	// Protect marks the cluster and checkpoint storage protected and keeps
	// checkpoint PVCs on delete. Default true in prod, false in dev.
	Protect *bool `key:"protect"`
	// RetainTeamData keeps a team's data when the team leaves the stack
	// (removed or renamed) or the stack is destroyed: its datasets claim
	// (and so the share or container behind it) and its Blob container are
	// registered with RetainOnDelete. Checkpoint claims and team namespaces
	// follow Protect (C3.4). Default: Protect. Set false, `pulumi up`, then
	// remove the team, to delete a team's datasets on purpose (README,
	// Security and tenancy).
	RetainTeamData *bool `key:"retainTeamData"`
	// TenancyEnforced says the teams are security boundaries: a team's
	// aksml:teams[].groups must then name Entra groups the cluster can
	// authenticate, which needs aksml:cluster.entraID. Default true. false
	// declares a stack without tenancy (every kubeconfig holder is cluster
	// admin; teams only split quotas and queues) and is refused in prod.
	TenancyEnforced *bool `key:"tenancyEnforced"`
	// RequireImageDigest rejects workload images not pinned by digest.
	// Default true in prod, false in dev.
	RequireImageDigest *bool `key:"requireImageDigest"`
	// Tags are put on every Azure resource. Default none.
	Tags map[string]string `key:"tags"`
	// TeamStacks assigns teams to aksml team stacks, by the team stack's
	// name: `{teams-ml: [ml, vision]}`. A team listed here is still
	// declared, validated and served by this stack (its identity and group
	// roles, its share of the cohort, the monitors and alerts that list the
	// teams), but its Kubernetes objects (namespace with quota, access and
	// isolation, ClusterQueue and LocalQueues, volumes, workloads) are
	// registered by that team stack (aksml:platformStack naming this one),
	// which keeps them in its own, smaller state. Each team is in at most
	// one team stack. Default none: every team's objects are here.
	TeamStacks map[string][]string `key:"teamStacks"`
	// PlatformStack makes this stack a team stack of the named aksml
	// platform stack (`<organization>/<project>/<stack>`, as a
	// StackReference names it): it reads the platform's whole config from
	// that stack's TeamStackConfigOutput and registers the Kubernetes
	// objects of the teams the platform's aksml:teamStacks assigns to this
	// stack's name, nothing else. No other aksml key may be set with it.
	// Default "": a platform stack.
	PlatformStack string `key:"platformStack"`

	// raw is the config Parse read (`aksml:<key>` to raw value), which a
	// platform stack with TeamStacks exports to its team stacks.
	raw map[string]string `key:"-"`

	// res is the configuration resolved by Validate.
	res *resolution `key:"-"`
	// addressSpaceDefaulted says aksml:network.addressSpace was not written
	// (Validate defaults it), so overlaps are reported on the overlay keys.
	addressSpaceDefaulted bool `key:"-"`
	// networkUnwritten says the stack config has no aksml:network (Default
	// gave the cluster an empty Spec).
	networkUnwritten bool `key:"-"`
	// keda is where InferenceServers with the keda scaler read their
	// metric, set by the deployment once the Azure Monitor workspace and
	// KEDA's identity are registered; nil while validating.
	keda *workloads.KEDASource `key:"-"`
}

// TrainingOperatorSpec is `aksml:trainingOperator`.
type TrainingOperatorSpec struct {
	// Enabled installs the Kubeflow Training Operator (pinned v1.8.1).
	// Default false; PyTorchJob and TFJob workloads need it.
	Enabled bool `json:"enabled,omitempty"`
}

// KAITOSpec is `aksml:kaito`.
type KAITOSpec struct {
	// Install installs the KAITO workspace controller from its Helm chart
	// (pinned workloads.KAITOVersion) in "bring your own GPU nodes" mode,
	// so FineTuningWorkspace workloads run on the stack's own GPU pools.
	// Default false; only on a cluster aksml creates (an existing cluster
	// declares aksml:existingCluster.installed: [kaito] instead).
	Install bool `json:"install,omitempty"`
}

// KubernetesLayerOn reports whether this stack deploys the Kubernetes layer
// (default true).
func (c *Config) KubernetesLayerOn() bool { return c.KubernetesLayer == nil || *c.KubernetesLayer }

// IsProd reports whether the stack is production.
func (c *Config) IsProd() bool { return c.Environment == EnvProd }

// Protected reports whether Protect is in effect.
func (c *Config) Protected() bool { return c.Protect != nil && *c.Protect }

// RetainsTeamData reports whether team data outlives the team's removal
// (aksml:retainTeamData, default Protect).
func (c *Config) RetainsTeamData() bool {
	if c.RetainTeamData != nil {
		return *c.RetainTeamData
	}
	return c.Protected()
}

// TenancyIsEnforced reports whether teams are security boundaries
// (aksml:tenancyEnforced, default true).
func (c *Config) TenancyIsEnforced() bool { return c.TenancyEnforced == nil || *c.TenancyEnforced }

// DigestRequired reports whether images must be pinned by digest.
func (c *Config) DigestRequired() bool { return c.RequireImageDigest != nil && *c.RequireImageDigest }

// keys returns the config key of every Config field, in declaration order.
func keys() []string {
	t := reflect.TypeOf(Config{})
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if k := t.Field(i).Tag.Get("key"); k != "-" {
			out = append(out, k)
		}
	}
	return out
}

// Keys returns every aksml config key, sorted, as `aksml:<key>`.
func Keys() []string {
	var out []string
	for _, k := range keys() {
		out = append(out, Namespace+":"+k)
	}
	sort.Strings(out)
	return out
}

// Parse decodes raw config (keys `aksml:<key>`, values as the Pulumi CLI
// passes them), applies the per-environment defaults and validates the
// result. The error lists every problem at once, each naming its key.
func Parse(stack string, raw map[string]string) (*Config, error) {
	c := &Config{Stack: stack}
	var errs field.ErrorList
	known := map[string]bool{}
	v := reflect.ValueOf(c).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		k := t.Field(i).Tag.Get("key")
		if k == "-" {
			continue
		}
		known[k] = true
		val, ok := raw[Namespace+":"+k]
		if !ok {
			continue
		}
		errs = append(errs, decodeValue(field.NewPath(Namespace+":"+k), val, v.Field(i).Addr().Interface())...)
	}
	for _, k := range sortedKeys(raw) {
		name, isOurs := strings.CutPrefix(k, Namespace+":")
		if isOurs && !known[name] {
			errs = append(errs, field.Invalid(field.NewPath(k), "unknown config key%s; valid keys are %s", suggest(name, known), strings.Join(Keys(), ", ")))
		}
		if ns, rest, ok := strings.Cut(k, ":"); ok && !isOurs && nearNamespace(ns) {
			errs = append(errs, field.Invalid(field.NewPath(k), "is in config namespace %q, which aksml does not read, so this section would be ignored; did you mean %q? Rename the key in Pulumi.<stack>.yaml", ns, Namespace+":"+rest))
		}
	}
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	c.raw = raw
	if c.PlatformStack != "" {
		return c, teamStackKeys(raw).ToAggregate()
	}
	c.Default()
	// Validate first: it defaults aksml:network from the resolved pools,
	// and explicitValuesKept compares what was written with what is used.
	verrs := c.Validate()
	verrs = append(verrs, inertSettings(raw, c)...)
	if err := append(explicitValuesKept(raw, c), verrs...).ToAggregate(); err != nil {
		return nil, err
	}
	return c, nil
}

// nearNamespace reports whether ns is a config namespace within a small
// edit distance of Namespace (akml, aksm, AKSML, aksmI): a mistyped
// namespace whose keys the program would otherwise never read.
func nearNamespace(ns string) bool {
	return ns != Namespace && field.Distance(strings.ToLower(ns), Namespace) <= 2
}

// Load reads the stack's config from ctx and parses it. When the Pulumi
// language host passes the whole config in PULUMI_CONFIG, unknown aksml keys
// (typos) and keys in a mistyped namespace (akml:teams) are reported too.
func Load(ctx *pulumi.Context) (*Config, error) {
	var all map[string]string
	if env := os.Getenv(pulumi.EnvConfig); env != "" {
		_ = json.Unmarshal([]byte(env), &all)
	}
	raw := ownConfig(all)
	for _, k := range keys() {
		if v, ok := ctx.GetConfig(Namespace + ":" + k); ok {
			raw[Namespace+":"+k] = v
		}
	}
	return Parse(ctx.Stack(), raw)
}

// ParseAll parses the program's keys of a whole stack config, every
// namespace's keys as the CLI hands them over (PULUMI_CONFIG), as Load does.
func ParseAll(stack string, all map[string]string) (*Config, error) {
	return Parse(stack, ownConfig(all))
}

// ownConfig keeps the keys Parse reads or reports: those in Namespace and
// in a namespace within two edits of it.
func ownConfig(all map[string]string) map[string]string {
	raw := map[string]string{}
	for k, v := range all {
		if ns, _, ok := strings.Cut(k, ":"); ok && (ns == Namespace || nearNamespace(ns)) {
			raw[k] = v
		}
	}
	return raw
}

// Default applies the per-environment defaults, then every section's own
// defaults, except aksml:network's: its node subnet is sized from the
// resolved GPU pools, so Validate defaults it once they are resolved.
func (c *Config) Default() {
	if c.Environment == "" {
		c.Environment = EnvDev
		if strings.HasPrefix(c.Stack, "prod") {
			c.Environment = EnvProd
		}
	}
	prod := c.IsProd()
	if c.Protect == nil {
		c.Protect = &prod
	}
	if c.RequireImageDigest == nil {
		c.RequireImageDigest = &prod
	}
	if c.Cluster != nil {
		c.Cluster.Default()
		if c.Network == nil {
			// Defaulted further by Validate, once the pools are resolved.
			c.Network = &network.Spec{}
			c.networkUnwritten = true
		}
	}
	for i := range c.GPUPools {
		c.GPUPools[i].DefaultForEnvironment(prod)
	}
	c.GPUStack.Default()
	c.Storage.Default()
	c.Scheduler.Default()
	for i := range c.Teams {
		c.Teams[i].Default()
	}
	c.Observability.Default()
}

// networkNeeds returns what the cluster asks of its network: every pool's
// node ceiling (the system and CPU pools' maxCount, each resolved GPU
// pool's NodeCeiling: count on a Managed pool), the API server's private
// endpoint and the route to storage accounts that deny public networks.
// It reads the GPU pools Validate resolved.
func (c *Config) networkNeeds() network.Needs {
	var n network.Needs
	if c.Cluster != nil {
		n.Pools = append(n.Pools, c.Cluster.SystemPool.MaxCount)
		if !c.Cluster.CPUPool.Disabled {
			n.Pools = append(n.Pools, c.Cluster.CPUPool.MaxCount)
		}
		n.PrivateAPIServer = c.Cluster.APIServer.Private
	}
	if c.res != nil {
		for _, p := range c.res.pools {
			n.Pools = append(n.Pools, p.MaxNodes)
		}
	}
	if a := c.Storage.Accounts; a != nil {
		switch a.Route() {
		case storage.NodeAccessPrivateEndpoint:
			n.StorageRoute = network.RoutePrivateEndpoint
		case storage.NodeAccessServiceEndpoint:
			n.StorageRoute = network.RouteServiceEndpoint
		}
	}
	return n
}

// networkOverlay returns the cluster's overlay ranges with their keys.
func (c *Config) networkOverlay() network.Overlay {
	np := key("cluster").Child("network")
	return network.Overlay{
		PodCIDR: c.Cluster.Network.PodCIDR, ServiceCIDR: c.Cluster.Network.ServiceCIDR,
		PodPath: np.Child("podCidr"), ServicePath: np.Child("serviceCidr"),
		SpaceDefaulted: c.addressSpaceDefaulted,
	}
}
