package queues

import (
	"errors"
	"slices"
	"strconv"

	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/apiextensions"
	corev1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/core/v1"
	helmv4 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/helm/v4"
	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
	schedulingv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/scheduling/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/gpupool"
)

// QueuesArgs configures NewQueues.
type QueuesArgs struct {
	// Resolved is the layer resolved once by Resolve: the tenants
	// (`aksml:teams`), the cluster's GPU pools (`aksml:gpuPools`: one Kueue
	// ResourceFlavor each, and the capacity the teams' quota must fit) and
	// the queueing system (`aksml:scheduler`; default Kueue, installed by
	// aksml), with the config keys they were read from for its errors.
	// Required. Its Problems are reported here, before anything is
	// registered; nothing is validated again.
	Resolved *Resolved
	// Provider is the Kubernetes provider of the target cluster (AKS or any
	// other). nil uses the ambient default provider.
	Provider *kubernetes.Provider
	// Namespaces are the team namespaces by team name, from the component
	// that creates them: each team's LocalQueues go there and wait for it.
	// In Go pass components/tenancy Tenancy.TeamNamespaces (one input per
	// team: a team's queues wait for its namespace alone); a map output such
	// as Tenancy.Namespaces also works, but then each LocalQueue depends on
	// every namespace in it. Required with Kueue when there are teams; a team
	// missing from the map gets no LocalQueue (the apply fails on the empty
	// namespace name).
	Namespaces pulumi.StringMapInput
	// ElsewhereTeams are teams whose queue objects (Kueue ClusterQueue and
	// LocalQueues, Volcano Queue) another stack registers: an aksml team
	// stack (`aksml:teamStacks`). They stay in Resolved, so every team's
	// queue is computed from all teams (Volcano weights, the cohort's
	// capacity), and only their registration is skipped. Default none.
	ElsewhereTeams []string
	// TeamsOnly registers the teams' queue objects alone: the cluster-wide
	// objects (PriorityClasses, the scheduler's namespace and chart, the
	// ResourceFlavors, Cohort, admission checks, WorkloadPriorityClasses
	// and the lenders' ClusterQueues) are another stack's, which must have
	// created them first (an aksml team stack's platform stack). Default
	// false.
	TeamsOnly bool
}

// Queues is the scheduler and its queues (C5): PriorityClasses, the
// queueing system (its namespace and chart when aksml installs it) and its
// objects: with Kueue the ResourceFlavors, the teams' ClusterQueues and
// LocalQueues and the lending-only ClusterQueues; with Volcano a Queue per
// team. The team namespaces and their ResourceQuotas are
// components/tenancy's.
type Queues struct {
	pulumi.ResourceState

	// QueueNames maps each team to its cluster-scoped queue: the Kueue
	// ClusterQueue or the Volcano Queue. Empty with system none.
	QueueNames pulumi.StringMapOutput `pulumi:"queueNames"`
	// LocalQueueName is the Kueue LocalQueue in every team namespace
	// (`gpu-queue`), or "" when Kueue is not the system.
	LocalQueueName pulumi.StringOutput `pulumi:"localQueueName"`
	// FlavorNames maps each GPU pool name to its Kueue ResourceFlavor.
	// Empty when Kueue is not the system.
	FlavorNames pulumi.StringMapOutput `pulumi:"flavorNames"`
	// LenderQueueNames maps each lending-only member
	// (aksml:scheduler.lenders) to its ClusterQueue. Empty without lenders.
	LenderQueueNames pulumi.StringMapOutput `pulumi:"lenderQueueNames"`
	// System is the queueing system in use: kueue, volcano or none.
	System pulumi.StringOutput `pulumi:"system"`

	resources []pulumi.Resource
}

// Resources returns the resources Queues registered (PriorityClasses, the
// scheduler's namespace, chart and objects). Give these, not the
// component, to pulumi.DependsOn of what must wait for the queues: the Go
// SDK expands a component dependency to the children whose registration
// has reached the engine so far, which races with the children's own
// registration goroutines (sdk/v3 context.go, getOpts/addChild).
func (c *Queues) Resources() []pulumi.Resource { return c.resources }

