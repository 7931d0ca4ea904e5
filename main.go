// Command aksml is the Pulumi program that builds the aksml GPU/ML platform
// for the selected stack. The platform's logic lives in stacks/ and
// components/; this file adds the check that runs before it (checkNames).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/stacks"
)

func main() {
	pulumi.Run(run)
}

// run refuses a config that would register one URN twice, before anything
// is registered (checkNames), then runs the program.
func run(ctx *pulumi.Context) error {
	if err := checkNames(ctx.Stack(), envConfig(), program); err != nil {
		return err
	}
	return stacks.Run(ctx)
}

// program is the program checkNames runs under mocks; a variable so that
// tests can give it one that registers a name twice.
var program synth.Program = stacks.Program

// runConfig is the config the Pulumi CLI hands the program, as the SDK reads
// it (pulumi.EnvConfig, pulumi.EnvConfigSecretKeys).
type runConfig struct {
	values     map[string]string
	secretKeys []string
}

func envConfig() runConfig {
	var c runConfig
	_ = json.Unmarshal([]byte(os.Getenv(pulumi.EnvConfig)), &c.values)
	_ = json.Unmarshal([]byte(os.Getenv(pulumi.EnvConfigSecretKeys)), &c.secretKeys)
	return c
}

// checkNames runs program under mocks (internal/synth, about 0.2 s at 100
// teams on a 2-core machine) with the stack's config and refuses a URN it
// registers twice, naming the config values the resource's name is built
// from. The engine refuses a duplicate URN only when the second
// registration arrives, and in an `up` the steps of everything registered
// before it have started by then: validation refuses the clashes known to
// aksml with their own messages (a lender beside a team `lender-<x>`, teams
// `x` and `x-team`, workloads `b-c` of team `a` and `c` of team `a-b`);
// this catches the ones it does not know, at preview. A config the mocks
// cannot run (invalid, or a stack reference the mocks do not hold) is left
// to the real run, which reports its own error.
func checkNames(stack string, cfg runConfig, program synth.Program) error {
	// A mock-run error is the real run's to report; the URNs registered
	// before it are still checked. A mock run that does not end (a wait the
	// mocks never answer) is abandoned rather than holding the preview.
	done := make(chan []string, 1)
	go func() {
		dups, _ := synth.DuplicateURNs(stack, cfg.values, cfg.secretKeys, program)
		done <- dups
	}()
	var dups []string
	select {
	case dups = <-done:
	case <-time.After(checkNamesTimeout):
		return nil
	}
	if len(dups) == 0 {
		return nil
	}
	parsed, perr := stacks.ParseAll(stack, cfg.values)
	var msgs []string
	for _, u := range dups {
		urn := resource.URN(u)
		name := urn.Name()
		var sources []string
		if perr == nil {
			sources = parsed.NameSources(name)
		}
		from := "the names in aksml:teams, aksml:workloads, aksml:gpuPools and aksml:scheduler.lenders it joins"
		if len(sources) > 0 {
			from = strings.Join(sources, ", ")
		}
		msgs = append(msgs, fmt.Sprintf("%s %q is registered twice; its name is built from %s: rename one of them", urn.QualifiedType(), name, from))
	}
	return fmt.Errorf("aksml: this config registers one Pulumi resource twice, which the engine refuses only once an `up` has started changing the cluster; nothing was registered:\n  %s", strings.Join(msgs, "\n  "))
}

// checkNamesTimeout bounds checkNames' mock run: far above its 0.2 s at
// 100 teams, so only a run that waits for ever reaches it.
var checkNamesTimeout = time.Minute
