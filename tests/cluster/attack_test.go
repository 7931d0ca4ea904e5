package cluster

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/tenancy"
	"github.com/aksml/aksml/components/vocab"
)

// attackStack is the stack the attack suite deploys: prod, the stack whose
// teams are real security boundaries (Entra ID groups, a serving team and
// two training teams, Azure Files classes, the full admission policy and
// quotas).
const attackStack = "prod"

// Teams of attackStack the attacks act as: a training team and the team
// declared `serving: true`.
const (
	attackerTeam = "research"
	servingTeam  = "serving"
)

// attackTimeout bounds each wait on a controller (Kueue, the job,
// ephemeral volume and ResourceQuota controllers, the scheduler).
const attackTimeout = 60 * time.Second

// attackFixture is a cluster to act on as team members (the attack suite's
// runs attackStack; TestDocumentExamples' also dev): a whole stack applied
// but its example workloads (its Roles and RoleBindings, ValidatingAdmissionPolicies and
// bindings, ResourceQuotas, LimitRanges, PriorityClasses, StorageClasses,
// NetworkPolicies, Kueue flavors and queues), with simulated nodes of its
// pools, the real kube-scheduler, and Kueue running with the configuration
// the stacks install.
type attackFixture struct {
	env    *Env
	ctx    context.Context
	groups map[string]string
	pools  []NodePool
	// applied are the stack's objects applied, in apply order.
	applied []stackObject
	n       int
}

// TestAttack acts as a member of one team of the prod stack (impersonation
// of the user and the team's Entra group, as AKS presents an Entra ID
// user; the API server runs the RBAC authorizer) and tries each way out of
// the team's slice of the cluster that issue 25 lists. Each subtest is one
// threat and asserts the attempt is refused with its reason (Forbidden and
// the admission rule, RBAC verb or quota named), beside the compliant case
// that must still work: the member's normal Jobs are admitted by Kueue and
// run on the simulated nodes. The subtests share one deployment of the
// stack, removed again at the end so the next test starts clean.
func TestAttack(t *testing.T) {
	env := testEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	f := newAttackFixture(ctx, t, env)

	t.Run("MemberJobAdmittedAndRuns", f.memberJobAdmittedAndRuns)
	t.Run("StorageKeySecretUnreachable", f.storageKeySecretUnreachable)
	t.Run("SystemPriorityClassRefused", f.systemPriorityClassRefused)
	t.Run("InferenceCriticalOnlyForServingTeam", f.inferenceCriticalOnlyForServingTeam)
	t.Run("KueuePriorityLabelOutsideTeamListRefused", f.kueuePriorityLabelRefused)
	t.Run("NodeNameRefused", f.nodeNameRefused)
	t.Run("SystemPoolTolerationRefused", f.systemPoolTolerationRefused)
	t.Run("GPUTolerationWithoutGPURequestRefused", f.gpuTolerationWithoutGPURefused)
	t.Run("InlineStorageVolumeRefused", f.inlineStorageVolumeRefused)
	t.Run("GenericEphemeralVolumeBoundedByQuota", f.ephemeralVolumeBoundedByQuota)
	t.Run("JobWithoutQueueLabelNeverRunsUnmanaged", f.jobWithoutQueueLabelManaged)
	t.Run("QuotaBoundsComputeStorageAndObjectCounts", f.quotaBounds)
	t.Run("OtherNamespacesRefused", f.otherNamespacesRefused)
	t.Run("TenancyObjectsUnchangeable", f.tenancyObjectsUnchangeable)
	t.Run("RBACEscalationRefused", f.rbacEscalationRefused)
	t.Run("LocalQueueToOtherTeamsClusterQueueRefused", f.foreignClusterQueueRefused)
	t.Run("PodSecurityRestrictedRefused", f.podSecurityRefused)
	t.Run("ExecAttachPortForwardRefused", f.execRefused)
}

// newAttackFixture starts the node simulation and deploys attackStack.
func newAttackFixture(ctx context.Context, t *testing.T, env *Env) *attackFixture {
	require.NoError(t, env.StartNodeSimulation(ctx), "logs in %s", env.Dir)
	t.Cleanup(env.StopNodeSimulation)
	return deployTeamStack(ctx, t, env, attackStack, attackerTeam, servingTeam)
}

