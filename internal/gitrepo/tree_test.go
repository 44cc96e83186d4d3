package gitrepo

import (
	"errors"
	"reflect"
	"sort"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
)

// treeBuilder stores trees described as nested maps: a string value is a file's
// content, a map a directory.
type treeBuilder struct {
	t *testing.T
	s *memory.Storage
}

func (b treeBuilder) store(v interface {
	Encode(plumbing.EncodedObject) error
}) plumbing.Hash {
	o := b.s.NewEncodedObject()
	if err := v.Encode(o); err != nil {
		b.t.Fatal(err)
	}
	h, err := b.s.SetEncodedObject(o)
	if err != nil {
		b.t.Fatal(err)
	}
	return h
}

func (b treeBuilder) tree(m map[string]any) plumbing.Hash {
	var es []object.TreeEntry
	for name, v := range m {
		switch v := v.(type) {
		case string:
			o := b.s.NewEncodedObject()
			o.SetType(plumbing.BlobObject)
			w, _ := o.Writer()
			w.Write([]byte(v))
			w.Close()
			h, _ := b.s.SetEncodedObject(o)
			es = append(es, object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h})
		case map[string]any:
			es = append(es, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: b.tree(v)})
		}
	}
	// Git order: a directory sorts as its name followed by '/'.
	sortKey := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(es, func(i, j int) bool { return sortKey(es[i]) < sortKey(es[j]) })
	return b.store(&object.Tree{Entries: es})
}

func TestChangedDirs(t *testing.T) {
	b := treeBuilder{t, memory.NewStorage()}
	subject := func(text string) map[string]any {
		return map[string]any{"contract.yaml": text, "consumers": map[string]any{"c.yaml": "x"}}
	}
	oldRoot := b.tree(map[string]any{
		"README.md": "r",
		"contracts": map[string]any{
			"teams.yaml": "t",
			"orders":     map[string]any{"a": subject("1"), "a-b": subject("2"), "same": subject("3")},
			"gone":       map[string]any{"x": subject("4")},
			"untouched":  map[string]any{"y": subject("5")},
		},
	})
	newRoot := b.tree(map[string]any{
		"README.md": "changed outside contracts/",
		"contracts": map[string]any{
			"teams.yaml": "t2",
			"orders":     map[string]any{"a": subject("1 changed"), "a-b": "now a file", "same": subject("3"), "new": subject("6")},
			"untouched":  map[string]any{"y": subject("5")},
			"added":      map[string]any{"z": subject("7")},
		},
	})
	tr := NewTrees(b.s)
	got, err := tr.ChangedDirs(oldRoot, newRoot, "contracts", 2)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, d := range got {
		paths = append(paths, d.Path)
		if d.Path == "contracts/gone/x" && !d.New.IsZero() || d.Path == "contracts/added/z" && !d.Old.IsZero() {
			t.Errorf("%s: old %s new %s", d.Path, d.Old, d.New)
		}
	}
	want := []string{"contracts/added/z", "contracts/gone/x", "contracts/orders/a-b", "contracts/orders/a", "contracts/orders/new"}
	if !reflect.DeepEqual(paths, want) {
		t.Errorf("changed %v, want %v (Git order)", paths, want)
	}
	if got, err := tr.ChangedDirs(oldRoot, oldRoot, "contracts", 2); err != nil || len(got) != 0 {
		t.Errorf("a tree against itself: %v %v", got, err)
	}
	if got, err := tr.ChangedDirs(oldRoot, newRoot, "nowhere", 1); err != nil || len(got) != 0 {
		t.Errorf("a folder absent on both sides: %v %v", got, err)
	}

	// A tree that cannot be read is an error, never "nothing changed".
	delete(b.s.ObjectStorage.Objects, b.tree(map[string]any{"a": subject("1 changed"), "a-b": "now a file", "same": subject("3"), "new": subject("6")}))
	_, err = NewTrees(b.s).ChangedDirs(oldRoot, newRoot, "contracts", 2)
	if !errors.Is(err, plumbing.ErrObjectNotFound) {
		t.Errorf("a missing tree: %v", err)
	}
}

func TestEither(t *testing.T) {
	a, b := treeBuilder{t, memory.NewStorage()}, treeBuilder{t, memory.NewStorage()}
	ha := a.tree(map[string]any{"contracts": map[string]any{"d": map[string]any{"s": map[string]any{"f": "1"}}}})
	hb := b.tree(map[string]any{"contracts": map[string]any{"d": map[string]any{"s": map[string]any{"f": "2"}}}})
	if _, err := NewTrees(a.s).ChangedDirs(ha, hb, "contracts", 2); !errors.Is(err, plumbing.ErrObjectNotFound) {
		t.Errorf("one store without the other's trees: %v", err)
	}
	got, err := NewTrees(Either{a.s, b.s}).ChangedDirs(ha, hb, "contracts", 2)
	if err != nil || len(got) != 1 || got[0].Path != "contracts/d/s" {
		t.Errorf("either store: %v %v", got, err)
	}
}

func TestFind(t *testing.T) {
	file, dir := filemode.Regular, filemode.Dir
	// Git order: a directory sorts as its name and "/".
	es := []object.TreeEntry{{Name: "a-b", Mode: file}, {Name: "a.txt", Mode: file}, {Name: "a", Mode: dir}, {Name: "a0", Mode: filemode.Executable}, {Name: "b", Mode: dir}}
	for _, c := range []struct {
		name  string
		dir   bool
		found bool
	}{{"a", true, true}, {"a", false, false}, {"a-b", false, true}, {"a.txt", false, true}, {"a0", false, true}, {"a0", true, false}, {"b", true, true}, {"b", false, false}, {"c", false, false}, {"", false, false}} {
		e, ok := Find(es, c.name, c.dir)
		if ok != c.found || (ok && e.Name != c.name) {
			t.Errorf("Find(%q, %v) = %v, %v; want found %v", c.name, c.dir, e, ok, c.found)
		}
	}
}
