package observability

// Pulumi type tokens of the components this package registers.
const (
	// MonitorsType is the type token of NewMonitors.
	MonitorsType = "aksml:observability:Monitors"
	// AlertRulesType is the type token of NewAlertRules.
	AlertRulesType = "aksml:observability:AlertRules"
	// AzureMonitorType is the type token of NewAzureMonitor.
	AzureMonitorType = "aksml:observability:AzureMonitor"
)
