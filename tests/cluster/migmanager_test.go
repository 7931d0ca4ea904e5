package cluster

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/gpustack"
	"github.com/aksml/aksml/components/workloads"
	"github.com/aksml/aksml/stacks"
)

// KWOK runs no container, so NVIDIA's MIG Manager never partitions a simulated node. The
// placement tier emulates what it documents instead (reconfigure-mig.sh in
// https://github.com/NVIDIA/mig-parted): once the layout named by the node's
// nvidia.com/mig.config label is applied from mig-parted-config, the manager labels the
// node nvidia.com/mig.config.state=success and the device plugin, restarted on the new
// layout, advertises its MIG devices per --mig-strategy (single: one nvidia.com/gpu per
// MIG device; mixed: nvidia.com/mig-<device>). The layouts are read from the
// mig-parted-config ConfigMap the stack registers and the strategy from the device
// plugin DaemonSet it registers, never from a second table.

// migEffect is what the MIG Manager and the device plugin of a stack make of a node.
type migEffect struct {
	// layouts are the mig-parted layouts by name: MIG device → count per GPU.
	layouts map[string]map[string]int
	// strategy is the device plugin's --mig-strategy (single or mixed).
	strategy string
}

// migPartedFile is the part of mig-parted's config file (version v1) the emulation reads.
type migPartedFile struct {
	Version    string `json:"version"`
	MIGConfigs map[string][]struct {
		Devices    any            `json:"devices"`
		MIGEnabled bool           `json:"mig-enabled"`
		MIGDevices map[string]int `json:"mig-devices"`
	} `json:"mig-configs"`
}

// stackMIGEffect reads the mig-parted-config ConfigMap and the device plugin's
// --mig-strategy from a stack's objects; ok is false when the stack has no MIG layout.
func stackMIGEffect(objs []stackObject) (migEffect, bool, error) {
	var (
		eff     migEffect
		found   bool
		plugins int
	)
	for _, o := range objs {
		switch {
		case o.obj.GetKind() == "ConfigMap" && o.obj.GetName() == gpustack.MIGConfigMapName:
			raw, _, _ := unstructured.NestedString(o.obj.Object, "data", gpustack.MIGConfigFile)
			var f migPartedFile
			if err := yaml.Unmarshal([]byte(raw), &f); err != nil {
				return eff, false, fmt.Errorf("%s: %w", o, err)
			}
			if f.Version != "v1" {
				return eff, false, fmt.Errorf("%s: mig-parted config version %q", o, f.Version)
			}
			eff.layouts = map[string]map[string]int{}
			for name, entries := range f.MIGConfigs {
				if len(entries) != 1 || entries[0].Devices != "all" {
					return eff, false, fmt.Errorf("%s: layout %s: the emulation reads one entry for devices: all", o, name)
				}
				if entries[0].MIGEnabled {
					eff.layouts[name] = entries[0].MIGDevices
				}
			}
			found = true
		case o.obj.GetKind() == "DaemonSet" && o.obj.GetName() == gpustack.DevicePluginName:
			plugins++
			containers, _, _ := unstructured.NestedSlice(o.obj.Object, "spec", "template", "spec", "containers")
			for _, c := range containers {
				args, _, _ := unstructured.NestedStringSlice(c.(map[string]any), "args")
				for _, a := range args {
					if v, ok := strings.CutPrefix(a, "--mig-strategy="); ok {
						eff.strategy = v
					}
				}
			}
		}
	}
	if found && plugins != 1 {
		return eff, false, fmt.Errorf("%d device plugin DaemonSets next to mig-parted-config, want 1", plugins)
	}
	return eff, found, nil
}

// resources is what a node with gpus GPUs advertises once layout is applied.
func (e migEffect) resources(layout string, gpus int) (corev1.ResourceList, error) {
	devices, ok := e.layouts[layout]
	if !ok {
		return nil, fmt.Errorf("layout %q is not in mig-parted-config", layout)
	}
	out := corev1.ResourceList{}
	switch e.strategy {
	case "single":
		if len(devices) != 1 {
			return nil, fmt.Errorf("layout %q: the single strategy needs one MIG device type, got %v", layout, devices)
		}
		for _, n := range devices {
			out[gpupool.GPUResource] = *resource.NewQuantity(int64(n*gpus), resource.DecimalSI)
		}
	case "mixed":
		for d, n := range devices {
			out[corev1.ResourceName("nvidia.com/mig-"+d)] = *resource.NewQuantity(int64(n*gpus), resource.DecimalSI)
		}
	default:
		return nil, fmt.Errorf("device plugin --mig-strategy %q: want single or mixed", e.strategy)
	}
	return out, nil
}

// migManagerNodes returns the names of the simulated nodes the MIG Manager must run on:
// every node of the config's DriverOnly MIG pools.
func migManagerNodes(cfg *stacks.Config, pools map[string]NodePool) []string {
	var out []string
	for _, spec := range cfg.GPUPools {
		if spec.GPUStack == "" {
			spec.GPUStack = gpupool.DefaultGPUStack
		}
		if !gpustack.NeedsMIGManager(spec) {
			continue
		}
		p := pools[spec.Name]
		for i := 0; i < p.Count; i++ {
			out = append(out, p.NodeName(i))
		}
	}
	sort.Strings(out)
	return out
}

