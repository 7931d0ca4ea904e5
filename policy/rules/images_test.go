package rules

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestImagesListsEveryPodTemplateImageOnceAndTheCharts(t *testing.T) {
	s := &Stack{Environment: "prod"}
	job := trainingJob("team-a", "train")
	add(s,
		daemonSet("dcgm", "nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3"),
		daemonSet("dcgm-b", "nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3"),
		daemonSet("plugin", "nvcr.io/nvidia/k8s-device-plugin:v0.17.1"),
		job,
		storageClass("no-pods", "Retain"),
		resource("kubernetes:helm.sh/v4:Chart", "kueue", obj{"chart": "oci://registry.k8s.io/kueue/charts/kueue", "version": "0.17.0"}),
		resource("kubernetes:helm.sh/v4:Chart", "volcano", obj{"chart": "volcano", "version": "1.12.1", "repositoryOpts": obj{"repo": "https://volcano-sh.github.io/helm-charts"}}),
	)
	images, charts := Images(s)
	var got []string
	for _, i := range images {
		got = append(got, i.Image)
	}
	jobImage := str(containers(podTemplates(job)[0].spec)[0]["image"])
	require.NotEmpty(t, jobImage)
	want := []string{jobImage, "nvcr.io/nvidia/k8s-device-plugin:v0.17.1", "nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3"}
	require.ElementsMatch(t, want, got)
	for _, i := range images {
		if i.Image == "nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3" {
			require.Equal(t, []string{urnOf("kubernetes:apps/v1:DaemonSet", "kube-system-dcgm"), urnOf("kubernetes:apps/v1:DaemonSet", "kube-system-dcgm-b")}, i.URNs, "one entry per image, every resource that runs it")
		}
	}
	require.Equal(t, []ChartRef{
		{Chart: "oci://registry.k8s.io/kueue/charts/kueue", Version: "0.17.0", URN: urnOf("kubernetes:helm.sh/v4:Chart", "kueue")},
		{Chart: "volcano", Repo: "https://volcano-sh.github.io/helm-charts", Version: "1.12.1", URN: urnOf("kubernetes:helm.sh/v4:Chart", "volcano")},
	}, charts)

	empty, none := Images(&Stack{})
	require.Empty(t, empty)
	require.Empty(t, none)
}
