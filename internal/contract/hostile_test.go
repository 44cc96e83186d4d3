package contract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"
)

// Every symbolic link is reported once, on its own path, whether the loader reaches it
// by listing a folder or by reading a file (issue 13: some were reported twice).
func TestSymbolicLinksAreReportedOnce(t *testing.T) {
	links := []string{
		"contracts/teams.yaml",
		"contracts/orders/order-created/order_created.avsc",
		"contracts/orders/order-created/consumers/dwd-order-detail.yaml",
		"contracts/orders/order-status-changed/consumers",
		"contracts/users/user-profile/contract.yaml",
		"calendar/freezes.yaml",
	}
	check := func(t *testing.T, src Source) {
		tree, err := Load(src)
		must(t, err)
		for _, l := range links {
			ds := tree.Diagnostics.ForFile(l)
			if len(ds) != 1 || ds[0].Code != CodeSymlink {
				t.Errorf("%s: %s", l, formatDiagnostics(ds))
			}
		}
	}
	t.Run("memory", func(t *testing.T) {
		m := MemSource(testutil.ExampleFiles(t))
		for p := range m {
			for _, l := range links {
				if p == l || len(p) > len(l) && p[:len(l)+1] == l+"/" {
					delete(m, p)
				}
			}
		}
		for _, l := range links {
			m[l] = nil // a link
		}
		check(t, m)
	})
	t.Run("directory", func(t *testing.T) {
		dir := t.TempDir()
		testutil.CopyExample(t, dir)
		for _, l := range links {
			p := filepath.Join(dir, l)
			must(t, os.Rename(p, filepath.Join(dir, filepath.Base(l)+".real")))
			must(t, os.Symlink(filepath.Join(dir, filepath.Base(l)+".real"), p))
		}
		check(t, NewDirSource(dir))
	})
}

// A character YAML does not allow is reported where it is, not at 1:1 (issue 13).
func TestUnprintableCharacterIsLocated(t *testing.T) {
	for name, tc := range map[string]struct {
		insert string
		line   int
		column int
	}{
		"NUL":          {"\x00", 4, 10},
		"escape":       {"\x1b", 4, 10},
		"not UTF-8":    {"\xff", 4, 10},
		"C1 control":   {"\u0090", 4, 10},
		"after a rune": {"é\x00", 4, 11},
	} {
		t.Run(name, func(t *testing.T) {
			m := MemSource(testutil.ExampleFiles(t))
			const p = "contracts/orders/order-created/consumers/dwd-order-detail.yaml"
			data := string(m[p])
			// line 4 is "kind: flink-job"; insert after "kind: fli"
			i := strings.Index(data, "kind: ")
			if i < 0 || strings.Count(data[:i], "\n") != 3 {
				t.Fatalf("the example consumer changed:\n%s", data)
			}
			m[p] = []byte(data[:i+9] + tc.insert + data[i+9:])
			tree, err := Load(m)
			must(t, err)
			ds := tree.Diagnostics.ForFile(p)
			if len(ds) != 1 || ds[0].Code != CodeYAMLSyntax || ds[0].Line != tc.line || ds[0].Column != tc.column {
				t.Errorf("want one yaml-syntax error at %d:%d: %s", tc.line, tc.column, formatDiagnostics(ds))
			}
		})
	}
}
