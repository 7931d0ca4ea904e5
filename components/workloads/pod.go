package workloads

import (
	"sort"
	"strconv"

	corev1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/core/v1"
	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/gpupool"
)

// Volume names of workload pods.
const (
	shmVolume        = "shared-memory"
	checkpointVolume = "checkpoints"
	dataVolume       = "data"
	shmMountPath     = "/dev/shm"
)

// envVar is one container environment variable: a literal value or, when
// fieldPath is set, a downward-API field.
type envVar struct {
	name, value, fieldPath string
}

// podSpec is the plain description of one workload pod that podTemplate
// turns into provider arguments. Every kind builds its pods with it.
type podSpec struct {
	// common is the defaulted Common of the workload.
	common *Common
	// kind is the aksml kind, e.g. "checkpointed-job" (component label).
	kind string
	// container is the container name (Kubeflow requires "pytorch" and
	// "tensorflow").
	container string
	// resources are the container's CPU and memory (GPU count excluded).
	resources Resources
	// accelerator is the extended resource and count requested, e.g.
	// nvidia.com/gpu × 1 or nvidia.com/mig-1g.10gb × 1; empty for CPU pods.
	accelerator      string
	acceleratorCount int
	// nodeSelector and tolerations place the pod.
	nodeSelector map[string]string
	tolerations  []gpupool.Taint
	// env are the kind's variables, set before Common.Env.
	env []envVar
	// labels and annotations are the kind's pod labels and annotations.
	labels      map[string]string
	annotations map[string]string
	// restartPolicy is "Never" for Jobs, "" where an operator sets it.
	restartPolicy string
	// gracePeriod is terminationGracePeriodSeconds; 0 leaves it unset.
	gracePeriod int
	// schedulerName is set for Volcano.
	schedulerName string
	// ports are the container's ports beyond the metrics port; probes its
	// startup, readiness and liveness probes (serving kinds), nil for none.
	ports  corev1.ContainerPortArray
	probes *probes
}

// probes are a long-running container's health checks.
type probes struct {
	startup, readiness, liveness corev1.ProbeArgs
}

// objectLabels are the labels of a workload's top-level object.
func objectLabels(c *Common, kind string) map[string]string {
	l := map[string]string{}
	for k, v := range c.Labels {
		l[k] = v
	}
	l[NameLabel] = c.Name
	l[PartOfLabel] = "aksml"
	l[WorkloadKindLabel] = kind
	l[TeamLabel] = c.Team
	return l
}

// queueLabels are the Kueue labels of an object admitted through Kueue:
// the LocalQueue and the workload priority class.
func queueLabels(c *Common) map[string]string {
	if c.Scheduler != SchedulerKueue {
		return nil
	}
	return map[string]string{
		QueueNameLabel:             c.QueueName,
		WorkloadPriorityClassLabel: c.WorkloadPriorityClass,
	}
}

// awaitAnnotations are the pulumi-kubernetes await annotations: skip the
// wait, or bound it when the caller opted in.
func awaitAnnotations(c *Common) map[string]string {
	return awaitAnnotationsFor(c.Await, c.AwaitTimeoutSeconds)
}

func awaitAnnotationsFor(await bool, timeout int) map[string]string {
	if await {
		return map[string]string{TimeoutSecondsAnnotation: strconv.Itoa(timeout)}
	}
	return map[string]string{SkipAwaitAnnotation: "true"}
}

// merge returns the union of maps, later ones winning.
func merge(maps ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// poolNodeSelector selects the nodes of pool: accelerator=nvidia, the
// pool's workload label (gpu-spot on spot pools) and its AKS pool name.
func poolNodeSelector(pool *gpupool.Resolved) map[string]string {
	labels := pool.Labels()
	return map[string]string{
		gpupool.AcceleratorLabel: labels[gpupool.AcceleratorLabel],
		gpupool.WorkloadLabel:    labels[gpupool.WorkloadLabel],
		gpupool.AgentPoolLabel:   pool.Name,
	}
}

// objectMeta returns metadata with the workload's name and namespace.
func objectMeta(c *Common, labels, annotations map[string]string) *metav1.ObjectMetaArgs {
	m := &metav1.ObjectMetaArgs{
		Name:      pulumi.String(c.Name),
		Namespace: c.Namespace,
		Labels:    pulumi.ToStringMap(labels),
	}
	if len(annotations) > 0 {
		m.Annotations = pulumi.ToStringMap(annotations)
	}
	return m
}

// podEnv is the container environment: the mounts, the kind's variables,
// then Common.Env sorted by name.
func podEnv(p podSpec) corev1.EnvVarArray {
	var vars []envVar
	c := p.common
	if c.CheckpointPVC != "" {
		vars = append(vars, envVar{name: EnvCheckpointDir, value: c.CheckpointDir})
	}
	if c.DataPVC != "" {
		vars = append(vars, envVar{name: EnvDataDir, value: c.DataDir})
	}
	vars = append(vars, p.env...)
	keys := make([]string, 0, len(c.Env))
	for k := range c.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		vars = append(vars, envVar{name: k, value: c.Env[k]})
	}
	out := corev1.EnvVarArray{}
	for _, v := range vars {
		if v.fieldPath != "" {
			out = append(out, corev1.EnvVarArgs{
				Name:      pulumi.String(v.name),
				ValueFrom: corev1.EnvVarSourceArgs{FieldRef: corev1.ObjectFieldSelectorArgs{FieldPath: pulumi.String(v.fieldPath)}},
			})
			continue
		}
		out = append(out, corev1.EnvVarArgs{Name: pulumi.String(v.name), Value: pulumi.String(v.value)})
	}
	return out
}

