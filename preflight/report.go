package preflight

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
)

// Status is the result of one check.
type Status int

// Statuses, from best to worst.
const (
	// OK: Azure's answer says this will work.
	OK Status = iota
	// CannotTell: Azure did not answer (no right to read, throttled, a
	// provider not registered) or cannot answer it; the row says why.
	CannotTell
	// WillFail: Azure's answer says `up` fails or a pool cannot reach its
	// size; the row says the fix.
	WillFail
)

// String is the status as the table prints it.
func (s Status) String() string {
	switch s {
	case OK:
		return "ok"
	case CannotTell:
		return "cannot tell"
	}
	return "will fail"
}

// Check is a class of checks; the report prints one table per class.
type Check string

// Check classes, in report order.
const (
	CheckQuota      Check = "Quota"
	CheckSKU        Check = "VM sizes per region and zone"
	CheckProviders  Check = "Resource providers"
	CheckFeatures   Check = "Subscription features"
	CheckNames      Check = "Global names"
	CheckKubernetes Check = "Kubernetes version"
	CheckWorkspaces Check = "Workspace regions"
	CheckRights     Check = "Deployer's rights"
	CheckDefender   Check = "Defender for Containers"
)

// Checks lists the classes in report order.
var Checks = []Check{CheckQuota, CheckSKU, CheckProviders, CheckFeatures, CheckNames, CheckKubernetes, CheckWorkspaces, CheckRights, CheckDefender}

// Row is one check's result.
type Row struct {
	// Check is the class.
	Check Check
	// Subject is what was checked (a quota, a pool, a name).
	Subject string
	// Status is the result.
	Status Status
	// Detail is Azure's answer against what the stack needs.
	Detail string
	// Fix is what to do when Status is not OK.
	Fix string
}

// Report is the result of every check for one stack.
type Report struct {
	// Plan is what the stack asks of Azure.
	Plan Plan
	// Subscription is the subscription read.
	Subscription string
	// Demands are the vCPUs the pools need per quota at their minimum and
	// maximum: per VM family for on-demand pools, then UsageTotalRegional
	// and UsageLowPriority. Empty when the VM sizes could not be read.
	Demands []Demand
	// Rows are the results, grouped by Check in Checks order.
	Rows []Row
}

// Worst returns the worst status of the report's rows (OK without rows).
func (r Report) Worst() Status {
	w := OK
	for _, row := range r.Rows {
		w = max(w, row.Status)
	}
	return w
}

// Exit statuses of the preflight command, for CI to gate on.
const (
	// ExitOK: every check is ok.
	ExitOK = 0
	// ExitWillFail: at least one check will fail.
	ExitWillFail = 1
	// ExitError: the command could not run (bad flags, the stack's config
	// is invalid, no subscription).
	ExitError = 2
	// ExitCannotTell: nothing will fail, but at least one check cannot tell.
	ExitCannotTell = 3
)

// ExitCode returns the exit status for the report.
func (r Report) ExitCode() int {
	switch r.Worst() {
	case WillFail:
		return ExitWillFail
	case CannotTell:
		return ExitCannotTell
	}
	return ExitOK
}

// unanswered turns an error from an SDK call into a row that cannot tell,
// saying why and what would let preflight tell.
func unanswered(check Check, subject, what string, err error) Row {
	row := Row{Check: check, Subject: subject, Status: CannotTell}
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		row.Detail = fmt.Sprintf("reading %s failed: %v", what, err)
		row.Fix = "sign in (az login, or the workload identity in CI) and run preflight again"
		return row
	}
	switch {
	case re.StatusCode == http.StatusForbidden:
		row.Detail = fmt.Sprintf("reading %s: %d %s (the deployer may not read it)", what, re.StatusCode, re.ErrorCode)
		row.Fix = "give the identity that runs preflight Reader on the subscription"
	case re.StatusCode == http.StatusTooManyRequests:
		row.Detail = fmt.Sprintf("reading %s: %d %s (Azure throttled the request)", what, re.StatusCode, re.ErrorCode)
		row.Fix = "run preflight again in a few minutes"
	case re.ErrorCode == "MissingSubscriptionRegistration":
		row.Detail = fmt.Sprintf("reading %s: %d %s (the resource provider is not registered)", what, re.StatusCode, re.ErrorCode)
		row.Fix = "register the provider the Resource providers table names (az provider register --namespace <namespace>)"
	default:
		row.Detail = fmt.Sprintf("reading %s: %d %s", what, re.StatusCode, re.ErrorCode)
		row.Fix = "run preflight again; if it persists, read the error with az rest"
	}
	return row
}

// notFound reports whether err is Azure's 404.
func notFound(err error) bool {
	var re *azcore.ResponseError
	return errors.As(err, &re) && re.StatusCode == http.StatusNotFound
}

// str is the string p points to, "" for nil (the SDK's models are all
// pointers).
func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// val is the value p points to, T's zero value for nil.
func val[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
