package observability

import (
	"errors"
	"fmt"

	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/apiextensions"
	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/armdeploy"
	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/internal/azarm"
	"github.com/aksml/aksml/components/tenancy"
	"github.com/aksml/aksml/components/vocab"
)

// KEDA reads the InferenceServers' load metrics from the Azure Monitor
// workspace as Microsoft documents it ("Integrate KEDA with your Azure
// Kubernetes Service cluster",
// https://learn.microsoft.com/azure/azure-monitor/containers/integrate-keda):
// a user-assigned identity for KEDA, a federated credential that trusts the
// cluster's OIDC issuer for the KEDA operator's service account, Monitoring
// Data Reader on the workspace, and a TriggerAuthentication with
// podIdentity provider azure-workload naming the identity's client ID.
//
// With the AKS KEDA add-on (components/cluster) the operator runs as
// kube-system/keda-operator, the subject AKS's add-on walkthrough federates
// ("Securely scale your applications using the KEDA add-on and workload
// identity", https://learn.microsoft.com/azure/aks/keda-workload-identity:
// `--subject system:serviceaccount:kube-system:keda-operator`). aksml sets
// the identity's client ID in the ClusterTriggerAuthentication's identityId
// and does not annotate the add-on's ServiceAccount, which the add-on owns:
// KEDA then asks for a token of that client ID with the operator's
// projected service account token (keda.sh, "Azure AD Workload Identity":
// "identityId ... Default: ClientId from annotation on service-account").
//
// The authentication is a ClusterTriggerAuthentication, cluster-scoped, so
// no team namespace holds an object that names KEDA's identity; who may
// reference it, and why teams may not write KEDA objects at all, is
// components/tenancy's admission policy (README "Serving", attacker view).
const (
	// KEDAAccessType is the type token of NewKEDAAccess.
	KEDAAccessType = "aksml:observability:KEDAAccess"
	// KEDATriggerAuthType is the type token of NewKEDATriggerAuth.
	KEDATriggerAuthType = "aksml:observability:KEDATriggerAuth"
	// KEDANamespace and KEDAServiceAccount are the AKS KEDA add-on
	// operator's namespace and service account, the subject of KEDA's
	// federated credential.
	KEDANamespace      = "kube-system"
	KEDAServiceAccount = "keda-operator"
	// KEDAFederatedCredentialName names the federated credential on KEDA's
	// identity.
	KEDAFederatedCredentialName = "keda-operator"
	// KEDAPodIdentityProvider is the TriggerAuthentication podIdentity
	// provider for Microsoft Entra Workload ID.
	KEDAPodIdentityProvider = "azure-workload"
	// KEDAAPIVersion is the API of KEDA's authentication kinds.
	KEDAAPIVersion = "keda.sh/v1alpha1"
	// DefaultKEDATriggerAuthentication is the platform's
	// ClusterTriggerAuthentication name.
	DefaultKEDATriggerAuthentication = vocab.KEDATriggerAuthentication
)

// Parameters and outputs of the KEDA identity template.
const (
	kedaParamIssuer   = tenancy.IssuerParameter
	kedaParamLocation = tenancy.LocationParameter
	kedaOutClientID   = "clientId"
	kedaOutPrincipal  = "principalId"
)

// KEDAIdentityName is KEDA's user-assigned identity: `<cluster>-keda`.
func KEDAIdentityName(cluster string) string { return cluster + "-keda" }

// KEDAIdentityTemplate is the ARM template of KEDA's identity: the
// user-assigned managed identity name and its federated credential for
// kube-system/keda-operator, with the identity's client and principal IDs
// as outputs; built by tenancy.FederatedIdentityResources, as the team
// identities are.
func KEDAIdentityTemplate(name string, tags map[string]string) map[string]any {
	clientID, principalID := tenancy.IdentityOutputs(name)
	tpl := armdeploy.Template(
		tenancy.FederatedIdentityResources(name, KEDAFederatedCredentialName, KEDANamespace, KEDAServiceAccount, tags),
		map[string]any{kedaOutClientID: clientID, kedaOutPrincipal: principalID})
	tpl["parameters"] = map[string]any{
		kedaParamIssuer:   armdeploy.Param("string"),
		kedaParamLocation: armdeploy.Param("string"),
	}
	return tpl
}

