package contract

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	_ "time/tzdata" // time zones in calendar files resolve on machines without tzdata

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/checker/located"
)

var (
	reSlug = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)
)

// loader carries the state of one Load.
type loader struct {
	src   Source
	teams map[string]*Team

	mu     sync.Mutex
	diags  Diagnostics
	sysErr error

	protoFiles sync.Map // import path -> protoFile
	produces   []pendingProduce
	// index maps every subject name to its folder in a partial load (LoadSubjects);
	// nil when the whole tree is loaded.
	index Index
	// keep names the subject folders whose parsed schema is kept rather than parsed
	// again on demand: the folders a partial load was asked for, which its caller is
	// about to compare (parsing a large schema costs more than holding it).
	keep map[string]bool
	// shallow lists contracts/ and its domain folders but not the subject folders
	// (LayoutDiagnostics); trees holds then the Git tree of each domain folder, to skip
	// the ones the subject folder cache knows to be clean.
	shallow bool
	trees   map[string]plumbing.Hash
	// noSchemas reads no schema file (LoadWithoutSchemas).
	noSchemas bool
	// parses, when set, keeps what parsing each schema gave (LoadCached).
	parses *ParseCache
	// lean keeps of each subject only what the checks after its own need
	// (LoadForLint).
	lean bool
	// sized, when set, learns the number of subject folders before they are read.
	sized func(subjects int)
}

type protoFile struct {
	data []byte
	err  error
}

// pendingProduce is a lineage mapping checked once every subject is loaded.
type pendingProduce struct {
	file    string
	from    *Subject
	target  string
	tpos    Pos
	outputs []item
}

// Load reads and validates the whole tree of src. Every problem of the tree becomes
// a Diagnostic in Tree.Diagnostics, and a broken file never stops the rest from being
// checked; the error is for failures of the source itself (an unreadable repository).
func Load(src Source) (*Tree, error) {
	return (&loader{src: src}).load()
}

// LoadWithoutSchemas reads the tree of src as Load does but neither reads nor parses
// a schema file: subjects, their contract.yaml, consumers, teams and the calendar, for
// work that needs what the files declare and not the schemas (`contractbot report`).
// Subject.SchemaFile is set; SchemaText, FieldPaths and Digest are empty and Schema
// returns an error. Tree.Diagnostics lacks every check that needs a schema (Load is
// the reference).
func LoadWithoutSchemas(src Source) (*Tree, error) {
	return (&loader{src: src, noSchemas: true}).load()
}