// NewQueues builds the scheduling layer on a cluster. Given raw config it
// resolves it first (gpupool.Resolve, then Resolve: teams, pools,
// scheduler, capacity); given args.Resolved it uses that as it is. It
// registers nothing while there is a problem.
func NewQueues(ctx *pulumi.Context, name string, args *QueuesArgs, opts ...pulumi.ResourceOption) (*Queues, error) {
	if args == nil {
		return nil, errors.New("queues: args are required")
	}
	r := args.Resolved
	if r == nil {
		return nil, errors.New("queues: QueuesArgs.Resolved is required; resolve the teams, pools and scheduler with queues.Resolve")
	}
	if err := r.Problems.ToAggregate(); err != nil {
		return nil, err
	}
	if args.Namespaces == nil && r.Scheduler.Kueue() && len(r.Teams) > 0 {
		return nil, errors.New("queues: Namespaces is required for the teams' LocalQueues; pass the team namespaces (components/tenancy Tenancy.Namespaces)")
	}
	teams, pools, sched := r.Teams, r.Pools, r.Scheduler

	c := &Queues{}
	if args.Provider != nil {
		opts = append(opts, pulumi.Providers(args.Provider))
	}
	if err := ctx.RegisterComponentResource(ComponentType, name, c, opts...); err != nil {
		return nil, err
	}
	b := &builder{ctx: ctx, name: name, parent: c, teams: teams, pools: pools, sched: sched, namespaces: args.Namespaces,
		elsewhere: args.ElsewhereTeams, teamsOnly: args.TeamsOnly}
	if err := b.build(); err != nil {
		return nil, err
	}
	c.resources = b.resources

	localQueue := ""
	if sched.Kueue() {
		localQueue = LocalQueueName
	}
	c.QueueNames = b.queueNames.ToStringMapOutput()
	c.FlavorNames = b.flavorNames.ToStringMapOutput()
	c.LenderQueueNames = b.lenderQueues.ToStringMapOutput()
	c.LocalQueueName = pulumi.String(localQueue).ToStringOutput()
	c.System = pulumi.String(string(sched.System)).ToStringOutput()
	return c, ctx.RegisterResourceOutputs(c, pulumi.Map{
		"queueNames":       c.QueueNames,
		"flavorNames":      c.FlavorNames,
		"lenderQueueNames": c.LenderQueueNames,
		"localQueueName":   c.LocalQueueName,
		"system":           c.System,
	})
}

// builder registers the children of one Queues component.
type builder struct {
	ctx    *pulumi.Context
	name   string
	parent *Queues
	teams  []Team
	pools  []gpupool.Resolved
	sched  SchedulerSpec

	// namespaces are the team namespaces by team name (QueuesArgs.Namespaces).
	namespaces pulumi.StringMapInput
	// elsewhere and teamsOnly are QueuesArgs.ElsewhereTeams and TeamsOnly.
	elsewhere    []string
	teamsOnly    bool
	queueNames   pulumi.StringMap
	lenderQueues pulumi.StringMap
	flavorNames  pulumi.StringMap
	// resources are the children registered so far, in order.
	resources []pulumi.Resource
}

// keep records a registered child for Queues.Resources.
func (b *builder) keep(r pulumi.Resource) { b.resources = append(b.resources, r) }

func (b *builder) build() error {
	b.queueNames = pulumi.StringMap{}
	b.lenderQueues = pulumi.StringMap{}
	b.flavorNames = pulumi.StringMap{}

	if !b.teamsOnly {
		if err := b.priorityClasses(); err != nil {
			return err
		}
	}
	switch b.sched.System {
	case SystemKueue:
		return b.kueue()
	case SystemVolcano:
		return b.volcano()
	}
	return nil
}

func teamLabels(t Team) map[string]string {
	return map[string]string{PartOfLabel: PartOfValue, TeamLabel: t.Name}
}

func partOf() pulumi.StringMap { return pulumi.StringMap{PartOfLabel: pulumi.String(PartOfValue)} }

