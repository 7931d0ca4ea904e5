// Two teams (namespaces, quota, access and isolation) with Kueue queues on one
// T4 pool (team-b with its own preemption policy), each with its datasets and checkpoint claims, a
// checkpointed training job in team-a and a sharded CPU job in team-b:
// aksml's components from TypeScript, on any cluster the ambient
// Kubernetes provider points at (AKS or the local sandbox).
import * as aksml from "@aksml/aksml";

const t4 = { name: "t4", vmSize: "Standard_NC4as_T4_v3", workload: "training", maxCount: 2 };

const teams = [
    { name: "team-a", cpu: "16", memory: "64Gi", gpuQuota: { t4: 1 } },
    {
        name: "team-b", cpu: "16", memory: "64Gi", gpuQuota: { t4: 1 },
        preemption: { withinClusterQueue: "Never", reclaimWithinCohort: "LowerPriority" },
    },
];

const tenants = new aksml.tenancy.Tenancy("ml", { pools: [t4], teams, retainNamespaces: true });

const queues = new aksml.queues.Queues("ml", { pools: [t4], teams, namespaces: tenants.namespaces });

const classes = new aksml.storage.StorageClasses("ml", {});

const volumes = new aksml.storage.TeamVolumes("team-a", {
    namespace: tenants.namespaces.apply(ns => ns["team-a"]),
    retainCheckpoints: true,
}, { dependsOn: [classes] });

const job = new aksml.workloads.CheckpointedJob("resnet", {
    namespace: tenants.namespaces.apply(ns => ns["team-a"]),
    team: "team-a",
    image: "pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime",
    resources: { cpu: "3", memory: "16Gi", gpus: 1 },
    pool: t4,
}, { dependsOn: [volumes, queues] });

// CPU shards over team-b's datasets claim: one pod per index, with
// SHARD_INDEX and SHARD_COUNT set (no pool: the default scheduler).
const shards = new aksml.workloads.IndexedJob("embed", {
    namespace: tenants.namespaces.apply(ns => ns["team-b"]),
    team: "team-b",
    image: "python:3.12-slim",
    command: ["python", "-c", "import os; print(os.environ['SHARD_INDEX'], os.environ['SHARD_COUNT'])"],
    resources: { cpu: "1", memory: "2Gi" },
    completions: 4,
    parallelism: 2,
}, { dependsOn: [queues] });

export const namespaces = tenants.namespaces;
export const jobName = job.name;
export const shardJobName = shards.name;
