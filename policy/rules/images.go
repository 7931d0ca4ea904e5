package rules

import (
	"slices"
	"sort"
)

// ImageRef is one container image the stack runs, with the resources whose
// pod templates name it.
type ImageRef struct {
	// Image is the reference as written (registry/repository:tag or @digest).
	Image string
	// URNs are the resources that run it, sorted.
	URNs []string
}

// ChartRef is one Helm chart the stack installs; its images are the chart's
// own at that version, visible only once the chart is rendered.
type ChartRef struct {
	// Chart is the chart reference (an oci:// URL or repo/name).
	Chart string
	// Repo is the chart repository URL, "" for oci:// charts.
	Repo string
	// Version is the pinned chart version, "" when not pinned.
	Version string
	// URN is the Chart resource.
	URN string
}

// Images lists every container image the stack's pod templates name
// (init containers included; Deployments, DaemonSets, Jobs, CronJobs,
// Training Operator and Volcano jobs, Pods), sorted by image, and the Helm
// charts it installs, sorted by chart: the input of the image scan
// (README "Image scanning", .github/scripts/scan-images.sh).
func Images(s *Stack) ([]ImageRef, []ChartRef) {
	byImage := map[string][]string{}
	var charts []ChartRef
	for _, r := range s.Resources {
		if r.Type == "kubernetes:helm.sh/v4:Chart" || r.Type == "kubernetes:helm.sh/v3:Chart" || r.Type == "kubernetes:helm.sh/v3:Release" {
			charts = append(charts, ChartRef{Chart: str(r.Get("chart")), Repo: str(r.Get("repositoryOpts.repo")), Version: str(r.Get("version")), URN: r.URN})
			continue
		}
		for _, t := range podTemplates(r) {
			for _, c := range containers(t.spec) {
				img := str(c["image"])
				if img != "" && !slices.Contains(byImage[img], r.URN) {
					byImage[img] = append(byImage[img], r.URN)
				}
			}
		}
	}
	images := make([]ImageRef, 0, len(byImage))
	for img, urns := range byImage {
		sort.Strings(urns)
		images = append(images, ImageRef{Image: img, URNs: urns})
	}
	sort.Slice(images, func(i, j int) bool { return images[i].Image < images[j].Image })
	sort.Slice(charts, func(i, j int) bool { return charts[i].Chart < charts[j].Chart })
	return images, charts
}
