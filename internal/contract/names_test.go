package contract

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestSubjectNamesTable checks that the names of a base are kept by its contracts/
// tree: written after the first gathering, then read in place for the same tree and
// the same as IndexSubjects', and not used for another tree or when damaged.
func TestSubjectNamesTable(t *testing.T) {
	resetFolderCache(t)
	base, head := twoRevisions(t)
	cacheDir := t.TempDir()
	must(t, LoadFolderCache(cacheDir))
	index, _, err := SubjectNames(base)
	must(t, err)
	if _, ok := index.(MapIndex); !ok {
		t.Fatalf("the first SubjectNames is a %T, want gathered from the domains", index)
	}
	must(t, SaveFolderCache(cacheDir))
	file := filepath.Join(cacheDir, namesFile)
	data, err := os.ReadFile(file)
	must(t, err)
	tree, _ := contractsTree(base)
	if !strings.HasPrefix(string(data), namesHeader+" "+tree.String()+" ") {
		t.Fatalf("names file:\n%.300s", data)
	}

	for _, src := range []*GitSource{base, head} {
		resetFolderCache(t)
		must(t, LoadFolderCache(cacheDir))
		index, dups, err := SubjectNames(src)
		must(t, err)
		_, table := index.(NameTable)
		if table != (src == base) {
			t.Errorf("%s: SubjectNames is a %T", src.Describe(), index)
		}
		want, err := IndexSubjects(src)
		must(t, err)
		if got := maps.Collect(index.All()); !maps.Equal(got, want) {
			t.Errorf("%s: SubjectNames %v, want %v", src.Describe(), got, want)
		}
		for name, dir := range want {
			if got, ok := index.Folder(name); !ok || got != dir {
				t.Errorf("%s: Folder(%s) = %q, want %q", src.Describe(), name, got, dir)
			}
		}
		folders, err := SubjectFolders(src)
		must(t, err)
		maps.DeleteFunc(folders, func(_ string, ds []string) bool { return len(ds) < 2 })
		if !maps.EqualFunc(dups, folders, slices.Equal[[]string]) {
			t.Errorf("%s: duplicates %v, want %v", src.Describe(), dups, folders)
		}
	}

	// A damaged table is not read.
	must(t, os.WriteFile(file, []byte(strings.Replace(string(data), "orders.", "ordars.", 1)), 0o644))
	resetFolderCache(t)
	must(t, LoadFolderCache(cacheDir))
	if index, _, err := SubjectNames(base); err != nil || func() bool { _, ok := index.(NameTable); return ok }() {
		t.Errorf("a damaged table was read (%v)", err)
	}
}

// TestNameTableFolder checks the binary search of the table's lines at its ends and
// between names.
func TestNameTableFolder(t *testing.T) {
	resetFolderCache(t)
	setNamesDir(t.TempDir())
	index := map[string]string{}
	for i := range 1000 {
		index[fmt.Sprintf("d%03d.s-%d-value", i%37, i)] = fmt.Sprintf("contracts/d%03d/s-%d", i%37, i)
	}
	keepNames(plumbing.ZeroHash, index, nil)
	file := baseNames.pending
	_, body, _ := strings.Cut(string(file), "\n")
	table := NameTable{[]byte(body)}
	if got := maps.Collect(table.All()); !maps.Equal(got, index) {
		t.Fatalf("All: %d names, want %d", len(got), len(index))
	}
	for name, dir := range index {
		if got, ok := table.Folder(name); !ok || got != dir {
			t.Fatalf("Folder(%s) = %q, %v", name, got, ok)
		}
	}
	for _, name := range []string{"", "a", "d000.s", "d000.s-0-valuf", "d036.s-999-value0", "zzz", "d018.s-5"} {
		if dir, ok := table.Folder(name); ok {
			t.Errorf("Folder(%q) = %q, want none", name, dir)
		}
	}
	if _, ok := (NameTable{}).Folder("x"); ok {
		t.Error("an empty table has a name")
	}
}
