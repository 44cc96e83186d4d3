package testutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Repo is a Git repository with a working tree in a test's temporary folder.
type Repo struct {
	Dir string
	Git *git.Repository
	// When is the author time of the commits.
	When time.Time
	t    testing.TB
}

// NewRepo initialises an empty repository (its branch is master).
func NewRepo(t testing.TB) *Repo {
	t.Helper()
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	return &Repo{Dir: dir, Git: r, When: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), t: t}
}

// ExampleRepo is a repository whose first commit holds the example tree.
func ExampleRepo(t testing.TB) *Repo {
	t.Helper()
	r := NewRepo(t)
	CopyExample(t, r.Dir)
	r.Commit("example tree")
	return r
}

// Commit stages every change of the working tree, deletions included, and commits.
func (r *Repo) Commit(msg string) plumbing.Hash {
	r.t.Helper()
	return CommitAll(r.t, r.Git, msg, r.When)
}

// CommitAll stages every change of repo's working tree and commits it at when.
func CommitAll(t testing.TB, repo *git.Repository, msg string, when time.Time) plumbing.Hash {
	t.Helper()
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	h, err := wt.Commit(msg, &git.CommitOptions{All: true, Author: &object.Signature{Name: "t", Email: "t@example.com", When: when}})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// Branch creates a branch at HEAD and checks it out.
func (r *Repo) Branch(name string) {
	r.t.Helper()
	wt, err := r.Git.Worktree()
	if err != nil {
		r.t.Fatal(err)
	}
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName(name), Create: true}); err != nil {
		r.t.Fatal(err)
	}
}

// Edit replaces the first old in the file at path (relative to the repository) with
// new, failing the test when old is not there.
func (r *Repo) Edit(path, old, new string) {
	r.t.Helper()
	EditFile(r.t, filepath.Join(r.Dir, path), old, new)
}

// EditFile replaces the first old in the file at path with new, failing the test
// when old is not there.
func EditFile(t testing.TB, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Write writes a file of the working tree (relative to the repository).
func (r *Repo) Write(path, content string) {
	r.t.Helper()
	p := filepath.Join(r.Dir, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// HealthExample is a repository of the example tree whose first-parent history gives
// the health report something to find: order_count of dws.gmv-1min-value is a long
// in the first commit and an int again in the second (BACKWARD refuses it), which
// also adds orders.order-cancelled-value (nobody reads it) and deprecates user_id of
// dw.order-detail-value (two consumers read it). It returns the second commit.
func HealthExample(t testing.TB) (*Repo, plumbing.Hash) {
	t.Helper()
	r := NewRepo(t)
	CopyExample(t, r.Dir)
	gmv := "contracts/dws/gmv-1min/gmv_1min.avsc"
	r.Edit(gmv, `"name": "order_count", "type": "int"`, `"name": "order_count", "type": "long"`)
	r.Commit("example tree")
	r.Edit(gmv, `"name": "order_count", "type": "long"`, `"name": "order_count", "type": "int"`)
	r.Write("contracts/orders/order-cancelled/contract.yaml", "subject: orders.order-cancelled-value\nformat: avro\nschema: order_cancelled.avsc\ncompatibility: BACKWARD\nowner: orders\ntopic: ods_order_cancelled\nkeys: {business: [order_id], event_time: cancelled_at, update_time: cancelled_at}\n")
	r.Write("contracts/orders/order-cancelled/order_cancelled.avsc", `{"type": "record", "name": "OrderCancelled", "fields": [
  {"name": "order_id", "type": "string", "doc": "Order number."},
  {"name": "cancelled_at", "type": "long", "doc": "When the order was cancelled, ms since epoch (UTC)."}
]}
`)
	r.Edit("contracts/dw/order-detail/contract.yaml", "  user_id:\n    pii: true\n", "  user_id:\n    pii: true\n    deprecated: {since: \"2026-11-15\", remove_after: \"2027-03-01\"}\n")
	return r, r.Commit("gmv order_count is an int; order-cancelled; deprecate order-detail user_id")
}
