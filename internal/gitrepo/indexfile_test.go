package gitrepo

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// gitCmd runs the git command in dir; the test is skipped without git.
func gitCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git command")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// goGitIndex decodes an index file with go-git's decoder.
func goGitIndex(t *testing.T, name string) *index.Index {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	idx := &index.Index{}
	if err := index.NewDecoder(f).Decode(idx); err != nil {
		t.Fatal(err)
	}
	return idx
}

// readIndex reads what go-git reads from indexes Git writes: version 2, version 3
// (intent-to-add and skip-worktree entries), names of every length (the padding);
// version 4 is left to go-git; a damaged file is an error.
func TestReadIndexAsGoGit(t *testing.T) {
	dir := t.TempDir()
	gitCmd(t, dir, "init", "-q")
	files := map[string]string{}
	for i := range 17 { // names of every length modulo 8
		files["contracts/d/"+strings.Repeat("s", i+1)+"/contract.yaml"] = "subject: s\n"
	}
	for i := range 9 {
		name := "n" + "abcdefghij"[:i+1]
		files[name] = name
	}
	for name, content := range files {
		writeFile(t, filepath.Join(dir, name), content)
	}
	gitCmd(t, dir, "add", ".")
	gitCmd(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "files")
	file := filepath.Join(dir, ".git", "index")
	check := func(t *testing.T, version uint32) {
		t.Helper()
		got, err := readIndex(file)
		if err != nil {
			t.Fatal(err)
		}
		want := goGitIndex(t, file)
		if got.Version != version || want.Version != version {
			t.Fatalf("versions %d (readIndex) and %d (go-git), want %d", got.Version, want.Version, version)
		}
		if !reflect.DeepEqual(got.Entries, want.Entries) {
			t.Errorf("readIndex's entries differ from go-git's:\n%v\n%v", got.Entries, want.Entries)
		}
		if fi, err := os.Stat(file); err != nil || !got.ModTime.Equal(fi.ModTime()) {
			t.Errorf("ModTime %v, want the file's (%v)", got.ModTime, err)
		}
		if data, err := os.ReadFile(file); err != nil || !bytes.Equal(got.sum[:], data[len(data)-20:]) {
			t.Errorf("checksum %v, want the file's last 20 bytes (%v)", got.sum, err)
		}
	}
	t.Run("version 2", func(t *testing.T) { check(t, 2) })

	writeFile(t, filepath.Join(dir, "new.yaml"), "x\n")
	gitCmd(t, dir, "add", "-N", "new.yaml")
	gitCmd(t, dir, "update-index", "--skip-worktree", "na")
	t.Run("version 3", func(t *testing.T) {
		check(t, 3)
		idx, err := readIndex(file)
		if err != nil {
			t.Fatal(err)
		}
		flags := map[string]bool{}
		for _, e := range idx.Entries {
			flags[e.Name] = e.IntentToAdd || e.SkipWorktree
		}
		if !flags["new.yaml"] || !flags["na"] {
			t.Errorf("intent-to-add or skip-worktree not read: %v", flags)
		}
	})

	gitCmd(t, dir, "update-index", "--index-version", "4")
	t.Run("version 4", func(t *testing.T) {
		if _, err := readIndex(file); !errors.Is(err, errIndexFormat) {
			t.Errorf("readIndex of version 4: %v, want errIndexFormat", err)
		}
	})

	gitCmd(t, dir, "update-index", "--index-version", "2")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	data[40] ^= 1
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readIndex(file); err == nil || errors.Is(err, errIndexFormat) {
		t.Errorf("readIndex of a damaged file: %v, want an error", err)
	}
	if idx, err := readIndex(filepath.Join(dir, "missing")); err != nil || len(idx.Entries) != 0 {
		t.Errorf("readIndex of no file: %v entries, %v", idx, err)
	}
}
