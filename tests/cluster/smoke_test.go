package cluster

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

const (
	waitTimeout = 90 * time.Second
	pollEvery   = 250 * time.Millisecond
	gpu         = corev1.ResourceName("nvidia.com/gpu")
)

// manifest parses a YAML object for Env.Apply.
func manifest(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	require.NoError(t, yaml.Unmarshal([]byte(doc), &u.Object))
	return u
}

func TestControlPlaneSmoke(t *testing.T) {
	env := testEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := env.Client

	t.Run("server version", func(t *testing.T) {
		dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
		require.NoError(t, err)
		v, err := dc.ServerVersion()
		require.NoError(t, err)
		assert.Equal(t, KubernetesVersion, v.GitVersion)
	})

	t.Run("CRDs established", func(t *testing.T) {
		for name, version := range map[string]string{
			"clusterqueues.kueue.x-k8s.io":            "v1beta2",
			"resourceflavors.kueue.x-k8s.io":          "v1beta2",
			"localqueues.kueue.x-k8s.io":              "v1beta2",
			"workloads.kueue.x-k8s.io":                "v1beta2",
			"pytorchjobs.kubeflow.org":                "v1",
			"tfjobs.kubeflow.org":                     "v1",
			"podmonitors.azmonitoring.coreos.com":     "v1",
			"queues.scheduling.volcano.sh":            "v1beta1",
			"workspaces.kaito.sh":                     "v1beta1",
			"prometheusrules.monitoring.coreos.com":   "v1",
			"servicemonitors.azmonitoring.coreos.com": "v1",
			"scaledobjects.keda.sh":                   "v1alpha1",
			"triggerauthentications.keda.sh":          "v1alpha1",
			"clustertriggerauthentications.keda.sh":   "v1alpha1",
		} {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if !assert.NoError(t, c.Get(ctx, client.ObjectKey{Name: name}, crd), name) {
				continue
			}
			established := false
			for _, cond := range crd.Status.Conditions {
				if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
					established = true
				}
			}
			assert.True(t, established, "%s not established", name)
			served := false
			for _, v := range crd.Spec.Versions {
				if v.Name == version && v.Served {
					served = true
					if strings.HasSuffix(name, ".kueue.x-k8s.io") {
						assert.True(t, v.Storage, "%s: %s should be the storage version", name, version)
					}
				}
			}
			assert.True(t, served, "%s does not serve %s", name, version)
		}
	})

	ns := "smoke"
	t.Run("kueue admits within quota", func(t *testing.T) {
		t.Logf("kueue webhooks installed: %v", env.KueueWebhooks)
		assert.Contains(t, env.KueueWebhooks, "/mutate-batch-v1-job")
		assert.Contains(t, env.KueueWebhooks, "/mutate--v1-pod", "pods must go through a served (no-op) webhook")
		for _, doc := range []string{`
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: smoke-gpu
`, `
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: smoke-gpu
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["nvidia.com/gpu"]
    flavors:
    - name: smoke-gpu
      resources:
      - name: nvidia.com/gpu
        nominalQuota: 4
`, `
apiVersion: v1
kind: Namespace
metadata:
  name: ` + ns + `
  labels:
    # Kueue manages Jobs only in team namespaces (the stack's
    # managedJobsNamespaceSelector on aksml.io/team).
    aksml.io/team: ` + ns + `
`, `
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: gpu
  namespace: ` + ns + `
spec:
  clusterQueue: smoke-gpu
`} {
			obj := manifest(t, doc)
			require.NoError(t, env.Apply(ctx, obj), "apply %s %s", obj.GetKind(), obj.GetName())
			assert.NotEmpty(t, obj.GetUID(), "Apply should return the server object")
		}
		require.EventuallyWithT(t, func(ct *assert.CollectT) {
			cq := &kueue.ClusterQueue{}
			require.NoError(ct, c.Get(ctx, client.ObjectKey{Name: "smoke-gpu"}, cq))
			assert.True(ct, apimeta.IsStatusConditionTrue(cq.Status.Conditions, kueue.ClusterQueueActive), "ClusterQueue not active: %v", cq.Status.Conditions)
		}, waitTimeout, pollEvery)

		small := gpuJob(ns, "small", 2)
		require.NoError(t, c.Create(ctx, small))
		require.EventuallyWithT(t, func(ct *assert.CollectT) {
			wl := workloadFor(ctx, ct, c, small)
			if assert.NotNil(ct, wl, "no Workload for job small yet") {
				assert.True(ct, apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadAdmitted), "workload not admitted: %v", wl.Status.Conditions)
			}
			job := &batchv1.Job{}
			require.NoError(ct, c.Get(ctx, client.ObjectKeyFromObject(small), job))
			assert.False(ct, ptr.Deref(job.Spec.Suspend, true), "job small still suspended")
		}, waitTimeout, pollEvery, "kueue log:\n%s", env.LogTail("kueue.log", 30))

		// kube-controller-manager's job controller creates the Pods of the unsuspended Job.
		require.EventuallyWithT(t, func(ct *assert.CollectT) {
			pods := &corev1.PodList{}
			require.NoError(ct, c.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{batchv1.JobNameLabel: "small"}))
			assert.Len(ct, pods.Items, 2)
		}, waitTimeout, pollEvery, "controller-manager log:\n%s", env.LogTail("kube-controller-manager.log", 30))
	})

	t.Run("kueue keeps over-quota job pending", func(t *testing.T) {
		big := gpuJob(ns, "big", 6)
		require.NoError(t, c.Create(ctx, big))
		var message string
		require.EventuallyWithT(t, func(ct *assert.CollectT) {
			wl := workloadFor(ctx, ct, c, big)
			if !assert.NotNil(ct, wl, "no Workload for job big yet") {
				return
			}
			cond := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved)
			if assert.NotNil(ct, cond, "no QuotaReserved condition yet") {
				assert.Equal(ct, metav1.ConditionFalse, cond.Status)
				assert.Contains(ct, strings.ToLower(cond.Message), "insufficient quota")
				message = cond.Message
			}
		}, waitTimeout, pollEvery)
		t.Logf("pending reason: %s", message)
		job := &batchv1.Job{}
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(big), job))
		assert.True(t, ptr.Deref(job.Spec.Suspend, false), "over-quota job must stay suspended")
	})

	t.Run("kueue v1beta1 conversion webhook", func(t *testing.T) {
		cq := &unstructured.Unstructured{}
		cq.SetAPIVersion("kueue.x-k8s.io/v1beta1")
		cq.SetKind("ClusterQueue")
		require.NoError(t, c.Get(ctx, client.ObjectKey{Name: "smoke-gpu"}, cq))
		assert.Equal(t, "kueue.x-k8s.io/v1beta1", cq.GetAPIVersion())
	})

	t.Run("namespace deletion finalizes", func(t *testing.T) {
		nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
		require.NoError(t, c.Delete(ctx, nsObj))
		require.EventuallyWithT(t, func(ct *assert.CollectT) {
			err := c.Get(ctx, client.ObjectKeyFromObject(nsObj), &corev1.Namespace{})
			assert.True(ct, apierrors.IsNotFound(err), "namespace %s still exists (err=%v)", ns, err)
		}, waitTimeout, pollEvery, "controller-manager log:\n%s", env.LogTail("kube-controller-manager.log", 30))
	})
}

