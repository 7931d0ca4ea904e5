package cluster

import (
	"fmt"
	"maps"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/network"
)

var (
	clusterNameRE = regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9_-]{0,61}[a-zA-Z0-9])?$`)
	dnsPrefixRE   = regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9-]{0,52}[a-zA-Z0-9])?$`)
	versionRE     = regexp.MustCompile(`^\d+\.\d+(\.\d+)?$`)
	guidRE        = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	workspaceRE   = regexp.MustCompile(`(?i)^/subscriptions/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/resourceGroups/[-\w._()]{1,90}/providers/Microsoft\.OperationalInsights/workspaces/[^/]+$`)
	startTimeRE   = regexp.MustCompile(`^([01]\d|2[0-3]):[0-5]\d$`)
	utcOffsetRE   = regexp.MustCompile(`^[+-](0\d|1[0-4]):[0-5]\d$`)
	vmSizeRE      = regexp.MustCompile(`^Standard_[A-Za-z0-9_]+$`)
)

// AutoscalerKeys returns the AKS names of the cluster autoscaler settings
// AutoscalerProfile may set, sorted.
func AutoscalerKeys() []string { return slices.Sorted(maps.Keys(autoscalerSettings)) }

// Validate checks a defaulted Spec and returns every problem, each naming
// its path below path (e.g. `aksml:cluster`).
func (s Spec) Validate(path field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case s.Name == "":
		errs = append(errs, field.Required(path.Child("name"), "the AKS cluster name (1-63 letters, digits, '-' or '_')"))
	case !clusterNameRE.MatchString(s.Name):
		errs = append(errs, field.Invalid(path.Child("name"), "%q is not a valid AKS cluster name: use 1-63 letters, digits, '-' or '_', starting and ending with a letter or digit", s.Name))
	}
	switch {
	case s.Location == "":
		errs = append(errs, field.Required(path.Child("location"), "the Azure region, e.g. eastus"))
	case field.LocationProblem(s.Location) != "":
		errs = append(errs, field.Invalid(path.Child("location"), "%q is not an Azure region name: %s", s.Location, field.LocationProblem(s.Location)))
	}
	errs = append(errs, validateResourceGroup(s.ResourceGroup, path.Child("resourceGroup"))...)

	switch s.Mode {
	case ModeStandard:
	case ModeAutomatic:
		errs = append(errs, field.Forbidden(path.Child("mode"), "Automatic needs managed cluster sku name Automatic, which the containerservice API aksml uses (2024-10-01, the newest GA API in azure-native SDK v2.88.0) does not have; use Standard"))
	default:
		errs = append(errs, field.NotSupported(path.Child("mode"), s.Mode, []Mode{ModeStandard, ModeAutomatic}))
	}
	if !slices.Contains(Tiers, s.Tier) {
		errs = append(errs, field.NotSupported(path.Child("tier"), s.Tier, Tiers))
	}
	nameIsRoot := !clusterNameRE.MatchString(s.Name) && s.DNSPrefix == defaultDNSPrefix(s.Name)
	if !nameIsRoot && !dnsPrefixRE.MatchString(s.DNSPrefix) {
		errs = append(errs, field.Invalid(path.Child("dnsPrefix"), "%q is not a valid DNS prefix: use 1-54 letters, digits or '-', starting and ending with a letter or digit", s.DNSPrefix))
	}
	errs = append(errs, s.validateVersion(path)...)
	errs = append(errs, s.KubeClient.Validate(path.Child("kubeClient"))...)
	switch {
	case !slices.Contains(NodeOSUpgradeChannels, s.NodeOSUpgradeChannel):
		errs = append(errs, field.NotSupported(path.Child("nodeOSUpgradeChannel"), s.NodeOSUpgradeChannel, NodeOSUpgradeChannels))
	case s.UpgradeChannel == UpgradeChannelNodeImage && s.NodeOSUpgradeChannel != NodeOSChannelNodeImage:
		// "Auto-upgrade node OS images", node channel known limitations
		// (https://learn.microsoft.com/azure/aks/auto-upgrade-node-os-image):
		// with cluster channel node-image AKS sets the node OS channel to
		// NodeImage and refuses any other value.
		errs = append(errs, field.Forbidden(path.Child("nodeOSUpgradeChannel"), "%s cannot be combined with upgradeChannel node-image: AKS then forces the node OS channel to NodeImage; remove nodeOSUpgradeChannel (or set NodeImage), or choose another upgradeChannel", s.NodeOSUpgradeChannel))
	}

	sp := path.Child("systemPool")
	errs = append(errs, validatePool(s.SystemPool.VMSize, s.SystemPool.Min(), s.SystemPool.MaxCount, 1, s.SystemPool.Zones, s.SystemPool.OSDiskSizeGB, sp)...)
	if !s.CPUPool.Disabled {
		errs = append(errs, validatePool(s.CPUPool.VMSize, s.CPUPool.Min(), s.CPUPool.MaxCount, 0, s.CPUPool.Zones, s.CPUPool.OSDiskSizeGB, path.Child("cpuPool"))...)
	}
	errs = append(errs, validateNetwork(s.Network, path.Child("network"))...)
	if s.EntraID != nil {
		errs = append(errs, validateEntraID(*s.EntraID, s.LocalAccountsDisabled(), path.Child("entraID"))...)
	}
	errs = append(errs, validateAPIServer(s.APIServer, path.Child("apiServer"))...)
	errs = append(errs, s.Logs.Validate(path.Child("logs"))...)
	if s.Registry != nil {
		errs = append(errs, s.Registry.Validate(path.Child("registry"))...)
	}
	if s.Defender.Enabled {
		wp := path.Child("defender").Child("logAnalyticsWorkspaceId")
		switch {
		case s.Defender.LogAnalyticsWorkspaceID == "":
			errs = append(errs, field.Required(wp, "the resource ID of the Log Analytics workspace Defender reports to, when defender.enabled is true"))
		case !workspaceRE.MatchString(s.Defender.LogAnalyticsWorkspaceID):
			errs = append(errs, field.Invalid(wp, "%q is not a Log Analytics workspace resource ID (/subscriptions/<subscription-guid>/resourceGroups/<rg>/providers/Microsoft.OperationalInsights/workspaces/<name>)", s.Defender.LogAnalyticsWorkspaceID))
		}
	}
	errs = append(errs, validateAutoscaler(s.AutoscalerProfile, path.Child("autoscalerProfile"))...)
	if s.MaintenanceWindow != nil && s.UpgradeChannel == "none" && s.NodeOSUpgradeChannel == "None" {
		// The window is the schedule of aksManagedAutoUpgradeSchedule and
		// aksManagedNodeOSUpgradeSchedule ("Use Planned Maintenance to
		// schedule and control upgrades for your AKS cluster",
		// https://learn.microsoft.com/azure/aks/planned-maintenance), which
		// only the two auto-upgrade channels use.
		errs = append(errs, field.Invalid(path.Child("maintenanceWindow"), "schedules nothing: upgradeChannel is none and nodeOSUpgradeChannel is None, and the window only schedules those two auto-upgrades; remove it, or turn a channel on (nodeOSUpgradeChannel: NodeImage keeps node images patched)"))
	}
	if s.MaintenanceWindow != nil {
		errs = append(errs, validateMaintenance(*s.MaintenanceWindow, path.Child("maintenanceWindow"))...)
	}
	return errs
}

