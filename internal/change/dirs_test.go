package change

import (
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
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

// UpdateIndex and UpdateFolders bring a base's names to the head from the changed
// folders alone: the same as reading every folder of the head.
func TestUpdateNames(t *testing.T) {
	base := contract.MemSource(testutil.ExampleFiles(t))
	head := maps.Clone(base)
	created := base["contracts/orders/order-created/contract.yaml"]
	head["contracts/aaa/hijack/contract.yaml"] = created // a second folder claims a name
	head["contracts/orders/order-created/contract.yaml"] = []byte("subject: orders.order-made-value\n")
	head["contracts/users/user-profile/contract.yaml"] = []byte("format: [\n") // names none: keeps its name
	delete(head, "contracts/dws/gmv-1min/contract.yaml")                       // gone: so is its name
	dirs := []string{"contracts/aaa/hijack", "contracts/dws/gmv-1min", "contracts/orders/order-created", "contracts/users/user-profile"}

	baseIndex, err := contract.IndexSubjects(base)
	must(t, err)
	index, err := UpdateIndex(baseIndex, head, dirs)
	must(t, err)
	want, err := contract.IndexSubjects(head)
	must(t, err)
	want["users.user-profile-value"] = "contracts/users/user-profile"
	want["dws.gmv-1min-value"] = "contracts/dws/gmv-1min" // the folder is still there, with its schema
	if !maps.Equal(index, want) {
		t.Errorf("UpdateIndex:\n%v\nwant\n%v", index, want)
	}
	if baseIndex["orders.order-made-value"] != "" {
		t.Error("UpdateIndex changed the base's index")
	}

	baseFolders, err := contract.SubjectFolders(base)
	must(t, err)
	folders, err := UpdateFolders(baseFolders, head, dirs)
	must(t, err)
	wantFolders, err := contract.SubjectFolders(head)
	must(t, err)
	if !maps.EqualFunc(folders, wantFolders, slices.Equal[[]string]) {
		t.Errorf("UpdateFolders:\n%v\nwant\n%v", folders, wantFolders)
	}
	if got := folders["orders.order-made-value"]; !slices.Equal(got, []string{"contracts/orders/order-created"}) {
		t.Errorf("the renamed subject's folders: %v", got)
	}
}
