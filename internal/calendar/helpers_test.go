package calendar

import (
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/testutil"

	"github.com/contractbot/contractbot/internal/contract"
)

// load loads the example tree with files replaced (or removed, for ""), and fails on
// any diagnostic.
func load(t *testing.T, files map[string]string) *contract.Tree {
	t.Helper()
	src := contract.MemSource(testutil.ExampleFiles(t))
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
