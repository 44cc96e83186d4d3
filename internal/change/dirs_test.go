package change

import (
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/testutil"
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// changedExample commits the example tree, then a head that touches a consumer file,
// deletes a subject folder and copies another: the three folders that differ.
func changedExample(t *testing.T) (*testutil.Repo, []string) {
	t.Helper()
	r := testutil.ExampleRepo(t)
	r.Edit("contracts/dws/gmv-1min/consumers/gmv-dashboard.yaml", "name:", "# touched\nname:")
	must(t, os.RemoveAll(filepath.Join(r.Dir, "contracts", "inventory", "stock-level")))
	testutil.CopyTree(t, filepath.Join(r.Dir, "contracts", "common", "money"), filepath.Join(r.Dir, "contracts", "common", "money2"))
	r.Commit("head")
	return r, []string{"contracts/common/money2", "contracts/dws/gmv-1min", "contracts/inventory/stock-level"}
}

func revision(t *testing.T, r *testutil.Repo, rev string) *contract.GitSource {
	t.Helper()
	src, err := contract.NewGitSource(r.Git, rev)
	must(t, err)
	return src
}

// workTree is r's working tree as check reads it.
func workTree(t *testing.T, r *testutil.Repo) *contract.WorkTree {
	t.Helper()
	repo, err := gitrepo.Open(r.Dir)
	must(t, err)
	t.Cleanup(func() { _ = repo.Close() })
	head := revision(t, r, "HEAD")
	diff, err := repo.WorktreeDiff(head.Commit().TreeHash)
	must(t, err)
	return contract.NewWorkTree(head, r.Dir, diff.Paths, diff.Dirs)
}

// ChangedDirs finds the same folders between two revisions (tree hashes), between a
// revision and a folder (contents), and between a revision and a working tree (tree
// hashes to its commit, then contents).
func TestChangedDirs(t *testing.T) {
	r, want := changedExample(t)
	base := revision(t, r, "HEAD~1")
	for _, head := range []contract.Source{revision(t, r, "HEAD"), contract.NewDirSource(r.Dir), workTree(t, r)} {
		got, err := ChangedDirs(base, head)
		must(t, err)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%T: %v, want %v", head, got, want)
		}
	}

	// Working tree edits on top of HEAD: one folder edited back to the base, one more
	// edited, one untracked folder.
	r.Edit("contracts/dws/gmv-1min/consumers/gmv-dashboard.yaml", "# touched\nname:", "name:")
	r.Edit("contracts/orders/order-created/contract.yaml", "owner: orders", "owner: payments")
	testutil.CopyTree(t, filepath.Join(r.Dir, "contracts", "common", "money"), filepath.Join(r.Dir, "contracts", "common", "money3"))
	want = []string{"contracts/common/money2", "contracts/common/money3", "contracts/inventory/stock-level", "contracts/orders/order-created"}
	for _, head := range []contract.Source{contract.NewDirSource(r.Dir), workTree(t, r)} {
		got, err := ChangedDirs(base, head)
		must(t, err)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%T with working tree edits: %v, want %v", head, got, want)
		}
	}
}

// A tree that cannot be read is an error, never "nothing changed here".
func TestChangedDirsMissingTree(t *testing.T) {
	r, _ := changedExample(t)
	c, err := r.Git.CommitObject(revision(t, r, "HEAD").Commit().Hash)
	must(t, err)
	root, err := c.Tree()
	must(t, err)
	dws, err := root.Tree("contracts/dws")
	must(t, err)
	h := dws.Hash.String()
	must(t, os.Remove(filepath.Join(r.Dir, ".git", "objects", h[:2], h[2:])))
	if got, err := ChangedDirs(revision(t, r, "HEAD~1"), revision(t, r, "HEAD")); err == nil {
		t.Errorf("a missing tree was not an error: %v", got)
	}
}

