package tenancy

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/core/v1"
	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/field"
)

// The namespace quota bounds what a team can create besides GPUs
// ("Resource Quotas",
// https://kubernetes.io/docs/concepts/policy/resource-quotas/): compute
// (requests.cpu, requests.memory), pods, object counts and storage per
// StorageClass. The ResourceQuota admission plugin counts every object of
// the namespace whoever creates it, so a claim the ephemeral volume
// controller creates for a generic ephemeral volume counts as a claim of
// its class like any other ("Ephemeral Volumes", generic ephemeral
// volumes: "the usual quota ... applies",
// https://kubernetes.io/docs/concepts/storage/ephemeral-volumes/#generic-ephemeral-volumes).
const (
	// TeamQuotaName is the namespace ResourceQuota on cpu, memory, pods,
	// object counts and storage (Team.NamespaceQuota). The GPU quota stays
	// in ResourceQuotaName.
	TeamQuotaName = "team-quota"
	// DefaultRequestsName is the LimitRange that gives containers without
	// requests DefaultCPURequest and DefaultMemoryRequest: with a
	// requests.cpu or requests.memory quota the API server refuses a pod
	// whose containers state none ("Resource Quotas": "the quota system
	// may force users to specify requests").
	DefaultRequestsName = "aksml-default-requests"
	// DefaultCPURequest and DefaultMemoryRequest are the LimitRange's
	// defaultRequest: a small sidecar's worth, so an unsized container is
	// admitted and counted without reserving a node's share.
	DefaultCPURequest    = "100m"
	DefaultMemoryRequest = "256Mi"
)

// Defaults of the namespace quota (NamespaceQuotaHard). Object counts
// bound what the API server and etcd keep per team; they are well above
// what the aksml workload kinds create per run (a Job, its pods, a Service
// per distributed job) and below what would slow list calls.
const (
	// DefaultMinPods is the smallest pods quota: a team with little cpu
	// quota still runs a distributed job's pods and some sidecars.
	DefaultMinPods = 50
	// DefaultJobs, DefaultCronJobs, DefaultKubeflowJobs, DefaultServices,
	// DefaultConfigMaps and DefaultSecrets are the object counts.
	// Finished Jobs count until deleted (ttlSecondsAfterFinished).
	DefaultJobs         = 200
	DefaultCronJobs     = 20
	DefaultKubeflowJobs = 50
	DefaultServices     = 20
	DefaultConfigMaps   = 100
	DefaultSecrets      = 100
	// DefaultClaimsPerClass is how many claims a team may hold per aksml
	// StorageClass beyond those the stack creates for it: scratch disks
	// and generic ephemeral volumes of a few concurrent jobs.
	DefaultClaimsPerClass = 10
	// DefaultStoragePerClass is how much a team may request per aksml
	// StorageClass beyond the stack's own claims, in bytes (1Ti).
	DefaultStoragePerClass = 1 << 40
)

// Quota resource names ("Resource Quotas", link above).
const (
	QuotaRequestsCPU    = "requests.cpu"
	QuotaRequestsMemory = "requests.memory"
	QuotaPods           = "pods"
	QuotaClaims         = "persistentvolumeclaims"
	QuotaStorage        = "requests.storage"
)

// ClassClaimsQuota and ClassStorageQuota are the quota names of the claims
// and storage requested of one StorageClass.
func ClassClaimsQuota(class string) string {
	return class + ".storageclass.storage.k8s.io/" + QuotaClaims
}

// ClassStorageQuota is the quota name of the storage requested of one
// StorageClass (see ClassClaimsQuota).
func ClassStorageQuota(class string) string {
	return class + ".storageclass.storage.k8s.io/" + QuotaStorage
}

// Claim is a PersistentVolumeClaim the stack itself creates in every team
// namespace: its class and requested size (a Kubernetes quantity).
type Claim struct {
	Class, Size string
}

// QuotaBasis is what a team's default namespace quota is derived from.
type QuotaBasis struct {
	// CPU (cores) and Memory (bytes) are the most the team's queue can
	// admit at once (components/queues Resolved.CPUMemoryBound).
	CPU, Memory float64
	// Classes are the StorageClasses the stack provides; each gets a claims
	// and a storage quota.
	Classes []string
	// Claims are the claims the stack creates in the namespace; the quota
	// leaves room for them on top of the per-class defaults.
	Claims []Claim
}

