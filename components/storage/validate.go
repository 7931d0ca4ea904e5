package storage

import (
	"net/netip"
	"regexp"
	"slices"
	"strings"

	"github.com/aksml/aksml/components/field"
)

var (
	accountNameRE = regexp.MustCompile(`^[a-z0-9]{3,24}$`)
	prefixRE      = regexp.MustCompile(`^[a-z0-9]+$`)
	subnetIDRE    = regexp.MustCompile(`(?i)^/subscriptions/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/resourceGroups/[^/]+/providers/Microsoft\.Network/virtualNetworks/[^/]+/subnets/[^/]+$`)
)

// maxPrefixLen keeps <prefix>files within MaxAccountNameLen.
const maxPrefixLen = MaxAccountNameLen - len(DefaultFilesAccountSuffix)

// ParseStorageSize parses a storage request written as a Kubernetes quantity
// (e.g. 100Gi, 1Ti, 500G) and returns its size in GiB. Exponent and milli
// forms are rejected: they are never meant for volume sizes.
func ParseStorageSize(q string) (float64, bool) {
	b, ok := field.ParseByteSize(q)
	return b / (1 << 30), ok
}

// ValidateAccountName checks an Azure storage account name: 3-24 lowercase
// letters and digits.
func ValidateAccountName(name string, path field.Path) field.ErrorList {
	if !accountNameRE.MatchString(name) {
		return field.ErrorList{field.Invalid(path, "%q is not a valid storage account name: use %d-%d lowercase letters and digits", name, MinAccountNameLen, MaxAccountNameLen)}
	}
	return nil
}

// Validate checks a defaulted Spec and returns every problem, each naming
// its path below path (the stack passes field.NewPath(ConfigKey)).
func (s Spec) Validate(path field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Accounts != nil {
		errs = append(errs, s.Accounts.Validate(path.Child("accounts"))...)
	}
	errs = append(errs, s.Volumes.Validate(path.Child("volumes"))...)
	errs = append(errs, ValidateScratchDiskSKU(s.ScratchDiskSKU, path.Child("scratchDiskSku"))...)
	return errs
}

// ValidateScratchDiskSKU checks the skuName of the scratch disk class; ""
// means the default.
func ValidateScratchDiskSKU(sku string, path field.Path) field.ErrorList {
	if sku == "" || slices.Contains(ScratchDiskSKUs, sku) {
		return nil
	}
	return field.ErrorList{field.NotSupported(path, sku, ScratchDiskSKUs)}
}

// Validate checks the accounts configuration and returns every problem.
func (a AccountsSpec) Validate(path field.Path) field.ErrorList {
	var errs field.ErrorList
	if a.NamePrefix != "" && (len(a.NamePrefix) > maxPrefixLen || !prefixRE.MatchString(a.NamePrefix)) {
		errs = append(errs, field.Invalid(path.Child("namePrefix"), "%q is not a valid account name prefix: use 1-%d lowercase letters and digits (aksml appends %q and %q)", a.NamePrefix, maxPrefixLen, DefaultFilesAccountSuffix, DefaultBlobAccountSuffix))
	}
	switch {
	case a.FilesAccountName != "":
		errs = append(errs, ValidateAccountName(a.FilesAccountName, path.Child("filesAccountName"))...)
	case a.NamePrefix == "":
		errs = append(errs, field.Required(path.Child("namePrefix"), "a globally unique prefix for the storage account names (or set filesAccountName)"))
	}
	if a.BlobAccountName != "" {
		if !a.BlobNFS {
			errs = append(errs, field.Invalid(path.Child("blobAccountName"), "is set but blobNfs is false; set blobNfs: true to create the Blob NFS account, or remove blobAccountName"))
		} else {
			errs = append(errs, ValidateAccountName(a.BlobAccountName, path.Child("blobAccountName"))...)
		}
	} else if a.BlobNFS && a.NamePrefix == "" {
		errs = append(errs, field.Required(path.Child("blobAccountName"), "a name for the Blob NFS account (or set namePrefix)"))
	}
	if a.BlobNFS && a.FilesName() != "" && a.FilesName() == a.BlobName() {
		errs = append(errs, field.Invalid(path.Child("blobAccountName"), "%q is also the Azure Files account name; the two accounts need different names", a.BlobName()))
	}

	for i, id := range a.AllowedSubnetIDs {
		if !subnetIDRE.MatchString(id) {
			errs = append(errs, field.Invalid(path.Child("allowedSubnetIds").Index(i), "%q is not a subnet resource ID; write /subscriptions/<id>/resourceGroups/<rg>/providers/Microsoft.Network/virtualNetworks/<vnet>/subnets/<subnet>", id))
		}
	}
	for i, r := range a.AllowedIPRanges {
		if detail := checkIPRule(r); detail != "" {
			errs = append(errs, field.Invalid(path.Child("allowedIpRanges").Index(i), "%q %s", r, detail))
		}
	}
	if len(a.AllowedIPRanges) > 0 && !a.NeedsRoute() {
		// IP rules only narrow an account whose default action is Deny
		// ("Configure Azure Storage firewalls and virtual networks",
		// https://learn.microsoft.com/azure/storage/common/storage-network-security).
		errs = append(errs, field.Invalid(path.Child("allowedIpRanges"), "changes nothing: no account denies public networks (privateNetwork and blobNfs are false), so every address is already allowed; remove it, or set privateNetwork: true"))
	}
	switch {
	case a.NodeAccess != "" && !a.NeedsRoute():
		errs = append(errs, field.Invalid(path.Child("nodeAccess"), "is set but no account denies public networks (privateNetwork and blobNfs are false); remove it, or set privateNetwork: true"))
	case a.NodeAccess != "" && !slices.Contains(NodeAccesses, a.NodeAccess):
		errs = append(errs, field.NotSupported(path.Child("nodeAccess"), a.NodeAccess, NodeAccesses))
	}
	return errs
}