// deployTeamStack applies every object of stack but its example workloads,
// creates the nodes of its pools (the node simulation must be running),
// binds claims as the Azure CSI provisioners would, waits for the teams'
// quotas to be counted, and registers the clean-up with t. teams are the
// teams the caller acts as: each must have an Entra group.
func deployTeamStack(ctx context.Context, t *testing.T, env *Env, stack string, teams ...string) *attackFixture {
	f := &attackFixture{env: env, ctx: ctx, groups: map[string]string{}}
	s := desiredState(t, stack)
	pools, err := StackNodePools(s, parsedConfig(t, stack))
	require.NoError(t, err)
	f.pools = pools
	t.Cleanup(func() { deleteNodes(t, env) })
	require.NoError(t, env.CreateNodes(ctx, pools))
	pctx, pcancel := context.WithCancel(ctx)
	provisioned := make(chan error, 1)
	go func() { provisioned <- RunVolumeProvisioner(pctx, env.Client, 200*time.Millisecond) }()
	t.Cleanup(func() {
		pcancel()
		assert.NoError(t, <-provisioned)
	})

	objs, _, err := stackObjects(s)
	require.NoError(t, err)
	objs, err = applyOrder(s, objs, env.Client.RESTMapper())
	require.NoError(t, err)
	t.Cleanup(func() {
		dctx, dcancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer dcancel()
		require.NoError(t, deleteObjects(dctx, env.Client, f.applied), "clean up stack %s", stack)
	})
	for _, o := range objs {
		if isExampleWorkload(o) {
			continue
		}
		require.NoError(t, env.Apply(ctx, o.obj.DeepCopy()), "apply %s", o)
		f.applied = append(f.applied, o)
		if o.obj.GetKind() == "Role" && o.obj.GetName() == tenancy.MemberRoleName {
			f.groups[o.obj.GetNamespace()] = strings.Split(o.obj.GetAnnotations()[tenancy.GroupsAnnotation], ",")[0]
		}
	}
	for _, team := range teams {
		require.NotEmpty(t, f.groups[team], "stack %s gives team %s an Entra group", stack, team)
	}

	// The quota admission plugin counts against status.used, which the
	// ResourceQuota controller fills in first.
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		for _, team := range teams {
			q := &corev1.ResourceQuota{}
			if assert.NoError(ct, env.Client.Get(ctx, types.NamespacedName{Namespace: team, Name: tenancy.TeamQuotaName}, q)) {
				assert.NotEmpty(ct, q.Status.Used, "quota %s/%s has no usage yet", team, q.Name)
			}
		}
	}, attackTimeout, scenarioPoll)

	// The API server enforces a ValidatingAdmissionPolicy only once its
	// informers have seen the policy and its binding; until then a request the
	// policy refuses is admitted (a scenario that ran within a second of the
	// apply saw a Workspace on another team's pool accepted). Wait until each
	// team's policy refuses a dry-run Pod pinned to a node (RuleNodeName); the
	// Pod meets Pod Security's restricted level, which is checked first.
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		for _, team := range teams {
			probe := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Namespace: team, Name: "admission-probe"},
				Spec: corev1.PodSpec{
					NodeName: "admission-probe",
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   ptr.To(true),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []corev1.Container{{Name: "probe", Image: "busybox:1.36", SecurityContext: &corev1.SecurityContext{
						AllowPrivilegeEscalation: ptr.To(false),
						Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
					}}},
				},
			}
			err := env.Client.Create(ctx, probe, client.DryRunAll)
			if assert.Error(ct, err, "team %s: a Pod pinned to a node was admitted; its admission policy is not enforced yet", team) {
				assert.Contains(ct, err.Error(), "ValidatingAdmissionPolicy '"+tenancy.AdmissionPolicyName(team)+"'", "team %s: refused by something else", team)
			}
		}
	}, attackTimeout, scenarioPoll)

	// The shared environment runs Kueue with the dev stack's configuration
	// (DeployedKueueStack); the settings that decide whether a Job without a
	// queue label runs must be the same in the stack deployed here.
	cfg, _, ok, err := StackKueueConfig(env.Scheme, stack)
	require.NoError(t, err)
	require.True(t, ok, "stack %s installs Kueue", stack)
	require.Equal(t, cfg.ManageJobsWithoutQueueName, env.KueueConfig.ManageJobsWithoutQueueName)
	require.Equal(t, cfg.ManagedJobsNamespaceSelector, env.KueueConfig.ManagedJobsNamespaceSelector)
	require.True(t, env.KueueConfig.ManageJobsWithoutQueueName, "stack %s: Kueue manages Jobs without the queue label", stack)
	return f
}

// member is a client acting as a member of team's Entra group.
func (f *attackFixture) member(t *testing.T, team string) client.Client {
	return impersonate(t, f.env, "member@"+team+".example.com", f.groups[team])
}

// name returns a new object name starting with prefix.
func (f *attackFixture) name(prefix string) string {
	f.n++
	return fmt.Sprintf("%s-%d", prefix, f.n)
}

// job is a restricted-compliant Job of team on its queue (trainingJob)
// asking for a little cpu and memory, changed by mutate.
func (f *attackFixture) job(team, prefix string, mutate func(*batchv1.Job)) *batchv1.Job {
	j := trainingJob(team, f.name(prefix))
	j.Spec.Template.Spec.Containers[0].Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi"),
	}}
	if mutate != nil {
		mutate(j)
	}
	return j
}

// policyReason is what a refusal by team's admission policy for rule
// reads.
func policyReason(team, rule string) []string {
	return []string{"ValidatingAdmissionPolicy '" + tenancy.AdmissionPolicyName(team) + "'", "aksml tenancy (" + rule + ")"}
}

// requireRefused asserts err is a Forbidden refusal whose message holds
// every reason.
func requireRefused(t *testing.T, err error, what string, reasons ...string) {
	t.Helper()
	require.Error(t, err, "%s must be refused", what)
	assert.True(t, apierrors.IsForbidden(err), "%s: want Forbidden, got %v", what, err)
	for _, r := range reasons {
		assert.Contains(t, err.Error(), r, "%s: the refusal names its reason", what)
	}
}

// rbacReason is the RBAC authorizer's refusal of verb on resource in
// namespace ns ("" for cluster-scoped resources).
func rbacReason(verb, resource, group, ns string) string {
	msg := fmt.Sprintf("cannot %s resource %q in API group %q", verb, resource, group)
	if ns != "" {
		msg += fmt.Sprintf(" in the namespace %q", ns)
	}
	return msg
}

func (f *attackFixture) memberJobAdmittedAndRuns(t *testing.T) {
	m := f.member(t, attackerTeam)
	cpuPool, gpuPool := "", ""
	for _, p := range f.pools {
		switch {
		case p.Mode == "User" && !p.GPU && cpuPool == "":
			cpuPool = p.Name
		case p.GPU && !p.Spot && gpuPool == "" && gpuNominal(t, f, attackerTeam, p.Name):
			gpuPool = p.Name
		}
	}
	require.NotEmpty(t, cpuPool, "stack %s has a CPU pool", attackStack)
	require.NotEmpty(t, gpuPool, "team %s has quota on a Regular GPU pool", attackerTeam)

	cpuJob := f.job(attackerTeam, "cpu", nil)
	gpuJob := f.job(attackerTeam, "gpu", func(j *batchv1.Job) {
		spec := &j.Spec.Template.Spec
		spec.Containers[0].Resources.Limits = corev1.ResourceList{vocab.GPUResource: resource.MustParse("1")}
		spec.Tolerations = []corev1.Toleration{{Key: gpupool.GPUTaintKey, Operator: corev1.TolerationOpEqual, Value: gpupool.GPUTaintValue, Effect: corev1.TaintEffectNoSchedule}}
	})
	for _, c := range []struct {
		job  *batchv1.Job
		pool string
	}{{cpuJob, cpuPool}, {gpuJob, gpuPool}} {
		require.NoError(t, m.Create(f.ctx, c.job), "a %s member submits a Job to its queue", attackerTeam)
		f.requireRunsOn(t, c.job, c.pool)
		require.NoError(t, m.Delete(f.ctx, c.job, client.PropagationPolicy(metav1.DeletePropagationBackground)), "and deletes it")
	}
}

