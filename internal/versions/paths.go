package versions

import (
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// PathHistory returns, for each file path, the distinct contents the file had along
// the first-parent history ending at head, oldest first (blob hashes; a content that
// returns is not repeated). It reads only the trees on the way to those paths, and
// skips a commit whose trees on the way did not change, so it costs far less than a
// full Build when a few subjects are wanted (`contractbot check` uses it for the
// _TRANSITIVE levels). A path is followed as named: a subject whose folder moved has
// its history from the move on.
func PathHistory(repo *git.Repository, head plumbing.Hash, paths []string) (map[string][]plumbing.Hash, error) {
	var commits []*object.Commit
	for h := head; ; {
		c, err := repo.CommitObject(h)
		if err != nil {
			return nil, fmt.Errorf("read commit %s: %w", h, err)
		}
		commits = append(commits, c)
		if len(c.ParentHashes) == 0 {
			break
		}
		h = c.ParentHashes[0]
	}
	out := map[string][]plumbing.Hash{}
	seen := map[string]map[plumbing.Hash]bool{}
	for _, p := range paths {
		seen[p] = map[plumbing.Hash]bool{}
	}
	var prevRoot plumbing.Hash
	for i := len(commits) - 1; i >= 0; i-- {
		c := commits[i]
		if c.TreeHash == prevRoot {
			continue
		}
		prevRoot = c.TreeHash
		root, err := repo.TreeObject(c.TreeHash)
		if err != nil {
			return nil, fmt.Errorf("read tree of %s: %w", c.Hash, err)
		}
		for _, p := range paths {
			f, err := root.FindEntry(p)
			if err != nil {
				if errors.Is(err, object.ErrEntryNotFound) || errors.Is(err, object.ErrDirectoryNotFound) || errors.Is(err, object.ErrFileNotFound) {
					continue
				}
				return nil, fmt.Errorf("find %s in %s: %w", p, c.Hash, err)
			}
			if !f.Mode.IsFile() || seen[p][f.Hash] {
				continue
			}
			seen[p][f.Hash] = true
			out[p] = append(out[p], f.Hash)
		}
	}
	return out, nil
}
