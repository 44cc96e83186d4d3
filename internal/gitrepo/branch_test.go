package gitrepo

import (
	"errors"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// A commit is a first-parent ancestor of a merge when the merge's first parents lead
// to it; a commit of the merged side branch is not, nor is a later commit.
func TestIsFirstParentAncestor(t *testing.T) {
	repo, commit := emptyCommits(t)
	root := commit("root")
	side := commit("side", root)
	main := commit("main", root)
	merge := commit("merge", main, side)
	for _, c := range []struct {
		name      string
		old, head plumbing.Hash
		want      bool
	}{
		{"itself", merge, merge, true},
		{"first parent", main, merge, true},
		{"root", root, merge, true},
		{"merged side branch", side, merge, false},
		{"a later commit", merge, root, false},
	} {
		got, err := IsFirstParentAncestor(repo.Storer, c.old, c.head)
		if err != nil || got != c.want {
			t.Errorf("%s: %v (%v), want %v", c.name, got, err, c.want)
		}
	}
	if _, err := IsFirstParentAncestor(repo.Storer, root, plumbing.NewHash("1234")); err == nil {
		t.Error("a head that is not a commit gave no error")
	}
}

// The merge base of two branches is where they parted; commits that share no
// history have none, said with ErrNoCommonBase rather than an empty answer.
func TestCommonBase(t *testing.T) {
	repo, commitHash := emptyCommits(t)
	commit := func(msg string, parents ...plumbing.Hash) *object.Commit {
		t.Helper()
		c, err := repo.CommitObject(commitHash(msg, parents...))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	root := commit("root")
	fork := commit("fork", root.Hash)
	side := commit("side", fork.Hash)
	main := commit("main", fork.Hash)
	if base, err := CommonBase(side, main); err != nil || base.Hash != fork.Hash {
		t.Errorf("two branches: %v (%v), want the fork %s", base, err, fork.Hash)
	}
	if base, err := CommonBase(main, root); err != nil || base.Hash != root.Hash {
		t.Errorf("an ancestor: %v (%v), want it", base, err)
	}
	// A commit with no parent (Worktree.Commit would make HEAD its parent).
	o := &object.Commit{Author: root.Author, Committer: root.Committer, Message: "orphan", TreeHash: root.TreeHash}
	enc := repo.Storer.NewEncodedObject()
	if err := o.Encode(enc); err != nil {
		t.Fatal(err)
	}
	h, err := repo.Storer.SetEncodedObject(enc)
	if err != nil {
		t.Fatal(err)
	}
	orphan, err := repo.CommitObject(h)
	if err != nil {
		t.Fatal(err)
	}
	if base, err := CommonBase(orphan, main); !errors.Is(err, ErrNoCommonBase) {
		t.Errorf("no shared history: %v (%v), want ErrNoCommonBase", base, err)
	}
}

// emptyCommits is a new repository and a function that commits nothing new onto the
// given parents (HEAD when none).
func emptyCommits(t *testing.T) (*git.Repository, func(msg string, parents ...plumbing.Hash) plumbing.Hash) {
	repo, err := git.PlainInit(t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	return repo, func(msg string, parents ...plumbing.Hash) plumbing.Hash {
		t.Helper()
		h, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig, Parents: parents, AllowEmptyCommits: true})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
}