// priorityClasses registers a PriorityClass per priority level
// (aksml:scheduler.priorities; default the AKS MLOps best practices' two).
func (b *builder) priorityClasses() error {
	for _, pc := range b.sched.Priorities {
		args := &schedulingv1.PriorityClassArgs{
			Metadata:         &metav1.ObjectMetaArgs{Name: pulumi.String(pc.Name), Labels: partOf()},
			Value:            pulumi.Int(pc.Value),
			GlobalDefault:    pulumi.Bool(false),
			PreemptionPolicy: pulumi.String(string(pc.PreemptionPolicy)),
		}
		if pc.Description != "" {
			args.Description = pulumi.String(pc.Description)
		}
		class, err := schedulingv1.NewPriorityClass(b.ctx, b.name+"-priority-"+pc.Name, args, pulumi.Parent(b.parent))
		if err != nil {
			return err
		}
		b.keep(class)
	}
	return nil
}

// systemNamespace registers the namespace a scheduler's chart is installed in.
func (b *builder) systemNamespace(role, name string, labels map[string]string) (*corev1.Namespace, error) {
	l := map[string]string{PartOfLabel: PartOfValue}
	for k, v := range labels {
		l[k] = v
	}
	ns, err := corev1.NewNamespace(b.ctx, b.name+"-"+role+"-ns", &corev1.NamespaceArgs{
		Metadata: &metav1.ObjectMetaArgs{Name: pulumi.String(name), Labels: pulumi.ToStringMap(l)},
	}, pulumi.Parent(b.parent))
	if err == nil {
		b.keep(ns)
	}
	return ns, err
}

// customResource registers a Kueue or Volcano object.
func (b *builder) customResource(role, apiVersion, kind string, meta *metav1.ObjectMetaArgs, fields map[string]any, deps []pulumi.Resource) (*apiextensions.CustomResource, error) {
	other := kubernetes.UntypedArgs{}
	for k, v := range fields {
		other[k] = v
	}
	cr, err := apiextensions.NewCustomResource(b.ctx, b.name+"-"+role, &apiextensions.CustomResourceArgs{
		ApiVersion:  pulumi.String(apiVersion),
		Kind:        pulumi.String(kind),
		Metadata:    meta,
		OtherFields: other,
	}, pulumi.Parent(b.parent), pulumi.DependsOn(deps))
	if err == nil {
		b.keep(cr)
	}
	return cr, err
}

// registered reports whether this component registers team's queue
// objects (QueuesArgs.ElsewhereTeams).
func (b *builder) registered(team string) bool { return !slices.Contains(b.elsewhere, team) }

// kueue installs Kueue (unless InstallKueue is false) and registers its
// objects; with TeamsOnly the teams' queues alone.
func (b *builder) kueue() error {
	var objects []pulumi.Resource
	if !b.teamsOnly {
		var err error
		if objects, err = b.kueueClusterObjects(); err != nil {
			return err
		}
	}
	return b.kueueTeams(objects)
}