// NamespaceQuotaHard is the `hard` of a team's TeamQuotaName: the defaults
// derived from basis with overrides replacing entries. Defaults:
//
//   - requests.cpu and requests.memory: what the team's queue can admit
//     (basis.CPU, basis.Memory), so the quota never blocks a workload the
//     queue admits and bounds whatever bypasses it;
//   - pods: one per admissible core, at least DefaultMinPods;
//   - count/jobs.batch DefaultJobs, count/cronjobs.batch DefaultCronJobs,
//     count/pytorchjobs.kubeflow.org and count/tfjobs.kubeflow.org
//     DefaultKubeflowJobs, services DefaultServices, configmaps
//     DefaultConfigMaps, secrets DefaultSecrets;
//   - per class of basis.Classes: the stack's own claims of that class
//     plus DefaultClaimsPerClass claims and DefaultStoragePerClass bytes;
//   - persistentvolumeclaims and requests.storage: the sum over the
//     classes, which also bounds claims of any other class (the AKS
//     built-in classes).
func NamespaceQuotaHard(basis QuotaBasis, overrides map[string]string) map[string]string {
	hard := map[string]string{
		QuotaRequestsCPU:                 formatCPU(basis.CPU),
		QuotaRequestsMemory:              formatBytes(basis.Memory),
		QuotaPods:                        strconv.Itoa(max(DefaultMinPods, int(math.Ceil(basis.CPU)))),
		"count/jobs.batch":               strconv.Itoa(DefaultJobs),
		"count/cronjobs.batch":           strconv.Itoa(DefaultCronJobs),
		"count/pytorchjobs.kubeflow.org": strconv.Itoa(DefaultKubeflowJobs),
		"count/tfjobs.kubeflow.org":      strconv.Itoa(DefaultKubeflowJobs),
		"services":                       strconv.Itoa(DefaultServices),
		"configmaps":                     strconv.Itoa(DefaultConfigMaps),
		"secrets":                        strconv.Itoa(DefaultSecrets),
	}
	totalClaims, totalStorage := 0, 0.0
	for _, class := range basis.Classes {
		claims, storage := DefaultClaimsPerClass, float64(DefaultStoragePerClass)
		for _, c := range basis.Claims {
			if c.Class == class {
				size, _ := field.ParseQuantity(c.Size)
				claims, storage = claims+1, storage+size
			}
		}
		hard[ClassClaimsQuota(class)] = strconv.Itoa(claims)
		hard[ClassStorageQuota(class)] = formatBytes(storage)
		totalClaims, totalStorage = totalClaims+claims, totalStorage+storage
	}
	hard[QuotaClaims] = strconv.Itoa(totalClaims)
	hard[QuotaStorage] = formatBytes(totalStorage)
	maps.Copy(hard, overrides)
	return hard
}

// formatCPU writes cores as whole cores or millicores.
func formatCPU(cores float64) string {
	milli := int64(math.Ceil(cores * 1000))
	if milli%1000 == 0 {
		return strconv.FormatInt(milli/1000, 10)
	}
	return strconv.FormatInt(milli, 10) + "m"
}

