package field

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPath(t *testing.T) {
	p := NewPath("aksml:gpuPools").Index(1).Child("mig").Child("profile")
	assert.Equal(t, "aksml:gpuPools[1].mig.profile", p.String())
	assert.Equal(t, `aksml:teams[0].gpuQuota["a100"]`, NewPath("aksml:teams").Index(0).Child("gpuQuota").Key("a100").String())
	assert.Equal(t, "name", Path("").Child("name").String())
}

func TestErrorListAggregate(t *testing.T) {
	var errs ErrorList
	require.NoError(t, errs.ToAggregate(), "an empty list is no error")

	errs = append(errs, Invalid(NewPath("aksml:gpuPools").Index(0).Child("maxCount"), "%d is out of range", 0))
	assert.Equal(t, "invalid configuration: aksml:gpuPools[0].maxCount: 0 is out of range", errs.ToAggregate().Error())

	errs = append(errs,
		Required(NewPath("aksml:cluster").Child("name"), "the AKS cluster name"),
		NotSupported(NewPath("aksml:scheduler").Child("system"), "slurm", []string{"kueue", "volcano"}),
	)
	msg := errs.ToAggregate().Error()
	assert.Equal(t, `invalid configuration: 3 problems:
  - aksml:gpuPools[0].maxCount: 0 is out of range
  - aksml:cluster.name: is required: the AKS cluster name
  - aksml:scheduler.system: "slurm" is not supported; use one of "kueue", "volcano"`, msg)

	var agg *AggregateError
	require.ErrorAs(t, errs.ToAggregate(), &agg)
	assert.Len(t, agg.Errors, 3)
}

func TestParseQuantity(t *testing.T) {
	for in, want := range map[string]float64{"64": 64, "500m": 0.5, "256Gi": 256 << 30, "1.5k": 1500, "2e3": 2000, "+1": 1} {
		got, ok := ParseQuantity(in)
		if !ok || got != want {
			t.Errorf("ParseQuantity(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "-1", "lots", "1 Gi", "1GB", "1e", "0.5.5"} {
		if _, ok := ParseQuantity(in); ok {
			t.Errorf("ParseQuantity(%q) accepted a non-quantity", in)
		}
	}
}

func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]float64{"100Gi": 100 << 30, "1.5Ti": 1.5 * (1 << 40), "500G": 500e9, "1073741824": 1 << 30} {
		got, ok := ParseByteSize(in)
		assert.True(t, ok, in)
		assert.InDelta(t, want, got, 1, in)
	}
	for _, in := range []string{"500m", "1e12", "100GB", "-1Gi", ""} {
		_, ok := ParseByteSize(in)
		assert.False(t, ok, in)
	}
}

func TestNamesAndLabels(t *testing.T) {
	assert.True(t, IsDNSLabel("team-a"))
	assert.False(t, IsDNSLabel("Team_A"))
	assert.False(t, IsDNSLabel(strings.Repeat("a", 64)))
	assert.True(t, IsDNSSubdomain("training-batch.v1"))
	assert.False(t, IsDNSSubdomain("-x"))
	assert.True(t, IsLabelValue(""))
	assert.True(t, IsLabelValue("A_b.c-1"))
	assert.False(t, IsLabelValue("has space"))
	assert.True(t, IsPortName("metrics"))
	assert.False(t, IsPortName("1234"))
	assert.False(t, IsPortName("a--b"))
	assert.Empty(t, LabelKeyProblem("example.com/role"))
	assert.Contains(t, LabelKeyProblem("Example.COM/x"), "prefix")
	assert.Contains(t, LabelKeyProblem("bad key"), "name")
}

func TestNodeKeyProblem(t *testing.T) {
	for _, k := range []string{"example.com/role", "role", "node.kubernetes.io/pool", "kubelet.kubernetes.io/x", "topology.kubernetes.io/zone", "kubernetes.io/os"} {
		assert.Empty(t, NodeKeyProblem(k), k)
	}
	for _, k := range []string{"kubernetes.azure.com/x", "x.kubernetes.azure.com/y", "kubernetes.io/role", "node-role.kubernetes.io/gpu", "k8s.io/x", "node-restriction.kubernetes.io/x"} {
		assert.NotEmpty(t, NodeKeyProblem(k), k)
	}
	assert.Empty(t, NodeKeyProblem("kubernetes.azure.com/scalesetpriority", "kubernetes.azure.com/scalesetpriority"))
}

func TestCronProblem(t *testing.T) {
	for _, s := range []string{"0 2 * * *", "*/15 8-18 * * 1-5", "@daily", "@hourly", "0 0 1 1 *"} {
		assert.Empty(t, CronProblem(s), s)
	}
	for _, s := range []string{"60 2 * * *", "0 24 * * *", "*/0 * * * *", "0 0 32 * *", "0 0 * 13 *", "0 0 * * 8", "0 2 * *", "@fortnightly", "TZ=UTC 0 2 * * *"} {
		assert.NotEmpty(t, CronProblem(s), s)
	}
}

