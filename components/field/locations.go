package field

// AzureLocations are the programmatic names of the Azure regions (public
// cloud, Azure Government and Azure operated by 21Vianet) that host
// resource groups and AKS, as `az account list-locations --query
// "[?metadata.regionType=='Physical'].name"` lists them ("Azure
// geographies", https://azure.microsoft.com/explore/global-infrastructure/geographies/;
// "Subscriptions - List Locations",
// https://learn.microsoft.com/rest/api/resources/subscriptions/list-locations).
// Written from those pages for aksml on 2026-11-30; logical locations
// (global, "Central US (Stage)", edge zones) are left out. No module on
// the Go module proxy carries a maintained location list (the Azure SDKs
// read it at run time from Subscriptions - List Locations, which a preview
// without credentials cannot call), so the list is kept here.
//
// To update: run the az command above in each cloud you deploy to and add
// the names missing here (keep the list sorted); a region not listed is
// refused at preview with a message pointing at this file.
var AzureLocations = []string{
	"australiacentral", "australiacentral2", "australiaeast", "australiasoutheast",
	"austriaeast",
	"belgiumcentral",
	"brazilsouth", "brazilsoutheast",
	"canadacentral", "canadaeast",
	"centralindia", "centralus",
	"chilecentral",
	"chinaeast", "chinaeast2", "chinaeast3", "chinanorth", "chinanorth2", "chinanorth3",
	"denmarkeast",
	"eastasia", "eastus", "eastus2",
	"francecentral", "francesouth",
	"germanynorth", "germanywestcentral",
	"indonesiacentral",
	"israelcentral",
	"italynorth",
	"japaneast", "japanwest",
	"jioindiacentral", "jioindiawest",
	"koreacentral", "koreasouth",
	"malaysiawest",
	"mexicocentral",
	"newzealandnorth",
	"northcentralus", "northeurope",
	"norwayeast", "norwaywest",
	"polandcentral",
	"qatarcentral",
	"southafricanorth", "southafricawest",
	"southcentralus", "southeastasia", "southindia",
	"spaincentral",
	"swedencentral", "swedensouth",
	"switzerlandnorth", "switzerlandwest",
	"uaecentral", "uaenorth",
	"uksouth", "ukwest",
	"usdodcentral", "usdodeast", "usgovarizona", "usgovtexas", "usgovvirginia",
	"westcentralus", "westeurope", "westindia", "westus", "westus2", "westus3",
}
