package versions

import (
	"fmt"
	"path"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/contractbot/contractbot/internal/gitrepo"
)

// PathHistory returns, for each file path, the distinct contents the file had along
// the first-parent history ending at head, oldest first (blob hashes; a content that
// returns is not repeated). It reads only the trees on the way to those paths, and
// skips a commit whose trees on the way did not change, so it costs far less than a
// full Build when a few subjects are wanted (`contractbot check` uses it for the
// _TRANSITIVE levels). A path is followed as named: a subject whose folder moved has
// its history from the move on.
func PathHistory(repo *git.Repository, head plumbing.Hash, paths []string) (map[string][]plumbing.Hash, error) {
	found, err := PathHistoryBeside(repo, head, paths, "")
	if err != nil {
		return nil, err
	}
	out := make(map[string][]plumbing.Hash, len(found))
	for p, fs := range found {
		for _, f := range fs {
			out[p] = append(out[p], f.Blob)
		}
	}
	return out, nil
}

// Found is one content of a path along the history: its blob, and the blob of the
// file PathHistoryBeside was asked to read beside it (in the same folder) at the
// commit where the content first appeared (zero when there was none).
type Found struct {
	Blob, Beside plumbing.Hash
}

// PathHistoryBeside is PathHistory that also reads, where each content first
// appeared, the file named beside in the same folder ("" for none): the versions of
// a schema with the contract.yaml that registered each.
func PathHistoryBeside(repo *git.Repository, head plumbing.Hash, paths []string, beside string) (map[string][]Found, error) {
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
	out := map[string][]Found{}
	seen := map[string]map[plumbing.Hash]bool{}
	for _, p := range paths {
		seen[p] = map[plumbing.Hash]bool{}
	}
	// Trees read for the previous commit are reused when unchanged, and a file whose
	// folder has the same tree as at the previous commit is not looked up again.
	var prevRoot plumbing.Hash
	trees := gitrepo.NewTrees(repo.Storer)
	folderOf := map[string]plumbing.Hash{} // path -> its folder's tree at the previous commit
	for i := len(commits) - 1; i >= 0; i-- {
		c := commits[i]
		if c.TreeHash == prevRoot {
			continue
		}
		prevRoot = c.TreeHash
		trees.Rotate()
		for _, p := range paths {
			dir, name := path.Split(p)
			folder, found, err := folderTree(trees, c.TreeHash, strings.TrimSuffix(dir, "/"))
			if err != nil {
				return nil, fmt.Errorf("find %s in %s: %w", p, c.Hash, err)
			}
			if !found {
				delete(folderOf, p)
				continue
			}
			if h, ok := folderOf[p]; ok && h == folder {
				continue // the same folder, the same file
			}
			folderOf[p] = folder
			es, err := trees.Entries(folder)
			if err != nil {
				return nil, fmt.Errorf("find %s in %s: %w", p, c.Hash, err)
			}
			f, ok := gitrepo.Find(es, name, false)
			if !ok {
				continue
			}
			if !f.Mode.IsFile() || seen[p][f.Hash] {
				continue
			}
			seen[p][f.Hash] = true
			at := Found{Blob: f.Hash}
			if beside != "" {
				if b, ok := gitrepo.Find(es, beside, false); ok && b.Mode.IsFile() {
					at.Beside = b.Hash
				}
			}
			out[p] = append(out[p], at)
		}
	}
	return out, nil
}

// folderTree walks from a root tree down to the folder dir ("" for the root); found
// is false when a part of the way is missing or not a folder.
func folderTree(trees *gitrepo.Trees, root plumbing.Hash, dir string) (plumbing.Hash, bool, error) {
	h := root
	if dir == "" {
		return h, true, nil
	}
	for part := range strings.SplitSeq(dir, "/") {
		es, err := trees.Entries(h)
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		e, ok := gitrepo.Find(es, part, true)
		if !ok {
			return plumbing.ZeroHash, false, nil
		}
		h = e.Hash
	}
	return h, true, nil
}