func validateResourceGroup(rg ResourceGroup, path field.Path) field.ErrorList {
	switch {
	case rg.Name == "":
		return field.ErrorList{field.Required(path.Child("name"), "the resource group name; set existing: true to use a group that already exists")}
	case field.ResourceGroupNameProblem(rg.Name) != "":
		return field.ErrorList{field.Invalid(path.Child("name"), "%q is not a valid resource group name: %s", rg.Name, field.ResourceGroupNameProblem(rg.Name))}
	}
	return nil
}

func (s Spec) validateVersion(path field.Path) field.ErrorList {
	var errs field.ErrorList
	channel := s.UpgradeChannel
	if !slices.Contains(UpgradeChannels, channel) {
		errs = append(errs, field.NotSupported(path.Child("upgradeChannel"), channel, UpgradeChannels))
	}
	v := s.KubernetesVersion
	if v == "" {
		return errs
	}
	vp := path.Child("kubernetesVersion")
	switch {
	case !versionRE.MatchString(v):
		errs = append(errs, field.Invalid(vp, "%q is not a Kubernetes version; write MAJOR.MINOR (1.33) or MAJOR.MINOR.PATCH (1.33.2)", v))
	case !slices.Contains(KubernetesMinors, minorOf(v)):
		errs = append(errs, field.Invalid(vp, "%q is not a Kubernetes minor version AKS offers (%s); pick one of those, or remove kubernetesVersion to take AKS's default. If AKS has released a newer minor since this list was written, add it to KubernetesMinors in components/cluster/versions.go", v, strings.Join(KubernetesMinors, ", ")))
	case channel == "stable" || channel == "rapid":
		errs = append(errs, field.Forbidden(vp, "%q is pinned but upgradeChannel %q changes the minor version, and the next preview would try to downgrade; remove kubernetesVersion, or use upgradeChannel patch or none", v, channel))
	case channel == "patch" && strings.Count(v, ".") == 2:
		errs = append(errs, field.Forbidden(vp, "%q pins a patch but upgradeChannel patch moves patches; write MAJOR.MINOR (%s)", v, v[:strings.LastIndex(v, ".")]))
	}
	return errs
}

