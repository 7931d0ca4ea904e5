package tenancy

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	admissionv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/admissionregistration/v1"
	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/vocab"
	"github.com/aksml/aksml/components/workloads"
)

// The admission policy enforces the tenancy model in the API server
// itself: a ValidatingAdmissionPolicy per team and a
// ValidatingAdmissionPolicyBinding that applies it, with validation action
// Deny, to the requests in the team's namespace only (namespaceSelector on
// TeamLabel), so platform namespaces are untouched
// ("Validating Admission Policy", admissionregistration.k8s.io/v1, GA in
// Kubernetes 1.30,
// https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/).
// The policy checks the pod spec of Pods and the pod templates of the
// workload kinds that carry one (AdmittedKinds), whoever sends them: a
// member, Pulumi, or a controller creating pods from a template, so a kind
// whose template the policy does not read (a KAITO Workspace) is still
// checked on the pods and Deployments its operator creates.

// AdmissionPolicyName is the name of team's ValidatingAdmissionPolicy and
// of its binding: `aksml-tenancy-<team>`.
func AdmissionPolicyName(team string) string { return "aksml-tenancy-" + team }

// Names of the rules of the admission policy; each message starts with
// `aksml tenancy (<rule>)`, so a refused request names the rule it broke.
const (
	RuleNodeName        = "no-node-name"
	RuleTolerateAll     = "no-wildcard-toleration"
	RuleSystemPool      = "no-system-pool"
	RuleGPUToleration   = "gpu-toleration-needs-gpu"
	RuleInlineVolume    = "no-inline-storage-volume"
	RuleStorageKey      = "no-storage-key-secret"
	RulePriorityClass   = "priority-class"
	RuleKueuePriority   = "kueue-priority-class"
	RuleKEDAPodIdentity = "keda-no-pod-identity"
	RuleKEDAPlatform    = "keda-platform-authentication"
	// RuleWorkspacePool, RuleWorkspaceInstanceType, RuleWorkspaceTemplate
	// and RuleWorkspaceLoadBalancer are the rules of KAITO Workspaces
	// (WorkspaceValidations).
	RuleWorkspacePool         = "kaito-workspace-pool"
	RuleWorkspaceInstanceType = "kaito-instance-type"
	RuleWorkspaceTemplate     = "kaito-no-template"
	RuleWorkspaceLoadBalancer = "kaito-no-load-balancer"
	admissionRulePrefix       = "aksml tenancy ("
)

// KAITO Workspaces in a team namespace. KAITO's workspace controller turns
// a team's Workspace into objects in the Workspace's own namespace only
// (kaito-project/kaito pkg/workspace/manifests: the StatefulSet or tuning
// Job, the Service and the headless Service, all with the Workspace's
// namespace and an owner reference to it; ControllerRevisions in the same
// namespace, pkg/workspace/controllers/workspace_controller.go
// syncControllerRevision). The pods it creates are checked by the rules
// above and counted by the namespace's ResourceQuotas like any pod. What
// the pod rules cannot see is where KAITO places them and what it exposes,
// which the Workspace decides:
//   - placement: KAITO copies resource.labelSelector.matchLabels into the
//     pods' required node affinity and adds tolerations of the GPU taint
//     sku=gpu (pkg/workspace/inference GenerateInferencePodSpec,
//     defaultTolerations); with node auto-provisioning off it creates no
//     node and selects nothing else, so the selector alone decides which
//     GPU pool the pods land on. Without RuleWorkspacePool a team could
//     select another team's pool and run outside the Kueue queue (KAITO's
//     serving StatefulSet is no Kueue integration), which quota per
//     namespace does not prevent (it counts GPUs, not pools).
//   - inference.template: an arbitrary pod template KAITO turns into a
//     StatefulSet (pkg/workspace/manifests GenerateManifestWithPodTemplate);
//     a member's Role grants no StatefulSets, so RuleWorkspaceTemplate keeps
//     it so.
//   - the annotation kaito.sh/enablelb: "True" makes KAITO's Service a
//     LoadBalancer (workspace_controller.go ensureService,
//     AnnotationEnableLB), a public IP in front of the model; a member's
//     Role grants no Services.
const (
	// WorkspaceLoadBalancerAnnotation is KAITO's AnnotationEnableLB.
	WorkspaceLoadBalancerAnnotation = "kaito.sh/enablelb"
	// WorkspacePoolLabel is the node label a team's Workspace must select
	// its pool by, the one AKS puts on every node of a pool
	// (components/gpupool AgentPoolLabel).
	WorkspacePoolLabel = gpupool.AgentPoolLabel
)

