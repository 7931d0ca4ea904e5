package gpustack

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	appsv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/apps/v1"
	corev1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/core/v1"
	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/gpupool"
)

// gpuNodeScheduling returns the node selector and affinity of the node
// agents: nodes labelled accelerator=nvidia (AKS MLOps best practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops)) AND in one of pools
// (the AKS agentpool label), so they can never land on a Managed pool.
// A non-empty pausedLabel also keeps them off nodes where the MIG Manager
// set that label to MIGPausedForChange (NotIn matches nodes without it).
func gpuNodeScheduling(pools []string, pausedLabel string) (pulumi.StringMap, *corev1.AffinityArgs) {
	selector := pulumi.StringMap{gpupool.AcceleratorLabel: pulumi.String(gpupool.AcceleratorValue)}
	exprs := corev1.NodeSelectorRequirementArray{
		corev1.NodeSelectorRequirementArgs{
			Key:      pulumi.String(gpupool.AgentPoolLabel),
			Operator: pulumi.String("In"),
			Values:   pulumi.ToStringArray(pools),
		},
	}
	if pausedLabel != "" {
		exprs = append(exprs, corev1.NodeSelectorRequirementArgs{
			Key:      pulumi.String(pausedLabel),
			Operator: pulumi.String("NotIn"),
			Values:   pulumi.StringArray{pulumi.String(MIGPausedForChange)},
		})
	}
	affinity := &corev1.AffinityArgs{
		NodeAffinity: &corev1.NodeAffinityArgs{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelectorArgs{
				NodeSelectorTerms: corev1.NodeSelectorTermArray{
					corev1.NodeSelectorTermArgs{MatchExpressions: exprs},
				},
			},
		},
	}
	return selector, affinity
}

// pausedLabel returns label when the MIG Manager is installed (it pauses
// the agent through that label across a MIG change), else "".
func pausedLabel(migManager bool, label string) string {
	if migManager {
		return label
	}
	return ""
}

// tolerateAll is the AKS MLOps best practices' node-agent toleration: every taint, so the agent
// also runs on spot and otherwise tainted GPU nodes.
func tolerateAll() corev1.TolerationArray {
	return corev1.TolerationArray{corev1.TolerationArgs{Operator: pulumi.String("Exists")}}
}

// devicePluginConfig renders the device plugin config file for time-slicing:
// each GPU is advertised replicas times as nvidia.com/gpu, and a pod asking
// for more than one shared GPU is refused instead of silently getting
// several slices of the same GPU.
func devicePluginConfig(replicas int) string {
	return fmt.Sprintf(`version: v1
sharing:
  timeSlicing:
    failRequestsGreaterThanOne: true
    resources:
    - name: %s
      replicas: %d
`, gpupool.GPUResource, replicas)
}

// configHash is the hex SHA-256 of a config file.
func configHash(config string) string {
	sum := sha256.Sum256([]byte(config))
	return hex.EncodeToString(sum[:])
}

// devicePluginArgs is the device plugin DaemonSet of AKS MLOps best practices, restricted to
// the given pools. migStrategy adds --mig-strategy; config (the device
// plugin config file, "" for none) is mounted from DevicePluginConfigName
// and its hash annotates the pods so that a change rolls them. With
// migManager the plugin keeps off nodes whose MIG layout is being changed
// (DeployDevicePluginLabel paused), so it restarts on the new layout.
func devicePluginArgs(namespace pulumi.StringInput, image string, pools []string, migStrategy, config string, migManager bool) *appsv1.DaemonSetArgs {
	labels := pulumi.StringMap{NameLabel: pulumi.String(DevicePluginName)}
	nodeSelector, affinity := gpuNodeScheduling(pools, pausedLabel(migManager, DeployDevicePluginLabel))

	args := pulumi.StringArray{pulumi.String("--fail-on-init-error=false")}
	if migStrategy != "" {
		args = append(args, pulumi.String("--mig-strategy="+migStrategy))
	}
	mounts := corev1.VolumeMountArray{
		corev1.VolumeMountArgs{Name: pulumi.String("device-plugin"), MountPath: pulumi.String(DevicePluginSocketDir)},
	}
	volumes := corev1.VolumeArray{
		corev1.VolumeArgs{
			Name:     pulumi.String("device-plugin"),
			HostPath: &corev1.HostPathVolumeSourceArgs{Path: pulumi.String(DevicePluginSocketDir), Type: pulumi.String("Directory")},
		},
	}
	podMeta := &metav1.ObjectMetaArgs{Labels: labels}
	if config != "" {
		args = append(args, pulumi.String("--config-file="+DevicePluginConfigDir+"/"+DevicePluginConfigFile))
		mounts = append(mounts, corev1.VolumeMountArgs{Name: pulumi.String("config"), MountPath: pulumi.String(DevicePluginConfigDir), ReadOnly: pulumi.Bool(true)})
		volumes = append(volumes, corev1.VolumeArgs{
			Name:      pulumi.String("config"),
			ConfigMap: &corev1.ConfigMapVolumeSourceArgs{Name: pulumi.String(DevicePluginConfigName)},
		})
		podMeta.Annotations = pulumi.StringMap{ConfigHashAnnotation: pulumi.String(configHash(config))}
	}

	return nodeAgent(DevicePluginName, namespace, labels, podMeta, &corev1.PodSpecArgs{
		PriorityClassName: pulumi.String(SystemNodeCritical),
		NodeSelector:      nodeSelector,
		Affinity:          affinity,
		Tolerations:       tolerateAll(),
		Containers: corev1.ContainerArray{
			corev1.ContainerArgs{
				Name:  pulumi.String(DevicePluginName),
				Image: pulumi.String(image),
				Args:  args,
				SecurityContext: &corev1.SecurityContextArgs{
					AllowPrivilegeEscalation: pulumi.Bool(false),
					Capabilities:             &corev1.CapabilitiesArgs{Drop: pulumi.StringArray{pulumi.String("ALL")}},
				},
				VolumeMounts: mounts,
			},
		},
		Volumes: volumes,
	})
}

