package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Trees reads raw tree objects and compares them: the one tree differ of the project,
// used by the versions index (commit after commit) and by partial loads (a base and a
// head). It keeps the trees it read in two generations: after Rotate, the trees of
// the previous commit are still at hand as the old side of the next comparison.
// A Trees is not safe for concurrent use.
type Trees struct {
	s         Objects
	cur, prev map[plumbing.Hash][]object.TreeEntry
	buf       bytes.Buffer
}

// Objects is what Trees reads objects from: a repository's Storer, or anything that
// finds objects by hash.
type Objects interface {
	EncodedObject(plumbing.ObjectType, plumbing.Hash) (plumbing.EncodedObject, error)
}

// Either reads objects from the first of several stores that has them (two
// repositories opened on the same folder, or a fork and its upstream).
type Either []Objects

// EncodedObject returns the object from the first store that has it.
func (e Either) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	err := plumbing.ErrObjectNotFound
	for _, s := range e {
		var o plumbing.EncodedObject
		if o, err = s.EncodedObject(t, h); !errors.Is(err, plumbing.ErrObjectNotFound) {
			return o, err
		}
	}
	return nil, err
}

// NewTrees returns a tree reader over an object store (a repository's Storer).
func NewTrees(s Objects) *Trees {
	return &Trees{s: s, cur: map[plumbing.Hash][]object.TreeEntry{}, prev: map[plumbing.Hash][]object.TreeEntry{}}
}

// Rotate starts a new generation: trees read since the last Rotate stay cached until
// the next one.
func (t *Trees) Rotate() {
	t.prev, t.cur = t.cur, make(map[plumbing.Hash][]object.TreeEntry, len(t.cur))
}

// Entries returns the entries of a tree in Git order (nil for ZeroHash).
func (t *Trees) Entries(h plumbing.Hash) ([]object.TreeEntry, error) {
	if h.IsZero() {
		return nil, nil
	}
	if e, ok := t.cur[h]; ok {
		return e, nil
	}
	if e, ok := t.prev[h]; ok {
		t.cur[h] = e
		return e, nil
	}
	o, err := t.s.EncodedObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	r, err := o.Reader()
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	t.buf.Reset()
	_, err = t.buf.ReadFrom(r)
	r.Close()
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	es, err := ParseTree(t.buf.String())
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	t.cur[h] = es
	return es, nil
}

// ParseTree decodes a raw tree object ("<octal mode> <name>\x00<20-byte hash>"...).
// It is several times cheaper than object.Tree.Decode: the names are substrings of the
// one string holding the raw tree, so a tree costs two allocations.
func ParseTree(b string) ([]object.TreeEntry, error) {
	es := make([]object.TreeEntry, 0, len(b)/40)
	for len(b) > 0 {
		sp := strings.IndexByte(b, ' ')
		if sp < 0 {
			return nil, errors.New("malformed tree: no mode terminator")
		}
		var mode uint32
		for i := 0; i < sp; i++ {
			c := b[i]
			if c < '0' || c > '7' {
				return nil, errors.New("malformed tree: bad mode")
			}
			mode = mode<<3 | uint32(c-'0')
		}
		b = b[sp+1:]
		nul := strings.IndexByte(b, 0)
		if nul < 0 || len(b) < nul+1+20 {
			return nil, errors.New("malformed tree: truncated entry")
		}
		e := object.TreeEntry{Name: b[:nul], Mode: filemode.FileMode(mode)}
		copy(e.Hash[:], b[nul+1:nul+21])
		es = append(es, e)
		b = b[nul+21:]
	}
	return es, nil
}

// Subtree returns the hash of the directory called name in a tree's entries
// (ZeroHash when there is none, or it is not a directory).
func Subtree(es []object.TreeEntry, name string) plumbing.Hash {
	for _, e := range es {
		if e.Name == name && e.Mode == filemode.Dir {
			return e.Hash
		}
	}
	return plumbing.ZeroHash
}

