package gitrepo_test

import (
	"reflect"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/testutil"
)

// files reads every file of a commit's tree.
func files(t *testing.T, r *git.Repository, h plumbing.Hash) map[string]string {
	t.Helper()
	c, err := r.CommitObject(h)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	iter, err := c.Files()
	if err != nil {
		t.Fatal(err)
	}
	if err := iter.ForEach(func(f *object.File) error {
		s, err := f.Contents()
		out[f.Name] = s
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestApplyChange: a branch that changed a/x, deleted c and added d/new, applied to a
// main that moved on (b/y changed, e added), keeps both sides' changes, as merging
// does; a path main changed too is a conflict, and the branch's side is taken.
func TestApplyChange(t *testing.T) {
	r := testutil.NewRepo(t)
	r.Write("a/x", "1")
	r.Write("b/y", "1")
	r.Write("c", "1")
	from := r.Commit("branch point")
	r.Branch("pr")
	r.Write("a/x", "2")
	r.Write("d/new", "n")
	wt, err := r.Git.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Remove("c"); err != nil {
		t.Fatal(err)
	}
	to := r.Commit("the change")
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName("master")}); err != nil {
		t.Fatal(err)
	}
	r.Write("b/y", "main")
	r.Write("e", "e")
	onto := r.Commit("main moves on")

	got, conflicts, err := gitrepo.ApplyChange(r.Git, from, to, onto)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a/x": "2", "b/y": "main", "d/new": "n", "e": "e"}
	if f := files(t, r.Git, got); !reflect.DeepEqual(f, want) || len(conflicts) != 0 {
		t.Fatalf("applied: %v, conflicts %v; want %v and none", f, conflicts, want)
	}
	c, _ := r.Git.CommitObject(got)
	if !reflect.DeepEqual(c.ParentHashes, []plumbing.Hash{onto, to}) {
		t.Errorf("parents %v, want the base tip and the head", c.ParentHashes)
	}
	again, _, _ := gitrepo.ApplyChange(r.Git, from, to, onto)
	if again != got {
		t.Errorf("the same change applied twice gave %s and %s", got, again)
	}

	r.Write("a/x", "3")
	onto2 := r.Commit("main changes a/x too")
	got, conflicts, err = gitrepo.ApplyChange(r.Git, from, to, onto2)
	if err != nil {
		t.Fatal(err)
	}
	if f := files(t, r.Git, got); f["a/x"] != "2" || !reflect.DeepEqual(conflicts, []string{"a/x"}) {
		t.Fatalf("a/x = %q, conflicts %v; want the branch's 2 and a conflict on a/x", f["a/x"], conflicts)
	}
}