// podVolumes returns the volumes and mounts: memory-backed /dev/shm, the
// checkpoint claim and the read-only dataset claim, each when configured.
func podVolumes(c *Common) (corev1.VolumeArray, corev1.VolumeMountArray) {
	vols := corev1.VolumeArray{}
	mounts := corev1.VolumeMountArray{}
	if c.ShmSize != ShmDisabled {
		vols = append(vols, corev1.VolumeArgs{
			Name:     pulumi.String(shmVolume),
			EmptyDir: corev1.EmptyDirVolumeSourceArgs{Medium: pulumi.String("Memory"), SizeLimit: pulumi.String(c.ShmSize)},
		})
		mounts = append(mounts, corev1.VolumeMountArgs{Name: pulumi.String(shmVolume), MountPath: pulumi.String(shmMountPath)})
	}
	if c.CheckpointPVC != "" {
		vols = append(vols, corev1.VolumeArgs{
			Name:                  pulumi.String(checkpointVolume),
			PersistentVolumeClaim: corev1.PersistentVolumeClaimVolumeSourceArgs{ClaimName: pulumi.String(c.CheckpointPVC)},
		})
		mounts = append(mounts, corev1.VolumeMountArgs{Name: pulumi.String(checkpointVolume), MountPath: pulumi.String(c.CheckpointDir)})
	}
	if c.DataPVC != "" {
		vols = append(vols, corev1.VolumeArgs{
			Name:                  pulumi.String(dataVolume),
			PersistentVolumeClaim: corev1.PersistentVolumeClaimVolumeSourceArgs{ClaimName: pulumi.String(c.DataPVC), ReadOnly: pulumi.Bool(true)},
		})
		mounts = append(mounts, corev1.VolumeMountArgs{Name: pulumi.String(dataVolume), MountPath: pulumi.String(c.DataDir), ReadOnly: pulumi.Bool(true)})
	}
	return vols, mounts
}

// podResources sets requests equal to limits for CPU, memory and the
// accelerator.
func podResources(p podSpec) corev1.ResourceRequirementsArgs {
	r := map[string]string{"cpu": p.resources.CPU, "memory": p.resources.Memory}
	if p.accelerator != "" && p.acceleratorCount > 0 {
		r[p.accelerator] = strconv.Itoa(p.acceleratorCount)
	}
	return corev1.ResourceRequirementsArgs{Requests: pulumi.ToStringMap(r), Limits: pulumi.ToStringMap(r)}
}

// podTolerations tolerates exactly the given taints (operator Equal).
func podTolerations(taints []gpupool.Taint) corev1.TolerationArray {
	out := corev1.TolerationArray{}
	for _, t := range taints {
		out = append(out, corev1.TolerationArgs{
			Key:      pulumi.String(t.Key),
			Operator: pulumi.String("Equal"),
			Value:    pulumi.String(t.Value),
			Effect:   pulumi.String(t.Effect),
		})
	}
	return out
}

// podSecurityContext runs as the non-root UID/GID 1000 with fsGroup 1000
// (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops)) and the runtime's default seccomp profile. OnRootMismatch
// avoids a recursive chown of large checkpoint volumes at every start.
func podSecurityContext() corev1.PodSecurityContextArgs {
	return corev1.PodSecurityContextArgs{
		RunAsNonRoot:        pulumi.Bool(true),
		RunAsUser:           pulumi.Int(RunAsUser),
		RunAsGroup:          pulumi.Int(RunAsGroup),
		FsGroup:             pulumi.Int(FSGroup),
		FsGroupChangePolicy: pulumi.String("OnRootMismatch"),
		SeccompProfile:      corev1.SeccompProfileArgs{Type: pulumi.String("RuntimeDefault")},
	}
}

