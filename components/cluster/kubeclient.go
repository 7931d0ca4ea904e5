package cluster

import (
	"github.com/aksml/aksml/components/field"
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Defaults of KubeClient.
const (
	// DefaultKubeClientQPS is the Kubernetes provider's sustained request
	// rate aksml sets: four times the provider's own default of 50, at which
	// the first preview of the 100-team bench stack (1827 objects, about one
	// request each) took 37.1 s; 19.4 s without a limit and 19.7 s at 200
	// (README, Figures).
	DefaultKubeClientQPS = 200.0
	// DefaultKubeClientBurst is the requests the provider may send at once
	// above that rate (the provider's own default is 120).
	DefaultKubeClientBurst = 400
)

// KubeClient is the client-side rate limit of the Kubernetes provider
// aksml configures (its kubeClientSettings; the provider's defaults are 50
// requests a second with bursts of 120, pulumi-kubernetes
// provider/pkg/provider/provider.go). The engine sends at most its
// parallelism of steps at once, and the API server protects itself with
// API Priority and Fairness, answering 429 with Retry-After, which the
// provider's client (client-go) waits out and retries ("API Priority and
// Fairness", https://kubernetes.io/docs/concepts/cluster-administration/flow-control/;
// "Best practices for performance and scaling for large workloads in
// AKS", https://learn.microsoft.com/azure/aks/best-practices-performance-scale-large,
// which names the API server's request latency and success rate as the
// signal to watch). Lower it for a Free-tier control plane shared with
// other heavy clients.
type KubeClient struct {
	// QPS is the sustained requests per second, at least 1. Default
	// DefaultKubeClientQPS (200).
	QPS float64 `json:"qps,omitempty" pulumi:"qps,optional"`
	// Burst is how many requests may go at once above QPS, at least 1.
	// Default DefaultKubeClientBurst (400).
	Burst int `json:"burst,omitempty" pulumi:"burst,optional"`
}

// Default fills the unset (zero) fields with their defaults.
func (k *KubeClient) Default() {
	if k.QPS == 0 {
		k.QPS = DefaultKubeClientQPS
	}
	if k.Burst == 0 {
		k.Burst = DefaultKubeClientBurst
	}
}

// Validate checks a KubeClient, unset (zero) fields allowed (they take
// the defaults): QPS at least 1, Burst positive. It lists every problem
// under path.
func (k KubeClient) Validate(path field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case k.QPS < 0:
		// client-go turns its limiter off for a negative QPS (rest.Config.QPS).
		errs = append(errs, field.Invalid(path.Child("qps"), "%v: give at least 1 request per second, or leave it unset for %v; a negative rate would turn the provider's limit off", k.QPS, DefaultKubeClientQPS))
	case k.QPS > 0 && k.QPS < 1:
		errs = append(errs, field.Invalid(path.Child("qps"), "%v: give at least 1 request per second, or leave it unset for %v; a stack of a thousand objects would take over a quarter of an hour to preview", k.QPS, DefaultKubeClientQPS))
	}
	if k.Burst < 0 {
		errs = append(errs, field.Invalid(path.Child("burst"), "%d: give at least 1 request, or leave it unset for %d", k.Burst, DefaultKubeClientBurst))
	}
	return errs
}

// settings are the provider's kubeClientSettings for k, defaulted.
func (k KubeClient) settings() kubernetes.KubeClientSettingsPtrInput {
	k.Default()
	return kubernetes.KubeClientSettingsArgs{Qps: pulumi.Float64(k.QPS), Burst: pulumi.Int(k.Burst)}
}
