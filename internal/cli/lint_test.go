package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"
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
