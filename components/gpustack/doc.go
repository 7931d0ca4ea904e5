// Package gpustack installs the GPU software AKS does not install itself
// (SPEC C4), following AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops) "Verify or install the NVIDIA device plugin", "Partition A100 and H100 GPUs with MIG" and "Collect NVIDIA GPU metrics", and AKS-managed GPU nodes (https://learn.microsoft.com/azure/aks/aks-managed-gpu-nodes) (managed GPU pools).
//
// NewGPUStack (`aksml:gpustack:GPUStack`) takes the stack's GPU pools and
// decides per pool from its immutable GPUStack mode:
//
//   - Managed: nothing. AKS installs driver, device plugin and a DCGM
//     exporter on port 19400 (ManagedDCGMExporterPort) itself, and two device
//     plugins on the same nodes must never run (AKS MLOps best practices, C4.4). A stack
//     whose pools are all Managed gets no Kubernetes resource from here.
//   - DriverOnly (the AKS default): AKS installs only the driver, so aksml
//     installs the NVIDIA device plugin DaemonSet exactly as AKS MLOps best practices writes
//     it (kube-system, image v0.17.1, system-node-critical, tolerate every
//     taint, --fail-on-init-error=false, no privilege escalation, all
//     capabilities dropped, the kubelet device-plugins hostPath) and a DCGM
//     exporter DaemonSet plus Service on port 9400 named `metrics` in
//     gpu-operator with the pod label `app: nvidia-dcgm-exporter` that the
//     AKS MLOps best practices' PodMonitor selects (DCGMExporterPort, DCGMExporterPortName,
//     DCGMExporterLabels). Both select nodes labelled accelerator=nvidia AND
//     whose `kubernetes.azure.com/agentpool` is one of the DriverOnly pools,
//     so by construction they cannot land on a Managed pool's nodes.
//   - None: bring your own stack, e.g. the NVIDIA GPU Operator, which owns
//     its device plugin and DCGM exporter (AKS MLOps best practices: never combine it with a
//     second device plugin); aksml installs neither.
//
// MIG: every MIG pool that is not Managed gets its layout in the
// `mig-parted-config` ConfigMap in gpu-operator, next to `all-disabled`,
// exactly in the AKS MLOps best practices' format (e.g. hptuning-1g10gb: 7 × "1g.10gb" per GPU).
// The node label that selects a layout, nvidia.com/mig.config=<layout>, is
// already on the pool (gpupool.Spec.Labels), so nothing here labels nodes
// with it. Who consumes the layout depends on the pool's mode:
//
//   - DriverOnly: aksml installs NVIDIA's MIG Manager, the standalone
//     k8s-mig-manager of NVIDIA/mig-parted (MIGManagerImage, pinned to
//     v0.14.5: VERSION in https://github.com/NVIDIA/mig-parted versions.mk
//     and the image of its deployments/container/nvidia-mig-manager-example.yaml),
//     as DaemonSet aksml-mig-manager in Spec.Namespace, only on the
//     DriverOnly MIG pools (accelerator=nvidia AND kubernetes.azure.com/agentpool
//     In those pools), tolerating exactly their taints (sku=gpu, and the
//     spot taint on spot pools). It watches its node's nvidia.com/mig.config
//     label, applies that layout from mig-parted-config (CONFIG_FILE) and
//     sets nvidia.com/mig.config.state to pending, then success or failed
//     (reconfigure-mig.sh in the same repository). Its shape follows the
//     standalone example for drivers installed on the host, which is what
//     AKS does on DriverOnly pools: privileged, host PID and IPC, the
//     host's /sys and root file system, the host GPU clients of the
//     example in a gpu-clients ConfigMap, WITH_REBOOT false. Its RBAC is
//     the GPU Operator's, narrower than the example's "every verb on every
//     core resource": a ClusterRole on nodes (get, list, watch, update,
//     patch: it labels its node; https://github.com/NVIDIA/gpu-operator
//     assets/state-mig-manager/0210_clusterrole.yaml) and a Role on pods in
//     its namespace (get, list, watch, delete: it waits for the GPU client
//     pods there to stop; 0200_role.yaml), each bound to its
//     ServiceAccount. Across a change the manager pauses the GPU clients
//     through node labels (nvidia.com/gpu.deploy.device-plugin and
//     nvidia.com/gpu.deploy.dcgm-exporter = paused-for-mig-change); with
//     the MIG Manager installed, aksml's device plugin and DCGM exporter
//     carry a NotIn affinity on those labels, so they stop during the
//     change and the device plugin restarts on the new layout. The manager
//     waits for the DCGM exporter's pod (app=nvidia-dcgm-exporter in its
//     namespace); it does not find the device plugin's pod when the plugin
//     runs in another namespace (the AKS MLOps best practices' kube-system), so it does not
//     wait for that one to go. AKS itself partitions the GPUs of a pool
//     with gpuInstanceProfile when it creates a node ("Create a
//     multi-instance GPU node pool in AKS",
//     https://learn.microsoft.com/azure/aks/gpu-multi-instance), and aksml
//     derives the layout from that same profile, so on a new node the
//     manager finds the layout applied and only reports success; a
//     different profile is a new pool (gpuInstanceProfile is immutable,
//     components/gpupool).
//   - Managed: AKS partitions the GPUs and runs its own device plugin with
//     gpuProfile.nvidia.migStrategy (AKS-managed GPU nodes), so aksml
//     installs no MIG Manager there (NeedsMIGManager) and writes no layout
//     for it; a MIG trial on such a pool selects it by name.
//   - None: the pool brings its own stack; the GPU Operator's MIG Manager
//     applies mig-parted-config there (NVIDIA, "GPU Operator with MIG",
//     https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html),
//     so aksml installs none, and names its own objects aksml-mig-manager so
//     that they never collide with the operator's nvidia-mig-manager.
//
// The device plugin on DriverOnly MIG pools runs with --mig-strategy set
// to the pools' strategy, which decides what the pool advertises once
// the layout is applied: one nvidia.com/gpu per MIG device under single,
// nvidia.com/mig-<device> (e.g. nvidia.com/mig-1g.10gb) under mixed
// (gpupool.Spec.MIGResourceName; GPUs without MIG stay nvidia.com/gpu). All
// DriverOnly MIG pools must share one strategy (ValidatePools).
//
// Time-slicing (Spec.TimeSlicing, for dev sharing) mounts a device plugin
// config file from the nvidia-device-plugin-config ConfigMap that advertises
// every GPU Replicas times; its hash annotates the pods so a change rolls
// the DaemonSet. Quotas over shared GPUs should multiply capacity by
// Spec.GPUReplicas.
//
// The Spec (`aksml:gpuStack`) is plain data: Default fills the documented
// defaults and Validate returns every problem with its config key. Images
// may be overridden (e.g. with a registry mirror) but must stay pinned.
package gpustack
