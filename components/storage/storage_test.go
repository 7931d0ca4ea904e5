package storage

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aksml/aksml/components/field"

	"github.com/aksml/aksml/components/internal/mocktest"

	"github.com/aksml/aksml/components/field/fieldtest"
)

const (
	tokenAccount = "azure-native:storage:StorageAccount"
	tokenClass   = "kubernetes:storage.k8s.io/v1:StorageClass"
	tokenPVC     = "kubernetes:core/v1:PersistentVolumeClaim"

	subnetID = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/aks-nodes"
)

// run runs fn under mocks that name a storage account after its
// accountName input, as ARM does.
func run(t *testing.T, fn pulumi.RunFunc) (*mocktest.Mocks, error) {
	t.Helper()
	m := &mocktest.Mocks{NameFrom: map[string]string{tokenAccount: "accountName"}}
	return m, m.Run(fn)
}

// await resolves a string output once the program has run.
type await struct {
	wg  sync.WaitGroup
	val string
}

func awaitString(o pulumi.StringOutput) *await {
	a := &await{}
	a.wg.Add(1)
	o.ApplyT(func(v string) string { a.val = v; a.wg.Done(); return v })
	return a
}

func (a *await) get() string { a.wg.Wait(); return a.val }

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestStorageClassesAreExactlyTheBestPractices(t *testing.T) {
	m, err := run(t, func(ctx *pulumi.Context) error {
		_, err := NewStorageClasses(ctx, "ml", nil)
		return err
	})
	require.NoError(t, err)
	require.Len(t, m.ByType(tokenClass), 5, "four best-practice classes and the scratch disk class")

	fileOpts := []string{"dir_mode=0770", "file_mode=0660", "uid=1000", "gid=1000", "mfsymlinks", "cache=strict", "actimeo=30", "nosharesock"}
	want := []struct {
		resource, name, provisioner, reclaim string
		params                               map[string]any
		mountOptions                         []string
	}{
		{"ml-files-premium", "ml-azurefile-premium", "file.csi.azure.com", "Delete", map[string]any{"skuName": "Premium_LRS", "secretNamespace": "kube-system"}, fileOpts},
		{"ml-checkpoints", "ml-checkpoints-azurefile", "file.csi.azure.com", "Retain", map[string]any{"skuName": "Premium_LRS", "secretNamespace": "kube-system"}, fileOpts},
		{"ml-blob-nfs", "ml-azureblob-nfs", "blob.csi.azure.com", "Delete", map[string]any{"protocol": "nfs", "skuName": "Premium_LRS"},
			[]string{"actimeo=120", "noresvport", "nconnect=4"}},
		{"ml-blob-blockcache", "ml-azureblob-blockcache", "blob.csi.azure.com", "Delete", map[string]any{"protocol": "fuse2", "skuName": "Premium_LRS"},
			[]string{"-o allow_other", "--use-attr-cache=true", "--cancel-list-on-mount-seconds=10", "-o attr_timeout=120", "-o entry_timeout=120",
				"-o negative_timeout=120", "--log-level=LOG_WARNING", "--block-cache", "--block-cache-block-size=16"}},
	}
	for _, w := range want {
		t.Run(w.name, func(t *testing.T) {
			in := m.ByName(t, w.resource).Inputs
			if w.params["protocol"] == "nfs" {
				for _, o := range strs(in["mountOptions"]) {
					assert.NotContains(t, o, "-o", "the NFS mount takes its options as a plain list, not blobfuse's -o form")
					assert.NotContains(t, []string{"attr_timeout", "entry_timeout", "negative_timeout", "allow_other"}, strings.SplitN(o, "=", 2)[0],
						"FUSE options fail an NFS mount")
				}
			}
			assert.Equal(t, w.name, mocktest.Get(in, "metadata", "name"))
			assert.Equal(t, w.provisioner, in["provisioner"])
			assert.Equal(t, w.params, in["parameters"], "parameters must be exactly the best practices' (plus the key kept in kube-system) in existing-cluster mode")
			assert.Equal(t, w.mountOptions, strs(in["mountOptions"]))
			assert.Equal(t, w.reclaim, in["reclaimPolicy"])
			assert.Equal(t, true, in["allowVolumeExpansion"])
			assert.Equal(t, "Immediate", in["volumeBindingMode"])
		})
	}
}

func TestStorageClassesPointAtManagedAccounts(t *testing.T) {
	m, err := run(t, func(ctx *pulumi.Context) error {
		_, err := NewStorageClasses(ctx, "ml", &StorageClassesArgs{Accounts: &ClassAccounts{
			ResourceGroupName: pulumi.String("rg-ml"),
			FilesAccountName:  pulumi.String("mlprodfiles"),
		}})
		return err
	})
	require.NoError(t, err)

	for _, res := range []string{"ml-files-premium", "ml-checkpoints"} {
		assert.Equal(t, map[string]any{"skuName": "Premium_LRS", "storageAccount": "mlprodfiles", "resourceGroup": "rg-ml", "secretNamespace": "kube-system"},
			m.ByName(t, res).Inputs["parameters"], res)
	}
	assert.Equal(t, map[string]any{"protocol": "nfs", "skuName": "Premium_LRS"}, m.ByName(t, "ml-blob-nfs").Inputs["parameters"],
		"without a managed Blob account the blob class keeps the best practices' parameters")
	assert.Equal(t, map[string]any{"protocol": "fuse2", "skuName": "Premium_LRS"}, m.ByName(t, "ml-blob-blockcache").Inputs["parameters"],
		"the block-cache class never points at aksml's NFS-only accounts")
}

