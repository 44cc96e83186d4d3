package versions

import (
	"fmt"
	"slices"
)

// check verifies what the index's own shape promises, so that an index read from a
// cache file is not believed on its word: hashes are hashes, ids number the schemas
// from 1, versions number each subject's from 1 and point at known ids, every use of
// an id names a version with that id and the id's form and references are the
// version's, current versions and folders exist.
func (ix *Index) check() error {
	if !isHash(ix.Head) || !isHash(ix.HeadTree) || ix.Commits < 1 {
		return fmt.Errorf("head %q, tree %q, %d commits: not an index of a history", ix.Head, ix.HeadTree, ix.Commits)
	}
	for i, e := range ix.Schemas {
		if e.ID != i+1 || !isHash(e.Blob) || e.Canonical == "" {
			return fmt.Errorf("schema id %d (position %d) is malformed", e.ID, i+1)
		}
		for _, u := range e.Uses {
			h := ix.BySubject[u.Subject]
			if h == nil || u.Version < 1 || u.Version > len(h.Versions) || h.Versions[u.Version-1].ID != e.ID {
				return fmt.Errorf("schema id %d names %s version %d, which does not have it", e.ID, u.Subject, u.Version)
			}
		}
	}
	for s, h := range ix.BySubject {
		if h == nil {
			return fmt.Errorf("subject %s has no history", s)
		}
		for j, v := range h.Versions {
			if v.Subject != s || v.Version != j+1 || v.ID < 1 || v.ID > len(ix.Schemas) || !isHash(v.Blob) || !isHash(v.Commit) {
				return fmt.Errorf("%s version %d (position %d) is malformed", s, v.Version, j+1)
			}
			if e := ix.Schemas[v.ID-1]; e.Canonical != v.Canonical || !slices.Equal(e.References, v.References) {
				return fmt.Errorf("%s version %d has id %d, whose form or references are not its own", s, v.Version, v.ID)
			}
		}
		if h.Current < 0 || h.Current > len(h.Versions) {
			return fmt.Errorf("%s: current version %d of %d", s, h.Current, len(h.Versions))
		}
		for _, f := range h.Folders {
			if fs := ix.Folders[f]; fs == nil || fs.Subject != s {
				return fmt.Errorf("%s: folder %s does not hold it", s, f)
			}
		}
	}
	for p, f := range ix.Folders {
		if f == nil || !isHash(f.Tree) {
			return fmt.Errorf("folder %s is malformed", p)
		}
	}
	return nil
}

// isHash reports whether s is a full SHA-1 hash in lower-case hex.
func isHash(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
