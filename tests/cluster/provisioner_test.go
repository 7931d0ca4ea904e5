package cluster

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestVolumeProvisioner gives every Pending claim of an existing CSI class a volume
// pre-bound to it (size, access modes, the class's reclaim policy and driver), in one
// pass for many claims at once, and leaves a claim whose class does not exist Pending
// without a volume, as a CSI provisioner would.
func TestVolumeProvisioner(t *testing.T) {
	env := testEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := env.Client
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "provisioner-test"}}
	require.NoError(t, c.Create(ctx, ns))
	retain := corev1.PersistentVolumeReclaimRetain
	class := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "provisioner-test"}, Provisioner: "file.csi.azure.com", ReclaimPolicy: &retain}
	require.NoError(t, c.Create(ctx, class))
	defer func() {
		cctx, ccancel := context.WithTimeout(context.Background(), time.Minute)
		defer ccancel()
		_ = c.DeleteAllOf(cctx, &corev1.PersistentVolume{}, client.MatchingLabels{ProvisionedByLabel: "true"})
		_ = c.Delete(cctx, class)
		_ = c.Delete(cctx, ns)
	}()

	claim := func(name, className string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: name},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
				StorageClassName: &className,
				Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("5Gi")}},
			},
		}
	}
	const n = 40
	for i := range n {
		require.NoError(t, c.Create(ctx, claim(fmt.Sprintf("claim-%02d", i), class.Name)))
	}
	orphan := claim("no-class", "missing-class")
	require.NoError(t, c.Create(ctx, orphan))

	require.NoError(t, provisionPending(ctx, c))
	var pvs corev1.PersistentVolumeList
	require.NoError(t, c.List(ctx, &pvs, client.MatchingLabels{ProvisionedByLabel: "true"}))
	byClaim := map[string]corev1.PersistentVolume{}
	for _, pv := range pvs.Items {
		if pv.Spec.ClaimRef != nil && pv.Spec.ClaimRef.Namespace == ns.Name {
			byClaim[pv.Spec.ClaimRef.Name] = pv
		}
	}
	require.Len(t, byClaim, n, "one pass provisions every claim of an existing class, and only those")
	_, ok := byClaim[orphan.Name]
	require.False(t, ok, "a claim whose class does not exist gets no volume")
	pv := byClaim["claim-07"]
	require.Equal(t, retain, pv.Spec.PersistentVolumeReclaimPolicy)
	require.Equal(t, "file.csi.azure.com", pv.Spec.CSI.Driver)
	require.Equal(t, "5Gi", pv.Spec.Capacity.Storage().String())
	require.Equal(t, []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}, pv.Spec.AccessModes)

	// A second pass creates nothing new: the claims have their volumes.
	require.NoError(t, provisionPending(ctx, c))
	var again corev1.PersistentVolumeList
	require.NoError(t, c.List(ctx, &again, client.MatchingLabels{ProvisionedByLabel: "true"}))
	require.Len(t, again.Items, len(pvs.Items))
}