// gpuNominal reports whether team has GPU quota on pool's flavor.
func gpuNominal(t *testing.T, f *attackFixture, team, pool string) bool {
	cq := &kueue.ClusterQueue{}
	require.NoError(t, f.env.Client.Get(f.ctx, types.NamespacedName{Name: team + "-gpu"}, cq))
	for _, rg := range cq.Spec.ResourceGroups {
		for _, fl := range rg.Flavors {
			if strings.HasSuffix(string(fl.Name), "-"+pool) {
				return true
			}
		}
	}
	return false
}

// requireRunsOn waits until Kueue admits job and its pod runs on a node of
// pool.
func (f *attackFixture) requireRunsOn(t *testing.T, job *batchv1.Job, pool string) {
	t.Helper()
	var pod corev1.Pod
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		wl := workloadFor(f.ctx, ct, f.env.Client, job)
		if !assert.NotNil(ct, wl, "no Workload for %s yet", job.Name) {
			return
		}
		assert.True(ct, apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadAdmitted), "%s not admitted: %v", job.Name, wl.Status.Conditions)
		pods := &corev1.PodList{}
		require.NoError(ct, f.env.Client.List(f.ctx, pods, client.InNamespace(job.Namespace), client.MatchingLabels{batchv1.JobNameLabel: job.Name}))
		if assert.Len(ct, pods.Items, 1) {
			pod = pods.Items[0]
			assert.Equal(ct, corev1.PodRunning, pod.Status.Phase, "pod %s: %s", pod.Name, conditionMessage(&pod))
		}
	}, attackTimeout, scenarioPoll, "kube-scheduler log:\n%s", f.env.LogTail("kube-scheduler.log", 20))
	got, err := nodePoolOf(f.ctx, f.env, &pod)
	require.NoError(t, err)
	assert.Equal(t, pool, got, "%s runs on pool %s", job.Name, pool)
	t.Logf("%s/%s: admitted by Kueue, pod Running on node %s (pool %s)", job.Namespace, job.Name, pod.Spec.NodeName, got)
}

func (f *attackFixture) storageKeySecretUnreachable(t *testing.T) {
	m := f.member(t, attackerTeam)
	// The Azure Files CSI driver keeps each account's key in the class's
	// secretNamespace, never in a claim's (team) namespace.
	classes := &storagev1.StorageClassList{}
	require.NoError(t, f.env.Client.List(f.ctx, classes))
	files := 0
	for _, c := range classes.Items {
		if c.Provisioner == "file.csi.azure.com" {
			files++
			assert.Equal(t, tenancy.SystemNamespace, c.Parameters["secretNamespace"], "class %s keeps the storage key in kube-system", c.Name)
		}
	}
	require.NotZero(t, files, "stack %s has Azure Files classes", attackStack)

	for _, ns := range []string{attackerTeam, tenancy.SystemNamespace} {
		err := m.List(f.ctx, &corev1.SecretList{}, client.InNamespace(ns))
		requireRefused(t, err, "listing Secrets in "+ns, rbacReason("list", "secrets", "", ns))
		err = m.Get(f.ctx, types.NamespacedName{Namespace: ns, Name: "azure-storage-account-aksmlprodfiles-secret"}, &corev1.Secret{})
		requireRefused(t, err, "reading a storage key Secret in "+ns, rbacReason("get", "secrets", "", ns))
	}

	key := tenancy.StorageKeySecretPrefix + "aksmlprodfiles" + tenancy.StorageKeySecretSuffix
	for what, mutate := range map[string]func(*corev1.PodSpec){
		"a secret volume": func(s *corev1.PodSpec) {
			s.Volumes = []corev1.Volume{{Name: "key", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: key}}}}
		},
		"a projected volume": func(s *corev1.PodSpec) {
			s.Volumes = []corev1.Volume{{Name: "key", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: key}}},
			}}}}}
		},
		"an env secretKeyRef": func(s *corev1.PodSpec) {
			s.Containers[0].Env = []corev1.EnvVar{{Name: "KEY", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: key}, Key: "azurestorageaccountkey",
			}}}}
		},
		"an envFrom of an init container": func(s *corev1.PodSpec) {
			init := *s.Containers[0].DeepCopy()
			init.Name = "fetch"
			init.EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: key}}}}
			s.InitContainers = []corev1.Container{init}
		},
	} {
		job := f.job(attackerTeam, "key", func(j *batchv1.Job) { mutate(&j.Spec.Template.Spec) })
		requireRefused(t, m.Create(f.ctx, job, client.DryRunAll), "mounting the storage key through "+what, policyReason(attackerTeam, tenancy.RuleStorageKey)...)
	}
	ok := f.job(attackerTeam, "own-secret", func(j *batchv1.Job) {
		j.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "cfg", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "hf-token"}}}}
	})
	assert.NoError(t, m.Create(f.ctx, ok, client.DryRunAll), "a Secret of another name is the team's own and may be mounted")
}

