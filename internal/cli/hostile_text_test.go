package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLintTextIsInert: a consumer file reads a field whose name holds a newline, a
// GitHub Actions workflow command and terminal escapes. lint's text output names it
// on the diagnostic's own line, escaped: no ESC reaches the terminal and no line of
// the output starts with "::" (which Actions would run as a command).
func TestLintTextIsInert(t *testing.T) {
	dir, _ := exampleRepo(t)
	evil := "name: evil-job\nowner: engagement\nkind: connector\nreads: [\"x\\n::error file=README.md::pwned\\e[2J\\e]0;title\\a\"]\n"
	if err := os.WriteFile(filepath.Join(dir, "contracts/users/user-profile/consumers/evil-job.yaml"), []byte(evil), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "lint", "--repo", dir)
	if code != 1 || !strings.Contains(out, "evil-job.yaml") {
		t.Fatalf("lint: exit %d\n%s%s", code, out, errOut)
	}
	if strings.ContainsAny(out, "\x1b\a") {
		t.Errorf("lint printed a control character:\n%q", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "::") {
			t.Errorf("a line of lint's output is a workflow command: %q", line)
		}
	}
	if !strings.Contains(out, `x\n::error file=README.md::pwned\x1b[2J`) {
		t.Errorf("the name is not shown escaped:\n%s", out)
	}
}
