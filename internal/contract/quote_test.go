package contract

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"
)

// TestQuoteHintQuietOnGoodFiles: no line of the example tree's YAML files (all valid)
// gets a quoting hint, so the hint never blames a line that is right.
func TestQuoteHintQuietOnGoodFiles(t *testing.T) {
	root := testutil.RepoRoot(t)
	lines := 0
	for _, dir := range []string{"contracts", "calendar"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(b), "\n") {
				lines++
				if h := quoteHint(line); h != "" {
					t.Errorf("%s:%d: %q gets a hint:%s", p, i+1, line, h)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if lines < 500 {
		t.Errorf("only %d lines read", lines)
	}
}

func TestQuoteHint(t *testing.T) {
	for line, want := range map[string]string{
		`    slack: #shop`:             "`slack: \"#shop\"`",
		`reads: [order_id, *]`:         "`reads: [order_id, \"*\"]`",
		`reads: *`:                     "`reads: [\"*\"]`",
		`  - name: &x`:                 "`name: \"&x\"`",
		`title: Fix: amounts`:          "`title: \"Fix: amounts\"`",
		"owner: `orders`":              "`owner: \"`orders`\"`",
		`github: [@acme/x, "@acme/y"]`: "`github: [\"@acme/x\", \"@acme/y\"]`",
		`reads: [order_id]  # comment`: "",
		`weekly: {from: "fri 18:00"}`:  "",
		`slack: "#shop"`:               "",
	} {
		got := quoteHint(line)
		if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
			t.Errorf("quoteHint(%q) = %q, want it to show %s", line, got, want)
		}
	}
}