// kueueClusterObjects installs Kueue (unless InstallKueue is false) and
// registers the cluster-wide objects; it returns what the teams'
// ClusterQueues wait for.
func (b *builder) kueueClusterObjects() ([]pulumi.Resource, error) {
	var deps []pulumi.Resource
	if b.sched.installsKueue() {
		// Kueue's controller meets the restricted profile (non-root,
		// RuntimeDefault seccomp, read-only root, no capabilities).
		ns, err := b.systemNamespace("kueue", KueueNamespace, map[string]string{PodSecurityEnforceLabel: string(PodSecurityRestricted)})
		if err != nil {
			return nil, err
		}
		values, err := kueueValues(b.sched)
		if err != nil {
			return nil, err
		}
		chart, err := helmv4.NewChart(b.ctx, b.name+"-kueue", &helmv4.ChartArgs{
			Chart:     pulumi.String(KueueChart),
			Version:   pulumi.String(KueueVersion),
			Name:      pulumi.String("kueue"),
			Namespace: ns.Metadata.Name(),
			Values:    pulumi.ToMap(values),
		}, pulumi.Parent(b.parent))
		if err != nil {
			return nil, err
		}
		b.keep(chart)
		deps = []pulumi.Resource{chart}
	}

	objects := append([]pulumi.Resource(nil), deps...)
	for _, p := range b.pools {
		flavor := FlavorName(p.Name)
		rf, err := b.customResource("flavor-"+flavor, KueueAPIVersion, "ResourceFlavor",
			&metav1.ObjectMetaArgs{Name: pulumi.String(flavor), Labels: partOf(), Annotations: flavorAnnotations(b.sched)},
			map[string]any{"spec": resourceFlavorSpec(p)}, deps)
		if err != nil {
			return nil, err
		}
		b.flavorNames[p.Name] = rf.Metadata.Name().Elem()
		objects = append(objects, rf)
	}
	cpu, err := b.customResource("flavor-"+CPUFlavorName, KueueAPIVersion, "ResourceFlavor",
		&metav1.ObjectMetaArgs{Name: pulumi.String(CPUFlavorName), Labels: partOf()},
		map[string]any{"spec": cpuFlavorSpec()}, deps)
	if err != nil {
		return nil, err
	}
	cohort, err := b.customResource("cohort", KueueAPIVersion, "Cohort",
		&metav1.ObjectMetaArgs{Name: pulumi.String(b.sched.Cohort), Labels: partOf()},
		map[string]any{"spec": map[string]any{}}, deps)
	if err != nil {
		return nil, err
	}
	objects = append(objects, cpu, cohort)

	// The ProvisioningRequest admission checks (aksml:scheduler.provisioning),
	// one per class in use, each with its ProvisioningRequestConfig.
	for _, c := range b.sched.provisioningClasses() {
		name := provisioningName(c)
		prc, err := b.customResource("prc-"+name, KueueAPIVersion, "ProvisioningRequestConfig",
			&metav1.ObjectMetaArgs{Name: pulumi.String(name), Labels: partOf()},
			map[string]any{"spec": provisioningConfigSpec(c, b.sched, b.pools)}, deps)
		if err != nil {
			return nil, err
		}
		ac, err := b.customResource("ac-"+name, KueueAPIVersion, "AdmissionCheck",
			&metav1.ObjectMetaArgs{Name: pulumi.String(name), Labels: partOf()},
			map[string]any{"spec": admissionCheckSpec(c)}, append(append([]pulumi.Resource(nil), deps...), prc))
		if err != nil {
			return nil, err
		}
		objects = append(objects, prc, ac)
	}

	// A WorkloadPriorityClass per priority level, the queue-side twin of
	// its PriorityClass: same name, value and description (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops):
	// coordinate Kueue workload priority with Kubernetes pod priority).
	for _, w := range b.sched.Priorities {
		fields := map[string]any{"value": w.Value}
		if w.Description != "" {
			fields["description"] = w.Description
		}
		if _, err := b.customResource("wpc-"+w.Name, KueueAPIVersion, "WorkloadPriorityClass",
			&metav1.ObjectMetaArgs{Name: pulumi.String(w.Name), Labels: partOf()}, fields, deps); err != nil {
			return nil, err
		}
	}

	for _, l := range b.sched.Lenders {
		labels := map[string]string{PartOfLabel: PartOfValue, LenderLabel: l.Name}
		cq, err := b.customResource("cq-lender-"+l.Name, KueueAPIVersion, "ClusterQueue",
			&metav1.ObjectMetaArgs{Name: pulumi.String(ClusterQueueName(l.Name)), Labels: pulumi.ToStringMap(labels)},
			map[string]any{"spec": lenderClusterQueueSpec(l, b.pools, b.sched.Cohort)}, objects)
		if err != nil {
			return nil, err
		}
		b.lenderQueues[l.Name] = cq.Metadata.Name().Elem()
	}
	return objects, nil
}

