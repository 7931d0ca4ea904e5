package workloads

import (
	"fmt"
	"net"
	"regexp"
	"slices"
	"strconv"

	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/apiextensions"
	corev1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/core/v1"
	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
	networkingv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/networking/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
)

// NCCL holds the NCCL settings of a distributed training job (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops)
// "Configure NCCL communication with the AKS CNI").
type NCCL struct {
	// SocketIfname is NCCL_SOCKET_IFNAME, the pod interface. Default "eth0".
	SocketIfname string `json:"socketIfname,omitempty" pulumi:"socketIfname,optional"`
	// IBDisable is NCCL_IB_DISABLE: "1" (default, TCP sockets). "0"
	// (InfiniBand/RDMA) is refused: on an RDMA-capable SKU (ND-series) the
	// pod still sees no InfiniBand device, because aksml installs no RDMA
	// device plugin (NVIDIA Network Operator) and grants no IPC_LOCK, which
	// RDMA in pods needs (Azure/aks-rdma-infiniband,
	// https://azure.github.io/aks-rdma-infiniband/configurations/network-operator);
	// NCCL would fall back to TCP unnoticed. See README "InfiniBand".
	IBDisable string `json:"ibDisable,omitempty" pulumi:"ibDisable,optional"`
	// Debug is NCCL_DEBUG: VERSION, WARN, INFO (default, for validation) or
	// TRACE. Lower it once the job is tuned.
	Debug string `json:"debug,omitempty" pulumi:"debug,optional"`
}

// NCCLDebugLevels are the valid NCCL_DEBUG values.
var NCCLDebugLevels = []string{"VERSION", "WARN", "INFO", "TRACE"}

// CleanPodPolicies are the valid Kubeflow runPolicy.cleanPodPolicy values.
var CleanPodPolicies = []string{"None", "Running", "All"}

var ifnameRE = regexp.MustCompile(`^[\^=]?[A-Za-z0-9_.:,\-]+$`)

// kubeflowMaxName is the longest job name whose pods and Services,
// <name>-worker-<index>, stay DNS labels with replicas replicas.
func kubeflowMaxName(replicas int) int {
	return 63 - len("-worker-") - len(strconv.Itoa(max(replicas-1, 0)))
}

// validateKubeflowName checks what the Training Operator's webhook checks:
// a job name is a DNS-1035 label (it starts with a letter).
func validateKubeflowName(name string, p field.Path) field.ErrorList {
	if name != "" && !startsWithLetter(name) {
		return field.ErrorList{field.Invalid(p, "%q must start with a letter: the Training Operator requires DNS-1035 job names", name)}
	}
	return nil
}

// startsWithLetter reports whether a lowercase DNS label starts as a
// DNS-1035 label must: with a letter.
func startsWithLetter(name string) bool { return name != "" && name[0] >= 'a' && name[0] <= 'z' }

func (n *NCCL) applyDefaults() {
	if n.SocketIfname == "" {
		n.SocketIfname = DefaultNCCLSocketIfname
	}
	if n.IBDisable == "" {
		n.IBDisable = DefaultNCCLIBDisable
	}
	if n.Debug == "" {
		n.Debug = DefaultNCCLDebug
	}
}

func (n *NCCL) validate(pool *gpupool.Resolved, p field.Path) field.ErrorList {
	var errs field.ErrorList
	if !ifnameRE.MatchString(n.SocketIfname) {
		errs = append(errs, field.Invalid(p.Child("socketIfname"), "%q is not an interface name; use the pod interface, e.g. eth0", n.SocketIfname))
	}
	switch n.IBDisable {
	case "1":
	case "0":
		sku, ok := gpupool.SKU{}, false
		if pool != nil {
			sku, ok = pool.SKU()
		}
		if ok && !sku.RDMACapable {
			errs = append(errs, field.Invalid(p.Child("ibDisable"), "NCCL_IB_DISABLE=0 needs an RDMA-capable SKU (ND96asr_v4, ND96amsr_A100_v4, ND96isr_H100_v5); %s has no InfiniBand, keep \"1\" for TCP sockets", sku.VMSize))
		} else {
			errs = append(errs, field.Invalid(p.Child("ibDisable"), "NCCL_IB_DISABLE=0: aksml does not expose InfiniBand to pods (no RDMA device plugin from the NVIDIA Network Operator on the pool, no IPC_LOCK capability), so NCCL would fall back to TCP; keep \"1\" (README \"InfiniBand\" says what RDMA in pods needs)"))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("ibDisable"), n.IBDisable, []string{"1", "0"}))
	}
	if !slices.Contains(NCCLDebugLevels, n.Debug) {
		errs = append(errs, field.NotSupported(p.Child("debug"), n.Debug, NCCLDebugLevels))
	}
	return errs
}

