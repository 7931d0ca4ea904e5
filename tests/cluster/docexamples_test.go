package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/tenancy"
	"github.com/aksml/aksml/components/vocab"
)

// The source documents' example manifests that target a team, kept in
// testdata/documents in two forms: <example>.document.yaml as the document
// writes it, and <example>.aksml.yaml with the changes a team makes to run
// it on an aksml cluster, each marked "aksml:" (README "From the documents
// to aksml"). The documents: "Machine learning operations (MLOps) best
// practices in Azure Kubernetes Service (AKS)",
// https://learn.microsoft.com/azure/aks/best-practices-ml-ops, and the GPU
// node pools guide behind SPEC C2.2 and C2.5.
const documentsDir = "testdata/documents"

// Forms of a document example.
const (
	documentForm = "document"
	aksmlForm    = "aksml"
)

// The teams and pools of the stacks the examples run on: prod's training
// team (on-demand h100 and spot a100spot training pools) and serving team
// (on-demand a100 inference pool); dev's team-a for the MIG pool prod lacks.
const (
	docTrainingPool  = "h100"
	docSpotPool      = "a100spot"
	docInferencePool = "a100"
	docMIGStack      = "dev"
	docMIGTeam       = teamA
)

// podSecurityViolations are what Pod Security restricted reports about a pod
// spec without a securityContext ("Pod Security Standards", Restricted,
// https://kubernetes.io/docs/concepts/security/pod-security-standards/).
var podSecurityViolations = []string{
	`violates PodSecurity "restricted:latest"`,
	"allowPrivilegeEscalation != false",
	"unrestricted capabilities",
	"runAsNonRoot != true",
	"seccompProfile",
}

// TestDocumentExamples submits each example of the documents that targets a
// team, as a member of the team (impersonating its Entra group) of the
// stack's own objects with the real scheduler and Kueue: the aksml form is
// admitted by Kueue and its pods run on the pool the document intends
// (training on an on-demand training pool, the spot Job on the spot pool,
// the model server on the on-demand inference pool, the MIG trial on the MIG
// pool); the document's form is refused with the specific reason of each
// change the aksml form makes (RBAC for another namespace, Pod Security
// restricted for a missing securityContext, the scheduler for a pool label
// aksml does not set); a missing queue label is not refused: Kueue queues
// the Job in the team's `default` LocalQueue, its own ClusterQueue.
func TestDocumentExamples(t *testing.T) {
	env := testEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	require.NoError(t, env.StartNodeSimulation(ctx), "logs in %s", env.Dir)
	defer env.StopNodeSimulation()

	t.Run(attackStack, func(t *testing.T) {
		f := deployTeamStack(ctx, t, env, attackStack, attackerTeam, servingTeam)
		t.Run("training Job", f.docTrainingJob)
		t.Run("Kueue's two-worker Job", f.docQueuedJob)
		t.Run("spot Job", f.docSpotJob)
		t.Run("checkpointed Job", f.docCheckpointJob)
		t.Run("PyTorchJob", func(t *testing.T) { f.docKubeflowJob(t, "pytorchjob") })
		t.Run("TFJob", func(t *testing.T) { f.docKubeflowJob(t, "tfjob") })
		t.Run("inference server", f.docInference)
	})
	t.Run(docMIGStack, func(t *testing.T) {
		f := deployTeamStack(ctx, t, env, docMIGStack, docMIGTeam)
		byName := poolsByName(f.pools)
		requirePlatformRunning(ctx, t, env, f.applied, byName)
		requireMIGManager(ctx, t, env, f.applied, parsedConfig(t, docMIGStack), byName)
		t.Run("MIG trial", f.docMIGJob)
	})
}

// loadExample reads one form of a document example.
func loadExample(t *testing.T, example, form string) *unstructured.Unstructured {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(documentsDir, example+"."+form+".yaml"))
	require.NoError(t, err)
	obj := map[string]any{}
	require.NoError(t, yaml.Unmarshal(raw, &obj), "%s.%s.yaml", example, form)
	return &unstructured.Unstructured{Object: obj}
}

