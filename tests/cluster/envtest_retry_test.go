package cluster

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestRetryOnQuotaConflict: only the quota admission's Conflict is sent again;
// a Conflict on the object itself, a refusal and success return at once.
func TestRetryOnQuotaConflict(t *testing.T) {
	quota := apierrors.NewConflict(schema.GroupResource{Resource: "resourcequotas"}, "team-quota", errors.New("the object has been modified"))
	other := apierrors.NewConflict(schema.GroupResource{Group: "batch", Resource: "jobs"}, "train", errors.New("the object has been modified"))
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "p", errors.New("exceeded quota: team-quota"))
	for _, c := range []struct {
		name      string
		errs      []error
		wantCalls int
		wantErr   error
	}{
		{"quota conflict then success", []error{quota, quota, nil}, 3, nil},
		{"quota conflict every time", []error{quota, quota, quota, quota, quota}, 4, quota},
		{"conflict on the object itself", []error{other, nil}, 1, other},
		{"refused", []error{forbidden, nil}, 1, forbidden},
		{"success", []error{nil}, 1, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			err := retryOnQuotaConflict(func() error {
				calls++
				return c.errs[calls-1]
			})
			assert.Equal(t, c.wantCalls, calls)
			assert.Equal(t, c.wantErr, err)
		})
	}
}
