package history

import (
	"bytes"
	"log/slog"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/testutil"
)

// brokenHistory is the example tree whose gmv subject broke BACKWARD at its second
// commit.
func brokenHistory(t *testing.T) *testutil.Repo {
	r := testutil.NewRepo(t)
	testutil.CopyExample(t, r.Dir)
	r.Edit(gmv, `"name": "order_count", "type": "int"`, `"name": "order_count", "type": "long"`)
	r.Commit("example tree")
	r.Edit(gmv, `"name": "order_count", "type": "long"`, `"name": "order_count", "type": "int"`)
	r.Commit("gmv order_count is an int in the example")
	return r
}

// AuditFrom audits only what the branch added since an earlier audit: the result is
// the audit of the whole history, and the earlier verdicts are taken as they are.
func TestAuditFromExtendsAnEarlierAudit(t *testing.T) {
	r := brokenHistory(t)
	repo, ix := index(t, r)
	before, err := AuditFrom(repo.Storer, ix, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(before.Breaks) != 1 || before.Head != ix.Head || before.Versions["dws.gmv-1min-value"] != 2 {
		t.Fatalf("audit of the first head: head %s, %d versions of gmv, breaks %+v", before.Head, before.Versions["dws.gmv-1min-value"], summary(before.Breaks))
	}
	// Later: a compatible version of order-created, a Protobuf break, a new gmv break.
	r.Edit(order, `"fields": [`, `"fields": [{"name": "note", "type": "string", "default": ""},`)
	r.Edit(fraud, "double score = 4;", "string score = 4;")
	r.Commit("order-created: a note; fraud score as text")
	r.Edit(gmv, `"name": "order_count", "type": "int"`, `"name": "order_count", "type": "string"`)
	r.Commit("gmv order_count as text")
	repo, ix = index(t, r)
	whole, err := AuditFrom(repo.Storer, ix, nil)
	if err != nil {
		t.Fatal(err)
	}
	extended, err := AuditFrom(repo.Storer, ix, before)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(extended, whole) {
		t.Fatalf("extended audit differs from the whole one:\n got %+v\nwant %+v", summary(extended.Breaks), summary(whole.Breaks))
	}
	if len(whole.Breaks) != 3 {
		t.Errorf("want 3 breaks (gmv 2 and 3, fraud-score 2), got %+v", summary(whole.Breaks))
	}
	// The earlier verdicts are not checked again: a verdict only prev holds stays.
	marked := *before
	marked.Breaks = append([]Break{{Subject: "aaa.marker-value", Version: 2}}, before.Breaks...)
	got, err := AuditFrom(repo.Storer, ix, &marked)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Breaks) != 4 || got.Breaks[0].Subject != "aaa.marker-value" {
		t.Errorf("the earlier audit's verdicts were not kept: %+v", summary(got.Breaks))
	}
	// An audit that counts more versions than the index has is of another history.
	wrong := *before
	wrong.Versions = map[string]int{"dws.gmv-1min-value": 9}
	wrong.Breaks = marked.Breaks
	if got, err := AuditFrom(repo.Storer, ix, &wrong); err != nil || !reflect.DeepEqual(got, whole) {
		t.Errorf("an audit of another history was extended: %+v (%v)", summary(got.Breaks), err)
	}
}

// The cache gives the same breaks as a whole audit, restored or not, and is not used
// when another build wrote it, when its head left the branch, or when it is corrupt.
func TestCacheAudit(t *testing.T) {
	r := brokenHistory(t)
	var logs bytes.Buffer
	c := &Cache{Dir: t.TempDir(), Repo: r.Dir, Branch: "master", Build: "b1", Log: slog.New(slog.NewTextHandler(&logs, nil))}
	run := func(wantRestored bool) []Break {
		t.Helper()
		repo, ix := index(t, r)
		bs, restored, err := c.Audit(repo.Storer, ix)
		if err != nil {
			t.Fatal(err)
		}
		if restored != wantRestored {
			t.Errorf("restored %v, want %v; log:\n%s", restored, wantRestored, logs.String())
		}
		whole, err := Audit(repo.Storer, ix)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(bs, whole) {
			t.Errorf("cached audit:\n got %+v\nwant %+v", summary(bs), summary(whole))
		}
		return bs
	}
	run(false)
	if bs := run(true); len(bs) != 1 {
		t.Errorf("want the gmv break, got %+v", summary(bs))
	}
	r.Edit(fraud, "double score = 4;", "string score = 4;")
	first := r.Commit("fraud score as text")
	if bs := run(true); len(bs) != 2 {
		t.Errorf("want the gmv and fraud-score breaks, got %+v", summary(bs))
	}

	c.Build = "b2"
	run(false)
	if !strings.Contains(logs.String(), "written by build b1") {
		t.Errorf("the log does not say the cache was of another build:\n%s", logs.String())
	}

	// Rewrite the last commit: the cached head is no longer on the branch.
	r.Edit(fraud, "string score = 4;", "bytes score = 4;")
	head := r.Commit("fraud score as bytes")
	rewriteParent(t, r, head, first)
	run(false)
	if !strings.Contains(logs.String(), "is not on the first-parent history") {
		t.Errorf("the log does not say the cached head left the branch:\n%s", logs.String())
	}

	// An audit of this head that counts more versions than the index has.
	_, ix := index(t, r)
	if err := c.Save(&Audited{Head: ix.Head, Versions: map[string]int{"dws.gmv-1min-value": 9}}); err != nil {
		t.Fatal(err)
	}
	run(false)
	if !strings.Contains(logs.String(), "counts versions the index does not have") {
		t.Errorf("the log does not say the cached audit counts too many versions:\n%s", logs.String())
	}

	if err := os.WriteFile(c.Path(), []byte(`{"format": 1, "audit": {`), 0o644); err != nil {
		t.Fatal(err)
	}
	run(false)
	run(true)
}

// rewriteParent makes the branch's head a copy of head whose parent is the parent of
// first: first is no longer on the branch.
func rewriteParent(t *testing.T, r *testutil.Repo, head, first plumbing.Hash) {
	t.Helper()
	fc, err := r.Git.CommitObject(first)
	if err != nil {
		t.Fatal(err)
	}
	hc, err := r.Git.CommitObject(head)
	if err != nil {
		t.Fatal(err)
	}
	hc.ParentHashes = fc.ParentHashes
	obj := r.Git.Storer.NewEncodedObject()
	if err := hc.Encode(obj); err != nil {
		t.Fatal(err)
	}
	h, err := r.Git.Storer.SetEncodedObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := r.Git.Head()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Git.Storer.SetReference(plumbing.NewHashReference(ref.Name(), h)); err != nil {
		t.Fatal(err)
	}
}