// formatBytes writes bytes in the largest binary unit that divides them.
func formatBytes(b float64) string {
	n := int64(math.Ceil(b))
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"Ti", 1 << 40}, {"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}} {
		if n != 0 && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// validateQuota checks a ResourceQuota `hard` at path: each name a
// qualified name, each value a Kubernetes quantity.
func validateQuota(hard map[string]string, path field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, r := range slices.Sorted(maps.Keys(hard)) {
		p := path.Key(r)
		if problem := field.LabelKeyProblem(r); r == "" || problem != "" {
			errs = append(errs, field.Invalid(p, "%q is not a quota resource name (%s); write e.g. requests.cpu, pods, count/jobs.batch or <class>.storageclass.storage.k8s.io/requests.storage", r, problem))
			continue
		}
		if _, ok := field.ParseQuantity(hard[r]); !ok {
			errs = append(errs, field.Invalid(p, "%q is not a Kubernetes quantity for resource %q; write e.g. \"4\"", hard[r], r))
		}
	}
	return errs
}

// ValidateClaimsFit checks that each team's namespace quota
// (Team.NamespaceQuota) leaves room for claims, those the stack itself
// creates in every team namespace: an override of a class's
// persistentvolumeclaims or requests.storage, or of the totals, below them
// would make the API server refuse the stack's own claim at `pulumi up`
// ("exceeded quota"), after part of the stack is applied. path is the list's
// config key (the aksml stacks pass `aksml:teams`), so a problem reads
// `aksml:teams[0].namespaceQuota["<class>.storageclass.storage.k8s.io/requests.storage"]`.
// The defaults (NamespaceQuotaHard) always fit; only overrides can fail.
func ValidateClaimsFit(teams []Team, claims []Claim, path field.Path) field.ErrorList {
	need := map[string]struct {
		count int
		bytes float64
		what  []string
	}{}
	add := func(r string, bytes float64, what string) {
		n := need[r]
		n.count, n.bytes, n.what = n.count+1, n.bytes+bytes, append(n.what, what)
		need[r] = n
	}
	for _, c := range claims {
		size, _ := field.ParseQuantity(c.Size)
		what := c.Size + " of " + c.Class
		add(ClassClaimsQuota(c.Class), size, what)
		add(ClassStorageQuota(c.Class), size, what)
		add(QuotaClaims, size, what)
		add(QuotaStorage, size, what)
	}
	var errs field.ErrorList
	for i, t := range teams {
		for _, r := range slices.Sorted(maps.Keys(t.NamespaceQuota)) {
			n, ok := need[r]
			if !ok {
				continue
			}
			have, ok := field.ParseQuantity(t.NamespaceQuota[r])
			if !ok {
				continue // validateQuota reports it
			}
			want, unit := float64(n.count), strconv.Itoa(n.count)
			if r == QuotaStorage || strings.HasSuffix(r, "/"+QuotaStorage) {
				want, unit = n.bytes, formatBytes(n.bytes)
			}
			if have < want {
				errs = append(errs, field.Invalid(path.Index(i).Child("namespaceQuota").Key(r),
					"%q is below what the stack itself claims in team %s's namespace (%s: the datasets and checkpoints claims of aksml:storage.volumes), so the API server would refuse those claims; raise it to at least %s, or remove the key to get the default (the stack's claims plus room for the team's own)",
					t.NamespaceQuota[r], t.Name, strings.Join(n.what, ", "), unit))
			}
		}
	}
	return errs
}

// registerTeamQuota registers team t's TeamQuotaName and, when it bounds
// cpu or memory requests, its DefaultRequestsName LimitRange.
func registerTeamQuota(ctx *pulumi.Context, name string, t Team, ns pulumi.StringInput, opts []pulumi.ResourceOption) ([]pulumi.Resource, error) {
	if len(t.NamespaceQuota) == 0 {
		return nil, nil
	}
	quota, err := corev1.NewResourceQuota(ctx, name+"-team-quota", &corev1.ResourceQuotaArgs{
		Metadata: objectMetaPtr(TeamQuotaName, ns, t),
		Spec:     &corev1.ResourceQuotaSpecArgs{Hard: pulumi.ToStringMap(t.NamespaceQuota)},
	}, opts...)
	if err != nil {
		return nil, err
	}
	out := []pulumi.Resource{quota}
	_, cpu := t.NamespaceQuota[QuotaRequestsCPU]
	_, memory := t.NamespaceQuota[QuotaRequestsMemory]
	if !cpu && !memory {
		return out, nil
	}
	limits, err := corev1.NewLimitRange(ctx, name+"-default-requests", &corev1.LimitRangeArgs{
		Metadata: objectMetaPtr(DefaultRequestsName, ns, t),
		Spec: &corev1.LimitRangeSpecArgs{Limits: corev1.LimitRangeItemArray{corev1.LimitRangeItemArgs{
			Type:           pulumi.String("Container"),
			DefaultRequest: pulumi.StringMap{"cpu": pulumi.String(DefaultCPURequest), "memory": pulumi.String(DefaultMemoryRequest)},
		}}},
	}, opts...)
	if err != nil {
		return nil, err
	}
	return append(out, limits), nil
}

// objectMetaPtr is objectMeta without annotations, as a pointer.
func objectMetaPtr(name string, ns pulumi.StringInput, t Team) *metav1.ObjectMetaArgs {
	m := objectMeta(name, ns, t, nil)
	return &m
}