// validatePool checks the settings shared by the system and CPU pools;
// minAllowed is the lowest valid minCount.
func validatePool(vmSize string, minCount, maxCount, minAllowed int, zones []string, osDisk int, path field.Path) field.ErrorList {
	var errs field.ErrorList
	if !vmSizeRE.MatchString(vmSize) {
		errs = append(errs, field.Invalid(path.Child("vmSize"), "%q is not an Azure VM size; write it like Standard_D4ds_v5", vmSize))
	}
	if minCount < minAllowed || minCount > 1000 {
		errs = append(errs, field.Invalid(path.Child("minCount"), "%d is out of range; use %d to 1000", minCount, minAllowed))
	} else if maxCount < minCount || maxCount > 1000 {
		errs = append(errs, field.Invalid(path.Child("maxCount"), "maxCount (%d) must be between minCount (%d) and 1000", maxCount, minCount))
	}
	errs = append(errs, field.ValidateZones(zones, path.Child("zones"))...)
	if osDisk < 30 || osDisk > 2048 {
		errs = append(errs, field.Invalid(path.Child("osDiskSizeGB"), "%d is out of range; use 30 to 2048 GB", osDisk))
	}
	return errs
}

func validateNetwork(n Network, path field.Path) field.ErrorList {
	var errs field.ErrorList
	pod, podErr := netip.ParsePrefix(n.PodCIDR)
	if podErr != nil || !pod.Addr().Is4() {
		errs = append(errs, field.Invalid(path.Child("podCidr"), "%q is not an IPv4 CIDR, e.g. 10.244.0.0/16", n.PodCIDR))
	}
	svc, svcErr := netip.ParsePrefix(n.ServiceCIDR)
	if svcErr != nil || !svc.Addr().Is4() {
		errs = append(errs, field.Invalid(path.Child("serviceCidr"), "%q is not an IPv4 CIDR, e.g. 10.0.0.0/16", n.ServiceCIDR))
	}
	if podErr == nil && svcErr == nil && pod.Overlaps(svc) {
		errs = append(errs, field.Invalid(path.Child("serviceCidr"), "%s overlaps podCidr %s; pick disjoint ranges", n.ServiceCIDR, n.PodCIDR))
	}
	dns, dnsErr := netip.ParseAddr(n.DNSServiceIP)
	switch {
	case dnsErr != nil:
		errs = append(errs, field.Invalid(path.Child("dnsServiceIP"), "%q is not an IP address", n.DNSServiceIP))
	case svcErr == nil && !svc.Contains(dns):
		errs = append(errs, field.Invalid(path.Child("dnsServiceIP"), "%s is outside serviceCidr %s; use an address in it, e.g. the .10 of the range", n.DNSServiceIP, n.ServiceCIDR))
	}
	errs = append(errs, network.ValidateOverlay(n.PodCIDR, n.ServiceCIDR, n.DNSServiceIP,
		path.Child("podCidr"), path.Child("serviceCidr"), path.Child("dnsServiceIP"))...)
	return errs
}

