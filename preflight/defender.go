package preflight

import (
	"context"
	"fmt"
	"strings"
)

// pricingsAPIVersion is Pricings_Get, Microsoft.Security 2024-01-01
// ("Pricings - Get", https://learn.microsoft.com/rest/api/defenderforcloud/pricings/get:
// GET /{scopeId}/providers/Microsoft.Security/pricings/{pricingName}; at the
// resource scope only VirtualMachines is supported, so the Containers plan is
// read, and set, on the subscription).
const pricingsAPIVersion = "2024-01-01"

// DefenderPlan is the Defender for Cloud plan that scans the images in Azure
// Container Registry and the running images of AKS clusters, and turns the
// cluster's Defender sensor (securityProfile.defender) into threat
// detection ("Overview of Microsoft Defender for Containers",
// https://learn.microsoft.com/azure/defender-for-cloud/defender-for-containers-introduction).
const DefenderPlan = "Containers"

// defenderRows reads the subscription's Containers plan when the stack turns
// on the cluster's Defender profile. The plan is a subscription-wide
// billing setting: a deploy identity scoped to the stack's resource groups
// cannot set it, so aksml does not send it (it would fail mid-up); the
// bootstrap sets it once (README "Image scanning") and preflight stops a
// deploy whose promise of scanned images the subscription would not keep.
// The plan is billed per vCore of the protected clusters' nodes, so the row
// gives the stack's vCores at its minimum and maximum (demands).
func defenderRows(ctx context.Context, plan Plan, az *Clients, demands []Demand) []Row {
	if !plan.Defender {
		return nil
	}
	subject := "Defender for Containers plan"
	id := fmt.Sprintf("/subscriptions/%s/providers/Microsoft.Security/pricings/%s", az.Subscription, DefenderPlan)
	fix := "as a subscription Owner or Security Admin: az security pricing create --name Containers --tier Standard (README \"Image scanning\")"
	res, err := az.Resources.GetByID(ctx, id, pricingsAPIVersion, nil)
	if notFound(err) {
		return []Row{{Check: CheckDefender, Subject: subject, Status: WillFail,
			Detail: "no Containers plan on the subscription (Free): the cluster's Defender sensor runs but no image is scanned", Fix: fix}}
	}
	if err != nil {
		return []Row{unanswered(CheckDefender, subject, "the subscription's Containers plan (Pricings_Get)", err)}
	}
	tier := ""
	if props, ok := res.Properties.(map[string]any); ok {
		tier, _ = props["pricingTier"].(string)
	}
	cost, minCores, maxCores := "", 0, 0
	for _, d := range demands {
		if d.Quota == UsageTotalRegional || d.Quota == UsageLowPriority {
			minCores, maxCores = minCores+d.Min, maxCores+d.Max
		}
	}
	if len(demands) > 0 {
		cost = fmt.Sprintf("; billed per vCore of the nodes: this stack's on-demand and spot nodes have %d vCores at their minimum, %d at their maximum", minCores, maxCores)
	}
	if strings.EqualFold(tier, "Standard") {
		return []Row{{Check: CheckDefender, Subject: subject, Status: OK, Detail: "Standard" + cost}}
	}
	return []Row{{Check: CheckDefender, Subject: subject, Status: WillFail,
		Detail: fmt.Sprintf("%s: the cluster's Defender sensor runs but no image is scanned%s", orUnknown(tier), cost), Fix: fix}}
}