// SystemPoolTaintKey is the key of the AKS system pool's taint
// `CriticalAddonsOnly=true:NoSchedule` (components/cluster
// SystemPoolTaint; "Manage system node pools in AKS",
// https://learn.microsoft.com/azure/aks/use-system-pools): a pod that
// tolerates it can land on the system pool next to CoreDNS, Kueue and the
// metrics agents.
const SystemPoolTaintKey = "CriticalAddonsOnly"

// StorageKeySecretPrefix and StorageKeySecretSuffix frame the name of the
// Secret in which the Azure Files and Azure Blob CSI drivers store a
// storage account's key, `azure-storage-account-<account>-secret`, in the
// claim's namespace unless the class says otherwise (Azure Files CSI
// driver, docs/driver-parameters.md, secretName default; the drivers'
// secretNameTemplate). The key opens every share and container of the
// account, so no pod of a team may mount it or read it into its
// environment.
const (
	StorageKeySecretPrefix = "azure-storage-account-"
	StorageKeySecretSuffix = "-secret"
)

// AdmittedKind is one kind whose objects the admission policy checks in a
// team namespace, with the CEL expression (over `object`) that lists its
// pod specs.
type AdmittedKind struct {
	// Group, Version and Resource name the API resource.
	Group, Version, Resource string
	// Kind is the object kind (request.kind.kind).
	Kind string
	// PodSpecs is a CEL list of the object's pod specs.
	PodSpecs string
}