// KEDAAccessArgs configures NewKEDAAccess.
type KEDAAccessArgs struct {
	// ResourceGroupName is where the identity's deployment stack goes (the
	// cluster's group). Required.
	ResourceGroupName pulumi.StringInput
	// Location is the identity's region. Required.
	Location string
	// OIDCIssuerURL is the cluster's OIDC issuer, which the federated
	// credential trusts. Required.
	OIDCIssuerURL pulumi.StringInput
	// ClusterName names the identity (KEDAIdentityName) and its stack.
	// Required.
	ClusterName string
	// WorkspaceID is the Azure Monitor workspace KEDA reads: the scope of
	// its Monitoring Data Reader role. Required.
	WorkspaceID pulumi.StringInput
	// Tags are put on the identity and its stack.
	Tags map[string]string
}

func (a *KEDAAccessArgs) validate(p field.Path) field.ErrorList {
	var errs field.ErrorList
	if a.ResourceGroupName == nil {
		errs = append(errs, field.Required(p.Child("ResourceGroupName"), "the cluster's resource group"))
	}
	if a.Location == "" {
		errs = append(errs, field.Required(p.Child("Location"), "the identity's region"))
	}
	if a.OIDCIssuerURL == nil {
		errs = append(errs, field.Required(p.Child("OIDCIssuerURL"), "the cluster's OIDC issuer URL"))
	}
	if a.ClusterName == "" {
		errs = append(errs, field.Required(p.Child("ClusterName"), "the cluster's name, which names the identity"))
	}
	if a.WorkspaceID == nil {
		errs = append(errs, field.Required(p.Child("WorkspaceID"), "the Azure Monitor workspace KEDA reads"))
	}
	return errs
}

// KEDAAccess is KEDA's Azure identity: the user-assigned identity, its
// federated credential for kube-system/keda-operator and its Monitoring
// Data Reader role on the workspace.
type KEDAAccess struct {
	pulumi.ResourceState

	// ClientID is the identity's client ID, which the
	// ClusterTriggerAuthentication names (NewKEDATriggerAuth).
	ClientID pulumi.StringOutput `pulumi:"clientId"`
	// PrincipalID is the identity's object ID.
	PrincipalID pulumi.StringOutput `pulumi:"principalId"`
}

// NewKEDAAccess registers KEDA's identity (token
// aksml:observability:KEDAAccess): a deployment stack `<name>-identity`
// holding KEDAIdentityTemplate, and `<name>-reader`, Monitoring Data Reader
// for the identity on the workspace. The role is the only one the identity
// has: it reads the workspace's metrics and nothing else.
func NewKEDAAccess(ctx *pulumi.Context, name string, args *KEDAAccessArgs, opts ...pulumi.ResourceOption) (*KEDAAccess, error) {
	if args == nil {
		return nil, errors.New("observability: KEDAAccessArgs are required")
	}
	if err := args.validate(field.NewPath("KEDAAccessArgs")).ToAggregate(); err != nil {
		return nil, err
	}
	c := &KEDAAccess{}
	if err := ctx.RegisterComponentResource(KEDAAccessType, name, c, opts...); err != nil {
		return nil, err
	}
	identity := KEDAIdentityName(args.ClusterName)
	stack, err := armdeploy.NewTemplateStack(ctx, name+"-identity", &armdeploy.Args{
		ResourceGroupName: args.ResourceGroupName,
		StackName:         identity,
		Template:          KEDAIdentityTemplate(identity, args.Tags),
		Parameters:        map[string]any{kedaParamIssuer: args.OIDCIssuerURL, kedaParamLocation: args.Location},
		Description:       "aksml: KEDA's managed identity and its federated credential for kube-system/keda-operator (workload identity)",
		Tags:              args.Tags,
	}, pulumi.Parent(c))
	if err != nil {
		return nil, err
	}
	c.ClientID = armdeploy.OutputString(stack, kedaOutClientID)
	c.PrincipalID = armdeploy.OutputString(stack, kedaOutPrincipal)
	workspace := args.WorkspaceID.ToStringOutput()
	if _, err := azarm.NewRoleAssignment(ctx, name+"-reader", &azarm.RoleAssignmentArgs{
		PrincipalID:      c.PrincipalID,
		PrincipalType:    pulumi.String("ServicePrincipal"),
		RoleDefinitionID: workspace.ApplyT(roleDefinitionID).(pulumi.StringOutput),
		Scope:            workspace,
		Description:      pulumi.String("aksml: KEDA reads the InferenceServers' load metrics from the cluster's Azure Monitor workspace"),
	}, pulumi.Parent(c), pulumi.DependsOn([]pulumi.Resource{stack})); err != nil {
		return nil, err
	}
	if err := ctx.RegisterResourceOutputs(c, pulumi.Map{"clientId": c.ClientID, "principalId": c.PrincipalID}); err != nil {
		return nil, err
	}
	return c, nil
}

