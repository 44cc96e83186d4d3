package gitrepo

import (
	"errors"
	"os"
	"path/filepath"
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
	if want, _ := filepath.Abs(dir); r.Root != want {
		t.Errorf("root %q, want %q", r.Root, want)
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

	if _, err := Open(t.TempDir()); !errors.Is(err, git.ErrRepositoryNotExists) {
		t.Errorf("not a repository: %v", err)
	}
}
