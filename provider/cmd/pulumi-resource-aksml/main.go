// Command pulumi-resource-aksml is aksml's Pulumi component provider plugin:
// the engine starts it to construct aksml components for programs written in
// any Pulumi language. `pulumi-resource-aksml -schema` prints the schema.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/aksml/aksml/provider"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "-schema" {
		s, err := provider.Schema(context.Background())
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(s)
		return
	}
	if err := provider.Run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