// TestNoClaimInATeamNamespaceYieldsASecretThere: whatever class a team's
// claim uses, the CSI driver writes no storage-account key into the team's
// namespace, where a Job of the team could mount it (issue 25). Checked on
// the registered class parameters, with and without aksml's accounts,
// through the driver's documented rule (KeySecretNamespaceFor).
func TestNoClaimInATeamNamespaceYieldsASecretThere(t *testing.T) {
	for name, accounts := range map[string]*ClassAccounts{
		"driver accounts":  nil,
		"managed accounts": {ResourceGroupName: pulumi.String("rg-ml"), FilesAccountName: pulumi.String("mlfiles"), BlobAccountName: pulumi.String("mlblob")},
	} {
		t.Run(name, func(t *testing.T) {
			m, err := run(t, func(ctx *pulumi.Context) error {
				_, err := NewStorageClasses(ctx, "ml", &StorageClassesArgs{Accounts: accounts})
				return err
			})
			require.NoError(t, err)
			files := 0
			for _, c := range m.ByType(tokenClass) {
				params := map[string]string{}
				for k, v := range c.Inputs["parameters"].(map[string]any) {
					params[k] = v.(string)
				}
				provisioner := c.Inputs["provisioner"].(string)
				got := KeySecretNamespaceFor(provisioner, params, "team-a")
				assert.NotEqual(t, "team-a", got, "%s: a claim in team-a must not get the account key as a Secret in team-a", c.Name)
				if provisioner == FileCSIDriver {
					files++
					assert.Equal(t, KeySecretNamespace, got, "%s keeps the key in kube-system", c.Name)
				}
				assert.True(t, c.DeleteBeforeReplace, "%s: parameters are immutable and the name fixed, so a change deletes the old class first", c.Name)
			}
			assert.Equal(t, 2, files, "both Azure Files classes checked")
		})
	}
}

// TestKeySecretNamespaceFor follows the Azure Files CSI driver's parameter
// table (docs/driver-parameters.md): the claim's namespace by default.
func TestKeySecretNamespaceFor(t *testing.T) {
	tests := []struct {
		name, provisioner string
		params            map[string]string
		want              string
	}{
		{"default is the claim's namespace", FileCSIDriver, map[string]string{"skuName": "Premium_LRS"}, "team-a"},
		{"secretNamespace moves it", FileCSIDriver, map[string]string{"secretNamespace": "kube-system"}, "kube-system"},
		{"parameter names are case-insensitive", FileCSIDriver, map[string]string{"SecretNamespace": "kube-system"}, "kube-system"},
		{"storeAccountKey false stores none", FileCSIDriver, map[string]string{"storeAccountKey": "false"}, ""},
		{"NFS shares need no key", FileCSIDriver, map[string]string{"protocol": "nfs"}, ""},
		{"an explicit team namespace is still the team's", FileCSIDriver, map[string]string{"secretNamespace": "team-a"}, "team-a"},
		{"the Blob driver is not this rule's", BlobCSIDriver, map[string]string{"protocol": "fuse2"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, KeySecretNamespaceFor(tt.provisioner, tt.params, "team-a"))
		})
	}
}

// TestPinnedBlobOnlyLeavesOutDriverAccounts: in aksml's VNet and in prod no
// Blob class may let the driver pick or create its account (issue 27); the
// Blob NFS class stays when it is pinned to aksml's account.
func TestPinnedBlobOnlyLeavesOutDriverAccounts(t *testing.T) {
	classes := func(blob pulumi.StringInput) []string {
		m, err := run(t, func(ctx *pulumi.Context) error {
			_, err := NewStorageClasses(ctx, "ml", &StorageClassesArgs{PinnedBlobOnly: true, Accounts: &ClassAccounts{
				ResourceGroupName: pulumi.String("rg-ml"),
				FilesAccountName:  pulumi.String("mlprodfiles"),
				BlobAccountName:   blob,
			}})
			return err
		})
		require.NoError(t, err)
		var names []string
		for _, r := range m.ByType("kubernetes:storage.k8s.io/v1:StorageClass") {
			names = append(names, r.Name)
			if r.Inputs["provisioner"] == BlobCSIDriver {
				assert.Equal(t, "mlprodblob", mocktest.Dig(t, r.Inputs, "parameters", "storageAccount"), "%s is pinned", r.Name)
			}
		}
		return names
	}
	assert.ElementsMatch(t, []string{"ml-files-premium", "ml-checkpoints", "ml-scratch-disk"}, classes(nil),
		"without aksml's Blob account no Blob class is created")
	assert.ElementsMatch(t, []string{"ml-files-premium", "ml-checkpoints", "ml-blob-nfs", "ml-scratch-disk"}, classes(pulumi.String("mlprodblob")),
		"the NFS class pinned to aksml's account stays; the block-cache class never has one")
}

