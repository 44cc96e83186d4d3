package change

import (
	"bytes"
	"fmt"
	"iter"
	"slices"
	"sort"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
)

// Which subject folders a change touches, and what the head's names are where it
// touched them: the partial-load steps before contract.LoadSubjects.

// ChangedDirs lists the subject folders whose content differs between two sources
// (added, deleted or changed files), sorted. Between two Git revisions it compares
// tree hashes, skipping whole domains whose tree did not change, and reads no file;
// between a revision and a working tree, the same with the working tree's commit, then
// the folders that differ there or that the working tree changed file by file;
// otherwise it compares file contents.
func ChangedDirs(base, head contract.Source) ([]string, error) {
	if bg, ok := base.(*contract.GitSource); ok {
		switch h := head.(type) {
		case *contract.GitSource:
			return changedGitDirs(bg, h)
		case *contract.WorkTree:
			return changedWorkTreeDirs(bg, h)
		}
	}
	bd, err := contract.SubjectDirs(base)
	if err != nil {
		return nil, err
	}
	hd, err := contract.SubjectDirs(head)
	if err != nil {
		return nil, err
	}
	all := slices.Concat(bd, hd)
	slices.Sort(all)
	return differing(base, head, slices.Compact(all))
}

// differing keeps the folders of dirs whose files differ between two sources.
func differing(base, head contract.Source, dirs []string) ([]string, error) {
	var out []string
	for _, dir := range dirs {
		same, err := sameContent(base, head, dir)
		if err != nil {
			return nil, err
		}
		if !same {
			out = append(out, dir)
		}
	}
	return out, nil
}

// changedGitDirs compares two revisions by tree hash, reading only the trees that
// differ (gitrepo.Trees, the differ the versions index uses).
func changedGitDirs(base, head *contract.GitSource) ([]string, error) {
	var objects gitrepo.Objects = base.Repository().Storer
	if head.Repository() != base.Repository() {
		objects = gitrepo.Either{base.Repository().Storer, head.Repository().Storer}
	}
	changes, err := gitrepo.NewTrees(objects).ChangedDirs(base.Commit().TreeHash, head.Commit().TreeHash, contract.ContractsDir, 2)
	if err != nil {
		return nil, fmt.Errorf("compare the subject folders of %s and %s: %w", base.Describe(), head.Describe(), err)
	}
	out := make([]string, len(changes))
	for i, c := range changes {
		out[i] = c.Path
	}
	slices.Sort(out) // Git orders "a-b" before "a/"; callers want path order
	return out, nil
}

// changedWorkTreeDirs compares a revision with a working tree: the folders that differ
// between the revision and the working tree's commit (by tree hash) and those the
// working tree changed are compared file by file, as other sources are, and no other
// folder is read.
func changedWorkTreeDirs(base *contract.GitSource, head *contract.WorkTree) ([]string, error) {
	dirs, err := changedGitDirs(base, head.Commit())
	if err != nil {
		return nil, err
	}
	dirs = append(dirs, head.ChangedSubjectDirs()...)
	slices.Sort(dirs)
	return differing(base, head, slices.Compact(dirs))
}

// sameContent compares the files of a folder, recursively, in two sources.
func sameContent(a, b contract.Source, dir string) (bool, error) {
	ae, aerr := a.ReadDir(dir)
	be, berr := b.ReadDir(dir)
	if aerr != nil || berr != nil {
		return aerr != nil && berr != nil, nil
	}
	if len(ae) != len(be) {
		return false, nil
	}
	for i := range ae {
		if ae[i] != be[i] {
			return false, nil
		}
		p := dir + "/" + ae[i].Name
		if ae[i].Dir {
			same, err := sameContent(a, b, p)
			if err != nil || !same {
				return same, err
			}
			continue
		}
		if ae[i].Symlink {
			continue
		}
		ad, err1 := a.ReadFile(p, contract.MaxSchemaBytes)
		bd, err2 := b.ReadFile(p, contract.MaxSchemaBytes)
		if (err1 == nil) != (err2 == nil) || !bytes.Equal(ad, bd) {
			return false, nil
		}
	}
	return true, nil
}

// anyImportable reports whether one of the folders holds a file another schema can
// import (a .proto file) in src. A deleted folder counts too: its importers break.
func anyImportable(src contract.Source, dirs []string) bool {
	for _, d := range dirs {
		entries, err := src.ReadDir(d)
		if err != nil {
			return true
		}
		for _, e := range entries {
			if contract.ImporterOf(e.Name) != nil {
				return true
			}
		}
	}
	return false
}