// warningRecorder keeps the warnings the API server returns (Pod Security
// warns about a workload's pod template when the object is created).
type warningRecorder struct {
	mu       sync.Mutex
	messages []string
}

// HandleWarningHeader implements rest.WarningHandler.
func (w *warningRecorder) HandleWarningHeader(_ int, _ string, message string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.messages = append(w.messages, message)
}

// take returns the warnings recorded so far and forgets them.
func (w *warningRecorder) take() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := strings.Join(w.messages, "\n")
	w.messages = nil
	return out
}

// memberWithWarnings is a client acting as a member of team's Entra group
// that records the API server's warnings.
func (f *attackFixture) memberWithWarnings(t *testing.T, team string) (client.Client, *warningRecorder) {
	t.Helper()
	w := &warningRecorder{}
	cfg := rest.CopyConfig(f.env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "member@" + team + ".example.com", Groups: []string{f.groups[team], "system:authenticated"}}
	cfg.WarningHandler = w
	c, err := NewClient(cfg, client.Options{Scheme: f.env.Scheme, Mapper: f.env.Client.RESTMapper()})
	require.NoError(t, err)
	return c, w
}

// requireOtherNamespaceRefused asserts that a member of team may not create
// obj in the namespace the document names, when that is not the team's, and
// moves obj into the team's namespace.
func (f *attackFixture) requireOtherNamespaceRefused(t *testing.T, m client.Client, obj *unstructured.Unstructured, team string) {
	t.Helper()
	ns := obj.GetNamespace()
	if ns == "" || ns == team {
		obj.SetNamespace(team)
		return
	}
	mapping, err := f.env.Client.RESTMapper().RESTMapping(obj.GroupVersionKind().GroupKind(), obj.GroupVersionKind().Version)
	require.NoError(t, err)
	requireRefused(t, m.Create(f.ctx, obj.DeepCopy(), client.DryRunAll), fmt.Sprintf("the document's %s in namespace %s", obj.GetKind(), ns),
		rbacReason("create", mapping.Resource.Resource, mapping.Resource.Group, ns))
	t.Logf("%s %s/%s as written: refused: a member of %s may create it in namespace %s only", obj.GetKind(), ns, obj.GetName(), team, team)
	obj.SetNamespace(team)
}

// requirePodSecurityWarning asserts that warnings hold Pod Security
// restricted's objection to a pod template without a securityContext.
func requirePodSecurityWarning(t *testing.T, warnings, what string) {
	t.Helper()
	require.NotEmpty(t, warnings, "%s: the API server warns about the pod template", what)
	for _, v := range podSecurityViolations {
		assert.Contains(t, warnings, strings.Replace(v, "violates", "would violate", 1), "%s: the warning names %q", what, v)
	}
}

// requireDefaultQueued asserts that obj, submitted without the queue
// label, is queued by Kueue in the namespace's `default` LocalQueue (Kueue
// gave it the name, LocalQueueDefaulting) and admitted, by the team's own
// ClusterQueue only.
func (f *attackFixture) requireDefaultQueued(t *testing.T, obj *unstructured.Unstructured) {
	t.Helper()
	var state string
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		got := obj.DeepCopy()
		require.NoError(ct, f.env.Client.Get(f.ctx, client.ObjectKeyFromObject(obj), got))
		assert.Equal(ct, queues.DefaultLocalQueueName, got.GetLabels()[vocab.QueueNameLabel], "Kueue gives %s the default LocalQueue", obj.GetName())
		wl := f.workloadOf(ct, got)
		if !assert.NotNil(ct, wl, "no Workload for %s yet", obj.GetName()) {
			return
		}
		assert.Equal(ct, kueue.LocalQueueName(queues.DefaultLocalQueueName), wl.Spec.QueueName, "Workload of %s", obj.GetName())
		c := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved)
		if !assert.NotNil(ct, c, "Kueue has not considered %s yet", obj.GetName()) {
			return
		}
		state = c.Message
		if assert.NotNil(ct, wl.Status.Admission, "%s not admitted yet: %s", obj.GetName(), c.Message) {
			assert.Equal(ct, kueue.ClusterQueueReference(queues.ClusterQueueName(obj.GetNamespace())), wl.Status.Admission.ClusterQueue, "only the team's own quota")
		}
	}, attackTimeout, scenarioPoll)
	t.Logf("%s/%s without the queue label: in the default LocalQueue: %s", obj.GetNamespace(), obj.GetName(), state)
}

