package contract

import (
	"os"
	"path/filepath"
	"runtime"
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

// Collections nested past MaxYAMLDepth are refused before any parser sees them, at the
// first bracket past the limit, with bounded memory (issue 13: 30,000 `[` cost 1.45 GB in
// the parser that locates syntax errors).
func TestDeeplyNestedYAMLIsRefusedCheaply(t *testing.T) {
	const p = "contracts/orders/order-created/consumers/deep.yaml"
	head := "name: deep\nowner: risk\nkind: service\nreads: "
	indent := func(n int) string {
		var b strings.Builder
		b.WriteString(head + "\n")
		for i := range n {
			b.WriteString(strings.Repeat(" ", 2*i+2) + "k:\n")
		}
		b.WriteString(strings.Repeat(" ", 2*n+2) + "x\n")
		return b.String()
	}
	for name, tc := range map[string]struct {
		text         string
		line, column int
	}{
		"flow refused by yaml":   {head + strings.Repeat("[", 30000) + strings.Repeat("]", 30000) + "\n", 4, len("reads: ") + MaxYAMLDepth + 1},
		"flow unclosed":          {head + strings.Repeat("{a: ", 30000) + "\n", 4, len("reads: ") + 4*MaxYAMLDepth + 1},
		"flow accepted by yaml":  {head + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n", 4, len("reads: ") + MaxYAMLDepth + 1},
		"block accepted by yaml": {indent(MaxYAMLDepth), MaxYAMLDepth + 3, 2*MaxYAMLDepth - 1}, // the key 62 levels under reads is the 65th node down
	} {
		t.Run(name, func(t *testing.T) {
			m := MemSource(testutil.ExampleFiles(t))
			m[p] = []byte(tc.text)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			tree, err := Load(m)
			runtime.ReadMemStats(&after)
			must(t, err)
			ds := tree.Diagnostics.ForFile(p)
			if len(ds) != 1 || ds[0].Code != CodeYAMLTooDeep || ds[0].Line != tc.line || ds[0].Column != tc.column {
				t.Fatalf("want one %s at %d:%d, got:\n%s", CodeYAMLTooDeep, tc.line, tc.column, formatDiagnostics(ds))
			}
			if !strings.Contains(ds[0].Message, "flatten") {
				t.Errorf("the message does not say what to do: %s", ds[0].Message)
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
				t.Errorf("loading the tree allocated %d MB; want at most 64", got>>20)
			}
		})
	}
	t.Run("brackets in quotes, comments and words are text", func(t *testing.T) {
		m := MemSource(testutil.ExampleFiles(t))
		deep := strings.Repeat("[", 200)
		m[p] = []byte(head + "[order_id]\ndoc: \"" + deep + "\"\n# " + deep + "\nnote: 'it''s " + deep + "'\n")
		tree, err := Load(m)
		must(t, err)
		for _, d := range tree.Diagnostics.ForFile(p) {
			if d.Code == CodeYAMLTooDeep || d.Code == CodeYAMLSyntax {
				t.Errorf("%s", formatDiagnostics(Diagnostics{d}))
			}
		}
	})
}