func validateEntraID(e EntraID, localAccountsDisabled bool, path field.Path) field.ErrorList {
	var errs field.ErrorList
	if localAccountsDisabled && len(e.AdminGroupObjectIDs) == 0 {
		errs = append(errs, field.Required(path.Child("adminGroupObjectIDs"), "at least one Entra group object ID when local accounts are disabled, or nobody can administer the cluster"))
	}
	for i, id := range e.AdminGroupObjectIDs {
		if !guidRE.MatchString(id) {
			errs = append(errs, field.Invalid(path.Child("adminGroupObjectIDs").Index(i), "%q is not an object ID (GUID)", id))
		} else if strings.ToLower(id) == field.NilGUID {
			errs = append(errs, field.Invalid(path.Child("adminGroupObjectIDs").Index(i), "%q is the nil GUID, which no Entra group has (a placeholder from an example); copy the admin group's Object ID from Entra ID", id))
		}
	}
	return append(errs, e.deployer().Validate(e.AdminGroupObjectIDs, path.Child("deployer"))...)
}

func validateAPIServer(a APIServer, path field.Path) field.ErrorList {
	var errs field.ErrorList
	if a.Private && len(a.AuthorizedIPRanges) > 0 {
		errs = append(errs, field.Forbidden(path.Child("authorizedIPRanges"), "authorizedIPRanges and private are mutually exclusive: a private API server has no public endpoint to restrict; choose one"))
	}
	if len(a.AuthorizedIPRanges) > MaxAuthorizedIPRanges {
		errs = append(errs, field.Invalid(path.Child("authorizedIPRanges"), "lists %d ranges; AKS accepts at most %d, so merge ranges", len(a.AuthorizedIPRanges), MaxAuthorizedIPRanges))
	}
	for i, r := range a.AuthorizedIPRanges {
		p, err := netip.ParsePrefix(r)
		switch {
		case err != nil || p.Masked() != p:
			errs = append(errs, field.Invalid(path.Child("authorizedIPRanges").Index(i), "%q is not a CIDR with its host bits zero, e.g. 203.0.113.0/24 or 198.51.100.7/32", r))
		case p.Bits() > 0 && nonPublic(p.Addr()):
			// The ranges filter who reaches the API server's public
			// endpoint ("Secure access to the API server using authorized
			// IP address ranges",
			// https://learn.microsoft.com/azure/aks/api-server-authorized-ip-ranges),
			// whose clients arrive from public addresses (their NAT
			// egress); a private, shared or loopback range matches none.
			errs = append(errs, field.Invalid(path.Child("authorizedIPRanges").Index(i), "%s is a private or reserved range, and clients reach the public API server from public addresses, so it lets nobody in; list the public egress ranges of your CI runners and admin networks (or use private: true)", r))
		}
	}
	return errs
}

// cgnat is the shared address space of RFC 6598 (carrier-grade NAT),
// never a client address on the internet.
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// nonPublic reports whether a is an address no internet client has:
// private (RFC 1918, RFC 4193), shared (RFC 6598), loopback, link-local or
// unspecified.
func nonPublic(a netip.Addr) bool {
	return a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsUnspecified() || cgnat.Contains(a)
}

func validateAutoscaler(p map[string]string, path field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range slices.Sorted(maps.Keys(p)) {
		setting, known := autoscalerSettings[k]
		switch {
		case !known:
			// A key outside the autoscaler's settings: NotSupported, with a
			// detail that names the usual keys rather than all of them.
			errs = append(errs, &field.Error{Type: field.ErrorTypeNotSupported, Path: path.Key(k),
				Detail: fmt.Sprintf("%q is not a cluster autoscaler setting; use an AKS name such as scan-interval or scale-down-unneeded-time", k)})
		case p[k] == "":
			errs = append(errs, field.Invalid(path.Key(k), "is empty; remove it to use the default"))
		case setting.boolean:
			if _, err := strconv.ParseBool(p[k]); err != nil {
				errs = append(errs, field.Invalid(path.Key(k), "%q is not true or false", p[k]))
			}
		case setting.check != nil:
			if msg := setting.check(p[k]); msg != "" {
				e := field.Invalid(path.Key(k), "%q %s", p[k], msg)
				if k == "expander" { // an enumeration: Expanders
					e.Type = field.ErrorTypeNotSupported
				}
				errs = append(errs, e)
			}
		}
	}
	return errs
}

