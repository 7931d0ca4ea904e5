package gpupool

import (
	"slices"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// CostSummary is the indicative idle and maximum cost per hour of pools,
// per pool (by name) and in total, at catalogue prices (PriceDate, spot at
// SpotDiscount): the stack output `costSummary`. Idle is at the pools'
// minimum node count (IdleCostPerHour), maximum at the node ceiling
// (MaxCostPerHour).
func CostSummary(pools []Resolved) pulumi.Map {
	byName := map[string]Resolved{}
	var names []string
	for _, p := range pools {
		names = append(names, p.Name)
		byName[p.Name] = p
	}
	slices.Sort(names)
	perPool := pulumi.Map{}
	var idle, max float64
	for _, n := range names {
		s := byName[n]
		idle += s.IdleCostPerHour()
		max += s.MaxCostPerHour()
		perPool[n] = pulumi.Map{
			"idlePerHour": pulumi.Float64(s.IdleCostPerHour()),
			"maxPerHour":  pulumi.Float64(s.MaxCostPerHour()),
			"maxGPUs":     pulumi.Int(s.maxGPUs()),
			"spot":        pulumi.Bool(s.IsSpot()),
		}
	}
	return pulumi.Map{
		"currency":     pulumi.String("USD"),
		"priceDate":    pulumi.String(PriceDate),
		"spotDiscount": pulumi.Float64(SpotDiscount),
		"pools":        perPool,
		"idlePerHour":  pulumi.Float64(round2(idle)),
		"maxPerHour":   pulumi.Float64(round2(max)),
	}
}
