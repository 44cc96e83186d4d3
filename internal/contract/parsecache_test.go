package contract

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"
)

// subjectFacts is what a lint learns from a subject's schema, for comparing loads.
func subjectFacts(t *testing.T, tree *Tree) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, s := range tree.Subjects {
		var b strings.Builder
		b.WriteString(s.Digest + "\n" + strings.Join(s.FieldPaths(), ",") + "\n")
		for _, p := range s.FieldPaths() {
			if !s.HasFieldPath(p) {
				b.WriteString("graph lacks " + p + "\n")
			}
		}
		out[s.Subject] = b.String()
	}
	return out
}

// loadTwice loads src with Load, then with a cache in dir twice (the first run fills
// and saves it, the second reads it), and fails unless all three agree.
func loadTwice(t *testing.T, src Source, dir string) (*Tree, *ParseCache) {
	t.Helper()
	want, err := Load(src)
	must(t, err)
	var pc *ParseCache
	var got *Tree
	for run := 1; run <= 2; run++ {
		pc = OpenParseCache(dir, "test build")
		got, err = LoadCached(src, pc)
		must(t, err)
		must(t, pc.Save())
		if !reflect.DeepEqual(got.Diagnostics, want.Diagnostics) {
			t.Fatalf("run %d with the cache:\n%s\nwant:\n%s", run, formatDiagnostics(got.Diagnostics), formatDiagnostics(want.Diagnostics))
		}
		if g, w := subjectFacts(t, got), subjectFacts(t, want); !reflect.DeepEqual(g, w) {
			t.Fatalf("run %d with the cache: subjects differ:\n%v\nwant:\n%v", run, g, w)
		}
	}
	return got, pc
}

// TestParseCacheAgreesWithLoad: the example tree (Avro, Protobuf with an import,
// JSON Schema) and the bad tree (every kind of mistake) give the same diagnostics,
// field paths, graphs and digests with a cache as without, cold and warm.
func TestParseCacheAgreesWithLoad(t *testing.T) {
	_, pc := loadTwice(t, MemSource(testutil.ExampleFiles(t)), t.TempDir())
	if len(pc.entries) < 10 {
		t.Errorf("the cache holds %d schemas of the example tree", len(pc.entries))
	}
	dir := t.TempDir()
	testutil.CopyTree(t, filepath.Join("testdata", "bad"), dir)
	loadTwice(t, NewDirSource(dir), t.TempDir())
}

// TestParseCacheIsUsed: a warm load takes the field paths from the cache (an entry
// changed in the file shows), and an entry whose import changed is parsed again.
func TestParseCacheIsUsed(t *testing.T) {
	files := testutil.ExampleFiles(t)
	src := MemSource(files)
	dir := t.TempDir()
	loadTwice(t, src, dir)

	pc := OpenParseCache(dir, "test build")
	const subject = "payments.payment-authorized-value" // imports common/money/money.proto
	var key [32]byte
	found := false
	for k, e := range pc.entries {
		if len(e.Deps) > 0 && slices.Contains(e.Paths, "amount.units") {
			key, found = k, true
		}
	}
	if !found {
		t.Fatalf("no cached schema imports money.proto with a field amount.units")
	}
	pc.entries[key].Paths = append(slices.Clone(pc.entries[key].Paths), "from_the_cache")
	tree, err := LoadCached(src, pc)
	must(t, err)
	if s := tree.Subject(subject); s == nil || !slices.Contains(s.FieldPaths(), "from_the_cache") {
		t.Fatalf("the warm load did not take %s's field paths from the cache", subject)
	}

	// A field added to the imported message: the entry no longer holds.
	money := "contracts/common/money/money.proto"
	files[money] = []byte(strings.Replace(string(files[money]), "  int32 nanos = 3;\n", "  int32 nanos = 3;\n  string note = 4;\n", 1))
	tree, err = LoadCached(MemSource(files), pc)
	must(t, err)
	s := tree.Subject(subject)
	if s == nil || slices.Contains(s.FieldPaths(), "from_the_cache") || !slices.Contains(s.FieldPaths(), "amount.note") {
		t.Fatalf("after money.proto changed, %s has field paths %v", subject, s.FieldPaths())
	}
}

// TestParseCacheOfAnotherBuild: a cache written by another build, or damaged, is
// empty; a folder that cannot be written is an error from Save, not from the load.
func TestParseCacheOfAnotherBuild(t *testing.T) {
	src := MemSource(testutil.ExampleFiles(t))
	dir := t.TempDir()
	loadTwice(t, src, dir)
	if pc := OpenParseCache(dir, "another build"); len(pc.entries) != 0 {
		t.Errorf("another build read %d entries", len(pc.entries))
	}
	must(t, os.WriteFile(filepath.Join(dir, parseCacheFile), []byte("not a cache"), 0o644))
	if pc := OpenParseCache(dir, "test build"); len(pc.entries) != 0 {
		t.Errorf("a damaged file gave %d entries", len(pc.entries))
	}
	blocked := filepath.Join(t.TempDir(), "file")
	must(t, os.WriteFile(blocked, nil, 0o644))
	pc := OpenParseCache(filepath.Join(blocked, "cache"), "test build")
	if _, err := LoadCached(src, pc); err != nil {
		t.Fatal(err)
	}
	if err := pc.Save(); err == nil {
		t.Errorf("Save under a file succeeded")
	}
}
