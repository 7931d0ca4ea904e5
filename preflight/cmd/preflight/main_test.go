package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerregistry/armcontainerregistry"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/preflight"
	"github.com/aksml/aksml/preflight/internal/fakeazure"
)

var update = flag.Bool("update", false, "rewrite testdata/<stack>.golden")

// projectDir holds the shipped Pulumi.<stack>.yaml files.
const projectDir = "../../.."

// fake answers with the fixtures of preflight/testdata.
func fake(t *testing.T) *fakeazure.Azure {
	t.Helper()
	a, err := fakeazure.Load("../../testdata")
	require.NoError(t, err)
	return a
}

func dial(a *fakeazure.Azure) connect {
	return func(string) (*preflight.Clients, error) { return a.Clients() }
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

var subscriptionEnv = env(map[string]string{"ARM_SUBSCRIPTION_ID": fakeazure.Subscription})

// TestGoldenTables: the table preflight prints for each shipped stack
// against the fixture answers (a subscription with default-sized GPU
// quotas, one provider not registered, a taken registry name, the
// Azure Monitor workspace in another region, a Contributor deployer).
// Run with -update after an intended change.
func TestGoldenTables(t *testing.T) {
	for stack, wantExit := range map[string]int{"dev": preflight.ExitWillFail, "prod": preflight.ExitWillFail} {
		t.Run(stack, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run([]string{"-stack", stack, "-dir", projectDir}, subscriptionEnv, &out, &errOut, dial(fake(t)))
			require.Equal(t, wantExit, code, errOut.String())
			golden := filepath.Join("testdata", stack+".golden")
			if *update {
				require.NoError(t, os.WriteFile(golden, out.Bytes(), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			require.Equal(t, string(want), out.String())
		})
	}
}

// passing turns the fixtures into answers where every prod check passes
// or (Grafana, admin-group membership) cannot tell.
func passing(a *fakeazure.Azure) {
	for _, u := range a.Usages {
		u.Limit = to.Ptr[int64](10000)
	}
	for _, p := range a.Providers {
		p.RegistrationState = to.Ptr("Registered")
	}
	for _, r := range a.Resources {
		r.Location = to.Ptr("westeurope")
	}
	delete(a.RegistryNames, "acraksmlprod")
	a.Permissions[0].NotActions = nil
}

// TestProdExitsNonZeroOnEachFailingClass: `preflight -stack prod` against
// the fake servers prints the table and exits 1 when any one class of
// checks fails, and 3 when nothing fails.
func TestProdExitsNonZeroOnEachFailingClass(t *testing.T) {
	cases := map[preflight.Check]func(a *fakeazure.Azure){
		preflight.CheckQuota: func(a *fakeazure.Azure) {
			a.Usages[len(a.Usages)-1].Limit = to.Ptr[int64](0)
		},
		preflight.CheckSKU: func(a *fakeazure.Azure) {
			for _, s := range a.SKUs {
				if *s.Name == "Standard_D8ds_v5" {
					s.LocationInfo[0].Zones = s.LocationInfo[0].Zones[:1]
				}
			}
		},
		preflight.CheckProviders: func(a *fakeazure.Azure) {
			a.Providers["microsoft.compute"].RegistrationState = to.Ptr("NotRegistered")
		},
		preflight.CheckFeatures: func(a *fakeazure.Azure) {
			for id, r := range a.Resources {
				if strings.HasSuffix(id, "aksinfinibandsupport") {
					r.Properties = map[string]any{"state": "NotRegistered"}
				}
			}
		},
		preflight.CheckNames: func(a *fakeazure.Azure) {
			a.RegistryNames["acraksmlprod"] = &armcontainerregistry.RegistryNameStatus{NameAvailable: to.Ptr(false), Reason: to.Ptr("AlreadyExists")}
		},
		preflight.CheckWorkspaces: func(a *fakeazure.Azure) {
			for id, r := range a.Resources {
				if strings.Contains(id, "operationalinsights") {
					r.Location = to.Ptr("eastus")
				}
			}
		},
		preflight.CheckDefender: func(a *fakeazure.Azure) {
			for id, r := range a.Resources {
				if strings.HasSuffix(id, "/pricings/containers") {
					r.Properties = map[string]any{"pricingTier": "Free"}
				}
			}
		},
		preflight.CheckRights: func(a *fakeazure.Azure) {
			a.Permissions[0].NotActions = []*string{to.Ptr("Microsoft.Authorization/*/Write")}
		},
	}
	t.Run("nothing fails", func(t *testing.T) {
		a := fake(t)
		passing(a)
		var out bytes.Buffer
		require.Equal(t, preflight.ExitCannotTell, run([]string{"-stack", "prod", "-dir", projectDir}, subscriptionEnv, &out, &out, dial(a)), out.String())
		require.Contains(t, out.String(), "\n0 will fail, ")
	})
	for class, change := range cases {
		t.Run(string(class), func(t *testing.T) {
			a := fake(t)
			passing(a)
			change(a)
			var out bytes.Buffer
			code := run([]string{"-stack", "prod", "-dir", projectDir}, subscriptionEnv, &out, &out, dial(a))
			require.Equal(t, preflight.ExitWillFail, code, out.String())
			section := out.String()[strings.Index(out.String(), "== "+string(class)):]
			section = section[:strings.Index(section[3:], "== ")+3]
			require.Contains(t, section, "will fail", "the failing row is in the %s table", class)
		})
	}
}

// TestCommandErrors: the command exits 2 when it cannot run.
func TestCommandErrors(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Pulumi.bad.yaml"), []byte("config:\n  aksml:gpuPools: [{name: x}]\n"), 0o644))
	for name, args := range map[string][]string{
		"unknown flag":   {"-nope"},
		"missing stack":  {"-stack", "missing", "-dir", dir},
		"invalid config": {"-stack", "bad", "-dir", dir},
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			require.Equal(t, preflight.ExitError, run(args, subscriptionEnv, &out, &out, dial(fake(t))))
		})
	}
	t.Run("no subscription", func(t *testing.T) {
		var out bytes.Buffer
		require.Equal(t, preflight.ExitError, run([]string{"-stack", "prod", "-dir", projectDir}, env(nil), &out, &out, dial(fake(t))))
		require.Contains(t, out.String(), "ARM_SUBSCRIPTION_ID")
	})
}