func (f *attackFixture) systemPriorityClassRefused(t *testing.T) {
	m := f.member(t, attackerTeam)
	for _, pc := range []string{"system-node-critical", "system-cluster-critical"} {
		job := f.job(attackerTeam, "sys", func(j *batchv1.Job) { j.Spec.Template.Spec.PriorityClassName = pc })
		requireRefused(t, m.Create(f.ctx, job, client.DryRunAll), "a Job at "+pc, policyReason(attackerTeam, tenancy.RulePriorityClass)...)
		cron := cronJobOf(job)
		requireRefused(t, m.Create(f.ctx, cron, client.DryRunAll), "a CronJob at "+pc, policyReason(attackerTeam, tenancy.RulePriorityClass)...)
		// The serving team may preempt training, never the platform.
		sjob := f.job(servingTeam, "sys", func(j *batchv1.Job) { j.Spec.Template.Spec.PriorityClassName = pc })
		requireRefused(t, f.member(t, servingTeam).Create(f.ctx, sjob, client.DryRunAll), "a serving Job at "+pc, policyReason(servingTeam, tenancy.RulePriorityClass)...)
	}
	job := f.job(attackerTeam, "batch", func(j *batchv1.Job) { j.Spec.Template.Spec.PriorityClassName = "training-batch" })
	assert.NoError(t, m.Create(f.ctx, job, client.DryRunAll), "training-batch is the team's own level")
}

// cronJobOf wraps job's template in a suspended CronJob.
func cronJobOf(job *batchv1.Job) *batchv1.CronJob {
	return &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Namespace: job.Namespace, Name: job.Name + "-cron"},
		Spec: batchv1.CronJobSpec{
			Schedule: "0 2 * * *", Suspend: ptr.To(true),
			JobTemplate: batchv1.JobTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: job.Labels}, Spec: *job.Spec.DeepCopy()},
		},
	}
}

func (f *attackFixture) inferenceCriticalOnlyForServingTeam(t *testing.T) {
	const critical = "inference-critical"
	pcJob := func(team string) *batchv1.Job {
		return f.job(team, "critical", func(j *batchv1.Job) { j.Spec.Template.Spec.PriorityClassName = critical })
	}
	labelJob := func(team string) *batchv1.Job {
		return f.job(team, "critical", func(j *batchv1.Job) { j.Labels[vocab.WorkloadPriorityClassLabel] = critical })
	}
	m := f.member(t, attackerTeam)
	requireRefused(t, m.Create(f.ctx, pcJob(attackerTeam), client.DryRunAll), "a training team's pods at "+critical, policyReason(attackerTeam, tenancy.RulePriorityClass)...)
	requireRefused(t, m.Create(f.ctx, labelJob(attackerTeam), client.DryRunAll), "a training team's workload at "+critical, policyReason(attackerTeam, tenancy.RuleKueuePriority)...)
	s := f.member(t, servingTeam)
	assert.NoError(t, s.Create(f.ctx, pcJob(servingTeam), client.DryRunAll), "the serving team's pods may use %s", critical)
	assert.NoError(t, s.Create(f.ctx, labelJob(servingTeam), client.DryRunAll), "the serving team's workloads may use %s", critical)
}

func (f *attackFixture) kueuePriorityLabelRefused(t *testing.T) {
	m := f.member(t, attackerTeam)
	for _, level := range []string{"system-node-critical", "made-up-level"} {
		job := f.job(attackerTeam, "label", func(j *batchv1.Job) { j.Labels[vocab.WorkloadPriorityClassLabel] = level })
		requireRefused(t, m.Create(f.ctx, job, client.DryRunAll), "the Kueue priority label "+level, policyReason(attackerTeam, tenancy.RuleKueuePriority)...)
		// A CronJob carries it on its Job template.
		cron := cronJobOf(f.job(attackerTeam, "label", nil))
		cron.Spec.JobTemplate.Labels = map[string]string{vocab.QueueNameLabel: vocab.LocalQueueName, vocab.WorkloadPriorityClassLabel: level}
		requireRefused(t, m.Create(f.ctx, cron, client.DryRunAll), "a CronJob's Job template labelled "+level, policyReason(attackerTeam, tenancy.RuleKueuePriority)...)
	}
	job := f.job(attackerTeam, "label", func(j *batchv1.Job) { j.Labels[vocab.WorkloadPriorityClassLabel] = "training-batch" })
	assert.NoError(t, m.Create(f.ctx, job, client.DryRunAll), "training-batch is on the team's list")
}

func (f *attackFixture) nodeNameRefused(t *testing.T) {
	m := f.member(t, attackerTeam)
	system := ""
	for _, p := range f.pools {
		if p.Mode == "System" {
			system = p.NodeName(0)
		}
	}
	require.NotEmpty(t, system)
	job := f.job(attackerTeam, "pinned", func(j *batchv1.Job) { j.Spec.Template.Spec.NodeName = system })
	requireRefused(t, m.Create(f.ctx, job, client.DryRunAll), "a Job pinned to system node "+system, policyReason(attackerTeam, tenancy.RuleNodeName)...)
	requireRefused(t, m.Create(f.ctx, cronJobOf(job), client.DryRunAll), "a CronJob pinned to a node", policyReason(attackerTeam, tenancy.RuleNodeName)...)
}

func (f *attackFixture) systemPoolTolerationRefused(t *testing.T) {
	m := f.member(t, attackerTeam)
	critical := corev1.Toleration{Key: tenancy.SystemPoolTaintKey, Operator: corev1.TolerationOpExists}
	job := f.job(attackerTeam, "system", func(j *batchv1.Job) {
		j.Spec.Template.Spec.Tolerations = []corev1.Toleration{critical}
		j.Spec.Template.Spec.NodeSelector = map[string]string{"kubernetes.azure.com/mode": "system"}
	})
	requireRefused(t, m.Create(f.ctx, job, client.DryRunAll), "a Job tolerating "+tenancy.SystemPoolTaintKey, policyReason(attackerTeam, tenancy.RuleSystemPool)...)
	all := f.job(attackerTeam, "wildcard", func(j *batchv1.Job) {
		j.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	})
	requireRefused(t, m.Create(f.ctx, all, client.DryRunAll), "a Job tolerating every taint", policyReason(attackerTeam, tenancy.RuleTolerateAll)...)

	// The Kubeflow kinds are checked on every replica's template.
	ptj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
		"metadata": map[string]any{"namespace": attackerTeam, "name": f.name("ddp"), "labels": map[string]any{vocab.QueueNameLabel: vocab.LocalQueueName}},
		"spec": map[string]any{"pytorchReplicaSpecs": map[string]any{
			"Master": replicaSpec(nil),
			"Worker": replicaSpec([]any{map[string]any{"key": tenancy.SystemPoolTaintKey, "operator": "Exists"}}),
		}},
	}}
	requireRefused(t, m.Create(f.ctx, ptj, client.DryRunAll), "a PyTorchJob worker tolerating "+tenancy.SystemPoolTaintKey, policyReason(attackerTeam, tenancy.RuleSystemPool)...)
}

