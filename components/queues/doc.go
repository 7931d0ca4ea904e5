// Package queues builds the scheduler and its queues (SPEC C5), following AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) "Use gang scheduling and workload queues", "Allocate multi-tenant GPU quota with Kueue",
// "Use Volcano as an alternative" and "Configure training and inference priorities".
//
// NewQueues registers, on any Kubernetes cluster whose team namespaces
// exist (components/tenancy creates them, with their ResourceQuotas;
// QueuesArgs.Namespaces):
//
//   - a PriorityClass per priority level (SchedulerSpec.Priorities; default
//     the AKS MLOps best practices' `training-batch` (10000, preemptionPolicy Never) and
//     `inference-critical` (100000, PreemptLowerPriority));
//   - one primary queueing system (AKS MLOps best practices: do not run two):
//   - kueue (default): Kueue KueueVersion from its official chart (optional,
//     for clusters that run Kueue already), a ResourceFlavor per GPU pool
//     (`gpu-<pool>`; spot pools only for workloads that tolerate spot) and
//     a `cpu` flavor, a ClusterQueue `<team>-gpu` per team in a shared
//     cohort with GPU, cpu and memory borrowing/lending limits, the team's
//     preemption policy and fair-sharing weight, a LocalQueue `gpu-queue`
//     per team namespace and beside it a LocalQueue `default` on the same
//     ClusterQueue, which Kueue gives Jobs created without a queue name
//     (DefaultLocalQueueName), a lending-only ClusterQueue per lender
//     (SchedulerSpec.Lenders: quota without namespace, queue or claims),
//     a WorkloadPriorityClass per priority level, and, for the pools in
//     SchedulerSpec.Provisioning, a ProvisioningRequest AdmissionCheck and
//     ProvisioningRequestConfig per class on those pools' flavors
//     (all-or-nothing scale-up for gangs, provisioning.go);
//   - volcano: Volcano VolcanoVersion from its chart and a Queue per team;
//   - none: no queues.
//
// The ResourceQuota `gpu-quota` of each team namespace on
// `requests.nvidia.com/gpu` (and MIG resources), a second guard for pods
// that bypass the queue, is registered by components/tenancy but sized
// here, to what the queue can admit (Resolved.ResourceQuotaHard).
//
// Before anything is registered, ValidateTeams checks every queue setting
// of the teams (names as queue names, quotas, limits, weights, preemption)
// and the scheduler, and
// CheckCapacity checks that the GPU quota handed out on each pool (teams'
// and lenders') fits what the pool holds at maxCount (C5.4); cpu and memory
// lending limits must not exceed the nominal quota.
//
// Kueue's controller configuration (kueueValues: fair sharing unless
// SchedulerSpec.FairSharing is false, waitForPodsReady, integrations) is what
// the real-cluster tier runs its in-process Kueue with
// (tests/cluster/kueue_deployed_test.go fails when the two drift apart), so
// the admission and preemption behaviour it proves is the deployed one.
// Preemption semantics: "Preemption" and "Fair Sharing",
// https://kueue.sigs.k8s.io/docs/concepts/preemption/ and
// https://kueue.sigs.k8s.io/docs/concepts/fair_sharing/.
package queues
