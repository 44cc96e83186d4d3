package verdict

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/testutil"

	"github.com/go-git/go-git/v5"
	gitobject "github.com/go-git/go-git/v5/plumbing/object"

	"github.com/contractbot/contractbot/internal/contract"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// The fixed clock of every scenario: the pull request was opened at 08:00 and is
// evaluated at 09:00 on 2026-12-01 (a Tuesday, outside every freeze).
var (
	openedAt = time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	now      = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
)

// scenarioRepo is a Git repository holding a copy of the example tree.
type scenarioRepo struct {
	t    testing.TB
	dir  string
	repo *git.Repository
	n    int
}

// newScenarioRepo commits the example tree (contracts/ and calendar/ of the
// repository root) as the first commit of a fresh repository.
func newScenarioRepo(t testing.TB) *scenarioRepo {
	t.Helper()
	root := testutil.RepoRoot(t)
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	must(t, err)
	testutil.CopyTree(t, filepath.Join(root, contract.ContractsDir), filepath.Join(dir, contract.ContractsDir))
	testutil.CopyTree(t, filepath.Join(root, contract.CalendarDir), filepath.Join(dir, contract.CalendarDir))
	r := &scenarioRepo{t: t, dir: dir, repo: repo}
	r.commit("example tree")
	return r
}

func (r *scenarioRepo) path(rel string) string { return filepath.Join(r.dir, filepath.FromSlash(rel)) }

func (r *scenarioRepo) read(rel string) string {
	r.t.Helper()
	b, err := os.ReadFile(r.path(rel))
	must(r.t, err)
	return string(b)
}

func (r *scenarioRepo) write(rel, content string) {
	r.t.Helper()
	must(r.t, os.MkdirAll(filepath.Dir(r.path(rel)), 0o755))
	must(r.t, os.WriteFile(r.path(rel), []byte(content), 0o644))
}

// replace rewrites one exact occurrence of old in a file; the test fails when old is
// not there exactly once, so a fixture change in the example tree cannot go unnoticed.
func (r *scenarioRepo) replace(rel, old, new string) {
	r.t.Helper()
	s := r.read(rel)
	if n := strings.Count(s, old); n != 1 {
		r.t.Fatalf("%s: %q occurs %d times, want 1", rel, old, n)
	}
	r.write(rel, strings.Replace(s, old, new, 1))
}

func (r *scenarioRepo) remove(rel string) {
	r.t.Helper()
	must(r.t, os.RemoveAll(r.path(rel)))
}

func (r *scenarioRepo) commit(msg string) {
	r.t.Helper()
	wt, err := r.repo.Worktree()
	must(r.t, err)
	must(r.t, wt.AddWithOptions(&git.AddOptions{All: true}))
	when := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC).Add(time.Duration(r.n) * time.Minute)
	r.n++
	_, err = wt.Commit(msg, &git.CommitOptions{Author: &gitobject.Signature{Name: "test", Email: "test@example.com", When: when}})
	must(r.t, err)
}

// load reads the tree at a revision from Git objects.
func (r *scenarioRepo) load(rev string) *contract.Tree {
	r.t.Helper()
	src, err := contract.OpenRevision(r.dir, rev)
	must(r.t, err)
	tree, err := contract.Load(src)
	must(r.t, err)
	return tree
}

// input is the evaluation input for HEAD~1 -> HEAD with the scenario clock.
func (r *scenarioRepo) input() Input {
	return Input{
		Base: r.load("HEAD~1"), Head: r.load("HEAD"),
		Author: "olivia", OpenedAt: openedAt, Now: now,
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// golden compares got with testdata/<name>, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", filepath.FromSlash(name))
	if *update {
		must(t, os.MkdirAll(filepath.Dir(path), 0o755))
		must(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/verdict -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run with -update to accept):\n%s", path, lineDiff(string(want), string(got)))
	}
}

// lineDiff shows the first lines where two texts differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("line " + itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl + "\n")
			if shown++; shown == 10 {
				break
			}
		}
	}
	return b.String()
}

func itoa(n int) string {
	var buf [20]byte
	i := len(buf)
	if n == 0 {
		return "0"
	}
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return string(buf[i:])
}