func TestAPIServerRejectsInvalidObject(t *testing.T) {
	env := testEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	for _, tc := range []struct {
		name, field, value string
		// wantInMessage is one of the substrings the rejection must contain.
		wantInMessage []string
	}{
		// Kueue's mutating webhook cannot decode the quantity and denies the request
		// before the API server's own validation runs.
		{"invalid quantity", "nominalQuota", `"4x"`, []string{"nominalQuota", "quantities must match"}},
		// The API server's OpenAPI schema validation of the CRD rejects the enum value.
		{"invalid enum", "queueingStrategy", "Sideways", []string{"queueingStrategy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			quota, strategy := "4", "BestEffortFIFO"
			if tc.field == "nominalQuota" {
				quota = tc.value
			} else {
				strategy = tc.value
			}
			bad := manifest(t, `
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: invalid
spec:
  queueingStrategy: `+strategy+`
  resourceGroups:
  - coveredResources: ["nvidia.com/gpu"]
    flavors:
    - name: default
      resources:
      - name: nvidia.com/gpu
        nominalQuota: `+quota+`
`)
			err := env.Apply(ctx, bad)
			require.Error(t, err, "the API server must reject the object")
			t.Logf("rejected: %v", err)
			assert.True(t, apierrors.IsInvalid(err) || apierrors.IsBadRequest(err), "unexpected error type: %v", err)
			matched := false
			for _, want := range tc.wantInMessage {
				matched = matched || strings.Contains(err.Error(), want)
			}
			assert.True(t, matched, "error %q mentions none of %q", err, tc.wantInMessage)

			err = env.Client.Get(ctx, client.ObjectKey{Name: "invalid"}, &kueue.ClusterQueue{})
			assert.True(t, apierrors.IsNotFound(err), "rejected object must not exist (err=%v)", err)
		})
	}
}

// gpuJob returns a suspended Job for LocalQueue "gpu" with `pods` pods of one GPU each.
func gpuJob(ns, name string, pods int32) *batchv1.Job {
	oneGPU := corev1.ResourceList{gpu: resource.MustParse("1")}
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: ns,
			Labels:    map[string]string{"kueue.x-k8s.io/queue-name": "gpu"},
		},
		Spec: batchv1.JobSpec{
			Parallelism: ptr.To(pods),
			Completions: ptr.To(pods),
			Suspend:     ptr.To(true),
			Template: corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{
						Name:      "train",
						Image:     "busybox",
						Command:   []string{"true"},
						Resources: corev1.ResourceRequirements{Requests: oneGPU, Limits: oneGPU},
					}},
				},
			},
		},
	}
}

// workloadFor returns the Kueue Workload owned by job, or nil when there is none yet.
func workloadFor(ctx context.Context, ct *assert.CollectT, c client.Client, job *batchv1.Job) *kueue.Workload {
	wls := &kueue.WorkloadList{}
	if !assert.NoError(ct, c.List(ctx, wls, client.InNamespace(job.Namespace))) {
		return nil
	}
	for i := range wls.Items {
		for _, ref := range wls.Items[i].OwnerReferences {
			if ref.UID == job.UID {
				return &wls.Items[i]
			}
		}
	}
	return nil
}
