// Package workloads builds the training and batch workloads of the aksml
// platform (SPEC C7) on any Kubernetes cluster, following the batch,
// checkpoint and distributed-training sections of AKS MLOps best practices
// (https://learn.microsoft.com/azure/aks/best-practices-ml-ops):
//
//   - CheckpointedJob: a batch/v1 Job that resumes from checkpoints on the
//     team's checkpoint claim, with backoffLimit 6, activeDeadlineSeconds and
//     ttlSecondsAfterFinished 86400, a podFailurePolicy that ignores
//     disruptions and fails on declared exit codes, restartPolicy Never and
//     a 120 s grace period ("Configure checkpoints, retries and termination", "Checkpoint to persistent storage").
//   - IndexedJob: an Indexed Job over shards with backoffLimitPerIndex and a
//     deterministic shard per pod ("Share training data with Azure Files").
//   - ScheduledScoring: a CronJob for nightly batch scoring on CPU nodes.
//   - PyTorchJob and TFJob: Kubeflow training jobs with the NCCL baseline
//     environment and a NetworkPolicy per job ("Run a PyTorchJob",
//     "Run a TFJob", "Configure NCCL communication with the AKS CNI"),
//     and TrainingOperator, the pinned Kubeflow Training Operator install.
//   - FineTuningWorkspace: a KAITO Workspace for QLoRA fine-tuning ("Fine-tune a model with KAITO").
//   - InferenceWorkspace: a KAITO Workspace that serves a preset model (KAITO "for fine-tuning and model deployment").
//   - MIGTrial: a hyperparameter trial on one MIG instance ("Partition A100 and H100 GPUs with MIG").
//   - InferenceServer: a model server that stays up ("Configure training
//     and inference priorities"; never on spot): a Deployment with startup,
//     readiness and liveness probes on a Regular inference pool, a ClusterIP
//     Service, a PodDisruptionBudget (one replica evicted at a time) and a
//     HorizontalPodAutoscaler on the server's queue depth; not queued, and
//     inference-critical only for teams declared serving.
//
// Every pod requests equal requests and limits (GPUs too), runs as the
// non-root UID/GID 1000 with every capability dropped, mounts a
// memory-backed /dev/shm whose size the memory limit must cover ("Aumente
// /dev/shm"), and is placed on its GPU pool by the pool's labels and taints
// (gpupool.Spec): accelerator=nvidia, the workload label and the pool name,
// tolerating sku=gpu:NoSchedule and, on spot pools, the AKS spot taint.
//
// Queueing: with Scheduler kueue (the default for GPU work) objects carry
// the kueue.x-k8s.io/queue-name and kueue.x-k8s.io/priority-class labels
// and are created suspended ("Allocate multi-tenant GPU quota with Kueue"); the suspend flag is then left to Kueue (ignoreChanges), so that
// `pulumi up --refresh` never suspends an admitted workload again. With
// volcano the pods use the Volcano scheduler and queue, and Jobs ask for all
// their pods at once.
//
// `pulumi up` does not wait for workloads: every Job, CronJob and operator
// custom resource carries pulumi.com/skipAwait, because a Kueue-suspended
// Job completes only after admission and a whole training run (two
// suspended Jobs were seen holding `pulumi up` for 200 s until it was
// cancelled). A caller may opt back in with Await and a bounded
// AwaitTimeoutSeconds (pulumi.com/timeoutSeconds, at most 3600).
//
// No PodDisruptionBudget is created for batch kinds: for a restartable batch Job the Job
// controller replaces a disrupted pod, which resumes from its checkpoint; a
// PDB protects only against voluntary evictions and would block node
// drains and AKS upgrades ("Plan for node evictions and maintenance").
//
// The default queue, priority class and checkpoint claim names
// (gpu-queue, training-batch, model-checkpoints) are the values the queues
// and storage components create; this package keeps its own constants so
// that it does not import them.
package workloads
