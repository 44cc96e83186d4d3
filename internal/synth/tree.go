package synth

import (
	"crypto/sha1"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Trees and commits written as Git objects in memory, unchanged subtrees reused.

func (g *gen) index(dir string) *index.Index {
	idx := &index.Index{Version: 2}
	g.root.walk("", func(p string, f *file) {
		e := &index.Entry{Name: p, Hash: f.hash, Mode: filemode.Regular, Size: uint32(len(f.data))}
		if st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p))); err == nil {
			e.ModifiedAt = st.ModTime()
			e.CreatedAt = st.ModTime()
		}
		idx.Entries = append(idx.Entries, e)
	})
	sort.Slice(idx.Entries, func(i, j int) bool { return idx.Entries[i].Name < idx.Entries[j].Name })
	return idx
}

// ---- in-memory tree with cached subtree hashes ----

type file struct {
	data []byte
	hash plumbing.Hash
}

type dir struct {
	files map[string]*file
	dirs  map[string]*dir
	hash  plumbing.Hash
	dirty bool
	order []object.TreeEntry // names and modes in Git order; nil after a name was added
}

func newDir() *dir { return &dir{files: map[string]*file{}, dirs: map[string]*dir{}, dirty: true} }

func (g *gen) put(path string, data []byte) {
	d := g.root
	parts := strings.Split(path, "/")
	d.dirty = true
	for _, p := range parts[:len(parts)-1] {
		sub := d.dirs[p]
		if sub == nil {
			sub = newDir()
			d.dirs[p] = sub
			d.order = nil
		}
		sub.dirty = true
		d = sub
	}
	f := &file{data: data}
	if g.store != nil {
		f.hash = g.store.put(plumbing.BlobObject, data)
	}
	name := parts[len(parts)-1]
	if _, ok := d.files[name]; !ok {
		d.order = nil
	}
	d.files[name] = f
}

func (d *dir) countFiles() int {
	n := len(d.files)
	for _, s := range d.dirs {
		n += s.countFiles()
	}
	return n
}

func (d *dir) walk(prefix string, fn func(string, *file)) {
	for n, f := range d.files {
		fn(prefix+n, f)
	}
	for n, s := range d.dirs {
		s.walk(prefix+n+"/", fn)
	}
}

func (d *dir) writeFiles(root string) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	for n, f := range d.files {
		if err := os.WriteFile(filepath.Join(root, n), f.data, 0o644); err != nil {
			return err
		}
	}
	for n, s := range d.dirs {
		if err := s.writeFiles(filepath.Join(root, n)); err != nil {
			return err
		}
	}
	return nil
}

// treeHash writes the trees that changed since the last commit and returns d's hash.
func (g *gen) treeHash(d *dir) plumbing.Hash {
	if !d.dirty {
		return d.hash
	}
	if d.order == nil {
		d.order = make([]object.TreeEntry, 0, len(d.files)+len(d.dirs))
		for n := range d.files {
			d.order = append(d.order, object.TreeEntry{Name: n, Mode: filemode.Regular})
		}
		for n := range d.dirs {
			d.order = append(d.order, object.TreeEntry{Name: n, Mode: filemode.Dir})
		}
		sort.Sort(object.TreeEntrySorter(d.order))
	}
	b := make([]byte, 0, len(d.order)*48)
	for _, e := range d.order {
		if e.Mode == filemode.Dir {
			e.Hash = g.treeHash(d.dirs[e.Name])
		} else {
			e.Hash = d.files[e.Name].hash
		}
		if e.Mode == filemode.Dir {
			b = append(b, "40000 "...)
		} else {
			b = append(b, "100644 "...)
		}
		b = append(b, e.Name...)
		b = append(b, 0)
		b = append(b, e.Hash[:]...)
	}
	d.hash = g.store.put(plumbing.TreeObject, b)
	d.dirty = false
	return d.hash
}

func (g *gen) commit(msg string) error {
	g.commits++
	if g.store == nil {
		return nil
	}
	when := g.o.Start.Add(time.Duration(g.commits-1) * 17 * time.Minute)
	sig := object.Signature{Name: "synth", Email: "synth@example.invalid", When: when}
	c := &object.Commit{Author: sig, Committer: sig, Message: msg + "\n", TreeHash: g.treeHash(g.root)}
	if !g.head.IsZero() {
		c.ParentHashes = []plumbing.Hash{g.head}
	}
	o := &plumbing.MemoryObject{}
	if err := c.Encode(o); err != nil {
		return err
	}
	g.head = g.store.putObject(o)
	return nil
}

// objStore keeps objects in memory, in first-written order, for one packfile.
type objStore struct {
	seen map[plumbing.Hash]bool
	objs []rawObject
}

type rawObject struct {
	t    plumbing.ObjectType
	data []byte
	h    plumbing.Hash
}

func newObjStore() *objStore { return &objStore{seen: map[plumbing.Hash]bool{}} }

// objectHash is Git's object id: SHA-1 of "<type> <size>\x00<content>".
func objectHash(t plumbing.ObjectType, data []byte) plumbing.Hash {
	h := sha1.New()
	h.Write(t.Bytes())
	h.Write([]byte(" " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	var out plumbing.Hash
	copy(out[:], h.Sum(nil))
	return out
}

func (s *objStore) put(t plumbing.ObjectType, data []byte) plumbing.Hash {
	h := objectHash(t, data)
	if !s.seen[h] {
		s.seen[h] = true
		s.objs = append(s.objs, rawObject{t, data, h})
	}
	return h
}

func (s *objStore) putObject(o *plumbing.MemoryObject) plumbing.Hash {
	r, _ := o.Reader()
	data, _ := io.ReadAll(r)
	return s.put(o.Type(), data)
}
