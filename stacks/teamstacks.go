package stacks

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/cluster"
	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/observability"
	"github.com/aksml/aksml/components/workloads"
)

// Team stacks split a platform with many teams into a platform stack and
// stacks of a few teams each. A checkpointed `up` rewrites the whole state
// after every step, so its time grows with the square of the stack
// (pulumi/pulumi#22075); the same objects in several small stacks cost
// much less (README, "Smaller stacks", and issue 32's measurements).
//
// The platform stack keeps the whole config: it declares and validates
// every team and registers everything that is shared or lists the teams
// (the cluster and its Azure side, the team identities, Kueue with its
// flavors and cohort, the GPU stack, the storage classes, monitors and
// alerts). aksml:teamStacks assigns some teams to team stacks by name. A
// team stack has aksml:platformStack alone: it reads the platform's config
// from TeamStackConfigOutput, parses it exactly as the platform did, and
// registers the Kubernetes objects of the teams assigned to it (namespace,
// quota, access, isolation, queues, volumes, workloads), nothing else.
// So one config decides every team, and no two stacks declare one team.

// TeamStackConfigOutput is the output, secret, in which a platform stack
// with aksml:teamStacks exports what its team stacks build from: `owner`
// (the platform stack as it claims the cluster, cluster.StackOwner),
// `stack` (its stack name, which sets the environment's defaults) and
// `config` (its aksml config, key to raw value).
const TeamStackConfigOutput = "aksmlTeamStackConfig"

// teamStackProducer names, in errors of a team stack, the stack that must
// export what it reads.
const teamStackProducer = "the aksml platform stack (aksml:teamStacks naming this stack)"