// ncclEnv is the AKS MLOps best practices' NCCL baseline; torch adds
// TORCH_NCCL_ASYNC_ERROR_HANDLING=1 so that PyTorch exits instead of hanging
// after a communication failure.
func ncclEnv(n NCCL, torch bool) []envVar {
	env := []envVar{
		{name: EnvNCCLDebug, value: n.Debug},
		{name: EnvNCCLSocketIfname, value: n.SocketIfname},
		{name: EnvNCCLIBDisable, value: n.IBDisable},
	}
	if torch {
		env = append(env, envVar{name: EnvTorchAsyncErrorHandling, value: "1"})
	}
	return env
}

// Distributed holds what PyTorchJob and TFJob share besides Common.
type Distributed struct {
	// Pool is the GPU pool the replicas run on. Required; pools for
	// inference serving are refused.
	Pool *gpupool.Resolved
	// TotalGPUs is the GPU count of the whole job. Required: it must equal
	// the GPU replicas × Resources.GPUs, so that replica counts and GPUs
	// stay aligned (AKS MLOps best practices).
	TotalGPUs int
	// NCCL are the NCCL settings.
	NCCL NCCL
	// BackoffLimit is runPolicy.backoffLimit. Default 6.
	BackoffLimit int
	// ActiveDeadlineSeconds is runPolicy.activeDeadlineSeconds. Default 86400.
	ActiveDeadlineSeconds int
	// TTLSecondsAfterFinished is runPolicy.ttlSecondsAfterFinished. Default 86400.
	TTLSecondsAfterFinished int
	// TerminationGracePeriodSeconds gives replicas time to checkpoint on
	// SIGTERM. Default 120.
	TerminationGracePeriodSeconds int
	// CleanPodPolicy is runPolicy.cleanPodPolicy: None (default, AKS MLOps best practices),
	// Running or All.
	CleanPodPolicy string
	// AllowEgressCIDRs are extra egress destinations of the job's
	// NetworkPolicy (e.g. a storage private endpoint). Default none: the
	// replicas reach each other and DNS only (AKS MLOps best practices).
	AllowEgressCIDRs []string
}

func (d *Distributed) applyDefaults() {
	d.NCCL.applyDefaults()
	d.BackoffLimit = orDefault(d.BackoffLimit, DefaultBackoffLimit)
	d.ActiveDeadlineSeconds = orDefault(d.ActiveDeadlineSeconds, DefaultActiveDeadlineSeconds)
	d.TTLSecondsAfterFinished = orDefault(d.TTLSecondsAfterFinished, DefaultTTLSecondsAfterFinished)
	d.TerminationGracePeriodSeconds = orDefault(d.TerminationGracePeriodSeconds, DefaultTerminationGracePeriodSeconds)
	if d.CleanPodPolicy == "" {
		d.CleanPodPolicy = DefaultCleanPodPolicy
	}
}

// validate checks the shared settings; gpuReplicas is the number of
// replicas that request Resources.GPUs, replicas the total.
func (d *Distributed) validate(c *Common, gpuReplicas, replicas int, p field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateTrainingPool(d.Pool, p.Child("pool"))...)
	if d.Pool != nil {
		errs = append(errs, validateFit(d.Pool, c.Resources, p.Child("resources"))...)
	}
	if c.Resources.GPUs < 1 {
		errs = append(errs, field.Invalid(p.Child("resources").Child("gpus"), "%d GPUs per replica; distributed GPU training requests at least 1", c.Resources.GPUs))
	}
	if d.Pool != nil {
		errs = append(errs, validateGang(d.Pool, gpuReplicas*c.Resources.GPUs, fmt.Sprintf("%d GPU replicas × %d GPUs", gpuReplicas, c.Resources.GPUs), p.Child("replicas"))...)
	}
	if d.TotalGPUs != gpuReplicas*c.Resources.GPUs {
		errs = append(errs, field.Invalid(p.Child("totalGPUs"), "%d GPUs requested but %d GPU replicas × %d GPUs per replica = %d; align the replica count with the GPUs the framework uses", d.TotalGPUs, gpuReplicas, c.Resources.GPUs, gpuReplicas*c.Resources.GPUs))
	}
	if replicas > 1 && c.ShmSize == ShmDisabled {
		errs = append(errs, field.Invalid(p.Child("shmSize"), "multi-replica training needs a memory-backed /dev/shm for NCCL and data loaders (AKS MLOps best practices); set a size such as 8Gi"))
	}
	errs = append(errs, d.NCCL.validate(d.Pool, p.Child("nccl"))...)
	errs = append(errs, validateJobLifecycle(d.BackoffLimit, d.ActiveDeadlineSeconds, d.TTLSecondsAfterFinished, d.TerminationGracePeriodSeconds, p)...)
	if !slices.Contains(CleanPodPolicies, d.CleanPodPolicy) {
		errs = append(errs, field.NotSupported(p.Child("cleanPodPolicy"), d.CleanPodPolicy, CleanPodPolicies))
	}
	for i, cidr := range d.AllowEgressCIDRs {
		if _, _, err := net.ParseCIDR(cidr); err != nil {
			errs = append(errs, field.Invalid(p.Child("allowEgressCIDRs").Index(i), "%q is not a CIDR; write e.g. 10.0.8.0/24", cidr))
		}
	}
	return errs
}

