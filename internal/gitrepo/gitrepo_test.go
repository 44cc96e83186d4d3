package gitrepo

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	if _, err := git.PlainInit(dir, false); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "contracts", "orders")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := Open(sub)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if want, _ := filepath.Abs(dir); r.Root != want || r.GitDir != filepath.Join(want, ".git") {
		t.Errorf("root %q git folder %q, want %q", r.Root, r.GitDir, want)
	}
	if _, err := r.Worktree(); err != nil {
		t.Errorf("worktree: %v", err)
	}

	bare := t.TempDir()
	if _, err := git.PlainInit(bare, true); err != nil {
		t.Fatal(err)
	}
	b, err := Open(bare)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Root != "" {
		t.Errorf("bare repository with a root %q", b.Root)
	}
	if want, _ := filepath.Abs(bare); b.CommonDir() != want {
		t.Errorf("bare repository's common folder %q, want %q", b.CommonDir(), want)
	}

	if _, err := Open(t.TempDir()); !errors.Is(err, git.ErrRepositoryNotExists) {
		t.Errorf("not a repository: %v", err)
	}
}

// TestOpenLinkedWorktree: in a worktree made by `git worktree add`, .git is a file
// naming the worktree's git folder, which names the shared one in commondir. Open
// reads the worktree's own HEAD and the shared objects.
func TestOpenLinkedWorktree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git binary to make a linked worktree")
	}
	root := t.TempDir()
	main, linked := filepath.Join(root, "main"), filepath.Join(root, "linked")
	run := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if err := os.MkdirAll(main, 0o755); err != nil {
		t.Fatal(err)
	}
	run(main, "init", "-q")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(main, "a.txt"), []byte("a\n"), 0o644))
	run(main, "add", "a.txt")
	run(main, "commit", "-qm", "first")
	run(main, "worktree", "add", "-q", "-b", "feature", linked)
	must(os.WriteFile(filepath.Join(linked, "b.txt"), []byte("b\n"), 0o644))
	run(linked, "add", "b.txt")
	run(linked, "commit", "-qm", "on the feature branch")
	want := run(linked, "rev-parse", "HEAD")

	r, err := Open(filepath.Join(linked))
	if err != nil {
		t.Fatalf("open a linked worktree: %v", err)
	}
	defer r.Close()
	head, err := r.Head()
	if err != nil || head.Hash().String() != want || head.Name().Short() != "feature" {
		t.Fatalf("HEAD %v (%v), want feature at %s", head, err, want)
	}
	if _, err := r.CommitObject(head.Hash()); err != nil {
		t.Errorf("the worktree's commit is not readable from the shared objects: %v", err)
	}
	if b, err := r.Reference("refs/heads/main", true); err != nil || b.Hash().String() == want {
		t.Errorf("main %v (%v): the shared refs are not the worktree's", b, err)
	}
	if got, wantDir := r.CommonDir(), filepath.Join(main, ".git"); !sameDir(t, got, wantDir) || sameDir(t, r.GitDir, wantDir) {
		t.Errorf("common folder %q (git folder %q), want %q", got, r.GitDir, wantDir)
	}
}

func sameDir(t *testing.T, a, b string) bool {
	t.Helper()
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}