// AdmittedKinds are the kinds the admission policy checks: Pods (every
// pod, whichever controller or operator creates it), the batch kinds the
// team Role lets members create (Job, CronJob), the Kubeflow Training
// Operator kinds it lets them create (PyTorchJob, TFJob: every replica
// spec's template), and the apps kinds operators create from a member's
// object (a KAITO Workspace becomes a Deployment or StatefulSet). Pods are
// checked on CREATE only (a pod's spec is then fixed, and the scheduler
// sets spec.nodeName through the binding subresource, which the policy
// does not match); the others on CREATE and UPDATE.
var AdmittedKinds = []AdmittedKind{
	{Version: "v1", Resource: "pods", Kind: "Pod", PodSpecs: "[object.spec]"},
	{Group: "batch", Version: "v1", Resource: "jobs", Kind: "Job", PodSpecs: "[object.spec.template.spec]"},
	{Group: "batch", Version: "v1", Resource: "cronjobs", Kind: "CronJob", PodSpecs: "[object.spec.jobTemplate.spec.template.spec]"},
	{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", PodSpecs: "[object.spec.template.spec]"},
	{Group: "apps", Version: "v1", Resource: "statefulsets", Kind: "StatefulSet", PodSpecs: "[object.spec.template.spec]"},
	{Group: "kubeflow.org", Version: "v1", Resource: "pytorchjobs", Kind: "PyTorchJob", PodSpecs: replicaPodSpecs("pytorchReplicaSpecs")},
	{Group: "kubeflow.org", Version: "v1", Resource: "tfjobs", Kind: "TFJob", PodSpecs: replicaPodSpecs("tfReplicaSpecs")},
	{Group: "keda.sh", Version: "v1alpha1", Resource: "scaledjobs", Kind: "ScaledJob", PodSpecs: "[object.spec.jobTargetRef.template.spec]"},
	{Group: "keda.sh", Version: "v1alpha1", Resource: "scaledobjects", Kind: "ScaledObject", PodSpecs: "[]"},
	{Group: "keda.sh", Version: "v1alpha1", Resource: "triggerauthentications", Kind: "TriggerAuthentication", PodSpecs: "[]"},
}

// KEDA in a team namespace: the attacker view (README "Serving").
//
// KEDA's operator evaluates every trigger of every namespace with its own
// credentials. The platform federates one identity with it (components/observability
// KEDAAccess: kube-system/keda-operator), which has Monitoring Data Reader on
// the whole Azure Monitor workspace, every team's series included, and the
// platform's ClusterTriggerAuthentication (vocab.KEDATriggerAuthentication)
// names it. Whoever gets KEDA to run a query with that identity reads the
// answer back from the ScaledObject's HPA (its external metric value) and
// can point the trigger's serverAddress at a host of theirs, to which KEDA
// sends the identity's bearer token. So:
//
//   - Team members may not write KEDA objects at all: MemberRules grant
//     nothing in keda.sh, and a namespaced Role cannot grant the
//     cluster-scoped ClusterTriggerAuthentication (the cluster tier proves
//     both against a real API server).
//   - In a team namespace, whoever writes (a member given more rights
//     later, an operator acting for one, Pulumi itself), the admission
//     policy refuses a TriggerAuthentication with a pod identity
//     (RuleKEDAPodIdentity): every identity federated with keda-operator is
//     the platform's, and a namespaced TriggerAuthentication naming its
//     client ID would use it without the ClusterTriggerAuthentication.
//   - and it refuses a ScaledObject or ScaledJob trigger that references a
//     ClusterTriggerAuthentication unless it is a prometheus trigger whose
//     query is an InferenceServer's (workloads.ScalingQueryPattern of the
//     namespace the object is in), whose serverAddress is an Azure Monitor
//     workspace endpoint (workloads.QueryEndpointPattern), and whose
//     metadata holds no other key (no authModes, unsafeSsl or
//     queryParameters) (RuleKEDAPlatform).
const (
	// kedaTriggersExpression lists the triggers of a ScaledObject or
	// ScaledJob.
	kedaTriggersExpression = `(request.kind.kind == "ScaledObject" || request.kind.kind == "ScaledJob") && has(object.spec.triggers) ? object.spec.triggers : []`
	// kedaPlatformMetadataKeys are the trigger metadata keys a trigger with
	// the platform's authentication may hold.
	kedaPlatformMetadataKeys = `["serverAddress", "query", "threshold", "activationThreshold", "ignoreNullValues"]`
)

// kedaPlatformTriggerExpression is true for a trigger (CEL variable t)
// that does not reference a ClusterTriggerAuthentication, or that is an
// InferenceServer's prometheus trigger on an Azure Monitor workspace in
// the request's namespace.
func kedaPlatformTriggerExpression() string {
	const ns = "NAMESPACE"
	parts := strings.SplitN(workloads.ScalingQueryPattern(ns), ns, 2)
	query := strconv.Quote(parts[0]) + " + request.namespace + " + strconv.Quote(parts[1])
	return `!has(t.authenticationRef) || !has(t.authenticationRef.kind) || t.authenticationRef.kind != "ClusterTriggerAuthentication" || ` +
		`(t.type == "prometheus" && has(t.metadata) && t.metadata.all(k, k in ` + kedaPlatformMetadataKeys + `) && ` +
		`"query" in t.metadata && t.metadata["query"].matches(` + query + `) && ` +
		`"serverAddress" in t.metadata && t.metadata["serverAddress"].matches(` + strconv.Quote(workloads.QueryEndpointPattern) + `))`
}

// replicaPodSpecs lists the pod specs of a Kubeflow job's replica specs
// map (Master, Worker, PS, Chief...).
func replicaPodSpecs(field string) string {
	m := "object.spec." + field
	return fmt.Sprintf("has(%s) ? %s.map(r, %s[r].template.spec) : []", m, m, m)
}

// podSpecsExpression selects the pod specs of the admitted object by its
// kind.
func podSpecsExpression() string {
	var b strings.Builder
	for _, k := range AdmittedKinds {
		fmt.Fprintf(&b, "request.kind.kind == %q ? (%s) : ", k.Kind, k.PodSpecs)
	}
	b.WriteString("[]")
	return b.String()
}

// labelSetsExpression lists the label maps that may carry the Kueue
// priority label: the object's, and a CronJob's Job template's.
const labelSetsExpression = `[has(object.metadata.labels) ? object.metadata.labels : {}] + ` +
	`(request.kind.kind == "CronJob" && has(object.spec.jobTemplate.metadata) && has(object.spec.jobTemplate.metadata.labels) ? [object.spec.jobTemplate.metadata.labels] : [])`

// gpuRequestExpression is true when container c requests a GPU (the
// device plugin's nvidia.com/gpu or a MIG profile nvidia.com/mig-*) in its
// limits or requests (extended resources need both or limits only).
func gpuRequestExpression(c string) string {
	gpu := fmt.Sprintf("r == %q || r.startsWith(%q)", vocab.GPUResource, MIGResourcePrefix)
	return fmt.Sprintf("has(%[1]s.resources) && ((has(%[1]s.resources.limits) && %[1]s.resources.limits.exists(r, %[2]s)) || (has(%[1]s.resources.requests) && %[1]s.resources.requests.exists(r, %[2]s)))", c, gpu)
}

// MIGResourcePrefix starts the extended resource of every MIG profile the
// NVIDIA device plugin registers with the mixed strategy
// (nvidia.com/mig-1g.10gb; components/gpupool GPUResource).
const MIGResourcePrefix = "nvidia.com/mig-"

// storageKeyName is true when the CEL string n names a CSI storage key
// Secret.
func storageKeyName(n string) string {
	return fmt.Sprintf("(%[1]s.startsWith(%[2]q) && %[1]s.endsWith(%[3]q))", n, StorageKeySecretPrefix, StorageKeySecretSuffix)
}

// celList renders names as a CEL list of string literals.
func celList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// AdmissionValidation is one CEL rule of the admission policy.
type AdmissionValidation struct {
	// Rule names the rule (Rule*).
	Rule string
	// Expression is the CEL expression that must be true.
	Expression string
	// Message is what a refused request reads: the rule and what to do.
	Message string
}

// AdmissionValidations are the rules of team t's admission policy.
func AdmissionValidations(t Team) []AdmissionValidation {
	specs := func(cond string) string { return "variables.podSpecs.all(s, " + cond + ")" }
	allContainers := `(s.containers + (has(s.initContainers) ? s.initContainers : []))`
	allowed := celList(t.Priorities)
	allowedText := strings.Join(t.Priorities, ", ")
	if allowedText == "" {
		allowedText = "none"
	}
	msg := func(rule, text string) string { return admissionRulePrefix + rule + "): " + text }
	return []AdmissionValidation{
		{RuleNodeName, specs(`!has(s.nodeName) || s.nodeName == ""`),
			msg(RuleNodeName, "spec.nodeName bypasses the scheduler, the node taints and the queue; remove it and let Kueue place the pods (name a pool through the workload's resources)")},
		{RuleTolerateAll, specs(`!has(s.tolerations) || s.tolerations.all(t, has(t.key) && t.key != "")`),
			msg(RuleTolerateAll, "a toleration without a key tolerates every taint, the system pool's included; tolerate named taints only")},
		{RuleSystemPool, specs(fmt.Sprintf(`!has(s.tolerations) || s.tolerations.all(t, !has(t.key) || t.key != %q)`, SystemPoolTaintKey)),
			msg(RuleSystemPool, "the "+SystemPoolTaintKey+" taint keeps team pods off the system pool (CoreDNS, Kueue, metrics); remove the toleration")},
		{RuleGPUToleration, specs(fmt.Sprintf(`!has(s.tolerations) || !s.tolerations.exists(t, has(t.key) && t.key == %q) || s.containers.exists(c, %s)`, gpupool.GPUTaintKey, gpuRequestExpression("c"))),
			msg(RuleGPUToleration, "only pods that request nvidia.com/gpu or a MIG resource may tolerate the GPU taint ("+gpupool.GPUTaintKey+"="+gpupool.GPUTaintValue+"); a CPU pod on a GPU pool would make the autoscaler add a GPU node: remove the toleration or request GPUs")},
		{RuleInlineVolume, specs(`!has(s.volumes) || s.volumes.all(v, !has(v.csi) && !has(v.azureFile) && !has(v.azureDisk))`),
			msg(RuleInlineVolume, "inline csi, azureFile and azureDisk volumes mount storage outside the team's claims and quota; use a PersistentVolumeClaim of an aksml StorageClass")},
		{RuleStorageKey, specs(`(!has(s.volumes) || s.volumes.all(v, !(has(v.secret) && has(v.secret.secretName) && ` + storageKeyName("v.secret.secretName") + `) && ` +
			`!(has(v.projected) && has(v.projected.sources) && v.projected.sources.exists(p, has(p.secret) && has(p.secret.name) && ` + storageKeyName("p.secret.name") + `)))) && ` +
			allContainers + `.all(c, (!has(c.env) || c.env.all(e, !(has(e.valueFrom) && has(e.valueFrom.secretKeyRef) && ` + storageKeyName("e.valueFrom.secretKeyRef.name") + `))) && ` +
			`(!has(c.envFrom) || c.envFrom.all(e, !(has(e.secretRef) && ` + storageKeyName("e.secretRef.name") + `))))`),
			msg(RuleStorageKey, "Secrets named "+StorageKeySecretPrefix+"<account>"+StorageKeySecretSuffix+" hold a storage account key that opens every team's shares; mount the team's claims instead, or use workload identity for Blob data")},
		{RulePriorityClass, specs(`!has(s.priorityClassName) || s.priorityClassName == "" || s.priorityClassName in ` + allowed),
			msg(RulePriorityClass, "team "+t.Name+" may use the priority classes "+allowedText+"; system-* classes are the platform's and preempting classes (inference-critical) need aksml:teams[].serving: true")},
		{RuleKueuePriority, `variables.labelSets.all(l, !("` + vocab.WorkloadPriorityClassLabel + `" in l) || l["` + vocab.WorkloadPriorityClassLabel + `"] in ` + allowed + `)`,
			msg(RuleKueuePriority, "team "+t.Name+" may name the Kueue WorkloadPriorityClasses "+allowedText+" in "+vocab.WorkloadPriorityClassLabel+"; preempting classes (inference-critical) need aksml:teams[].serving: true")},
		{RuleKEDAPodIdentity, `request.kind.kind != "TriggerAuthentication" || !has(object.spec.podIdentity) || !has(object.spec.podIdentity.provider) || object.spec.podIdentity.provider == "none"`,
			msg(RuleKEDAPodIdentity, "a TriggerAuthentication with a pod identity makes KEDA's operator sign in as an identity federated with it, and those are the platform's (Monitoring Data Reader on every team's metrics); scale an InferenceServer with the platform's "+vocab.KEDATriggerAuthentication+", or authenticate with a Secret of the team's own")},
		{RuleKEDAPlatform, `variables.kedaTriggers.all(t, ` + kedaPlatformTriggerExpression() + `)`,
			msg(RuleKEDAPlatform, "a trigger with a ClusterTriggerAuthentication reads the workspace as the platform's KEDA identity; it must be a prometheus trigger on an Azure Monitor workspace endpoint whose query is an InferenceServer's for this namespace (sum(<metric>{namespace=\"<this namespace>\",workload=\"<name>\"})) with no metadata beyond serverAddress, query, threshold, activationThreshold and ignoreNullValues")},
	}
}

// isWorkspaceExpression is true when the request is a KAITO Workspace.
const isWorkspaceExpression = `request.kind.group == "kaito.sh" && request.kind.kind == "Workspace"`

// workspacePoolExpression is the pool a Workspace's labelSelector names by
// WorkspacePoolLabel, or "".
var workspacePoolExpression = fmt.Sprintf(`variables.isWorkspace && has(object.resource) && has(object.resource.labelSelector) && has(object.resource.labelSelector.matchLabels) && %[1]q in object.resource.labelSelector.matchLabels ? object.resource.labelSelector.matchLabels[%[1]q] : ""`, WorkspacePoolLabel)

// celMap renders m as a CEL map literal of strings, keys sorted.
func celMap(m map[string]string) string {
	var entries []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		entries = append(entries, strconv.Quote(k)+": "+strconv.Quote(m[k]))
	}
	return "{" + strings.Join(entries, ", ") + "}"
}