// replicaSpec is a Kubeflow replica spec of one restricted-compliant pod
// with tolerations.
func replicaSpec(tolerations []any) map[string]any {
	spec := map[string]any{
		"securityContext": map[string]any{"runAsNonRoot": true, "runAsUser": int64(1000), "seccompProfile": map[string]any{"type": "RuntimeDefault"}},
		"containers": []any{map[string]any{
			"name": "pytorch", "image": "busybox:1.36",
			"securityContext": map[string]any{"allowPrivilegeEscalation": false, "capabilities": map[string]any{"drop": []any{"ALL"}}},
		}},
	}
	if tolerations != nil {
		spec["tolerations"] = tolerations
	}
	return map[string]any{"replicas": int64(1), "restartPolicy": "OnFailure", "template": map[string]any{"spec": spec}}
}

func (f *attackFixture) gpuTolerationWithoutGPURefused(t *testing.T) {
	m := f.member(t, attackerTeam)
	gpuTaint := corev1.Toleration{Key: gpupool.GPUTaintKey, Operator: corev1.TolerationOpEqual, Value: gpupool.GPUTaintValue, Effect: corev1.TaintEffectNoSchedule}
	job := f.job(attackerTeam, "cpu-on-gpu", func(j *batchv1.Job) {
		j.Spec.Template.Spec.Tolerations = []corev1.Toleration{gpuTaint}
		j.Spec.Template.Spec.NodeSelector = map[string]string{gpupool.AgentPoolLabel: "h100"}
	})
	requireRefused(t, m.Create(f.ctx, job, client.DryRunAll), "a CPU pod tolerating the GPU taint", policyReason(attackerTeam, tenancy.RuleGPUToleration)...)
	for _, res := range []corev1.ResourceName{vocab.GPUResource, tenancy.MIGResourcePrefix + "1g.10gb"} {
		gpu := f.job(attackerTeam, "gpu", func(j *batchv1.Job) {
			j.Spec.Template.Spec.Tolerations = []corev1.Toleration{gpuTaint}
			j.Spec.Template.Spec.Containers[0].Resources.Limits = corev1.ResourceList{res: resource.MustParse("1")}
		})
		assert.NoError(t, m.Create(f.ctx, gpu, client.DryRunAll), "a pod requesting %s may tolerate the GPU taint", res)
	}
}

func (f *attackFixture) inlineStorageVolumeRefused(t *testing.T) {
	m := f.member(t, attackerTeam)
	for what, v := range map[string]corev1.VolumeSource{
		"an inline csi volume (Azure Files)": {CSI: &corev1.CSIVolumeSource{Driver: "file.csi.azure.com", VolumeAttributes: map[string]string{"shareName": "checkpoints-serving", "secretName": "stolen"}}},
		"an inline azureFile volume":         {AzureFile: &corev1.AzureFileVolumeSource{SecretName: "stolen", ShareName: "checkpoints-serving"}},
		"an inline azureDisk volume": {AzureDisk: &corev1.AzureDiskVolumeSource{DiskName: "other", Kind: ptr.To(corev1.AzureManagedDisk),
			DataDiskURI: "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-aksml-prod/providers/Microsoft.Compute/disks/other"}},
	} {
		job := f.job(attackerTeam, "inline", func(j *batchv1.Job) {
			j.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: v}}
		})
		requireRefused(t, m.Create(f.ctx, job, client.DryRunAll), what, policyReason(attackerTeam, tenancy.RuleInlineVolume)...)
	}
	claim := f.job(attackerTeam, "claim", func(j *batchv1.Job) {
		j.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "model-checkpoints"}}}}
	})
	assert.NoError(t, m.Create(f.ctx, claim, client.DryRunAll), "the team's own claims are mounted by name")
}

func (f *attackFixture) ephemeralVolumeBoundedByQuota(t *testing.T) {
	m := f.member(t, attackerTeam)
	q := f.teamQuota(t, attackerTeam)
	class := "ml-scratch-azuredisk"
	limit := q.Spec.Hard[corev1.ResourceName(tenancy.ClassStorageQuota(class))]
	require.False(t, limit.IsZero(), "team-quota bounds storage of class %s", class)
	over := limit.DeepCopy()
	over.Add(resource.MustParse("1Gi"))

	ephemeral := func(size resource.Quantity) *batchv1.Job {
		return f.job(attackerTeam, "scratch", func(j *batchv1.Job) {
			j.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
				VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: ptr.To(class),
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}},
				}},
			}}}}
		})
	}
	big, small := ephemeral(over), ephemeral(resource.MustParse("10Gi"))
	require.NoError(t, m.Create(f.ctx, big), "the Job itself is admitted; its claim is what the quota bounds")
	require.NoError(t, m.Create(f.ctx, small))
	defer f.deleteJobs(t, big, small)
	// The ephemeral volume controller creates the claim in the pod's name
	// and reports a refusal as an event on the pod.
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		events := &corev1.EventList{}
		require.NoError(ct, f.env.Client.List(f.ctx, events, client.InNamespace(attackerTeam)))
		found := ""
		for _, e := range events.Items {
			if e.InvolvedObject.Kind == "Pod" && strings.HasPrefix(e.InvolvedObject.Name, big.Name+"-") && e.Reason == "FailedBinding" {
				found = e.Message
			}
		}
		if assert.NotEmpty(ct, found, "no FailedBinding event on %s's pod yet", big.Name) {
			assert.Contains(ct, found, "exceeded quota: "+tenancy.TeamQuotaName)
			assert.Contains(ct, found, tenancy.ClassStorageQuota(class))
		}
	}, attackTimeout, scenarioPoll)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		claims := &corev1.PersistentVolumeClaimList{}
		require.NoError(ct, f.env.Client.List(f.ctx, claims, client.InNamespace(attackerTeam)))
		var names []string
		for _, c := range claims.Items {
			names = append(names, c.Name)
			assert.False(ct, strings.HasPrefix(c.Name, big.Name+"-"), "claim %s over the quota exists", c.Name)
		}
		assert.True(ct, strings.Contains(strings.Join(names, ","), small.Name+"-"), "the 10Gi ephemeral claim of %s is created: %v", small.Name, names)
	}, attackTimeout, scenarioPoll)
}

