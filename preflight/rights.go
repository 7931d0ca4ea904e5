package preflight

import (
	"context"
	"fmt"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
)

// Operations the deployer needs ("Azure permissions for Containers",
// https://learn.microsoft.com/azure/role-based-access-control/permissions/containers;
// "Azure permissions for Identity", .../permissions/identity).
const (
	// ActionRoleAssignmentWrite creates role assignments: the stack grants
	// the CSI drivers their storage accounts, the kubelet AcrPull, the
	// cluster its node subnet and the teams' groups their namespaces.
	ActionRoleAssignmentWrite = "Microsoft.Authorization/roleAssignments/write"
	// ActionListUserCredential fetches the kubeconfig the Kubernetes layer
	// deploys with.
	ActionListUserCredential = "Microsoft.ContainerService/managedClusters/listClusterUserCredential/action"
	// DataActionNamespaceWrite stands for the Kubernetes layer's writes on
	// a cluster with Azure RBAC for Kubernetes authorization (the built-in
	// Azure Kubernetes Service RBAC Cluster Admin grants
	// Microsoft.ContainerService/managedClusters/*).
	DataActionNamespaceWrite = "Microsoft.ContainerService/managedClusters/namespaces/write"
)

// rightsRows reads the caller's effective permissions on the stack's
// resource group (Permissions_ListForResourceGroup, Microsoft.Authorization
// 2022-04-01: a list of {actions, notActions, dataActions, notDataActions},
// inherited assignments included) and checks the operations above.
func rightsRows(ctx context.Context, plan Plan, az *Clients) []Row {
	scope := "resource group " + plan.ResourceGroup
	var perms []*armauthorization.Permission
	pager := az.Permissions.NewListForResourceGroupPager(plan.ResourceGroup, nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if notFound(err) {
			return []Row{{Check: CheckRights, Subject: scope, Status: CannotTell,
				Detail: plan.ResourceGroup + " does not exist yet and Azure answers permissions per resource group",
				Fix:    "make sure the deployer holds Owner, or Contributor plus Role Based Access Control Administrator, on the subscription"}}
		}
		if err != nil {
			return []Row{unanswered(CheckRights, scope, "the deployer's permissions (Permissions_ListForResourceGroup)", err)}
		}
		perms = append(perms, page.Value...)
	}
	var rows []Row
	check := func(subject, op string, data bool, fix string) {
		if allowed(perms, op, data) {
			rows = append(rows, Row{Check: CheckRights, Subject: subject, Status: OK, Detail: op + " allowed on " + scope})
			return
		}
		rows = append(rows, Row{Check: CheckRights, Subject: subject, Status: WillFail, Detail: op + " not allowed on " + scope, Fix: fix})
	}
	check("create role assignments", ActionRoleAssignmentWrite, false,
		fmt.Sprintf("assign the deployer Role Based Access Control Administrator (or User Access Administrator) on %s or the subscription", scope))
	check("read the cluster's kubeconfig", ActionListUserCredential, false,
		fmt.Sprintf("assign the deployer Azure Kubernetes Service Cluster User Role (or Contributor) on %s", scope))
	if plan.EntraRBAC {
		if allowed(perms, DataActionNamespaceWrite, true) {
			rows = append(rows, Row{Check: CheckRights, Subject: "Kubernetes API (Azure RBAC)", Status: OK, Detail: DataActionNamespaceWrite + " allowed on " + scope})
		} else {
			rows = append(rows, Row{Check: CheckRights, Subject: "Kubernetes API (Azure RBAC)", Status: CannotTell,
				Detail: fmt.Sprintf("no Azure RBAC data action on %s covers %s; the deployer still gets cluster-admin if it is a member of an admin group (%s), which only Microsoft Graph can tell", scope, DataActionNamespaceWrite, strings.Join(plan.AdminGroups, ", ")),
				Fix:    fmt.Sprintf("assign the deployer Azure Kubernetes Service RBAC Cluster Admin on %s, or add it to an admin group in aksml:cluster.entraID.adminGroupObjectIDs", scope)})
		}
	}
	return rows
}

// allowed reports whether op is granted by one permission entry and not
// taken away by that entry's not-list (Azure RBAC: "Understand Azure role
// definitions", NotActions and NotDataActions subtract from the same role's
// grant; https://learn.microsoft.com/azure/role-based-access-control/role-definitions).
func allowed(perms []*armauthorization.Permission, op string, data bool) bool {
	for _, p := range perms {
		if p == nil {
			continue
		}
		grant, deny := p.Actions, p.NotActions
		if data {
			grant, deny = p.DataActions, p.NotDataActions
		}
		if anyMatch(grant, op) && !anyMatch(deny, op) {
			return true
		}
	}
	return false
}

func anyMatch(patterns []*string, op string) bool {
	for _, p := range patterns {
		if wildcard(strings.ToLower(str(p)), strings.ToLower(op)) {
			return true
		}
	}
	return false
}

// wildcard matches an Azure RBAC operation pattern, where * stands for any
// run of characters.
func wildcard(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, part := range parts[1 : len(parts)-1] {
		i := strings.Index(s, part)
		if i < 0 {
			return false
		}
		s = s[i+len(part):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}
