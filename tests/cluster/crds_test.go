package cluster

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// TestCRDFilesRead reads every CRD directory the control plane installs, as envtest reads
// them before it starts the API server: Kueue's, Kubeflow's, the autoscaler's ProvisioningRequest and KEDA's from their Go modules, the
// others from SharedCRDDir (a shared/ copy, AKSML_SHARED_DIR or the cache `make deps`
// fills). It needs no control plane, so a bare clone proves its CRDs are found without
// building one.
func TestCRDFilesRead(t *testing.T) {
	paths, err := crdPaths(context.Background(), Options{})
	require.NoError(t, err)
	opts := &envtest.CRDInstallOptions{Paths: paths, ErrorIfPathMissing: true}
	require.NoError(t, envtest.ReadCRDFiles(opts))
	names := map[string]bool{}
	for _, crd := range opts.CRDs {
		names[crd.Name] = true
	}
	for _, want := range []string{
		"clusterqueues.kueue.x-k8s.io", "pytorchjobs.kubeflow.org",
		"podmonitors.azmonitoring.coreos.com", "servicemonitors.azmonitoring.coreos.com",
		"jobs.batch.volcano.sh", "queues.scheduling.volcano.sh", "podgroups.scheduling.volcano.sh",
		"workspaces.kaito.sh", "prometheusrules.monitoring.coreos.com",
		"provisioningrequests.autoscaling.x-k8s.io",
		"scaledobjects.keda.sh", "triggerauthentications.keda.sh", "clustertriggerauthentications.keda.sh",
	} {
		assert.True(t, names[want], "CRD %s is not among the %d read from %v", want, len(opts.CRDs), paths)
	}
}