func (l *loader) load() (*Tree, error) {
	t := &Tree{bySubject: map[string]*Subject{}, resolve: l.resolveProto}
	t.Teams = l.loadTeams()
	l.teams = t.Teams
	dirs := l.subjectDirs()
	if l.sized != nil {
		l.sized(len(dirs))
	}
	for i, s := range l.loadSubjects(dirs) {
		if !dirs[i].gone {
			t.add(dirs[i].dir, s)
		}
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

// add records a loaded subject folder: its subject, or the folder as unreadable.
func (t *Tree) add(dir string, s *Subject) {
	if s != nil {
		t.Subjects = append(t.Subjects, s)
	}
	if s == nil || s.Subject == "" {
		t.Unreadable = append(t.Unreadable, dir)
	}
}

// add merges diagnostics found by one worker.
func (l *loader) add(ds Diagnostics) {
	l.mu.Lock()
	l.diags = append(l.diags, ds...)
	l.mu.Unlock()
}

// system records a failure of the source, not of the user's files.
func (l *loader) system(err error) {
	l.mu.Lock()
	if l.sysErr == nil {
		l.sysErr = err
	}
	l.mu.Unlock()
}

// read reads a file and turns the user-facing failures (missing, symlink, too large)
// into diagnostics on that file; ok is false when there is nothing to parse.
// Missing files are not reported here: the caller knows which key named them.
func (l *loader) read(f *file, name string, limit int64) (data []byte, found, ok bool) {
	data, err := l.src.ReadFile(name, limit)
	switch {
	case err == nil:
		return data, true, true
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, false
	case errors.Is(err, ErrSymlink):
		f.report(Pos{1, 1}, CodeSymlink, "%s is a symbolic link; contract files must be regular files in the repository. Replace the link with the file itself.", name)
	case errors.Is(err, ErrTooLarge):
		f.report(Pos{1, 1}, CodeTooLarge, "%s is larger than the limit of %s; split it or remove what is not part of the contract.", name, humanBytes(limit))
	case errors.Is(err, fs.ErrInvalid):
		f.report(Pos{1, 1}, CodeLayout, "%s is a directory where a file is expected.", name)
	default:
		l.system(fmt.Errorf("read %s from %s: %w", name, l.src.Describe(), err))
	}
	return nil, true, false
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// subjectDir is a folder contracts/<domain>/<name>/ and its listing.
type subjectDir struct {
	dir, domain, name string
	entries           []DirEntry
	// unlisted: the folder is listed by the worker that loads it (entries is nil
	// until then); gone: it could not be listed, and is not a subject folder.
	unlisted, gone bool
}

// listDir lists a directory, reporting links and system errors.
func (l *loader) listDir(dir string) ([]DirEntry, bool) {
	entries, err := l.src.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false
		}
		if errors.Is(err, ErrSymlink) {
			l.layout(dir, CodeSymlink, "%s is a symbolic link; the loader never follows links. Move the real folder here.", dir)
			return nil, false
		}
		l.system(fmt.Errorf("list %s in %s: %w", dir, l.src.Describe(), err))
		return nil, false
	}
	return entries, true
}

// layout reports a problem with the shape of the tree at line 1 of a path.
func (l *loader) layout(p, code, format string, args ...any) {
	l.add(Diagnostics{{Span: located.Span{File: p, Line: 1, Column: 1}, Severity: Error, Code: code, Message: fmt.Sprintf(format, args...)}})
}

// subjectDirs walks contracts/<domain>/<name>/ and reports anything out of place.
func (l *loader) subjectDirs() []subjectDir {
	top, ok := l.listDir(ContractsDir)
	if !ok {
		l.layout(ContractsDir, CodeMissingFile, "there is no contracts/ folder; create contracts/teams.yaml and one folder per subject, contracts/<domain>/<name>/.")
		return nil
	}
	var out []subjectDir
	if l.shallow {
		l.trees = subtrees(l.src, ContractsDir)
	}
	hasTeams := slices.ContainsFunc(top, func(d DirEntry) bool { return d.Name == "teams.yaml" })
	for _, d := range top {
		p := ContractsDir + "/" + d.Name
		switch {
		case d.Symlink && p == TeamsFile:
			// reported when teams.yaml is read
		case !d.Dir && !hasTeams && misnamed(d.Name, "teams.yaml"):
			// reported when teams.yaml is looked for
		case d.Symlink:
			l.layout(p, CodeSymlink, "%s is a symbolic link; the loader never follows links. Replace it with the real file or folder.", p)
		case !d.Dir:
			if p != TeamsFile && !isDoc(d.Name) {
				l.layout(p, CodeLayout, "%s is not part of the layout: contracts/ holds teams.yaml and one folder per domain. Move it into a subject folder or remove it.", p)
			}
		case !reSlug.MatchString(d.Name):
			l.layout(p, CodeLayout, "domain folder %q must be lower case letters, digits, '-' or '_'; rename it.", d.Name)
		default:
			out = append(out, l.domainDirs(p, d.Name)...)
		}
	}
	return out
}

func isDoc(name string) bool {
	return strings.HasSuffix(name, ".md") || name == ".gitkeep"
}

func (l *loader) domainDirs(dir, domain string) []subjectDir {
	if tree, ok := l.trees[domain]; ok && l.shallow {
		if clean, hit := cachedClean(tree); hit && clean {
			return nil // LayoutDiagnostics: nothing to report in this tree
		}
	}
	entries, ok := l.listDir(dir)
	if !ok {
		return nil
	}
	var out []subjectDir
	for _, e := range entries {
		p := dir + "/" + e.Name
		switch {
		case e.Symlink:
			l.layout(p, CodeSymlink, "%s is a symbolic link; the loader never follows links. Replace it with the real file or folder.", p)
		case !e.Dir:
			if e.Name == ContractFile {
				l.layout(p, CodeLayout, "%s sits directly in a domain folder; subjects live one level deeper, in contracts/%s/<name>/contract.yaml.", p, domain)
			} else if !isDoc(e.Name) {
				l.layout(p, CodeLayout, "%s is not part of the layout: a domain folder holds one folder per subject. Move it into a subject folder or remove it.", p)
			}
		case !reSlug.MatchString(e.Name):
			l.layout(p, CodeLayout, "subject folder %q must be lower case letters, digits, '-' or '_'; rename it.", e.Name)
		case l.shallow:
			out = append(out, subjectDir{dir: p, domain: domain, name: e.Name})
		default:
			out = append(out, subjectDir{dir: p, domain: domain, name: e.Name, unlisted: true})
		}
	}
	return out
}

// loadSubjects loads the subject folders on every core; the result keeps the order
// of dirs, with nil where a folder held no usable contract. A folder marked unlisted is
// listed by the worker that loads it (listing 10,000 folders one after the other was
// a tenth of a second every lint waited for); one that cannot be listed is marked gone.
func (l *loader) loadSubjects(dirs []subjectDir) []*Subject {
	out := make([]*Subject, len(dirs))
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if dirs[i].unlisted {
					entries, ok := l.listDir(dirs[i].dir)
					if !ok {
						dirs[i].gone = true
						continue
					}
					dirs[i].entries = entries
				}
				var ds Diagnostics
				out[i] = l.loadSubject(dirs[i], &ds)
				l.add(ds)
				if l.lean && out[i] != nil {
					l.slim(out[i])
				}
			}
		}()
	}
	for i := range dirs {
		work <- i
	}
	close(work)
	wg.Wait()
	return out
}

