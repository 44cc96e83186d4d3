package contract

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
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

// SubjectDirTrees is SubjectDirs with the Git tree hash of each folder (hex), read
// from its domain's tree that SubjectDirs read, so that no tree is decoded twice; no
// hash for a source that is not Git. serve's first catalog page keys its cached
// summaries by them (at 100,000 subjects a second walk of the domains was a tenth of
// the page's CPU).
func SubjectDirTrees(src Source) ([]string, map[string]string, error) {
	dirs, err := SubjectDirs(src)
	if err != nil {
		return nil, nil, err
	}
	trees := make(map[string]string, len(dirs))
	domains := map[string]map[string]plumbing.Hash{}
	for _, dir := range dirs {
		domain, name := path.Split(dir)
		sub, ok := domains[domain]
		if !ok {
			sub = subtrees(src, strings.TrimSuffix(domain, "/"))
			domains[domain] = sub
		}
		if h, ok := sub[name]; ok {
			trees[dir] = h.String()
		}
	}
	return dirs, trees, nil
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
	return LoadSubjectsIn(src, dirs, MapIndex(index))
}

// LoadSubjectsIn is LoadSubjects with the subject names of src in any Index (not nil).
func LoadSubjectsIn(src Source, dirs []string, index Index) (*Tree, error) {
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
					if dir, ok := index.Folder(target); ok && !loaded[dir] {
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
