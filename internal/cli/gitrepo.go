package cli

import (
	"fmt"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// defaultBranches are tried, in order, to find what a change is compared with.
var defaultBranches = []string{"refs/remotes/origin/HEAD", "refs/remotes/origin/main", "refs/remotes/origin/master", "refs/heads/main", "refs/heads/master"}

// mergeBase returns the commit a change at head is compared with: the merge base of
// head and the default branch (head's parent commit is not assumed).
func mergeBase(repo *git.Repository, head *object.Commit) (*object.Commit, string, error) {
	for _, name := range defaultBranches {
		ref, err := repo.Reference(plumbing.ReferenceName(name), true)
		if err != nil {
			continue
		}
		tip, err := repo.CommitObject(ref.Hash())
		if err != nil {
			continue
		}
		bases, err := head.MergeBase(tip)
		if err != nil || len(bases) == 0 {
			continue
		}
		return bases[0], plumbing.ReferenceName(name).Short(), nil
	}
	return nil, "", fmt.Errorf("no default branch found (tried %v); name the base with --against", defaultBranches)
}
