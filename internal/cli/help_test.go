package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
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