// workloadOf returns the Kueue Workload owned by obj, or nil.
func (f *attackFixture) workloadOf(ct *assert.CollectT, obj client.Object) *kueue.Workload {
	wls := &kueue.WorkloadList{}
	if !assert.NoError(ct, f.env.Client.List(f.ctx, wls, client.InNamespace(obj.GetNamespace()))) {
		return nil
	}
	for i := range wls.Items {
		for _, ref := range wls.Items[i].OwnerReferences {
			if ref.UID == obj.GetUID() {
				return &wls.Items[i]
			}
		}
	}
	return nil
}

// podsOwnedBy lists the pods in obj's namespace whose owner is obj, or, for
// a batch Job, whose job-name label names it.
func (f *attackFixture) podsOwnedBy(ct require.TestingT, obj client.Object) []corev1.Pod {
	pods := &corev1.PodList{}
	require.NoError(ct, f.env.Client.List(f.ctx, pods, client.InNamespace(obj.GetNamespace())))
	var out []corev1.Pod
	for _, p := range pods.Items {
		for _, ref := range p.OwnerReferences {
			if ref.UID == obj.GetUID() {
				out = append(out, p)
			}
		}
	}
	return out
}

// requireNoPods asserts obj owns no pod.
func (f *attackFixture) requireNoPods(t *testing.T, obj client.Object) {
	t.Helper()
	assert.Empty(t, f.podsOwnedBy(t, obj), "%s has pods", obj.GetName())
}

// requireAdmitted waits until Kueue admits obj's Workload with every pod
// set on pool's flavor, and returns it.
func (f *attackFixture) requireAdmitted(t *testing.T, obj client.Object, pool string) *kueue.Workload {
	t.Helper()
	var wl *kueue.Workload
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		wl = f.workloadOf(ct, obj)
		if !assert.NotNil(ct, wl, "no Workload for %s yet", obj.GetName()) {
			return
		}
		if !assert.True(ct, apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadAdmitted), "%s not admitted: %v", obj.GetName(), wl.Status.Conditions) {
			return
		}
		for _, ps := range wl.Status.Admission.PodSetAssignments {
			for res, flavor := range ps.Flavors {
				if strings.HasPrefix(string(res), "nvidia.com/") {
					assert.Equal(ct, kueue.ResourceFlavorReference(queues.FlavorName(pool)), flavor, "%s pod set %s: %s", obj.GetName(), ps.Name, res)
				}
			}
		}
	}, attackTimeout, scenarioPoll)
	t.Logf("%s/%s: admitted by Kueue (ClusterQueue %s, flavors %s)", obj.GetNamespace(), obj.GetName(), wl.Status.Admission.ClusterQueue, formatFlavors(wl))
	return wl
}

// requireRunning waits until obj owns want pods, all Running on nodes of
// pool that offer the GPU resources they request.
func (f *attackFixture) requireRunning(t *testing.T, obj client.Object, want int, pool string) {
	t.Helper()
	var pods []corev1.Pod
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		pods = f.podsOwnedBy(ct, obj)
		assert.Len(ct, pods, want, "pods of %s", obj.GetName())
		for i := range pods {
			assert.Equal(ct, corev1.PodRunning, pods[i].Status.Phase, "pod %s on %q: %s", pods[i].Name, pods[i].Spec.NodeName, conditionMessage(&pods[i]))
		}
	}, attackTimeout, scenarioPoll, "kube-scheduler log:\n%s", f.env.LogTail("kube-scheduler.log", 20))
	for i := range pods {
		got, err := nodePoolOf(f.ctx, f.env, &pods[i])
		require.NoError(t, err)
		assert.Equal(t, pool, got, "pod %s runs on pool %s", pods[i].Name, pool)
		assertNodeOffers(f.ctx, t, f.env, &pods[i])
	}
	t.Logf("%s/%s: %d pod(s) Running on pool %s", obj.GetNamespace(), obj.GetName(), len(pods), pool)
}