// devicePluginConfigMapArgs holds the device plugin config file.
func devicePluginConfigMapArgs(namespace pulumi.StringInput, config string) *corev1.ConfigMapArgs {
	return &corev1.ConfigMapArgs{
		Metadata: &metav1.ObjectMetaArgs{Name: pulumi.String(DevicePluginConfigName), Namespace: namespace},
		Data:     pulumi.StringMap{DevicePluginConfigFile: pulumi.String(config)},
	}
}

// dcgmExporterArgs is the DCGM exporter DaemonSet on the given pools. It
// follows upstream's manifest: root with CAP_SYS_ADMIN, which DCGM needs
// for its profiling metrics (DCGM_FI_PROF_*, upstream runs it with
// --cap-add SYS_ADMIN), every other capability dropped; the kubelet
// pod-resources socket read-only so metrics name the pod using each GPU.
// allowPrivilegeEscalation is left unset: the API server rejects false
// together with CAP_SYS_ADMIN. The service account token is not mounted:
// the exporter never calls the API server. With migManager it keeps off
// nodes whose MIG layout is being changed (DeployDCGMExporterLabel paused;
// the MIG Manager waits for its app=nvidia-dcgm-exporter pod to go).
func dcgmExporterArgs(namespace pulumi.StringInput, image string, pools []string, migManager bool) *appsv1.DaemonSetArgs {
	labels := pulumi.ToStringMap(DCGMExporterLabels())
	nodeSelector, affinity := gpuNodeScheduling(pools, pausedLabel(migManager, DeployDCGMExporterLabel))
	return nodeAgent(DCGMExporterName, namespace, labels, &metav1.ObjectMetaArgs{Labels: labels}, &corev1.PodSpecArgs{
		PriorityClassName:            pulumi.String(SystemNodeCritical),
		AutomountServiceAccountToken: pulumi.Bool(false),
		NodeSelector:                 nodeSelector,
		Affinity:                     affinity,
		Tolerations:                  tolerateAll(),
		Containers: corev1.ContainerArray{
			corev1.ContainerArgs{
				Name:  pulumi.String("exporter"),
				Image: pulumi.String(image),
				Args:  pulumi.StringArray{pulumi.String("-f"), pulumi.String(DCGMExporterCounters)},
				Env: corev1.EnvVarArray{
					corev1.EnvVarArgs{Name: pulumi.String("DCGM_EXPORTER_LISTEN"), Value: pulumi.String(fmt.Sprintf(":%d", DCGMExporterPort))},
					corev1.EnvVarArgs{Name: pulumi.String("DCGM_EXPORTER_KUBERNETES"), Value: pulumi.String("true")},
					fieldEnv("NODE_NAME", "spec.nodeName"),
				},
				Ports: corev1.ContainerPortArray{
					corev1.ContainerPortArgs{Name: pulumi.String(DCGMExporterPortName), ContainerPort: pulumi.Int(DCGMExporterPort), Protocol: pulumi.String("TCP")},
				},
				SecurityContext: &corev1.SecurityContextArgs{
					RunAsUser:    pulumi.Int(0),
					RunAsNonRoot: pulumi.Bool(false),
					Capabilities: &corev1.CapabilitiesArgs{
						Drop: pulumi.StringArray{pulumi.String("ALL")},
						Add:  pulumi.StringArray{pulumi.String("SYS_ADMIN")},
					},
				},
				Resources: &corev1.ResourceRequirementsArgs{
					Requests: pulumi.StringMap{"cpu": pulumi.String(DCGMExporterCPURequest), "memory": pulumi.String(DCGMExporterMemoryRequest)},
					Limits:   pulumi.StringMap{"cpu": pulumi.String(DCGMExporterCPULimit), "memory": pulumi.String(DCGMExporterMemoryLimit)},
				},
				LivenessProbe:  healthProbe(5),
				ReadinessProbe: healthProbe(10),
				VolumeMounts: corev1.VolumeMountArray{
					corev1.VolumeMountArgs{Name: pulumi.String("pod-resources"), MountPath: pulumi.String(PodResourcesDir), ReadOnly: pulumi.Bool(true)},
				},
			},
		},
		Volumes: corev1.VolumeArray{
			corev1.VolumeArgs{
				Name:     pulumi.String("pod-resources"),
				HostPath: &corev1.HostPathVolumeSourceArgs{Path: pulumi.String(PodResourcesDir), Type: pulumi.String("Directory")},
			},
		},
	})
}

