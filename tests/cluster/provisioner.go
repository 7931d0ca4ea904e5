package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ProvisionedByLabel marks the PersistentVolumes RunVolumeProvisioner creates.
const ProvisionedByLabel = "aksml.io/sandbox-provisioner"

// RunVolumeProvisioner stands in for the Azure Files and Blob CSI
// provisioners on a control plane without them: until ctx ends, every
// interval it gives each Pending PersistentVolumeClaim whose StorageClass
// names a CSI provisioner a PersistentVolume pre-bound to it (claimRef),
// with the claim's size and access modes and the class's reclaim policy, as
// the CSI provisioner would. kube-controller-manager's PersistentVolume
// binder then binds them, so `pulumi up` (which waits for Immediate claims
// to be Bound) completes. The volumes point at no real storage.
func RunVolumeProvisioner(ctx context.Context, c client.Client, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := provisionPending(ctx, c); err != nil && ctx.Err() == nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// provisionWorkers is how many volumes provisionPending creates at once. One at a
// time, behind a `pulumi up` creating 200 claims on a loaded API server, a claim
// waited 21 s on average (55 s at most) for its volume.
const provisionWorkers = 16

// provisionPending creates the missing volumes for Pending claims once, provisionWorkers
// at a time, reading the StorageClasses once.
func provisionPending(ctx context.Context, c client.Client) error {
	var claims corev1.PersistentVolumeClaimList
	if err := c.List(ctx, &claims); err != nil {
		return err
	}
	var pending []*corev1.PersistentVolumeClaim
	for i := range claims.Items {
		pvc := &claims.Items[i]
		if pvc.Status.Phase == corev1.ClaimPending && pvc.Spec.StorageClassName != nil && pvc.Spec.VolumeName == "" {
			pending = append(pending, pvc)
		}
	}
	if len(pending) == 0 {
		return nil
	}
	var classes storagev1.StorageClassList
	if err := c.List(ctx, &classes); err != nil {
		return err
	}
	byName := map[string]*storagev1.StorageClass{}
	for i := range classes.Items {
		byName[classes.Items[i].Name] = &classes.Items[i]
	}
	work := make(chan *corev1.PersistentVolumeClaim)
	errs := make(chan error, len(pending))
	var wg sync.WaitGroup
	for range min(provisionWorkers, len(pending)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for pvc := range work {
				if err := c.Create(ctx, volumeFor(pvc, byName[*pvc.Spec.StorageClassName])); err != nil && !apierrors.IsAlreadyExists(err) {
					errs <- fmt.Errorf("provision %s/%s: %w", pvc.Namespace, pvc.Name, err)
				}
			}
		}()
	}
	for _, pvc := range pending {
		// A claim whose class does not exist yet waits, as it would for a CSI provisioner.
		if byName[*pvc.Spec.StorageClassName] != nil {
			work <- pvc
		}
	}
	close(work)
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return errors.Join(all...)
}

// volumeFor is the PersistentVolume a CSI provisioner would create for pvc.
func volumeFor(pvc *corev1.PersistentVolumeClaim, class *storagev1.StorageClass) *corev1.PersistentVolume {
	reclaim := corev1.PersistentVolumeReclaimDelete
	if class.ReclaimPolicy != nil {
		reclaim = *class.ReclaimPolicy
	}
	name := "sandbox-" + string(pvc.UID)
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{ProvisionedByLabel: "true"}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: pvc.Spec.Resources.Requests[corev1.ResourceStorage]},
			AccessModes:                   pvc.Spec.AccessModes,
			PersistentVolumeReclaimPolicy: reclaim,
			StorageClassName:              class.Name,
			MountOptions:                  class.MountOptions,
			ClaimRef: &corev1.ObjectReference{
				Kind: "PersistentVolumeClaim", APIVersion: "v1",
				Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID,
			},
			PersistentVolumeSource: corev1.PersistentVolumeSource{
				CSI: &corev1.CSIPersistentVolumeSource{Driver: class.Provisioner, VolumeHandle: name},
			},
		},
	}
}