// teamQuota reads team's TeamQuotaName.
func (f *attackFixture) teamQuota(t *testing.T, team string) *corev1.ResourceQuota {
	q := &corev1.ResourceQuota{}
	require.NoError(t, f.env.Client.Get(f.ctx, types.NamespacedName{Namespace: team, Name: tenancy.TeamQuotaName}, q))
	return q
}

// deleteJobs deletes jobs as admin and waits until their pods are gone.
func (f *attackFixture) deleteJobs(t *testing.T, jobs ...*batchv1.Job) {
	for _, j := range jobs {
		err := f.env.Client.Delete(f.ctx, j, client.PropagationPolicy(metav1.DeletePropagationForeground))
		if !apierrors.IsNotFound(err) {
			assert.NoError(t, err)
		}
	}
	assert.EventuallyWithT(t, func(ct *assert.CollectT) {
		for _, j := range jobs {
			pods := &corev1.PodList{}
			require.NoError(ct, f.env.Client.List(f.ctx, pods, client.InNamespace(j.Namespace), client.MatchingLabels{batchv1.JobNameLabel: j.Name}))
			assert.Empty(ct, pods.Items, "pods of %s", j.Name)
		}
	}, attackTimeout, scenarioPoll)
}

func (f *attackFixture) jobWithoutQueueLabelManaged(t *testing.T) {
	m := f.member(t, attackerTeam)
	job := f.job(attackerTeam, "unqueued", func(j *batchv1.Job) {
		delete(j.Labels, vocab.QueueNameLabel)
		j.Spec.Suspend = nil
	})
	require.NoError(t, m.Create(f.ctx, job), "the member submits a Job without the queue label")
	defer f.deleteJobs(t, job)
	// Kueue's webhook gives it the namespace's `default` LocalQueue
	// (LocalQueueDefaulting), which aksml points at the team's own
	// ClusterQueue: the Job runs, but only through the team's queue and
	// quota, as if it carried gpu-queue.
	assert.Equal(t, queues.DefaultLocalQueueName, job.Labels[vocab.QueueNameLabel], "Kueue defaults the queue name")
	assert.True(t, ptr.Deref(job.Spec.Suspend, false), "Kueue's webhook suspends it until admitted")
	requireAdmittedBy(t, f, job, queues.ClusterQueueName(attackerTeam), "")

	// Platform namespaces (no aksml.io/team label) stay unmanaged.
	platform := trainingJob("default", f.name("platform"))
	delete(platform.Labels, vocab.QueueNameLabel)
	platform.Spec.Suspend = nil
	require.NoError(t, f.env.Client.Create(f.ctx, platform, client.DryRunAll))
	assert.False(t, ptr.Deref(platform.Spec.Suspend, false), "a Job in a platform namespace is not managed by Kueue")
}

func (f *attackFixture) quotaBounds(t *testing.T) {
	m := f.member(t, attackerTeam)
	q := f.teamQuota(t, attackerTeam)

	// Object counts: CronJobs up to the quota, then refused.
	limit := q.Spec.Hard["count/cronjobs.batch"]
	require.False(t, limit.IsZero(), "team-quota bounds CronJobs")
	var crons []*batchv1.CronJob
	defer func() {
		for _, c := range crons {
			_ = f.env.Client.Delete(context.Background(), c)
		}
	}()
	for i := int64(0); i < limit.Value(); i++ {
		c := cronJobOf(f.job(attackerTeam, "cron", nil))
		require.NoError(t, m.Create(f.ctx, c), "CronJob %d of %d", i+1, limit.Value())
		crons = append(crons, c)
	}
	var err error
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		c := cronJobOf(f.job(attackerTeam, "cron", nil))
		err = m.Create(f.ctx, c, client.DryRunAll)
		now := f.teamQuota(t, attackerTeam)
		used := now.Status.Used["count/cronjobs.batch"]
		assert.Error(ct, err, "CronJob %d is refused (the quota counts %s of %s)", limit.Value()+1, used.String(), limit.String())
	}, attackTimeout, scenarioPoll)
	requireRefused(t, err, "one CronJob more than the quota", "exceeded quota: "+tenancy.TeamQuotaName, "count/cronjobs.batch")

	// Compute and storage: the quota bounds whatever creates pods and
	// claims in the namespace, whoever sends them: here the admin stands
	// in for an operator acting on a member's object outside Kueue (a
	// KAITO Workspace's Deployment) and for the ephemeral volume
	// controller; a member may create neither pods nor claims itself.
	err = m.Create(f.ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: attackerTeam, Name: "direct"}, Spec: f.job(attackerTeam, "pod", nil).Spec.Template.Spec}, client.DryRunAll)
	requireRefused(t, err, "a member creating a pod directly", rbacReason("create", "pods", "", attackerTeam))
	claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: attackerTeam, Name: "hoard"}, Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}, StorageClassName: ptr.To("ml-azurefile-premium"),
		Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
	}}
	requireRefused(t, m.Create(f.ctx, claim.DeepCopy(), client.DryRunAll), "a member creating a claim directly", rbacReason("create", "persistentvolumeclaims", "", attackerTeam))

	for _, c := range []struct {
		res   corev1.ResourceName
		quota string
	}{{corev1.ResourceCPU, tenancy.QuotaRequestsCPU}, {corev1.ResourceMemory, tenancy.QuotaRequestsMemory}} {
		hard := q.Spec.Hard[corev1.ResourceName(c.quota)]
		require.False(t, hard.IsZero(), "team-quota bounds %s", c.quota)
		over := hard.DeepCopy()
		over.Add(resource.MustParse("1"))
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: attackerTeam, Name: f.name("bypass")}, Spec: f.job(attackerTeam, "pod", nil).Spec.Template.Spec}
		pod.Spec.Containers[0].Resources.Requests[c.res] = over
		requireRefused(t, f.env.Client.Create(f.ctx, pod, client.DryRunAll), "a pod outside Kueue requesting more "+string(c.res)+" than the team's bound",
			"exceeded quota: "+tenancy.TeamQuotaName, "requested: "+c.quota+"=")
	}
	class := "ml-azurefile-premium"
	hard := q.Spec.Hard[corev1.ResourceName(tenancy.ClassStorageQuota(class))]
	used := q.Status.Used[corev1.ResourceName(tenancy.ClassStorageQuota(class))]
	require.False(t, used.IsZero(), "the stack's own datasets claim counts against %s", tenancy.ClassStorageQuota(class))
	room := hard.DeepCopy()
	room.Sub(used)
	claim.Spec.Resources.Requests[corev1.ResourceStorage] = room
	assert.NoError(t, f.env.Client.Create(f.ctx, claim.DeepCopy(), client.DryRunAll), "a claim of exactly the room left (%s) fits", room.String())
	room.Add(resource.MustParse("1Gi"))
	claim.Spec.Resources.Requests[corev1.ResourceStorage] = room
	requireRefused(t, f.env.Client.Create(f.ctx, claim.DeepCopy(), client.DryRunAll), "a claim beyond the class's storage quota",
		"exceeded quota: "+tenancy.TeamQuotaName, tenancy.ClassStorageQuota(class))
}