// requirePodSecurityRefusedPods waits until the Job controller reports that
// Pod Security restricted refused the pods of job, and checks none exists.
func (f *attackFixture) requirePodSecurityRefusedPods(t *testing.T, job client.Object) {
	t.Helper()
	var found string
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		events := &corev1.EventList{}
		require.NoError(ct, f.env.Client.List(f.ctx, events, client.InNamespace(job.GetNamespace())))
		for _, e := range events.Items {
			if e.InvolvedObject.UID == job.GetUID() && e.Reason == "FailedCreate" {
				found = e.Message
			}
		}
		if assert.NotEmpty(ct, found, "no FailedCreate event on %s yet", job.GetName()) {
			for _, v := range podSecurityViolations {
				assert.Contains(ct, found, v)
			}
		}
	}, attackTimeout, scenarioPoll)
	f.requireNoPods(t, job)
	t.Logf("%s/%s: admitted, its pods refused: %s", job.GetNamespace(), job.GetName(), found)
}

// deleteExamples deletes objs as admin (dependents first) and waits until
// they, their pods and their Workloads are gone, so that the next example
// finds the quota free.
func (f *attackFixture) deleteExamples(t *testing.T, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		require.NoError(t, client.IgnoreNotFound(f.env.Client.Delete(f.ctx, o, client.PropagationPolicy(metav1.DeletePropagationForeground))))
	}
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		for _, o := range objs {
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(o.GetObjectKind().GroupVersionKind())
			err := f.env.Client.Get(f.ctx, client.ObjectKeyFromObject(o), got)
			assert.True(ct, client.IgnoreNotFound(err) == nil && err != nil, "%s still exists", o.GetName())
			assert.Empty(ct, f.podsOwnedBy(ct, o), "pods of %s", o.GetName())
			assert.Nil(ct, f.workloadOf(ct, o), "Workload of %s", o.GetName())
		}
	}, attackTimeout, scenarioPoll)
}

// submitDocumentJob submits the document's form of a batch Job example as a
// member of team: refused in another namespace, then in the team's accepted
// with Pod Security's warning and queued by Kueue in the team's `default`
// LocalQueue without the queue label; its pods are then refused by Pod
// Security in a namespace that enforces restricted, and run on pool in one
// at baseline (the document's form needs only the namespace changed there).
func (f *attackFixture) submitDocumentJob(t *testing.T, example, team, pool string) {
	t.Helper()
	m, warnings := f.memberWithWarnings(t, team)
	doc := loadExample(t, example, documentForm)
	f.requireOtherNamespaceRefused(t, m, doc, team)
	require.NotContains(t, doc.GetLabels(), vocab.QueueNameLabel)
	require.NoError(t, m.Create(f.ctx, doc), "the member submits the document's %s", doc.GetName())
	defer f.deleteExamples(t, doc)
	requirePodSecurityWarning(t, warnings.take(), "the document's "+doc.GetName())
	f.requireDefaultQueued(t, doc)
	ns := &corev1.Namespace{}
	require.NoError(t, f.env.Client.Get(f.ctx, types.NamespacedName{Name: team}, ns))
	if ns.Labels[vocab.PodSecurityEnforceLabel] == string(vocab.PodSecurityRestricted) {
		f.requirePodSecurityRefusedPods(t, doc)
		return
	}
	parallelism, found, err := unstructured.NestedInt64(doc.Object, "spec", "parallelism")
	require.NoError(t, err)
	if !found {
		parallelism = 1
	}
	f.requireRunning(t, doc, int(parallelism), pool)
}

