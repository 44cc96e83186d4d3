package contract

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"

	"github.com/go-git/go-git/v5"
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

func TestChangedDirs(t *testing.T) {
	root := testutil.RepoRoot(t)
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	must(t, err)
	testutil.CopyTree(t, filepath.Join(root, "contracts"), filepath.Join(dir, "contracts"))
	commitAll(t, repo, "base")
	f := filepath.Join(dir, "contracts", "dws", "gmv-1min", "consumers", "gmv-dashboard.yaml")
	data, err := os.ReadFile(f)
	must(t, err)
	must(t, os.WriteFile(f, append(data, []byte("# touched\n")...), 0o644))
	must(t, os.RemoveAll(filepath.Join(dir, "contracts", "inventory", "stock-level")))
	testutil.CopyTree(t, filepath.Join(root, "contracts", "common", "money"), filepath.Join(dir, "contracts", "common", "money2"))
	commitAll(t, repo, "head")
	base, err := OpenRevision(dir, "HEAD~1")
	must(t, err)
	head, err := OpenRevision(dir, "HEAD")
	must(t, err)
	want := []string{"contracts/common/money2", "contracts/dws/gmv-1min", "contracts/inventory/stock-level"}
	got, err := ChangedDirs(base, head)
	must(t, err)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("git vs git: %v, want %v", got, want)
	}
	got, err = ChangedDirs(base, NewDirSource(dir))
	must(t, err)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("git vs working tree: %v, want %v", got, want)
	}

	// A tree that cannot be read is an error, never "nothing changed here".
	ref, err := repo.Head()
	must(t, err)
	c, err := repo.CommitObject(ref.Hash())
	must(t, err)
	dws, err := c.Tree()
	must(t, err)
	dws, err = dws.Tree("contracts/dws")
	must(t, err)
	h := dws.Hash.String()
	must(t, os.Remove(filepath.Join(dir, ".git", "objects", h[:2], h[2:])))
	base, err = OpenRevision(dir, "HEAD~1")
	must(t, err)
	head, err = OpenRevision(dir, "HEAD")
	must(t, err)
	if got, err := ChangedDirs(base, head); err == nil {
		t.Errorf("a missing tree was not an error: %v", got)
	}
}

func TestWithImporters(t *testing.T) {
	got, err := WithImporters(MemSource(testutil.ExampleFiles(t)), []string{"contracts/common/money"})
	must(t, err)
	want := []string{"contracts/common/money", "contracts/payments/payment-authorized"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("importers of common/money: %v, want %v", got, want)
	}
}
