package synth

import (
	"context"
	"sort"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// DuplicateURNs runs program as stack with config under the mocks and
// returns, sorted, every URN it registers or reads more than once: the
// Pulumi engine refuses such a URN only when its second registration
// arrives, and during an `up` the steps of the resources registered before
// it have started by then ("one owner per name"). err is the program's own
// error under the mocks, if any; the URNs registered before it are still
// checked.
//
// The run is not a dry run: under the mocks a dry run leaves the secret
// kubeconfig output without a value, which the program cannot use. It runs
// as the mocks' project (stacks.Project), so the URNs it returns name that
// project. It builds its own context (pulumi.NewContext and
// RunWithContext) rather than calling pulumi.RunErr, so that it can run
// inside a real deployment's program without touching the SDK's
// process-wide tracing (RunErr starts and shuts down the tracer provider).
func DuplicateURNs(stack string, config map[string]string, secretKeys []string, program Program) ([]string, error) {
	m := &mocks{stack: stack}
	ctx, err := pulumi.NewContext(context.Background(), pulumi.RunInfo{
		Project: Project, Stack: stack, Config: config, ConfigSecretKeys: secretKeys, Mocks: m,
	})
	if err != nil {
		return nil, err
	}
	defer func() { _ = ctx.Close() }()
	runErr := pulumi.RunWithContext(ctx, func(ctx *pulumi.Context) error {
		_, err := program(ctx)
		return err
	})
	count := map[string]int{}
	for _, r := range m.resources() {
		if r.URN != "" {
			count[r.URN]++
		}
	}
	var dups []string
	for urn, n := range count {
		if n > 1 {
			dups = append(dups, urn)
		}
	}
	sort.Strings(dups)
	return dups, runErr
}
