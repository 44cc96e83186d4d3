package protobuf

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/checker"
)

// bufBinary returns the buf binary named by CONTRACTBOT_BUF, or skips the test.
func bufBinary(t testing.TB) string {
	t.Helper()
	bin := os.Getenv("CONTRACTBOT_BUF")
	if bin == "" {
		t.Skip("set CONTRACTBOT_BUF to a buf binary to run the differential test against buf: " +
			"GOBIN=$(go env GOCACHE)/contractbot-buf go install github.com/bufbuild/buf/cmd/buf@v1.75.0 && " +
			"CONTRACTBOT_BUF=$(go env GOCACHE)/contractbot-buf/buf go test ./checker/protobuf/ -run Buf")
	}
	return bin
}

// bufAnnotation is one line of `buf breaking --error-format json`.
type bufAnnotation struct {
	Path        string `json:"path"`
	StartLine   int    `json:"start_line"`
	StartColumn int    `json:"start_column"`
	Type        string `json:"type"`
	Message     string `json:"message"`
}

// writeBufModule writes a buf v2 module using the given breaking categories
// (comma-separated).
func writeBufModule(t testing.TB, dir, categories string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "version: v2\nbreaking:\n  use:\n"
	for _, c := range strings.Split(categories, ",") {
		cfg += "    - " + c + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "buf.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runBufBreaking returns buf's findings for next against prev as "RULE line:col".
func runBufBreaking(t testing.TB, bin, category string, prev, next map[string]string) []string {
	t.Helper()
	var out []string
	for _, a := range bufBreaking(t, bin, category, prev, next) {
		out = append(out, fmt.Sprintf("%s %d:%d", a.Type, a.StartLine, a.StartColumn))
	}
	sort.Strings(out)
	return out
}

// bufBreaking runs buf breaking on next (module directory "next") against prev
// ("prev") and returns its annotations.
func bufBreaking(t testing.TB, bin, category string, prev, next map[string]string) []bufAnnotation {
	t.Helper()
	root := t.TempDir()
	writeBufModule(t, filepath.Join(root, "prev"), category, prev)
	writeBufModule(t, filepath.Join(root, "next"), category, next)
	cmd := exec.Command(bin, "breaking", "next", "--against", "prev", "--error-format", "json")
	cmd.Dir = root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 100 {
			t.Fatalf("buf breaking: %v\n%s", err, stderr.String())
		}
	}
	var out []bufAnnotation
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		var a bufAnnotation
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("buf output %q: %v", sc.Text(), err)
		}
		out = append(out, a)
	}
	return out
}

// ourRules returns our findings of the categories (comma-separated) as
// "RULE line:col"; a rule in several categories reports once, as in buf.
func ourRules(t testing.TB, categories string, prevFiles, nextFiles map[string]string) []string {
	t.Helper()
	var out []string
	for _, f := range ourFindings(t, categories, "schema.proto", prevFiles, nextFiles) {
		out = append(out, fmt.Sprintf("%s %d:%d", f.Rule, f.Line, f.Column))
	}
	sort.Strings(out)
	return out
}

// ourFindings checks the file root of nextFiles against that of prevFiles with the
// rules of the categories (comma-separated); a rule in several categories reports
// once, as in buf.
func ourFindings(t testing.TB, categories, root string, prevFiles, nextFiles map[string]string) []checker.Finding {
	t.Helper()
	prev, err := Parse(root, mapResolver(prevFiles), "")
	if err != nil {
		t.Fatalf("parse previous: %v", err)
	}
	next, err := Parse(root, mapResolver(nextFiles), "")
	if err != nil {
		t.Fatalf("parse next: %v\n%s", err, nextFiles)
	}
	seen := map[string]bool{}
	var out []checker.Finding
	for _, cat := range strings.Split(categories, ",") {
		for _, f := range runRules(cat, prev, next) {
			key := fmt.Sprintf("%s %s %d:%d %s", f.Rule, f.File, f.Line, f.Column, f.Message)
			if !seen[key] {
				seen[key] = true
				out = append(out, f)
			}
		}
	}
	return out
}

func ruleIDs(findings []string) []string {
	out := make([]string, len(findings))
	for i, f := range findings {
		out[i], _, _ = strings.Cut(f, " ")
	}
	return out
}

// TestBufDifferential runs buf breaking and our rules on every generated edit, with
// WIRE and WIRE_JSON together (each rule reports once; a rule belongs to fixed
// categories, so the union pins both): the rule ids and positions must be the same.
func TestBufDifferential(t *testing.T) {
	bin := bufBinary(t)
	cases := generatedEdits()
	if len(cases) < 100 {
		t.Fatalf("only %d generated edits; want at least 100", len(cases))
	}
	const cats = RulesWire + "," + RulesWireJSON
	var findings int
	for _, tc := range cases {
		theirs := runBufBreaking(t, bin, cats, tc.files(false), tc.files(true))
		ours := ourRules(t, cats, tc.files(false), tc.files(true))
		findings += len(theirs)
		if strings.Join(ruleIDs(ours), ",") != strings.Join(ruleIDs(theirs), ",") {
			t.Errorf("%s: rule ids differ\n ours: %q\n  buf: %q\n--- next:\n%s", tc.name, ours, theirs, tc.files(true))
			continue
		}
		if strings.Join(ours, ",") != strings.Join(theirs, ",") {
			t.Errorf("%s: positions differ\n ours: %q\n  buf: %q", tc.name, ours, theirs)
		}
	}
	t.Logf("%d edits compared, %d buf findings", len(cases), findings)
}