// submitAksmlJob submits the aksml form of a batch Job example as a member
// of team and asserts its pods run on pool.
func (f *attackFixture) submitAksmlJob(t *testing.T, example, team, pool string) {
	t.Helper()
	m, warnings := f.memberWithWarnings(t, team)
	job := loadExample(t, example, aksmlForm)
	require.Equal(t, team, job.GetNamespace())
	require.NoError(t, m.Create(f.ctx, job), "the member submits %s", job.GetName())
	defer f.deleteExamples(t, job)
	assert.Empty(t, warnings.take(), "Pod Security has no objection to %s", job.GetName())
	f.requireAdmitted(t, job, pool)
	parallelism, found, err := unstructured.NestedInt64(job.Object, "spec", "parallelism")
	require.NoError(t, err)
	if !found {
		parallelism = 1
	}
	f.requireRunning(t, job, int(parallelism), pool)
}

func (f *attackFixture) docTrainingJob(t *testing.T) {
	f.submitDocumentJob(t, "training-job", attackerTeam, docTrainingPool)
	f.submitAksmlJob(t, "training-job", attackerTeam, docTrainingPool)
}

func (f *attackFixture) docSpotJob(t *testing.T) {
	f.submitDocumentJob(t, "spot-job", attackerTeam, docSpotPool)
	f.submitAksmlJob(t, "spot-job", attackerTeam, docSpotPool)
}

// docCheckpointJob: the document's checkpointing Job asks for no GPU and
// mounts the claim aksml gives every team under the document's name; its
// partial securityContext (runAsUser without runAsNonRoot) is still refused.
func (f *attackFixture) docCheckpointJob(t *testing.T) {
	cpuPool := ""
	for _, p := range f.pools {
		if p.Mode == "User" && !p.GPU {
			cpuPool = p.Name
		}
	}
	require.NotEmpty(t, cpuPool, "stack %s has a CPU pool", attackStack)
	f.submitDocumentJob(t, "checkpoint-job", attackerTeam, cpuPool)
	f.submitAksmlJob(t, "checkpoint-job", attackerTeam, cpuPool)
}

func (f *attackFixture) docMIGJob(t *testing.T) {
	f.submitDocumentJob(t, "mig-job", docMIGTeam, docMIGPool(t))
	f.submitAksmlJob(t, "mig-job", docMIGTeam, docMIGPool(t))
}

// docMIGPool is the MIG pool of the MIG example's stack.
func docMIGPool(t *testing.T) string {
	for _, p := range parsedConfig(t, docMIGStack).GPUPools {
		if p.MIGEnabled() {
			return p.Name
		}
	}
	require.FailNow(t, "stack "+docMIGStack+" has no MIG pool")
	return ""
}

// docQueuedJob: the document's Kueue Job carries the queue label aksml's
// LocalQueue answers to, so in the team's namespace Kueue admits it, and Pod
// Security restricted refuses every pod the Job controller creates.
func (f *attackFixture) docQueuedJob(t *testing.T) {
	m, warnings := f.memberWithWarnings(t, attackerTeam)
	doc := loadExample(t, "queued-job", documentForm)
	f.requireOtherNamespaceRefused(t, m, doc, attackerTeam)
	require.NoError(t, m.Create(f.ctx, doc), "the member submits the document's %s", doc.GetName())
	requirePodSecurityWarning(t, warnings.take(), "the document's "+doc.GetName())
	f.requireAdmitted(t, doc, docTrainingPool)
	f.requirePodSecurityRefusedPods(t, doc)
	f.deleteExamples(t, doc)

	f.submitAksmlJob(t, "queued-job", attackerTeam, docTrainingPool)
}

// replicaSpecsField is the field of a Kubeflow job kind holding its replica
// specs.
var replicaSpecsField = map[string]string{"PyTorchJob": "pytorchReplicaSpecs", "TFJob": "tfReplicaSpecs"}