// WorkspaceValidations are the rules of team t's admission policy for KAITO
// Workspaces (what KAITO makes of a Workspace is documented above, at
// WorkspaceLoadBalancerAnnotation's block). The template and load-balancer
// rules always apply; the pool rules only when t.WorkspacePools is set.
func WorkspaceValidations(t Team) []AdmissionValidation {
	msg := func(rule, text string) string { return admissionRulePrefix + rule + "): " + text }
	out := []AdmissionValidation{
		{RuleWorkspaceTemplate, `!variables.isWorkspace || !has(object.inference) || !has(object.inference.template)`,
			msg(RuleWorkspaceTemplate, "inference.template makes KAITO run any pod spec as a StatefulSet outside the team's queue; serve a preset (inference.preset), or run a custom server as an aksml InferenceServer")},
		{RuleWorkspaceLoadBalancer, fmt.Sprintf(`!variables.isWorkspace || !has(object.metadata.annotations) || !(%q in object.metadata.annotations)`, WorkspaceLoadBalancerAnnotation),
			msg(RuleWorkspaceLoadBalancer, "the "+WorkspaceLoadBalancerAnnotation+" annotation makes KAITO expose the model through a public LoadBalancer Service; remove it and reach the model through its ClusterIP Service")},
	}
	if t.WorkspacePools == nil {
		return out
	}
	pools := celMap(t.WorkspacePools)
	names := slices.Sorted(maps.Keys(t.WorkspacePools))
	allowed := strings.Join(names, ", ")
	if allowed == "" {
		allowed = "none"
	}
	return append(out,
		AdmissionValidation{RuleWorkspacePool, `!variables.isWorkspace || (variables.workspacePool in ` + pools + ` && ` +
			`(!has(object.resource.labelSelector.matchExpressions) || size(object.resource.labelSelector.matchExpressions) == 0) && ` +
			`(!has(object.resource.preferredNodes) || size(object.resource.preferredNodes) == 0))`,
			msg(RuleWorkspacePool, "KAITO places a Workspace's pods on the nodes its labelSelector matches, outside the team's queue; team "+t.Name+" may select, by matchLabels "+WorkspacePoolLabel+" only (no matchExpressions, no preferredNodes), the pools "+allowed)},
		AdmissionValidation{RuleWorkspaceInstanceType, `!variables.isWorkspace || !(variables.workspacePool in ` + pools + `) || ` +
			`(has(object.resource.instanceType) && object.resource.instanceType == ` + pools + `[variables.workspacePool])`,
			msg(RuleWorkspaceInstanceType, "resource.instanceType must be the VM size of the pool the labelSelector names ("+celMapText(t.WorkspacePools)+"); KAITO sizes the pods' GPU requests by it")},
	)
}

