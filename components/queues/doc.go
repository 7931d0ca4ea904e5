// Package queues builds the scheduling, quota and tenancy layer of the
// platform (SPEC C5), following seed 000 "Use agendamento de gangue e filas
// de cargas de trabalho", "Aloque a cota de GPU multilocatário com Kueue",
// "Usar o Vulcão como alternativa" and "Configurar prioridades de
// treinamento e inferência".
//
// NewQueues registers, on any Kubernetes cluster:
//
//   - a namespace per team, labelled `aksml.io/team` and with Pod Security
//     admission enforced (restricted by default, baseline per team);
//   - the PriorityClasses `training-batch` (10000, preemptionPolicy Never)
//     and `inference-critical` (100000, PreemptLowerPriority), as the seed;
//   - a ResourceQuota `gpu-quota` per team namespace on
//     `requests.nvidia.com/gpu` (and MIG resources): a second guard for pods
//     that bypass the queue, sized to what the queue can admit;
//   - one primary queueing system (seed: do not run two):
//   - kueue (default): Kueue KueueVersion from its official chart (optional,
//     for clusters that run Kueue already), a ResourceFlavor per GPU pool
//     (`gpu-<pool>`; spot pools only for workloads that tolerate spot) and
//     a `cpu` flavor, a ClusterQueue `<team>-gpu` per team in a shared
//     cohort with borrowing/lending limits, preemption and fair-sharing
//     weights, a LocalQueue `gpu-queue` per team namespace, and
//     WorkloadPriorityClasses aligned with the PriorityClasses;
//   - volcano: Volcano VolcanoVersion from its chart and a Queue per team;
//   - none: no queues.
//
// Before anything is registered, ValidateTeams checks every setting and
// CheckCapacity checks that the GPU quota handed out on each pool fits what
// the pool holds at maxCount (C5.4).
package queues
