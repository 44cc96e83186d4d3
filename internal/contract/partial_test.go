package contract

import (
	"reflect"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"
)

func TestLoadSubjectsFollowsLineage(t *testing.T) {
	src := MemSource(testutil.ExampleFiles(t))
	tree, err := LoadSubjects(src, []string{"contracts/orders/order-created"}, nil)
	must(t, err)
	if len(tree.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %s", formatDiagnostics(tree.Diagnostics))
	}
	var got []string
	for _, s := range tree.Subjects {
		got = append(got, s.Subject)
	}
	want := []string{"dw.order-detail-value", "dws.gmv-1min-value", "orders.order-created-value"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("loaded %v, want the lineage closure %v", got, want)
	}
	if !tree.Partial || len(tree.Entries) == 0 {
		t.Errorf("partial %v, %d calendar entries", tree.Partial, len(tree.Entries))
	}
	// A broken subject outside the closure is not read at all.
	src["contracts/users/user-profile/contract.yaml"] = []byte("subject: users.user-profile-value\nformat: [\n")
	tree, err = LoadSubjects(src, []string{"contracts/dws/gmv-1min"}, nil)
	must(t, err)
	if len(tree.Diagnostics) != 0 || len(tree.Subjects) != 1 {
		t.Errorf("gmv-1min alone: %d subjects, %s", len(tree.Subjects), formatDiagnostics(tree.Diagnostics))
	}
}
