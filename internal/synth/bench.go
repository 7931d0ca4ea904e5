package synth

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"gopkg.in/yaml.v3"
)

// Bench describes the scale stack `make bench` measures: the local stack
// with Teams teams on its spot T4 pool, each with nominal GPU quota
// TeamGPUs, fair-sharing weight 1 (even teams) or 2 (odd teams) and a
// borrowing limit that never binds, plus a lending-only ClusterQueue holding
// LenderGPUs, so that what the teams borrow is shared by their weights.
type Bench struct {
	// Teams is the number of teams, team-000 ... team-<Teams-1>.
	Teams int
	// TeamGPUs is each team's nominal quota on the spot pool.
	TeamGPUs int
	// LenderGPUs is the lending-only quota the teams share by weight.
	LenderGPUs int
}

// BenchScale is the stack both benchmarks use (the engine's in tests/e2e, admission's
// in tests/cluster): 100 teams with 1 GPU of nominal quota each and a lender of 300,
// so that the lent GPUs split into whole numbers by the weights: a weight-1 team's fair
// share is 2 lent GPUs, a weight-2 team's 4 (50 x 2 + 50 x 4 = 300). With 100 GPUs to
// lend, a weight-1 team's share would be 2/3 of a GPU, and which teams get the last
// GPUs would be a tie Kueue breaks by queue order, not by weight.
var BenchScale = Bench{Teams: 100, TeamGPUs: 1, LenderGPUs: 300}

// BenchPool is the pool the bench's quotas and Jobs use.
const BenchPool = "t4spot"

// BenchWeight is team i's fair-sharing weight.
func BenchWeight(i int) int { return 1 + i%2 }

// BenchTeam is team i's name.
func BenchTeam(i int) string { return fmt.Sprintf("team-%03d", i) }

// FairShare is the GPUs team i holds once the lent GPUs are shared by weight: its
// nominal quota plus LenderGPUs split in proportion to the weights (rounded down).
func (b Bench) FairShare(i int) int {
	total := 0
	for j := 0; j < b.Teams; j++ {
		total += BenchWeight(j)
	}
	return b.TeamGPUs + b.LenderGPUs*BenchWeight(i)/total
}

// Capacity is the spot pool's GPU count: every nominal quota plus the
// lender's, one T4 per Standard_NC4as_T4_v3 node.
func (b Bench) Capacity() int { return b.Teams*b.TeamGPUs + b.LenderGPUs }

// Config returns the local stack's config (as ReadStackConfig returns it)
// scaled to b: its teams replaced, the spot pool sized to Capacity, the
// lender added, the on-demand pool dropped, the example workloads kept on
// team-000 and aksml:protect off (so that a destroy leaves nothing behind and
// the stack can be deployed again on the same cluster).
func (b Bench) Config(local map[string]string) (map[string]string, error) {
	cfg := map[string]string{}
	for k, v := range local {
		cfg[k] = v
	}
	cfg[Project+":protect"] = "false"
	var pools []map[string]any
	if err := json.Unmarshal([]byte(cfg[Project+":gpuPools"]), &pools); err != nil {
		return nil, fmt.Errorf("%s:gpuPools: %w", Project, err)
	}
	var kept []map[string]any
	for _, p := range pools {
		if p["name"] == BenchPool {
			p["maxCount"] = b.Capacity()
			kept = append(kept, p)
		}
	}
	if len(kept) != 1 {
		return nil, fmt.Errorf("the local stack has no pool %s", BenchPool)
	}
	teams := make([]map[string]any, b.Teams)
	for i := range teams {
		teams[i] = map[string]any{
			"name":           BenchTeam(i),
			"groups":         []string{fmt.Sprintf("0c0c0c0c-%04d-4000-8000-%012d", i, i)},
			"gpuQuota":       map[string]int{BenchPool: b.TeamGPUs},
			"cpu":            "16",
			"memory":         "64Gi",
			"weight":         BenchWeight(i),
			"borrowingLimit": b.LenderGPUs,
		}
	}
	sched := map[string]any{}
	if err := json.Unmarshal([]byte(cfg[Project+":scheduler"]), &sched); err != nil {
		return nil, fmt.Errorf("%s:scheduler: %w", Project, err)
	}
	sched["lenders"] = []map[string]any{{"name": "spare", "gpuQuota": map[string]int{BenchPool: b.LenderGPUs}}}
	var workloads []map[string]any
	if w, ok := cfg[Project+":workloads"]; ok {
		if err := json.Unmarshal([]byte(w), &workloads); err != nil {
			return nil, fmt.Errorf("%s:workloads: %w", Project, err)
		}
	}
	for _, w := range workloads {
		w["team"] = BenchTeam(0)
		w["pool"] = BenchPool
	}
	for key, v := range map[string]any{"gpuPools": kept, "teams": teams, "scheduler": sched, "workloads": workloads} {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		cfg[Project+":"+key] = string(raw)
	}
	return cfg, nil
}

// WriteStackConfig writes cfg (as ReadStackConfig returns it) as
// <dir>/Pulumi.<stack>.yaml, structured values as YAML.
func WriteStackConfig(dir, stack string, cfg map[string]string) error {
	keys := make([]string, 0, len(cfg))
	for k := range cfg {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	doc := yaml.Node{Kind: yaml.MappingNode}
	for _, k := range keys {
		var v any = cfg[k]
		var structured any
		if err := json.Unmarshal([]byte(cfg[k]), &structured); err == nil {
			switch structured.(type) {
			case map[string]any, []any:
				v = structured
			}
		}
		var kn, vn yaml.Node
		kn.SetString(k)
		if err := vn.Encode(v); err != nil {
			return err
		}
		doc.Content = append(doc.Content, &kn, &vn)
	}
	out, err := yaml.Marshal(map[string]any{"config": &doc})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "Pulumi."+stack+".yaml"), out, 0o644)
}
