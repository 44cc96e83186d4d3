package history

import (
	"errors"
	"fmt"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/contractbot/contractbot/internal/contract"
)

// Commit is a first-parent commit of the branch that changed contracts/.
type Commit struct {
	Hash, Message string
}

// ContractCommits lists the first-parent commits up to head that changed contracts/,
// oldest first: how changes reached the branch (the automation figures of the health
// report read whether each names a pull request). It reads two trees a commit.
func ContractCommits(s storer.EncodedObjectStorer, head plumbing.Hash) ([]Commit, error) {
	var out []Commit
	c, err := object.GetCommit(s, head)
	for err == nil {
		var parent *object.Commit
		if c.NumParents() > 0 {
			if parent, err = c.Parent(0); err != nil {
				break
			}
		}
		changed, cerr := contractsChanged(c, parent)
		if cerr != nil {
			return nil, cerr
		}
		if changed {
			out = append(out, Commit{Hash: c.Hash.String(), Message: c.Message})
		}
		if parent == nil {
			break
		}
		c = parent
	}
	if err != nil {
		return nil, fmt.Errorf("walk the first parents of %s: %w", head, err)
	}
	slices.Reverse(out)
	return out, nil
}

// contractsChanged reports whether contracts/ differs between c and its parent (nil:
// c is the first commit, which changed it if it has it).
func contractsChanged(c, parent *object.Commit) (bool, error) {
	h, err := contractsTree(c)
	if err != nil || parent == nil {
		return !h.IsZero(), err
	}
	p, err := contractsTree(parent)
	return h != p, err
}

func contractsTree(c *object.Commit) (plumbing.Hash, error) {
	t, err := c.Tree()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	e, err := t.FindEntry(contract.ContractsDir)
	if errors.Is(err, object.ErrEntryNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return e.Hash, nil
}
