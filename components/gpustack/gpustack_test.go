package gpustack

import (
	"strings"
	"sync"
	"testing"

	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/field/fieldtest"
	"github.com/aksml/aksml/components/gpupool"

	"github.com/aksml/aksml/components/internal/mocktest"
)

const (
	tokenComponent = ComponentType
	tokenDaemonSet = "kubernetes:apps/v1:DaemonSet"
	tokenConfigMap = "kubernetes:core/v1:ConfigMap"
	tokenService   = "kubernetes:core/v1:Service"
	tokenNamespace = "kubernetes:core/v1:Namespace"
	tokenSA        = "kubernetes:core/v1:ServiceAccount"
	tokenCR        = "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole"
	tokenCRB       = "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding"
	tokenRole      = "kubernetes:rbac.authorization.k8s.io/v1:Role"
	tokenRB        = "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding"
)

// guideMIGConfig is the mig-parted-config config.yaml of AKS MLOps best
// practices (https://learn.microsoft.com/azure/aks/best-practices-ml-ops), verbatim.
const guideMIGConfig = `version: v1
mig-configs:
  all-disabled:
  - devices: all
    mig-enabled: false
  hptuning-1g10gb:
  - devices: all
    mig-enabled: true
    mig-devices:
      "1g.10gb": 7
`

// stackInput is the raw config a test installs: the pools and the spec.
type stackInput struct {
	Pools []gpupool.Spec
	Spec  Spec
}

// resolve resolves in at the default config keys; the problems travel in
// the result.
func resolve(in stackInput) *Resolved {
	pools, _ := gpupool.Resolve(in.Pools, DefaultPoolsConfigPath)
	r, _ := Resolve(in.Spec, pools, DefaultConfigPath, DefaultPoolsConfigPath)
	return r
}

