package bot

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/<name>, or rewrites it with -update.
func golden(t *testing.T, name string, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/bot -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (go test ./internal/bot -update to accept):\n%s", p, got)
	}
}

// reHidden matches the comment's state and signature lines: they hold a random claim
// token and a signature over it, and nobody reads them.
var reHidden = regexp.MustCompile(`(?m)^<!-- contractbot:(state|signature) .*-->\n`)

// readable is what a person reads of the bot's comment.
func readable(body string) string { return reHidden.ReplaceAllString(body, "") }
