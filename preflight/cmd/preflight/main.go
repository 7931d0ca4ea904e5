// Command preflight tells, before `pulumi up`, whether the Azure
// subscription can take a stack: quota per VM family (on-demand and spot)
// at every pool's minimum and maximum, VM sizes per region and zone,
// resource providers and features, global names, the Kubernetes version,
// workspace regions and the deployer's rights, then the stack's monthly
// cost. It reads Azure only, with the default credential chain
// (azidentity.DefaultAzureCredential: environment, workload identity,
// managed identity, az CLI), and needs Reader on the subscription:
//
//	cd preflight && go run ./cmd/preflight -stack prod -dir ..
//	go run ./cmd/preflight -stack dev -dir .. -subscription <guid>
//
// The subscription is -subscription, else ARM_SUBSCRIPTION_ID, else
// AZURE_SUBSCRIPTION_ID.
//
// Exit status (preflight.Exit*): 0 every check is ok; 1 at least one check
// will fail; 2 the command could not run (bad flags, invalid stack config,
// no subscription); 3 nothing will fail but at least one check cannot tell
// (no right to read, throttled, a provider not registered, or a question
// the served Azure APIs cannot answer). CI fails on 1 and 2.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	"github.com/aksml/aksml/preflight"
	"github.com/aksml/aksml/stacks"
)

// timeout bounds the whole run: a few dozen reads.
const timeout = 5 * time.Minute

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr, azureClients))
}

// connect builds the clients for a subscription.
type connect func(subscription string) (*preflight.Clients, error)

// azureClients connects with the default credential chain.
func azureClients(subscription string) (*preflight.Clients, error) {
	cred, err := azidentity.NewDefaultAzureCredential(nil)
	if err != nil {
		return nil, err
	}
	return preflight.NewClients(subscription, cred, &arm.ClientOptions{})
}

// run is the command without the process: flags, environment, output and
// the Azure connection are passed in, so tests drive it against fake
// servers.
func run(args []string, getenv func(string) string, stdout, stderr io.Writer, dial connect) int {
	fs := flag.NewFlagSet("preflight", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stack := fs.String("stack", "dev", "stack to check (reads Pulumi.<stack>.yaml in -dir)")
	dir := fs.String("dir", ".", "project directory holding Pulumi.<stack>.yaml")
	sub := fs.String("subscription", "", "subscription ID (default $ARM_SUBSCRIPTION_ID, then $AZURE_SUBSCRIPTION_ID)")
	if err := fs.Parse(args); err != nil {
		return preflight.ExitError
	}
	raw, err := stacks.ReadConfigFile(*dir, *stack)
	if err != nil {
		fmt.Fprintf(stderr, "preflight: %v\n", err)
		return preflight.ExitError
	}
	cfg, err := stacks.Parse(*stack, raw)
	if err != nil {
		fmt.Fprintf(stderr, "preflight: stack %s: the config is invalid, so up would fail at preview:\n%v\n", *stack, err)
		return preflight.ExitError
	}
	plan := preflight.PlanOf(cfg)
	if plan.ExistingCluster {
		if err := preflight.Write(stdout, preflight.Report{Plan: plan}); err != nil {
			fmt.Fprintln(stderr, err)
			return preflight.ExitError
		}
		return preflight.ExitOK
	}
	subscription := firstOf(*sub, getenv("ARM_SUBSCRIPTION_ID"), getenv("AZURE_SUBSCRIPTION_ID"))
	if subscription == "" {
		fmt.Fprintln(stderr, "preflight: no subscription: pass -subscription or set ARM_SUBSCRIPTION_ID")
		return preflight.ExitError
	}
	az, err := dial(subscription)
	if err != nil {
		fmt.Fprintf(stderr, "preflight: connecting to Azure: %v\n", err)
		return preflight.ExitError
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	report := preflight.Run(ctx, plan, az)
	if err := preflight.Write(stdout, report); err != nil {
		fmt.Fprintln(stderr, err)
		return preflight.ExitError
	}
	return report.ExitCode()
}

func firstOf(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
