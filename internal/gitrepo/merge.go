package gitrepo

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// ApplyChange writes into repo's object store a commit whose tree is onto's with the
// change from -> to applied, path by path (what merging to into onto gives when from
// is their merge base and no path changed on both sides), and returns it. Its
// parents are onto and to, like GitHub's test merge (refs/pull/N/merge); nothing
// points at it. Conflicts lists the paths that onto changed too, differently: there
// the change's side is taken (GitHub would refuse the merge until it is resolved).
// The commit is deterministic: the same three commits give the same hash.
func ApplyChange(repo *git.Repository, from, to, onto plumbing.Hash) (plumbing.Hash, []string, error) {
	trees := make([]*object.Tree, 3)
	for i, h := range []plumbing.Hash{from, to, onto} {
		c, err := repo.CommitObject(h)
		if err != nil {
			return plumbing.ZeroHash, nil, fmt.Errorf("apply a change: read commit %s: %w", h, err)
		}
		if trees[i], err = c.Tree(); err != nil {
			return plumbing.ZeroHash, nil, fmt.Errorf("apply a change: read the tree of %s: %w", h, err)
		}
	}
	fromT, toT, ontoT := trees[0], trees[1], trees[2]
	changes, err := object.DiffTree(fromT, toT)
	if err != nil {
		return plumbing.ZeroHash, nil, fmt.Errorf("apply a change: compare %s and %s: %w", from, to, err)
	}
	edits := map[string]treeEdit{}
	var conflicts []string
	for _, ch := range changes {
		for _, p := range []string{ch.From.Name, ch.To.Name} {
			if p == "" || edits[p] != (treeEdit{}) {
				continue
			}
			was, now, there := entryAt(fromT, p), entryAt(toT, p), entryAt(ontoT, p)
			if there != was && there != now {
				conflicts = append(conflicts, p)
			}
			if now == (treeEdit{}) {
				edits[p] = treeEdit{del: true}
			} else {
				edits[p] = now
			}
		}
	}
	root, _, err := writeTree(repo.Storer, ontoT, edits)
	if err != nil {
		return plumbing.ZeroHash, nil, fmt.Errorf("apply a change: %w", err)
	}
	sig := object.Signature{Name: "contractbot", Email: "contractbot@localhost", When: time.Unix(0, 0).UTC()}
	c := &object.Commit{Author: sig, Committer: sig, TreeHash: root, ParentHashes: []plumbing.Hash{onto, to},
		Message: "contractbot: " + to.String() + " applied to " + onto.String() + "\n"}
	obj := repo.Storer.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, nil, fmt.Errorf("apply a change: %w", err)
	}
	h, err := repo.Storer.SetEncodedObject(obj)
	if err != nil {
		return plumbing.ZeroHash, nil, fmt.Errorf("apply a change: write the commit: %w", err)
	}
	slices.Sort(conflicts)
	return h, conflicts, nil
}

// treeEdit is what a path becomes: an entry, or deleted.
type treeEdit struct {
	mode filemode.FileMode
	hash plumbing.Hash
	del  bool
}

// entryAt is the file at p in t, or the zero edit when there is none.
func entryAt(t *object.Tree, p string) treeEdit {
	e, err := t.FindEntry(p)
	if err != nil || e.Mode == filemode.Dir {
		return treeEdit{}
	}
	return treeEdit{mode: e.Mode, hash: e.Hash}
}

// writeTree writes base (nil: an empty directory) with edits (paths relative to it)
// applied, and its subtrees; empty says nothing is left in it.
func writeTree(s storer.EncodedObjectStorer, base *object.Tree, edits map[string]treeEdit) (plumbing.Hash, bool, error) {
	entries := map[string]object.TreeEntry{}
	if base != nil {
		for _, e := range base.Entries {
			entries[e.Name] = e
		}
	}
	direct := map[string]treeEdit{}
	nested := map[string]map[string]treeEdit{}
	for p, e := range edits {
		name, rest, ok := strings.Cut(p, "/")
		if !ok {
			direct[name] = e
			continue
		}
		if nested[name] == nil {
			nested[name] = map[string]treeEdit{}
		}
		nested[name][rest] = e
	}
	for name, es := range nested {
		var sub *object.Tree
		if e, ok := entries[name]; ok && e.Mode == filemode.Dir {
			var err error
			if sub, err = object.GetTree(s, e.Hash); err != nil {
				return plumbing.ZeroHash, false, fmt.Errorf("read the tree %s: %w", name, err)
			}
		}
		h, empty, err := writeTree(s, sub, es)
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		if empty {
			delete(entries, name)
		} else {
			entries[name] = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}
		}
	}
	for name, e := range direct {
		switch {
		case e.del && nested[name] != nil: // a file that became a folder: the folder stays
		case e.del:
			delete(entries, name)
		default:
			entries[name] = object.TreeEntry{Name: name, Mode: e.mode, Hash: e.hash}
		}
	}
	if len(entries) == 0 {
		return plumbing.ZeroHash, true, nil
	}
	list := make([]object.TreeEntry, 0, len(entries))
	for _, e := range entries {
		list = append(list, e)
	}
	slices.SortFunc(list, func(a, b object.TreeEntry) int { return strings.Compare(gitOrder(a), gitOrder(b)) })
	t := &object.Tree{Entries: list}
	obj := s.NewEncodedObject()
	if err := t.Encode(obj); err != nil {
		return plumbing.ZeroHash, false, err
	}
	h, err := s.SetEncodedObject(obj)
	if err != nil {
		return plumbing.ZeroHash, false, fmt.Errorf("write a tree: %w", err)
	}
	return h, false, nil
}

// gitOrder is the key Git sorts a tree's entries by: a folder's name ends with "/".
func gitOrder(e object.TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}