// ValidateRoute checks that the nodes have a route to accounts that deny
// public networks, given what the caller provides: nodeSubnet (the node
// subnet's VNet rule is added, for ServiceEndpoint) and privateEndpoints
// (the caller creates file/blob private endpoints, for PrivateEndpoint).
// Problems are named below path; networkPath is the caller's network
// section, which the messages point to (the aksml program passes
// `aksml:network`).
func (a AccountsSpec) ValidateRoute(path, networkPath field.Path, nodeSubnet, privateEndpoints bool) field.ErrorList {
	switch a.Route() {
	case NodeAccessServiceEndpoint:
		if !nodeSubnet && len(a.AllowedSubnetIDs) == 0 {
			return field.ErrorList{field.Invalid(path.Child("nodeAccess"), "ServiceEndpoint needs the node subnet: the accounts deny public networks and IP rules do not match same-region traffic, so the nodes have no route; give the cluster a VNet (%s) or use PrivateEndpoint", networkPath)}
		}
	case NodeAccessPrivateEndpoint:
		if !privateEndpoints && len(a.AllowedSubnetIDs) == 0 {
			return field.ErrorList{field.Invalid(path.Child("nodeAccess"), "PrivateEndpoint needs private endpoints in the cluster VNet: the accounts deny public networks and IP rules do not match same-region traffic, so the nodes have no route; give the cluster a VNet (%s)", networkPath)}
		}
	}
	return nil
}

// checkIPRule returns why r cannot be a storage firewall IP rule, or "".
func checkIPRule(r string) string {
	var addr netip.Addr
	if strings.Contains(r, "/") {
		p, err := netip.ParsePrefix(r)
		if err != nil {
			return "is not an IPv4 address or CIDR range"
		}
		if p.Bits() > 30 {
			return "is a /31 or /32 range, which Azure Storage rejects; write the single address without a prefix"
		}
		if p.Masked() != p {
			return "has host bits set; write the network address, e.g. " + p.Masked().String()
		}
		addr = p.Addr()
	} else {
		a, err := netip.ParseAddr(r)
		if err != nil {
			return "is not an IPv4 address or CIDR range"
		}
		addr = a
	}
	switch {
	case !addr.Is4():
		return "is not IPv4; Azure Storage IP rules take IPv4 only"
	case addr.IsPrivate() || addr.IsLoopback() || addr.IsUnspecified() || addr.IsLinkLocalUnicast():
		return "is not a public address; IP rules only match public addresses, use allowedSubnetIds for virtual networks"
	}
	return ""
}

// Validate checks the claims configuration and returns every problem.
func (v VolumesSpec) Validate(path field.Path) field.ErrorList {
	var errs field.ErrorList
	if !slices.Contains(DatasetsClasses, v.DatasetsClass) {
		errs = append(errs, field.NotSupported(path.Child("datasetsClass"), v.DatasetsClass, DatasetsClasses))
	}
	errs = append(errs, validateSize(v.DatasetsSize, v.DatasetsClass == AzureFilePremiumClass, path.Child("datasetsSize"))...)
	errs = append(errs, validateSize(v.CheckpointsSize, true, path.Child("checkpointsSize"))...)
	return errs
}

// validateSize checks a claim size; onAzureFiles adds the premium share limits.
func validateSize(q string, onAzureFiles bool, path field.Path) field.ErrorList {
	gib, ok := ParseStorageSize(q)
	switch {
	case !ok:
		return field.ErrorList{field.Invalid(path, "%q is not a storage quantity; write e.g. 100Gi or 1Ti", q)}
	case gib <= 0:
		return field.ErrorList{field.Invalid(path, "%q is zero; request a positive size such as 100Gi", q)}
	case onAzureFiles && gib < MinPremiumFileShareGiB:
		return field.ErrorList{field.Invalid(path, "%q is below the %dGi minimum of an Azure Files premium share (it would be provisioned and billed at %dGi); request at least %dGi", q, MinPremiumFileShareGiB, MinPremiumFileShareGiB, MinPremiumFileShareGiB)}
	case onAzureFiles && gib > MaxPremiumFileShareGiB:
		return field.ErrorList{field.Invalid(path, "%q exceeds the 100Ti maximum of an Azure Files premium share; request at most 100Ti", q)}
	}
	return nil
}
