package gpustack

import (
	"fmt"
	"strings"

	appsv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/apps/v1"
	corev1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/core/v1"
	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
	rbacv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/rbac/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/gpupool"
)

// MIGManagerGPUClientsName is the ConfigMap listing the host systemd
// services the MIG Manager stops across a MIG change (env
// GPU_CLIENTS_FILE); its data key is MIGManagerGPUClientsFile.
const (
	MIGManagerGPUClientsName = MIGManagerName + "-gpu-clients"
	MIGManagerGPUClientsFile = "clients.yaml"
	migManagerGPUClientsDir  = "/gpu-clients"
)

// migManagerHostGPUClients are the host GPU clients of NVIDIA's standalone
// example (deployments/container/nvidia-mig-manager-example.yaml,
// ConfigMap gpu-clients). A service the node does not have is skipped
// (reconfigure-mig.sh: "Skipping ... (no-exist)").
var migManagerHostGPUClients = []string{
	"nvsm.service", "nvsm-mqtt.service", "nvsm-core.service", "nvsm-api-gateway.service",
	"nvsm-notifier.service", "nv_peer_mem.service", "nvidia-dcgm.service", "dcgm-exporter.service",
}

// migManagerGPUClients renders the gpu-clients file.
func migManagerGPUClients() string {
	var b strings.Builder
	b.WriteString("version: v1\nsystemd-services:\n")
	for _, s := range migManagerHostGPUClients {
		fmt.Fprintf(&b, "- %s\n", s)
	}
	return b.String()
}

// installMIGManager registers the MIG Manager on the plan's DriverOnly MIG
// pools: its ServiceAccount, RBAC, gpu-clients ConfigMap and DaemonSet,
// which waits for its RBAC and for mig-parted-config (migConfig).
func (c *GPUStack) installMIGManager(ctx *pulumi.Context, name string, ns pulumi.StringOutput, spec Spec, p plan, migConfig pulumi.Resource) error {
	parent := pulumi.Parent(c)
	sa, err := corev1.NewServiceAccount(ctx, name+"-mig-manager", &corev1.ServiceAccountArgs{
		Metadata: &metav1.ObjectMetaArgs{Name: pulumi.String(MIGManagerName), Namespace: ns},
	}, parent)
	if err != nil {
		return err
	}
	cr, err := rbacv1.NewClusterRole(ctx, name+"-mig-manager", migManagerClusterRoleArgs(), parent)
	if err != nil {
		return err
	}
	crb, err := rbacv1.NewClusterRoleBinding(ctx, name+"-mig-manager", &rbacv1.ClusterRoleBindingArgs{
		Metadata: &metav1.ObjectMetaArgs{Name: pulumi.String(MIGManagerName)},
		RoleRef:  migManagerRoleRef("ClusterRole"),
		Subjects: migManagerSubjects(ns),
	}, parent)
	if err != nil {
		return err
	}
	role, err := rbacv1.NewRole(ctx, name+"-mig-manager", migManagerRoleArgs(ns), parent)
	if err != nil {
		return err
	}
	rb, err := rbacv1.NewRoleBinding(ctx, name+"-mig-manager", &rbacv1.RoleBindingArgs{
		Metadata: &metav1.ObjectMetaArgs{Name: pulumi.String(MIGManagerName), Namespace: ns},
		RoleRef:  migManagerRoleRef("Role"),
		Subjects: migManagerSubjects(ns),
	}, parent)
	if err != nil {
		return err
	}
	clients, err := corev1.NewConfigMap(ctx, name+"-mig-manager-gpu-clients", &corev1.ConfigMapArgs{
		Metadata: &metav1.ObjectMetaArgs{Name: pulumi.String(MIGManagerGPUClientsName), Namespace: ns},
		Data:     pulumi.StringMap{MIGManagerGPUClientsFile: pulumi.String(migManagerGPUClients())},
	}, parent)
	if err != nil {
		return err
	}
	own := []pulumi.Resource{sa, cr, crb, role, rb, clients}
	ds, err := appsv1.NewDaemonSet(ctx, name+"-mig-manager", migManagerArgs(ns, spec.MIGManagerImage, p.migManagerPools, p.migManagerTaints),
		parent, pulumi.DependsOn(append([]pulumi.Resource{migConfig}, own...)))
	if err != nil {
		return err
	}
	for _, r := range append(own, ds) {
		c.keep(r)
	}
	return nil
}

