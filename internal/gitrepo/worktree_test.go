package gitrepo

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// worktreeRepo commits files into a new repository whose working tree and index are
// as after a checkout; it returns the open repository and the commit's tree.
func worktreeRepo(t *testing.T, files map[string]string) (*Repo, plumbing.Hash) {
	t.Helper()
	dir := t.TempDir()
	g, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		writeFile(t, filepath.Join(dir, name), content)
	}
	wt, err := g.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddGlob("."); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	h, err := wt.Commit("files", &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		t.Fatal(err)
	}
	c, err := g.CommitObject(h)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r, c.TreeHash
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// diffOf is the working tree's diff, checked to be the same with a listing cache,
// first empty, then as the first run left it.
func diffOf(t *testing.T, r *Repo, tree plumbing.Hash) *WorktreeDiff {
	t.Helper()
	d, err := r.WorktreeDiff(tree)
	if err != nil {
		t.Fatal(err)
	}
	r.ListingCache = filepath.Join(t.TempDir(), "listings")
	defer func() { r.ListingCache = "" }()
	for _, run := range []string{"cold", "warm"} {
		c, err := r.WorktreeDiff(tree)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(c.Paths, d.Paths) || !slices.Equal(c.Dirs, d.Dirs) {
			t.Errorf("with a %s listing cache: paths %q dirs %q, want %q and %q", run, c.Paths, c.Dirs, d.Paths, d.Dirs)
		}
	}
	return d
}

func wantDiff(t *testing.T, d *WorktreeDiff, paths, dirs []string) {
	t.Helper()
	dirs = append([]string{".git"}, dirs...)
	slices.Sort(dirs)
	if !slices.Equal(d.Paths, paths) || !slices.Equal(d.Dirs, dirs) {
		t.Errorf("paths %q dirs %q, want %q and %q", d.Paths, d.Dirs, paths, dirs)
	}
}

var worktreeFiles = map[string]string{
	"contracts/teams.yaml":                          "teams: {}\n",
	"contracts/orders/created/contract.yaml":        "subject: orders.created-value\n",
	"contracts/orders/created/created.avsc":         `{"type": "record", "name": "A", "fields": []}`,
	"contracts/orders/created/consumers/dwd.yaml":   "name: dwd\n",
	"contracts/orders/paid/contract.yaml":           "subject: orders.paid-value\n",
	"contracts/payments/settled/contract.yaml":      "subject: payments.settled-value\n",
	"contracts/payments/settled/consumers/bi.yaml":  "name: bi\n",
	"contracts/payments/settled/consumers/ml.yaml":  "name: ml\n",
	"contracts/payments/settled/settled.avsc":       `{"type": "record", "name": "B", "fields": []}`,
	"calendar/2026-12-01-orders.yaml":               "subjects: [orders.created-value]\n",
	"contracts/orders/created/consumers/other.yaml": "name: other\n",
}

func TestWorktreeDiffClean(t *testing.T) {
	r, tree := worktreeRepo(t, worktreeFiles)
	d := diffOf(t, r, tree)
	wantDiff(t, d, nil, nil)
	if d.Hashed > len(worktreeFiles) {
		t.Errorf("hashed %d files of %d", d.Hashed, len(worktreeFiles))
	}
}

// A file written again with the same bytes has new stat data: it is hashed, and is
// not a change.
func TestWorktreeDiffSameContentNewStat(t *testing.T) {
	r, tree := worktreeRepo(t, worktreeFiles)
	name := filepath.Join(r.Root, "contracts/orders/created/created.avsc")
	if err := os.Remove(name); err != nil {
		t.Fatal(err)
	}
	writeFile(t, name, worktreeFiles["contracts/orders/created/created.avsc"])
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(name, later, later); err != nil {
		t.Fatal(err)
	}
	d := diffOf(t, r, tree)
	wantDiff(t, d, nil, nil)
	if d.Hashed == 0 {
		t.Error("a file whose stat data changed was not hashed")
	}
}