func TestWithImporters(t *testing.T) {
	got, err := WithImporters(contract.MemSource(testutil.ExampleFiles(t)), []string{"contracts/common/money"})
	must(t, err)
	want := []string{"contracts/common/money", "contracts/payments/payment-authorized"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("importers of common/money: %v, want %v", got, want)
	}

	// A JSON Schema $ref to another subject's file is an import too.
	files := testutil.ExampleFiles(t)
	files["contracts/shop/customer/contract.yaml"] = []byte("subject: shop.customer-value\nformat: json\nschema: customer.json\ncompatibility: BACKWARD\nowner: orders\n")
	files["contracts/shop/customer/customer.json"] = []byte(`{"type": "object", "properties": {"id": {"type": "string"}}}`)
	files["contracts/shop/order/contract.yaml"] = []byte("subject: shop.order-value\nformat: json\nschema: order.json\ncompatibility: BACKWARD\nowner: orders\n")
	files["contracts/shop/order/order.json"] = []byte(`{"type": "object", "properties": {"customer": {"$ref": "shop/customer/customer.json"}}}`)
	got, err = WithImporters(contract.MemSource(files), []string{"contracts/shop/customer"})
	if err != nil || !slices.Equal(got, []string{"contracts/shop/customer", "contracts/shop/order"}) {
		t.Errorf("WithImporters = %v, %v; want the referring subject's folder", got, err)
	}
	// A folder holding nothing that can be imported reads no other folder.
	got, err = WithImporters(contract.MemSource(files), []string{"contracts/orders/order-created"})
	if err != nil || !slices.Equal(got, []string{"contracts/orders/order-created"}) {
		t.Errorf("WithImporters of an Avro subject = %v, %v", got, err)
	}
}

// UpdateIndex and UpdateDuplicates bring a base's names to the head from the changed
// folders alone: the same as reading every folder of the head.
func TestUpdateNames(t *testing.T) {
	base := contract.MemSource(testutil.ExampleFiles(t))
	head := maps.Clone(base)
	created := base["contracts/orders/order-created/contract.yaml"]
	head["contracts/aaa/hijack/contract.yaml"] = created // a second folder claims a name
	head["contracts/orders/order-created/contract.yaml"] = []byte("subject: orders.order-made-value\n")
	head["contracts/users/user-profile/contract.yaml"] = []byte("format: [\n")                        // names none: keeps its name
	head["contracts/zzz/stock/contract.yaml"] = base["contracts/inventory/stock-level/contract.yaml"] // an unchanged folder's name
	for name := range head {
		if strings.HasPrefix(name, "contracts/risk/fraud-score/") {
			delete(head, name) // the folder is gone: so is its name
		}
	}
	delete(head, "contracts/dws/gmv-1min/contract.yaml") // gone: so is its name
	dirs := []string{"contracts/aaa/hijack", "contracts/dws/gmv-1min", "contracts/orders/order-created", "contracts/risk/fraud-score", "contracts/users/user-profile", "contracts/zzz/stock"}

	baseIndex, err := contract.IndexSubjects(base)
	must(t, err)
	index, err := UpdateIndex(contract.MapIndex(baseIndex), base, head, dirs)
	must(t, err)
	want, err := contract.IndexSubjects(head)
	must(t, err)
	want["users.user-profile-value"] = "contracts/users/user-profile"
	want["dws.gmv-1min-value"] = "contracts/dws/gmv-1min" // the folder is still there, with its schema
	if got := maps.Collect(index.All()); !maps.Equal(got, want) {
		t.Errorf("UpdateIndex:\n%v\nwant\n%v", got, want)
	}
	for name, dir := range want {
		if got, ok := index.Folder(name); !ok || got != dir {
			t.Errorf("UpdateIndex's folder of %s: %q, want %q", name, got, dir)
		}
	}
	for _, name := range []string{"risk.fraud-score-value", "no.such-value"} {
		if dir, ok := index.Folder(name); ok {
			t.Errorf("UpdateIndex's folder of %s: %q, want none", name, dir)
		}
	}
	if baseIndex["orders.order-made-value"] != "" {
		t.Error("UpdateIndex changed the base's index")
	}

	baseNames, baseDups, err := contract.SubjectNames(base)
	must(t, err)
	dups, err := UpdateDuplicates(baseNames, baseDups, head, dirs)
	must(t, err)
	wantFolders, err := contract.SubjectFolders(head)
	must(t, err)
	maps.DeleteFunc(wantFolders, func(_ string, ds []string) bool { return len(ds) < 2 })
	if len(wantFolders) == 0 || !maps.EqualFunc(dups, wantFolders, slices.Equal[[]string]) {
		t.Errorf("UpdateDuplicates:\n%v\nwant\n%v", dups, wantFolders)
	}
	// A duplicate the change ends (the second folder renamed) is gone from the head's.
	head2 := maps.Clone(head)
	head2["contracts/zzz/stock/contract.yaml"] = []byte("subject: zzz.stock-value\n")
	headIndex, _, err := contract.SubjectNames(head)
	must(t, err)
	dups, err = UpdateDuplicates(headIndex, dups, head2, []string{"contracts/zzz/stock"})
	must(t, err)
	if len(dups) != 0 {
		t.Errorf("UpdateDuplicates after the rename: %v, want none", dups)
	}
}