// requireMIGManager asserts that the stack's MIG Manager DaemonSet has a Running pod on
// exactly the nodes of its DriverOnly MIG pools (none elsewhere, and none at all without
// such a pool), that those nodes advertise no MIG device and carry no state label before
// it ran, and then emulates its effect on them (migEffect).
func requireMIGManager(ctx context.Context, t *testing.T, env *Env, objs []stackObject, cfg *stacks.Config, pools map[string]NodePool) {
	t.Helper()
	want := migManagerNodes(cfg, pools)
	var ds *stackObject
	for i := range objs {
		if objs[i].obj.GetKind() == "DaemonSet" && objs[i].obj.GetName() == gpustack.MIGManagerName {
			ds = &objs[i]
		}
	}
	if len(want) == 0 {
		assert.Nil(t, ds, "a MIG Manager without a DriverOnly MIG pool")
		t.Logf("no DriverOnly MIG pool: no MIG Manager")
		return
	}
	require.NotNil(t, ds, "DriverOnly MIG pools and no MIG Manager DaemonSet")
	eff, ok, err := stackMIGEffect(objs)
	require.NoError(t, err)
	require.True(t, ok, "a MIG Manager without mig-parted-config")

	pods := &corev1.PodList{}
	require.NoError(t, env.Client.List(ctx, pods, client.InNamespace(ds.obj.GetNamespace()), client.MatchingLabels{gpustack.NameLabel: gpustack.MIGManagerName}))
	var got []string
	for _, p := range pods.Items {
		assert.Equal(t, corev1.PodRunning, p.Status.Phase, "MIG Manager pod %s on %q", p.Name, p.Spec.NodeName)
		got = append(got, p.Spec.NodeName)
	}
	sort.Strings(got)
	require.Equal(t, want, got, "the MIG Manager runs on exactly the DriverOnly MIG pools' nodes")

	for _, name := range want {
		node := &corev1.Node{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: name}, node))
		assert.NotContains(t, node.Labels, gpupool.MIGConfigStateLabel, "%s before the MIG Manager ran", name)
		for res := range node.Status.Allocatable {
			assert.False(t, strings.HasPrefix(string(res), "nvidia.com/"), "%s advertises %s before its layout is applied", name, res)
		}
		shape, ok := gpupool.LookupVMShape(node.Labels[InstanceTypeLabel])
		require.True(t, ok, "%s: VM size %s", name, node.Labels[InstanceTypeLabel])
		add, err := eff.resources(node.Labels[gpupool.MIGConfigLabel], shape.GPUs)
		require.NoError(t, err, name)

		orig := node.DeepCopy()
		node.Labels[gpupool.MIGConfigStateLabel] = workloads.MIGConfigStateSuccess
		require.NoError(t, env.Client.Patch(ctx, node, client.MergeFrom(orig)))
		orig = node.DeepCopy()
		for k, v := range add {
			node.Status.Capacity[k] = v
			node.Status.Allocatable[k] = v
		}
		require.NoError(t, env.Client.Status().Patch(ctx, node, client.MergeFrom(orig)))
		t.Logf("MIG Manager on %s applied %s (%s=%s): allocatable %s", name, node.Labels[gpupool.MIGConfigLabel],
			gpupool.MIGConfigStateLabel, workloads.MIGConfigStateSuccess, formatResources(add))
	}
}

// assertNodeOffers checks that the node a pod is bound to advertises every nvidia.com/
// resource the pod requests, at least as many as requested.
func assertNodeOffers(ctx context.Context, t *testing.T, env *Env, pod *corev1.Pod) {
	t.Helper()
	node := &corev1.Node{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: pod.Spec.NodeName}, node))
	for _, c := range pod.Spec.Containers {
		for res, q := range c.Resources.Limits {
			if !strings.HasPrefix(string(res), "nvidia.com/") {
				continue
			}
			have, ok := node.Status.Allocatable[res]
			if assert.True(t, ok, "pod %s asks for %s, which node %s does not advertise", pod.Name, res, node.Name) {
				assert.GreaterOrEqual(t, have.Cmp(q), 0, "pod %s asks for %s %s; node %s has %s", pod.Name, q.String(), res, node.Name, have.String())
			}
		}
	}
}

// TestStackMIGEffect checks, without a cluster, what the emulation derives from the dev
// stack's mig-parted-config and device plugin, and that it refuses what it cannot read.
func TestStackMIGEffect(t *testing.T) {
	objs, _, err := stackObjects(desiredState(t, "dev"))
	require.NoError(t, err)
	eff, ok, err := stackMIGEffect(objs)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "mixed", eff.strategy, "dev's a100mig pool is Mixed")
	got, err := eff.resources("hptuning-1g10gb", 1)
	require.NoError(t, err)
	assertQuantity(t, "7", got["nvidia.com/mig-1g.10gb"], "1 A100 80GB × 7 1g.10gb")
	assert.Len(t, got, 1)
	_, err = eff.resources("all-disabled", 1)
	assert.ErrorContains(t, err, "not in mig-parted-config", "all-disabled has no MIG device")
	_, err = eff.resources("hptuning-3g40gb", 1)
	assert.ErrorContains(t, err, "not in mig-parted-config")

	single := migEffect{layouts: eff.layouts, strategy: "single"}
	got, err = single.resources("hptuning-1g10gb", 2)
	require.NoError(t, err)
	assertQuantity(t, "14", got[gpupool.GPUResource], "single: every MIG device is one nvidia.com/gpu")
	_, err = migEffect{layouts: eff.layouts}.resources("hptuning-1g10gb", 1)
	assert.ErrorContains(t, err, "--mig-strategy")

	pools, err := StackNodePools(desiredState(t, "dev"), parsedConfig(t, "dev"))
	require.NoError(t, err)
	assert.Equal(t, []string{"aks-a100mig-00000000-vmss000000"}, migManagerNodes(parsedConfig(t, "dev"), poolsByName(pools)))

	prodObjs, _, err := stackObjects(desiredState(t, "prod"))
	require.NoError(t, err)
	_, ok, err = stackMIGEffect(prodObjs)
	require.NoError(t, err)
	assert.False(t, ok, "prod has no MIG pool")
}
