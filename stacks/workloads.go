package stacks

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/cluster"
	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/observability"
	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/storage"
	"github.com/aksml/aksml/components/teams"
	"github.com/aksml/aksml/components/tenancy"
	"github.com/aksml/aksml/components/workloads"
)

// WorkloadKind is the component a declared workload is built with.
type WorkloadKind string

// WorkloadSpec is one entry of `aksml:workloads`: an example workload a
// team runs, built with the matching components/workloads component. Kind,
// Name, Team and (for kinds that run on a GPU pool) Pool are common to the
// kinds; every other field belongs to the kind, which owns its schema
// (workloadKind.config): a field of another kind is an error naming its key.
// The team's namespace, queue, priority class and checkpoint claim, the
// stack's scheduler and the prod digest rule are filled in by the stack.
type WorkloadSpec struct {
	// Kind is the component, one of the registered kinds (SPEC C7; each
	// stacks/kind_<kind>.go registers one: WorkloadKinds). Required.
	Kind WorkloadKind `json:"kind"`
	// Name is the object name (DNS-1123 label). Required.
	Name string `json:"name"`
	// Team runs the workload in its namespace and queue. Required; must be
	// one of aksml:teams.
	Team string `json:"team"`
	// Pool is the GPU pool (aksml:gpuPools name) the workload runs on, for
	// the kinds that take one (see workloadKinds).
	Pool string `json:"pool,omitempty"`
	// ExpectedDuration is how long one run should take, a duration in whole
	// minutes ("4h", "90m"), 5m to 720h: an active run older than this
	// raises WorkloadDurationOverrun (a rule per workload in both alert
	// routes). Default none (no rule). Only kinds whose runs are batch/v1
	// Jobs (workloadKind.started); see components/observability for why
	// the Training Operator and KAITO kinds are not supported.
	ExpectedDuration string `json:"expectedDuration,omitempty"`
	// Config is the kind's own settings, decoded from the same object into
	// the kind's config type (e.g. *pyTorchJobConfig).
	Config any `json:"-"`
}

