package protobuf

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/checker"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

// TestFixtures checks each pair under testdata/fixtures (older/ when present, then
// previous/, against current/) at the level and rules named in case.txt, and compares
// the findings and changes, by rule id, path and file:line:col, with want.txt.
func TestFixtures(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "fixtures", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			cfg, err := os.ReadFile(filepath.Join(dir, "case.txt"))
			if err != nil {
				t.Fatal(err)
			}
			var levelName, rules string
			for _, kv := range strings.Fields(string(cfg)) {
				k, v, _ := strings.Cut(kv, "=")
				switch k {
				case "level":
					levelName = v
				case "rules":
					rules = v
				}
			}
			level, err := checker.ParseLevel(levelName)
			if err != nil {
				t.Fatal(err)
			}
			var prev []checker.Input
			for _, side := range []string{"older", "previous"} {
				p := filepath.Join(dir, side, "schema.proto")
				if _, err := os.Stat(p); err == nil {
					prev = append(prev, checker.Input{Path: p})
				}
			}
			res, err := Compat(prev, checker.Input{Path: filepath.Join(dir, "current", "schema.proto")}, checker.Options{Level: level, Rules: rules})
			if err != nil {
				t.Fatal(err)
			}
			got := renderResult(dir, res)
			golden := filepath.Join(dir, "want.txt")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./checker/protobuf/ -run TestFixtures -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs:\n--- got\n%s--- want\n%s", golden, got, want)
			}
		})
	}
}

// renderResult prints what a fixture pins: verdict, then findings and changes by id,
// path and position (not message text).
func renderResult(dir string, r *checker.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "compatible=%v\n", r.Compatible)
	rel := func(f string) string {
		if p, err := filepath.Rel(dir, f); err == nil {
			return filepath.ToSlash(p)
		}
		return f
	}
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "finding %s %s %s:%d:%d against=%d %s\n", f.Rule, f.Path, rel(f.File), f.Line, f.Column, f.Against, f.Direction)
	}
	for _, c := range r.Changes {
		fmt.Fprintf(&b, "change %s %s %s %s:%d:%d\n", c.Kind, c.Effect, c.Path, rel(c.File), c.Line, c.Column)
	}
	return b.String()
}
