package stacks

import (
	"github.com/aksml/aksml/components/cluster"
	"github.com/aksml/aksml/components/field"
)

// What prod promises (issue 33, class 5): the README's prod row and SPEC
// C1.2 and C1.6 (Standard tier, Azure Policy add-on, auto-upgrade and
// node-OS upgrade channels, managed Prometheus) plus the audit logs and
// alerts the README documents. One key must not switch a promise off
// without a word: what prod may not differ in is refused here; where it
// may (retainTeamData, a team's Unrestricted egress), an advisory
// guardrail names the key at preview (AKSML-STO-004, AKSML-TEN-013).

// validateProdPromises refuses the prod promises a single key would break.
func (c *Config) validateProdPromises() field.ErrorList {
	var errs field.ErrorList
	if !c.Observability.IsEnabled() {
		errs = append(errs, field.Invalid(key("observability").Child("enabled"), "must be true in prod: prod is monitored (GPU, job and checkpoint alerts to its action groups; SPEC C1.6, C6); remove the key"))
	}
	if c.Cluster == nil {
		return errs
	}
	cl := key("cluster")
	if a := c.Cluster.Logs.AuditLogs; a != nil && !*a {
		// "Monitor Azure Kubernetes Service (AKS)",
		// https://learn.microsoft.com/azure/aks/monitor-aks: the
		// control plane's audit logs are resource logs, kept only when a
		// diagnostic setting sends them somewhere.
		errs = append(errs, field.Invalid(cl.Child("logs").Child("auditLogs"), "must be true in prod: without it the control plane's audit log (who changed what) is kept nowhere; remove the key"))
	}
	if !c.Cluster.AzurePolicyEnabled() {
		errs = append(errs, field.Invalid(cl.Child("azurePolicy"), "must be true in prod: the Azure Policy add-on enforces the organisation's policies on the cluster (SPEC C1.6); remove the key"))
	}
	if c.Cluster.Tier == cluster.TierFree {
		// "Free, Standard, and Premium pricing tiers for AKS cluster
		// management", https://learn.microsoft.com/azure/aks/free-standard-pricing-tiers:
		// Free has no uptime SLA and is meant for experimenting; Standard
		// is for production (SPEC C1.2).
		errs = append(errs, field.Invalid(cl.Child("tier"), "Free has no uptime SLA and is for experimenting, not production (AKS pricing tiers; SPEC C1.2); use Standard or Premium"))
	}
	if c.Cluster.UpgradeChannel == "none" {
		errs = append(errs, field.Invalid(cl.Child("upgradeChannel"), "none leaves prod on a Kubernetes version until it falls out of support (SPEC C1.6: auto-upgrade channel); use patch or stable, and keep the maintenance window"))
	}
	if ch := c.Cluster.NodeOSUpgradeChannel; ch == "None" || ch == "Unmanaged" {
		// "Auto-upgrade node OS images",
		// https://learn.microsoft.com/azure/aks/auto-upgrade-node-os-image:
		// None applies no security updates; Unmanaged leaves them to the
		// OS, without the maintenance window.
		errs = append(errs, field.Invalid(cl.Child("nodeOSUpgradeChannel"), "%s leaves prod nodes without managed security patches (SPEC C1.6: node-OS upgrade channel); use NodeImage or SecurityPatch", ch))
	}
	return errs
}
