package contract

import (
	"maps"
	"slices"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"
)

// TestDuplicateSubjectsAsLoad: the duplicates found from the subject lines alone are
// the ones the full load reports, at the same places, for a name three folders claim
// (change's tests hold UpdateDuplicates to the same folders); SubjectNames holds
// the same names split as a partial load wants them.
func TestDuplicateSubjectsAsLoad(t *testing.T) {
	base := MemSource(testutil.ExampleFiles(t))
	head := MemSource{}
	for k, v := range base {
		head[k] = v
	}
	contract := base["contracts/orders/order-created/contract.yaml"]
	head["contracts/aaa/hijack/contract.yaml"] = contract
	head["contracts/aaa/hijack/order_created.avsc"] = base["contracts/orders/order-created/order_created.avsc"]
	head["contracts/zzz/again/contract.yaml"] = contract
	head["contracts/zzz/again/order_created.avsc"] = base["contracts/orders/order-created/order_created.avsc"]

	full, err := Load(head)
	must(t, err)
	want := slices.DeleteFunc(slices.Clone(full.Diagnostics), func(d Diagnostic) bool { return d.Code != CodeDuplicateSubject })
	if len(want) != 2 {
		t.Fatalf("the full load reports %d duplicates, want 2: %s", len(want), formatDiagnostics(want))
	}
	baseFolders, err := SubjectFolders(base)
	must(t, err)
	folders, err := SubjectFolders(head)
	must(t, err)
	got, err := DuplicateSubjects(head, folders)
	must(t, err)
	if !slices.Equal(got, want) {
		t.Errorf("DuplicateSubjects:\n%s\nthe full load:\n%s", formatDiagnostics(got), formatDiagnostics(want))
	}
	// Both loads know which folders claim the name, for verdict to refuse judging it.
	partial := &Tree{}
	partial.AddDuplicates(folders)
	wantDirs := []string{"contracts/aaa/hijack", "contracts/orders/order-created", "contracts/zzz/again"}
	for _, tr := range []*Tree{full, partial} {
		if got := tr.Duplicates["orders.order-created-value"]; !slices.Equal(got, wantDirs) || len(tr.Duplicates) != 1 {
			t.Errorf("Duplicates %v, want only orders.order-created-value in %v", tr.Duplicates, wantDirs)
		}
	}
	if ds, err := DuplicateSubjects(base, baseFolders); err != nil || len(ds) != 0 {
		t.Errorf("the example tree has duplicates %v (%v)", ds, err)
	}
	index, dups, err := SubjectNames(head)
	must(t, err)
	wantIndex, err := IndexSubjects(head)
	must(t, err)
	if !maps.Equal(maps.Collect(index.All()), wantIndex) {
		t.Errorf("SubjectNames' index:\n%v\nIndexSubjects:\n%v", index, wantIndex)
	}
	if got := dups["orders.order-created-value"]; len(dups) != 1 || !slices.Equal(got, folders["orders.order-created-value"]) {
		t.Errorf("SubjectNames' duplicates %v, want only orders.order-created-value in %v", dups, folders["orders.order-created-value"])
	}
}
