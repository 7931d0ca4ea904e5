package rules

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jobSpec and podSpec are the paths of the training Job's spec and pod spec.
var (
	jobSpec = []any{"spec"}
	podSpec = []any{"spec", "template", "spec"}
	trainer = []any{"spec", "template", "spec", "containers", 0}
	armPool = []any{"template", "resources", 0, "properties"}
)

func at(base []any, more ...any) []any { return append(append([]any(nil), base...), more...) }

// ruleCase breaks (or varies) goodStack in one place.
type ruleCase struct {
	id     string
	name   string
	env    string
	mutate func(s *Stack)
	// want are substrings every message of the rule must contain: the
	// resource it names and the fix.
	want []string
}

// violations lists, for every rule, at least one stack the rule must catch.
var violations = []ruleCase{
	{id: "AKSML-GPU-001", name: "AgentPool without taint",
		mutate: func(s *Stack) { set(s, "gpua100", arr{}, "nodeTaints") },
		want:   []string{"AgentPool gpua100", "Standard_NC24ads_A100_v4", `add "sku=gpu:NoSchedule" to nodeTaints`}},
	{id: "AKSML-GPU-001", name: "Managed pool in a deployment stack without taint",
		mutate: func(s *Stack) { set(s, "gpuh100", arr{"other=x:NoSchedule"}, at(armPool, "nodeTaints")...) },
		want:   []string{"pool gpuh100 (in DeploymentStackAtResourceGroup gpuh100)", "sku=gpu:NoSchedule"}},
	{id: "AKSML-GPU-002", name: "minCount 1 in dev",
		mutate: func(s *Stack) { set(s, "gpua100", 1.0, "minCount") },
		want:   []string{"AgentPool gpua100 has minCount 1", `intermittent stack "dev"`, "set minCount 0"}},
	{id: "AKSML-GPU-002", name: "managed pool count from an ARM parameter in dev",
		mutate: func(s *Stack) { set(s, "gpuh100", obj{"value": 2.0}, "parameters", "count") },
		want:   []string{"pool gpuh100", "count 2", "set count 0"}},
	{id: "AKSML-GPU-002", name: "template pool minCount 1 in dev",
		mutate: func(s *Stack) { set(s, "gpuh100", 1.0, "template", "resources", 1, "properties", "minCount") },
		want:   []string{"pool gpubyo", "minCount 1", "set minCount 0"}},
	{id: "AKSML-GPU-003", name: "autoscaler off",
		mutate: func(s *Stack) { set(s, "gpua100", false, "enableAutoScaling") },
		want:   []string{"AgentPool gpua100", "set enableAutoScaling true"}},
	{id: "AKSML-GPU-003", name: "no maxCount",
		mutate: func(s *Stack) { set(s, "gpua100", nil, "maxCount") },
		want:   []string{"AgentPool gpua100 has no maxCount", "explicit maxCount"}},
	{id: "AKSML-GPU-003", name: "template None pool without the autoscaler",
		mutate: func(s *Stack) {
			set(s, "gpuh100", false, "template", "resources", 1, "properties", "enableAutoScaling")
		},
		want: []string{"pool gpubyo", "set enableAutoScaling true"}},
	{id: "AKSML-ARM-001", name: "template pools written in parallel",
		mutate: func(s *Stack) { set(s, "gpuh100", nil, "template", "resources", 1, "dependsOn") },
		want:   []string{"pool gpubyo (in DeploymentStackAtResourceGroup gpuh100)", "dependsOn", "one chain"}},
	{id: "AKSML-ARM-001", name: "two pools after the same pool",
		mutate: func(s *Stack) {
			r := find(s, "gpuh100")
			res := r.Inputs["template"].(obj)["resources"].(arr)
			third := map[string]any{}
			for k, v := range res[1].(obj) {
				third[k] = v
			}
			third["name"] = "[format('{0}/{1}', parameters('clusterName'), 'gputhird')]"
			r.Inputs["template"].(obj)["resources"] = append(res, obj(third))
		},
		want: []string{"pool gpuh100", "is the dependsOn of 2 pools"}},
	{id: "AKSML-ARM-002", name: "autoscaled template pool sends count",
		mutate: func(s *Stack) { set(s, "gpuh100", 0.0, "template", "resources", 1, "properties", "count") },
		want:   []string{"pool gpubyo", "count 0", "remove count"}},
	{id: "AKSML-ARM-003", name: "managed pool with the autoscaler",
		mutate: func(s *Stack) { set(s, "gpuh100", true, at(armPool, "enableAutoScaling")...) },
		want:   []string{"pool gpuh100", "AKS-managed GPU pool", "set enableAutoScaling false"}},
	{id: "AKSML-ARM-003", name: "managed pool without count",
		mutate: func(s *Stack) { set(s, "gpuh100", nil, at(armPool, "count")...) },
		want:   []string{"pool gpuh100", "without count"}},
	{id: "AKSML-MON-001", name: "managed Prometheus without any data collection",
		mutate: func(s *Stack) { add(s, managedCluster()) },
		want:   []string{"ManagedCluster aks enables managed Prometheus", "data collection rule forwarding Microsoft-PrometheusMetrics", "association on the cluster"}},
	{id: "AKSML-MON-001", name: "rule to nowhere",
		mutate: func(s *Stack) {
			m := monitorStack()
			dcr := m.Inputs["template"].(obj)["resources"].(arr)[0].(obj)
			dcr["properties"].(obj)["dataFlows"] = arr{}
			add(s, managedCluster(), m)
		},
		want: []string{"ManagedCluster aks", "forwarding Microsoft-PrometheusMetrics"}},
	{id: "AKSML-MON-002", name: "rule group scoped to the cluster only",
		mutate: func(s *Stack) {
			m := monitorStack()
			m.Inputs["template"].(obj)["resources"].(arr)[2].(obj)["properties"] = obj{"scopes": arr{"/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/aks"}}
			add(s, m)
		},
		want: []string{"rule group aks-alerts", "no Azure Monitor workspace", "properties.scopes"}},
	{id: "AKSML-GPU-004", name: "spot pool labelled inference",
		mutate: func(s *Stack) { set(s, "gpuspot", "inference", "nodeLabels", "workload") },
		want:   []string{"AgentPool gpuspot is a spot pool labelled workload=inference", "Regular pool"}},
	{id: "AKSML-GPU-005", name: "spot minCount 2 (prod too)", env: EnvProd,
		mutate: func(s *Stack) { set(s, "gpuspot", 2.0, "minCount") },
		want:   []string{"AgentPool gpuspot is a spot pool with minCount 2", "set minCount 0"}},
	{id: "AKSML-GPU-006", name: "spot Deallocate",
		mutate: func(s *Stack) { set(s, "gpuspot", "Deallocate", "scaleSetEvictionPolicy") },
		want:   []string{"AgentPool gpuspot evicts with Deallocate", "scaleSetEvictionPolicy Delete"}},
	{id: "AKSML-GPU-006", name: "spot capped price",
		mutate: func(s *Stack) { set(s, "gpuspot", 0.5, "spotMaxPrice") },
		want:   []string{"AgentPool gpuspot caps the spot price at 0.5", "spotMaxPrice -1"}},
	{id: "AKSML-GPU-007", name: "MIG profile on T4",
		mutate: func(s *Stack) {
			set(s, "gpua100", "Standard_NC4as_T4_v3", "vmSize")
			set(s, "gpua100", "MIG1g", "gpuInstanceProfile")
		},
		want: []string{"AgentPool gpua100 sets MIG (MIG1g) on Standard_NC4as_T4_v3", "not MIG-capable", "A100 or H100"}},
	{id: "AKSML-GPU-008", name: "NV-series pool",
		mutate: func(s *Stack) { set(s, "gpua100", "Standard_NV12s_v3", "vmSize") },
		want:   []string{"AgentPool gpua100 uses Standard_NV12s_v3", "visualisation only", "NC or ND size"}},
	{id: "AKSML-GPU-009", name: "GPU System pool",
		mutate: func(s *Stack) { set(s, "gpua100", "System", "mode") },
		want:   []string{"AgentPool gpua100 is a System pool", "mode User"}},
	{id: "AKSML-GPU-010", name: "no labels",
		mutate: func(s *Stack) { set(s, "gpua100", obj{}, "nodeLabels") },
		want:   []string{"AgentPool gpua100 lacks the node label(s) accelerator=nvidia, workload=", "add them to nodeLabels"}},
	{id: "AKSML-GPU-011", name: "prod pool without zones", env: EnvProd,
		mutate: func(s *Stack) { set(s, "gpua100", nil, "availabilityZones") },
		want:   []string{"AgentPool gpua100 has no availability zones", `production stack "prod"`, "set availabilityZones"}},
	{id: "AKSML-GPU-012", name: "prod inference pool scaling to zero", env: EnvProd,
		mutate: func(s *Stack) { set(s, "gpua100", "inference", "nodeLabels", "workload") },
		want:   []string{"AgentPool gpua100 serves inference", `production stack "prod"`, "minCount 0", "set minCount 1 or more"}},
	{id: "AKSML-GPU-012", name: "prod inference pool without minCount", env: EnvProd,
		mutate: func(s *Stack) {
			set(s, "gpua100", "inference", "nodeLabels", "workload")
			set(s, "gpua100", nil, "minCount")
		},
		want: []string{"AgentPool gpua100 serves inference", "set minCount 1 or more"}},
	{id: "AKSML-GPU-012", name: "prod managed inference pool at count 0", env: EnvProd,
		mutate: func(s *Stack) {
			set(s, "gpuh100", "inference", at(armPool, "nodeLabels", "workload")...)
			set(s, "gpuh100", obj{"value": 0.0}, "parameters", "count")
		},
		want: []string{"pool gpuh100", "AKS-managed inference pool with count 0", "set count 1 or more"}},

	{id: "AKSML-DEV-001", name: "device plugin unrestricted next to a Managed pool",
		mutate: func(s *Stack) {
			set(s, "kube-system-nvidia-device-plugin", nil, "spec", "template", "spec", "affinity")
		},
		want: []string{"DaemonSet kube-system/nvidia-device-plugin can run on pool gpuh100", "managementMode Managed", "kubernetes.azure.com/agentpool"}},
	{id: "AKSML-DEV-001", name: "device plugin pinned to the Managed pool",
		mutate: func(s *Stack) {
			set(s, "kube-system-nvidia-device-plugin", nil, "spec", "template", "spec", "affinity")
			set(s, "kube-system-nvidia-device-plugin", obj{"kubernetes.azure.com/agentpool": "gpuh100"}, "spec", "template", "spec", "nodeSelector")
		},
		want: []string{"DaemonSet kube-system/nvidia-device-plugin can run on pool gpuh100"}},
	{id: "AKSML-DEV-002", name: "second device plugin from another installer",
		mutate: func(s *Stack) {
			add(s, daemonSet("gpu-operator-device-plugin", "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"))
		},
		want: []string{"DaemonSet kube-system/gpu-operator-device-plugin and DaemonSet kube-system/nvidia-device-plugin", "pool(s) gpua100, gpuspot", "one device plugin per node"}},
	{id: "AKSML-DEV-002", name: "two device plugins and no pools in the stack",
		mutate: func(s *Stack) {
			s.Resources = s.Resources[3:]
			add(s, daemonSet("gpu-operator-device-plugin", "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"))
		},
		want: []string{"gpu-operator-device-plugin", "the same GPU nodes"}},
	{id: "AKSML-DEV-003", name: "DCGM exporter on the Managed pool",
		mutate: func(s *Stack) { set(s, "kube-system-dcgm-exporter", nil, "spec", "template", "spec", "affinity") },
		want:   []string{"DaemonSet kube-system/dcgm-exporter can run on pool gpuh100", "port 19400"}},

	{id: "AKSML-POD-001", name: "GPU Job without toleration",
		mutate: func(s *Stack) { set(s, "team-a-train", nil, at(podSpec, "tolerations")...) },
		want:   []string{"Job team-a/train requests nvidia.com/gpu", "{key: sku, operator: Equal, value: gpu, effect: NoSchedule}"}},
	{id: "AKSML-POD-001", name: "toleration for the wrong effect",
		mutate: func(s *Stack) {
			set(s, "team-a-serve", arr{obj{"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoExecute"}}, "spec", "template", "spec", "tolerations")
		},
		want: []string{"Deployment team-a/serve requests nvidia.com/gpu"}},
	{id: "AKSML-POD-002", name: "GPU Deployment without node selector",
		mutate: func(s *Stack) { set(s, "team-a-serve", nil, "spec", "template", "spec", "nodeSelector") },
		want:   []string{"Deployment team-a/serve requests nvidia.com/gpu without a node selector", "nodeSelector accelerator: nvidia"}},
	{id: "AKSML-POD-003", name: "GPU limits above requests",
		mutate: func(s *Stack) { set(s, "team-a-train", 2.0, at(trainer, "resources", "limits", "nvidia.com/gpu")...) },
		want:   []string{"Job team-a/train", `container "trainer" requests 1 nvidia.com/gpu but limits it to 2`, "set requests equal to limits"}},
	{id: "AKSML-POD-003", name: "GPU only in limits (PyTorchJob worker)",
		mutate: func(s *Stack) {
			set(s, "team-a-ddp", nil, "spec", "pytorchReplicaSpecs", "Worker", "template", "spec", "containers", 0, "resources", "requests", "nvidia.com/gpu")
		},
		want: []string{"PyTorchJob team-a/ddp (Worker)", "sets nvidia.com/gpu only in limits", "same value"}},
	{id: "AKSML-POD-004", name: "cpu limit above request",
		mutate: func(s *Stack) { set(s, "team-a-train", "8", at(trainer, "resources", "limits", "cpu")...) },
		want:   []string{"Job team-a/train", `container "trainer" does not set cpu requests equal to limits`, "Guaranteed QoS"}},
	{id: "AKSML-POD-005", name: "inference tolerating spot",
		mutate: func(s *Stack) {
			set(s, "team-a-serve", arr{
				obj{"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
				obj{"key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal", "value": "spot", "effect": "NoSchedule"},
			}, "spec", "template", "spec", "tolerations")
		},
		want: []string{"Deployment team-a/serve has priorityClassName inference-critical", "remove the spot toleration"}},
	{id: "AKSML-POD-005", name: "inference selecting spot nodes",
		mutate: func(s *Stack) {
			set(s, "team-a-serve", "gpu-spot", "spec", "template", "spec", "nodeSelector", "workload")
		},
		want: []string{"Deployment team-a/serve", "spot"}},
	{id: "AKSML-POD-006", name: "training image by tag in prod", env: EnvProd,
		mutate: func(s *Stack) {
			set(s, "team-a-train", "pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime", at(trainer, "image")...)
		},
		want: []string{"Job team-a/train", `"pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime", which is not pinned by digest`, "@sha256:"}},
	{id: "AKSML-POD-006", name: "CPU CronJob image by tag in prod", env: EnvProd,
		mutate: func(s *Stack) {
			set(s, "team-a-score", "myacr.azurecr.io/scorer:3.1.0", "spec", "jobTemplate", "spec", "template", "spec", "containers", 0, "image")
		},
		want: []string{"CronJob team-a/score", "not pinned by digest"}},
	{id: "AKSML-SEC-003", name: "prod training image from a public registry", env: EnvProd,
		mutate: func(s *Stack) {
			set(s, "team-a-train", "pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime"+digest, at(trainer, "image")...)
		},
		want: []string{"Job team-a/train", "not in the stack's registry myacr.azurecr.io"}},
	{id: "AKSML-SEC-003", name: "prod stack without a registry", env: EnvProd,
		mutate: func(s *Stack) { delete(s.Outputs, "registryLoginServer") },
		want:   []string{"declares no container registry", "aksml:cluster.registry"}},
	{id: "AKSML-SEC-003", name: "registry name only as a prefix", env: EnvProd,
		mutate: func(s *Stack) {
			set(s, "team-a-score", "myacr.azurecr.io.evil.example/scorer:3.1.0"+digest, "spec", "jobTemplate", "spec", "template", "spec", "containers", 0, "image")
		},
		want: []string{"CronJob team-a/score", "not in the stack's registry"}},
	{id: "AKSML-POD-007", name: "latest tag",
		mutate: func(s *Stack) {
			set(s, "team-a-serve", "myacr.azurecr.io/inference-server:latest", "spec", "template", "spec", "containers", 0, "image")
		},
		want: []string{"Deployment team-a/serve", `"myacr.azurecr.io/inference-server:latest" without a version tag`, "explicit tag"}},
	{id: "AKSML-POD-007", name: "no tag behind a registry port",
		mutate: func(s *Stack) {
			set(s, "team-a-serve", "registry:5000/inference-server", "spec", "template", "spec", "containers", 0, "image")
		},
		want: []string{"registry:5000/inference-server"}},
	{id: "AKSML-POD-008", name: "PyTorchJob worker without /dev/shm",
		mutate: func(s *Stack) {
			set(s, "team-a-ddp", arr{obj{"name": "checkpoints", "mountPath": "/checkpoints"}}, "spec", "pytorchReplicaSpecs", "Worker", "template", "spec", "containers", 0, "volumeMounts")
		},
		want: []string{"PyTorchJob team-a/ddp (Worker) runs 2 workers", "mounts nothing at /dev/shm", "medium: Memory"}},
	{id: "AKSML-POD-008", name: "parallel GPU Job without /dev/shm",
		mutate: func(s *Stack) {
			set(s, "team-a-train", 4.0, "spec", "parallelism")
			set(s, "team-a-train", arr{obj{"name": "checkpoints", "mountPath": "/checkpoints"}}, at(trainer, "volumeMounts")...)
		},
		want: []string{"Job team-a/train runs 4 workers", "/dev/shm"}},
	{id: "AKSML-POD-009", name: "/dev/shm larger than the memory limit",
		mutate: func(s *Stack) { set(s, "team-a-train", "32Gi", at(podSpec, "volumes", 1, "emptyDir", "sizeLimit")...) },
		want:   []string{"Job team-a/train", `mounts /dev/shm from volume "shm", which may hold 32Gi, more than the container's memory limit 16Gi`, "lower sizeLimit"}},
	{id: "AKSML-POD-009", name: "/dev/shm without sizeLimit",
		mutate: func(s *Stack) {
			set(s, "team-a-train", obj{"medium": "Memory"}, at(podSpec, "volumes", 1, "emptyDir")...)
		},
		want: []string{"Job team-a/train", "has no sizeLimit"}},
	{id: "AKSML-POD-009", name: "/dev/shm on disk",
		mutate: func(s *Stack) { set(s, "team-a-train", obj{}, at(podSpec, "volumes", 1, "emptyDir")...) },
		want:   []string{"Job team-a/train", "is not an emptyDir with medium Memory"}},
	{id: "AKSML-POD-010", name: "checkpoints on emptyDir",
		mutate: func(s *Stack) {
			set(s, "team-a-train", obj{"name": "checkpoints", "emptyDir": obj{}}, at(podSpec, "volumes", 0)...)
		},
		want: []string{"Job team-a/train", `writes checkpoints to /checkpoints on emptyDir volume "checkpoints"`, "PersistentVolumeClaim"}},
	{id: "AKSML-POD-011", name: "safe-to-evict false on a training Job",
		mutate: func(s *Stack) {
			set(s, "team-a-train", obj{"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"}, "spec", "template", "metadata", "annotations")
		},
		want: []string{"Job team-a/train annotates its pods cluster-autoscaler.kubernetes.io/safe-to-evict", "remove it"}},
	{id: "AKSML-POD-012", name: "GPU Job without priority class",
		mutate: func(s *Stack) { set(s, "team-a-train", nil, at(podSpec, "priorityClassName")...) },
		want:   []string{"Job team-a/train requests GPUs without a priorityClassName", "training-batch"}},

	{id: "AKSML-JOB-001", name: "no backoffLimit",
		mutate: func(s *Stack) { set(s, "team-a-train", nil, at(jobSpec, "backoffLimit")...) },
		want:   []string{"Job team-a/train is a training Job without backoffLimit", "spec.backoffLimit"}},
	{id: "AKSML-JOB-002", name: "no activeDeadlineSeconds",
		mutate: func(s *Stack) { set(s, "team-a-train", nil, at(jobSpec, "activeDeadlineSeconds")...) },
		want:   []string{"Job team-a/train is a training Job without activeDeadlineSeconds", "spec.activeDeadlineSeconds"}},
	{id: "AKSML-JOB-003", name: "no ttlSecondsAfterFinished",
		mutate: func(s *Stack) { set(s, "team-a-train", nil, at(jobSpec, "ttlSecondsAfterFinished")...) },
		want:   []string{"Job team-a/train is a training Job without ttlSecondsAfterFinished", "set ttlSecondsAfterFinished"}},
	{id: "AKSML-JOB-004", name: "no terminationGracePeriodSeconds",
		mutate: func(s *Stack) { set(s, "team-a-train", nil, at(podSpec, "terminationGracePeriodSeconds")...) },
		want:   []string{"Job team-a/train is a training Job without terminationGracePeriodSeconds", "save a checkpoint"}},
	{id: "AKSML-JOB-004", name: "checkpointed CPU Job without grace period",
		mutate: func(s *Stack) {
			job := trainingJob("team-a", "cpu-batch")
			spec := job.Inputs["spec"].(obj)["template"].(obj)["spec"].(obj)
			delete(spec, "terminationGracePeriodSeconds")
			spec["containers"] = arr{obj{"name": "worker", "image": "ubuntu:24.04" + digest,
				"volumeMounts": arr{obj{"name": "checkpoints", "mountPath": "/checkpoints"}}}}
			add(s, job)
		},
		want: []string{"Job team-a/cpu-batch is a training Job without terminationGracePeriodSeconds"}},
	{id: "AKSML-JOB-005", name: "no podFailurePolicy, restartPolicy OnFailure",
		mutate: func(s *Stack) {
			set(s, "team-a-train", nil, at(jobSpec, "podFailurePolicy")...)
			set(s, "team-a-train", "OnFailure", at(podSpec, "restartPolicy")...)
		},
		want: []string{"Job team-a/train has"}},
	{id: "AKSML-JOB-006", name: "queued Job without skipAwait",
		mutate: func(s *Stack) { set(s, "team-a-train", nil, "metadata", "annotations") },
		want:   []string{"Job team-a/train would make `pulumi up` wait", `pulumi.com/skipAwait: "true"`}},
	{id: "AKSML-JOB-007", name: "GPU Job in a team namespace without queue label",
		mutate: func(s *Stack) { set(s, "team-a-train", obj{}, "metadata", "labels") },
		want:   []string{"Job team-a/train requests GPUs in team namespace team-a without the label kueue.x-k8s.io/queue-name", "gpu-queue"}},
	{id: "AKSML-JOB-007", name: "PyTorchJob in a team namespace without queue label",
		mutate: func(s *Stack) { set(s, "team-a-ddp", nil, "metadata", "labels") },
		want:   []string{"PyTorchJob team-a/ddp requests GPUs in team namespace team-a"}},
	{id: "AKSML-JOB-008", name: "queued Job not suspended",
		mutate: func(s *Stack) { set(s, "team-a-train", nil, at(jobSpec, "suspend")...) },
		want:   []string{`Job team-a/train names Kueue queue "gpu-queue" but is not created with suspend: true`, "spec.suspend true"}},
	{id: "AKSML-JOB-009", name: "PyTorchJob without runPolicy bounds",
		mutate: func(s *Stack) { set(s, "team-a-ddp", obj{"cleanPodPolicy": "None"}, "spec", "runPolicy") },
		want:   []string{"PyTorchJob team-a/ddp has no spec.runPolicy.backoffLimit, spec.runPolicy.activeDeadlineSeconds, spec.runPolicy.ttlSecondsAfterFinished"}},
	{id: "AKSML-JOB-010", name: "PDB on a training Job",
		mutate: func(s *Stack) {
			add(s, kube("policy/v1", "PodDisruptionBudget", "team-a", "train", nil, obj{
				"minAvailable": 1.0, "selector": obj{"matchLabels": obj{"app": "train"}},
			}))
		},
		want: []string{"PodDisruptionBudget team-a/train selects the pods of Job team-a/train", "delete it"}},
	{id: "AKSML-JOB-010", name: "PDB by job-name label on PyTorchJob pods",
		mutate: func(s *Stack) {
			add(s, kube("policy/v1", "PodDisruptionBudget", "team-a", "ddp", nil, obj{
				"maxUnavailable": 0.0, "selector": obj{"matchExpressions": arr{obj{
					"key": "training.kubeflow.org/job-name", "operator": "In", "values": arr{"ddp"},
				}}},
			}))
		},
		want: []string{"PodDisruptionBudget team-a/ddp selects the pods of PyTorchJob team-a/ddp (Master)"}},

	{id: "AKSML-NET-001", name: "PyTorchJob without NetworkPolicy",
		mutate: func(s *Stack) {
			s.Resources = without(without(s.Resources, "team-a-allow-ddp-nccl"), "team-a-aksml-default-deny")
		},
		want: []string{"PyTorchJob team-a/ddp runs 2 workers but no NetworkPolicy in namespace team-a selects its pods", "all ports", "port 53"}},
	{id: "AKSML-NET-001", name: "NetworkPolicy with fixed ports and no DNS",
		mutate: func(s *Stack) {
			sel := obj{"matchLabels": obj{"training-job": "ddp"}}
			set(s, "team-a-allow-ddp-nccl", arr{obj{"from": arr{obj{"podSelector": sel}}, "ports": arr{obj{"port": 29500.0}}}}, "spec", "ingress")
			set(s, "team-a-allow-ddp-nccl", arr{obj{"to": arr{obj{"podSelector": sel}}}}, "spec", "egress")
		},
		want: []string{"PyTorchJob team-a/ddp", "no ingress rule allows all ports from the job's own pods, no egress rule allows DNS (port 53)"}},
	{id: "AKSML-NET-002", name: "PyTorchJob without NCCL env",
		mutate: func(s *Stack) {
			set(s, "team-a-ddp", nil, "spec", "pytorchReplicaSpecs", "Master", "template", "spec", "containers", 0, "env")
		},
		want: []string{"PyTorchJob team-a/ddp (Master)", "does not set NCCL_SOCKET_IFNAME, NCCL_IB_DISABLE, TORCH_NCCL_ASYNC_ERROR_HANDLING"}},

	{id: "AKSML-STO-001", name: "checkpoint class with Delete",
		mutate: func(s *Stack) { set(s, "ml-checkpoints-azurefile", nil, "reclaimPolicy") },
		want:   []string{"StorageClass ml-checkpoints-azurefile holds checkpoints but has reclaimPolicy Delete", "reclaimPolicy: Retain"}},
	{id: "AKSML-STO-001", name: "checkpoint claim on an AKS built-in class",
		mutate: func(s *Stack) { set(s, "team-a-model-checkpoints", "azurefile-csi", "spec", "storageClassName") },
		want:   []string{"PersistentVolumeClaim team-a/model-checkpoints holds checkpoints but uses the AKS built-in StorageClass azurefile-csi", "ml-checkpoints-azurefile"}},
	{id: "AKSML-STO-001", name: "checkpoint claim on the default class",
		mutate: func(s *Stack) { set(s, "team-a-model-checkpoints", nil, "spec", "storageClassName") },
		want:   []string{"PersistentVolumeClaim team-a/model-checkpoints", "default StorageClass"}},
	{id: "AKSML-STO-001", name: "checkpoint claim on a stack class with Delete",
		mutate: func(s *Stack) {
			add(s, storageClass("ml-azurefile-premium", "Delete"))
			set(s, "team-a-model-checkpoints", "ml-azurefile-premium", "spec", "storageClassName")
		},
		want: []string{"PersistentVolumeClaim team-a/model-checkpoints", "uses StorageClass ml-azurefile-premium with reclaimPolicy Delete"}},

	{id: "AKSML-QUE-001", name: "quota beyond capacity",
		mutate: func(s *Stack) {
			set(s, "team-a-gpu", "8", "spec", "resourceGroups", 0, "flavors", 0, "resources", 2, "nominalQuota")
		},
		want: []string{"ClusterQueues hand out 8 nvidia.com/gpu on ResourceFlavor gpu-a100 (team-a-gpu: 8)", "gpua100 4 × 1 GPU", "hold 4 at maxCount", "aksml.io/gpu-overcommit-ratio"}},
	{id: "AKSML-QUE-001", name: "two queues beyond capacity with a too small overcommit",
		mutate: func(s *Stack) {
			cq := kube("kueue.x-k8s.io/v1beta1", "ClusterQueue", "", "team-b-gpu", nil, obj{
				"resourceGroups": arr{obj{"flavors": arr{obj{"name": "gpu-a100", "resources": arr{
					obj{"name": "nvidia.com/gpu", "nominalQuota": 6.0},
				}}}}},
			})
			add(s, cq)
			set(s, "gpu-a100", obj{"aksml.io/gpu-overcommit-ratio": "2"}, "metadata", "annotations")
		},
		want: []string{"hand out 10 nvidia.com/gpu", "team-a-gpu: 4, team-b-gpu: 6", "8 with the declared overcommit ratio 2"}},
	{id: "AKSML-QUE-001", name: "MIG instances beyond a MIG pool",
		mutate: func(s *Stack) {
			set(s, "gpua100", "MIG1g", "gpuInstanceProfile")
			set(s, "team-a-gpu", "nvidia.com/mig-1g.10gb", "spec", "resourceGroups", 0, "flavors", 0, "resources", 2, "name")
			set(s, "team-a-gpu", "29", "spec", "resourceGroups", 0, "flavors", 0, "resources", 2, "nominalQuota")
		},
		want: []string{"hand out 29 nvidia.com/mig-1g.10gb", "gpua100 4 × 1 GPU × 7 MIG1g instances", "hold 28 at maxCount"}},
	{id: "AKSML-QUE-002", name: "flavor selecting no pool",
		mutate: func(s *Stack) {
			set(s, "gpu-a100", obj{"kubernetes.azure.com/agentpool": "gpuv100"}, "spec", "nodeLabels")
		},
		want: []string{"ResourceFlavor gpu-a100 carries 4 nvidia.com/gpu of quota", "match no GPU pool", "kubernetes.azure.com/agentpool"}},
	{id: "AKSML-QUE-003", name: "Kueue and Volcano",
		mutate: func(s *Stack) {
			add(s, kube("scheduling.volcano.sh/v1beta1", "Queue", "", "research", nil, obj{"weight": 1.0}))
		},
		want: []string{"both Kueue (ResourceFlavor gpu-a100) and Volcano (Queue research)", "pick one"}},

	{id: "AKSML-QUE-004", name: "job names a WorkloadPriorityClass the stack does not define",
		mutate: func(s *Stack) {
			add(s, kube("kueue.x-k8s.io/v1beta2", "WorkloadPriorityClass", "", "inference-critical", nil, nil))
			set(s, "team-a-train", obj{"kueue.x-k8s.io/queue-name": "gpu-queue", "kueue.x-k8s.io/priority-class": "urgent"}, "metadata", "labels")
		},
		want: []string{`names WorkloadPriorityClass "urgent"`, "defines inference-critical", "name a defined level"}},
	{id: "AKSML-QUE-004", name: "pods name a PriorityClass the stack does not define",
		mutate: func(s *Stack) {
			add(s, kube("scheduling.k8s.io/v1", "PriorityClass", "", "inference-critical", nil, nil))
		},
		want: []string{`sets priorityClassName "training-batch"`, "defines inference-critical", "name a defined PriorityClass"}},
	{id: "AKSML-TEN-001", name: "team namespace without any policy",
		mutate: func(s *Stack) { s.Resources = without(s.Resources, "team-a-aksml-default-deny") },
		want:   []string{"Namespace team-a holds team \"team-a\"", "denies ingress", "aksml-default-deny"}},
	{id: "AKSML-TEN-001", name: "deny policy that allows some ingress",
		mutate: func(s *Stack) {
			set(s, "team-a-aksml-default-deny", arr{obj{"from": arr{obj{"podSelector": obj{}}}}}, "spec", "ingress")
		},
		want: []string{"Namespace team-a"}},
	{id: "AKSML-TEN-001", name: "deny policy selecting only some pods",
		mutate: func(s *Stack) {
			set(s, "team-a-aksml-default-deny", obj{"matchLabels": obj{"app": "x"}}, "spec", "podSelector")
		},
		want: []string{"Namespace team-a"}},
	{id: "AKSML-TEN-001", name: "egress-only deny",
		mutate: func(s *Stack) { set(s, "team-a-aksml-default-deny", arr{"Egress"}, "spec", "policyTypes") },
		want:   []string{"Namespace team-a"}},
	{id: "AKSML-TEN-002", name: "groups configured, no binding",
		mutate: func(s *Stack) { s.Resources = without(s.Resources, "team-a-aksml-team-members") },
		want:   []string{"Role team-a/aksml-team-member", groupA, "RoleBinding"}},
	{id: "AKSML-TEN-002", name: "binding misses a group",
		mutate: func(s *Stack) {
			s.Resources = without(s.Resources, "team-a-aksml-team-member")
			add(s, memberRole("team-a", groupA, groupB))
		},
		want: []string{"binds it to " + groupB}},
	{id: "AKSML-TEN-002", name: "binding to another role",
		mutate: func(s *Stack) { set(s, "team-a-aksml-team-members", "view", "roleRef", "name") },
		want:   []string{"Role team-a/aksml-team-member"}},

	{id: "AKSML-TEN-004", name: "team namespace without an admission binding",
		mutate: func(s *Stack) { s.Resources = without(s.Resources, "aksml-tenancy-team-a-binding") },
		want:   []string{"Namespace team-a holds team \"team-a\"", "ValidatingAdmissionPolicyBinding", "aksml-tenancy-team-a"}},
	{id: "AKSML-TEN-004", name: "binding only warns",
		mutate: func(s *Stack) { set(s, "aksml-tenancy-team-a-binding", arr{"Warn"}, "spec", "validationActions") },
		want:   []string{"Namespace team-a"}},
	{id: "AKSML-TEN-004", name: "binding selects another team",
		mutate: func(s *Stack) {
			set(s, "aksml-tenancy-team-a-binding", obj{"aksml.io/team": "team-b"}, "spec", "matchResources", "namespaceSelector", "matchLabels")
		},
		want: []string{"Namespace team-a"}},
	{id: "AKSML-TEN-004", name: "binding of a policy the stack does not define",
		mutate: func(s *Stack) { s.Resources = without(s.Resources, "aksml-tenancy-team-a") },
		want:   []string{"Namespace team-a"}},
	{id: "AKSML-TEN-005", name: "no team quota",
		mutate: func(s *Stack) { s.Resources = without(s.Resources, "team-a-team-quota") },
		want:   []string{"Namespace team-a holds team \"team-a\"", "bounds requests.cpu, requests.memory, pods", "team-quota"}},
	{id: "AKSML-TEN-005", name: "quota without pods",
		mutate: func(s *Stack) { set(s, "team-a-team-quota", nil, "spec", "hard", "pods") },
		want:   []string{"bounds pods"}},
	{id: "AKSML-TEN-005", name: "only a priority-scoped quota",
		mutate: func(s *Stack) {
			set(s, "team-a-team-quota", obj{"matchExpressions": arr{obj{"scopeName": "PriorityClass", "operator": "Exists"}}}, "spec", "scopeSelector")
		},
		want: []string{"Namespace team-a"}},

	{id: "AKSML-SEC-001", name: "plain kubeconfig output",
		mutate: func(s *Stack) { s.Outputs["kubeconfig"] = Output{Value: "apiVersion: v1\n"} },
		want:   []string{`stack output "kubeconfig" is not secret`, "pulumi.ToSecret"}},
	{id: "AKSML-SEC-002", name: "provider with plain kubeconfig",
		mutate: func(s *Stack) { find(s, "k8s").SecretInputs = nil },
		want:   []string{"Kubernetes provider k8s takes its kubeconfig in plain text", "pulumi.ToSecret"}},
}

// compliant lists, for every rule, stacks the rule must let pass beyond
// goodStack itself: the edge a sloppy rule would get wrong.
var compliant = []ruleCase{
	{id: "AKSML-TEN-004", name: "binding selecting by more than the team label", mutate: func(s *Stack) {
		set(s, "team-a", obj{"aksml.io/team": "team-a", "env": "x"}, "metadata", "labels")
		set(s, "aksml-tenancy-team-a-binding", obj{"aksml.io/team": "team-a", "env": "x"}, "spec", "matchResources", "namespaceSelector", "matchLabels")
	}},
	{id: "AKSML-TEN-005", name: "cpu and memory written without requests.", mutate: func(s *Stack) {
		set(s, "team-a-team-quota", obj{"cpu": "32", "memory": "128Gi", "pods": "50"}, "spec", "hard")
	}},
	{id: "AKSML-TEN-001", name: "ingress-only deny (egress opt-out)", mutate: func(s *Stack) {
		set(s, "team-a-aksml-default-deny", arr{"Ingress"}, "spec", "policyTypes")
	}},
	{id: "AKSML-TEN-001", name: "namespace that holds no team", mutate: func(s *Stack) {
		add(s, kube("v1", "Namespace", "", "tools", nil, nil))
	}},
	{id: "AKSML-TEN-002", name: "team without groups needs no binding", mutate: func(s *Stack) {
		s.Resources = without(without(s.Resources, "team-a-aksml-team-members"), "team-a-aksml-team-member")
		add(s, memberRole("team-a"))
	}},
	{id: "AKSML-TEN-002", name: "group IDs compared case-insensitively", mutate: func(s *Stack) {
		s.Resources = without(s.Resources, "team-a-aksml-team-members")
		add(s, memberBinding("team-a", strings.ToUpper(groupA)))
	}},
	{id: "AKSML-GPU-001", name: "taint with spaces", mutate: func(s *Stack) { set(s, "gpua100", arr{"sku=gpu:NoSchedule "}, "nodeTaints") }},
	{id: "AKSML-GPU-001", name: "taints unknown before deployment", mutate: func(s *Stack) { set(s, "gpua100", Unknown, "nodeTaints") }},
	{id: "AKSML-GPU-001", name: "CPU pool without taint", mutate: func(s *Stack) {
		set(s, "gpua100", "Standard_D8s_v5", "vmSize")
		set(s, "gpua100", arr{}, "nodeTaints")
	}},
	{id: "AKSML-GPU-002", name: "minCount 1 in prod", env: EnvProd, mutate: func(s *Stack) { set(s, "gpua100", 1.0, "minCount") }},
	{id: "AKSML-GPU-003", name: "autoscaler settings unknown before deployment", mutate: func(s *Stack) {
		set(s, "gpua100", Unknown, "enableAutoScaling")
		set(s, "gpua100", Unknown, "maxCount")
	}},
	{id: "AKSML-GPU-002", name: "managed pool count 2 in prod", env: EnvProd, mutate: func(s *Stack) { set(s, "gpuh100", obj{"value": 2.0}, "parameters", "count") }},
	{id: "AKSML-GPU-003", name: "managed pool without autoscaler (AKSML-ARM-003 covers it)", mutate: func(s *Stack) { set(s, "gpuh100", nil, at(armPool, "count")...) }},
	{id: "AKSML-ARM-001", name: "one template pool needs no dependsOn", mutate: func(s *Stack) {
		r := find(s, "gpuh100")
		r.Inputs["template"].(obj)["resources"] = r.Inputs["template"].(obj)["resources"].(arr)[:1]
	}},
	{id: "AKSML-ARM-001", name: "typed pools are not template pools", mutate: func(s *Stack) { set(s, "gpua100", arr{}, "dependsOn") }},
	{id: "AKSML-ARM-002", name: "typed autoscaled pool with count (ignored after creation)", mutate: func(s *Stack) { set(s, "gpua100", 2.0, "count") }},
	{id: "AKSML-ARM-003", name: "managed count unknown before deployment", mutate: func(s *Stack) { set(s, "gpuh100", Unknown, at(armPool, "count")...) }},
	{id: "AKSML-MON-001", name: "managed Prometheus wired as Microsoft's template", mutate: func(s *Stack) { add(s, managedCluster(), monitorStack()) }},
	{id: "AKSML-MON-001", name: "metrics off", mutate: func(s *Stack) {
		c := managedCluster()
		c.Inputs["azureMonitorProfile"] = obj{"metrics": obj{"enabled": false}}
		add(s, c)
	}},
	{id: "AKSML-MON-002", name: "rule group scoped through a parameter", mutate: func(s *Stack) { add(s, monitorStack()) }},
	{id: "AKSML-GPU-004", name: "spot batch-inference pool", mutate: func(s *Stack) { set(s, "gpuspot", "batch-inference", "nodeLabels", "purpose") }},
	{id: "AKSML-GPU-004", name: "Regular inference pool", mutate: func(s *Stack) { set(s, "gpua100", "inference", "nodeLabels", "workload") }},
	{id: "AKSML-GPU-005", name: "Regular pool with minCount 1 in prod", env: EnvProd, mutate: func(s *Stack) { set(s, "gpua100", 1.0, "minCount") }},
	{id: "AKSML-GPU-006", name: "spot pool with defaults", mutate: func(s *Stack) {
		set(s, "gpuspot", nil, "scaleSetEvictionPolicy")
		set(s, "gpuspot", nil, "spotMaxPrice")
	}},
	{id: "AKSML-GPU-007", name: "MIG on A100", mutate: func(s *Stack) { set(s, "gpua100", "MIG1g", "gpuInstanceProfile") }},
	{id: "AKSML-GPU-007", name: "migStrategy None on T4", mutate: func(s *Stack) {
		set(s, "gpua100", "Standard_NC4as_T4_v3", "vmSize")
		set(s, "gpua100", obj{"nvidia": obj{"migStrategy": "None"}}, "gpuProfile")
	}},
	{id: "AKSML-GPU-008", name: "T4 pool", mutate: func(s *Stack) { set(s, "gpua100", "Standard_NC4as_T4_v3", "vmSize") }},
	{id: "AKSML-GPU-009", name: "mode unset (AKS default User)", mutate: func(s *Stack) { set(s, "gpua100", nil, "mode") }},
	{id: "AKSML-GPU-010", name: "extra labels", mutate: func(s *Stack) { set(s, "gpua100", "x", "nodeLabels", "team") }},
	{id: "AKSML-GPU-011", name: "dev pool without zones", mutate: func(s *Stack) { set(s, "gpua100", nil, "availabilityZones") }},
	{id: "AKSML-GPU-012", name: "prod inference pool with one warm node", env: EnvProd, mutate: func(s *Stack) {
		set(s, "gpua100", "inference", "nodeLabels", "workload")
		set(s, "gpua100", 1.0, "minCount")
	}},
	{id: "AKSML-GPU-012", name: "dev inference pool scaling to zero", mutate: func(s *Stack) { set(s, "gpua100", "inference", "nodeLabels", "workload") }},
	{id: "AKSML-GPU-012", name: "prod training pool scaling to zero", env: EnvProd, mutate: func(s *Stack) { set(s, "gpua100", 0.0, "minCount") }},
	{id: "AKSML-GPU-012", name: "prod inference minCount unknown before deployment", env: EnvProd, mutate: func(s *Stack) {
		set(s, "gpua100", "inference", "nodeLabels", "workload")
		set(s, "gpua100", Unknown, "minCount")
	}},
	{id: "AKSML-GPU-012", name: "prod managed inference pool at count 1", env: EnvProd, mutate: func(s *Stack) {
		set(s, "gpuh100", "inference", at(armPool, "nodeLabels", "workload")...)
		set(s, "gpuh100", obj{"value": 1.0}, "parameters", "count")
	}},

	{id: "AKSML-DEV-001", name: "device plugin pinned to DriverOnly pools by In", mutate: func(s *Stack) {
		set(s, "kube-system-nvidia-device-plugin", obj{"nodeAffinity": obj{"requiredDuringSchedulingIgnoredDuringExecution": obj{
			"nodeSelectorTerms": arr{obj{"matchExpressions": arr{obj{"key": "kubernetes.azure.com/agentpool", "operator": "In", "values": arr{"gpua100", "gpuspot"}}}}},
		}}}, "spec", "template", "spec", "affinity")
	}},
	{id: "AKSML-DEV-001", name: "no Managed pool, unrestricted plugin", mutate: func(s *Stack) {
		s.Resources = without(s.Resources, "gpuh100")
		set(s, "kube-system-nvidia-device-plugin", nil, "spec", "template", "spec", "affinity")
	}},
	{id: "AKSML-DEV-002", name: "two plugins on disjoint pools", mutate: func(s *Stack) {
		ds := daemonSet("spot-device-plugin", "nvcr.io/nvidia/k8s-device-plugin:v0.17.1")
		ds.Inputs["spec"].(obj)["template"].(obj)["spec"].(obj)["nodeSelector"] = obj{"kubernetes.azure.com/agentpool": "gpuspot"}
		add(s, ds)
		set(s, "kube-system-nvidia-device-plugin", obj{"kubernetes.azure.com/agentpool": "gpua100"}, "spec", "template", "spec", "nodeSelector")
	}},
	{id: "AKSML-DEV-003", name: "DCGM exporter kept off the Managed pool", mutate: func(s *Stack) {}},

	{id: "AKSML-POD-001", name: "tolerate-all toleration", mutate: func(s *Stack) {
		set(s, "team-a-train", arr{obj{"operator": "Exists"}}, at(podSpec, "tolerations")...)
	}},
	{id: "AKSML-POD-001", name: "CPU pod without toleration", mutate: func(s *Stack) {
		set(s, "team-a-score", nil, "spec", "jobTemplate", "spec", "template", "spec", "tolerations")
	}},
	{id: "AKSML-POD-002", name: "Kueue-queued Job without node selector", mutate: func(s *Stack) {
		set(s, "team-a-train", nil, at(podSpec, "nodeSelector")...)
	}},
	{id: "AKSML-POD-002", name: "required node affinity on the agent pool", mutate: func(s *Stack) {
		set(s, "team-a-serve", nil, "spec", "template", "spec", "nodeSelector")
		set(s, "team-a-serve", offManagedPools(), "spec", "template", "spec", "affinity")
	}},
	{id: "AKSML-POD-003", name: "string and number quantities", mutate: func(s *Stack) {
		set(s, "team-a-train", "1", at(trainer, "resources", "limits", "nvidia.com/gpu")...)
	}},
	{id: "AKSML-POD-004", name: "equal quantities written differently", mutate: func(s *Stack) {
		set(s, "team-a-train", "4000m", at(trainer, "resources", "limits", "cpu")...)
		set(s, "team-a-train", "16384Mi", at(trainer, "resources", "limits", "memory")...)
	}},
	{id: "AKSML-POD-005", name: "training tolerating spot", mutate: func(s *Stack) {
		set(s, "team-a-train", arr{
			obj{"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
			obj{"key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal", "value": "spot", "effect": "NoSchedule"},
		}, at(podSpec, "tolerations")...)
	}},
	{id: "AKSML-POD-006", name: "tags in dev", mutate: func(s *Stack) {
		set(s, "team-a-train", "pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime", at(trainer, "image")...)
	}},
	{id: "AKSML-POD-006", name: "platform DaemonSet by tag in prod", env: EnvProd, mutate: func(s *Stack) {}},
	{id: "AKSML-SEC-003", name: "public images in dev", mutate: func(s *Stack) {
		delete(s.Outputs, "registryLoginServer")
		set(s, "team-a-train", "pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime"+digest, at(trainer, "image")...)
	}},
	{id: "AKSML-SEC-003", name: "prod images in the registry, login server in any case", env: EnvProd, mutate: func(s *Stack) {
		s.Outputs["registryLoginServer"] = Output{Value: "MyACR.azurecr.io"}
	}},
	{id: "AKSML-POD-007", name: "registry port and tag", mutate: func(s *Stack) {
		set(s, "team-a-serve", "registry:5000/inference-server:1.0", "spec", "template", "spec", "containers", 0, "image")
	}},
	{id: "AKSML-POD-008", name: "single-pod GPU Job without /dev/shm", mutate: func(s *Stack) {
		set(s, "team-a-train", arr{obj{"name": "checkpoints", "mountPath": "/checkpoints"}}, at(trainer, "volumeMounts")...)
	}},
	{id: "AKSML-POD-009", name: "/dev/shm equal to the memory limit", mutate: func(s *Stack) {
		set(s, "team-a-train", "16Gi", at(podSpec, "volumes", 1, "emptyDir", "sizeLimit")...)
	}},
	{id: "AKSML-POD-010", name: "checkpoints on a claim", mutate: func(s *Stack) {}},
	{id: "AKSML-POD-011", name: "safe-to-evict false on an inference Deployment", mutate: func(s *Stack) {
		set(s, "team-a-serve", obj{"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"}, "spec", "template", "metadata", "annotations")
	}},
	{id: "AKSML-POD-012", name: "CPU CronJob without priority class", mutate: func(s *Stack) {}},

	{id: "AKSML-JOB-001", name: "Indexed Job with backoffLimitPerIndex", mutate: func(s *Stack) {
		set(s, "team-a-train", nil, at(jobSpec, "backoffLimit")...)
		set(s, "team-a-train", 2.0, at(jobSpec, "backoffLimitPerIndex")...)
		set(s, "team-a-train", "Indexed", at(jobSpec, "completionMode")...)
	}},
	{id: "AKSML-JOB-002", name: "CPU CronJob without deadline", mutate: func(s *Stack) {}},
	{id: "AKSML-JOB-003", name: "CronJob bounded by history limits", mutate: func(s *Stack) {
		set(s, "team-a-score", arr{obj{"name": "score", "image": "myacr.azurecr.io/scorer:3.1.0" + digest,
			"resources": obj{"requests": obj{"nvidia.com/gpu": 1.0}, "limits": obj{"nvidia.com/gpu": 1.0}}}},
			"spec", "jobTemplate", "spec", "template", "spec", "containers")
		set(s, "team-a-score", 86400.0, "spec", "jobTemplate", "spec", "activeDeadlineSeconds")
	}},
	{id: "AKSML-JOB-004", name: "grace period set", mutate: func(s *Stack) {}},
	{id: "AKSML-JOB-005", name: "documented podFailurePolicy", mutate: func(s *Stack) {}},
	{id: "AKSML-JOB-006", name: "short CPU Job awaited", mutate: func(s *Stack) {
		add(s, kube("batch/v1", "Job", "team-a", "migrate", nil, obj{
			"backoffLimit": 1.0,
			"template":     obj{"spec": obj{"restartPolicy": "Never", "containers": arr{obj{"name": "m", "image": "migrate:1.0"}}}},
		}))
	}},
	{id: "AKSML-JOB-007", name: "GPU Job outside team namespaces", mutate: func(s *Stack) {
		add(s, trainingJob("research", "adhoc"))
		set(s, "research-adhoc", obj{}, "metadata", "labels")
	}},
	{id: "AKSML-JOB-007", name: "Volcano-scheduled GPU Job in a team namespace", mutate: func(s *Stack) {
		set(s, "team-a-train", obj{}, "metadata", "labels")
		set(s, "team-a-train", "volcano", at(podSpec, "schedulerName")...)
	}},
	{id: "AKSML-JOB-008", name: "unqueued Job not suspended", mutate: func(s *Stack) {
		set(s, "team-a-train", nil, at(jobSpec, "suspend")...)
		set(s, "team-a-train", obj{}, "metadata", "labels")
	}},
	{id: "AKSML-JOB-009", name: "runPolicy bounded", mutate: func(s *Stack) {}},
	{id: "AKSML-JOB-010", name: "PDB in another namespace", mutate: func(s *Stack) {
		add(s, kube("policy/v1", "PodDisruptionBudget", "serving", "train", nil, obj{
			"minAvailable": 1.0, "selector": obj{"matchLabels": obj{"app": "train"}},
		}))
	}},

	{id: "AKSML-NET-001", name: "single-replica PyTorchJob without policy", mutate: func(s *Stack) {
		s.Resources = without(s.Resources, "team-a-allow-ddp-nccl")
		set(s, "team-a-ddp", nil, "spec", "pytorchReplicaSpecs", "Worker")
	}},
	{id: "AKSML-NET-001", name: "policy selecting by the operator's job-name label", mutate: func(s *Stack) {
		sel := obj{"matchLabels": obj{"training.kubeflow.org/job-name": "ddp"}}
		set(s, "team-a-allow-ddp-nccl", sel, "spec", "podSelector")
		set(s, "team-a-allow-ddp-nccl", arr{obj{"from": arr{obj{"podSelector": sel}}}}, "spec", "ingress")
		set(s, "team-a-allow-ddp-nccl", sel, "spec", "egress", 0, "to", 0, "podSelector")
	}},
	{id: "AKSML-NET-002", name: "env from a ConfigMap", mutate: func(s *Stack) {
		set(s, "team-a-ddp", nil, "spec", "pytorchReplicaSpecs", "Master", "template", "spec", "containers", 0, "env")
		set(s, "team-a-ddp", arr{obj{"configMapRef": obj{"name": "nccl"}}}, "spec", "pytorchReplicaSpecs", "Master", "template", "spec", "containers", 0, "envFrom")
	}},

	{id: "AKSML-STO-001", name: "dataset class with Delete", mutate: func(s *Stack) {
		add(s, storageClass("ml-azurefile-premium", "Delete"))
	}},
	{id: "AKSML-STO-001", name: "checkpoint class name unknown before deployment", mutate: func(s *Stack) {
		set(s, "team-a-model-checkpoints", Unknown, "spec", "storageClassName")
	}},

	{id: "AKSML-QUE-001", name: "deliberate overcommit declared on the flavor", mutate: func(s *Stack) {
		set(s, "team-a-gpu", "8", "spec", "resourceGroups", 0, "flavors", 0, "resources", 2, "nominalQuota")
		set(s, "gpu-a100", obj{"aksml.io/gpu-overcommit-ratio": "2"}, "metadata", "annotations")
	}},
	{id: "AKSML-QUE-001", name: "deliberate overcommit declared on the ClusterQueue", mutate: func(s *Stack) {
		set(s, "team-a-gpu", "6", "spec", "resourceGroups", 0, "flavors", 0, "resources", 2, "nominalQuota")
		set(s, "team-a-gpu", obj{"aksml.io/gpu-overcommit-ratio": "1.5"}, "metadata", "annotations")
	}},
	{id: "AKSML-QUE-001", name: "flavor over every A100 pool", mutate: func(s *Stack) {
		set(s, "gpu-a100", obj{"accelerator": "nvidia"}, "spec", "nodeLabels")
		set(s, "team-a-gpu", "14", "spec", "resourceGroups", 0, "flavors", 0, "resources", 2, "nominalQuota")
	}},
	{id: "AKSML-QUE-001", name: "MIG instances within a MIG pool", mutate: func(s *Stack) {
		set(s, "gpua100", "MIG1g", "gpuInstanceProfile")
		set(s, "team-a-gpu", "28", "spec", "resourceGroups", 0, "flavors", 0, "resources", 2, "nominalQuota")
	}},
	{id: "AKSML-QUE-001", name: "pool maxCount unknown before deployment", mutate: func(s *Stack) {
		set(s, "gpua100", Unknown, "maxCount")
		set(s, "team-a-gpu", "64", "spec", "resourceGroups", 0, "flavors", 0, "resources", 2, "nominalQuota")
	}},
	{id: "AKSML-QUE-002", name: "no pools in the stack (existing cluster)", mutate: func(s *Stack) {
		s.Resources = s.Resources[3:]
		set(s, "gpu-a100", obj{"kubernetes.azure.com/agentpool": "gpuv100"}, "spec", "nodeLabels")
	}},
	{id: "AKSML-QUE-003", name: "Kueue only", mutate: func(s *Stack) {}},
	{id: "AKSML-QUE-004", name: "no priority classes in the stack (a workloads-only stack)", mutate: func(s *Stack) {}},
	{id: "AKSML-QUE-004", name: "every class defined", mutate: func(s *Stack) {
		for _, name := range []string{"training-batch", "inference-critical"} {
			add(s, kube("scheduling.k8s.io/v1", "PriorityClass", "", name, nil, nil), kube("kueue.x-k8s.io/v1beta2", "WorkloadPriorityClass", "", name, nil, nil))
		}
		set(s, "team-a-train", obj{"kueue.x-k8s.io/queue-name": "gpu-queue", "kueue.x-k8s.io/priority-class": "training-batch"}, "metadata", "labels")
	}},

	{id: "AKSML-SEC-001", name: "other outputs in plain text", mutate: func(s *Stack) {}},
	{id: "AKSML-SEC-002", name: "provider reading a kubeconfig file path", mutate: func(s *Stack) {
		find(s, "k8s").SecretInputs = nil
		set(s, "k8s", "/home/ci/.kube/config", "kubeconfig")
	}},
}

// without returns rs without the resource named name.
func without(rs []Resource, name string) []Resource {
	var out []Resource
	for _, r := range rs {
		if r.Name != name {
			out = append(out, r)
		}
	}
	return out
}

func envOr(env string) string {
	if env == "" {
		return EnvDev
	}
	return env
}

func TestRulesCatchViolations(t *testing.T) {
	for _, tc := range append(violations, newViolations...) {
		t.Run(tc.id+"/"+tc.name, func(t *testing.T) {
			rule, ok := ByID(tc.id)
			require.True(t, ok, "unknown rule %s", tc.id)
			s := goodStack(envOr(tc.env))
			tc.mutate(s)
			got := rule.CheckStack(s)
			require.NotEmpty(t, got, "%s let the violation pass", tc.id)
			for _, v := range got {
				assert.Equal(t, tc.id, v.RuleID)
				assert.Equal(t, rule.Severity, v.Severity)
				assert.True(t, strings.HasPrefix(v.String(), tc.id+": "), v.String())
				for _, w := range tc.want {
					assert.Contains(t, v.Message, w)
				}
			}
		})
	}
}

func TestRulesPassCompliantStacks(t *testing.T) {
	for _, env := range []string{EnvDev, EnvProd} {
		t.Run("goodStack/"+env, func(t *testing.T) {
			assert.Empty(t, Check(goodStack(env)))
		})
	}
	for _, tc := range append(compliant, newCompliant...) {
		t.Run(tc.id+"/"+tc.name, func(t *testing.T) {
			rule, ok := ByID(tc.id)
			require.True(t, ok, "unknown rule %s", tc.id)
			s := goodStack(envOr(tc.env))
			tc.mutate(s)
			assert.Empty(t, rule.CheckStack(s))
		})
	}
}

func TestEveryRuleIsTestedBothWays(t *testing.T) {
	caught, passed := map[string]bool{}, map[string]bool{}
	for _, tc := range append(violations, newViolations...) {
		caught[tc.id] = true
	}
	for _, tc := range append(compliant, newCompliant...) {
		passed[tc.id] = true
	}
	for _, r := range All() {
		assert.True(t, caught[r.ID], "%s has no violating test case", r.ID)
		assert.True(t, passed[r.ID], "%s has no compliant test case", r.ID)
	}
}

func TestRuleCatalogue(t *testing.T) {
	idRE := regexp.MustCompile(`^AKSML-[A-Z]{3}-\d{3}$`)
	seen := map[string]bool{}
	for _, r := range All() {
		assert.Regexp(t, idRE, r.ID)
		assert.False(t, seen[r.ID], "duplicate rule ID %s", r.ID)
		seen[r.ID] = true
		assert.NotEmpty(t, r.Title, r.ID)
		assert.NotEmpty(t, r.Source, r.ID)
		assert.Contains(t, []Severity{Mandatory, Advisory}, r.Severity, r.ID)
		assert.True(t, (r.Resource == nil) != (r.Stack == nil), "%s must set exactly one of Resource and Stack", r.ID)
	}
	for _, id := range []string{
		"AKSML-GPU-001", "AKSML-GPU-002", "AKSML-GPU-004", "AKSML-POD-001", "AKSML-POD-002", "AKSML-POD-003",
		"AKSML-GPU-007", "AKSML-STO-001", "AKSML-JOB-001", "AKSML-JOB-002", "AKSML-JOB-003", "AKSML-JOB-004",
		"AKSML-POD-008", "AKSML-JOB-007", "AKSML-POD-006", "AKSML-DEV-001", "AKSML-QUE-001", "AKSML-JOB-010",
		"AKSML-SEC-001",
	} {
		r, ok := ByID(id)
		require.True(t, ok, id)
		assert.Equal(t, Mandatory, r.Severity, "SPEC C8 rule %s must be mandatory", id)
	}
}

func TestCheckOrderAndMandatoryOnly(t *testing.T) {
	s := goodStack(EnvDev)
	set(s, "gpua100", arr{}, "nodeTaints")
	set(s, "team-a-serve", "myacr.azurecr.io/inference-server:latest", "spec", "template", "spec", "containers", 0, "image")
	s.Outputs["kubeconfig"] = Output{Value: "x"}
	got := Check(s)
	require.Len(t, got, 3)
	assert.Equal(t, []string{"AKSML-GPU-001", "AKSML-POD-007", "AKSML-SEC-001"}, []string{got[0].RuleID, got[1].RuleID, got[2].RuleID})
	assert.Equal(t, urnOf("azure-native:containerservice:AgentPool", "gpua100"), got[0].Resource)
	assert.Equal(t, "", got[2].Resource)
	assert.Equal(t, got, Check(s), "Check must be deterministic")
	mandatory := MandatoryOnly(got)
	require.Len(t, mandatory, 2)
	assert.Equal(t, "AKSML-SEC-001", mandatory[1].RuleID)
}

func TestCheckResourceIgnoresStackRules(t *testing.T) {
	s := goodStack(EnvDev)
	s.Outputs["kubeconfig"] = Output{Value: "x"}
	rule, _ := ByID("AKSML-SEC-001")
	assert.Empty(t, rule.CheckResource(s.Resources[0], s))
	pool := agentPool("gpua100")
	pool.Inputs["nodeTaints"] = arr{}
	taint, _ := ByID("AKSML-GPU-001")
	got := taint.CheckResource(pool, &Stack{Name: "dev", Environment: EnvDev})
	require.Len(t, got, 1)
	assert.Equal(t, pool.URN, got[0].Resource)
}

func TestEnvironment(t *testing.T) {
	for stack, want := range map[string]string{"prod": EnvProd, "prod-weu": EnvProd, "Production": EnvProd, "dev": EnvDev, "local": EnvDev, "preprod": EnvDev} {
		assert.Equal(t, want, Environment(stack), stack)
	}
}