// runPolicy is the Kubeflow runPolicy: cleanup, retries, deadline, and the
// queueing of the whole job (Kueue: suspended until admitted; Volcano: a
// gang of all replicas).
func runPolicy(c *Common, d *Distributed, replicas int) map[string]any {
	rp := map[string]any{
		"cleanPodPolicy":          d.CleanPodPolicy,
		"backoffLimit":            d.BackoffLimit,
		"activeDeadlineSeconds":   d.ActiveDeadlineSeconds,
		"ttlSecondsAfterFinished": d.TTLSecondsAfterFinished,
	}
	switch c.Scheduler {
	case SchedulerKueue:
		rp["suspend"] = true
	case SchedulerVolcano:
		rp["schedulingPolicy"] = map[string]any{
			"queue":         c.QueueName,
			"minAvailable":  replicas,
			"priorityClass": c.PriorityClass,
		}
	}
	return rp
}

// replicaSpec is one Kubeflow replica type: count, restart policy
// OnFailure (AKS MLOps best practices) and pod template.
func replicaSpec(replicas int, template corev1.PodTemplateSpecArgs) map[string]any {
	return map[string]any{
		"replicas":      replicas,
		"restartPolicy": KubeflowRestartPolicy,
		"template":      template,
	}
}

// replicaPod is the pod of a GPU replica of a Kubeflow job.
func replicaPod(c *Common, d *Distributed, kind, container string, torch bool) podSpec {
	ps := podSpec{
		common:      c,
		kind:        kind,
		container:   container,
		resources:   c.Resources,
		env:         ncclEnv(d.NCCL, torch),
		labels:      map[string]string{TrainingJobLabel: c.Name},
		gracePeriod: d.TerminationGracePeriodSeconds,
	}
	return volcanoPodSpec(gpuPodSpec(ps, d.Pool, c.Resources.GPUs))
}

// kubeflowArgs builds a Kubeflow job custom resource of kind (PyTorchJob,
// TFJob): its run policy over its total replicas and its replica specs by
// replica type under replicasKey (pytorchReplicaSpecs, tfReplicaSpecs).
func kubeflowArgs(c *Common, d *Distributed, kind, componentKind, replicasKey string, replicas map[string]any, total int) *apiextensions.CustomResourceArgs {
	return &apiextensions.CustomResourceArgs{
		ApiVersion:  pulumi.String(KubeflowAPIVersion),
		Kind:        pulumi.String(kind),
		Metadata:    objectMeta(c, merge(objectLabels(c, componentKind), queueLabels(c)), awaitAnnotations(c)),
		OtherFields: kubernetes.UntypedArgs{"spec": map[string]any{"runPolicy": runPolicy(c, d, total), replicasKey: replicas}},
	}
}

