// Command aksml is the Pulumi program that builds the aksml GPU/ML platform
// for the selected stack. All logic lives in stacks/ and components/.
package main

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/stacks"
)

func main() {
	pulumi.Run(stacks.Run)
}
