package calendar

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/contract"
)

// exampleSource reads the project's example tree (contracts/ and calendar/) into memory.
func exampleSource(t *testing.T) contract.MemSource {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		if filepath.Dir(dir) == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = filepath.Dir(dir)
	}
	src := contract.MemSource{}
	for _, sub := range []string{contract.ContractsDir, contract.CalendarDir} {
		err := filepath.Walk(filepath.Join(dir, sub), func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			src[filepath.ToSlash(rel)] = data
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return src
}

// load loads the example tree with files replaced (or removed, for ""), and fails on
// any diagnostic.
func load(t *testing.T, files map[string]string) *contract.Tree {
	t.Helper()
	src := exampleSource(t)
	for p, c := range files {
		if c == "" {
			delete(src, p)
			continue
		}
		src[p] = []byte(c)
	}
	tree, err := contract.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Diagnostics) > 0 {
		t.Fatalf("tree has diagnostics:\n%v", tree.Diagnostics)
	}
	return tree
}

// entryYAML writes a calendar entry.
func entryYAML(title string, subjects, owner, start, end, tz string) string {
	return "title: " + title + "\nkind: schema-change\nsubjects: " + subjects + "\nowner: " + owner +
		"\nwindow:\n  start: \"" + start + "\"\n  end: \"" + end + "\"\n  timezone: " + tz + "\n"
}

var (
	berlin   = mustZone("Europe/Berlin")
	shanghai = mustZone("Asia/Shanghai")
)

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

func at(loc *time.Location, s string) time.Time {
	t, err := time.ParseInLocation("2006-01-02 15:04", s, loc)
	if err != nil {
		panic(err)
	}
	return t
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}