// docKubeflowJob runs a Kubeflow example. The Training Operator does not run
// in this tier, so after Kueue admits the job the test creates, as the
// operator's identity would, one pod per replica from the job's templates
// (into which Kueue has put the flavor's node selector and toleration);
// Pod Security, the team's admission policy and the scheduler judge those
// pods as they would the operator's.
func (f *attackFixture) docKubeflowJob(t *testing.T, example string) {
	m, _ := f.memberWithWarnings(t, attackerTeam)
	doc := loadExample(t, example, documentForm)
	field := replicaSpecsField[doc.GetKind()]
	require.NotEmpty(t, field, "a Kubeflow kind")
	f.requireOtherNamespaceRefused(t, m, doc, attackerTeam)
	require.NoError(t, m.Create(f.ctx, doc), "the member submits the document's %s", doc.GetName())
	f.requireDefaultQueued(t, doc)
	// The pods the operator would make of the document's templates.
	for _, pod := range operatorPods(t, doc, field) {
		err := f.env.Client.Create(f.ctx, pod, client.DryRunAll)
		requireRefused(t, err, "the operator's pod "+pod.Name+" of the document's template", podSecurityViolations...)
	}
	f.deleteExamples(t, doc)

	job := loadExample(t, example, aksmlForm)
	require.Equal(t, attackerTeam, job.GetNamespace())
	require.NoError(t, m.Create(f.ctx, job), "the member submits %s", job.GetName())
	defer f.deleteExamples(t, job)
	f.requireAdmitted(t, job, docTrainingPool)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		require.NoError(ct, f.env.Client.Get(f.ctx, client.ObjectKeyFromObject(job), job))
		suspended, _, _ := unstructured.NestedBool(job.Object, "spec", "runPolicy", "suspend")
		assert.False(ct, suspended, "Kueue resumes %s", job.GetName())
	}, attackTimeout, scenarioPoll)
	pods := operatorPods(t, job, field)
	for _, pod := range pods {
		require.NoError(t, f.env.Client.Create(f.ctx, pod), "the operator creates %s", pod.Name)
	}
	f.requireRunning(t, job, len(pods), docTrainingPool)
}

// operatorPods are the pods the Kubeflow Training Operator creates for job:
// per replica type, replicas pods named <job>-<type>-<index> from the
// type's template with its restartPolicy, owned by the job.
func operatorPods(t *testing.T, job *unstructured.Unstructured, field string) []*corev1.Pod {
	t.Helper()
	specs, _, err := unstructured.NestedMap(job.Object, "spec", field)
	require.NoError(t, err)
	var out []*corev1.Pod
	for typ, raw := range specs {
		rs := raw.(map[string]any)
		tpl := &corev1.PodTemplateSpec{}
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(rs["template"].(map[string]any), tpl))
		replicas, _, _ := unstructured.NestedInt64(rs, "replicas")
		policy, _, _ := unstructured.NestedString(rs, "restartPolicy")
		for i := range replicas {
			pod := &corev1.Pod{ObjectMeta: *tpl.ObjectMeta.DeepCopy(), Spec: *tpl.Spec.DeepCopy()}
			pod.Name = fmt.Sprintf("%s-%s-%d", job.GetName(), strings.ToLower(typ), i)
			pod.Namespace = job.GetNamespace()
			pod.Spec.RestartPolicy = corev1.RestartPolicy(policy)
			pod.OwnerReferences = []metav1.OwnerReference{{
				APIVersion: job.GetAPIVersion(), Kind: job.GetKind(), Name: job.GetName(), UID: job.GetUID(),
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}}
			out = append(out, pod)
		}
	}
	return out
}

