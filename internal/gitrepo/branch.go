package gitrepo

import (
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// ResolveBranch returns the commit a branch points at: "" or "HEAD" for HEAD, a full
// reference name, or a short name tried under refs/heads/, refs/remotes/ and
// refs/remotes/origin/.
func ResolveBranch(repo *git.Repository, branch string) (plumbing.Hash, error) {
	if branch == "" || branch == "HEAD" {
		ref, err := repo.Head()
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("resolve HEAD: %w", err)
		}
		return ref.Hash(), nil
	}
	for _, name := range []string{branch, "refs/heads/" + branch, "refs/remotes/" + branch, "refs/remotes/origin/" + branch} {
		if ref, err := repo.Reference(plumbing.ReferenceName(name), true); err == nil {
			return ref.Hash(), nil
		}
	}
	return plumbing.ZeroHash, fmt.Errorf("branch %q not found (tried refs/heads/, refs/remotes/ and refs/remotes/origin/)", branch)
}

// DefaultBranches are tried, in order, to find what a change is compared with.
var DefaultBranches = []string{"refs/remotes/origin/HEAD", "refs/remotes/origin/main", "refs/remotes/origin/master", "refs/heads/main", "refs/heads/master"}

// MergeBase returns the commit a change at head is compared with: the merge base of
// head and the first of DefaultBranches that exists and shares history with head
// (head's parent commit is not assumed), and that branch's short name.
func MergeBase(repo *git.Repository, head *object.Commit) (*object.Commit, string, error) {
	for _, name := range DefaultBranches {
		ref, err := repo.Reference(plumbing.ReferenceName(name), true)
		if err != nil {
			continue
		}
		tip, err := repo.CommitObject(ref.Hash())
		if err != nil {
			continue
		}
		base, err := CommonBase(head, tip)
		if err != nil {
			continue
		}
		return base, plumbing.ReferenceName(name).Short(), nil
	}
	return nil, "", fmt.Errorf("no default branch found (tried %v); name the base with --against", DefaultBranches)
}

// ErrNoCommonBase says that two commits share no history.
var ErrNoCommonBase = errors.New("no common history")

// CommonBase is the merge base of a and b: where one left the other's history. When
// criss-cross merges leave several best common ancestors, it is the first go-git
// finds, for every caller alike.
func CommonBase(a, b *object.Commit) (*object.Commit, error) {
	bases, err := a.MergeBase(b)
	if err != nil {
		return nil, err
	}
	if len(bases) == 0 {
		return nil, ErrNoCommonBase
	}
	return bases[0], nil
}

// DefaultBranch returns the full name of the first of DefaultBranches that exists.
func DefaultBranch(repo *git.Repository) (string, error) {
	for _, name := range DefaultBranches {
		if _, err := repo.Reference(plumbing.ReferenceName(name), true); err == nil {
			return name, nil
		}
	}
	return "", fmt.Errorf("no default branch found (tried %v)", DefaultBranches)
}

// IsFirstParentAncestor reports whether old is head or one of its first-parent
// ancestors: whether a record made at old (a cache, an index) may be extended to head.
// It reads every commit from head back to old, or to the root when old is not there.
func IsFirstParentAncestor(s storer.EncodedObjectStorer, old, head plumbing.Hash) (bool, error) {
	for h := head; ; {
		if h == old {
			return true, nil
		}
		c, err := object.GetCommit(s, h)
		if err != nil {
			return false, fmt.Errorf("read commit %s: %w", h, err)
		}
		if len(c.ParentHashes) == 0 {
			return false, nil
		}
		h = c.ParentHashes[0]
	}
}
