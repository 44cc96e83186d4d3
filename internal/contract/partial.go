package contract

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/formats"
	"github.com/contractbot/contractbot/internal/gitrepo"
)

// reSubjectKey finds the subject key of a contract.yaml without parsing the YAML.
var reSubjectKey = regexp.MustCompile(`(?m)^subject:[ \t]*["']?([A-Za-z0-9][A-Za-z0-9._-]*)["']?[ \t]*(?:#.*)?$`)

// SubjectDirs lists every subject folder contracts/<domain>/<name>, sorted.
func SubjectDirs(src Source) ([]string, error) {
	domains, err := src.ReadDir(ContractsDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, d := range domains {
		if !d.Dir || d.Symlink {
			continue
		}
		names, err := src.ReadDir(ContractsDir + "/" + d.Name)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if n.Dir && !n.Symlink {
				out = append(out, ContractsDir+"/"+d.Name+"/"+n.Name)
			}
		}
	}
	return out, nil
}

// IndexSubjects maps each subject name to its folder by reading the subject key of
// every contract.yaml, without parsing schemas: what a partial load needs to know
// about the subjects it does not load.
func IndexSubjects(src Source) (map[string]string, error) {
	dirs, err := SubjectDirs(src)
	if err != nil {
		return nil, err
	}
	return indexDirs(src, make(map[string]string, len(dirs)), dirs)
}

// UpdateIndex returns a copy of index (of another revision) brought up to date for
// src, where only the folders dirs may differ: the index of a head from its base's.
// A changed folder that is still there but names no subject now (its contract.yaml is
// unreadable, over the size limit or broken) keeps the names it had: its subject is
// broken, not gone, and what refers to it is not reported as well.
func UpdateIndex(index map[string]string, src Source, dirs []string) (map[string]string, error) {
	changed := map[string]bool{}
	for _, d := range dirs {
		changed[d] = true
	}
	out := make(map[string]string, len(index))
	for name, dir := range index {
		if !changed[dir] {
			out[name] = dir
		}
	}
	out, err := indexDirs(src, out, dirs)
	if err != nil {
		return nil, err
	}
	named := make(map[string]bool, len(out))
	for _, dir := range out {
		named[dir] = true
	}
	for name, dir := range index {
		if _, taken := out[name]; taken || !changed[dir] || named[dir] {
			continue
		}
		if _, err := src.ReadDir(dir); err == nil {
			out[name] = dir
		}
	}
	return out, nil
}

func indexDirs(src Source, index map[string]string, dirs []string) (map[string]string, error) {
	for _, dir := range dirs {
		data, err := src.ReadFile(dir+"/"+ContractFile, MaxYAMLBytes)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrTooLarge) || errors.Is(err, ErrSymlink) || errors.Is(err, fs.ErrInvalid) {
				continue
			}
			return nil, err
		}
		if m := reSubjectKey.FindSubmatch(data); m != nil {
			if _, dup := index[string(m[1])]; !dup {
				index[string(m[1])] = dir
			}
		}
	}
	return index, nil
}

// LoadSubjects loads teams.yaml, the calendar, the subject folders dirs, and every
// subject their lineage reaches (following produces, hop after hop), for work whose
// cost must grow with the size of a change rather than of the repository. index is
// IndexSubjects of the same source (nil to build it). The checks that need the whole
// tree use the index for names; a subject that is not loaded is not validated.
func LoadSubjects(src Source, dirs []string, index map[string]string) (*Tree, error) {
	if index == nil {
		var err error
		if index, err = IndexSubjects(src); err != nil {
			return nil, err
		}
	}
	l := &loader{src: src, index: index, keep: map[string]bool{}}
	for _, d := range dirs {
		l.keep[d] = true
	}
	t := &Tree{bySubject: map[string]*Subject{}, resolve: l.resolveProto, Partial: true}
	t.Teams = l.loadTeams()
	l.teams = t.Teams
	loaded := map[string]bool{}
	queue := append([]string(nil), dirs...)
	for len(queue) > 0 {
		var batch []subjectDir
		for _, dir := range queue {
			if loaded[dir] {
				continue
			}
			loaded[dir] = true
			parts := strings.Split(dir, "/")
			if len(parts) != 3 || parts[0] != ContractsDir {
				return nil, fmt.Errorf("load subjects: %q is not a subject folder contracts/<domain>/<name>", dir)
			}
			entries, ok := l.listDir(dir)
			if !ok {
				continue // deleted in this revision
			}
			batch = append(batch, subjectDir{dir: dir, domain: parts[1], name: parts[2], entries: entries})
		}
		queue = nil
		for i, s := range l.loadSubjects(batch) {
			t.add(batch[i].dir, s)
			if s == nil {
				continue
			}
			for _, c := range s.Consumers {
				for target := range c.Produces {
					if dir, ok := index[target]; ok && !loaded[dir] {
						queue = append(queue, dir)
					}
				}
			}
		}
		sort.Strings(queue)
	}
	slices.Sort(t.Unreadable)
	l.crossCheck(t)
	t.Entries, t.Freezes = l.loadCalendar(t)
	l.checkDualWrite(t)
	if l.sysErr != nil {
		return nil, l.sysErr
	}
	l.diags.Sort()
	t.Diagnostics = l.diags
	return t, nil
}