// docInference: a model server is the platform's to deploy. The member may
// create neither the document's Pod nor aksml's Deployment; the platform
// (the admin client, as Pulumi applies an InferenceServer) is refused the
// document's Pod by Pod Security, and the document's workload=gpu selector
// leaves the pod unschedulable: no aksml pool carries that label.
func (f *attackFixture) docInference(t *testing.T) {
	m := f.member(t, servingTeam)
	doc := loadExample(t, "inference", documentForm)
	doc.SetNamespace(servingTeam)
	requireRefused(t, m.Create(f.ctx, doc.DeepCopy(), client.DryRunAll), "a member creating the document's Pod", rbacReason("create", "pods", "", servingTeam))
	requireRefused(t, f.env.Client.Create(f.ctx, doc.DeepCopy()), "the platform creating the document's Pod", podSecurityViolations...)

	deploy := loadExample(t, "inference", aksmlForm)
	require.Equal(t, servingTeam, deploy.GetNamespace())
	requireRefused(t, m.Create(f.ctx, deploy.DeepCopy(), client.DryRunAll), "a member creating a Deployment", rbacReason("create", "deployments", "apps", servingTeam))

	// aksml's form with the document's pool label instead of aksml's.
	gpuLabel := deploy.DeepCopy()
	gpuLabel.SetName(deploy.GetName() + "-workload-gpu")
	require.NoError(t, unstructured.SetNestedStringMap(gpuLabel.Object, map[string]string{"workload": "gpu"}, "spec", "template", "spec", "nodeSelector"))
	require.NoError(t, f.env.Client.Create(f.ctx, gpuLabel))
	f.requireDeploymentUnschedulable(t, gpuLabel, "didn't match Pod's node affinity/selector")
	f.deleteExamples(t, gpuLabel)

	require.NoError(t, f.env.Client.Create(f.ctx, deploy), "the platform deploys %s", deploy.GetName())
	defer f.deleteExamples(t, deploy)
	rs := f.replicaSetOf(t, deploy)
	f.requireRunning(t, rs, 1, docInferencePool)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		q := &corev1.ResourceQuota{}
		require.NoError(ct, f.env.Client.Get(f.ctx, types.NamespacedName{Namespace: servingTeam, Name: tenancy.ResourceQuotaName}, q))
		used := q.Status.Used["requests."+vocab.GPUResource]
		assert.Equal(ct, int64(1), used.Value(), "the model server's GPU counts against %s/%s", servingTeam, q.Name)
	}, attackTimeout, scenarioPoll)
}

// replicaSetOf waits for the ReplicaSet of deploy and returns it.
func (f *attackFixture) replicaSetOf(t *testing.T, deploy *unstructured.Unstructured) client.Object {
	t.Helper()
	var rs client.Object
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(schemaGVK("apps", "v1", "ReplicaSetList"))
		require.NoError(ct, f.env.Client.List(f.ctx, list, client.InNamespace(deploy.GetNamespace())))
		for i := range list.Items {
			for _, ref := range list.Items[i].GetOwnerReferences() {
				if ref.UID == deploy.GetUID() {
					rs = &list.Items[i]
				}
			}
		}
		assert.NotNil(ct, rs, "no ReplicaSet of %s yet", deploy.GetName())
	}, attackTimeout, scenarioPoll)
	return rs
}

// requireDeploymentUnschedulable waits until deploy's pod is Pending with
// the scheduler's reason.
func (f *attackFixture) requireDeploymentUnschedulable(t *testing.T, deploy *unstructured.Unstructured, reason string) {
	t.Helper()
	rs := f.replicaSetOf(t, deploy)
	var msg string
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		pods := f.podsOwnedBy(ct, rs)
		if !assert.Len(ct, pods, 1) {
			return
		}
		assert.Empty(ct, pods[0].Spec.NodeName)
		c := podCondition(&pods[0], corev1.PodScheduled)
		if assert.NotNil(ct, c, "not looked at by the scheduler yet") {
			msg = c.Message
			assert.Equal(ct, corev1.PodReasonUnschedulable, c.Reason)
			assert.Contains(ct, c.Message, reason)
		}
	}, attackTimeout, scenarioPoll)
	t.Logf("%s/%s (the document's pool label): pod Unschedulable: %s", deploy.GetNamespace(), deploy.GetName(), msg)
}
