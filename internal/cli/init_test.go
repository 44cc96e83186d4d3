package cli

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"

	"github.com/contractbot/contractbot/internal/testutil"
)

// TestInitThenLint: init in an empty folder writes a repository that lint passes with
// no diagnostic at all and whose CODEOWNERS is current; it is a Git repository on
// branch main; once committed, serve shows it and offers the JSON Schemas it names
// at /schemas/; a second init refuses and names every file that is in the way. What init
// prints is pinned by testdata/init/init.txt.
func TestInitThenLint(t *testing.T) {
	defer func(f func() time.Time) { initNow = f }(initNow)
	initNow = func() time.Time { return time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) }
	dir := filepath.Join(t.TempDir(), "contracts-repo")
	out, errOut, code := runCLI(t, "init", dir, "--org", "acme")
	if code != 0 {
		t.Fatalf("init: exit %d: %s", code, errOut)
	}
	goldenFile(t, "testdata/init/init.txt", strings.ReplaceAll(out, dir, "DIR"))

	out, errOut, code = runCLI(t, "lint", "--repo", dir)
	if code != 0 || out != "1 subject(s), 1 consumer(s), 3 team(s): 0 error(s), 0 warning(s)\n" {
		t.Errorf("lint of the new repository: exit %d:\n%s%s", code, out, errOut)
	}
	if out, errOut, code := runCLI(t, "codeowners", "--repo", dir, "--check"); code != 0 {
		t.Errorf("codeowners --check: exit %d:\n%s%s", code, out, errOut)
	}
	r, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatalf("init made no Git repository: %v", err)
	}
	if head, err := r.Reference("HEAD", false); err != nil || head.Target() != "refs/heads/main" {
		t.Errorf("HEAD is %v (%v), want refs/heads/main", head, err)
	}
	testutil.CommitAll(t, r, "contractbot init", initNow())
	base := startServe(t, "--repo", dir)
	for _, c := range []struct{ path, want string }{
		{"/schemas/contract.schema.json", readFile(t, filepath.Join(dir, "docs", "schemas", "contract.schema.json"))},
		{"/subjects", "orders.order-created-value"},
		{"/subjects", "Branch <code>main</code>"},
		{"/registry/subjects", `["orders.order-created-value"]`},
	} {
		resp, err := http.Get(base + c.path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), c.want) {
			t.Errorf("serve of the new repository: GET %s: %d, want %q in:\n%s", c.path, resp.StatusCode, c.want, b)
		}
	}

	if err := os.WriteFile(filepath.Join(dir, "contracts", "teams.yaml"), []byte("# mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = runCLI(t, "init", dir, "--org", "acme", "--here")
	if code != 2 || !strings.Contains(errOut, "contracts/teams.yaml") || !strings.Contains(errOut, "CODEOWNERS") {
		t.Errorf("a second init: exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "contracts", "teams.yaml")); string(b) != "# mine\n" {
		t.Errorf("init overwrote contracts/teams.yaml")
	}
}

// TestInitRefusesInsideARepository: init into a folder inside an existing repository's
// work tree (README's "Start your own" read from a checkout), or into its top, writes
// nothing and says why and what to run instead (golden: testdata/init/inside.txt);
// with --here it writes and leaves the enclosing repository as it is; a path outside
// every repository is made a repository of its own.
func TestInitRefusesInsideARepository(t *testing.T) {
	base := t.TempDir()
	outer := filepath.Join(base, "checkout")
	if _, err := git.PlainInit(outer, false); err != nil {
		t.Fatal(err)
	}
	nested := filepath.Join(outer, "my-contracts")
	var got strings.Builder
	for _, dir := range []string{nested, outer} {
		out, errOut, code := runCLI(t, "init", dir)
		if code != 2 || out != "" {
			t.Errorf("init %s inside a repository: exit %d, printed %q", dir, code, out)
		}
		got.WriteString(strings.ReplaceAll(errOut, base, "BASE"))
		if entries, _ := os.ReadDir(outer); len(entries) != 1 { // .git only
			t.Errorf("init %s wrote into the repository: %v", dir, entries)
		}
	}
	goldenFile(t, "testdata/init/inside.txt", got.String())

	if _, errOut, code := runCLI(t, "init", nested, "--here"); code != 0 {
		t.Fatalf("init --here: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(nested, "contracts", "teams.yaml")); err != nil {
		t.Errorf("init --here wrote no files: %v", err)
	}
	if _, err := os.Stat(filepath.Join(nested, ".git")); err == nil {
		t.Errorf("init --here made a repository inside the repository")
	}
	outside := filepath.Join(base, "my-contracts")
	if _, errOut, code := runCLI(t, "init", outside); code != 0 {
		t.Fatalf("init outside: exit %d: %s", code, errOut)
	}
	if _, err := git.PlainOpen(outside); err != nil {
		t.Errorf("init outside every repository made none: %v", err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// goldenFile compares got with the file at path, or writes it with -update.
func goldenFile(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file missing (run go test ./internal/cli -update): %v", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (rerun with -update if intended):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
