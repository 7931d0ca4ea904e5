// Command check runs every aksml guardrail (policy/rules) over the desired
// state of a stack, synthesized under mocks (internal/synth) from its
// Pulumi.<stack>.yaml, and prints the violations grouped by severity. It
// needs no cloud credentials, so reviewers and CI run it on every pull
// request:
//
//	go run ./policy/cmd/check                # stack dev in the current directory
//	go run ./policy/cmd/check -stack prod
//	go run ./policy/cmd/check -all -dir .    # every Pulumi.<stack>.yaml in -dir
//	go run ./policy/cmd/check -rules         # the rule catalogue as a markdown table
//	go run ./policy/cmd/check -images -stack prod  # the images and charts the stack runs
//
// With -images it prints, instead of the guardrails' report, one line per
// container image the stack's pod templates name (`image <reference>`) and
// per Helm chart it installs (`chart <chart> <version> [<repository>]`), the
// input of .github/scripts/scan-images.sh (README "Image scanning").
//
// Exit status: 0 when no mandatory rule is violated (advisory findings are
// printed but do not fail), 1 when a mandatory rule is violated, 2 when a
// stack cannot be synthesized (e.g. its config is invalid).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/aksml/aksml/internal/synth"
	"github.com/aksml/aksml/policy/rules"
)

// Exit statuses.
const (
	exitOK        = 0
	exitMandatory = 1
	exitError     = 2
)

func main() {
	stack := flag.String("stack", "dev", "stack to check (reads Pulumi.<stack>.yaml in -dir)")
	dir := flag.String("dir", ".", "project directory holding Pulumi.<stack>.yaml")
	all := flag.Bool("all", false, "check every Pulumi.<stack>.yaml in -dir")
	table := flag.Bool("rules", false, "print the rule catalogue as a markdown table and exit")
	images := flag.Bool("images", false, "print the container images and Helm charts of -stack and exit")
	flag.Parse()
	if *images {
		os.Exit(listImages(os.Stdout, os.Stderr, *dir, *stack))
	}
	if *table {
		if err := rules.WriteMarkdownTable(os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(exitError)
		}
		return
	}
	os.Exit(run(os.Stdout, os.Stderr, *dir, *stack, *all))
}

// listImages prints the images and charts of one stack and returns the
// exit status.
func listImages(stdout, stderr io.Writer, dir, stack string) int {
	s, err := synth.Synth(dir, stack)
	if err != nil {
		fmt.Fprintf(stderr, "stack %s: cannot synthesize the desired state: %v\n", stack, err)
		return exitError
	}
	images, charts := rules.Images(s)
	for _, i := range images {
		fmt.Fprintf(stdout, "image %s\n", i.Image)
	}
	for _, c := range charts {
		fmt.Fprintln(stdout, strings.TrimSpace(fmt.Sprintf("chart %s %s %s", c.Chart, c.Version, c.Repo)))
	}
	return exitOK
}

// run checks the requested stacks and returns the exit status.
func run(stdout, stderr io.Writer, dir, stack string, all bool) int {
	stacks := []string{stack}
	if all {
		var err error
		if stacks, err = synth.Stacks(dir); err != nil {
			fmt.Fprintf(stderr, "listing stacks in %s: %v\n", dir, err)
			return exitError
		}
		if len(stacks) == 0 {
			fmt.Fprintf(stderr, "no Pulumi.<stack>.yaml in %s\n", dir)
			return exitError
		}
	}
	status := exitOK
	for i, name := range stacks {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		s, err := synth.Synth(dir, name)
		if err != nil {
			fmt.Fprintf(stderr, "stack %s: cannot synthesize the desired state: %v\n", name, err)
			status = exitError
			continue
		}
		mandatory, err := rules.WriteReport(stdout, s, rules.Check(s))
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitError
		}
		if mandatory > 0 && status == exitOK {
			status = exitMandatory
		}
	}
	return status
}