func TestWorktreeDiffEdits(t *testing.T) {
	r, tree := worktreeRepo(t, worktreeFiles)
	root := r.Root
	writeFile(t, filepath.Join(root, "contracts/orders/paid/contract.yaml"), "subject: orders.paid-value-2\n")
	if err := os.Remove(filepath.Join(root, "contracts/payments/settled/consumers/ml.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, "contracts/orders/created/consumers")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "contracts/orders/refunded/contract.yaml"), "subject: orders.refunded-value\n")
	writeFile(t, filepath.Join(root, "contracts/orders/refunded/consumers/x.yaml"), "name: x\n")
	writeFile(t, filepath.Join(root, "contracts/payments/settled/notes.md"), "notes\n")
	if err := os.MkdirAll(filepath.Join(root, "contracts/empty/folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	d := diffOf(t, r, tree)
	wantDiff(t, d, []string{
		"contracts/empty/folder",
		"contracts/orders/created/consumers/dwd.yaml",
		"contracts/orders/created/consumers/other.yaml",
		"contracts/orders/paid/contract.yaml",
		"contracts/orders/refunded/consumers",
		"contracts/orders/refunded/consumers/x.yaml",
		"contracts/orders/refunded/contract.yaml",
		"contracts/payments/settled/consumers/ml.yaml",
		"contracts/payments/settled/notes.md",
	}, []string{"contracts/empty", "contracts/empty/folder", "contracts/orders/refunded", "contracts/orders/refunded/consumers"})
}

// A change staged in the index counts whether or not the working tree still holds it
// (when it does not, the working tree's file is read, and it is the commit's).
func TestWorktreeDiffStaged(t *testing.T) {
	r, tree := worktreeRepo(t, worktreeFiles)
	name := "contracts/orders/paid/contract.yaml"
	writeFile(t, filepath.Join(r.Root, name), "subject: orders.paid-value-2\n")
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add(name); err != nil {
		t.Fatal(err)
	}
	wantDiff(t, diffOf(t, r, tree), []string{name}, nil)
	writeFile(t, filepath.Join(r.Root, name), worktreeFiles[name])
	wantDiff(t, diffOf(t, r, tree), []string{name}, nil)

	// Removed from the index only (git rm --cached): the file is untracked now.
	other := "contracts/orders/created/created.avsc"
	if _, err := wt.Remove(other); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(r.Root, other), worktreeFiles[other])
	wantDiff(t, diffOf(t, r, tree), []string{other, name}, nil)
}

// Racy Git: a file modified in the same instant the index was written keeps stat data
// equal to its entry's; it must be hashed, or the edit is missed.
func TestWorktreeDiffRacy(t *testing.T) {
	r, tree := worktreeRepo(t, worktreeFiles)
	name := "contracts/orders/paid/contract.yaml"
	abs := filepath.Join(r.Root, name)
	writeFile(t, abs, strings.Replace(worktreeFiles[name], "paid", "pa1d", 1)) // same size
	fi, err := os.Lstat(abs)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := r.Storer.Index()
	if err != nil {
		t.Fatal(err)
	}
	e, err := idx.Entry(name)
	if err != nil {
		t.Fatal(err)
	}
	e.ModifiedAt = fi.ModTime()
	ino, ctime := inodeAndCtime(fi)
	e.Inode, e.CreatedAt = ino, ctime
	if err := r.Storer.SetIndex(idx); err != nil {
		t.Fatal(err)
	}
	indexFile := filepath.Join(r.Root, ".git", "index")
	for _, c := range []struct {
		indexTime time.Time
		want      []string
	}{
		{fi.ModTime(), []string{name}},       // mtime == the index's: racy, hashed
		{fi.ModTime().Add(time.Second), nil}, // written before the index: stat data trusted, as Git trusts it
	} {
		if err := os.Chtimes(indexFile, c.indexTime, c.indexTime); err != nil {
			t.Fatal(err)
		}
		wantDiff(t, diffOf(t, r, tree), c.want, nil)
	}
}

// A link or a file where the commit has a folder, and a link where it has a file.
func TestWorktreeDiffKinds(t *testing.T) {
	r, tree := worktreeRepo(t, worktreeFiles)
	root := r.Root
	if err := os.RemoveAll(filepath.Join(root, "contracts/payments/settled")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../orders/created", filepath.Join(root, "contracts/payments/settled")); err != nil {
		t.Fatal(err)
	}
	teams := filepath.Join(root, "contracts/teams.yaml")
	if err := os.Remove(teams); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../calendar/2026-12-01-orders.yaml", teams); err != nil {
		t.Fatal(err)
	}
	d := diffOf(t, r, tree)
	if !slices.Contains(d.Dirs, "contracts/payments/settled") || !slices.Contains(d.Paths, "contracts/payments/settled") {
		t.Errorf("a link where a folder was: paths %q dirs %q", d.Paths, d.Dirs)
	}
	if !slices.Contains(d.Paths, "contracts/teams.yaml") {
		t.Errorf("a link where a file was: paths %q", d.Paths)
	}
}

// runEnd finds where a folder's run of entries ends as a scan entry by entry does.
func TestRunEnd(t *testing.T) {
	var names []string
	for _, d := range []string{"a", "a-b", "a/b", "a/b/c", "a0", "b", "b/c"} {
		for i := range 1 + len(d)*3 {
			names = append(names, fmt.Sprintf("%s/%02d", d, i))
		}
	}
	slices.Sort(names)
	entries := make([]indexEntry, len(names))
	for i, n := range names {
		entries[i] = indexEntry{Name: n}
	}
	for i, e := range entries {
		for cut := strings.IndexByte(e.Name, '/'); cut >= 0; cut = nextSlash(e.Name, cut) {
			prefix := e.Name[:cut+1]
			if i > 0 && strings.HasPrefix(entries[i-1].Name, prefix) {
				continue // not the run's first entry
			}
			want := i
			for want < len(entries) && strings.HasPrefix(entries[want].Name, prefix) {
				want++
			}
			if got := runEnd(entries, i, prefix); got != want {
				t.Errorf("runEnd(%d, %q) = %d, want %d", i, prefix, got, want)
			}
		}
	}
}

func nextSlash(s string, after int) int {
	i := strings.IndexByte(s[after+1:], '/')
	if i < 0 {
		return -1
	}
	return after + 1 + i
}