func install(t *testing.T, in stackInput) (*mocktest.Mocks, *GPUStack, error) {
	t.Helper()
	var stack *GPUStack
	m, err := mocktest.Run(t, func(ctx *pulumi.Context) error {
		s, err := NewGPUStack(ctx, "gpu", &GPUStackArgs{Resolved: resolve(in)})
		stack = s
		return err
	})
	return m, stack, err
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// pool is a valid pool: autoscaled to 2 nodes, or 2 nodes when Managed
// (managed GPU pools have a count and no autoscaler).
func pool(name, vmSize string, stack gpupool.GPUStack) gpupool.Spec {
	if stack == gpupool.GPUStackManaged {
		n := 2
		return gpupool.Spec{Name: name, VMSize: vmSize, Workload: gpupool.WorkloadTraining, Count: &n, GPUStack: stack}
	}
	return gpupool.Spec{Name: name, VMSize: vmSize, Workload: gpupool.WorkloadTraining, MaxCount: 2, GPUStack: stack}
}

func migPool(name, vmSize string, stack gpupool.GPUStack, strategy gpupool.MIGStrategy) gpupool.Spec {
	p := pool(name, vmSize, stack)
	p.MIG = &gpupool.MIGSpec{Strategy: strategy, Profile: gpupool.MIG1g}
	return p
}

const (
	t4   = "Standard_NC4as_T4_v3"
	a100 = "Standard_NC24ads_A100_v4"
	nd40 = "Standard_ND96asr_v4"
)

func TestAllManagedPoolsGetNoResources(t *testing.T) {
	for name, pools := range map[string][]gpupool.Spec{
		"no pools": nil,
		"all managed": {
			pool("gpua", t4, gpupool.GPUStackManaged),
			migPool("gpumig", a100, gpupool.GPUStackManaged, gpupool.MIGStrategyMixed),
		},
	} {
		t.Run(name, func(t *testing.T) {
			m, s, err := install(t, stackInput{Pools: pools, Spec: Spec{TimeSlicing: &TimeSlicingSpec{Replicas: 4}}})
			require.NoError(t, err)
			require.Len(t, m.All(), 1, "only the component itself is registered")
			assert.Equal(t, tokenComponent, m.All()[0].Type)
			assert.Empty(t, s.DevicePluginPools)
			assert.Empty(t, s.DCGMExporterPools)
			assert.Empty(t, s.MIGLayouts)
		})
	}
}

func TestNodeAgentsSkipManagedAndByoPools(t *testing.T) {
	spot := pool("spot", t4, gpupool.GPUStackDriverOnly)
	spot.Priority = gpupool.PrioritySpot
	m, s, err := install(t, stackInput{Pools: []gpupool.Spec{
		pool("managed", t4, gpupool.GPUStackManaged),
		pool("train", t4, ""), // DriverOnly by default
		spot,
		pool("byo", t4, gpupool.GPUStackNone),
	}})
	require.NoError(t, err)
	assert.Equal(t, []string{"spot", "train"}, s.DevicePluginPools)
	assert.Equal(t, []string{"spot", "train"}, s.DCGMExporterPools)

	for _, ds := range []string{"gpu-device-plugin", "gpu-dcgm-exporter"} {
		t.Run(ds, func(t *testing.T) {
			spec := mocktest.Get(m.Named(t, tokenDaemonSet, ds).Inputs, "spec", "template", "spec")
			assert.Equal(t, map[string]any{"accelerator": "nvidia"}, mocktest.Get(spec, "nodeSelector"))
			terms := mocktest.Get(spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms").([]any)
			require.Len(t, terms, 1)
			exprs := mocktest.Get(terms[0], "matchExpressions").([]any)
			require.Len(t, exprs, 1)
			assert.Equal(t, "kubernetes.azure.com/agentpool", mocktest.Get(exprs[0], "key"))
			assert.Equal(t, "In", mocktest.Get(exprs[0], "operator"))
			pools := strs(mocktest.Get(exprs[0], "values"))
			assert.Equal(t, []string{"spot", "train"}, pools)
			assert.NotContains(t, pools, "managed", "never on a Managed pool")
			assert.NotContains(t, pools, "byo", "None pools bring their own device plugin")
		})
	}
}

func TestDevicePluginIsTheBestPracticeDaemonSet(t *testing.T) {
	m, _, err := install(t, stackInput{Pools: []gpupool.Spec{pool("train", t4, gpupool.GPUStackDriverOnly)}})
	require.NoError(t, err)
	require.Len(t, m.ByType(tokenDaemonSet), 2)

	ds := m.Named(t, tokenDaemonSet, "gpu-device-plugin").Inputs
	labels := map[string]any{"app.kubernetes.io/name": "nvidia-device-plugin"}
	assert.Equal(t, "nvidia-device-plugin", mocktest.Get(ds, "metadata", "name"))
	assert.Equal(t, "kube-system", mocktest.Get(ds, "metadata", "namespace"))
	assert.Equal(t, labels, mocktest.Get(ds, "metadata", "labels"))
	assert.Equal(t, labels, mocktest.Get(ds, "spec", "selector", "matchLabels"))
	assert.Equal(t, "RollingUpdate", mocktest.Get(ds, "spec", "updateStrategy", "type"))
	assert.Equal(t, map[string]any{"labels": labels}, mocktest.Get(ds, "spec", "template", "metadata"), "no annotations without a config file")

	pod := mocktest.Get(ds, "spec", "template", "spec")
	assert.Equal(t, "system-node-critical", mocktest.Get(pod, "priorityClassName"))
	assert.Equal(t, []any{map[string]any{"operator": "Exists"}}, mocktest.Get(pod, "tolerations"))

	containers := mocktest.Get(pod, "containers").([]any)
	require.Len(t, containers, 1)
	c := containers[0]
	assert.Equal(t, "nvidia-device-plugin", mocktest.Get(c, "name"))
	image := mocktest.Get(c, "image").(string)
	assert.Equal(t, "nvcr.io/nvidia/k8s-device-plugin:v0.17.1", image)
	assert.False(t, strings.HasSuffix(image, ":latest"))
	assert.Equal(t, []string{"--fail-on-init-error=false"}, strs(mocktest.Get(c, "args")))
	assert.Equal(t, map[string]any{"allowPrivilegeEscalation": false, "capabilities": map[string]any{"drop": []any{"ALL"}}}, mocktest.Get(c, "securityContext"))
	assert.Equal(t, []any{map[string]any{"name": "device-plugin", "mountPath": "/var/lib/kubelet/device-plugins"}}, mocktest.Get(c, "volumeMounts"))
	assert.Equal(t, []any{map[string]any{
		"name":     "device-plugin",
		"hostPath": map[string]any{"path": "/var/lib/kubelet/device-plugins", "type": "Directory"},
	}}, mocktest.Get(pod, "volumes"))
}

func TestDCGMExporterMatchesThePodMonitor(t *testing.T) {
	m, s, err := install(t, stackInput{Pools: []gpupool.Spec{pool("train", t4, gpupool.GPUStackDriverOnly)}})
	require.NoError(t, err)

	ns := m.Named(t, tokenNamespace, "gpu-namespace").Inputs
	assert.Equal(t, "gpu-operator", mocktest.Get(ns, "metadata", "name"))
	assert.Equal(t, "privileged", mocktest.Get(ns, "metadata", "labels", "pod-security.kubernetes.io/enforce"))

	ds := m.Named(t, tokenDaemonSet, "gpu-dcgm-exporter").Inputs
	labels := map[string]any{"app": "nvidia-dcgm-exporter"}
	assert.Equal(t, "nvidia-dcgm-exporter", mocktest.Get(ds, "metadata", "name"))
	assert.Equal(t, "gpu-operator", mocktest.Get(ds, "metadata", "namespace"))
	assert.Equal(t, labels, mocktest.Get(ds, "spec", "selector", "matchLabels"))
	assert.Equal(t, labels, mocktest.Get(ds, "spec", "template", "metadata", "labels"))
	assert.Equal(t, map[string]string{"app": "nvidia-dcgm-exporter"}, DCGMExporterLabels())

	pod := mocktest.Get(ds, "spec", "template", "spec")
	assert.Equal(t, "system-node-critical", mocktest.Get(pod, "priorityClassName"))
	assert.Equal(t, false, mocktest.Get(pod, "automountServiceAccountToken"))
	assert.Equal(t, []any{map[string]any{"operator": "Exists"}}, mocktest.Get(pod, "tolerations"), "tolerates the GPU and spot taints")
	c := mocktest.Get(pod, "containers", 0)
	assert.Equal(t, DCGMExporterImage, mocktest.Get(c, "image"))
	assert.Regexp(t, `^nvcr\.io/nvidia/k8s/dcgm-exporter:4\.[0-9.]+-4\.[0-9.]+-ubuntu[0-9.]+$`, mocktest.Get(c, "image"))
	assert.Equal(t, []any{map[string]any{"name": "metrics", "containerPort": 9400.0, "protocol": "TCP"}}, mocktest.Get(c, "ports"))
	assert.Equal(t, float64(DCGMExporterPort), mocktest.Get(c, "ports", 0, "containerPort"))
	assert.Equal(t, DCGMExporterPortName, mocktest.Get(c, "ports", 0, "name"))
	assert.Equal(t, map[string]any{
		"runAsUser":    0.0,
		"runAsNonRoot": false,
		"capabilities": map[string]any{"drop": []any{"ALL"}, "add": []any{"SYS_ADMIN"}},
	}, mocktest.Get(c, "securityContext"), "only CAP_SYS_ADMIN, and no allowPrivilegeEscalation=false the API server would reject with it")
	assert.Equal(t, map[string]any{
		"requests": map[string]any{"cpu": "100m", "memory": "256Mi"},
		"limits":   map[string]any{"cpu": "500m", "memory": "1Gi"},
	}, mocktest.Get(c, "resources"))
	assert.Equal(t, "metrics", mocktest.Get(c, "livenessProbe", "httpGet", "port"))
	assert.Equal(t, "/var/lib/kubelet/pod-resources", mocktest.Get(c, "volumeMounts", 0, "mountPath"))
	assert.Equal(t, true, mocktest.Get(c, "volumeMounts", 0, "readOnly"))
	assert.Equal(t, "Directory", mocktest.Get(pod, "volumes", 0, "hostPath", "type"))

	svc := m.Named(t, tokenService, "gpu-dcgm-exporter").Inputs
	assert.Equal(t, "gpu-operator", mocktest.Get(svc, "metadata", "namespace"))
	assert.Equal(t, labels, mocktest.Get(svc, "spec", "selector"))
	assert.Equal(t, []any{map[string]any{"name": "metrics", "port": 9400.0, "targetPort": "metrics", "protocol": "TCP"}}, mocktest.Get(svc, "spec", "ports"))
	assert.Equal(t, "true", mocktest.Get(svc, "metadata", "annotations", "pulumi.com/skipAwait"),
		"pools at zero nodes leave the Service without endpoints; pulumi up must not wait for them")

	var wg sync.WaitGroup
	wg.Add(1)
	var got string
	s.Namespace.ApplyT(func(v string) string { got = v; wg.Done(); return v })
	wg.Wait()
	assert.Equal(t, "gpu-operator", got)
}

func TestMIGConfigMapIsTheBestPracticeLayout(t *testing.T) {
	m, s, err := install(t, stackInput{Pools: []gpupool.Spec{
		migPool("hptuning", a100, gpupool.GPUStackDriverOnly, gpupool.MIGStrategyMixed),
	}})
	require.NoError(t, err)
	assert.Equal(t, []string{"hptuning-1g10gb"}, s.MIGLayouts)

	cm := m.Named(t, tokenConfigMap, "gpu-mig-config").Inputs
	assert.Equal(t, "mig-parted-config", mocktest.Get(cm, "metadata", "name"))
	assert.Equal(t, "gpu-operator", mocktest.Get(cm, "metadata", "namespace"))
	config := mocktest.Get(cm, "data", "config.yaml").(string)
	assert.Equal(t, guideMIGConfig, config, "byte for byte the best practices' config.yaml")

	var parsed, documented map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(config), &parsed))
	require.NoError(t, yaml.Unmarshal([]byte(guideMIGConfig), &documented))
	assert.Equal(t, documented, parsed)

	args := strs(mocktest.Get(m.Named(t, tokenDaemonSet, "gpu-device-plugin").Inputs, "spec", "template", "spec", "containers", 0, "args"))
	assert.Equal(t, []string{"--fail-on-init-error=false", "--mig-strategy=mixed"}, args)
}