// WithImporters adds to dirs every subject folder whose schema files (Protobuf) import
// a file of one of them, directly or through other imports: a change to an imported
// file changes the importer's schema too (a schema reference, in registry terms).
// When one of dirs holds a file that can be imported, it reads the imports of every
// domain whose Git tree it has not read before (contract.SubjectImports).
func WithImporters(src contract.Source, dirs []string) ([]string, error) {
	if !anyImportable(src, dirs) {
		return dirs, nil // nothing that can be imported changed
	}
	imports, err := contract.SubjectImports(src) // importer dir -> imported dirs
	if err != nil {
		return nil, err
	}
	return withImportersOf(dirs, imports), nil
}

// withImportersOf adds to dirs the importers of imports (importer dir -> imported
// dirs) that import one of them, directly or through others, sorted.
func withImportersOf(dirs []string, imports map[string][]string) []string {
	in := map[string]bool{}
	for _, d := range dirs {
		in[d] = true
	}
	for changed := true; changed; {
		changed = false
		for importer, deps := range imports {
			if in[importer] {
				continue
			}
			for _, d := range deps {
				if in[d] {
					in[importer], changed = true, true
					break
				}
			}
		}
	}
	out := make([]string, 0, len(in))
	for d := range in {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// UpdateIndex returns index (contract.IndexSubjects of base) brought up to date for
// src, where only the folders dirs may differ: the index of a head from its base's.
// The names of the folders dirs are read from src and laid over index, which is
// neither copied nor changed nor walked. A changed folder that is still there but
// names no subject now (its contract.yaml is unreadable, over the size limit or
// broken) keeps the name it had in base: its subject is broken, not gone, and what
// refers to it is not reported as well.
func UpdateIndex(index contract.Index, base, src contract.Source, dirs []string) (contract.Index, error) {
	o := &overlay{base: index, changed: make(map[string]bool, len(dirs)), set: map[string]string{}}
	for _, d := range dirs {
		o.changed[d] = true
	}
	for _, dir := range dirs {
		name, _, ok, err := contract.SubjectLine(src, dir)
		if err != nil {
			return nil, err
		}
		if _, dup := o.Folder(name); ok && !dup {
			o.set[name] = dir
		}
	}
	named := make(map[string]bool, len(o.set))
	for _, dir := range o.set {
		named[dir] = true
	}
	for _, dir := range dirs {
		if named[dir] {
			continue
		}
		if _, err := src.ReadDir(dir); err != nil {
			continue
		}
		// The name the folder had in base, if the index gives it that folder.
		name, _, ok, err := contract.SubjectLine(base, dir)
		if err != nil {
			return nil, err
		}
		if had, in := index.Folder(name); !ok || !in || had != dir {
			continue
		}
		if _, taken := o.set[name]; !taken {
			o.set[name] = dir
		}
	}
	return o, nil
}

// overlay is a head's subject index: the names set for the changed folders laid over
// the base's index, whose names in changed folders are hidden.
type overlay struct {
	base    contract.Index
	changed map[string]bool   // folders whose base names are hidden
	set     map[string]string // the names of changed folders, read from the head
}

// Folder returns the folder of the subject name in the head, if any.
func (o *overlay) Folder(name string) (string, bool) {
	if dir, ok := o.set[name]; ok {
		return dir, true
	}
	dir, ok := o.base.Folder(name)
	if !ok || o.changed[dir] {
		return "", false
	}
	return dir, true
}

// All yields every name of the head and its folder.
func (o *overlay) All() iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for name, dir := range o.set {
			if !yield(name, dir) {
				return
			}
		}
		for name, dir := range o.base.All() {
			if _, over := o.set[name]; over || o.changed[dir] {
				continue
			}
			if !yield(name, dir) {
				return
			}
		}
	}
}

// UpdateDuplicates returns the subject names that two or more folders of src claim,
// with those folders (what contract.SubjectFolders of src holds for them), from the
// names of another revision (contract.SubjectNames: index, dups) where only the
// folders dirs may differ. Only the names with two or more folders in either are
// looked at; index and dups are neither copied nor changed.
func UpdateDuplicates(index contract.Index, dups map[string][]string, src contract.Source, dirs []string) (map[string][]string, error) {
	changed := make(map[string]bool, len(dirs))
	for _, d := range dirs {
		changed[d] = true
	}
	claims := map[string][]string{} // name -> the changed folders that claim it in src
	for _, dir := range dirs {
		name, _, ok, err := contract.SubjectLine(src, dir)
		if err != nil {
			return nil, err
		}
		if ok {
			claims[name] = append(claims[name], dir)
		}
	}
	out := map[string][]string{}
	add := func(name string, base []string) {
		all := slices.DeleteFunc(slices.Clone(base), func(d string) bool { return changed[d] })
		if all = append(all, claims[name]...); len(all) > 1 {
			out[name] = all
		}
	}
	for name, ds := range dups {
		add(name, ds)
	}
	for name := range claims {
		if _, dup := dups[name]; dup {
			continue
		}
		var base []string
		if dir, ok := index.Folder(name); ok {
			base = []string{dir}
		}
		add(name, base)
	}
	return out, nil
}
