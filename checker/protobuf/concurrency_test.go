package protobuf

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/contractbot/contractbot/checker"
)

// writeImportingModule writes, under dir, a file main.proto importing n files (each
// in its own package and directory, each importing a shared file and a well-known
// type), and returns the paths of the previous and current main file. The current
// one changes a field's type, so every check has a finding to agree on.
func writeImportingModule(t testing.TB, dir string, n int) (prev, cur string) {
	t.Helper()
	write := func(name, text string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("common/common.proto", "syntax = \"proto3\";\npackage common;\nmessage Money { int64 units = 1; string currency = 2; }\n")
	var imports, fields strings.Builder
	for i := range n {
		write(fmt.Sprintf("dep%d/dep.proto", i), fmt.Sprintf(`syntax = "proto3";
package dep%d;
import "common/common.proto";
import "google/protobuf/timestamp.proto";
message Part { common.Money price = 1; google.protobuf.Timestamp at = 2; }
`, i))
		fmt.Fprintf(&imports, "import \"dep%d/dep.proto\";\n", i)
		fmt.Fprintf(&fields, "  dep%d.Part part%d = %d;\n", i, i, i+2)
	}
	main := func(idType string) string {
		return "syntax = \"proto3\";\npackage shop;\n" + imports.String() +
			"message Order {\n  " + idType + " id = 1;\n" + fields.String() + "}\n"
	}
	write("prev/main.proto", main("string"))
	write("cur/main.proto", main("int64"))
	return filepath.Join(dir, "prev", "main.proto"), filepath.Join(dir, "cur", "main.proto")
}

// TestCompatManyImportsConcurrently checks a module whose file imports many files 200
// times at once: the compiler resolves the imports of each check from several
// goroutines, and the checks run side by side. Run under -race it pins that the
// resolver shares no unguarded state (it once wrote a map from the compiler's
// goroutines: "fatal error: concurrent map writes"). Every check must give the same
// result.
func TestCompatManyImportsConcurrently(t *testing.T) {
	dir := t.TempDir()
	prev, cur := writeImportingModule(t, dir, 16)
	opts := checker.Options{Level: checker.Backward, ImportPaths: []string{dir}}
	want, err := Compat([]checker.Input{{Path: prev}}, checker.Input{Path: cur}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if want.Compatible || len(want.Findings) == 0 {
		t.Fatalf("changing a field's type gave no finding: %+v", want)
	}
	const checks = 200
	results := make([]string, checks)
	errs := make([]error, checks)
	var wg sync.WaitGroup
	for i := range checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := Compat([]checker.Input{{Path: prev}}, checker.Input{Path: cur}, opts)
			if err != nil {
				errs[i] = err
				return
			}
			results[i] = renderResult(dir, res)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for i, got := range results {
		if got != renderResult(dir, want) {
			t.Fatalf("check %d differs:\n%s\nwant:\n%s", i, got, renderResult(dir, want))
		}
	}
}

// TestCompatImportErrorNamesDiskFile breaks one of many imports: the error names the
// file as it lies on disk, which the resolver records from the compiler's goroutines.
func TestCompatImportErrorNamesDiskFile(t *testing.T) {
	dir := t.TempDir()
	_, cur := writeImportingModule(t, dir, 8)
	bad := filepath.Join(dir, "dep5", "dep.proto")
	if err := os.WriteFile(bad, []byte("syntax = \"proto3\";\npackage dep5;\nmessage Part { oops }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Compat(nil, checker.Input{Path: cur}, checker.Options{ImportPaths: []string{dir}})
	var ie *checker.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("want an InputError, got %v", err)
	}
	if ie.File != bad || ie.Line != 3 {
		t.Errorf("error at %s:%d, want %s:3: %v", ie.File, ie.Line, bad, err)
	}
}

// TestSharedSchemasConcurrently checks and diffs the same compiled schemas from many
// goroutines, as the loaded tree's schemas are shared by the bot, the pages and the
// registry: run under -race it pins that a compiled Schema is only read (source
// locations, file names, descriptors) after Parse.
func TestSharedSchemasConcurrently(t *testing.T) {
	dir := t.TempDir()
	writeImportingModule(t, dir, 8)
	resolve := DirResolver([]string{dir}, nil)
	prev, err := Parse("prev/main.proto", resolve, "")
	if err != nil {
		t.Fatal(err)
	}
	next, err := Parse("cur/main.proto", resolve, "")
	if err != nil {
		t.Fatal(err)
	}
	render := func() string {
		res := Check([]*Schema{prev}, next, checker.Full, RulesWireJSON)
		res.Changes = Diff(prev, next)
		return renderResult(dir, res)
	}
	want := render()
	if !strings.Contains(want, "FIELD_WIRE_JSON_COMPATIBLE_TYPE") {
		t.Fatalf("changing a field's type gave no WIRE_JSON finding:\n%s", want)
	}
	got := make([]string, 50)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = render()
		}()
	}
	wg.Wait()
	for i, g := range got {
		if g != want {
			t.Fatalf("run %d differs:\n%s\nwant:\n%s", i, g, want)
		}
	}
}
