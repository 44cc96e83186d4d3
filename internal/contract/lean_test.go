package contract

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/contractbot/contractbot/internal/synth"
	"github.com/contractbot/contractbot/internal/testutil"
)

// TestLoadForLintReportsAsLoad loads trees with every kind of mistake, the example
// tree with each proposed change of examples/changes laid over it, and a generated
// tree, both with Load and LoadForLint (with and without a parse cache): the
// diagnostics and the counts lint prints are the same, each lean subject holds no
// schema text and no key position but subject:'s, and its schema still parses to the
// same field paths.
func TestLoadForLintReportsAsLoad(t *testing.T) {
	root := testutil.RepoRoot(t)
	synthDir := t.TempDir()
	if _, err := synth.WriteTree(synthDir, synth.Options{Subjects: 60, ConsumersPerSubject: 2, Seed: 1, ProtobufShare: 0.3}); err != nil {
		t.Fatal(err)
	}
	trees := map[string]Source{
		"example":   NewDirSource(root),
		"bad":       NewDirSource(badTree(t)),
		"generated": NewDirSource(synthDir),
	}
	changes, err := os.ReadDir(filepath.Join(root, "examples", "changes"))
	must(t, err)
	for _, c := range changes {
		if c.IsDir() {
			trees["example+"+c.Name()] = &Overlay{Base: NewDirSource(root), Files: testutil.ReadFiles(t, filepath.Join(root, "examples", "changes", c.Name()))}
		}
	}
	for name, src := range trees {
		t.Run(name, func(t *testing.T) {
			full, err := Load(src)
			must(t, err)
			pc := OpenParseCache(t.TempDir(), "test")
			for _, load := range []string{"lean", "lean, cache filled", "lean, cache used"} {
				var c *ParseCache
				if load != "lean" {
					c = pc
				}
				lean, err := LoadForLint(src, c, nil)
				must(t, err)
				if got, want := formatDiagnostics(lean.Diagnostics), formatDiagnostics(full.Diagnostics); got != want {
					t.Errorf("%s: diagnostics differ from Load's:\n--- Load\n%s--- LoadForLint\n%s", load, want, got)
				}
				if len(lean.Subjects) != len(full.Subjects) || len(lean.Teams) != len(full.Teams) || len(lean.Entries) != len(full.Entries) {
					t.Fatalf("%s: %d subjects, %d teams, %d entries; Load: %d, %d, %d", load,
						len(lean.Subjects), len(lean.Teams), len(lean.Entries), len(full.Subjects), len(full.Teams), len(full.Entries))
				}
				for i, s := range lean.Subjects {
					checkLean(t, s, full.Subjects[i])
				}
			}
		})
	}
}

// checkLean compares a subject of LoadForLint with the same subject of Load.
func checkLean(t *testing.T, s, f *Subject) {
	t.Helper()
	if s.Subject != f.Subject || len(s.Consumers) != len(f.Consumers) {
		t.Fatalf("subject %s with %d consumers; Load: %s with %d", s.Subject, len(s.Consumers), f.Subject, len(f.Consumers))
	}
	if s.SchemaText != nil || len(s.KeyPos) > 1 || s.FieldPos != nil {
		t.Errorf("%s: the lean subject keeps %d bytes of schema, %d key positions, %d field positions", s.Subject, len(s.SchemaText), len(s.KeyPos), len(s.FieldPos))
	}
	for _, c := range s.Consumers {
		for k := range c.KeyPos {
			if _, isProduces := c.Produces[k[len("produces."):]]; len(k) < len("produces.") || !isProduces {
				t.Errorf("%s: the lean consumer keeps the position of %s", c.File, k)
			}
		}
	}
	if !slices.Equal(s.FieldPaths(), f.FieldPaths()) {
		t.Errorf("%s: field paths %v, Load's %v", s.Subject, s.FieldPaths(), f.FieldPaths())
	}
	want, ferr := f.Schema()
	got, err := s.Schema()
	if (err == nil) != (ferr == nil) {
		t.Fatalf("%s: Schema() error %v, Load's %v", s.Subject, err, ferr)
	}
	if err == nil && !slices.Equal(got.FieldPaths(), want.FieldPaths()) {
		t.Errorf("%s: the schema read again has field paths %v, Load's %v", s.Subject, got.FieldPaths(), want.FieldPaths())
	}
}