// celMapText renders m as "k=v, ..." for messages, keys sorted.
func celMapText(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+m[k])
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// admissionPolicyArgs is team t's ValidatingAdmissionPolicy.
func admissionPolicyArgs(t Team) *admissionv1.ValidatingAdmissionPolicyArgs {
	var rules admissionv1.NamedRuleWithOperationsArray
	for _, k := range AdmittedKinds {
		ops := []string{"CREATE", "UPDATE"}
		if k.Kind == "Pod" {
			ops = []string{"CREATE"}
		}
		rules = append(rules, admissionv1.NamedRuleWithOperationsArgs{
			ApiGroups:   pulumi.ToStringArray([]string{k.Group}),
			ApiVersions: pulumi.ToStringArray([]string{k.Version}),
			Resources:   pulumi.ToStringArray([]string{k.Resource}),
			Operations:  pulumi.ToStringArray(ops),
		})
	}
	// KAITO Workspaces, every served version (the pinned CRD serves
	// v1alpha1 and v1beta1 with the same resource fields).
	rules = append(rules, admissionv1.NamedRuleWithOperationsArgs{
		ApiGroups:   pulumi.ToStringArray([]string{"kaito.sh"}),
		ApiVersions: pulumi.ToStringArray([]string{"*"}),
		Resources:   pulumi.ToStringArray([]string{"workspaces"}),
		Operations:  pulumi.ToStringArray([]string{"CREATE", "UPDATE"}),
	})
	var validations admissionv1.ValidationArray
	for _, v := range append(AdmissionValidations(t), WorkspaceValidations(t)...) {
		validations = append(validations, admissionv1.ValidationArgs{
			Expression: pulumi.String(v.Expression),
			Message:    pulumi.String(v.Message),
			Reason:     pulumi.String("Forbidden"),
		})
	}
	return &admissionv1.ValidatingAdmissionPolicyArgs{
		Metadata: &metav1.ObjectMetaArgs{Name: pulumi.String(AdmissionPolicyName(t.Name)), Labels: pulumi.ToStringMap(teamLabels(t))},
		Spec: &admissionv1.ValidatingAdmissionPolicySpecArgs{
			FailurePolicy:    pulumi.String("Fail"),
			MatchConstraints: &admissionv1.MatchResourcesArgs{ResourceRules: rules},
			// An object on its way out (finalizers being removed) is
			// never refused, so a policy added later cannot wedge its
			// deletion.
			MatchConditions: admissionv1.MatchConditionArray{admissionv1.MatchConditionArgs{
				Name:       pulumi.String("not-being-deleted"),
				Expression: pulumi.String(`!has(object.metadata.deletionTimestamp)`),
			}},
			Variables: admissionv1.VariableArray{
				admissionv1.VariableArgs{Name: pulumi.String("podSpecs"), Expression: pulumi.String(podSpecsExpression())},
				admissionv1.VariableArgs{Name: pulumi.String("labelSets"), Expression: pulumi.String(labelSetsExpression)},
				admissionv1.VariableArgs{Name: pulumi.String("kedaTriggers"), Expression: pulumi.String(kedaTriggersExpression)},
				admissionv1.VariableArgs{Name: pulumi.String("isWorkspace"), Expression: pulumi.String(isWorkspaceExpression)},
				admissionv1.VariableArgs{Name: pulumi.String("workspacePool"), Expression: pulumi.String(workspacePoolExpression)},
			},
			Validations: validations,
		},
	}
}