// kueueTeams registers each team's ClusterQueue, waiting for objects,
// and its LocalQueues, except ElsewhereTeams'.
func (b *builder) kueueTeams(objects []pulumi.Resource) error {
	for _, t := range b.teams {
		if !b.registered(t.Name) {
			continue
		}
		cq, err := b.customResource("cq-"+t.Name, KueueAPIVersion, "ClusterQueue",
			&metav1.ObjectMetaArgs{Name: pulumi.String(ClusterQueueName(t.Name)), Labels: pulumi.ToStringMap(teamLabels(t))},
			map[string]any{"spec": clusterQueueSpec(t, b.pools, b.sched)}, objects)
		if err != nil {
			return err
		}
		b.queueNames[t.Name] = cq.Metadata.Name().Elem()
		ns := b.namespaceOf(t.Name)
		if _, err := b.customResource("lq-"+t.Name, KueueAPIVersion, "LocalQueue",
			&metav1.ObjectMetaArgs{Name: pulumi.String(LocalQueueName), Namespace: ns, Labels: pulumi.ToStringMap(teamLabels(t))},
			map[string]any{"spec": localQueueSpec(t)}, []pulumi.Resource{cq}); err != nil {
			return err
		}
		// The `default` LocalQueue: Kueue labels a Job created without a
		// queue name in this namespace with it (LocalQueueDefaulting), so a
		// controller's Job (KAITO's tuning Job) is queued in the team's
		// ClusterQueue instead of suspended for ever by
		// manageJobsWithoutQueueName. Role "dlq-": no other role's prefix.
		if _, err := b.customResource("dlq-"+t.Name, KueueAPIVersion, "LocalQueue",
			&metav1.ObjectMetaArgs{Name: pulumi.String(DefaultLocalQueueName), Namespace: ns, Labels: pulumi.ToStringMap(teamLabels(t))},
			map[string]any{"spec": localQueueSpec(t)}, []pulumi.Resource{cq}); err != nil {
			return err
		}
	}
	return nil
}

// volcano installs Volcano (unless InstallVolcano is false) and registers a
// Queue per team.
func (b *builder) volcano() error {
	var deps []pulumi.Resource
	if b.sched.installsVolcano() && !b.teamsOnly {
		// Volcano's components add capabilities the restricted profile
		// forbids; the namespace is not enforced, only warned and audited.
		ns, err := b.systemNamespace("volcano", VolcanoNamespace, map[string]string{
			PodSecurityWarnLabel:  string(PodSecurityBaseline),
			PodSecurityAuditLabel: string(PodSecurityBaseline),
		})
		if err != nil {
			return err
		}
		chart, err := helmv4.NewChart(b.ctx, b.name+"-volcano", &helmv4.ChartArgs{
			Chart:          pulumi.String(VolcanoChart),
			Version:        pulumi.String(VolcanoVersion),
			RepositoryOpts: &helmv4.RepositoryOptsArgs{Repo: pulumi.String(VolcanoRepo)},
			Name:           pulumi.String("volcano"),
			Namespace:      ns.Metadata.Name(),
			Values:         pulumi.ToMap(volcanoValues(b.sched)),
		}, pulumi.Parent(b.parent))
		if err != nil {
			return err
		}
		b.keep(chart)
		deps = []pulumi.Resource{chart}
	}
	for _, t := range b.teams {
		if !b.registered(t.Name) {
			continue
		}
		q, err := b.customResource("vcqueue-"+t.Name, VolcanoAPIVersion, "Queue",
			&metav1.ObjectMetaArgs{Name: pulumi.String(ClusterQueueName(t.Name)), Labels: pulumi.ToStringMap(teamLabels(t))},
			map[string]any{"spec": volcanoQueueSpec(t, b.teams, b.pools)}, deps)
		if err != nil {
			return err
		}
		b.queueNames[t.Name] = q.Metadata.Name().Elem()
	}
	return nil
}

// flavorAnnotations records a deliberate GPU overcommit on the flavors, so
// that the guardrail on quota vs pool capacity (policy AKSML-QUE-001) can
// tell it from a mistake. No annotation without overcommit.
func flavorAnnotations(s SchedulerSpec) pulumi.StringMapInput {
	if s.OvercommitRatio <= DefaultOvercommitRatio {
		return nil
	}
	return pulumi.StringMap{OvercommitAnnotation: pulumi.String(strconv.FormatFloat(s.OvercommitRatio, 'f', -1, 64))}
}

// namespaceOf is team's namespace from QueuesArgs.Namespaces. A map of one input
// per team (pulumi.StringMap, such as tenancy's TeamNamespaces) gives the team's
// own input, so its LocalQueues depend on its namespace alone; a map output (from
// another language, or Tenancy.Namespaces) can only be indexed, and what is taken
// from it depends on every namespace in it.
func (b *builder) namespaceOf(team string) pulumi.StringInput {
	if m, ok := b.namespaces.(pulumi.StringMap); ok {
		if ns, ok := m[team]; ok {
			return ns
		}
	}
	return b.namespaces.ToStringMapOutput().MapIndex(pulumi.String(team))
}
