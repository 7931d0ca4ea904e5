package stacks

import (
	"fmt"
	"strings"

	"github.com/aksml/aksml/components/field"
)

// NameSources lists the config values a Pulumi resource name may be built
// from that occur in name as whole dash-separated words: teams, workloads, GPU pools and Kueue lenders
// are the names the program joins into its resources' names, each as
// `<key> (<value>)`. main's duplicate-URN check names them, so that two
// config names that join into one Pulumi name are reported by their keys.
func (c *Config) NameSources(name string) []string {
	var out []string
	// A name joins words with "-": v must be whole words of it.
	dashed := "-" + name + "-"
	add := func(p field.Path, v string) {
		if v != "" && strings.Contains(dashed, "-"+v+"-") {
			out = append(out, fmt.Sprintf("%s (%q)", p, v))
		}
	}
	for i, t := range c.Teams {
		add(key("teams").Index(i).Child("name"), t.Name)
	}
	for i, w := range c.Workloads {
		add(key("workloads").Index(i).Child("name"), w.Name)
	}
	for i, p := range c.GPUPools {
		add(key("gpuPools").Index(i).Child("name"), p.Name)
	}
	for i, l := range c.Scheduler.Lenders {
		add(key("scheduler").Child("lenders").Index(i).Child("name"), l.Name)
	}
	return out
}