// ContainerSpec are the fields of every kind that runs aksml's own
// container (all but the KAITO Workspaces).
type ContainerSpec struct {
	// Image is the container image. Required; pinned by digest in prod.
	Image string `json:"image,omitempty"`
	// Command and Args override the image entrypoint and arguments.
	Command []string `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	// Resources are the per-pod cpu, memory and gpus (per replica for
	// PyTorchJob/TFJob); requests == limits.
	Resources workloads.Resources `json:"resources,omitempty"`
	// ShmSize is the memory-backed /dev/shm size. Default 8Gi for GPU
	// training (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops)).
	ShmSize string `json:"shmSize,omitempty"`
	// MetricsPort exposes /metrics for the training PodMonitor. Default 0.
	MetricsPort int `json:"metricsPort,omitempty"`
	// Env are extra environment variables.
	Env map[string]string `json:"env,omitempty"`
	// Priority names a level of aksml:scheduler.priorities: the pods'
	// PriorityClass and, with Kueue, the Workload's WorkloadPriorityClass.
	// Default training-batch (workloads.DefaultPriorityClass), which must
	// then be a defined level.
	Priority string `json:"priority,omitempty"`
}

func (c *ContainerSpec) container() *ContainerSpec { return c }

// container returns the workload's container fields, or nil for a kind
// without them.
func (w WorkloadSpec) container() *ContainerSpec {
	if c, ok := w.Config.(interface{ container() *ContainerSpec }); ok {
		return c.container()
	}
	return nil
}

// UnmarshalJSON decodes the common fields, then the kind's own config from
// the same object. decodeValue has checked the object's shape first
// (checkShape below).
func (w *WorkloadSpec) UnmarshalJSON(b []byte) error {
	type header WorkloadSpec
	var h header
	if err := json.Unmarshal(b, &h); err != nil {
		return err
	}
	*w = WorkloadSpec(h)
	if k := lookupKind(w.Kind); k != nil {
		w.Config = k.config()
		return json.Unmarshal(b, w.Config)
	}
	return nil
}

// checkShape checks one raw workload against its kind's schema: the kind
// first, then every key, so that a field of another kind is an error that
// names its key instead of being dropped.
func (*WorkloadSpec) checkShape(v any, path field.Path) field.ErrorList {
	obj, ok := v.(map[string]any)
	if !ok {
		return field.ErrorList{field.Invalid(path, "must be an object, got %s", describe(v))}
	}
	raw, _ := obj["kind"].(string)
	k := lookupKind(WorkloadKind(raw))
	switch {
	case raw == "":
		return field.ErrorList{field.Required(path.Child("kind"), "the workload kind: "+strings.Join(kindNames(), ", "))}
	case k == nil:
		return field.ErrorList{field.NotSupported(path.Child("kind"), WorkloadKind(raw), WorkloadKinds())}
	}
	fields := k.fields()
	var errs field.ErrorList
	for _, key := range sortedKeys(obj) {
		if ft, known := fields[key]; known {
			errs = append(errs, checkShape(obj[key], ft, path.Child(key))...)
			continue
		}
		if others := kindsWithField(key); len(others) > 0 {
			errs = append(errs, field.Invalid(path.Child(key), "not a field of kind %s; remove it, or use a kind that takes it (%s). Fields of %s are %s", k.kind, strings.Join(others, ", "), k.kind, strings.Join(sortedKeys(fields), ", ")))
			continue
		}
		errs = append(errs, field.Invalid(path.Child(key), "unknown field%s; valid fields of %s are %s", suggest(key, fields), k.kind, strings.Join(sortedKeys(fields), ", ")))
	}
	return append(errs, k.explicitZeros(obj, path)...)
}

// containerZeroDefaults are the keys of ContainerSpec whose zero value the
// workload components replace by a default (workloadKind.zeroDefaults),
// for every kind that runs aksml's container.
var containerZeroDefaults = map[string]string{
	"priority": workloads.DefaultPriorityClass,
	"shmSize":  "the kind's size (" + workloads.DefaultShmSize + " for GPU training); write \"0\" to mount none",
}

// explicitZeros refuses a zero ("" or 0) written at a key the kind's
// component would replace by its default. A workload's kind fields are
// decoded into the kind's config and defaulted when its component is
// built, so Parse's explicitValuesKept does not see them; these are checked
// on the raw object instead.
func (k *workloadKind) explicitZeros(obj map[string]any, path field.Path) field.ErrorList {
	defaults := map[string]string{}
	maps.Copy(defaults, k.zeroDefaults)
	if _, ok := k.config().(interface{ container() *ContainerSpec }); ok {
		maps.Copy(defaults, containerZeroDefaults)
	}
	var errs field.ErrorList
	for _, key := range sortedKeys(defaults) {
		var v any = obj
		p := path
		for _, part := range strings.Split(key, ".") {
			m, _ := v.(map[string]any)
			v, p = m[part], p.Child(part)
		}
		if v == "" || v == 0.0 {
			errs = append(errs, field.Invalid(p, "is written as %s, which aksml does not honour: it would use its default %s instead; remove the key to take the default, or write the value you want", render(v), defaults[key]))
		}
	}
	return errs
}

// workloadKind is one workload kind the stack can build, and every fact
// about it the stack uses: its config schema and the zeros its component
// replaces by defaults, whether it runs on a GPU pool and through the
// team's queue, the operator it needs, how its runs' start is measured, and
// how its component is built and registered. Adding a kind is one file,
// stacks/kind_<kind>.go, that defines its WorkloadKind constant and its
// workloadKind and registers it (registerKind, from an init function, as
// Kueue's integrations call jobframework.RegisterIntegration with their
// IntegrationCallbacks); nothing else lists the kinds.
type workloadKind struct {
	kind WorkloadKind
	// pool says the kind runs on a GPU pool (takes `pool`).
	pool bool
	// unqueued says the kind's pods bypass the team's queue (a serving
	// Deployment the autoscaler sizes, workloads.InferenceServerArgs): the
	// stack gives them no scheduler or queue.
	unqueued bool
	// operator is the operator whose CRD the kind creates, or nil.
	operator *operator
	// validate checks what only the stack knows of a workload of the kind
	// (its pools, its team), beyond its component's validation; nil: none.
	validate func(c *Config, w WorkloadSpec, p field.Path) field.ErrorList
	// started is how a run's start time is measured, which expectedDuration
	// needs; noStartTime refuses expectedDuration.
	started startTime
	// config returns a pointer to a new config of the kind; its JSON fields
	// are the kind's schema beyond kind, name, team and pool.
	config func() any
	// zeroDefaults are the config keys (dotted for nested ones) whose zero
	// value the component replaces by a default, with that default for
	// messages (explicitZeros); the container keys are added for kinds
	// with a ContainerSpec.
	zeroDefaults map[string]string
	// build returns the component's defaulted args; provider may be nil
	// (validation only).
	build func(c *Config, w WorkloadSpec, t workloadTarget) workloadArgs
	// register registers the component.
	register func(ctx *pulumi.Context, name string, a workloadArgs, opts ...pulumi.ResourceOption) error
}

// startTime is how kube-state-metrics reports when a run of a kind
// started.
type startTime int

const (
	// noStartTime: the kind runs no batch/v1 Job, so no metric records
	// when its run started.
	noStartTime startTime = iota
	// jobStartTime: each run is a batch/v1 Job
	// (kube_job_status_start_time).
	jobStartTime
	// cronJobStartTime: each run is a Job of the kind's CronJob.
	cronJobStartTime
)

// workloadKinds are the registered kinds, by name (the order messages list
// them in).
var workloadKinds []*workloadKind

// registerKind registers a kind; each kind file calls it from its init
// function. A kind registered twice is a programming error.
func registerKind(k *workloadKind) {
	if lookupKind(k.kind) != nil {
		panic("stacks: workload kind " + string(k.kind) + " registered twice")
	}
	workloadKinds = append(workloadKinds, k)
	slices.SortFunc(workloadKinds, func(a, b *workloadKind) int { return cmp.Compare(a.kind, b.kind) })
}

// WorkloadKinds lists the valid kinds.
func WorkloadKinds() []WorkloadKind {
	out := make([]WorkloadKind, len(workloadKinds))
	for i, k := range workloadKinds {
		out[i] = k.kind
	}
	return out
}

func kindNames() []string {
	out := make([]string, len(workloadKinds))
	for i, k := range workloadKinds {
		out[i] = string(k.kind)
	}
	return out
}

// lookupKind returns the registered kind, or nil.
func lookupKind(kind WorkloadKind) *workloadKind {
	for _, k := range workloadKinds {
		if k.kind == kind {
			return k
		}
	}
	return nil
}

// fields maps the kind's config keys to their types.
func (k *workloadKind) fields() map[string]reflect.Type {
	out := jsonFields(reflect.TypeOf(k.config()).Elem())
	for name, t := range jsonFields(reflect.TypeOf(WorkloadSpec{})) {
		if name != "pool" || k.pool {
			out[name] = t
		}
	}
	return out
}

// kindsWithField lists the kinds whose schema has key.
func kindsWithField(key string) []string {
	var out []string
	for _, k := range workloadKinds {
		if _, ok := k.fields()[key]; ok {
			out = append(out, string(k.kind))
		}
	}
	return out
}

// register adapts a workloads constructor to workloadKind.register.
func register[A any, R any](newFn func(*pulumi.Context, string, *A, ...pulumi.ResourceOption) (R, error)) func(*pulumi.Context, string, workloadArgs, ...pulumi.ResourceOption) error {
	return func(ctx *pulumi.Context, name string, a workloadArgs, opts ...pulumi.ResourceOption) error {
		_, err := newFn(ctx, name, any(a).(*A), opts...)
		return err
	}
}

// workloadTarget is what the stack fills into every workload.
type workloadTarget struct {
	common workloads.Common
	pool   *gpupool.Resolved
}

// target fills a workload's team, queue and pool from the resolved
// configuration: queues decides the namespace and queue, gpupool the pool.
func (c *Config) target(w WorkloadSpec, ns pulumi.StringInput, provider *kubernetes.Provider) workloadTarget {
	t := workloadTarget{common: workloads.Common{
		Provider:      provider,
		Namespace:     ns,
		Name:          w.Name,
		Team:          w.Team,
		RequireDigest: c.DigestRequired(),
	}}
	if cs := w.container(); cs != nil {
		t.common.Image, t.common.Command, t.common.Args = cs.Image, cs.Command, cs.Args
		t.common.Resources, t.common.ShmSize, t.common.Env = cs.Resources, cs.ShmSize, cs.Env
		t.common.MetricsPort, t.common.PriorityClass = cs.MetricsPort, cs.Priority
	}
	if c.Cluster != nil {
		// components/tenancy federates this service account with the
		// team's managed identity on AKS.
		t.common.ServiceAccountName = tenancy.TrainingServiceAccount
		t.common.WorkloadIdentity = true
	}
	t.common.Scheduler = workloads.SchedulerNone
	if !lookupKind(w.Kind).unqueued {
		system := c.res.queues.Scheduler.System
		t.common.Scheduler = workloads.Scheduler(system)
		t.common.QueueName = queues.QueueName(system, w.Team)
	}
	t.pool = gpupool.Lookup(c.res.pools, w.Pool)
	return t
}

// distributed fills the Distributed settings of a PyTorchJob or TFJob. The
// total GPU count is derived from the replicas, so config cannot disagree
// with itself; the component still checks the GPUs fit one node.
func distributed(t workloadTarget, nccl workloads.NCCL, replicas, def int) workloads.Distributed {
	if replicas == 0 {
		replicas = def
	}
	return workloads.Distributed{Pool: t.pool, TotalGPUs: replicas * t.common.Resources.GPUs, NCCL: nccl}
}

// trainingJobConfig is the config the Training Operator kinds share
// beyond their replica counts.
type trainingJobConfig struct {
	ContainerSpec
	// NCCL overrides the NCCL settings (AKS MLOps best practices defaults:
	// eth0, IB disabled, INFO).
	NCCL workloads.NCCL `json:"nccl,omitempty"`
}

// ncclZeroDefaults are the NCCL keys of the Training Operator kinds whose
// zero the component replaces by a default.
var ncclZeroDefaults = map[string]string{
	"nccl.socketIfname": workloads.DefaultNCCLSocketIfname,
	"nccl.ibDisable":    workloads.DefaultNCCLIBDisable,
	"nccl.debug":        workloads.DefaultNCCLDebug,
}

// trainingOperatorKind is the registry entry of a Kubeflow Training
// Operator kind (PyTorchJob, TFJob): it runs on a GPU pool, needs the
// Training Operator and checkpoints to the team's checkpoint claim.
// replicasKey is the config key of its replica count, whose default is def
// (a zero written there is refused, as the NCCL keys' are). C is the
// kind's config: replicas gives its NCCL settings and replica count; args
// maps it, with the target's Common and the Distributed settings, to the
// component's args, which build defaults.
func trainingOperatorKind[C, A any, P interface {
	*A
	workloadArgs
	Default(name string)
}, R any](kind WorkloadKind, replicasKey string, def int, replicas func(*C) (nccl workloads.NCCL, n int), args func(*C, workloads.Common, workloads.Distributed) P, newFn func(*pulumi.Context, string, *A, ...pulumi.ResourceOption) (R, error)) *workloadKind {
	defaults := map[string]string{replicasKey: fmt.Sprint(def)}
	maps.Copy(defaults, ncclZeroDefaults)
	return &workloadKind{
		kind: kind, pool: true, operator: &trainingOperator,
		config:       func() any { return new(C) },
		zeroDefaults: defaults,
		build: func(_ *Config, w WorkloadSpec, t workloadTarget) workloadArgs {
			cfg := w.Config.(*C)
			t.common.CheckpointPVC = storage.CheckpointsPVCName
			nccl, n := replicas(cfg)
			a := args(cfg, t.common, distributed(t, nccl, n, def))
			a.Default(w.Name)
			return a
		},
		register: register(newFn),
	}
}

// workloadArgs is the built args of one workload, ready to validate or
// register.
type workloadArgs interface {
	Validate(field.Path) field.ErrorList
}

// pulumiName is the name the workload's component is registered under:
// `<team>-<name>`.
func (w WorkloadSpec) pulumiName() string { return w.Team + "-" + w.Name }

// buildWorkload maps a WorkloadSpec to its component's defaulted args;
// provider may be nil (validation only).
func (c *Config) buildWorkload(w WorkloadSpec, ns pulumi.StringInput, provider *kubernetes.Provider) workloadArgs {
	return lookupKind(w.Kind).build(c, w, c.target(w, ns, provider))
}

// validateWorkloads checks each declared workload against the teams and
// pools, then with its component's own validation.
func (c *Config) validateWorkloads() field.ErrorList {
	var errs field.ErrorList
	teams := map[string]bool{}
	for _, t := range c.Teams {
		teams[t.Name] = true
	}
	seen := map[string]int{}
	registered := map[string]int{}
	for i, w := range c.Workloads {
		p := key("workloads").Index(i)
		if lookupKind(w.Kind) == nil || w.Config == nil {
			errs = append(errs, field.NotSupported(p.Child("kind"), w.Kind, WorkloadKinds()))
			continue
		}
		if !teams[w.Team] {
			errs = append(errs, field.Invalid(p.Child("team"), "%q is not one of aksml:teams; declare the team or fix the name", w.Team))
		}
		if w.Pool != "" && !lookupKind(w.Kind).pool {
			errs = append(errs, field.Invalid(p.Child("pool"), "not a field of kind %s, which does not run on a GPU pool; remove it", w.Kind))
			continue
		}
		if w.Pool != "" && gpupool.Lookup(c.res.pools, w.Pool) == nil {
			errs = append(errs, field.Invalid(p.Child("pool"), "%q is not one of aksml:gpuPools", w.Pool))
			continue
		}
		if w.container() != nil {
			errs = append(errs, c.validatePriority(w.Team, w.container().Priority, p.Child("priority"))...)
		}
		id := w.Team + "/" + w.Name
		if j, dup := seen[id]; dup {
			errs = append(errs, field.Duplicate(p.Child("name"), "%q is already used in team %q by %s", w.Name, w.Team, key("workloads").Index(j)))
		} else if j, dup := registered[w.pulumiName()]; dup {
			// Team "a" with "b-c" and team "a-b" with "c": one Pulumi name, which
			// the engine refuses only when the second registers, mid-`up`.
			o := c.Workloads[j]
			errs = append(errs, field.Invalid(p.Child("name"), "%q of team %q is registered as Pulumi resource %q, as %q of team %q is (%s); rename one of the two workloads", w.Name, w.Team, w.pulumiName(), o.Name, o.Team, key("workloads").Index(j)))
		}
		seen[id] = i
		registered[w.pulumiName()] = i
		errs = append(errs, c.validateOperator(w, p)...)
		errs = append(errs, c.validateScaler(w, p)...)
		if v := lookupKind(w.Kind).validate; v != nil {
			errs = append(errs, v(c, w, p)...)
		}
		errs = append(errs, validateExpectedDuration(w, p.Child("expectedDuration"))...)
		args := c.buildWorkload(w, pulumi.String(w.Team), nil)
		errs = append(errs, args.Validate(p)...)
		errs = append(errs, c.validateSchedulable(w, args, p)...)
		errs = append(errs, c.validateDurationReachable(w, args, p.Child("expectedDuration"))...)
	}
	errs = append(errs, c.validateKAITO()...)
	if c.TrainingOperator.Enabled && c.ExistingCluster != nil && c.ExistingCluster.Has(cluster.InstalledTrainingOperator) {
		errs = append(errs, field.Forbidden(key("trainingOperator").Child("enabled"), "aksml:existingCluster.installed says the cluster already runs the Training Operator; two installs would fight over its CRDs and webhook, so set enabled: false or remove trainingOperator from installed"))
	}
	return errs
}

// validatePriority checks that a workload names a defined priority level
// (or leaves it unset while the default level is defined): a Job whose
// WorkloadPriorityClass does not exist stays suspended with nothing but a
// Kueue log line, and a Pod whose PriorityClass does not exist is rejected;
// and that team may use it (queues.Resolved.TeamPriorities), as its
// admission policy (components/tenancy) would refuse it at apply time.
func (c *Config) validatePriority(team, priority string, path field.Path) field.ErrorList {
	levels := queues.PriorityNames(c.Scheduler.Priorities)
	switch {
	case priority == "" && !slices.Contains(levels, workloads.DefaultPriorityClass):
		return field.ErrorList{field.Required(path, fmt.Sprintf("a priority level: the default %q is not in aksml:scheduler.priorities; use one of %s", workloads.DefaultPriorityClass, strings.Join(levels, ", ")))}
	case priority != "" && !slices.Contains(levels, priority):
		return field.ErrorList{field.Invalid(path, "%q is not a level of aksml:scheduler.priorities; use one of %s, or define the level", priority, strings.Join(levels, ", "))}
	}
	if c.res == nil || c.res.queues == nil {
		return nil
	}
	level := cmp.Or(priority, workloads.DefaultPriorityClass)
	if allowed := c.res.queues.TeamPriorities(team); allowed != nil && !slices.Contains(allowed, level) {
		if len(allowed) == 0 {
			return field.ErrorList{field.Forbidden(path, "%q preempts other teams' pods and team %q is not declared serving, so its admission policy refuses it, and every level of aksml:scheduler.priorities preempts; set serving: true on the team in aksml:teams, or add a level with preemptionPolicy: Never", level, team)}
		}
		return field.ErrorList{field.Forbidden(path, "%q preempts other teams' pods and team %q is not declared serving, so its admission policy refuses it; use one of %s, or set serving: true on the team in aksml:teams", level, team, strings.Join(allowed, ", "))}
	}
	return nil
}

// validateOperator checks that the operator whose custom resource the
// workload creates is installed, so that pulumi up never fails after the
// cluster exists for want of a CRD.
func (c *Config) validateOperator(w WorkloadSpec, p field.Path) field.ErrorList {
	op := lookupKind(w.Kind).operator
	if op == nil {
		return nil
	}
	if msg := op.missing(c, w.Kind); msg != "" {
		return field.ErrorList{field.Invalid(p.Child("kind"), "%s", msg)}
	}
	return nil
}

// operator is an operator whose custom resources a workload kind creates.
type operator struct {
	// missing says what to do when the stack provides no such operator,
	// or "" when it does.
	missing func(c *Config, kind WorkloadKind) string
	// installed is what a workload of the kind waits for: aksml's install
	// of the operator, or nil.
	installed func(p *platform) []pulumi.Resource
}

// trainingOperator is the Kubeflow Training Operator (PyTorchJob, TFJob
// CRDs), which aksml installs (aksml:trainingOperator) or an existing
// cluster declares.
var trainingOperator = operator{
	missing: func(c *Config, kind WorkloadKind) string {
		if c.TrainingOperator.Enabled || (c.ExistingCluster != nil && c.ExistingCluster.Has(cluster.InstalledTrainingOperator)) {
			return ""
		}
		return fmt.Sprintf("%s needs the Kubeflow Training Operator's CRDs, which aksml:trainingOperator.enabled is false and nothing else provides; set aksml:trainingOperator.enabled: true (aksml installs v1.8.1), or, on an existing cluster that already runs it, declare aksml:existingCluster.installed: [%s]", kind, cluster.InstalledTrainingOperator)
	},
	installed: func(p *platform) []pulumi.Resource {
		if p.operator == nil {
			return nil
		}
		return p.operator.Resources()
	},
}

// workloads registers the declared example workloads in their teams'
// namespaces, after the namespaces and their quotas (tenancy), the queues
// (Kueue's webhooks and queues) and, for
// PyTorchJob and TFJob, after the Training Operator's CRDs.
func (p *platform) workloads(ctx *pulumi.Context) error {
	for _, w := range p.cfg.Workloads {
		if !p.deploysTeam(w.Team) {
			continue
		}
		ns := p.tenancy.TeamNamespaces[w.Team]
		name := w.pulumiName()
		deps := slices.Concat(p.tenancy.Resources(), p.queues.Resources())
		kind := lookupKind(w.Kind)
		if kind.operator != nil && kind.operator.installed != nil {
			deps = append(deps, kind.operator.installed(p)...)
		}
		if err := kind.register(ctx, name, p.cfg.buildWorkload(w, ns, p.provider), pulumi.DependsOn(deps)); err != nil {
			return err
		}
	}
	return nil
}

// validateSchedulable checks, across components, that the workload can ever
// run: a GPU workload must be admissible for its team on its pool (queues
// decides: CheckAdmission), and a CPU workload on a cluster aksml creates
// needs an untainted pool to land on, whose nodes must fit its requests
// (gpupool.NodeAllocatable of the CPU pool's VM size). The component checks
// the pool itself (fit on one node, gang within the pool's capacity).
func (c *Config) validateSchedulable(w WorkloadSpec, args workloadArgs, p field.Path) field.ErrorList {
	if w.Pool != "" {
		if s, ok := args.(interface{ PeakGPUs() int }); ok {
			return c.checkNamespaceQuota(w, s.PeakGPUs(), p)
		}
		if g, ok := args.(interface{ GangUnits() int }); ok {
			return c.res.queues.CheckAdmission(w.Team, w.Pool, g.GangUnits(), p)
		}
		return nil
	}
	cs := w.container()
	if cs == nil || c.Cluster == nil {
		return nil
	}
	if c.Cluster.CPUPool.Disabled {
		return field.ErrorList{field.Invalid(p, "%s runs on CPU nodes, but aksml:cluster.cpuPool.disabled leaves the cluster without an untainted pool (the system pool is tainted %s, GPU pools %s=%s:%s), so its pods would stay Pending; enable the CPU pool, or run the workload on a GPU pool", w.Kind, cluster.SystemPoolTaint, gpupool.GPUTaintKey, gpupool.GPUTaintValue, gpupool.GPUTaintEffect)}
	}
	vm := c.Cluster.CPUPool.VMSize
	alloc, err := gpupool.NodeAllocatable(vm, 0)
	if err != nil {
		return nil
	}
	return workloads.ValidateAllocatable(cs.Resources, vm, alloc, p.Child("resources"))
}

// validateExpectedDuration checks a workload's expectedDuration: its
// format and range, and that the kind runs as a Job whose start time
// kube-state-metrics exports.
func validateExpectedDuration(w WorkloadSpec, path field.Path) field.ErrorList {
	if w.ExpectedDuration == "" {
		return nil
	}
	if lookupKind(w.Kind).started == noStartTime {
		return field.ErrorList{field.Invalid(path, "%s runs no batch/v1 Job, so no metric records when its run started (kube-state-metrics has no PyTorchJob, TFJob or KAITO Workspace start time, and replaced pods reset theirs); remove expectedDuration, or bound the run with the job's own deadline", w.Kind)}
	}
	_, errs := observability.ParseExpectedDuration(w.ExpectedDuration, path)
	return errs
}

// workloadDurations returns the expected durations of the declared
// workloads, for the WorkloadDurationOverrun rules. Invalid entries were
// rejected by Validate.
func (c *Config) workloadDurations() []observability.WorkloadDuration {
	var out []observability.WorkloadDuration
	for _, w := range c.Workloads {
		if w.ExpectedDuration == "" {
			continue
		}
		d, errs := observability.ParseExpectedDuration(w.ExpectedDuration, key("workloads"))
		if len(errs) > 0 {
			continue
		}
		out = append(out, observability.WorkloadDuration{Namespace: w.Team, Name: w.Name, CronJob: lookupKind(w.Kind).started == cronJobStartTime, Expected: d})
	}
	return out
}

// checkNamespaceQuota checks that a workload that bypasses the queue (an
// InferenceServer) fits, at its peak of units GPU units, in its team
// namespace's ResourceQuota (queues.Resolved.ResourceQuotaHard), which
// would otherwise refuse the replicas the autoscaler adds.
func (c *Config) checkNamespaceQuota(w WorkloadSpec, units int, p field.Path) field.ErrorList {
	pool := gpupool.Lookup(c.res.pools, w.Pool)
	hard := c.res.queues.ResourceQuotaHard(w.Team)
	if pool == nil || hard == nil || units <= 0 {
		return nil
	}
	most, err := strconv.Atoi(hard["requests."+pool.GPUResource])
	if err != nil || units <= most {
		return nil
	}
	i := slices.IndexFunc(c.Teams, func(t teams.Team) bool { return t.Name == w.Team })
	return field.ErrorList{field.Invalid(p.Child("maxReplicas"), "at most %d %s at once (maxReplicas, plus the replica a rolling update starts before stopping an old one while the pool has room for it), but team %q's namespace ResourceQuota allows %d (what its queue can admit): the autoscaler or a rollout would stall; lower maxReplicas, or raise %s.gpuQuota.%s", units, pool.GPUResource, w.Team, most, key("teams").Index(i), w.Pool)}
}

// teamServing reports whether the team is declared serving
// (aksml:teams[].serving).
func (c *Config) teamServing(team string) bool {
	for _, t := range c.Teams {
		if t.Name == team {
			return t.Serving
		}
	}
	return false
}