func migManagerRoleRef(kind string) *rbacv1.RoleRefArgs {
	return &rbacv1.RoleRefArgs{ApiGroup: pulumi.String("rbac.authorization.k8s.io"), Kind: pulumi.String(kind), Name: pulumi.String(MIGManagerName)}
}

func migManagerSubjects(ns pulumi.StringInput) rbacv1.SubjectArray {
	return rbacv1.SubjectArray{rbacv1.SubjectArgs{Kind: pulumi.String("ServiceAccount"), Name: pulumi.String(MIGManagerName), Namespace: ns}}
}

// migManagerClusterRoleArgs lets the manager read the nvidia.com/mig.config
// label of its node and write nvidia.com/mig.config.state and the
// nvidia.com/gpu.deploy.* labels: nodes get, list, watch, update, patch
// (the GPU Operator's assets/state-mig-manager/0210_clusterrole.yaml).
// Nothing else cluster-wide; the upstream standalone example's "every verb
// on every core resource" is narrowed to this.
func migManagerClusterRoleArgs() *rbacv1.ClusterRoleArgs {
	return &rbacv1.ClusterRoleArgs{
		Metadata: &metav1.ObjectMetaArgs{Name: pulumi.String(MIGManagerName)},
		Rules: rbacv1.PolicyRuleArray{rbacv1.PolicyRuleArgs{
			ApiGroups: pulumi.StringArray{pulumi.String("")},
			Resources: pulumi.StringArray{pulumi.String("nodes")},
			Verbs:     pulumi.ToStringArray([]string{"get", "list", "watch", "update", "patch"}),
		}},
	}
}

// migManagerRoleArgs lets the manager wait for and delete the GPU client
// pods of its namespace on its node across a change (reconfigure-mig.sh
// `kubectl wait --for=delete pod` and `kubectl delete pod` in
// DEFAULT_GPU_CLIENTS_NAMESPACE; the GPU Operator grants pods in its
// namespace in assets/state-mig-manager/0200_role.yaml).
func migManagerRoleArgs(ns pulumi.StringInput) *rbacv1.RoleArgs {
	return &rbacv1.RoleArgs{
		Metadata: &metav1.ObjectMetaArgs{Name: pulumi.String(MIGManagerName), Namespace: ns},
		Rules: rbacv1.PolicyRuleArray{rbacv1.PolicyRuleArgs{
			ApiGroups: pulumi.StringArray{pulumi.String("")},
			Resources: pulumi.StringArray{pulumi.String("pods")},
			Verbs:     pulumi.ToStringArray([]string{"get", "list", "watch", "delete"}),
		}},
	}
}

// migManagerTolerations tolerates exactly the given taints (those of the
// MIG Manager's pools), so the manager runs on them and nowhere else needs
// it to.
func migManagerTolerations(taints []gpupool.Taint) corev1.TolerationArray {
	out := corev1.TolerationArray{}
	for _, t := range taints {
		out = append(out, corev1.TolerationArgs{
			Key: pulumi.String(t.Key), Operator: pulumi.String("Equal"), Value: pulumi.String(t.Value), Effect: pulumi.String(t.Effect),
		})
	}
	return out
}