// TestLoadForLintTellsTheSize: LoadForLint names the number of subject folders before
// it reads any (lint sizes the collector's memory limit from it), every folder whether
// or not it holds a usable contract.
func TestLoadForLintTellsTheSize(t *testing.T) {
	dir := t.TempDir()
	if _, err := synth.WriteTree(dir, synth.Options{Subjects: 30, ConsumersPerSubject: 1, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	must(t, os.MkdirAll(filepath.Join(dir, "contracts", "orders", "empty-folder"), 0o755))
	src := &countingSource{Source: NewDirSource(dir)}
	told, readBefore := -1, int64(-1)
	tree, err := LoadForLint(src, nil, func(n int) { told, readBefore = n, src.files.Load() })
	must(t, err)
	if told != len(tree.Subjects)+1 || len(tree.Subjects) != 30 {
		t.Errorf("told %d subject folders; the tree has %d subjects and one empty folder", told, len(tree.Subjects))
	}
	if readBefore != 1 { // teams.yaml
		t.Errorf("%d files were read before the size was told, want teams.yaml alone", readBefore)
	}
}

// countingSource counts the files read through it.
type countingSource struct {
	Source
	files atomic.Int64 // read by the load's workers
}

func (c *countingSource) ReadFile(name string, limit int64) ([]byte, error) {
	c.files.Add(1)
	return c.Source.ReadFile(name, limit)
}

// TestEachSubjectIsTheLoadsSubjects: EachSubjectWithoutSchemas passes the subjects
// LoadWithoutSchemas loads, over more than one batch, and the Git source keeps no
// subject folder's tree after it.
func TestEachSubjectIsTheLoadsSubjects(t *testing.T) {
	r := testutil.NewRepo(t)
	if _, err := synth.WriteTree(r.Dir, synth.Options{Subjects: eachBatch + 40, ConsumersPerSubject: 1, Seed: 1, ProtobufShare: 0.2}); err != nil {
		t.Fatal(err)
	}
	r.Commit("generated")
	src, err := NewGitSource(r.Git, "HEAD")
	must(t, err)
	whole, err := LoadWithoutSchemas(src)
	must(t, err)
	src, err = NewGitSource(r.Git, "HEAD")
	must(t, err)
	var got []string
	must(t, EachSubjectWithoutSchemas(src, nil, func(s *Subject) {
		got = append(got, s.Dir+" "+s.Subject+" "+s.Owner+" "+strconv.Itoa(len(s.Consumers)))
	}))
	var want []string
	for _, s := range whole.Subjects {
		want = append(want, s.Dir+" "+s.Subject+" "+s.Owner+" "+strconv.Itoa(len(s.Consumers)))
	}
	slices.Sort(got)
	slices.Sort(want)
	if len(want) != eachBatch+40 || !slices.Equal(got, want) {
		t.Errorf("passed %d subjects, Load has %d (want the same, %d)", len(got), len(want), eachBatch+40)
	}
	for dir := range src.trees {
		if strings.Count(dir, "/") > 1 {
			t.Errorf("the source still keeps the tree of %s", dir)
			break
		}
	}
	skipped := whole.Subjects[0].Dir
	n := 0
	must(t, EachSubjectWithoutSchemas(src, func(dir string) bool { return dir == skipped }, func(s *Subject) {
		n++
		if s.Dir == skipped {
			t.Errorf("%s was read though skip said it is known", skipped)
		}
	}))
	if n != len(want)-1 {
		t.Errorf("with one folder skipped, %d subjects passed, want %d", n, len(want)-1)
	}
}
