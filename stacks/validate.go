package stacks

import (
	"github.com/aksml/aksml/components/field"
	"github.com/aksml/aksml/components/gpupool"
	"github.com/aksml/aksml/components/gpustack"
	"github.com/aksml/aksml/components/queues"
	"github.com/aksml/aksml/components/tenancy"
)

// tenancyTeams maps the teams to components/tenancy, defaulted.
func (c *Config) tenancyTeams() []tenancy.Team {
	out := make([]tenancy.Team, 0, len(c.Teams))
	for _, t := range c.Teams {
		tt := tenancy.Team{Name: t.Name, Groups: t.Groups, Egress: tenancy.Egress(t.Egress)}
		tt.Default()
		out = append(out, tt)
	}
	return out
}

func key(k string) field.Path { return field.NewPath(Namespace + ":" + k) }

// Validate checks a defaulted Config: every section's own rules, the
// cross-section rules (quota vs pool capacity, Azure-only settings in
// existing-cluster mode) and the production rules of SPEC C9. It returns
// every problem at once.
func (c *Config) Validate() field.ErrorList {
	var errs field.ErrorList
	if c.Environment != EnvDev && c.Environment != EnvProd {
		errs = append(errs, field.NotSupported(key("environment"), c.Environment, []Environment{EnvDev, EnvProd}))
	}

	switch {
	case c.Cluster == nil && c.ExistingCluster == nil:
		errs = append(errs, field.Required(key("cluster"), "an AKS cluster to create, or aksml:existingCluster to deploy the Kubernetes layer onto a cluster aksml does not create"))
	case c.Cluster != nil && c.ExistingCluster != nil:
		errs = append(errs, field.Invalid(key("existingCluster"), "aksml:cluster and aksml:existingCluster are mutually exclusive; choose a single approach"))
	case c.Cluster != nil:
		errs = append(errs, c.Cluster.Validate(key("cluster"))...)
	default:
		errs = append(errs, c.ExistingCluster.Validate(key("existingCluster"))...)
	}

	errs = append(errs, gpupool.ValidatePools(c.GPUPools, key("gpuPools"))...)
	errs = append(errs, c.GPUStack.Validate(key("gpuStack"))...)
	errs = append(errs, gpustack.ValidatePools(c.GPUPools, key("gpuPools"))...)
	errs = append(errs, c.Storage.Validate(key("storage"))...)
	errs = append(errs, queues.ValidateTeams(c.Teams, c.GPUPools, c.Scheduler, queues.DefaultPaths())...)
	errs = append(errs, tenancy.ValidateTeams(c.tenancyTeams(), key("teams"))...)
	errs = append(errs, c.Observability.Validate(key("observability"))...)
	errs = append(errs, c.validateWorkloads()...)

	if c.ExistingCluster != nil {
		errs = append(errs, c.validateExistingCluster()...)
	}
	if c.IsProd() {
		errs = append(errs, c.validateProd()...)
	}
	return errs
}

// validateExistingCluster rejects settings that need Azure resources when
// aksml does not create the cluster.
func (c *Config) validateExistingCluster() field.ErrorList {
	var errs field.ErrorList
	if c.Storage.Accounts != nil {
		errs = append(errs, field.Invalid(key("storage").Child("accounts"), "storage accounts need aksml:cluster (Azure); remove them in existing-cluster mode, the StorageClasses then provision through the cluster's CSI drivers"))
	}
	errs = append(errs, c.Observability.ValidateExistingCluster(key("observability"))...)
	return errs
}

// validateProd enforces the production baseline of SPEC C9 and C1.5/C1.6.
func (c *Config) validateProd() field.ErrorList {
	var errs field.ErrorList
	if !c.Protected() {
		errs = append(errs, field.Invalid(key("protect"), "must be true in prod: the cluster and checkpoint storage are protected against accidental deletion"))
	}
	if !c.DigestRequired() {
		errs = append(errs, field.Invalid(key("requireImageDigest"), "must be true in prod: images are pinned by digest for reproducible CUDA/cuDNN behaviour (seed 000)"))
	}
	if c.Cluster == nil {
		return errs
	}
	cl := key("cluster")
	if !c.Cluster.APIServer.Private && len(c.Cluster.APIServer.AuthorizedIPRanges) == 0 {
		errs = append(errs, field.Invalid(cl.Child("apiServer"), "prod needs a private API server (private: true) or authorizedIPRanges"))
	}
	if !c.Cluster.LocalAccountsDisabled() {
		errs = append(errs, field.Invalid(cl.Child("entraID").Child("disableLocalAccounts"), "prod needs local accounts off and Entra ID RBAC; set entraID.adminGroupObjectIDs and leave disableLocalAccounts unset or true"))
	}
	if !c.Cluster.Defender.Enabled {
		errs = append(errs, field.Invalid(cl.Child("defender").Child("enabled"), "prod needs Defender for Containers; set enabled: true with logAnalyticsWorkspaceId"))
	}
	if c.Cluster.MaintenanceWindow == nil {
		errs = append(errs, field.Required(cl.Child("maintenanceWindow"), "prod needs a planned maintenance window (dayOfWeek, startTime, durationHours)"))
	}
	if c.Storage.Accounts != nil && !c.Storage.Accounts.PrivateNetwork {
		errs = append(errs, field.Invalid(key("storage").Child("accounts").Child("privateNetwork"), "must be true in prod: storage accounts deny public network access"))
	}
	return errs
}