// Find returns the entry called name in a tree's entries, by a binary search in Git
// order: a directory when dir is true, anything else when it is false.
func Find(es []object.TreeEntry, name string, dir bool) (object.TreeEntry, bool) {
	key := object.TreeEntry{Name: name, Mode: filemode.Regular}
	if dir {
		key.Mode = filemode.Dir
	}
	i, found := slices.BinarySearchFunc(es, &key, func(e object.TreeEntry, k *object.TreeEntry) int { return gitCompare(&e, k) })
	if !found || (es[i].Mode == filemode.Dir) != dir {
		return object.TreeEntry{}, false
	}
	return es[i], true
}

// DirChange is a directory whose tree differs between two trees.
type DirChange struct {
	// Path is the directory's slash-separated path from the roots compared.
	Path string
	// Old and New are its tree on either side, ZeroHash where it is absent.
	Old, New plumbing.Hash
}

// ChangedDirs lists the directories at the given depth under dir ("contracts", 2:
// contracts/<domain>/<name>) whose tree differs between two root trees (added,
// removed or changed), in Git order. Only the subtrees that differ are read.
func (t *Trees) ChangedDirs(oldRoot, newRoot plumbing.Hash, dir string, depth int) ([]DirChange, error) {
	if oldRoot == newRoot {
		return nil, nil
	}
	oldH, newH := oldRoot, newRoot
	for _, name := range strings.Split(dir, "/") {
		oe, err := t.Entries(oldH)
		if err != nil {
			return nil, err
		}
		ne, err := t.Entries(newH)
		if err != nil {
			return nil, err
		}
		oldH, newH = Subtree(oe, name), Subtree(ne, name)
		if oldH == newH {
			return nil, nil
		}
	}
	level := []DirChange{{Path: dir, Old: oldH, New: newH}}
	for ; depth > 0; depth-- {
		var next []DirChange
		for _, d := range level {
			var err error
			if next, err = t.diffDirs(d, next); err != nil {
				return nil, err
			}
		}
		level = next
	}
	return level, nil
}

// diffDirs appends the sub-directories of d whose hashes differ between its two
// sides, by merging the two sorted entry lists.
func (t *Trees) diffDirs(d DirChange, out []DirChange) ([]DirChange, error) {
	oe, err := t.Entries(d.Old)
	if err != nil {
		return nil, err
	}
	ne, err := t.Entries(d.New)
	if err != nil {
		return nil, err
	}
	sub := func(name string) string { return d.Path + "/" + name }
	i, j := 0, 0
	for i < len(oe) || j < len(ne) {
		var c int
		switch {
		case i == len(oe):
			c = 1
		case j == len(ne):
			c = -1
		default:
			c = gitCompare(&oe[i], &ne[j])
		}
		switch {
		case c < 0:
			if oe[i].Mode == filemode.Dir {
				out = append(out, DirChange{sub(oe[i].Name), oe[i].Hash, plumbing.ZeroHash})
			}
			i++
		case c > 0:
			if ne[j].Mode == filemode.Dir {
				out = append(out, DirChange{sub(ne[j].Name), plumbing.ZeroHash, ne[j].Hash})
			}
			j++
		default:
			oh, nh := dirHash(&oe[i]), dirHash(&ne[j])
			if oh != nh {
				out = append(out, DirChange{sub(ne[j].Name), oh, nh})
			}
			i++
			j++
		}
	}
	return out, nil
}

// dirHash is a directory entry's tree, ZeroHash for anything else.
func dirHash(e *object.TreeEntry) plumbing.Hash {
	if e.Mode == filemode.Dir {
		return e.Hash
	}
	return plumbing.ZeroHash
}

// gitCompare orders tree entries as Git does: by name, a directory's name followed by '/'.
func gitCompare(a, b *object.TreeEntry) int {
	an, bn := a.Name, b.Name
	n := min(len(an), len(bn))
	if c := strings.Compare(an[:n], bn[:n]); c != 0 {
		return c
	}
	ac, bc := termChar(a, n), termChar(b, n)
	switch {
	case ac < bc:
		return -1
	case ac > bc:
		return 1
	}
	return 0
}

// termChar is the byte at position n of an entry's sort name (name + "/" for dirs),
// 0 past its end.
func termChar(e *object.TreeEntry, n int) int {
	if n < len(e.Name) {
		return int(e.Name[n])
	}
	if n == len(e.Name) && e.Mode == filemode.Dir {
		return '/'
	}
	return 0
}
