package tenancy_test

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/aksml/aksml/components/tenancy"
)

// A team's slice of a cluster: its namespace with the restricted Pod Security
// level, a ResourceQuota on GPUs, CPU and memory, a Role bound to its Entra
// group, and NetworkPolicies that keep other teams out and let only DNS and
// HTTPS leave.
func ExampleNewTenancy() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		t, err := tenancy.NewTenancy(ctx, "tenancy", &tenancy.TenancyArgs{
			Teams: []tenancy.Team{{
				Name:        "team-a",
				PodSecurity: tenancy.PodSecurityRestricted,
				Quota:       map[string]string{"requests.nvidia.com/gpu": "4", "requests.cpu": "32", "requests.memory": "128Gi"},
				Groups:      []string{"0a0a0a0a-1111-4111-8111-000000000001"},
				Egress:      tenancy.EgressRestricted,
			}},
		})
		if err != nil {
			return err
		}
		ctx.Export("namespaces", t.Namespaces)
		return nil
	})
}