// ChangedDirs lists the subject folders whose content differs between two sources
// (added, deleted or changed files), sorted. Between two Git revisions it compares
// tree hashes, skipping whole domains whose tree did not change, and reads no file;
// otherwise it compares file contents.
func ChangedDirs(base, head Source) ([]string, error) {
	if bg, ok := base.(*GitSource); ok {
		switch h := head.(type) {
		case *GitSource:
			return changedGitDirs(bg, h)
		case *WorkTree:
			return changedWorkTreeDirs(bg, h)
		}
	}
	bd, err := SubjectDirs(base)
	if err != nil {
		return nil, err
	}
	hd, err := SubjectDirs(head)
	if err != nil {
		return nil, err
	}
	all := map[string]bool{}
	for _, d := range append(bd, hd...) {
		all[d] = true
	}
	var out []string
	for dir := range all {
		same, err := sameContent(base, head, dir)
		if err != nil {
			return nil, err
		}
		if !same {
			out = append(out, dir)
		}
	}
	sort.Strings(out)
	return out, nil
}

// changedGitDirs compares two revisions of one repository by tree hash, reading only
// the trees that differ (gitrepo.Trees, the differ the versions index uses).
func changedGitDirs(base, head *GitSource) ([]string, error) {
	base.mu.Lock()
	defer base.mu.Unlock()
	if head != base {
		head.mu.Lock()
		defer head.mu.Unlock()
	}
	var objects gitrepo.Objects = base.repo.Storer
	if head.repo != base.repo {
		objects = gitrepo.Either{base.repo.Storer, head.repo.Storer}
	}
	changes, err := gitrepo.NewTrees(objects).ChangedDirs(base.root.Hash, head.root.Hash, ContractsDir, 2)
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
// working tree changed are compared file by file, as ChangedDirs compares other
// sources, and no other folder is read.
func changedWorkTreeDirs(base *GitSource, head *WorkTree) ([]string, error) {
	dirs, err := changedGitDirs(base, head.commit)
	if err != nil {
		return nil, err
	}
	dirs = append(dirs, head.changedSubjectDirs()...)
	slices.Sort(dirs)
	var out []string
	for _, dir := range slices.Compact(dirs) {
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

// sameContent compares the files of a folder, recursively, in two sources.
func sameContent(a, b Source, dir string) (bool, error) {
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
		ad, err1 := a.ReadFile(p, MaxSchemaBytes)
		bd, err2 := b.ReadFile(p, MaxSchemaBytes)
		if (err1 == nil) != (err2 == nil) || !bytes.Equal(ad, bd) {
			return false, nil
		}
	}
	return true, nil
}

// importerOf is the engine that reads imports from a file of that name: the one its
// extension names when that format has imports (checker/formats); nil otherwise.
func importerOf(name string) checker.Engine {
	if e, ok := formats.ByExtension(name); ok && e.Describe().Imports {
		return e
	}
	return nil
}

// anyImportable reports whether one of the folders holds a file another schema can
// import (a .proto file) in src. A deleted folder counts too: its importers break.
func anyImportable(src Source, dirs []string) bool {
	for _, d := range dirs {
		entries, err := src.ReadDir(d)
		if err != nil {
			return true
		}
		for _, e := range entries {
			if importerOf(e.Name) != nil {
				return true
			}
		}
	}
	return false
}

// WithImporters adds to dirs every subject folder whose schema files (Protobuf) import
// a file of one of them, directly or through other imports: a change to an imported
// file changes the importer's schema too (a schema reference, in registry terms).
func WithImporters(src Source, dirs []string) ([]string, error) {
	if !anyImportable(src, dirs) {
		return dirs, nil // nothing that can be imported changed
	}
	all, err := SubjectDirs(src)
	if err != nil {
		return nil, err
	}
	imports := map[string][]string{} // importer dir -> imported dirs
	for _, dir := range all {
		entries, err := src.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			eng := importerOf(e.Name)
			if e.Dir || e.Symlink || eng == nil {
				continue
			}
			data, err := src.ReadFile(dir+"/"+e.Name, MaxSchemaBytes)
			if err != nil {
				continue
			}
			for _, p := range eng.Imports(data) {
				if cleanRel(p) != nil {
					continue
				}
				if i := strings.LastIndexByte(p, '/'); i > 0 {
					imports[dir] = append(imports[dir], ContractsDir+"/"+p[:i])
				}
			}
		}
	}
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
	return out, nil
}