// KEDATriggerAuthArgs configures NewKEDATriggerAuth.
type KEDATriggerAuthArgs struct {
	// Provider is the cluster's Kubernetes provider. Required.
	Provider *kubernetes.Provider
	// ClientID is KEDA's identity's client ID (KEDAAccess.ClientID, or the
	// Azure-layer stack's output). Required.
	ClientID pulumi.StringInput
	// Name is the ClusterTriggerAuthentication's name. Default
	// DefaultKEDATriggerAuthentication.
	Name string
	// DependsOn are resources the object waits for. Default none: KEDA's
	// CRDs come with the AKS add-on, which the cluster enables.
	DependsOn []pulumi.Resource
}

// KEDATriggerAuth is the platform's ClusterTriggerAuthentication.
type KEDATriggerAuth struct {
	pulumi.ResourceState

	// Name is the ClusterTriggerAuthentication's name.
	Name pulumi.StringOutput `pulumi:"name"`
}

// ClusterTriggerAuthenticationArgs is the ClusterTriggerAuthentication
// `name`: podIdentity provider azure-workload with identityId clientID (the
// TriggerAuthentication of the KEDA add-on walkthrough, cluster-scoped).
func ClusterTriggerAuthenticationArgs(name string, clientID pulumi.StringInput) *apiextensions.CustomResourceArgs {
	return &apiextensions.CustomResourceArgs{
		ApiVersion: pulumi.String(KEDAAPIVersion),
		Kind:       pulumi.String("ClusterTriggerAuthentication"),
		Metadata: &metav1.ObjectMetaArgs{
			Name:   pulumi.String(name),
			Labels: pulumi.StringMap{vocab.PartOfLabel: pulumi.String(vocab.PartOfValue)},
		},
		OtherFields: kubernetes.UntypedArgs{"spec": pulumi.Map{
			"podIdentity": pulumi.Map{
				"provider":   pulumi.String(KEDAPodIdentityProvider),
				"identityId": clientID,
			},
		}},
	}
}

// NewKEDATriggerAuth registers the platform's ClusterTriggerAuthentication
// (token aksml:observability:KEDATriggerAuth, child `<name>-auth`).
func NewKEDATriggerAuth(ctx *pulumi.Context, name string, args *KEDATriggerAuthArgs, opts ...pulumi.ResourceOption) (*KEDATriggerAuth, error) {
	if args == nil || args.Provider == nil || args.ClientID == nil {
		return nil, errors.New("observability: NewKEDATriggerAuth needs args with Provider and ClientID")
	}
	n := args.Name
	if n == "" {
		n = DefaultKEDATriggerAuthentication
	}
	if !field.IsDNSSubdomain(n) {
		return nil, fmt.Errorf("observability: KEDATriggerAuthArgs.Name %q is not a DNS-1123 subdomain", n)
	}
	c := &KEDATriggerAuth{}
	if err := ctx.RegisterComponentResource(KEDATriggerAuthType, name, c, opts...); err != nil {
		return nil, err
	}
	cta, err := apiextensions.NewCustomResource(ctx, name+"-auth", ClusterTriggerAuthenticationArgs(n, args.ClientID),
		pulumi.Parent(c), pulumi.Provider(args.Provider), pulumi.DependsOn(args.DependsOn))
	if err != nil {
		return nil, err
	}
	c.Name = cta.Metadata.Name().Elem()
	if err := ctx.RegisterResourceOutputs(c, pulumi.Map{"name": c.Name}); err != nil {
		return nil, err
	}
	return c, nil
}