// migManagerArgs is the MIG Manager DaemonSet on the given pools, shaped as
// NVIDIA's standalone example for drivers installed on the host (which is
// what AKS does on DriverOnly pools): privileged with host PID and IPC,
// the host's /sys and root file system, mig-parted-config as CONFIG_FILE,
// the host GPU clients it may stop, no reboot (WITH_REBOOT false: AKS owns
// the node's lifecycle), and the GPU client pods looked for in its own
// namespace (DEFAULT_GPU_CLIENTS_NAMESPACE from metadata.namespace, as the
// GPU Operator sets it), where aksml's DCGM exporter runs.
func migManagerArgs(namespace pulumi.StringInput, image string, pools []string, taints []gpupool.Taint) *appsv1.DaemonSetArgs {
	labels := pulumi.StringMap{NameLabel: pulumi.String(MIGManagerName)}
	nodeSelector, affinity := gpuNodeScheduling(pools, "")
	env := corev1.EnvVarArray{
		fieldEnv("NODE_NAME", "spec.nodeName"),
		corev1.EnvVarArgs{Name: pulumi.String("CONFIG_FILE"), Value: pulumi.String(MIGManagerConfigDir + "/" + MIGConfigFile)},
		corev1.EnvVarArgs{Name: pulumi.String("GPU_CLIENTS_FILE"), Value: pulumi.String(migManagerGPUClientsDir + "/" + MIGManagerGPUClientsFile)},
		corev1.EnvVarArgs{Name: pulumi.String("HOST_ROOT_MOUNT"), Value: pulumi.String(MIGManagerHostRoot)},
		corev1.EnvVarArgs{Name: pulumi.String("HOST_NVIDIA_DIR"), Value: pulumi.String("/usr/local/nvidia")},
		corev1.EnvVarArgs{Name: pulumi.String("HOST_KUBELET_SYSTEMD_SERVICE"), Value: pulumi.String("kubelet.service")},
		corev1.EnvVarArgs{Name: pulumi.String("HOST_MIG_MANAGER_STATE_FILE"), Value: pulumi.String("/etc/systemd/system/nvidia-mig-manager.service.d/override.conf")},
		fieldEnv("DEFAULT_GPU_CLIENTS_NAMESPACE", "metadata.namespace"),
		corev1.EnvVarArgs{Name: pulumi.String("WITH_SHUTDOWN_HOST_GPU_CLIENTS"), Value: pulumi.String("true")},
		corev1.EnvVarArgs{Name: pulumi.String("WITH_REBOOT"), Value: pulumi.String("false")},
	}
	return nodeAgent(MIGManagerName, namespace, labels, &metav1.ObjectMetaArgs{Labels: labels}, &corev1.PodSpecArgs{
		ServiceAccountName: pulumi.String(MIGManagerName),
		PriorityClassName:  pulumi.String(SystemNodeCritical),
		HostPID:            pulumi.Bool(true),
		HostIPC:            pulumi.Bool(true),
		NodeSelector:       nodeSelector,
		Affinity:           affinity,
		Tolerations:        migManagerTolerations(taints),
		Containers: corev1.ContainerArray{
			corev1.ContainerArgs{
				Name:            pulumi.String("nvidia-mig-manager"),
				Image:           pulumi.String(image),
				Env:             env,
				SecurityContext: &corev1.SecurityContextArgs{Privileged: pulumi.Bool(true)},
				VolumeMounts: corev1.VolumeMountArray{
					corev1.VolumeMountArgs{Name: pulumi.String("host-sys"), MountPath: pulumi.String("/sys")},
					corev1.VolumeMountArgs{Name: pulumi.String("host-root"), MountPath: pulumi.String(MIGManagerHostRoot), MountPropagation: pulumi.String("HostToContainer")},
					corev1.VolumeMountArgs{Name: pulumi.String("mig-parted-config"), MountPath: pulumi.String(MIGManagerConfigDir)},
					corev1.VolumeMountArgs{Name: pulumi.String("gpu-clients"), MountPath: pulumi.String(migManagerGPUClientsDir)},
				},
			},
		},
		Volumes: corev1.VolumeArray{
			hostDirVolume("host-sys", "/sys"),
			hostDirVolume("host-root", "/"),
			corev1.VolumeArgs{Name: pulumi.String("mig-parted-config"), ConfigMap: &corev1.ConfigMapVolumeSourceArgs{Name: pulumi.String(MIGConfigMapName)}},
			corev1.VolumeArgs{Name: pulumi.String("gpu-clients"), ConfigMap: &corev1.ConfigMapVolumeSourceArgs{Name: pulumi.String(MIGManagerGPUClientsName)}},
		},
	})
}

func fieldEnv(name, path string) corev1.EnvVarArgs {
	return corev1.EnvVarArgs{
		Name:      pulumi.String(name),
		ValueFrom: &corev1.EnvVarSourceArgs{FieldRef: &corev1.ObjectFieldSelectorArgs{FieldPath: pulumi.String(path)}},
	}
}

func hostDirVolume(name, path string) corev1.VolumeArgs {
	return corev1.VolumeArgs{Name: pulumi.String(name), HostPath: &corev1.HostPathVolumeSourceArgs{Path: pulumi.String(path), Type: pulumi.String("Directory")}}
}