// admissionBindingArgs binds team t's policy, Deny, to the namespaces
// labelled as t's (namespaceLabels).
func admissionBindingArgs(t Team) *admissionv1.ValidatingAdmissionPolicyBindingArgs {
	return &admissionv1.ValidatingAdmissionPolicyBindingArgs{
		Metadata: &metav1.ObjectMetaArgs{Name: pulumi.String(AdmissionPolicyName(t.Name)), Labels: pulumi.ToStringMap(teamLabels(t))},
		Spec: &admissionv1.ValidatingAdmissionPolicyBindingSpecArgs{
			PolicyName:        pulumi.String(AdmissionPolicyName(t.Name)),
			ValidationActions: pulumi.ToStringArray([]string{"Deny"}),
			MatchResources: &admissionv1.MatchResourcesArgs{
				NamespaceSelector: &metav1.LabelSelectorArgs{MatchLabels: pulumi.StringMap{TeamLabel: pulumi.String(t.Name)}},
			},
		},
	}
}

// registerAdmission registers team t's admission policy and its binding.
func registerAdmission(ctx *pulumi.Context, name string, t Team, opts []pulumi.ResourceOption) ([]pulumi.Resource, error) {
	policy, err := admissionv1.NewValidatingAdmissionPolicy(ctx, name+"-admission", admissionPolicyArgs(t), opts...)
	if err != nil {
		return nil, err
	}
	binding, err := admissionv1.NewValidatingAdmissionPolicyBinding(ctx, name+"-admission-binding", admissionBindingArgs(t),
		append(append([]pulumi.ResourceOption{}, opts...), pulumi.DependsOn([]pulumi.Resource{policy}))...)
	if err != nil {
		return nil, err
	}
	return []pulumi.Resource{policy, binding}, nil
}