func TestMIGConfigMapListsEveryUnmanagedLayout(t *testing.T) {
	m, s, err := install(t, stackInput{Pools: []gpupool.Spec{
		migPool("hpa", a100, gpupool.GPUStackDriverOnly, gpupool.MIGStrategySingle),
		migPool("hpb", a100, gpupool.GPUStackDriverOnly, gpupool.MIGStrategySingle),
		migPool("operator", nd40, gpupool.GPUStackNone, gpupool.MIGStrategyMixed),
		migPool("managed", nd40, gpupool.GPUStackManaged, gpupool.MIGStrategyMixed),
		pool("full", a100, gpupool.GPUStackNone),
	}})
	require.NoError(t, err)
	assert.Equal(t, []string{"hptuning-1g10gb", "hptuning-1g5gb"}, s.MIGLayouts)

	var parsed struct {
		Version    string `yaml:"version"`
		MIGConfigs map[string][]struct {
			Devices    string         `yaml:"devices"`
			MIGEnabled bool           `yaml:"mig-enabled"`
			MIGDevices map[string]int `yaml:"mig-devices"`
		} `yaml:"mig-configs"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(mocktest.Get(m.Named(t, tokenConfigMap, "gpu-mig-config").Inputs, "data", "config.yaml").(string)), &parsed))
	assert.Equal(t, "v1", parsed.Version)
	require.Len(t, parsed.MIGConfigs, 3, "all-disabled plus one entry per distinct unmanaged layout")
	assert.False(t, parsed.MIGConfigs["all-disabled"][0].MIGEnabled)
	assert.Equal(t, map[string]int{"1g.10gb": 7}, parsed.MIGConfigs["hptuning-1g10gb"][0].MIGDevices)
	assert.Equal(t, map[string]int{"1g.5gb": 7}, parsed.MIGConfigs["hptuning-1g5gb"][0].MIGDevices)
	for name, l := range parsed.MIGConfigs {
		assert.Equal(t, "all", l[0].Devices, name)
	}

	args := strs(mocktest.Get(m.Named(t, tokenDaemonSet, "gpu-device-plugin").Inputs, "spec", "template", "spec", "containers", 0, "args"))
	assert.Contains(t, args, "--mig-strategy=single")
}

func TestTimeSlicingConfig(t *testing.T) {
	m, _, err := install(t, stackInput{
		Pools: []gpupool.Spec{pool("dev", t4, gpupool.GPUStackDriverOnly)},
		Spec:  Spec{TimeSlicing: &TimeSlicingSpec{Replicas: 4}},
	})
	require.NoError(t, err)

	cm := m.Named(t, tokenConfigMap, "gpu-device-plugin-config").Inputs
	assert.Equal(t, "nvidia-device-plugin-config", mocktest.Get(cm, "metadata", "name"))
	assert.Equal(t, "kube-system", mocktest.Get(cm, "metadata", "namespace"))
	config := mocktest.Get(cm, "data", "config.yaml").(string)
	var parsed map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(config), &parsed))
	assert.Equal(t, "v1", parsed["version"])
	assert.Equal(t, true, mocktest.Get(parsed, "sharing", "timeSlicing", "failRequestsGreaterThanOne"))
	assert.Equal(t, []any{map[string]any{"name": "nvidia.com/gpu", "replicas": 4}}, mocktest.Get(parsed, "sharing", "timeSlicing", "resources"))

	ds := m.Named(t, tokenDaemonSet, "gpu-device-plugin").Inputs
	assert.Equal(t, configHash(config), mocktest.Get(ds, "spec", "template", "metadata", "annotations", ConfigHashAnnotation))
	c := mocktest.Get(ds, "spec", "template", "spec", "containers", 0)
	assert.Equal(t, []string{"--fail-on-init-error=false", "--config-file=/etc/nvidia-device-plugin/config.yaml"}, strs(mocktest.Get(c, "args")))
	assert.Equal(t, map[string]any{"name": "config", "mountPath": "/etc/nvidia-device-plugin", "readOnly": true}, mocktest.Get(c, "volumeMounts", 1))
	assert.Equal(t, "nvidia-device-plugin-config", mocktest.Get(ds, "spec", "template", "spec", "volumes", 1, "configMap", "name"))
	assert.Equal(t, 4, Spec{TimeSlicing: &TimeSlicingSpec{Replicas: 4}}.GPUReplicas())
	assert.Equal(t, 1, Spec{}.GPUReplicas())
}

func TestOptionalPieces(t *testing.T) {
	no := false
	m, s, err := install(t, stackInput{
		Pools: []gpupool.Spec{migPool("hp", a100, gpupool.GPUStackDriverOnly, gpupool.MIGStrategyMixed)},
		Spec:  Spec{DCGMExporter: &no, CreateNamespace: &no, Namespace: "nvidia-system"},
	})
	require.NoError(t, err)
	assert.Empty(t, s.DCGMExporterPools)
	assert.Empty(t, m.ByType(tokenService))
	assert.Empty(t, m.ByType(tokenNamespace), "an existing namespace is not created")
	require.Len(t, m.ByType(tokenDaemonSet), 2, "the device plugin and the MIG Manager, no DCGM exporter")
	assert.Equal(t, "nvidia-system", mocktest.Get(m.Named(t, tokenConfigMap, "gpu-mig-config").Inputs, "metadata", "namespace"))
	assert.Equal(t, "nvidia-system", mocktest.Get(m.Named(t, tokenDaemonSet, "gpu-mig-manager").Inputs, "metadata", "namespace"), "the MIG Manager follows the GPU-stack namespace")
}

func TestUsesTheGivenProvider(t *testing.T) {
	m, err := mocktest.Run(t, func(ctx *pulumi.Context) error {
		p, err := kubernetes.NewProvider(ctx, "existing", &kubernetes.ProviderArgs{})
		if err != nil {
			return err
		}
		_, err = NewGPUStack(ctx, "gpu", &GPUStackArgs{Provider: p, Resolved: resolve(stackInput{Pools: []gpupool.Spec{pool("train", t4, gpupool.GPUStackDriverOnly)}})})
		return err
	})
	require.NoError(t, err)
	var checked int
	for _, r := range m.All() {
		if strings.HasPrefix(r.Type, "kubernetes:") {
			checked++
			assert.Contains(t, r.Provider, "::existing::", r.Name)
		}
	}
	assert.Equal(t, 4, checked, "device plugin, namespace, DCGM DaemonSet and Service")
}

func TestCallerPoolsAreNotMutated(t *testing.T) {
	pools := []gpupool.Spec{{Name: "hp", VMSize: a100, Workload: gpupool.WorkloadTraining, MaxCount: 1, MIG: &gpupool.MIGSpec{}}}
	_, _, err := install(t, stackInput{Pools: pools})
	require.NoError(t, err)
	assert.Empty(t, pools[0].GPUStack)
	assert.Nil(t, pools[0].MinCount)
	assert.Empty(t, pools[0].MIG.Strategy)
}

func TestNewGPUStackValidatesBeforeRegistering(t *testing.T) {
	m, _, err := install(t, stackInput{
		Pools: []gpupool.Spec{
			migPool("hpa", a100, gpupool.GPUStackDriverOnly, gpupool.MIGStrategySingle),
			migPool("hpb", a100, gpupool.GPUStackDriverOnly, gpupool.MIGStrategyMixed),
			{Name: "Bad", VMSize: t4, Workload: gpupool.WorkloadTraining, MaxCount: 1},
		},
		Spec: Spec{TimeSlicing: &TimeSlicingSpec{Replicas: 1}},
	})
	require.Error(t, err)
	for _, want := range []string{"3 problems", "gpuStack.timeSlicing.replicas", "gpuPools[1].mig.strategy", "gpuPools[2].name"} {
		assert.Contains(t, err.Error(), want)
	}
	assert.Empty(t, m.All(), "nothing is registered when the configuration is invalid")
}

func TestSpecValidate(t *testing.T) {
	digest := "nvcr.io/nvidia/k8s-device-plugin@sha256:" + strings.Repeat("a", 64)
	tests := []struct {
		name string
		in   Spec
		want []fieldtest.Want
	}{
		{"defaults", Spec{}, nil},
		{"custom", Spec{Namespace: "nvidia-system", DevicePluginNamespace: "gpu-system", DevicePluginImage: digest, DCGMExporterImage: "myacr.azurecr.io:443/nvidia/dcgm-exporter:4.2.3-4.1.3-ubuntu22.04", TimeSlicing: &TimeSlicingSpec{Replicas: 4}}, nil},
		{"namespace invalid", Spec{Namespace: "GPU_Operator"}, []fieldtest.Want{fieldtest.Invalid("gpuStack.namespace")}},
		{"namespace too long", Spec{Namespace: strings.Repeat("a", 64)}, []fieldtest.Want{fieldtest.Invalid("gpuStack.namespace")}},
		{"device plugin namespace invalid", Spec{DevicePluginNamespace: "-kube"}, []fieldtest.Want{fieldtest.Invalid("gpuStack.devicePluginNamespace")}},
		{"device plugin image latest", Spec{DevicePluginImage: "nvcr.io/nvidia/k8s-device-plugin:latest"}, []fieldtest.Want{fieldtest.Invalid("gpuStack.devicePluginImage")}},
		{"device plugin image untagged", Spec{DevicePluginImage: "myregistry:5000/k8s-device-plugin"}, []fieldtest.Want{fieldtest.Invalid("gpuStack.devicePluginImage")}},
		{"dcgm image with spaces", Spec{DCGMExporterImage: "dcgm exporter:1"}, []fieldtest.Want{fieldtest.Invalid("gpuStack.dcgmExporterImage")}},
		{"dcgm image bad tag", Spec{DCGMExporterImage: "nvcr.io/nvidia/k8s/dcgm-exporter:-x"}, []fieldtest.Want{fieldtest.Invalid("gpuStack.dcgmExporterImage")}},
		{"dcgm image short digest", Spec{DCGMExporterImage: "nvcr.io/nvidia/k8s/dcgm-exporter@sha256:abc"}, []fieldtest.Want{fieldtest.Invalid("gpuStack.dcgmExporterImage")}},
		{"mig manager image latest", Spec{MIGManagerImage: "nvcr.io/nvidia/cloud-native/k8s-mig-manager:latest"}, []fieldtest.Want{fieldtest.Invalid("gpuStack.migManagerImage")}},
		{"time slicing one replica", Spec{TimeSlicing: &TimeSlicingSpec{Replicas: 1}}, []fieldtest.Want{fieldtest.Invalid("gpuStack.timeSlicing.replicas")}},
		{"time slicing too many", Spec{TimeSlicing: &TimeSlicingSpec{Replicas: 65}}, []fieldtest.Want{fieldtest.Invalid("gpuStack.timeSlicing.replicas")}},
		{"every problem at once", Spec{Namespace: "A", DevicePluginNamespace: "B", DevicePluginImage: "x:latest", DCGMExporterImage: "y", TimeSlicing: &TimeSlicingSpec{}},
			[]fieldtest.Want{fieldtest.Invalid("gpuStack.namespace"), fieldtest.Invalid("gpuStack.devicePluginNamespace"), fieldtest.Invalid("gpuStack.devicePluginImage"), fieldtest.Invalid("gpuStack.dcgmExporterImage"), fieldtest.Invalid("gpuStack.timeSlicing.replicas")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.in
			s.Default()
			err := s.Validate(field.NewPath(DefaultConfigPath)).ToAggregate()
			fieldtest.Equal(t, err, tt.want...)
		})
	}
}

func TestValidatePools(t *testing.T) {
	tests := []struct {
		name  string
		pools []gpupool.Spec
		want  []fieldtest.Want
	}{
		{"no MIG", []gpupool.Spec{pool("a", t4, gpupool.GPUStackDriverOnly)}, nil},
		{"same strategy", []gpupool.Spec{
			migPool("a", a100, gpupool.GPUStackDriverOnly, gpupool.MIGStrategyMixed),
			migPool("b", nd40, gpupool.GPUStackDriverOnly, gpupool.MIGStrategyMixed),
		}, nil},
		{"managed and none pools have their own plugin", []gpupool.Spec{
			migPool("a", a100, gpupool.GPUStackDriverOnly, gpupool.MIGStrategySingle),
			migPool("b", a100, gpupool.GPUStackManaged, gpupool.MIGStrategyMixed),
			migPool("c", a100, gpupool.GPUStackNone, gpupool.MIGStrategyMixed),
		}, nil},
		{"conflicting strategies", []gpupool.Spec{
			pool("full", t4, gpupool.GPUStackDriverOnly),
			migPool("a", a100, gpupool.GPUStackDriverOnly, gpupool.MIGStrategySingle),
			migPool("b", a100, gpupool.GPUStackDriverOnly, gpupool.MIGStrategyMixed),
		}, []fieldtest.Want{fieldtest.Invalid("gpuPools[2].mig.strategy")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resolved, _ := gpupool.Resolve(tt.pools, field.NewPath(DefaultPoolsConfigPath))
			err := ValidatePools(gpupool.Specs(resolved), field.NewPath(DefaultPoolsConfigPath)).ToAggregate()
			fieldtest.Equal(t, err, tt.want...)
		})
	}
}

func TestNeedsDevicePluginAndMIGConfig(t *testing.T) {
	resolved, _ := gpupool.Resolve([]gpupool.Spec{
		pool("default", t4, ""),
		pool("managed", t4, gpupool.GPUStackManaged),
		pool("byo", t4, gpupool.GPUStackNone),
		migPool("mig", a100, gpupool.GPUStackNone, gpupool.MIGStrategyMixed),
		migPool("migmanaged", a100, gpupool.GPUStackManaged, gpupool.MIGStrategyMixed),
		migPool("migdo", a100, "", gpupool.MIGStrategySingle),
	}, field.NewPath(DefaultPoolsConfigPath))
	pools := gpupool.Specs(resolved)
	var plugin, mig, manager []string
	for _, p := range pools {
		if NeedsDevicePlugin(p) {
			plugin = append(plugin, p.Name)
		}
		if NeedsMIGConfig(p) {
			mig = append(mig, p.Name)
		}
		if NeedsMIGManager(p) {
			manager = append(manager, p.Name)
		}
	}
	assert.Equal(t, []string{"default", "migdo"}, plugin)
	assert.Equal(t, []string{"mig", "migdo"}, mig)
	assert.Equal(t, []string{"migdo"}, manager, "the MIG Manager goes on DriverOnly MIG pools only")
}

// affinityExprs returns the match expressions of a DaemonSet's one required
// node selector term.
func affinityExprs(t *testing.T, ds map[string]any) []any {
	t.Helper()
	terms := mocktest.Get(ds, "spec", "template", "spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms").([]any)
	require.Len(t, terms, 1)
	return mocktest.Get(terms[0], "matchExpressions").([]any)
}

func TestMIGManagerRunsOnDriverOnlyMIGPoolsOnly(t *testing.T) {
	spotMIG := migPool("migspot", a100, gpupool.GPUStackDriverOnly, gpupool.MIGStrategyMixed)
	spotMIG.Priority = gpupool.PrioritySpot
	spotMIG.Workload = gpupool.WorkloadTraining
	m, s, err := install(t, stackInput{Pools: []gpupool.Spec{
		migPool("mig", a100, gpupool.GPUStackDriverOnly, gpupool.MIGStrategyMixed),
		spotMIG,
		migPool("migmanaged", a100, gpupool.GPUStackManaged, gpupool.MIGStrategyMixed),
		migPool("migbyo", nd40, gpupool.GPUStackNone, gpupool.MIGStrategyMixed),
		pool("full", t4, gpupool.GPUStackDriverOnly),
	}})
	require.NoError(t, err)
	assert.Equal(t, []string{"mig", "migspot"}, s.MIGManagerPools, "DriverOnly MIG pools only: not Managed (AKS partitions), not None (its GPU Operator does)")

	ds := m.Named(t, tokenDaemonSet, "gpu-mig-manager").Inputs
	assert.Equal(t, "aksml-mig-manager", mocktest.Get(ds, "metadata", "name"))
	assert.Equal(t, "gpu-operator", mocktest.Get(ds, "metadata", "namespace"), "in the GPU-stack namespace, next to mig-parted-config")
	pod := mocktest.Get(ds, "spec", "template", "spec")
	assert.Equal(t, "aksml-mig-manager", mocktest.Get(pod, "serviceAccountName"))
	assert.Equal(t, map[string]any{"accelerator": "nvidia"}, mocktest.Get(pod, "nodeSelector"))
	exprs := affinityExprs(t, ds)
	require.Len(t, exprs, 1)
	assert.Equal(t, map[string]any{"key": "kubernetes.azure.com/agentpool", "operator": "In", "values": []any{"mig", "migspot"}}, exprs[0])
	assert.Equal(t, []any{
		map[string]any{"key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal", "value": "spot", "effect": "NoSchedule"},
		map[string]any{"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
	}, mocktest.Get(pod, "tolerations"), "exactly the MIG pools' taints")

	c := mocktest.Get(pod, "containers", 0)
	assert.Equal(t, "nvcr.io/nvidia/cloud-native/k8s-mig-manager:v0.14.5", mocktest.Get(c, "image"))
	assert.Equal(t, true, mocktest.Get(c, "securityContext", "privileged"))
	env := map[string]any{}
	for _, e := range mocktest.Get(c, "env").([]any) {
		em := e.(map[string]any)
		if v, ok := em["value"]; ok {
			env[em["name"].(string)] = v
		} else {
			env[em["name"].(string)] = mocktest.Get(em, "valueFrom", "fieldRef", "fieldPath")
		}
	}
	assert.Equal(t, "/mig-parted-config/config.yaml", env["CONFIG_FILE"])
	assert.Equal(t, "spec.nodeName", env["NODE_NAME"])
	assert.Equal(t, "metadata.namespace", env["DEFAULT_GPU_CLIENTS_NAMESPACE"])
	assert.Equal(t, "false", env["WITH_REBOOT"])
	volumes := map[string]any{}
	for _, v := range mocktest.Get(pod, "volumes").([]any) {
		volumes[mocktest.Get(v, "name").(string)] = v
	}
	assert.Equal(t, "mig-parted-config", mocktest.Get(volumes["mig-parted-config"], "configMap", "name"), "consumes the ConfigMap aksml writes")
	assert.Equal(t, "aksml-mig-manager-gpu-clients", mocktest.Get(volumes["gpu-clients"], "configMap", "name"))
	m.Named(t, tokenConfigMap, "gpu-mig-manager-gpu-clients")

	assert.Equal(t, "aksml-mig-manager", mocktest.Get(m.Named(t, tokenSA, "gpu-mig-manager").Inputs, "metadata", "name"))
	assert.Equal(t, []any{map[string]any{
		"apiGroups": []any{""}, "resources": []any{"nodes"}, "verbs": []any{"get", "list", "watch", "update", "patch"},
	}}, mocktest.Get(m.Named(t, tokenCR, "gpu-mig-manager").Inputs, "rules"), "it labels its node, nothing else cluster-wide")
	assert.Equal(t, []any{map[string]any{
		"apiGroups": []any{""}, "resources": []any{"pods"}, "verbs": []any{"get", "list", "watch", "delete"},
	}}, mocktest.Get(m.Named(t, tokenRole, "gpu-mig-manager").Inputs, "rules"))
	for _, tok := range []string{tokenCRB, tokenRB} {
		b := m.Named(t, tok, "gpu-mig-manager").Inputs
		assert.Equal(t, []any{map[string]any{"kind": "ServiceAccount", "name": "aksml-mig-manager", "namespace": "gpu-operator"}}, mocktest.Get(b, "subjects"), tok)
		assert.Equal(t, "aksml-mig-manager", mocktest.Get(b, "roleRef", "name"), tok)
	}

	for ds, label := range map[string]string{"gpu-device-plugin": DeployDevicePluginLabel, "gpu-dcgm-exporter": DeployDCGMExporterLabel} {
		exprs := affinityExprs(t, m.Named(t, tokenDaemonSet, ds).Inputs)
		require.Len(t, exprs, 2, ds)
		assert.Equal(t, map[string]any{"key": label, "operator": "NotIn", "values": []any{"paused-for-mig-change"}}, exprs[1],
			"%s stops while the MIG Manager changes a node's layout", ds)
	}
}

func TestNoMIGManagerWithoutDriverOnlyMIGPool(t *testing.T) {
	for name, pools := range map[string][]gpupool.Spec{
		"no MIG pool":         {pool("full", t4, gpupool.GPUStackDriverOnly)},
		"Managed MIG pool":    {pool("full", t4, gpupool.GPUStackDriverOnly), migPool("migmanaged", a100, gpupool.GPUStackManaged, gpupool.MIGStrategyMixed)},
		"None MIG pool (BYO)": {pool("full", t4, gpupool.GPUStackDriverOnly), migPool("migbyo", a100, gpupool.GPUStackNone, gpupool.MIGStrategyMixed)},
	} {
		t.Run(name, func(t *testing.T) {
			m, s, err := install(t, stackInput{Pools: pools})
			require.NoError(t, err)
			assert.Empty(t, s.MIGManagerPools)
			for _, tok := range []string{tokenSA, tokenCR, tokenCRB, tokenRole, tokenRB} {
				assert.Empty(t, m.ByType(tok), tok)
			}
			for _, r := range m.ByType(tokenDaemonSet) {
				assert.NotEqual(t, "gpu-mig-manager", r.Name)
				assert.Len(t, affinityExprs(t, r.Inputs), 1, "%s: no pause label without the MIG Manager", r.Name)
			}
		})
	}
}

// TestNewGPUStackNeedsTheResolvedStack: the one input shape is the
// resolved stack; without it nothing is registered.
func TestNewGPUStackNeedsTheResolvedStack(t *testing.T) {
	m, err := mocktest.Run(t, func(ctx *pulumi.Context) error {
		_, err := NewGPUStack(ctx, "gpu", &GPUStackArgs{})
		return err
	})
	require.ErrorContains(t, err, "GPUStackArgs.Resolved is required")
	assert.Empty(t, m.All())
}