// containerSecurityContext forbids privilege escalation and drops every
// capability.
func containerSecurityContext() corev1.SecurityContextArgs {
	return corev1.SecurityContextArgs{
		RunAsNonRoot:             pulumi.Bool(true),
		AllowPrivilegeEscalation: pulumi.Bool(false),
		Capabilities:             corev1.CapabilitiesArgs{Drop: pulumi.StringArray{pulumi.String("ALL")}},
		SeccompProfile:           corev1.SeccompProfileArgs{Type: pulumi.String("RuntimeDefault")},
	}
}

// podLabels are the pod template labels: name, team, kind, the metrics
// label when a metrics port is set, the kind's labels and Common.Labels.
func podLabels(p podSpec) map[string]string {
	l := merge(p.common.Labels, p.labels)
	l[NameLabel] = p.common.Name
	l[PartOfLabel] = "aksml"
	l[WorkloadKindLabel] = p.kind
	l[TeamLabel] = p.common.Team
	if p.common.MetricsPort > 0 {
		l[MetricsLabel] = MetricsLabelValue
	}
	if p.common.WorkloadIdentity {
		l[WorkloadIdentityLabel] = "true"
	}
	return l
}

// podTemplate builds the pod template of a workload from p.
func podTemplate(p podSpec) corev1.PodTemplateSpecArgs {
	c := p.common
	vols, mounts := podVolumes(c)
	container := corev1.ContainerArgs{
		Name:            pulumi.String(p.container),
		Image:           pulumi.String(c.Image),
		Env:             podEnv(p),
		Resources:       podResources(p),
		SecurityContext: containerSecurityContext(),
		VolumeMounts:    mounts,
	}
	if len(c.Command) > 0 {
		container.Command = pulumi.ToStringArray(c.Command)
	}
	if len(c.Args) > 0 {
		container.Args = pulumi.ToStringArray(c.Args)
	}
	ports := append(corev1.ContainerPortArray{}, p.ports...)
	if c.MetricsPort > 0 {
		ports = append(ports, corev1.ContainerPortArgs{
			Name:          pulumi.String(MetricsPortName),
			ContainerPort: pulumi.Int(c.MetricsPort),
			Protocol:      pulumi.String("TCP"),
		})
	}
	if len(ports) > 0 {
		container.Ports = ports
	}
	if p.probes != nil {
		container.StartupProbe = p.probes.startup
		container.ReadinessProbe = p.probes.readiness
		container.LivenessProbe = p.probes.liveness
	}
	spec := corev1.PodSpecArgs{
		Containers:                   corev1.ContainerArray{container},
		PriorityClassName:            pulumi.String(c.PriorityClass),
		SecurityContext:              podSecurityContext(),
		AutomountServiceAccountToken: pulumi.Bool(c.ServiceAccountName != ""),
		Volumes:                      vols,
	}
	if c.ServiceAccountName != "" {
		spec.ServiceAccountName = pulumi.String(c.ServiceAccountName)
	}
	if p.restartPolicy != "" {
		spec.RestartPolicy = pulumi.String(p.restartPolicy)
	}
	if p.gracePeriod > 0 {
		spec.TerminationGracePeriodSeconds = pulumi.Int(p.gracePeriod)
	}
	if len(p.nodeSelector) > 0 {
		spec.NodeSelector = pulumi.ToStringMap(p.nodeSelector)
	}
	if len(p.tolerations) > 0 {
		spec.Tolerations = podTolerations(p.tolerations)
	}
	if p.schedulerName != "" {
		spec.SchedulerName = pulumi.String(p.schedulerName)
	}
	meta := metav1.ObjectMetaArgs{Labels: pulumi.ToStringMap(podLabels(p))}
	if len(p.annotations) > 0 {
		meta.Annotations = pulumi.ToStringMap(p.annotations)
	}
	return corev1.PodTemplateSpecArgs{Metadata: meta, Spec: spec}
}

// gpuPodSpec fills the placement of a pod on a GPU pool: node selector,
// tolerations for every taint of the pool (sku=gpu, and the spot taint on
// spot pools), and nvidia.com/gpu × gpus.
func gpuPodSpec(p podSpec, pool *gpupool.Resolved, gpus int) podSpec {
	p.nodeSelector = poolNodeSelector(pool)
	p.tolerations = pool.Taints()
	if gpus > 0 {
		p.accelerator = gpupool.GPUResource
		p.acceleratorCount = gpus
	}
	return p
}

// volcanoPodSpec hands a pod to Volcano with its queue.
func volcanoPodSpec(p podSpec) podSpec {
	if p.common.Scheduler != SchedulerVolcano {
		return p
	}
	p.schedulerName = VolcanoSchedulerName
	p.annotations = merge(p.annotations, map[string]string{VolcanoQueueAnnotation: p.common.QueueName})
	return p
}
