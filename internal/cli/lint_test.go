package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/checker/located"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/testutil"
	"github.com/contractbot/contractbot/internal/verdict"
)

const badTree = "../contract/testdata/bad"

func lintGolden(t *testing.T, name, got string) {
	t.Helper()
	checkGolden(t, filepath.Join("..", "lint", name), got)
}

func TestLintExampleTree(t *testing.T) {
	out, errOut, code := runCLI(t, "lint", "--repo", "../..")
	if code != 0 {
		t.Fatalf("lint of the example tree: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "0 error(s)") {
		t.Errorf("summary: %q", out)
	}
}

func TestLintBadTreeFormats(t *testing.T) {
	for _, format := range []string{"text", "json", "github"} {
		t.Run(format, func(t *testing.T) {
			out, errOut, code := runCLI(t, "lint", "--repo", badTree, "--format", format)
			if code != 1 {
				t.Fatalf("exit %d, want 1; stderr %s", code, errOut)
			}
			lintGolden(t, "bad."+format, out)
		})
	}
	_, errOut, code := runCLI(t, "lint", "--repo", badTree, "--format", "xml")
	if code != 2 || !strings.Contains(errOut, "unknown --format") {
		t.Errorf("bad format: exit %d, %q", code, errOut)
	}
}

func TestCodeownersCheck(t *testing.T) {
	if out, errOut, code := runCLI(t, "codeowners", "--repo", "../..", "--check"); code != 0 {
		t.Fatalf("the project's CODEOWNERS is stale: exit %d %s%s", code, out, errOut)
	}
	dir := t.TempDir()
	for _, sub := range []string{"contracts", "calendar"} {
		testutil.CopyTree(t, filepath.Join("../..", sub), filepath.Join(dir, sub))
	}
	_, errOut, code := runCLI(t, "codeowners", "--repo", dir, "--check")
	if code != 1 || !strings.Contains(errOut, "missing") {
		t.Errorf("missing CODEOWNERS: exit %d, %q", code, errOut)
	}
	if err := os.WriteFile(filepath.Join(dir, "CODEOWNERS"), []byte("* @someone\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code = runCLI(t, "codeowners", "--repo", dir, "--check"); code != 1 || !strings.Contains(errOut, "stale") {
		t.Errorf("stale CODEOWNERS: exit %d, %q", code, errOut)
	}
	if _, _, code = runCLI(t, "codeowners", "--repo", dir); code != 0 {
		t.Fatalf("write CODEOWNERS: exit %d", code)
	}
	if _, _, code = runCLI(t, "codeowners", "--repo", dir, "--check"); code != 0 {
		t.Errorf("after writing, --check exits %d", code)
	}
}

// lint --history names the commit of the default branch that broke its subject's
// level: the example tree's own dws.gmv-1min-value long -> int at BACKWARD (issue 18).
// A warning: the exit status stays 0.
func TestLintHistory(t *testing.T) {
	r := gmvHistory(t)
	h := r.Commit("gmv order_count is an int in the example")
	out, errOut, code := runCLI(t, "lint", "--repo", r.Dir, "--history")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, h.String()[:12]) {
		t.Errorf("the commit %s is not named:\n%s", h, out)
	}
	// The commit's hash follows the example tree's content: not pinned.
	lintGolden(t, "history.txt", strings.ReplaceAll(out, h.String()[:12], "<commit>"))
	if out, _, _ := runCLI(t, "lint", "--repo", r.Dir); strings.Contains(out, "history-broke-level") {
		t.Errorf("lint without --history audits the history:\n%s", out)
	}
}

func TestLintActionsCapAndEscaping(t *testing.T) {
	var ds contract.Diagnostics
	for i := range 1200 {
		ds = append(ds, contract.Diagnostic{Span: located.Span{File: "contracts/a,b/contract.yaml", Line: i + 1, Column: 3},
			Severity: contract.Warning, Code: "doc-missing", Message: "50% of fields\nlack docs"})
	}
	ds = append(ds, contract.Diagnostic{Span: located.Span{File: "contracts/x/contract.yaml", Line: 7, Column: 1},
		Severity: contract.Error, Code: "unknown-key", Message: "unknown key"})
	lines := strings.Split(strings.TrimSuffix(lintActions(ds), "\n"), "\n")
	if len(lines) != verdict.MaxActionsAnnotations+1 {
		t.Fatalf("%d lines, want %d", len(lines), verdict.MaxActionsAnnotations+1)
	}
	if want := "::error file=contracts/x/contract.yaml,line=7,col=1,title=unknown-key::unknown key"; lines[0] != want {
		t.Errorf("first line %q, want the error first: %q", lines[0], want)
	}
	if want := "::warning file=contracts/a%2Cb/contract.yaml,line=1,col=3,title=doc-missing::50%25 of fields%0Alack docs"; lines[1] != want {
		t.Errorf("escaping: %q, want %q", lines[1], want)
	}
	last := lines[len(lines)-1]
	if want := "::error title=contractbot lint::1 error(s), 1200 warning(s). 202 more diagnostic(s) are not annotated here; run contractbot lint for the whole list."; last != want {
		t.Errorf("summary %q, want %q", last, want)
	}
	if lintActions(nil) != "" {
		t.Error("no diagnostics must print nothing")
	}
}
