package storage

// Pulumi type tokens of the components this package registers.
const (
	// StorageClassesType is the type token of NewStorageClasses.
	StorageClassesType = "aksml:storage:StorageClasses"
	// StorageAccountsType is the type token of NewStorageAccounts.
	StorageAccountsType = "aksml:storage:StorageAccounts"
	// TeamVolumesType is the type token of NewTeamVolumes.
	TeamVolumesType = "aksml:storage:TeamVolumes"
)