// stackNameRE is a Pulumi stack name: letters, digits, '-', '_' and '.'.
var stackNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,100}$`)

// teamStackKeys refuses any aksml key beside aksml:platformStack in a team
// stack's own config: its config is the platform's.
func teamStackKeys(raw map[string]string) field.ErrorList {
	var errs field.ErrorList
	for _, k := range sortedKeys(raw) {
		name, ours := strings.CutPrefix(k, Namespace+":")
		if ours && name != "platformStack" {
			errs = append(errs, field.Forbidden(field.NewPath(k), "a team stack (aksml:platformStack) takes its whole config from its platform stack; set this key in the platform stack's config, or remove aksml:platformStack to make this a platform stack"))
		}
	}
	if v := raw[Namespace+":platformStack"]; strings.ContainsFunc(v, unicode.IsSpace) {
		errs = append(errs, field.Invalid(key("platformStack"), "%q is not a stack name; write the platform stack as <organization>/<project>/<stack>", v))
	}
	return errs
}

// teamStackOf returns the team stack that aksml:teamStacks assigns team to,
// "" when the team's objects are this stack's.
func (c *Config) teamStackOf(team string) string {
	for _, s := range sortedKeys(c.TeamStacks) {
		if slices.Contains(c.TeamStacks[s], team) {
			return s
		}
	}
	return ""
}

// validateTeamStacks checks aksml:teamStacks: valid stack names other than
// this stack's, each listing teams of aksml:teams, no team in two stacks,
// and a stack that has a Kubernetes layer to hand over.
func (c *Config) validateTeamStacks() field.ErrorList {
	if len(c.TeamStacks) == 0 {
		return nil
	}
	var errs field.ErrorList
	p := key("teamStacks")
	if !c.KubernetesLayerOn() {
		errs = append(errs, field.Forbidden(p, "an Azure-layer stack (aksml:kubernetesLayer false) registers no team objects to hand over; set aksml:teamStacks in the Kubernetes-layer stack"))
	}
	declared := map[string]bool{}
	for _, t := range c.Teams {
		declared[t.Name] = true
	}
	seen := map[string]string{}
	for _, s := range sortedKeys(c.TeamStacks) {
		sp := p.Key(s)
		if !stackNameRE.MatchString(s) {
			errs = append(errs, field.Invalid(sp, "is not a Pulumi stack name; use letters, digits, '-', '_' and '.' (at most 100)"))
		}
		if s == c.Stack {
			errs = append(errs, field.Invalid(sp, "is this stack; name the team stack that registers these teams' objects"))
		}
		if len(c.TeamStacks[s]) == 0 {
			errs = append(errs, field.Invalid(sp, "lists no team; list the teams this team stack deploys, or remove it"))
		}
		for i, team := range c.TeamStacks[s] {
			switch {
			case !declared[team]:
				errs = append(errs, field.Invalid(sp.Index(i), "%q is not a team of aksml:teams; declare the team there (the platform stack keeps every team's definition)", team))
			case seen[team] == s:
				errs = append(errs, field.Duplicate(sp.Index(i), "team %q is listed twice; list it once", team))
			case seen[team] != "":
				errs = append(errs, field.Duplicate(sp.Index(i), "team %q is also assigned to team stack %q; a team's objects have one owner, so keep it in one team stack", team, seen[team]))
			default:
				seen[team] = s
			}
		}
	}
	return errs
}

// deploysTeam reports whether this stack registers team's Kubernetes
// objects: a platform stack those of the teams aksml:teamStacks does not
// assign, a team stack those of the teams assigned to it.
func (p *platform) deploysTeam(team string) bool {
	if p.teamStack != "" {
		return p.cfg.teamStackOf(team) == p.teamStack
	}
	return p.cfg.teamStackOf(team) == ""
}

// elsewhereTeams are the teams whose Kubernetes objects another stack
// registers (the complement of deploysTeam), in config order.
func (p *platform) elsewhereTeams() []string {
	var out []string
	for _, t := range p.cfg.Teams {
		if !p.deploysTeam(t.Name) {
			out = append(out, t.Name)
		}
	}
	return out
}

// exportTeamStackConfig exports TeamStackConfigOutput for a platform stack
// with aksml:teamStacks.
func (p *platform) exportTeamStackConfig(ctx *pulumi.Context) {
	if len(p.cfg.TeamStacks) == 0 {
		return
	}
	raw := pulumi.StringMap{}
	for k, v := range p.cfg.raw {
		raw[k] = pulumi.String(v)
	}
	p.outputs[TeamStackConfigOutput] = pulumi.ToSecret(pulumi.Map{
		"owner":  pulumi.String(cluster.StackOwner(ctx)),
		"stack":  pulumi.String(ctx.Stack()),
		"config": raw,
	})
}

// platformExport is what a team stack read from TeamStackConfigOutput.
type platformExport struct {
	owner, stack string
	config       map[string]string
}

// readPlatform reads TeamStackConfigOutput from the platform stack ref
// (named name); a stack that does not export it is an error naming
// aksml:platformStack.
func readPlatform(ref *pulumi.StackReference, name, self string) (platformExport, error) {
	v, err := outputValue(ref, TeamStackConfigOutput)
	if err != nil {
		return platformExport{}, err
	}
	return decodePlatformExport(v, name, self)
}

// decodePlatformExport decodes an exported TeamStackConfigOutput value.
func decodePlatformExport(v any, name, self string) (platformExport, error) {
	m, _ := v.(map[string]any)
	var out platformExport
	out.owner, _ = m["owner"].(string)
	out.stack, _ = m["stack"].(string)
	cfg, _ := m["config"].(map[string]any)
	if out.owner == "" || out.stack == "" || cfg == nil {
		return out, field.ErrorList{field.Invalid(key("platformStack"), "stack %s exports no %s: it is not an aksml platform stack with team stacks, or has not run since it became one; add %s to its aksml:teamStacks and run its pulumi up first", name, TeamStackConfigOutput, self)}.ToAggregate()
	}
	out.config = map[string]string{}
	for k, val := range cfg {
		s, ok := val.(string)
		if !ok {
			return out, fmt.Errorf("%s: %s of stack %s has a non-string value at %s; run the platform stack's pulumi up with this aksml release", key("platformStack"), TeamStackConfigOutput, name, k)
		}
		out.config[k] = s
	}
	return out, nil
}

// deployTeamStack deploys a team stack (aksml:platformStack): it reads and
// parses the platform stack's config, checks that this stack has teams
// there and that the platform owns the cluster, then registers its teams'
// namespaces with their access and isolation, queues, volumes and
// workloads. Nothing is registered while any of that fails.
func deployTeamStack(ctx *pulumi.Context, own *Config) (map[string]pulumi.Input, error) {
	name, self := own.PlatformStack, ctx.Stack()
	ref, err := pulumi.NewStackReference(ctx, "platform", &pulumi.StackReferenceArgs{Name: pulumi.String(name)})
	if err != nil {
		return nil, err
	}
	exp, err := readPlatform(ref, name, self)
	if err != nil {
		return nil, err
	}
	cfg, err := Parse(exp.stack, exp.config)
	if err != nil {
		return nil, fmt.Errorf("%s: the config of platform stack %s does not parse with this aksml release, so its teams cannot be deployed from here; run both stacks with one release: %w", key("platformStack"), name, err)
	}
	mine := cfg.TeamStacks[self]
	if len(mine) == 0 {
		return nil, field.ErrorList{field.Invalid(key("platformStack"), "platform stack %s assigns no team to this stack (%s): its aksml:teamStacks names %s; add %s: [<teams>] there and run its pulumi up first", name, self, strings.Join(sortedKeys(cfg.TeamStacks), ", "), self)}.ToAggregate()
	}
	p := &platform{cfg: cfg, res: cfg.res, outputs: map[string]pulumi.Input{}, teamStack: self}
	if err := p.checkPlacement(ctx); err != nil {
		return nil, err
	}
	if err := p.teamStackCluster(ctx, ref, name); err != nil {
		return nil, err
	}
	if err := p.followOwner(ctx, exp.owner, name); err != nil {
		return nil, err
	}
	for _, step := range []func(*pulumi.Context) error{p.tenancyLayer, p.queueLayer, p.workloads} {
		if err := step(ctx); err != nil {
			return nil, err
		}
	}
	p.outputs["platformStack"] = pulumi.String(name)
	return p.outputs, nil
}

// teamStackCluster sets the team stack's Kubernetes provider, its teams'
// identity client IDs and the KEDA source, from where the platform stack
// takes them: the platform's own outputs when it created the cluster, its
// aksml:existingCluster otherwise.
func (p *platform) teamStackCluster(ctx *pulumi.Context, ref *pulumi.StackReference, name string) error {
	cfg := p.cfg
	if cfg.ExistingCluster != nil {
		prov, azureRef, err := cluster.ExistingStack(ctx, "existing-cluster", *cfg.ExistingCluster, existingStackArgs)
		if err != nil {
			return err
		}
		p.provider = prov
		if azureRef != nil {
			p.teamClientIDs, err = readTeamIdentities(azureRef, cfg.ExistingCluster.StackReference, cfg.Teams, p.deploysTeam)
		}
		return err
	}
	prov, _, err := cluster.ExistingStack(ctx, "platform-cluster", cluster.ExistingClusterSpec{StackReference: name},
		cluster.ExistingStackArgs{ConfigPath: key("platformStack"), Producer: teamStackProducer})
	if err != nil {
		return err
	}
	p.provider = prov
	if p.teamClientIDs, err = readTeamIdentities(ref, name, cfg.Teams, p.deploysTeam); err != nil {
		return err
	}
	if cfg.usesKEDA() && cfg.kedaProvided() {
		cfg.keda = &workloads.KEDASource{
			QueryEndpoint:         cluster.RequiredOutput(ref, "prometheusQueryEndpoint", teamStackProducer),
			TriggerAuthentication: observability.DefaultKEDATriggerAuthentication,
		}
	}
	return nil
}

// followOwner refuses, before any object is registered, a team stack on a
// cluster its platform stack does not own (vocab.OwnerAnnotation on
// kube-system, which the platform's `up` writes): the platform has not
// run, or another stack owns the cluster. A team stack never claims it.
func (p *platform) followOwner(ctx *pulumi.Context, owner, name string) error {
	found, known, err := p.readOwner(ctx, pulumi.StringOutput{})
	if err != nil {
		return err
	}
	if known && found != owner {
		if found == "" {
			found = "no stack"
		}
		return fmt.Errorf("%s: the cluster is owned by %s, not by platform stack %s (%s), whose Kueue, flavors and cohort this stack's queues use; run the platform stack's pulumi up first, or point aksml:platformStack at the stack that owns the cluster", key("platformStack"), found, name, owner)
	}
	return nil
}

// checkPlacement refuses, before anything else is registered, a team whose
// Kubernetes objects this stack's last deployment left in one stack while
// the config now puts them in another (the platform or a team stack, by
// aksml:teamStacks): the objects are in the first stack's state, so the
// second's create would fail on them (since v4.29 pulumi-kubernetes
// creates client-side and returns AlreadyExists instead of adopting the
// object, unless the provider sets upsertExistingObjects; v4.29.0 release
// notes, pulumi/pulumi-kubernetes#2926; aksml uses v4.32) while the first
// would delete them, and with
// them the team's quota and isolation. It reads the stack's own previous
// outputs: a platform's teamNamespaces (the teams it deployed) and
// TeamStackConfigOutput (where it assigned the others), a team stack's
// teamNamespaces. A team that left aksml:teams is a removal, not a move.
func (p *platform) checkPlacement(ctx *pulumi.Context) error {
	ref, err := p.previousRef(ctx)
	if err != nil {
		return err
	}
	deployed, err := outputValue(ref, "teamNamespaces")
	if err != nil {
		return err
	}
	exported, err := outputValue(ref, TeamStackConfigOutput)
	if err != nil {
		return err
	}
	// This stack and the platform's (cfg.Stack: the platform's name, which
	// is this stack's in a platform stack).
	self, platform := p.teamStack, p.cfg.Stack
	if self == "" {
		self = platform
	}
	before := map[string]string{}
	if m, _ := exported.(map[string]any); m != nil {
		cfg, _ := m["config"].(map[string]any)
		raw, _ := cfg[Namespace+":teamStacks"].(string)
		var assigned map[string][]string
		_ = json.Unmarshal([]byte(raw), &assigned)
		for stack, names := range assigned {
			for _, n := range names {
				before[n] = stack
			}
		}
	}
	if m, _ := deployed.(map[string]any); m != nil {
		for n := range m {
			before[n] = self
		}
	}
	var errs field.ErrorList
	for i, t := range p.cfg.Teams {
		was, ok := before[t.Name]
		if !ok {
			continue
		}
		now := p.cfg.teamStackOf(t.Name)
		if now == "" {
			now = platform
		}
		if p.teamStack != "" && was == self && now != self || p.teamStack == "" && was != now {
			errs = append(errs, field.Invalid(key("teamStacks"), "team %q (aksml:teams[%d]) has its namespace, quota, access, isolation, queues and volumes in stack %s, which its last deployment put there, and aksml:teamStacks now puts them in %s; moving a deployed team between stacks is not supported: %s would fail to create objects that exist while %s deleted them; keep the team in %s, or remove it from aksml:teams, run pulumi up in both stacks, then add it again",
				t.Name, i, was, now, now, was, was))
		}
	}
	return errs.ToAggregate()
}
