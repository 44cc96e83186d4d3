package protobuf

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
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

// writeBufModule writes a buf v2 module using one breaking category.
func writeBufModule(t testing.TB, dir, category string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("version: v2\nbreaking:\n  use:\n    - %s\n", category)
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
	root := t.TempDir()
	writeBufModule(t, filepath.Join(root, "prev"), category, prev)
	writeBufModule(t, filepath.Join(root, "next"), category, next)
	cmd := exec.Command(bin, "breaking", "next", "--against", "prev", "--error-format", "json")
	cmd.Dir = root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 100 {
			t.Fatalf("buf breaking: %v\n%s", err, stderr.String())
		}
	}
	var out []string
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		var a bufAnnotation
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("buf output %q: %v", sc.Text(), err)
		}
		out = append(out, fmt.Sprintf("%s %d:%d", a.Type, a.StartLine, a.StartColumn))
	}
	sort.Strings(out)
	return out
}

// ourRules returns our findings of a category as "RULE line:col".
func ourRules(t testing.TB, category, prevText, nextText string) []string {
	t.Helper()
	prev, err := Parse("schema.proto", mapResolver(map[string]string{"schema.proto": prevText}), "")
	if err != nil {
		t.Fatalf("parse previous: %v", err)
	}
	next, err := Parse("schema.proto", mapResolver(map[string]string{"schema.proto": nextText}), "")
	if err != nil {
		t.Fatalf("parse next: %v\n%s", err, nextText)
	}
	var out []string
	for _, f := range runRules(category, prev, next) {
		out = append(out, fmt.Sprintf("%s %d:%d", f.Rule, f.Line, f.Column))
	}
	sort.Strings(out)
	return out
}

func ruleIDs(findings []string) []string {
	out := make([]string, len(findings))
	for i, f := range findings {
		out[i], _, _ = strings.Cut(f, " ")
	}
	return out
}

// TestBufDifferential runs buf breaking and our WIRE and WIRE_JSON rules on every
// generated edit: the rule ids must be the same, and so should the positions.
func TestBufDifferential(t *testing.T) {
	bin := bufBinary(t)
	cases := generatedEdits()
	if len(cases) < 100 {
		t.Fatalf("only %d generated edits; want at least 100", len(cases))
	}
	var runs, posDiffs int
	for _, tc := range cases {
		for _, cat := range []string{RulesWire, RulesWireJSON} {
			runs++
			theirs := runBufBreaking(t, bin, cat, map[string]string{"schema.proto": tc.prev}, map[string]string{"schema.proto": tc.next})
			ours := ourRules(t, cat, tc.prev, tc.next)
			if strings.Join(ruleIDs(ours), ",") != strings.Join(ruleIDs(theirs), ",") {
				t.Errorf("%s %s: rule ids differ\n ours: %q\n  buf: %q\n--- next:\n%s", tc.name, cat, ours, theirs, tc.next)
				continue
			}
			if strings.Join(ours, ",") != strings.Join(theirs, ",") {
				posDiffs++
				t.Errorf("%s %s: positions differ\n ours: %q\n  buf: %q", tc.name, cat, ours, theirs)
			}
		}
	}
	t.Logf("%d edits, %d buf runs, %d with other positions", len(cases), runs, posDiffs)
}
