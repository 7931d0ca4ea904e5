package gpupool

import (
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decodeTemplateTag reads a scale-from-zero tag name the way the
// autoscaler's Azure provider does (README "Scaling a VMSS node group to
// and from 0"): after the prefix, '_' stands for '/'.
func decodeTemplateTag(prefix, tag string) (string, bool) {
	name, ok := strings.CutPrefix(tag, prefix)
	return strings.ReplaceAll(name, "_", "/"), ok && name != ""
}

func TestScaleFromZeroTags(t *testing.T) {
	mig := func(strategy MIGStrategy, profile MIGProfile, vm string, mutate func(*Spec)) Spec {
		return specOf(func(s *Spec) {
			s.VMSize, s.MIG = vm, &MIGSpec{Strategy: strategy, Profile: profile}
			if mutate != nil {
				mutate(s)
			}
		})
	}
	cases := []struct {
		name          string
		spec          Spec
		wantResources map[string]string
		wantLabels    map[string]string
	}{
		{"Mixed 1g on one A100: seven named instances and the MIG manager's state",
			mig(MIGStrategyMixed, MIG1g, "Standard_NC24ads_A100_v4", nil),
			map[string]string{"nvidia.com/mig-1g.10gb": "7"}, map[string]string{MIGConfigStateLabel: "success"}},
		{"Single 3g on four A100s: instances counted as nvidia.com/gpu",
			mig(MIGStrategySingle, MIG3g, "Standard_NC96ads_A100_v4", nil),
			map[string]string{"nvidia.com/gpu": "8"}, map[string]string{MIGConfigStateLabel: "success"}},
		{"None stack: the pool's own MIG manager labels the node too",
			mig(MIGStrategyMixed, MIG2g, "Standard_NC24ads_A100_v4", func(s *Spec) { s.GPUStack = GPUStackNone }),
			map[string]string{"nvidia.com/mig-2g.20gb": "3"}, map[string]string{MIGConfigStateLabel: "success"}},
		{"whole-GPU pool: the template from the VM size is right", specOf(nil), nil, nil},
		{"Managed MIG pool: not autoscaled",
			mig(MIGStrategyMixed, MIG1g, "Standard_NC24ads_A100_v4", func(s *Spec) { managed(s, 0) }), nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tags := tc.spec.ScaleFromZeroTags()
			resources, labels := map[string]string{}, map[string]string{}
			for k, v := range tags {
				if name, ok := decodeTemplateTag(NodeTemplateResourcesTagPrefix, k); ok {
					resources[name] = v
				} else if key, ok := decodeTemplateTag(NodeTemplateLabelTagPrefix, k); ok {
					labels[key] = v
				} else {
					t.Errorf("tag %q is not a scale-from-zero hint", k)
				}
			}
			if tc.wantResources == nil {
				assert.Empty(t, tags)
				return
			}
			assert.Equal(t, tc.wantResources, resources)
			assert.Equal(t, tc.wantLabels, labels)
			for k := range tags {
				assert.NotContains(t, k, "/", "Azure tag names cannot hold '/'")
			}
		})
	}
}

func TestScaleFromZeroTagsAreSentAndWinOverStackTags(t *testing.T) {
	s := specOf(func(s *Spec) {
		s.MIG = &MIGSpec{Strategy: MIGStrategyMixed, Profile: MIG1g}
	})
	hint := NodeTemplateResourcesTagPrefix + "nvidia.com_mig-1g.10gb"
	stack := map[string]string{"costCenter": "ml", hint: "1"}
	a := AgentPoolArgs(s, pulumi.String("rg"), pulumi.String("aks"), stack)
	require.NotNil(t, a.Tags)
	props := TemplateProperties(s, stack)
	tags := props["tags"].(map[string]string)
	assert.Equal(t, "ml", tags["costCenter"])
	assert.Equal(t, "7", tags[hint], "a stack tag cannot shrink what one node offers")
	assert.Equal(t, "1", stack[hint], "the caller's map is not changed")
	assert.Nil(t, TemplateProperties(specOf(nil), nil)["tags"], "no tags for a whole-GPU pool without stack tags")
}
