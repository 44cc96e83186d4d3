package contract

import (
	"bytes"
	"errors"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// A partial load (LoadSubjects) validates the folders it loads; the rules below are
// the ones of the whole tree that a change elsewhere can break and that cost no more
// than listing the folders or reading each contract.yaml's subject line, which the
// subject index reads anyway. change.Load adds them to the head it loads, so check and
// the bot refuse what lint refuses: a second folder claiming a subject, a link or a
// misplaced file in contracts/.

// SubjectFolders maps each subject name to every folder whose contract.yaml names it,
// in the order SubjectDirs lists them: more than one folder is a duplicate subject.
// The folders of a domain whose Git tree was read before come from the process's
// cache (foldercache.go) without reading its files.
func SubjectFolders(src Source) (map[string][]string, error) {
	out := map[string][]string{}
	some, err := eachSubjectFolder(src, func(name, dir string) { out[name] = append(out[name], dir) })
	if err != nil || !some {
		return nil, err
	}
	return out, nil
}

// SubjectNames is SubjectFolders in the shape a partial load wants it: each name's
// first folder (what IndexSubjects of src answers), and apart, for the few names two
// or more folders claim, all of their folders. For a revision whose contracts/ tree
// is the one whose names are kept in the cache folder (names.go), the index is that
// table, read in place.
func SubjectNames(src Source) (Index, map[string][]string, error) {
	tree, keyed := contractsTree(src)
	if keyed {
		if index, dups, ok := cachedNames(tree); ok {
			return index, dups, nil
		}
	}
	index, dups := map[string]string{}, map[string][]string{}
	_, err := eachSubjectFolder(src, func(name, dir string) {
		first, ok := index[name]
		switch {
		case !ok:
			index[name] = dir
		case dups[name] == nil:
			dups[name] = []string{first, dir}
		default:
			dups[name] = append(dups[name], dir)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	if keyed {
		keepNames(tree, index, dups)
	}
	return MapIndex(index), dups, nil
}

// eachSubjectFolder calls f with every subject folder of src whose contract.yaml names
// a subject, in SubjectDirs' order; some is false when src has no contracts folder.
func eachSubjectFolder(src Source, f func(name, dir string)) (some bool, err error) {
	domains, err := src.ReadDir(ContractsDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	trees := subtrees(src, ContractsDir)
	for _, d := range domains {
		if !d.Dir || d.Symlink {
			continue
		}
		dir := ContractsDir + "/" + d.Name
		tree, cacheable := trees[d.Name]
		var listing domainListing
		hit := false
		if cacheable {
			listing, hit = cachedDomain(tree)
		}
		if !hit {
			if listing, err = domainSubjects(src, dir); err != nil {
				return false, err
			}
			if cacheable {
				cacheDomain(tree, listing, true)
			}
		}
		for _, it := range listing.folders {
			if it.subject != "" {
				f(it.subject, dir+"/"+it.folder)
			}
		}
	}
	return true, nil
}

// domainSubjects reads the subject line of every subject folder of a domain, and
// notes whether the domain's listing is clean (domainDirs reports nothing in it).
func domainSubjects(src Source, dir string) (domainListing, error) {
	names, err := src.ReadDir(dir)
	if err != nil {
		return domainListing{}, err
	}
	out := domainListing{clean: true}
	for _, n := range names {
		if n.Symlink || (n.Dir && !reSlug.MatchString(n.Name)) || (!n.Dir && !isDoc(n.Name)) {
			out.clean = false
		}
		if !n.Dir || n.Symlink {
			continue
		}
		name, _, _, err := SubjectLine(src, dir+"/"+n.Name)
		if err != nil {
			return domainListing{}, err
		}
		out.folders = append(out.folders, folderSubject{n.Name, name})
	}
	return out, nil
}

// SubjectLine reads the subject key of dir's contract.yaml and the line it is on,
// without parsing the YAML (what a partial load needs of the folders it does not load);
// ok is false when there is none to read (a missing, linked, oversized or broken file
// is reported when the folder is loaded).
func SubjectLine(src Source, dir string) (name string, line int, ok bool, err error) {
	data, err := src.ReadFile(dir+"/"+ContractFile, MaxYAMLBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrTooLarge) || errors.Is(err, ErrSymlink) || errors.Is(err, fs.ErrInvalid) {
			return "", 0, false, nil
		}
		return "", 0, false, err
	}
	m := reSubjectKey.FindSubmatchIndex(data)
	if m == nil {
		return "", 0, false, nil
	}
	return string(data[m[2]:m[3]]), bytes.Count(data[:m[0]], []byte("\n")) + 1, true, nil
}

// DuplicateSubjects reports every subject name that more than one folder claims, as
// Load does: the first folder in path order keeps the name and each later one gets a
// duplicate-subject error at its subject line. folders is SubjectFolders of src.
func DuplicateSubjects(src Source, folders map[string][]string) (Diagnostics, error) {
	var ds Diagnostics
	for name, dirs := range folders {
		if len(dirs) < 2 {
			continue
		}
		dirs = slices.Sorted(slices.Values(dirs))
		for _, dir := range dirs[1:] {
			_, line, ok, err := SubjectLine(src, dir)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			f := &file{path: dir + "/" + ContractFile, diags: &ds}
			f.report(Pos{line, 1}, CodeDuplicateSubject, "subject %q is already defined in %s; each subject has one folder. Rename this one or remove the folder.", name, dirs[0]+"/"+ContractFile)
		}
	}
	ds.Sort()
	return ds, nil
}

// LayoutDiagnostics reports what Load reports about the shape of contracts/ and its
// domain folders (links, files out of place, folder names), listing only those
// folders: a link added where a domain or subject folder belongs is not one of the
// subject folders a change touches, and a partial load would not see it.
func LayoutDiagnostics(src Source) (Diagnostics, error) {
	l := &loader{src: src, shallow: true}
	l.subjectDirs()
	if l.sysErr != nil {
		return nil, l.sysErr
	}
	l.diags.Sort()
	return l.diags, nil
}

// AddTreeWide adds the diagnostics ds to t's, leaving out any t already has (the same
// file, line and code), in order.
func (t *Tree) AddTreeWide(ds Diagnostics) {
	for _, d := range ds {
		if !slices.ContainsFunc(t.Diagnostics, func(o Diagnostic) bool {
			return o.File == d.File && o.Line == d.Line && o.Code == d.Code
		}) {
			t.Diagnostics = append(t.Diagnostics, d)
		}
	}
	t.Diagnostics.Sort()
}

// AddDuplicates records in t.Duplicates every name of folders (SubjectFolders of the
// whole tree, or change.UpdateDuplicates of a head) that more than one folder
// claims: a partial load sees only the folders it loaded.
func (t *Tree) AddDuplicates(folders map[string][]string) {
	for name, dirs := range folders {
		if len(dirs) > 1 {
			t.addDuplicate(name, dirs...)
		}
	}
}

func (t *Tree) addDuplicate(name string, dirs ...string) {
	if t.Duplicates == nil {
		t.Duplicates = map[string][]string{}
	}
	all := t.Duplicates[name]
	for _, d := range dirs {
		if !slices.Contains(all, d) {
			all = append(all, d)
		}
	}
	slices.Sort(all)
	t.Duplicates[name] = all
}

// reOwnerKey finds the owner key of a contract or consumer file without parsing it.
var reOwnerKey = regexp.MustCompile(`(?m)^owner:[ \t]*(["']?)([^"'#\s]+)["']?[ \t]*(?:#.*)?$`)

// TeamOwners reports every owner, in the contract.yaml and consumer files of every
// subject folder of src, that is not a team of teams (the head's teams.yaml), as Load
// does: what a change to teams.yaml alone can break in folders it does not touch.
// It reads every contract and consumer file, so callers run it only when teams.yaml
// changed; a file it cannot read is reported when its folder is loaded.
func TeamOwners(src Source, teams map[string]*Team) (Diagnostics, error) {
	if teams == nil {
		return nil, nil // teams.yaml is broken or missing: reported there
	}
	dirs, err := SubjectDirs(src)
	if err != nil {
		return nil, err
	}
	l := &loader{src: src, teams: teams}
	var ds Diagnostics
	for _, dir := range dirs {
		files := []string{dir + "/" + ContractFile}
		if entries, err := src.ReadDir(dir + "/" + ConsumersDir); err == nil {
			for _, e := range entries {
				if !e.Dir && !e.Symlink && strings.HasSuffix(e.Name, ".yaml") {
					files = append(files, dir+"/"+ConsumersDir+"/"+e.Name)
				}
			}
		}
		for _, name := range files {
			data, err := src.ReadFile(name, MaxYAMLBytes)
			if err != nil {
				continue
			}
			m := reOwnerKey.FindSubmatchIndex(data)
			if m == nil {
				continue
			}
			line := bytes.Count(data[:m[0]], []byte("\n")) + 1
			col := utf8.RuneCount(data[bytes.LastIndexByte(data[:m[2]], '\n')+1:m[2]]) + 1
			l.checkTeam(&file{path: name, diags: &ds}, Pos{line, col}, string(data[m[4]:m[5]]), "owner")
		}
	}
	ds.Sort()
	return ds, nil
}
