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
//     seed's PodMonitor selects (DCGMExporterPort, DCGMExporterPortName,
//     DCGMExporterLabels). Both select nodes labelled accelerator=nvidia AND
//     whose `kubernetes.azure.com/agentpool` is one of the DriverOnly pools,
//     so by construction they cannot land on a Managed pool's nodes.
//   - None: bring your own stack, e.g. the NVIDIA GPU Operator, which owns
//     its device plugin and DCGM exporter (AKS MLOps best practices: never combine it with a
//     second device plugin); aksml installs neither.
//
// MIG: every MIG pool that is not Managed gets its layout in the
// `mig-parted-config` ConfigMap in gpu-operator, next to `all-disabled`,
// exactly in the seed's format (e.g. hptuning-1g10gb: 7 × "1g.10gb" per GPU);
// the GPU Operator's MIG Manager applies it on None pools. The node label
// that selects a layout, nvidia.com/mig.config=<layout>, is already on the
// pool (gpupool.Spec.Labels), so nothing here labels nodes. On DriverOnly
// MIG pools the device plugin runs with --mig-strategy set to the pools'
// strategy (single or mixed; GPUs without MIG stay nvidia.com/gpu), which is
// why all DriverOnly MIG pools must share one strategy (ValidatePools).
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
