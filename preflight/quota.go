package preflight

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v6"
)

// Usage names that are not a VM family ("Check vCPU quotas",
// https://learn.microsoft.com/azure/virtual-machines/quotas: a VM must fit
// both its family's vCPU quota and the Total Regional vCPUs; Azure Spot
// VMs count against the separate regional low-priority quota, "Azure Spot
// Virtual Machines", https://learn.microsoft.com/azure/virtual-machines/spot-vms).
const (
	// UsageTotalRegional is "Total Regional vCPUs".
	UsageTotalRegional = "cores"
	// UsageLowPriority is "Total Regional Low-priority vCPUs", the quota
	// spot pools count against (not per family).
	UsageLowPriority = "lowPriorityCores"
)

// ResourceSkus_List capability names (Microsoft.Compute 2021-07-01,
// azure-rest-api-specs compute Skus/stable/2021-07-01/skus.json, example
// ListAvailableResourceSkusForARegion.json).
const (
	capVCPUs       = "vCPUs"
	capLowPriority = "LowPriorityCapable"
)

// vmSKU is one VM size of the region as ResourceSkus_List describes it.
type vmSKU struct {
	name   string
	family string
	vcpus  int
	spotOK bool
	// zones are the zones the size is offered in, for this subscription.
	zones []string
	// restricted is the reason the size is not available in the region for
	// this subscription ("" when it is).
	restricted string
	// restrictedZones are the zones where it is not available for this
	// subscription.
	restrictedZones []string
}

// listSKUs returns the region's VM sizes by lower-case name.
func listSKUs(ctx context.Context, az *Clients, region string) (map[string]vmSKU, error) {
	out := map[string]vmSKU{}
	pager := az.SKUs.NewListPager(&armcompute.ResourceSKUsClientListOptions{Filter: to.Ptr(fmt.Sprintf("location eq '%s'", region))})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, s := range page.Value {
			if s == nil || !strings.EqualFold(str(s.ResourceType), "virtualMachines") || !inRegion(s.Locations, region) {
				continue
			}
			out[strings.ToLower(str(s.Name))] = describe(s, region)
		}
	}
	return out, nil
}

func inRegion(locations []*string, region string) bool {
	return slices.ContainsFunc(locations, func(l *string) bool { return sameRegion(str(l), region) })
}

// sameRegion compares region names as Azure writes them ("West Europe",
// "westeurope").
func sameRegion(a, b string) bool {
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, " ", "")) }
	return norm(a) == norm(b)
}

func describe(s *armcompute.ResourceSKU, region string) vmSKU {
	v := vmSKU{name: str(s.Name), family: str(s.Family)}
	for _, c := range s.Capabilities {
		switch str(c.Name) {
		case capVCPUs:
			v.vcpus, _ = strconv.Atoi(str(c.Value))
		case capLowPriority:
			v.spotOK = strings.EqualFold(str(c.Value), "True")
		}
	}
	for _, li := range s.LocationInfo {
		if li != nil && sameRegion(str(li.Location), region) {
			v.zones = strs(li.Zones)
		}
	}
	for _, r := range s.Restrictions {
		if r == nil || r.Type == nil {
			continue
		}
		reason := string(val(r.ReasonCode))
		switch *r.Type {
		case armcompute.ResourceSKURestrictionsTypeLocation:
			v.restricted = reason
		case armcompute.ResourceSKURestrictionsTypeZone:
			if r.RestrictionInfo != nil {
				v.restrictedZones = append(v.restrictedZones, strs(r.RestrictionInfo.Zones)...)
			}
		}
	}
	slices.Sort(v.zones)
	slices.Sort(v.restrictedZones)
	return v
}

// usableZones are the zones offered and not restricted.
func (v vmSKU) usableZones() []string {
	var out []string
	for _, z := range v.zones {
		if !slices.Contains(v.restrictedZones, z) {
			out = append(out, z)
		}
	}
	return out
}

func strs(in []*string) []string {
	var out []string
	for _, s := range in {
		out = append(out, str(s))
	}
	return out
}

// usage is one Usage_List entry.
type usage struct {
	name, label  string
	current, max int64
}

// listUsage returns the region's compute usage by lower-case name.
func listUsage(ctx context.Context, az *Clients, region string) (map[string]usage, error) {
	out := map[string]usage{}
	pager := az.Usage.NewListPager(region, nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, u := range page.Value {
			if u == nil || u.Name == nil {
				continue
			}
			name := str(u.Name.Value)
			out[strings.ToLower(name)] = usage{name: name, label: str(u.Name.LocalizedValue), current: int64(val(u.CurrentValue)), max: val(u.Limit)}
		}
	}
	return out, nil
}

// Demand is the vCPUs one quota must hold for the stack's pools.
type Demand struct {
	// Quota is the usage name: a VM family, UsageTotalRegional or
	// UsageLowPriority.
	Quota string
	// Min and Max are the vCPUs at every pool's minimum and maximum.
	Min, Max int
	// Pools explain the sum, e.g. "a100 8×24".
	Pools []string
}