func (f *attackFixture) otherNamespacesRefused(t *testing.T) {
	m := f.member(t, attackerTeam)
	for _, ns := range []string{servingTeam, tenancy.SystemNamespace, vocab.KueueNamespace, "default"} {
		job := trainingJob(ns, f.name("foreign"))
		requireRefused(t, m.Create(f.ctx, job, client.DryRunAll), "a Job in "+ns, rbacReason("create", "jobs", "batch", ns))
		requireRefused(t, m.List(f.ctx, &corev1.PodList{}, client.InNamespace(ns)), "listing pods in "+ns, rbacReason("list", "pods", "", ns))
	}
	requireRefused(t, m.Get(f.ctx, types.NamespacedName{Namespace: servingTeam, Name: "model-checkpoints"}, &corev1.PersistentVolumeClaim{}),
		"reading the serving team's checkpoint claim", rbacReason("get", "persistentvolumeclaims", "", servingTeam))
	requireRefused(t, m.List(f.ctx, &corev1.NodeList{}), "listing nodes", rbacReason("list", "nodes", "", ""))
}

func (f *attackFixture) tenancyObjectsUnchangeable(t *testing.T) {
	m := f.member(t, attackerTeam)
	patch := func(obj client.Object, body string) error {
		return m.Patch(f.ctx, obj, client.RawPatch(types.MergePatchType, []byte(body)), client.DryRunAll)
	}
	for _, name := range []string{tenancy.TeamQuotaName, tenancy.ResourceQuotaName} {
		q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: attackerTeam, Name: name}}
		requireRefused(t, patch(q, `{"spec":{"hard":{"requests.cpu":"100000"}}}`), "raising "+name, rbacReason("patch", "resourcequotas", "", attackerTeam))
		requireRefused(t, m.Delete(f.ctx, q, client.DryRunAll), "deleting "+name, rbacReason("delete", "resourcequotas", "", attackerTeam))
	}
	lr := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Namespace: attackerTeam, Name: tenancy.DefaultRequestsName}}
	requireRefused(t, patch(lr, `{"spec":{"limits":[]}}`), "emptying the LimitRange", rbacReason("patch", "limitranges", "", attackerTeam))
	requireRefused(t, m.Delete(f.ctx, lr, client.DryRunAll), "deleting the LimitRange", rbacReason("delete", "limitranges", "", attackerTeam))
	deny := &metav1.PartialObjectMetadata{}
	deny.SetGroupVersionKind(schemaGVK("networking.k8s.io", "v1", "NetworkPolicy"))
	deny.SetNamespace(attackerTeam)
	deny.SetName(tenancy.DefaultDenyPolicy)
	requireRefused(t, m.Delete(f.ctx, deny, client.DryRunAll), "deleting the default-deny NetworkPolicy", rbacReason("delete", "networkpolicies", "networking.k8s.io", attackerTeam))
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: attackerTeam}}
	for _, body := range []string{
		`{"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"privileged"}}}`,
		`{"metadata":{"labels":{"` + tenancy.TeamLabel + `":"` + servingTeam + `"}}}`,
		`{"metadata":{"labels":{"` + tenancy.TeamLabel + `":null}}}`,
	} {
		requireRefused(t, patch(ns, body), "relabelling the namespace "+body, rbacReason("patch", "namespaces", "", ""))
	}
	vap := &metav1.PartialObjectMetadata{}
	vap.SetGroupVersionKind(schemaGVK("admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicyBinding"))
	vap.SetName(tenancy.AdmissionPolicyName(attackerTeam))
	requireRefused(t, m.Delete(f.ctx, vap, client.DryRunAll), "deleting the team's admission policy binding",
		rbacReason("delete", "validatingadmissionpolicybindings", "admissionregistration.k8s.io", ""))
}