func TestStorageClassesUseTheGivenProvider(t *testing.T) {
	m, err := run(t, func(ctx *pulumi.Context) error {
		p, err := kubernetes.NewProvider(ctx, "existing", &kubernetes.ProviderArgs{})
		if err != nil {
			return err
		}
		_, err = NewStorageClasses(ctx, "ml", &StorageClassesArgs{Provider: p})
		return err
	})
	require.NoError(t, err)
	require.Len(t, m.ByType(tokenClass), 5)
	for _, sc := range m.ByType(tokenClass) {
		assert.Contains(t, sc.Provider, "::existing::", sc.Name)
	}
}

func TestStorageAccountsSecureDefaults(t *testing.T) {
	var files, blob, filesID *await
	m, err := run(t, func(ctx *pulumi.Context) error {
		a, err := NewStorageAccounts(ctx, "ml", &StorageAccountsArgs{
			ResourceGroupName: pulumi.String("rg-ml"),
			Spec: AccountsSpec{
				NamePrefix: "mlprod", BlobNFS: true, PrivateNetwork: true,
				AllowedSubnetIDs: []string{subnetID}, AllowedIPRanges: []string{"203.0.113.0/24"},
			},
			Protect: true,
		})
		if err != nil {
			return err
		}
		files, blob, filesID = awaitString(a.FilesAccountName), awaitString(a.BlobAccountName), awaitString(a.FilesAccountResourceID)
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, "mlprodfiles", files.get())
	assert.Equal(t, "mlprodblob", blob.get())
	assert.Equal(t, "ml-files-id", filesID.get())

	f := m.ByName(t, "ml-files")
	assert.True(t, f.Protect, "the account holding checkpoints is protected in prod")
	for k, v := range map[string]any{
		"accountName": "mlprodfiles", "resourceGroupName": "rg-ml", "kind": "FileStorage",
		"enableHttpsTrafficOnly": true, "minimumTlsVersion": "TLS1_2", "allowBlobPublicAccess": false,
		"allowSharedKeyAccess": true, "allowCrossTenantReplication": false,
	} {
		assert.Equal(t, v, f.Inputs[k], "files account %s", k)
	}
	assert.Equal(t, "Premium_LRS", mocktest.Get(f.Inputs, "sku", "name"))
	assert.Equal(t, "Deny", mocktest.Get(f.Inputs, "networkRuleSet", "defaultAction"))
	assert.Equal(t, "AzureServices", mocktest.Get(f.Inputs, "networkRuleSet", "bypass"))
	assert.Equal(t, subnetID, mocktest.Get(f.Inputs, "networkRuleSet", "virtualNetworkRules").([]any)[0].(map[string]any)["virtualNetworkResourceId"])
	assert.Equal(t, "203.0.113.0/24", mocktest.Get(f.Inputs, "networkRuleSet", "ipRules").([]any)[0].(map[string]any)["iPAddressOrRange"])

	b := m.ByName(t, "ml-blob")
	assert.True(t, b.Protect, "the account holding the teams' containers is protected in prod too")
	for k, v := range map[string]any{
		"accountName": "mlprodblob", "kind": "BlockBlobStorage", "isHnsEnabled": true, "enableNfsV3": true,
		"enableHttpsTrafficOnly": false, "minimumTlsVersion": "TLS1_2", "allowBlobPublicAccess": false,
		"allowSharedKeyAccess": false, "allowCrossTenantReplication": false,
	} {
		assert.Equal(t, v, b.Inputs[k], "blob account %s", k)
	}
	assert.Equal(t, "Premium_LRS", mocktest.Get(b.Inputs, "sku", "name"))
	assert.Equal(t, "Deny", mocktest.Get(b.Inputs, "networkRuleSet", "defaultAction"))
	assert.Empty(t, mocktest.Get(b.Inputs, "networkRuleSet", "ipRules"), "NFS is reachable from subnets only")
}

func TestStorageAccountsDevDefaults(t *testing.T) {
	var blobName *await
	m, err := run(t, func(ctx *pulumi.Context) error {
		a, err := NewStorageAccounts(ctx, "ml", &StorageAccountsArgs{
			ResourceGroupName: pulumi.String("rg-dev"),
			Spec:              AccountsSpec{FilesAccountName: "mldevshared"},
		})
		if err != nil {
			return err
		}
		blobName = awaitString(a.BlobAccountName)
		return nil
	})
	require.NoError(t, err)
	assert.Len(t, m.ByType(tokenAccount), 1, "the Blob NFS account is opt-in")
	f := m.ByName(t, "ml-files")
	assert.False(t, f.Protect)
	assert.Equal(t, "mldevshared", f.Inputs["accountName"])
	assert.Equal(t, "Allow", mocktest.Get(f.Inputs, "networkRuleSet", "defaultAction"))
	assert.Equal(t, "", blobName.get(), "outputs are always set")
}

func TestStorageAccountsValidateBeforeRegistering(t *testing.T) {
	m, err := run(t, func(ctx *pulumi.Context) error {
		_, err := NewStorageAccounts(ctx, "ml", &StorageAccountsArgs{
			ResourceGroupName: pulumi.String("rg"),
			Spec:              AccountsSpec{NamePrefix: "Bad-Prefix", BlobNFS: true},
		})
		return err
	})
	// The component reports below its default root; the nodeAccess problem
	// is the Blob NFS account without a route for the nodes.
	fieldtest.Equal(t, err, fieldtest.Invalid("storage.accounts.namePrefix"), fieldtest.Invalid("storage.accounts.nodeAccess"))
	assert.Empty(t, m.All(), "nothing is registered when the spec is invalid")
}

func TestClassAccountsFromStorageAccounts(t *testing.T) {
	m, err := run(t, func(ctx *pulumi.Context) error {
		a, err := NewStorageAccounts(ctx, "ml", &StorageAccountsArgs{
			ResourceGroupName: pulumi.String("rg-ml"),
			Spec:              AccountsSpec{NamePrefix: "mlprod", BlobNFS: true, AllowedSubnetIDs: []string{subnetID}},
		})
		if err != nil {
			return err
		}
		_, err = NewStorageClasses(ctx, "ml", &StorageClassesArgs{Accounts: a.ClassAccounts()})
		return err
	})
	require.NoError(t, err)
	assert.Equal(t, "mlprodfiles", mocktest.Get(m.ByName(t, "ml-checkpoints").Inputs, "parameters", "storageAccount"))
	assert.Equal(t, "mlprodblob", mocktest.Get(m.ByName(t, "ml-blob-nfs").Inputs, "parameters", "storageAccount"))
	assert.Equal(t, "rg-ml", mocktest.Get(m.ByName(t, "ml-blob-nfs").Inputs, "parameters", "resourceGroup"))
	assert.Equal(t, "nfs", mocktest.Get(m.ByName(t, "ml-blob-nfs").Inputs, "parameters", "protocol"))
}

func TestTeamVolumes(t *testing.T) {
	tests := []struct {
		name          string
		args          TeamVolumesArgs
		wantClass     string
		wantDatasets  string
		wantCkpt      string
		wantRetention bool
		wantKeepData  bool
	}{
		{"defaults", TeamVolumesArgs{}, "ml-azurefile-premium", "100Gi", "100Gi", false, false},
		{"prod retains checkpoints", TeamVolumesArgs{RetainCheckpoints: true, Spec: VolumesSpec{CheckpointsSize: "2Ti"}}, "ml-azurefile-premium", "100Gi", "2Ti", true, false},
		{"prod retains datasets", TeamVolumesArgs{RetainCheckpoints: true, RetainDatasets: true}, "ml-azurefile-premium", "100Gi", "100Gi", true, true},
		{"blob datasets", TeamVolumesArgs{Spec: VolumesSpec{DatasetsClass: BlobNFSClass, DatasetsSize: "1Ti"}}, "ml-azureblob-nfs", "1Ti", "100Gi", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ds, ck *await
			m, err := run(t, func(ctx *pulumi.Context) error {
				args := tt.args
				args.Namespace = pulumi.String("team-a")
				v, err := NewTeamVolumes(ctx, "team-a", &args)
				if err != nil {
					return err
				}
				ds, ck = awaitString(v.DatasetsClaimName), awaitString(v.CheckpointsClaimName)
				return nil
			})
			require.NoError(t, err)
			require.Len(t, m.ByType(tokenPVC), 2)
			assert.Equal(t, DatasetsPVCName, ds.get())
			assert.Equal(t, CheckpointsPVCName, ck.get())

			d := m.ByName(t, "team-a-datasets")
			assert.Equal(t, "shared-training-data", mocktest.Get(d.Inputs, "metadata", "name"))
			assert.Equal(t, "team-a", mocktest.Get(d.Inputs, "metadata", "namespace"))
			assert.Equal(t, []string{"ReadWriteMany"}, strs(mocktest.Get(d.Inputs, "spec", "accessModes")))
			assert.Equal(t, tt.wantClass, mocktest.Get(d.Inputs, "spec", "storageClassName"))
			assert.Equal(t, tt.wantDatasets, mocktest.Get(d.Inputs, "spec", "resources", "requests", "storage"))
			assert.Equal(t, tt.wantKeepData, d.RetainOnDelete, "RetainOnDelete on the datasets claim")

			c := m.ByName(t, "team-a-checkpoints")
			assert.Equal(t, "model-checkpoints", mocktest.Get(c.Inputs, "metadata", "name"))
			assert.Equal(t, "team-a", mocktest.Get(c.Inputs, "metadata", "namespace"))
			assert.Equal(t, []string{"ReadWriteMany"}, strs(mocktest.Get(c.Inputs, "spec", "accessModes")))
			assert.Equal(t, "ml-checkpoints-azurefile", mocktest.Get(c.Inputs, "spec", "storageClassName"))
			assert.Equal(t, tt.wantCkpt, mocktest.Get(c.Inputs, "spec", "resources", "requests", "storage"))
			assert.Equal(t, tt.wantRetention, c.RetainOnDelete, "RetainOnDelete on the checkpoints claim")
			assert.False(t, c.Protect)
		})
	}
}

