package preflight

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/aksml/aksml/components/gpupool"
)

// HoursPerMonth is the month the monthly cost is counted over: 730 hours,
// the month of Azure's pricing calculator ("Azure pricing calculator" FAQ,
// https://azure.microsoft.com/pricing/calculator/: prices per month assume
// 730 hours).
const HoursPerMonth = 730

// Write prints the report: a header with the counts and the exit status,
// one table per check class with rows, then the monthly cost.
func Write(w io.Writer, r Report) error {
	p := r.Plan
	if p.ExistingCluster {
		_, err := fmt.Fprintf(w, "aksml preflight: stack %s uses an existing cluster (aksml:existingCluster); it creates no Azure resource, so there is nothing to check\n", p.Stack)
		return err
	}
	counts := map[Status]int{}
	for _, row := range r.Rows {
		counts[row.Status]++
	}
	fmt.Fprintf(w, "aksml preflight: stack %s, region %s, subscription %s\n", p.Stack, p.Region, r.Subscription)
	fmt.Fprintf(w, "%d will fail, %d cannot tell, %d ok (exit status %d)\n", counts[WillFail], counts[CannotTell], counts[OK], r.ExitCode())
	for _, c := range Checks {
		var rows []Row
		for _, row := range r.Rows {
			if row.Check == c {
				rows = append(rows, row)
			}
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n== %s\n", c)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "RESULT\tSUBJECT\tDETAIL\tFIX")
		for _, row := range rows {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", row.Status, row.Subject, row.Detail, dash(row.Fix))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return writeCost(w, p)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeCost prints the monthly cost of every pool at its minimum and
// maximum at catalogue prices; sizes outside the GPU catalogue (the system
// and CPU pools) are listed without a price.
func writeCost(w io.Writer, p Plan) error {
	fmt.Fprintf(w, "\n== Monthly cost (catalogue prices of %s, USD, Linux pay-as-you-go, East US; spot at %.0f%% off; %d h/month)\n",
		gpupool.PriceDate, gpupool.SpotDiscount*100, HoursPerMonth)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "POOL\tSIZE\tNODES\tAT MIN\tAT MAX\t")
	var lo, hi float64
	var unpriced []string
	for _, pool := range p.Pools {
		nodes := fmt.Sprintf("%d..%d", pool.Min, pool.Max)
		if pool.GPU == nil {
			fmt.Fprintf(tw, "%s\t%s\t%s\t-\t-\t\n", pool.Name, pool.VMSize, nodes)
			unpriced = append(unpriced, pool.Name)
			continue
		}
		lo += pool.MinPerHour * HoursPerMonth
		hi += pool.MaxPerHour * HoursPerMonth
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t%.2f\t\n", pool.Name, pool.VMSize, nodes, pool.MinPerHour*HoursPerMonth, pool.MaxPerHour*HoursPerMonth)
	}
	fmt.Fprintf(tw, "total\t\t\t%.2f\t%.2f\t\n", lo, hi)
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(unpriced) > 0 {
		_, err := fmt.Fprintf(w, "Not priced (not in the GPU catalogue, components/gpupool): %s; the total leaves them out, and the control plane, disks, storage and egress.\n", strings.Join(unpriced, ", "))
		return err
	}
	return nil
}