func (f *attackFixture) rbacEscalationRefused(t *testing.T) {
	m := f.member(t, attackerTeam)
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: attackerTeam, Name: "escalate"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}},
	}
	requireRefused(t, m.Create(f.ctx, role, client.DryRunAll), "a Role granting everything", rbacReason("create", "roles", "rbac.authorization.k8s.io", attackerTeam))
	for _, ref := range []rbacv1.RoleRef{
		{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "admin"},
	} {
		rb := &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: attackerTeam, Name: "escalate-" + ref.Name},
			RoleRef:    ref,
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "Group", Name: f.groups[attackerTeam]}},
		}
		requireRefused(t, m.Create(f.ctx, rb, client.DryRunAll), "binding "+ref.Name+" to the team", rbacReason("create", "rolebindings", "rbac.authorization.k8s.io", attackerTeam))
	}
	member := &metav1.PartialObjectMetadata{}
	member.SetGroupVersionKind(schemaGVK("rbac.authorization.k8s.io", "v1", "Role"))
	member.SetNamespace(attackerTeam)
	member.SetName(tenancy.MemberRoleName)
	requireRefused(t, m.Patch(f.ctx, member, client.RawPatch(types.MergePatchType, []byte(`{"rules":[{"apiGroups":["*"],"resources":["*"],"verbs":["*"]}]}`)), client.DryRunAll),
		"widening the member Role", rbacReason("patch", "roles", "rbac.authorization.k8s.io", attackerTeam))
	for _, c := range []struct{ ns, group, resource, verb string }{
		{"", "", "users", "impersonate"},
		{"", "", "groups", "impersonate"},
		{attackerTeam, "rbac.authorization.k8s.io", "roles", "escalate"},
		{attackerTeam, "rbac.authorization.k8s.io", "roles", "bind"},
		{attackerTeam, "", "serviceaccounts/token", "create"},
	} {
		assert.False(t, canI(f.ctx, t, m, c.ns, c.group, c.resource, "", c.verb), "%s %s.%s in %q", c.verb, c.resource, c.group, c.ns)
	}
}

func (f *attackFixture) foreignClusterQueueRefused(t *testing.T) {
	m := f.member(t, attackerTeam)
	lq := &kueue.LocalQueue{
		ObjectMeta: metav1.ObjectMeta{Namespace: attackerTeam, Name: "borrowed"},
		Spec:       kueue.LocalQueueSpec{ClusterQueue: kueue.ClusterQueueReference(servingTeam + "-gpu")},
	}
	requireRefused(t, m.Create(f.ctx, lq.DeepCopy(), client.DryRunAll), "a LocalQueue on the serving team's ClusterQueue",
		rbacReason("create", "localqueues", "kueue.x-k8s.io", attackerTeam))

	// Had it been created (by a platform admin, by mistake), the
	// ClusterQueue's namespaceSelector still keeps the team out.
	require.NoError(t, f.env.Client.Create(f.ctx, lq))
	defer func() { assert.NoError(t, f.env.Client.Delete(context.Background(), lq)) }()
	job := f.job(attackerTeam, "borrowed", func(j *batchv1.Job) { j.Labels[vocab.QueueNameLabel] = lq.Name })
	require.NoError(t, m.Create(f.ctx, job))
	defer f.deleteJobs(t, job)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		wl := workloadFor(f.ctx, ct, f.env.Client, job)
		if !assert.NotNil(ct, wl, "no Workload for %s yet", job.Name) {
			return
		}
		c := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved)
		if assert.NotNil(ct, c, "no QuotaReserved condition yet") {
			assert.Equal(ct, metav1.ConditionFalse, c.Status)
			assert.Contains(ct, c.Message, "Workload namespace doesn't match ClusterQueue selector")
		}
	}, attackTimeout, scenarioPoll)
}

func (f *attackFixture) podSecurityRefused(t *testing.T) {
	m := f.member(t, attackerTeam)
	job := f.job(attackerTeam, "privileged", func(j *batchv1.Job) {
		spec := &j.Spec.Template.Spec
		spec.SecurityContext = nil
		spec.HostNetwork = true
		spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
		spec.Volumes = []corev1.Volume{{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/lib/kubelet"}}}}
		spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "host", MountPath: "/host"}}
	})
	require.NoError(t, m.Create(f.ctx, job), "Pod Security only warns on workload objects; the pods are what it refuses")
	defer f.deleteJobs(t, job)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		events := &corev1.EventList{}
		require.NoError(ct, f.env.Client.List(f.ctx, events, client.InNamespace(attackerTeam)))
		found := ""
		for _, e := range events.Items {
			if e.InvolvedObject.Kind == "Job" && e.InvolvedObject.Name == job.Name && e.Reason == "FailedCreate" {
				found = e.Message
			}
		}
		if assert.NotEmpty(ct, found, "no FailedCreate event on %s yet", job.Name) {
			assert.Contains(ct, found, `violates PodSecurity "restricted:latest"`)
			assert.Contains(ct, found, "privileged")
			assert.Contains(ct, found, "hostPath")
			assert.Contains(ct, found, "hostNetwork=true")
		}
	}, attackTimeout, scenarioPoll)
	pods := &corev1.PodList{}
	require.NoError(t, f.env.Client.List(f.ctx, pods, client.InNamespace(attackerTeam), client.MatchingLabels{batchv1.JobNameLabel: job.Name}))
	assert.Empty(t, pods.Items, "no privileged pod exists")
}

func (f *attackFixture) execRefused(t *testing.T) {
	m := f.member(t, attackerTeam)
	for _, c := range []struct{ ns, resource, sub, verb string }{
		{attackerTeam, "pods", "exec", "create"},
		{attackerTeam, "pods", "attach", "create"},
		{attackerTeam, "pods", "portforward", "create"},
		{attackerTeam, "pods", "ephemeralcontainers", "patch"},
		{"", "nodes", "proxy", "get"},
	} {
		assert.False(t, canI(f.ctx, t, m, c.ns, "", c.resource, c.sub, c.verb), "%s %s/%s in %q", c.verb, c.resource, c.sub, c.ns)
	}
	assert.True(t, canI(f.ctx, t, m, attackerTeam, "", "pods", "log", "get"), "members read their pods' logs")
}

// schemaGVK names a kind for metadata-only requests.
func schemaGVK(group, version, kind string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: group, Version: version, Kind: kind}
}