func TestTeamVolumesValidateBeforeRegistering(t *testing.T) {
	m, err := run(t, func(ctx *pulumi.Context) error {
		_, err := NewTeamVolumes(ctx, "team-a", &TeamVolumesArgs{
			Namespace:  pulumi.String("team-a"),
			Spec:       VolumesSpec{CheckpointsSize: "10Gi"},
			ConfigPath: "aksml:storage",
		})
		return err
	})
	fieldtest.Equal(t, err, fieldtest.Invalid("aksml:storage.volumes.checkpointsSize"))
	assert.Empty(t, m.All())

	_, err = run(t, func(ctx *pulumi.Context) error {
		_, err := NewTeamVolumes(ctx, "team-a", &TeamVolumesArgs{})
		return err
	})
	assert.ErrorContains(t, err, "Namespace")
}

func TestParseStorageSize(t *testing.T) {
	tests := []struct {
		in     string
		gib    float64
		wantOK bool
	}{
		{"100Gi", 100, true},
		{"1Ti", 1024, true},
		{"1.5Ti", 1536, true},
		{"512Mi", 0.5, true},
		{"1073741824", 1, true},
		{"100", 100.0 / (1 << 30), true},
		{"100GB", 0, false},
		{"1e3", 0, false},
		{"-1Gi", 0, false},
		{"", 0, false},
		{"Gi", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseStorageSize(tt.in)
		assert.Equal(t, tt.wantOK, ok, tt.in)
		assert.InDelta(t, tt.gib, got, 1e-9, tt.in)
	}
}

func TestSpecValidate(t *testing.T) {
	okAccounts := func(mut func(*AccountsSpec)) Spec {
		s := Spec{Accounts: &AccountsSpec{NamePrefix: "mlprod"}}
		mut(s.Accounts)
		return s
	}
	volumes := func(mut func(*VolumesSpec)) Spec {
		s := Spec{}
		mut(&s.Volumes)
		return s
	}
	tests := []struct {
		name string
		in   Spec
		want []fieldtest.Want // nil: valid
	}{
		{"defaults", Spec{}, nil},
		{"accounts from prefix", okAccounts(func(*AccountsSpec) {}), nil},
		{"private with subnet and blob", okAccounts(func(a *AccountsSpec) {
			a.PrivateNetwork, a.BlobNFS, a.AllowedSubnetIDs = true, true, []string{subnetID}
		}), nil},
		{"private with ip only", okAccounts(func(a *AccountsSpec) {
			a.PrivateNetwork, a.AllowedIPRanges = true, []string{"203.0.113.7", "198.51.100.0/30"}
		}), nil},
		{"explicit names", Spec{Accounts: &AccountsSpec{FilesAccountName: "abc", BlobNFS: true, BlobAccountName: "abd", AllowedSubnetIDs: []string{subnetID}}}, nil},
		{"prefix uppercase", okAccounts(func(a *AccountsSpec) { a.NamePrefix = "MLprod" }), []fieldtest.Want{fieldtest.Invalid("aksml:storage.accounts.namePrefix")}},
		{"prefix too long", okAccounts(func(a *AccountsSpec) { a.NamePrefix = strings.Repeat("a", 20) }), []fieldtest.Want{fieldtest.Invalid("aksml:storage.accounts.namePrefix")}},
		{"no name at all", Spec{Accounts: &AccountsSpec{}}, []fieldtest.Want{fieldtest.Required("aksml:storage.accounts.namePrefix")}},
		{"files name too short", okAccounts(func(a *AccountsSpec) { a.FilesAccountName = "ab" }), []fieldtest.Want{fieldtest.Invalid("aksml:storage.accounts.filesAccountName")}},
		{"files name with hyphen", okAccounts(func(a *AccountsSpec) { a.FilesAccountName = "ml-files" }), []fieldtest.Want{fieldtest.Invalid("aksml:storage.accounts.filesAccountName")}},
		{"blob name without blobNfs", okAccounts(func(a *AccountsSpec) { a.BlobAccountName = "mlblob" }), []fieldtest.Want{fieldtest.Invalid("aksml:storage.accounts.blobAccountName")}},
		{"blob name invalid", okAccounts(func(a *AccountsSpec) {
			a.BlobNFS, a.BlobAccountName, a.AllowedSubnetIDs = true, "ML_BLOB", []string{subnetID}
		}), []fieldtest.Want{fieldtest.Invalid("aksml:storage.accounts.blobAccountName")}},
		{"blob without any name", Spec{Accounts: &AccountsSpec{FilesAccountName: "mlfiles", BlobNFS: true, AllowedSubnetIDs: []string{subnetID}}}, []fieldtest.Want{fieldtest.Required("aksml:storage.accounts.blobAccountName")}},
		{"same names", Spec{Accounts: &AccountsSpec{FilesAccountName: "mlshared", BlobNFS: true, BlobAccountName: "mlshared", AllowedSubnetIDs: []string{subnetID}}}, []fieldtest.Want{fieldtest.Invalid("aksml:storage.accounts.blobAccountName")}},
		{"bad subnet id", okAccounts(func(a *AccountsSpec) { a.AllowedSubnetIDs = []string{"aks-subnet"} }), []fieldtest.Want{fieldtest.Invalid("aksml:storage.accounts.allowedSubnetIds[0]")}},
		{"ip not an address", okAccounts(func(a *AccountsSpec) { a.PrivateNetwork = true; a.AllowedIPRanges = []string{"example.com"} }), []fieldtest.Want{fieldtest.Invalid("aksml:storage.accounts.allowedIpRanges[0]")}},
		{"ip /32", okAccounts(func(a *AccountsSpec) { a.PrivateNetwork = true; a.AllowedIPRanges = []string{"203.0.113.7/32"} }), []fieldtest.Want{fieldtest.Invalid("aksml:storage.accounts.allowedIpRanges[0]")}},
		{"ip private", okAccounts(func(a *AccountsSpec) { a.PrivateNetwork = true; a.AllowedIPRanges = []string{"10.0.0.0/8"} }), []fieldtest.Want{fieldtest.Invalid("aksml:storage.accounts.allowedIpRanges[0]")}},
		{"ip v6", okAccounts(func(a *AccountsSpec) { a.PrivateNetwork = true; a.AllowedIPRanges = []string{"2001:db8::1"} }), []fieldtest.Want{fieldtest.Invalid("aksml:storage.accounts.allowedIpRanges[0]")}},
		{"ip host bits", okAccounts(func(a *AccountsSpec) { a.PrivateNetwork = true; a.AllowedIPRanges = []string{"203.0.113.7/24"} }), []fieldtest.Want{fieldtest.Invalid("aksml:storage.accounts.allowedIpRanges[0]")}},
		{"ip rules on public accounts", okAccounts(func(a *AccountsSpec) { a.AllowedIPRanges = []string{"203.0.113.0/24"} }), []fieldtest.Want{fieldtest.Invalid("aksml:storage.accounts.allowedIpRanges")}},
		{"private, route checked by ValidateRoute", okAccounts(func(a *AccountsSpec) { a.PrivateNetwork = true }), nil},
		{"node access unknown", okAccounts(func(a *AccountsSpec) { a.PrivateNetwork, a.NodeAccess = true, "Peering" }), []fieldtest.Want{fieldtest.NotSupported("aksml:storage.accounts.nodeAccess")}},
		{"node access without a private account", okAccounts(func(a *AccountsSpec) { a.NodeAccess = NodeAccessServiceEndpoint }), []fieldtest.Want{fieldtest.Invalid("aksml:storage.accounts.nodeAccess")}},
		{"datasets class unknown", volumes(func(v *VolumesSpec) { v.DatasetsClass = "azurefile-csi" }), []fieldtest.Want{fieldtest.NotSupported("aksml:storage.volumes.datasetsClass")}},
		{"datasets size not a quantity", volumes(func(v *VolumesSpec) { v.DatasetsSize = "100GB" }), []fieldtest.Want{fieldtest.Invalid("aksml:storage.volumes.datasetsSize")}},
		{"datasets size zero", volumes(func(v *VolumesSpec) { v.DatasetsSize = "0Gi" }), []fieldtest.Want{fieldtest.Invalid("aksml:storage.volumes.datasetsSize")}},
		{"datasets below files minimum", volumes(func(v *VolumesSpec) { v.DatasetsSize = "50Gi" }), []fieldtest.Want{fieldtest.Invalid("aksml:storage.volumes.datasetsSize")}},
		{"small blob datasets are fine", volumes(func(v *VolumesSpec) { v.DatasetsClass, v.DatasetsSize = BlobNFSClass, "10Gi" }), nil},
		{"small block-cache datasets are fine", volumes(func(v *VolumesSpec) { v.DatasetsClass, v.DatasetsSize = BlobBlockCacheClass, "10Gi" }), nil},
		{"datasets above files maximum", volumes(func(v *VolumesSpec) { v.DatasetsSize = "101Ti" }), []fieldtest.Want{fieldtest.Invalid("aksml:storage.volumes.datasetsSize")}},
		{"checkpoints not a quantity", volumes(func(v *VolumesSpec) { v.CheckpointsSize = "lots" }), []fieldtest.Want{fieldtest.Invalid("aksml:storage.volumes.checkpointsSize")}},
		{"checkpoints below minimum", volumes(func(v *VolumesSpec) { v.CheckpointsSize = "10Gi" }), []fieldtest.Want{fieldtest.Invalid("aksml:storage.volumes.checkpointsSize")}},
		{"scratch disk Premium SSD v2", Spec{ScratchDiskSKU: PremiumV2LRS}, nil},
		{"scratch disk Standard HDD", Spec{ScratchDiskSKU: "Standard_LRS"}, []fieldtest.Want{fieldtest.NotSupported("aksml:storage.scratchDiskSku")}},
		{"scratch disk case", Spec{ScratchDiskSKU: "premium_lrs"}, []fieldtest.Want{fieldtest.NotSupported("aksml:storage.scratchDiskSku")}},
		{"every problem at once", Spec{
			Accounts: &AccountsSpec{NamePrefix: "UPPER", PrivateNetwork: true, NodeAccess: "Bogus"},
			Volumes:  VolumesSpec{DatasetsClass: "nope", CheckpointsSize: "1"},
		}, []fieldtest.Want{fieldtest.Invalid("aksml:storage.accounts.namePrefix"), fieldtest.NotSupported("aksml:storage.accounts.nodeAccess"), fieldtest.NotSupported("aksml:storage.volumes.datasetsClass"), fieldtest.Invalid("aksml:storage.volumes.checkpointsSize")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.in
			s.Default()
			err := s.Validate(field.NewPath("aksml:storage")).ToAggregate()
			fieldtest.Equal(t, err, tt.want...)
		})
	}
}

func TestAccountNamesDerivedFromPrefix(t *testing.T) {
	a := AccountsSpec{NamePrefix: "mlprod"}
	assert.Equal(t, "mlprodfiles", a.FilesName())
	assert.Equal(t, "", a.BlobName(), "no blob account without BlobNFS")
	a.BlobNFS = true
	assert.Equal(t, "mlprodblob", a.BlobName())
	a.FilesAccountName, a.BlobAccountName = "custfiles", "custblob"
	assert.Equal(t, "custfiles", a.FilesName())
	assert.Equal(t, "custblob", a.BlobName())
}

func TestStorageAccountsGrantTheCSIIdentity(t *testing.T) {
	const roleToken = "azure-native:authorization:RoleAssignment"
	m, err := run(t, func(ctx *pulumi.Context) error {
		_, err := NewStorageAccounts(ctx, "ml", &StorageAccountsArgs{
			ResourceGroupName: pulumi.String("rg-ml"),
			Spec:              AccountsSpec{NamePrefix: "mlprod", BlobNFS: true, AllowedSubnetIDs: []string{subnetID}},
			CSIPrincipalID:    pulumi.String("00000000-0000-0000-0000-0000000000aa"),
		})
		return err
	})
	require.NoError(t, err)
	grants := m.ByType(roleToken)
	require.Len(t, grants, 2, "one grant per account")
	scopes := map[string]bool{}
	for _, g := range grants {
		scopes[g.Inputs["scope"].(string)] = true
		assert.Equal(t, "00000000-0000-0000-0000-0000000000aa", g.Inputs["principalId"])
		assert.Equal(t, "ServicePrincipal", g.Inputs["principalType"])
		assert.True(t, strings.HasSuffix(g.Inputs["roleDefinitionId"].(string), "/providers/Microsoft.Authorization/roleDefinitions/"+StorageAccountContributorRoleID))
	}
	assert.Equal(t, map[string]bool{"ml-files-id": true, "ml-blob-id": true}, scopes)

	m, err = run(t, func(ctx *pulumi.Context) error {
		_, err := NewStorageAccounts(ctx, "ml", &StorageAccountsArgs{ResourceGroupName: pulumi.String("rg-ml"), Spec: AccountsSpec{NamePrefix: "mldev"}})
		return err
	})
	require.NoError(t, err)
	assert.Empty(t, m.ByType(roleToken), "no identity given, no grant")
}

// TestValidateRoute: accounts that deny public networks need a route the
// nodes can use; IP rules are never one (same-region traffic ignores them).
func TestValidateRoute(t *testing.T) {
	p := field.NewPath("aksml:storage").Child("accounts")
	tests := []struct {
		name             string
		spec             AccountsSpec
		nodeSubnet, peOK bool
		want             string // "" means valid
	}{
		{"public needs nothing", AccountsSpec{NamePrefix: "x"}, false, false, ""},
		{"IP rules only", AccountsSpec{NamePrefix: "x", PrivateNetwork: true, AllowedIPRanges: []string{"203.0.113.0/24"}}, false, false, "PrivateEndpoint needs private endpoints"},
		{"private endpoints provided", AccountsSpec{NamePrefix: "x", PrivateNetwork: true}, false, true, ""},
		{"service endpoint without subnet", AccountsSpec{NamePrefix: "x", PrivateNetwork: true, NodeAccess: NodeAccessServiceEndpoint}, false, true, "ServiceEndpoint needs the node subnet"},
		{"service endpoint with subnet", AccountsSpec{NamePrefix: "x", PrivateNetwork: true, NodeAccess: NodeAccessServiceEndpoint}, true, false, ""},
		{"blob NFS without route", AccountsSpec{NamePrefix: "x", BlobNFS: true}, false, false, "aksml:storage.accounts.nodeAccess"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.spec.ValidateRoute(p, field.NewPath("aksml:network"), tt.nodeSubnet, tt.peOK).ToAggregate()
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestRouteMessagesNameTheCallersNetwork: the route problems point to the
// network section below the root the caller gives, not the aksml
// program's config namespace.
func TestRouteMessagesNameTheCallersNetwork(t *testing.T) {
	for _, spec := range []AccountsSpec{
		{NamePrefix: "x", PrivateNetwork: true},
		{NamePrefix: "x", PrivateNetwork: true, NodeAccess: NodeAccessServiceEndpoint},
	} {
		err := spec.ValidateRoute(field.NewPath("platform:storage").Child("accounts"), field.NewPath("platform:network"), false, false).ToAggregate()
		require.Error(t, err)
		assert.ErrorContains(t, err, "give the cluster a VNet (platform:network)")
		assert.NotContains(t, err.Error(), "aksml:")
	}
	_, err := mocktest.Run(t, func(ctx *pulumi.Context) error {
		_, err := NewStorageAccounts(ctx, "st", &StorageAccountsArgs{ResourceGroupName: pulumi.String("rg"), Spec: AccountsSpec{NamePrefix: "x", PrivateNetwork: true}})
		return err
	})
	if fieldtest.Equal(t, err, fieldtest.Invalid("storage.accounts.nodeAccess")) {
		assert.ErrorContains(t, err, "give the cluster a VNet (network)", "the default root")
	}
}

// TestServiceEndpointRouteAddsNodeSubnetRule: the node subnet's VNet rule
// is on every account that denies by default, and a rejected route
// registers nothing.
func TestServiceEndpointRouteAddsNodeSubnetRule(t *testing.T) {
	m, err := run(t, func(ctx *pulumi.Context) error {
		_, err := NewStorageAccounts(ctx, "ml", &StorageAccountsArgs{
			ResourceGroupName: pulumi.String("rg-ml"),
			Spec:              AccountsSpec{NamePrefix: "mlprod", PrivateNetwork: true, BlobNFS: true, NodeAccess: NodeAccessServiceEndpoint},
			NodeSubnetID:      pulumi.String(subnetID),
		})
		return err
	})
	require.NoError(t, err)
	accounts := m.ByType(tokenAccount)
	require.Len(t, accounts, 2)
	for _, a := range accounts {
		rules := mocktest.Get(a.Inputs, "networkRuleSet", "virtualNetworkRules").([]any)
		require.Len(t, rules, 1, a.Name)
		assert.Equal(t, subnetID, rules[0].(map[string]any)["virtualNetworkResourceId"])
		assert.Equal(t, "Deny", mocktest.Get(a.Inputs, "networkRuleSet", "defaultAction"))
	}

	m, err = run(t, func(ctx *pulumi.Context) error {
		_, err := NewStorageAccounts(ctx, "ml", &StorageAccountsArgs{
			ResourceGroupName: pulumi.String("rg-ml"),
			Spec:              AccountsSpec{NamePrefix: "mlprod", PrivateNetwork: true, AllowedIPRanges: []string{"203.0.113.0/24"}},
		})
		return err
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "same-region")
	assert.Empty(t, m.ByType(tokenAccount), "a config without a route registers nothing")
}

func TestScratchDiskClassFollowsTheAzureDiskCSIExample(t *testing.T) {
	for _, tc := range []struct {
		sku  string
		want map[string]any
	}{
		{"", map[string]any{"skuName": "Premium_LRS"}},
		{"StandardSSD_ZRS", map[string]any{"skuName": "StandardSSD_ZRS"}},
		{"PremiumV2_LRS", map[string]any{"skuName": "PremiumV2_LRS", "cachingMode": "None"}},
	} {
		t.Run("sku "+tc.sku, func(t *testing.T) {
			m, err := run(t, func(ctx *pulumi.Context) error {
				_, err := NewStorageClasses(ctx, "ml", &StorageClassesArgs{
					ScratchDiskSKU: tc.sku,
					Accounts:       &ClassAccounts{ResourceGroupName: pulumi.String("rg-ml"), FilesAccountName: pulumi.String("mlprodfiles")},
				})
				return err
			})
			require.NoError(t, err)
			in := m.ByName(t, "ml-scratch-disk").Inputs
			assert.Equal(t, "ml-scratch-azuredisk", mocktest.Get(in, "metadata", "name"))
			assert.Equal(t, "disk.csi.azure.com", in["provisioner"])
			assert.Equal(t, tc.want, in["parameters"], "managed disks take no storage account parameters")
			assert.Equal(t, "Delete", in["reclaimPolicy"])
			assert.Equal(t, "WaitForFirstConsumer", in["volumeBindingMode"], "the disk is created in the zone of the node the pod lands on")
			assert.Equal(t, true, in["allowVolumeExpansion"])
			_, sent := in["mountOptions"]
			assert.False(t, sent, "no mountOptions key: the API server drops an empty list, and the live class would differ from the one sent")
		})
	}
}

func TestInvalidScratchDiskSKURegistersNothing(t *testing.T) {
	m, err := run(t, func(ctx *pulumi.Context) error {
		_, err := NewStorageClasses(ctx, "ml", &StorageClassesArgs{ScratchDiskSKU: "UltraSSD_LRS"})
		return err
	})
	fieldtest.Equal(t, err, fieldtest.NotSupported("storage.scratchDiskSku"))
	assert.Empty(t, m.All(), "nothing is registered when the SKU is invalid")
}

// TestTeamClaimsWaitForTheCSIGrants: on the first up the claims must not be
// created before the CSI identity may create shares and containers on
// aksml's accounts; given the accounts, every claim depends on every grant.
func TestTeamClaimsWaitForTheCSIGrants(t *testing.T) {
	const roleToken = "azure-native:authorization:RoleAssignment"
	for _, withAccounts := range []bool{true, false} {
		m, err := run(t, func(ctx *pulumi.Context) error {
			acc, err := NewStorageAccounts(ctx, "ml", &StorageAccountsArgs{
				ResourceGroupName: pulumi.String("rg-ml"),
				Spec:              AccountsSpec{NamePrefix: "mlprod", BlobNFS: true, AllowedSubnetIDs: []string{subnetID}},
				CSIPrincipalID:    pulumi.String("00000000-0000-0000-0000-0000000000aa"),
			})
			if err != nil {
				return err
			}
			args := &TeamVolumesArgs{Namespace: pulumi.String("team-a")}
			if withAccounts {
				args.Accounts = acc
			}
			_, err = NewTeamVolumes(ctx, "team-a", args)
			return err
		})
		require.NoError(t, err)
		grants := m.ByType(roleToken)
		require.Len(t, grants, 2)
		for _, claim := range m.ByType(tokenPVC) {
			for _, g := range grants {
				waits := slices.ContainsFunc(claim.Deps, func(urn string) bool { return strings.HasSuffix(urn, roleToken+"::"+g.Name) })
				assert.Equal(t, withAccounts, waits, "claim %s waits for grant %s: %v", claim.Name, g.Name, withAccounts)
			}
		}
	}
}