// ncclNetworkPolicyArgs is the AKS MLOps best practices' allow-pytorch-nccl policy for one
// job: replicas talk to each other on any port (NCCL negotiates dynamic
// ports) and resolve DNS; nothing else, except the metrics port from
// kube-system (managed Prometheus) and AllowEgressCIDRs when set.
func ncclNetworkPolicyArgs(c *Common, d *Distributed) *networkingv1.NetworkPolicyArgs {
	job := metav1.LabelSelectorArgs{MatchLabels: pulumi.StringMap{TrainingJobLabel: pulumi.String(c.Name)}}
	kubeSystem := metav1.LabelSelectorArgs{MatchLabels: pulumi.StringMap{"kubernetes.io/metadata.name": pulumi.String("kube-system")}}
	ingress := networkingv1.NetworkPolicyIngressRuleArray{
		networkingv1.NetworkPolicyIngressRuleArgs{From: networkingv1.NetworkPolicyPeerArray{networkingv1.NetworkPolicyPeerArgs{PodSelector: job}}},
	}
	if c.MetricsPort > 0 {
		ingress = append(ingress, networkingv1.NetworkPolicyIngressRuleArgs{
			From:  networkingv1.NetworkPolicyPeerArray{networkingv1.NetworkPolicyPeerArgs{NamespaceSelector: kubeSystem}},
			Ports: networkingv1.NetworkPolicyPortArray{networkingv1.NetworkPolicyPortArgs{Protocol: pulumi.String("TCP"), Port: pulumi.Int(c.MetricsPort)}},
		})
	}
	egress := networkingv1.NetworkPolicyEgressRuleArray{
		networkingv1.NetworkPolicyEgressRuleArgs{To: networkingv1.NetworkPolicyPeerArray{networkingv1.NetworkPolicyPeerArgs{PodSelector: job}}},
		networkingv1.NetworkPolicyEgressRuleArgs{
			To: networkingv1.NetworkPolicyPeerArray{networkingv1.NetworkPolicyPeerArgs{
				NamespaceSelector: kubeSystem,
				PodSelector:       metav1.LabelSelectorArgs{MatchLabels: pulumi.StringMap{"k8s-app": pulumi.String("kube-dns")}},
			}},
			Ports: networkingv1.NetworkPolicyPortArray{
				networkingv1.NetworkPolicyPortArgs{Protocol: pulumi.String("UDP"), Port: pulumi.Int(53)},
				networkingv1.NetworkPolicyPortArgs{Protocol: pulumi.String("TCP"), Port: pulumi.Int(53)},
			},
		},
	}
	if len(d.AllowEgressCIDRs) > 0 {
		peers := networkingv1.NetworkPolicyPeerArray{}
		for _, cidr := range d.AllowEgressCIDRs {
			peers = append(peers, networkingv1.NetworkPolicyPeerArgs{IpBlock: networkingv1.IPBlockArgs{Cidr: pulumi.String(cidr)}})
		}
		egress = append(egress, networkingv1.NetworkPolicyEgressRuleArgs{To: peers})
	}
	return &networkingv1.NetworkPolicyArgs{
		Metadata: &metav1.ObjectMetaArgs{
			Name:      pulumi.String("allow-" + c.Name + "-nccl"),
			Namespace: c.Namespace,
			Labels:    pulumi.ToStringMap(objectLabels(c, "nccl-network-policy")),
		},
		Spec: networkingv1.NetworkPolicySpecArgs{
			PodSelector: job,
			PolicyTypes: pulumi.ToStringArray([]string{"Ingress", "Egress"}),
			Ingress:     ingress,
			Egress:      egress,
		},
	}
}

// newKubeflowJob registers the custom resource and its NetworkPolicy below
// c (passing on the component's options opts) and returns the resource's
// kubeflowChildren registers the kubeflow.org/v1 job `name-<role>` built by
// cr (Kueue owns runPolicy.suspend) and its NCCL NetworkPolicy
// `name-netpol`, the children of PyTorchJob and TFJob.
func kubeflowChildren[A any, P interface {
	workloadArgs[A]
	common() *Common
	distributed() *Distributed
}](role string, cr func(P) *apiextensions.CustomResourceArgs) func(*pulumi.Context, string, P, pulumi.ComponentResource, []pulumi.ResourceOption) (metaOutput, error) {
	return func(ctx *pulumi.Context, name string, a P, c pulumi.ComponentResource, opts []pulumi.ResourceOption) (metaOutput, error) {
		job, err := apiextensions.NewCustomResource(ctx, name+"-"+role, cr(a), append(childOptions(c, opts), kueueOptions(a.common(), kubeflowSuspendPath)...)...)
		if err != nil {
			return nil, err
		}
		if _, err := networkingv1.NewNetworkPolicy(ctx, name+"-netpol", ncclNetworkPolicyArgs(a.common(), a.distributed()), childOptions(c, opts)...); err != nil {
			return nil, err
		}
		return job.Metadata, nil
	}
}

// distributed returns d; PyTorchJob and TFJob embed Distributed.
func (d *Distributed) distributed() *Distributed { return d }

func (d *Distributed) targetPool() *gpupool.Resolved { return d.Pool }