// demands sums the pools' vCPUs per quota: per family for on-demand pools,
// the total regional quota for all on-demand pools, the low-priority quota
// for spot pools. Pools whose size is not in skus are left out (the SKU
// check reports them). The order is families by name, then the regional
// and low-priority totals.
func demands(pools []Pool, skus map[string]vmSKU) []Demand {
	byQuota := map[string]*Demand{}
	add := func(quota string, p Pool, vcpus int) {
		d := byQuota[quota]
		if d == nil {
			d = &Demand{Quota: quota}
			byQuota[quota] = d
		}
		d.Min += p.Min * vcpus
		d.Max += p.Max * vcpus
		d.Pools = append(d.Pools, fmt.Sprintf("%s %d..%d×%d", p.Name, p.Min, p.Max, vcpus))
	}
	for _, p := range pools {
		s, ok := skus[strings.ToLower(p.VMSize)]
		if !ok || s.vcpus == 0 {
			continue
		}
		if p.Spot {
			add(UsageLowPriority, p, s.vcpus)
			continue
		}
		add(s.family, p, s.vcpus)
		add(UsageTotalRegional, p, s.vcpus)
	}
	var families []string
	for q := range byQuota {
		if q != UsageTotalRegional && q != UsageLowPriority {
			families = append(families, q)
		}
	}
	slices.SortFunc(families, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	var out []Demand
	for _, q := range append(families, UsageTotalRegional, UsageLowPriority) {
		if d := byQuota[q]; d != nil {
			out = append(out, *d)
		}
	}
	return out
}

// quotaRows compares each demand with the region's usage and limit.
func quotaRows(plan Plan, subscription string, needs []Demand, usages map[string]usage) []Row {
	var rows []Row
	for _, d := range needs {
		u, ok := usages[strings.ToLower(d.Quota)]
		subject := d.Quota
		if ok && u.label != "" {
			subject = u.label + " (" + u.name + ")"
		}
		need := fmt.Sprintf("needs %d at min, %d at max (%s)", d.Min, d.Max, strings.Join(d.Pools, ", "))
		if !ok {
			rows = append(rows, Row{Check: CheckQuota, Subject: subject, Status: CannotTell,
				Detail: need + "; the region's usage list has no entry for this quota",
				Fix:    "look the quota up in the portal (Subscription > Usage + quotas, " + plan.Region + ")"})
			continue
		}
		free := u.max - u.current
		row := Row{Check: CheckQuota, Subject: subject, Detail: fmt.Sprintf("%s; %d of %d in use, %d free", need, u.current, u.max, free)}
		switch {
		case free >= int64(d.Max):
			row.Status = OK
		default:
			row.Status = WillFail
			if free >= int64(d.Min) {
				row.Detail += "; the pools start but cannot scale to their maximum"
			}
			row.Fix = quotaFix(subscription, plan.Region, u, d)
		}
		rows = append(rows, row)
	}
	return rows
}

// quotaFix is the quota request to file: the new limit is what is in use
// plus the stack's maximum. The command is `az quota update` of the Azure
// CLI quota extension ("az quota", https://learn.microsoft.com/cli/azure/quota;
// resource types dedicated and lowPriority).
func quotaFix(subscription, region string, u usage, d Demand) string {
	resourceType := "dedicated"
	if d.Quota == UsageLowPriority {
		resourceType = "lowPriority"
	}
	return fmt.Sprintf("request %s ≥ %d in %s: az quota update --resource-name %s --scope /subscriptions/%s/providers/Microsoft.Compute/locations/%s --limit-object value=%d --resource-type %s",
		u.name, u.current+int64(d.Max), region, u.name, subscription, region, u.current+int64(d.Max), resourceType)
}

// skuRows checks each pool's size in the region, its zones and, on spot
// pools, that the size can run as spot.
func skuRows(plan Plan, skus map[string]vmSKU) []Row {
	var rows []Row
	for _, p := range plan.Pools {
		subject := fmt.Sprintf("%s (%s)", p.Name, p.VMSize)
		s, ok := skus[strings.ToLower(p.VMSize)]
		row := Row{Check: CheckSKU, Subject: subject}
		switch {
		case !ok:
			row.Status, row.Detail = WillFail, fmt.Sprintf("%s is not offered in %s", p.VMSize, plan.Region)
			row.Fix = fmt.Sprintf("choose a size offered in %s for %s.vmSize (az vm list-skus --location %s --resource-type virtualMachines), or another region", plan.Region, p.Key, plan.Region)
		case s.restricted != "":
			row.Status, row.Detail = WillFail, fmt.Sprintf("%s is restricted in %s for this subscription (%s)", p.VMSize, plan.Region, s.restricted)
			row.Fix = fmt.Sprintf("open a support request to enable %s in %s for the subscription, or choose another size for %s.vmSize", p.VMSize, plan.Region, p.Key)
		case p.Spot && !s.spotOK:
			row.Status, row.Detail = WillFail, fmt.Sprintf("%s cannot run as spot (LowPriorityCapable is False)", p.VMSize)
			row.Fix = fmt.Sprintf("use priority Regular or a spot-capable size for %s", p.Key)
		default:
			usable := s.usableZones()
			var missing []string
			for _, z := range zonesOf(p) {
				if !slices.Contains(usable, z) {
					missing = append(missing, z)
				}
			}
			if len(missing) > 0 {
				row.Status = WillFail
				row.Detail = fmt.Sprintf("%s is not available to this subscription in zone(s) %s of %s; usable zones: %s", p.VMSize, strings.Join(missing, ", "), plan.Region, orNone(usable))
				row.Fix = fmt.Sprintf("set %s.zones to zones from [%s], or open a support request to enable zone(s) %s", p.Key, strings.Join(usable, ", "), strings.Join(missing, ", "))
				break
			}
			row.Status = OK
			row.Detail = fmt.Sprintf("offered in %s, zones %s", plan.Region, orNone(usable))
			if len(p.Zones) == 0 {
				row.Detail = fmt.Sprintf("offered in %s (regional pool)", plan.Region)
			}
		}
		rows = append(rows, row)
	}
	return rows
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
