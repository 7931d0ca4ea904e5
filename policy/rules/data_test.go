package rules

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseQuantity(t *testing.T) {
	tests := []struct {
		in   any
		want float64
		ok   bool
	}{
		{"16Gi", 16 << 30, true},
		{"128Mi", 128 << 20, true},
		{"1Ki", 1024, true},
		{"1Ti", 1 << 40, true},
		{"500m", 0.5, true},
		{"4000m", 4, true},
		{"4", 4, true},
		{" 4 ", 4, true},
		{"0.5Gi", 0.5 * (1 << 30), true},
		{"1e3", 1000, true},
		{"2E", 2e18, true},
		{"1k", 1000, true},
		{"1M", 1e6, true},
		{"100n", 100e-9, true},
		{"-1", -1, true},
		{4.0, 4, true},
		{4, 4, true},
		{int64(2), 2, true},
		{"", 0, false},
		{"Gi", 0, false},
		{"16GB", 0, false},
		{"1e", 0, false},
		{"abc", 0, false},
		{Unknown, 0, false},
		{nil, 0, false},
		{true, 0, false},
	}
	for _, tc := range tests {
		got, ok := ParseQuantity(tc.in)
		assert.Equal(t, tc.ok, ok, "%#v", tc.in)
		if tc.ok {
			assert.True(t, sameQuantity(tc.want, got), "%#v: got %g, want %g", tc.in, got, tc.want)
		}
	}
}

func TestTolerates(t *testing.T) {
	tol := func(ts ...obj) obj {
		var l arr
		for _, x := range ts {
			l = append(l, x)
		}
		return obj{"tolerations": l}
	}
	tests := []struct {
		name string
		spec obj
		want bool
	}{
		{"exact", tol(obj{"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}), true},
		{"operator defaults to Equal", tol(obj{"key": "sku", "value": "gpu", "effect": "NoSchedule"}), true},
		{"any effect", tol(obj{"key": "sku", "value": "gpu"}), true},
		{"Exists on the key", tol(obj{"key": "sku", "operator": "Exists"}), true},
		{"tolerate everything", tol(obj{"operator": "Exists"}), true},
		{"wrong value", tol(obj{"key": "sku", "value": "cpu", "effect": "NoSchedule"}), false},
		{"wrong effect", tol(obj{"key": "sku", "value": "gpu", "effect": "NoExecute"}), false},
		{"other key", tol(obj{"key": "dedicated", "operator": "Exists"}), false},
		{"none", obj{}, false},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, tolerates(tc.spec, "sku", "gpu", "NoSchedule"), tc.name)
	}
}

func TestSelectorMatches(t *testing.T) {
	l := map[string]string{"app": "train", "tier": "gpu"}
	expr := func(key, op string, values ...any) obj {
		return obj{"matchExpressions": arr{obj{"key": key, "operator": op, "values": arr(values)}}}
	}
	tests := []struct {
		name string
		sel  map[string]any
		want bool
	}{
		{"nil selects nothing", nil, false},
		{"empty selects everything", obj{}, true},
		{"matchLabels", obj{"matchLabels": obj{"app": "train"}}, true},
		{"matchLabels mismatch", obj{"matchLabels": obj{"app": "serve"}}, false},
		{"In", expr("tier", "In", "gpu", "cpu"), true},
		{"In mismatch", expr("tier", "In", "cpu"), false},
		{"NotIn", expr("tier", "NotIn", "cpu"), true},
		{"NotIn mismatch", expr("tier", "NotIn", "gpu"), false},
		{"Exists", expr("app", "Exists"), true},
		{"DoesNotExist", expr("app", "DoesNotExist"), false},
		{"unknown operator", expr("app", "Like", "t*"), false},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, selectorMatches(tc.sel, l), tc.name)
	}
}

func TestSchedulableOn(t *testing.T) {
	nodeLabels := map[string]string{"accelerator": "nvidia", "kubernetes.azure.com/agentpool": "gpua100", "gpus": "4"}
	taints := []string{"sku=gpu:NoSchedule", "soft=x:PreferNoSchedule"}
	affinity := func(key, op string, values ...any) obj {
		return obj{"nodeAffinity": obj{"requiredDuringSchedulingIgnoredDuringExecution": obj{
			"nodeSelectorTerms": arr{obj{"matchExpressions": arr{obj{"key": key, "operator": op, "values": arr(values)}}}},
		}}}
	}
	tolerateGPU := arr{obj{"key": "sku", "operator": "Exists"}}
	tests := []struct {
		name string
		spec obj
		want bool
	}{
		{"selector and toleration", obj{"nodeSelector": obj{"accelerator": "nvidia"}, "tolerations": tolerateGPU}, true},
		{"no toleration", obj{"nodeSelector": obj{"accelerator": "nvidia"}}, false},
		{"selector mismatch", obj{"nodeSelector": obj{"accelerator": "amd"}, "tolerations": tolerateGPU}, false},
		{"affinity In", obj{"affinity": affinity("kubernetes.azure.com/agentpool", "In", "gpua100"), "tolerations": tolerateGPU}, true},
		{"affinity NotIn", obj{"affinity": affinity("kubernetes.azure.com/agentpool", "NotIn", "gpua100"), "tolerations": tolerateGPU}, false},
		{"affinity Gt", obj{"affinity": affinity("gpus", "Gt", "2"), "tolerations": tolerateGPU}, true},
		{"affinity Lt", obj{"affinity": affinity("gpus", "Lt", "2"), "tolerations": tolerateGPU}, false},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, schedulableOn(tc.spec, nodeLabels, taints), tc.name)
	}
}

func TestImageTag(t *testing.T) {
	for image, want := range map[string]string{
		"ubuntu:24.04":                          "24.04",
		"ubuntu":                                "",
		"registry:5000/team/app":                "",
		"registry:5000/team/app:1.2":            "1.2",
		"nvcr.io/nvidia/cuda:12.4.1@sha256:abc": "12.4.1",
	} {
		assert.Equal(t, want, imageTag(image), image)
	}
}

func TestPodTemplates(t *testing.T) {
	cron := scoringCronJob("ns", "score")
	ts := podTemplates(cron)
	if assert.Len(t, ts, 1) {
		assert.Equal(t, "Never", ts[0].spec["restartPolicy"])
	}
	volcano := kube("batch.volcano.sh/v1alpha1", "Job", "ns", "v", nil, obj{"tasks": arr{
		obj{"name": "worker", "replicas": 2.0, "template": obj{"spec": gpuPodSpec("OnFailure")}},
	}})
	ts = podTemplates(volcano)
	if assert.Len(t, ts, 1) {
		assert.Equal(t, "worker", ts[0].role)
		assert.Equal(t, 2, ts[0].replicas)
	}
	pod := kube("v1", "Pod", "ns", "p", obj{"app": "p"}, gpuPodSpec("Never"))
	ts = podTemplates(pod)
	if assert.Len(t, ts, 1) {
		assert.Equal(t, "p", ts[0].labels["app"])
		assert.True(t, requestsGPU(ts[0].spec))
	}
	job := trainingJob("ns", "j")
	assert.Equal(t, "j", podTemplates(job)[0].labels["batch.kubernetes.io/job-name"])
	assert.Empty(t, podTemplates(storageClass("x", "Retain")))
	assert.Empty(t, podTemplates(agentPool("gpua100")))
}