func TestAzureNames(t *testing.T) {
	for _, n := range []string{"rg-aksml", "rg-münchen-数据_(ml)", "a", strings.Repeat("a", 90)} {
		assert.Empty(t, ResourceGroupNameProblem(n), n)
	}
	for _, n := range []string{"", "rg.", "rg with space", strings.Repeat("a", 91), "rg/x", "rg#1"} {
		assert.NotEmpty(t, ResourceGroupNameProblem(n), n)
	}
	assert.Empty(t, LocationProblem("westeurope"))
	assert.Contains(t, LocationProblem("West Europe"), `"westeurope"`)
	assert.Contains(t, LocationProblem("westeurop"), `did you mean "westeurope"`)
	assert.Contains(t, LocationProblem("mars1"), "locations.go")
}

func TestValidateTags(t *testing.T) {
	p := NewPath("aksml:tags")
	assert.Empty(t, ValidateTags(map[string]string{"cost center": "ML – Zürich"}, MaxTagNameLength, p))
	errs := ValidateTags(map[string]string{"a/b": "x", "Env": "a", "env": "b", strings.Repeat("n", 129): "x", "v": strings.Repeat("v", 257)}, MaxStorageTagNameLength, p)
	msg := errs.ToAggregate().Error()
	assert.Contains(t, msg, `aksml:tags["a/b"]: tag name "a/b" contains one of`)
	assert.Contains(t, msg, `aksml:tags["env"]: tag names are case-insensitive`)
	assert.Contains(t, msg, "storage accounts")
	assert.Contains(t, msg, `aksml:tags["v"]: tag value is 257 characters`)
	many := map[string]string{}
	for i := range 51 {
		many[fmt.Sprint(i)] = ""
	}
	assert.Contains(t, ValidateTags(many, MaxTagNameLength, p).ToAggregate().Error(), "aksml:tags: has 51 tags")
}

func TestErrorTypes(t *testing.T) {
	p := NewPath("aksml:x")
	for _, tc := range []struct {
		err  *Error
		want ErrorType
		msg  string
	}{
		{Invalid(p, "%d is out of range", 0), ErrorTypeInvalid, "aksml:x: 0 is out of range"},
		{Required(p, "a name"), ErrorTypeRequired, "aksml:x: is required: a name"},
		{NotSupported(p, "a", []string{"b"}), ErrorTypeNotSupported, `aksml:x: "a" is not supported; use one of "b"`},
		{Duplicate(p, "%q is listed twice", "a"), ErrorTypeDuplicate, `aksml:x: "a" is listed twice`},
		{Forbidden(p, "is a kueue setting"), ErrorTypeForbidden, "aksml:x: is a kueue setting"},
	} {
		assert.Equal(t, tc.want, tc.err.Type)
		assert.Equal(t, tc.msg, tc.err.Error(), "the type does not show in the message")
	}
}

func TestUnique(t *testing.T) {
	p := NewPath("aksml:zones")
	errs := Unique(p, []string{"1", "4", "1", "4", "2"}, "zone %q", OneOf([]string{"1", "2", "3"}))
	require.Len(t, errs, 3)
	assert.Equal(t, []ErrorType{ErrorTypeNotSupported, ErrorTypeDuplicate, ErrorTypeNotSupported}, []ErrorType{errs[0].Type, errs[1].Type, errs[2].Type})
	assert.Equal(t, `aksml:zones[2]: zone "1" is listed twice`, errs[1].Error())
	assert.Equal(t, []Path{"aksml:zones[1]", "aksml:zones[2]", "aksml:zones[3]"}, []Path{errs[0].Path, errs[1].Path, errs[2].Path}, "an invalid repeat is reported once, as invalid")
	assert.Empty(t, Unique(p, []string{"1", "2"}, "zone %q", OneOf([]string{"1", "2", "3"})))
	assert.Equal(t, "aksml:codes[1]: exit code 3 is listed twice", Unique(NewPath("aksml:codes"), []int{3, 3}, "exit code %d", func(Path, int) *Error { return nil })[0].Error())
}

// TestImageReferenceProblem: references the OCI distribution grammar
// accepts, and ones a container runtime refuses to pull.
func TestImageReferenceProblem(t *testing.T) {
	for _, ok := range []string{
		"ubuntu", "ubuntu:24.04", "pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime", "nvcr.io/nvidia/cuda:12.4.1-runtime-ubuntu22.04",
		"MyRegistry.azurecr.io/team/train@sha256:" + strings.Repeat("a", 64), "localhost:5000/x", "a__b/c-d.e:_tag",
	} {
		assert.Empty(t, ImageReferenceProblem(ok), ok)
	}
	for bad, want := range map[string]string{
		"Ubuntu:24.04":           "uppercase",
		"ubuntu:":                "the tag",
		"ubuntu:-x":              "the tag",
		"ubuntu@sha256:abc":      "the digest",
		"ubuntu@md5:" + "0":      "the digest",
		"team/-train":            "the repository part",
		"bad_host.io:port/x":     "the registry host",
		":1.0":                   "names no repository",
		strings.Repeat("a", 256): "over the 255",
		"team//train":            "the repository part",
	} {
		assert.Contains(t, ImageReferenceProblem(bad), want, bad)
	}
}
