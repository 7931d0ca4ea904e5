// Command selfref is the program of tests/e2e/selfref_test.go: it reads its
// own stack's previous output n through a StackReference to
// <organization>/<project>/<stack>, as aksml's stacks/previous.go does, and
// exports n+1. With config selfref:expect set, it fails unless the previous
// n it read equals it, in preview and in up alike.
package main

import (
	"fmt"
	"strconv"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		self := ctx.Organization() + "/" + ctx.Project() + "/" + ctx.Stack()
		ref, err := pulumi.NewStackReference(ctx, "previous-deployment", &pulumi.StackReferenceArgs{Name: pulumi.String(self)})
		if err != nil {
			return err
		}
		d, err := ref.GetOutputDetails("n")
		if err != nil {
			return err
		}
		prev := 0
		if f, ok := d.Value.(float64); ok {
			prev = int(f)
		}
		if want := config.Get(ctx, "selfref:expect"); want != "" && want != strconv.Itoa(prev) {
			return fmt.Errorf("previous n=%d, expected %s (dry run %v)", prev, want, ctx.DryRun())
		}
		ctx.Export("n", pulumi.Int(prev+1))
		return nil
	})
}
