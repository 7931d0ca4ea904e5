// Package rules holds aksml's guardrails (SPEC C8): the GPU/ML practices of
// the public AKS documents and the SPEC as pure functions over a stack's
// desired state.
//
// Each Rule has a stable ID (AKSML-<AREA>-<NNN>), a one-line title, a
// severity (Mandatory blocks, Advisory informs), the Source it comes from
// (a public document and section, or a SPEC capability), and a check: Rule.Resource over one resource (type token + inputs)
// or Rule.Stack over the whole stack for rules across resources (Kueue
// quota vs pool capacity, device plugin vs Managed pools, NetworkPolicy per
// PyTorchJob, PDB vs batch Jobs, stack outputs). Every message names the
// resource and says what to change.
//
// The same rules run in three places:
//   - unit tests, over the desired state internal/synth records under mocks;
//   - the policy pack in ./policy (`pulumi preview --policy-pack ./policy`);
//   - the reviewer CLI (`go run ./policy/cmd/check`), which CI runs over
//     every shipped stack and example.
//
// Resources are plain data (Resource, Stack); values not known before
// deployment appear as Unknown and are never reported on. The shapes of GPU
// node pools (AgentPool, ManagedCluster agentPoolProfiles, and agentPools
// inside the ARM template of a deployment stack, which is how Managed GPU
// pools are created) are read in one place: Pool and poolsOf.
//
// The rules that mirror aksml's own semantic checks (issue 12) read the
// same numbers as the components: duplicate identity (AKSML-IDN-*, whose
// KubeIdentity tests/conformance reuses for CONF-ID-001), pods against a
// node's allocatable (gpupool.NodeAllocatable), gangs against pool
// capacity (the gpupool catalogue) and against a ClusterQueue's nominal
// quota plus cohort borrowing (AKSML-QUE-005/006), and reserved
// namespaces (vocab.PlatformNamespaceOwner). The schedulability rules
// only judge a stack that declares its ManagedCluster, whose pools are
// then all the cluster has.
//
// Conventions other packages rely on:
//   - team namespaces carry the label aksml.io/team (TeamLabel);
//   - a deliberate Kueue GPU overcommit is declared with the annotation
//     aksml.io/gpu-overcommit-ratio: "<ratio>" on the ResourceFlavor (or on
//     the ClusterQueue); without it, the nvidia.com/gpu nominal quota handed
//     out on a flavor must fit maxCount × GPUs/node of the pools whose node
//     labels match the flavor's nodeLabels;
//   - checkpoint storage is recognised by name: StorageClasses and claims
//     whose name contains "checkpoint";
//   - a Job that Kueue queues, that is suspended or that trains carries
//     pulumi.com/skipAwait: "true".
package rules