// crossCheck runs the checks that need every subject: unique names, lineage.
func (l *loader) crossCheck(t *Tree) {
	sort.SliceStable(t.Subjects, func(i, j int) bool {
		if t.Subjects[i].Subject != t.Subjects[j].Subject {
			return t.Subjects[i].Subject < t.Subjects[j].Subject
		}
		return t.Subjects[i].Dir < t.Subjects[j].Dir
	})
	var kept []*Subject
	for _, s := range t.Subjects {
		if prev, dup := t.bySubject[s.Subject]; dup {
			f := &file{path: s.ContractPath(), diags: &l.diags}
			f.report(s.subjectPos, CodeDuplicateSubject, "subject %q is already defined in %s; each subject has one folder. Rename this one or remove the folder.", s.Subject, prev.ContractPath())
			t.addDuplicate(s.Subject, prev.Dir, s.Dir)
			continue
		}
		t.bySubject[s.Subject] = s
		kept = append(kept, s)
	}
	t.Subjects = kept
	sort.SliceStable(l.produces, func(i, j int) bool { return l.produces[i].file < l.produces[j].file })
	for _, p := range l.produces {
		f := &file{path: p.file, diags: &l.diags}
		target := t.bySubject[p.target]
		if target == nil && l.knownSubject(t, p.target) {
			continue // a partial load: the target exists but was not loaded
		}
		if target == nil {
			f.report(p.tpos, CodeUnknownSubject, "produces names subject %q, which is not in the tree; name a subject from contracts/*/*/contract.yaml.%s", p.target, didYouMean(p.target, l.subjectNames(t)))
			continue
		}
		if !target.hasFieldPaths() {
			continue // the target's schema did not parse; that is reported on its own file
		}
		for _, o := range p.outputs {
			if !target.HasFieldPath(o.val) {
				f.report(o.pos, CodeUnknownOutput, "output field %q does not exist in %s (%s).%s", o.val, p.target, target.SchemaFile, fieldHint(o.val, target.FieldPaths()))
			}
		}
	}
	l.checkLineageCycles(t)
}

// checkLineageCycles warns when produces mappings form a loop between subjects.
func (l *loader) checkLineageCycles(t *Tree) {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var visit func(s *Subject, via []string) bool
	visit = func(s *Subject, via []string) bool {
		color[s.Subject] = grey
		for _, c := range s.Consumers {
			targets := make([]string, 0, len(c.Produces))
			for tgt := range c.Produces {
				targets = append(targets, tgt)
			}
			sort.Strings(targets)
			for _, tgt := range targets {
				ts := t.bySubject[tgt]
				if ts == nil {
					continue
				}
				switch color[tgt] {
				case grey:
					f := &file{path: c.File, diags: &l.diags}
					f.report(c.KeyPos["produces."+tgt], CodeLineageCycle, "lineage loops back: %s -> %s; a subject cannot be derived from itself. Remove one of the produces mappings.", strings.Join(append(via, s.Subject), " -> "), tgt)
					l.diags[len(l.diags)-1].Severity = Warning
					return true
				case white:
					if visit(ts, append(via, s.Subject)) {
						return true
					}
				}
			}
		}
		color[s.Subject] = black
		return false
	}
	for _, s := range t.Subjects {
		if color[s.Subject] == white {
			visit(s, nil)
		}
	}
}

// relJoin joins a subject folder and a relative file name.
func relJoin(dir, name string) string { return path.Join(dir, name) }

// LoadSubject loads teams.yaml and one subject folder (contracts/<domain>/<name>) with
// its consumers, reading nothing else but the Protobuf imports it needs. Its cost does
// not grow with the number of subjects. Checks that need the whole tree (unique
// subject names, lineage targets, the calendar) are left to Load.
func LoadSubject(src Source, dir string) (*Tree, error) {
	parts := strings.Split(dir, "/")
	if len(parts) != 3 || parts[0] != ContractsDir || cleanRel(dir) != nil {
		return nil, fmt.Errorf("load subject: %q is not a subject folder contracts/<domain>/<name>", dir)
	}
	l := &loader{src: src}
	t := &Tree{bySubject: map[string]*Subject{}, resolve: l.resolveProto}
	t.Teams = l.loadTeams()
	l.teams = t.Teams
	entries, ok := l.listDir(dir)
	if !ok && l.sysErr == nil {
		return nil, fmt.Errorf("load subject: %s: %w", dir, fs.ErrNotExist)
	}
	var ds Diagnostics
	if s := l.loadSubject(subjectDir{dir: dir, domain: parts[1], name: parts[2], entries: entries}, &ds); s != nil {
		t.Subjects = []*Subject{s}
		t.bySubject[s.Subject] = s
	}
	l.add(ds)
	if l.sysErr != nil {
		return nil, l.sysErr
	}
	l.diags.Sort()
	t.Diagnostics = l.diags
	return t, nil
}