// nodeAgent is a node agent DaemonSet: name and labels on the DaemonSet,
// its selector and its pods (podMeta), rolling updates, pod spec pod.
func nodeAgent(name string, namespace pulumi.StringInput, labels pulumi.StringMap, podMeta *metav1.ObjectMetaArgs, pod *corev1.PodSpecArgs) *appsv1.DaemonSetArgs {
	return &appsv1.DaemonSetArgs{
		Metadata: &metav1.ObjectMetaArgs{Name: pulumi.String(name), Namespace: namespace, Labels: labels},
		Spec: &appsv1.DaemonSetSpecArgs{
			Selector:       &metav1.LabelSelectorArgs{MatchLabels: labels},
			UpdateStrategy: &appsv1.DaemonSetUpdateStrategyArgs{Type: pulumi.String("RollingUpdate")},
			Template:       &corev1.PodTemplateSpecArgs{Metadata: podMeta, Spec: pod},
		},
	}
}

// healthProbe checks the exporter's /health endpoint after the host engine
// has had time to start (upstream: 45 s).
func healthProbe(periodSeconds int) *corev1.ProbeArgs {
	return &corev1.ProbeArgs{
		HttpGet:             &corev1.HTTPGetActionArgs{Path: pulumi.String("/health"), Port: pulumi.String(DCGMExporterPortName)},
		InitialDelaySeconds: pulumi.Int(45),
		PeriodSeconds:       pulumi.Int(periodSeconds),
	}
}

// dcgmServiceArgs exposes the exporter pods' metrics port.
func dcgmServiceArgs(namespace pulumi.StringInput) *corev1.ServiceArgs {
	labels := pulumi.ToStringMap(DCGMExporterLabels())
	return &corev1.ServiceArgs{
		Metadata: &metav1.ObjectMetaArgs{
			Name: pulumi.String(DCGMExporterName), Namespace: namespace, Labels: labels,
			// GPU pools scale to zero (minCount 0), so the exporter often has
			// no pods and the Service no endpoints; without this the
			// Kubernetes provider would hold `pulumi up` for 10 minutes
			// waiting for them, then fail.
			Annotations: pulumi.StringMap{SkipAwaitAnnotation: pulumi.String("true")},
		},
		Spec: &corev1.ServiceSpecArgs{
			Type:     pulumi.String("ClusterIP"),
			Selector: labels,
			Ports: corev1.ServicePortArray{
				corev1.ServicePortArgs{
					Name:       pulumi.String(DCGMExporterPortName),
					Port:       pulumi.Int(DCGMExporterPort),
					TargetPort: pulumi.String(DCGMExporterPortName),
					Protocol:   pulumi.String("TCP"),
				},
			},
		},
	}
}

// migPartedConfig renders the mig-parted config.yaml of AKS MLOps best practices:
// all-disabled, then each layout splitting every GPU into count devices.
func migPartedConfig(layouts []migLayout) string {
	var b strings.Builder
	b.WriteString("version: v1\nmig-configs:\n")
	fmt.Fprintf(&b, "  %s:\n  - devices: all\n    mig-enabled: false\n", MIGAllDisabled)
	for _, l := range layouts {
		fmt.Fprintf(&b, "  %s:\n  - devices: all\n    mig-enabled: true\n    mig-devices:\n      %q: %d\n", l.name, l.device, l.count)
	}
	return b.String()
}

// migConfigMapArgs is the mig-parted-config ConfigMap.
func migConfigMapArgs(namespace pulumi.StringInput, layouts []migLayout) *corev1.ConfigMapArgs {
	return &corev1.ConfigMapArgs{
		Metadata: &metav1.ObjectMetaArgs{Name: pulumi.String(MIGConfigMapName), Namespace: namespace},
		Data:     pulumi.StringMap{MIGConfigFile: pulumi.String(migPartedConfig(layouts))},
	}
}

// namespaceArgs is the namespace of the DCGM exporter and MIG config,
// admitted at the privileged Pod Security level its node agents need.
func namespaceArgs(name string) *corev1.NamespaceArgs {
	return &corev1.NamespaceArgs{
		Metadata: &metav1.ObjectMetaArgs{
			Name:   pulumi.String(name),
			Labels: pulumi.StringMap{PodSecurityEnforceLabel: pulumi.String(PodSecurityPrivileged)},
		},
	}
}
