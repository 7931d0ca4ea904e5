package field

import (
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
	for _, in := range []string{"", "-1", "lots", "1 Gi", "1GB"} {
		if _, ok := ParseQuantity(in); ok {
			t.Errorf("ParseQuantity(%q) accepted a non-quantity", in)
		}
	}
}
