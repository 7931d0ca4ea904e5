package rules

import (
	"sort"
	"strings"
)

// Severity is how a rule is enforced.
type Severity string

// Valid severities.
const (
	// Mandatory violations fail `pulumi preview --policy-pack` and the
	// reviewer check (exit 1).
	Mandatory Severity = "mandatory"
	// Advisory violations are reported and do not block.
	Advisory Severity = "advisory"
)

// Environments of Stack.Environment.
const (
	// EnvProd is the environment of production stacks.
	EnvProd = "prod"
	// EnvDev is the environment of every other (intermittent) stack.
	EnvDev = "dev"
)

// Public documents the rules' Sources cite.
const (
	// srcMLOps is Microsoft Learn, "Machine learning operations (MLOps) best
	// practices in Azure Kubernetes Service (AKS)".
	srcMLOps = "AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops)"
	// srcManagedGPU is Microsoft Learn, "Create a fully managed GPU node pool
	// on Azure Kubernetes Service (AKS) (preview)".
	srcManagedGPU = "AKS-managed GPU nodes (https://learn.microsoft.com/azure/aks/aks-managed-gpu-nodes)"
)

// Rule is one guardrail: a stable ID, what it checks, how it is enforced
// and the check itself. Exactly one of Resource and Stack is set.
type Rule struct {
	// ID is stable and never reused, e.g. AKSML-GPU-001.
	ID string
	// Title says in one line what the rule demands.
	Title string
	// Severity is Mandatory or Advisory.
	Severity Severity
	// Source is where the practice comes from: a public document (title and
	// URL) and its section, or a SPEC capability.
	Source string
	// Resource checks one resource and returns one message per problem. It
	// may read only s.Name and s.Environment of the stack: the policy pack
	// calls it with a stack that has no resources.
	Resource func(r Resource, s *Stack) []string
	// Stack checks the whole stack, for rules across resources.
	Stack func(s *Stack) []Finding
}

// Finding is one problem a stack-level rule found.
type Finding struct {
	// URN is the resource the problem is reported on; "" for the stack.
	URN string
	// Message says what is wrong, naming the resource, and what to change.
	Message string
}

// Violation is one problem found by a rule.
type Violation struct {
	// RuleID is the rule's ID.
	RuleID string
	// Severity is the rule's severity.
	Severity Severity
	// Resource is the URN of the offending resource (its name when it has no
	// URN; "" for the stack as a whole).
	Resource string
	// Message says what is wrong and what to change.
	Message string
}

// String renders the violation as "<ID>: <message>".
func (v Violation) String() string { return v.RuleID + ": " + v.Message }