// Value checks of the autoscaler profile, from the property descriptions of
// ManagedClusterProperties.autoScalerProfile in the published AKS spec
// (Azure/azure-rest-api-specs aks/stable/2024-10-01/managedClusters.json).
// AKS refuses other forms at `pulumi up` (e.g. scale-down-delay-after-add
// "0s": that setting takes minutes only).
var (
	minutesRE  = regexp.MustCompile(`^[0-9]+m$`)
	durationRE = regexp.MustCompile(`^[0-9]+[smh]$`)
	secondsRE  = regexp.MustCompile(`^[0-9]+s?$`)
)

// Expanders are the valid values of the autoscaler's expander (enum of the
// 2024-10-01 spec).
var Expanders = []string{"least-waste", "most-pods", "priority", "random"}

// checkMinutes accepts an integer followed by 'm' ("10m"): the spec says no
// unit other than minutes is supported.
func checkMinutes(v string) string {
	if minutesRE.MatchString(v) {
		return ""
	}
	return "is not a whole number of minutes; AKS takes only minutes here, written like 10m"
}

// checkPositiveMinutes is checkMinutes that also refuses 0m.
func checkPositiveMinutes(v string) string {
	if msg := checkMinutes(v); msg != "" {
		return msg
	}
	if n, _ := strconv.Atoi(strings.TrimSuffix(v, "m")); n < 1 {
		return "must be at least 1m"
	}
	return ""
}

// checkScanInterval accepts a positive whole number of seconds, with or
// without the 's' suffix ("20s", the AKS MLOps best practices' value, or "20").
func checkScanInterval(v string) string {
	if n, err := strconv.Atoi(strings.TrimSuffix(v, "s")); err == nil && secondsRE.MatchString(v) && n >= 1 {
		return ""
	}
	return "is not a positive whole number of seconds; write it like 20s"
}

// checkDuration accepts an integer followed by s, m or h ("0s", "30s").
func checkDuration(v string) string {
	if durationRE.MatchString(v) {
		return ""
	}
	return "is not a duration; write an integer followed by s, m or h, e.g. 30s"
}

// checkInt returns a check for a whole number in [lo, hi].
func checkInt(lo, hi int) func(string) string {
	return func(v string) string {
		if n, err := strconv.Atoi(v); err == nil && n >= lo && n <= hi {
			return ""
		}
		return fmt.Sprintf("is not a whole number from %d to %d", lo, hi)
	}
}

// checkRatio accepts a number in (0, 1], e.g. 0.5.
func checkRatio(v string) string {
	if f, err := strconv.ParseFloat(v, 64); err == nil && f > 0 && f <= 1 {
		return ""
	}
	return "is not a ratio; use a number greater than 0 and at most 1, e.g. 0.5"
}

// checkBoolString accepts the strings true and false.
func checkBoolString(v string) string {
	if v == "true" || v == "false" {
		return ""
	}
	return "is not 'true' or 'false'"
}

// checkExpander accepts one of Expanders.
func checkExpander(v string) string {
	if slices.Contains(Expanders, v) {
		return ""
	}
	return "is not an expander; use one of " + strings.Join(Expanders, ", ")
}

func validateMaintenance(w MaintenanceWindow, path field.Path) field.ErrorList {
	var errs field.ErrorList
	if !slices.Contains(Weekdays, w.DayOfWeek) {
		if w.DayOfWeek == "" {
			errs = append(errs, field.Required(path.Child("dayOfWeek"), "the day of the window, Monday..Sunday"))
		} else {
			errs = append(errs, field.NotSupported(path.Child("dayOfWeek"), w.DayOfWeek, Weekdays))
		}
	}
	if !startTimeRE.MatchString(w.StartTime) {
		errs = append(errs, field.Invalid(path.Child("startTime"), "%q is not a time; write HH:MM in 24-hour form, e.g. 01:00", w.StartTime))
	}
	if w.DurationHours < 4 || w.DurationHours > 24 {
		errs = append(errs, field.Invalid(path.Child("durationHours"), "%d is out of range; AKS needs 4 to 24 hours", w.DurationHours))
	}
	if !utcOffsetRE.MatchString(w.UTCOffset) {
		errs = append(errs, field.Invalid(path.Child("utcOffset"), "%q is not a UTC offset; write +HH:MM or -HH:MM, e.g. +01:00", w.UTCOffset))
	}
	if w.IntervalWeeks < 1 || w.IntervalWeeks > 4 {
		errs = append(errs, field.Invalid(path.Child("intervalWeeks"), "%d is out of range; use 1 to 4", w.IntervalWeeks))
	}
	return errs
}
