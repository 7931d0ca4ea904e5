// Command policy is aksml's Pulumi policy pack (SPEC C8): every guardrail of
// package policy/rules as an analyzer that runs before anything is created.
//
//	pulumi preview --policy-pack ./policy
//
// The Pulumi CLI reads PulumiPolicy.yaml (runtime: go), asks the Go language
// host to `go build` this directory and runs the binary; the binary prints
// the port of its Analyzer gRPC server and the engine calls Handshake,
// ConfigureStack, GetAnalyzerInfo, then Analyze for every resource (with its
// inputs) and AnalyzeStack once at the end (with every resource's outputs and
// the stack outputs).
//
// Per-resource rules run as resource validation policies; rules across
// resources run as stack validation policies. Each rule's severity is set on
// its policy (mandatory or advisory): the pack-level enforcement level is
// ignored by policyx in v3.276. Because AnalyzeStack sees outputs, the pack
// keeps the inputs each resource was analyzed with and gives the stack rules
// those, so that both phases judge the same desired state the reviewer CLI
// and the unit tests judge.
//
// The environment of the stack (prod or dev; digest pinning and scale-to-zero
// rules depend on it) is the config value aksml:environment, or, when unset,
// derived from the stack name (rules.Environment).
//
// `pulumi policy publish` is not supported: policyx answers GetAnalyzerInfo
// only after ConfigureStack, which publish never calls.
package main

import (
	"fmt"
	"os"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/policyx"
)

func main() {
	if err := policyx.Main(newPolicyPack); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