// All returns every rule, sorted by ID.
func All() []Rule {
	out := []Rule{
		ruleGPUTaint, ruleGPUMinCountIntermittent, ruleGPUAutoscaler, ruleGPUSpotInference,
		ruleGPUSpotMinCount, ruleGPUSpotEviction, ruleGPUMIGSKU, ruleGPUVisualisation,
		ruleGPUSystemMode, ruleGPULabels, ruleGPUZones, ruleGPUInferenceWarm,
		ruleDevicePluginManaged, ruleDevicePluginTwice, ruleDCGMManaged,
		rulePodToleration, rulePodNodeSelector, rulePodGPURequestsLimits, rulePodGuaranteed,
		rulePodInferenceOnSpot, rulePodDigest, rulePodImageTag, rulePodShmMissing,
		rulePodShmSize, rulePodCheckpointVolume, rulePodSafeToEvict, rulePodPriorityClass,
		ruleJobBackoff, ruleJobDeadline, ruleJobTTL, ruleJobGracePeriod, ruleJobPodFailurePolicy,
		ruleJobSkipAwait, ruleJobQueueLabel, ruleJobSuspend, ruleJobRunPolicy, ruleJobPDB,
		ruleNetNCCLPolicy, ruleNetNCCLEnv, ruleNetPoolSubnet, ruleNetSubnetRole, ruleNetOverlay,
		ruleNetAPIServer, ruleNetPrivateAPIReach, ruleNetStorageRoute, ruleNetInfiniBandZones,
		ruleStorageCheckpointRetain, ruleStorageKeyOutOfTeams, ruleStorageProtectedInProd, ruleStorageTeamDataRetained,
		ruleTenancyNoIMDS, ruleTenancyPlatformDefaultDeny, ruleTenancyUnrestrictedEgressProd,
		ruleQueueCapacity, ruleQueueFlavorPools, ruleQueueSingleSystem, ruleQueuePriorityClasses,
		ruleSecretKubeconfigOutput, ruleSecretProviderKubeconfig, ruleSecretRegistryImages,
		ruleARMSerialPools, ruleARMAutoscaledNoCount, ruleARMManagedCount,
		ruleMonPrometheusWired, ruleMonRuleGroupScope,
		ruleTenancyDefaultDeny, ruleTenancyGroupBinding, ruleTenancyReservedNamespaces, ruleTenancyAdmission, ruleTenancyQuota,
		ruleIdentityKube, ruleIdentityAzure,
		ruleSchedAllocatable, ruleSchedGangCapacity, ruleQueueAdmissible, ruleQueueFlavorQuota,
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// ByID returns the rule with the given ID.
func ByID(id string) (Rule, bool) {
	for _, r := range All() {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}

// CheckResource runs a per-resource rule over one resource. Stack-level
// rules return nothing here.
func (rule Rule) CheckResource(r Resource, s *Stack) []Violation {
	if rule.Resource == nil {
		return nil
	}
	var out []Violation
	for _, msg := range rule.Resource(r, s) {
		out = append(out, rule.violation(resourceRef(r), msg))
	}
	return out
}

// CheckStack runs the rule over the whole stack: a per-resource rule over
// every resource in registration order, a stack-level rule once.
func (rule Rule) CheckStack(s *Stack) []Violation {
	var out []Violation
	if rule.Resource != nil {
		for _, r := range s.Resources {
			out = append(out, rule.CheckResource(r, s)...)
		}
	}
	if rule.Stack != nil {
		for _, f := range rule.Stack(s) {
			out = append(out, rule.violation(f.URN, f.Message))
		}
	}
	return out
}

func (rule Rule) violation(resource, msg string) Violation {
	return Violation{RuleID: rule.ID, Severity: rule.Severity, Resource: resource, Message: msg}
}

// Check runs every rule over the stack and returns the violations ordered by
// rule ID, then by resource registration order.
func Check(s *Stack) []Violation {
	var out []Violation
	for _, rule := range All() {
		out = append(out, rule.CheckStack(s)...)
	}
	return out
}

// MandatoryOnly returns the mandatory violations of vs.
func MandatoryOnly(vs []Violation) []Violation {
	var out []Violation
	for _, v := range vs {
		if v.Severity == Mandatory {
			out = append(out, v)
		}
	}
	return out
}

// Environment returns the environment of a stack name when the stack does
// not say: EnvProd for "prod" and names starting with "prod" (prod-weu,
// production), EnvDev for everything else.
func Environment(stack string) string {
	if strings.HasPrefix(strings.ToLower(stack), EnvProd) {
		return EnvProd
	}
	return EnvDev
}

// isProd reports whether the stack is a production stack.
func isProd(s *Stack) bool { return s != nil && s.Environment == EnvProd }

// resourceRef is how a violation names a resource: its URN, else its name.
func resourceRef(r Resource) string {
	if r.URN != "" {
		return r.URN
	}
	return r.Name
}

// perResource adapts a check over one resource to a Rule.Resource function
// that ignores the stack.
func perResource(check func(r Resource) []string) func(Resource, *Stack) []string {
	return func(r Resource, _ *Stack) []string { return check(r) }
}
