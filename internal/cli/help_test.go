package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

// TestHelpExamplesExist: every path an example of --help names under examples/ (an
// --overlay folder) exists in the project, so the examples can be run as written.
func TestHelpExamplesExist(t *testing.T) {
	re := regexp.MustCompile(`examples/[\w./-]+`)
	n := 0
	for _, c := range New().Commands() {
		for _, p := range re.FindAllString(c.Example+c.Long, -1) {
			n++
			if _, err := os.Stat(filepath.Join("..", "..", p)); err != nil {
				t.Errorf("contractbot %s --help names %s, which does not exist", c.Name(), p)
			}
		}
	}
	if n == 0 {
		t.Error("no example names a path under examples/")
	}
}

// TestHelpGolden walks the command tree: every command's help (at 80 columns, as when
// not written to a terminal) matches its golden file, has no line over 80 columns, and
// shows its examples before the long text.
func TestHelpGolden(t *testing.T) {
	walk(New(), func(c *cobra.Command) {
		path := c.CommandPath()
		var out, errb bytes.Buffer
		args := append(strings.Fields(path)[1:], "--help")
		if code := Main(args, &out, &errb); code != 0 {
			t.Fatalf("%s --help: exit %d: %s", path, code, errb.String())
		}
		help := out.String()
		for i, line := range strings.Split(help, "\n") {
			if n := utf8.RuneCountInString(line); n > helpWidth {
				t.Errorf("%s --help line %d is %d columns: %s", path, i+1, n, line)
			}
		}
		if c.Example != "" && c.Long != "" && strings.Index(help, "Examples:") > strings.Index(help, firstLine(c.Long)) {
			t.Errorf("%s --help: the long text comes before the examples", path)
		}
		name := strings.ReplaceAll(path, " ", "-") + ".txt"
		goldenFile(t, filepath.Join("testdata", "help", name), help)
	})
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.Join(strings.Fields(line)[:min(3, len(strings.Fields(line)))], " ")
}

// TestWrapHanging: a line is broken at spaces, never inside a word, and the lines
// after the first carry the hanging indent.
func TestWrapHanging(t *testing.T) {
	got := wrapHanging("  sync    Write a job's consumer files from its Flink SQL", 30, 10)
	want := "  sync    Write a job's\n          consumer files from\n          its Flink SQL"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
