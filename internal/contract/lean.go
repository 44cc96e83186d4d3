package contract

import (
	"slices"
	"sort"
	"strings"
)

// LoadForLint reads and validates the whole tree of src as Load does, with the same
// diagnostics, through the parse cache c when it is not nil (LoadCached), but keeps of
// each subject only what the checks after it and lint's summary need: once a
// subject's own checks are done, its schema text, its list of field paths, the
// positions of its keys, its fields: entries other than deprecations, and its
// consumers' descriptions, SQL texts, lineage mappings and key positions (all but
// produces:'s) are dropped, and its consumers' reads unless the subject deprecates a
// field (the dual-write check and the report's deprecated reads read them). What stays is the
// subject's names, its field graph (HasFieldPath), the lineage's targets and what
// the tree-wide checks report on. Subject.Schema and FieldPaths still work: they read
// the schema file again. Issue 31: the tree that stays live is what the collector
// walks on every cycle; at 50,000 subjects Load keeps about 690 MB live, LoadForLint
// about 40% of it. sized, when not nil, is called with the number of subject folders
// once they are listed and before any is read: lint sizes the collector's memory
// limit from it.
func LoadForLint(src Source, c *ParseCache, sized func(subjects int)) (*Tree, error) {
	return (&loader{src: src, parses: c, lean: true, sized: sized}).load()
}

// LoadForReport is LoadWithoutSchemas that keeps of each subject what LoadForLint
// keeps: what `contractbot report` reads (names, owners, topics, consumers' kinds and
// lineage targets, deprecations and the reads of subjects that deprecate a field). At
// 100,000 subjects the whole tree without schemas was 870 MB in use.
func LoadForReport(src Source) (*Tree, error) {
	return (&loader{src: src, noSchemas: true, lean: true}).load()
}

// slim drops from a loaded subject what no check after its own needs (LoadForLint).
func (l *loader) slim(s *Subject) {
	s.SchemaText = nil
	if s.parse != nil {
		s.parse = l.reparse(s)
	}
	s.KeyPos = nil
	if s.fieldPaths != nil && s.fieldGraph != nil {
		s.fieldPaths, s.pathsDropped = nil, true
	}
	s.FieldPos = nil
	s.Description = ""
	for name, m := range s.Fields {
		if m.Deprecated == nil {
			delete(s.Fields, name)
		}
	}
	deprecated := len(s.Fields) > 0
	if !deprecated {
		s.Fields = nil
	}
	for _, c := range s.Consumers {
		c.Description, c.SQLText = "", nil
		c.KeyPos = keepKeys(c.KeyPos, func(k string) bool { return strings.HasPrefix(k, "produces.") })
		for target := range c.Produces {
			c.Produces[target] = nil // the lineage cycles need the targets only
		}
		if !deprecated {
			c.Reads, c.ReadPos = nil, nil
		}
	}
}

// pathsAgain lists the field paths of a subject whose list a lean load dropped, from
// its schema parsed again, sorted as the load sorted them.
func (s *Subject) pathsAgain() []string {
	sch, err := s.Schema()
	if err != nil {
		return nil
	}
	paths := sch.FieldPaths()
	if !sort.StringsAreSorted(paths) {
		paths = append([]string(nil), paths...)
		sort.Strings(paths)
	}
	return paths
}

// keepKeys returns the entries of m whose key keep accepts, in a map of their size
// (nil for none).
func keepKeys(m map[string]Pos, keep func(string) bool) map[string]Pos {
	var out map[string]Pos
	for k, p := range m {
		if keep(k) {
			if out == nil {
				out = map[string]Pos{}
			}
			out[k] = p
		}
	}
	return out
}

// eachBatch is how many subject folders EachSubjectWithoutSchemas holds at once.
const eachBatch = 512

// EachSubjectWithoutSchemas reads the subject folders of src as LoadWithoutSchemas
// does, a batch of folders at a time, and calls fn with each subject read, in folder
// order, from one goroutine; fn must not keep it. The whole tree is never held: serve
// makes its catalog's rows from it (issue 31: at 100,000 subjects the tree without
// schemas was about 600 MB live, and serve's peak at start 2.8 GB). No check that
// needs the whole tree runs: subjects of one name are all passed (Load keeps the one
// of the first folder), and diagnostics are dropped (Load is the reference). A folder
// for which skip (when not nil) is true is not read: its caller knows it already. The
// error is for failures of the source itself.
func EachSubjectWithoutSchemas(src Source, skip func(dir string) bool, fn func(*Subject)) error {
	l := &loader{src: src, noSchemas: true}
	l.teams = l.loadTeams()
	dirs := l.subjectDirs()
	if skip != nil {
		dirs = slices.DeleteFunc(dirs, func(d subjectDir) bool { return skip(d.dir) })
	}
	for from := 0; from < len(dirs) && l.sysErr == nil; from += eachBatch {
		batch := dirs[from:min(from+eachBatch, len(dirs))]
		for i, s := range l.loadSubjects(batch) {
			if s != nil && !batch[i].gone {
				fn(s)
			}
		}
		l.diags, l.produces = nil, nil // what the tree-wide checks would read
		for i := range batch {
			batch[i].entries = nil
		}
		if g, ok := src.(*GitSource); ok {
			g.forget()
		}
	}
	return l.sysErr
}
