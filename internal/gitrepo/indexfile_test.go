package gitrepo

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
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

// asGoGit is an index's entries as go-git's.
func asGoGit(f *indexFile) []*index.Entry {
	out := make([]*index.Entry, len(f.entries))
	for i := range f.entries {
		e := &f.entries[i]
		st := f.stat(e)
		out[i] = &index.Entry{Hash: e.Hash, Name: e.Name, CreatedAt: st.ctime, ModifiedAt: st.mtime,
			Dev: st.dev, Inode: st.ino, Mode: e.Mode, UID: st.uid, GID: st.gid, Size: st.size,
			Stage: index.Stage(e.stage()), SkipWorktree: e.skipWorktree(), IntentToAdd: e.intentToAdd()}
	}
	return out
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
		got, err := readIndex(file, indexSums{})
		if err != nil {
			t.Fatal(err)
		}
		want := goGitIndex(t, file)
		if got.version != version || want.Version != version {
			t.Fatalf("versions %d (readIndex) and %d (go-git), want %d", got.version, want.Version, version)
		}
		if entries := asGoGit(got); !reflect.DeepEqual(entries, want.Entries) {
			t.Errorf("readIndex's entries differ from go-git's:\n%v\n%v", entries, want.Entries)
		}
		if fi, err := os.Stat(file); err != nil || !got.modTime.Equal(fi.ModTime()) {
			t.Errorf("modTime %v, want the file's (%v)", got.modTime, err)
		}
		// And laid out again from go-git's: the same entries.
		again, err := indexFromGoGit(want)
		if err != nil {
			t.Fatal(err)
		}
		if entries := asGoGit(again); !reflect.DeepEqual(entries, want.Entries) {
			t.Errorf("the entries laid out again from go-git's differ:\n%v\n%v", entries, want.Entries)
		}
	}
	t.Run("version 2", func(t *testing.T) { check(t, 2) })

	writeFile(t, filepath.Join(dir, "new.yaml"), "x\n")
	gitCmd(t, dir, "add", "-N", "new.yaml")
	gitCmd(t, dir, "update-index", "--skip-worktree", "na")
	t.Run("version 3", func(t *testing.T) {
		check(t, 3)
		idx, err := readIndex(file, indexSums{})
		if err != nil {
			t.Fatal(err)
		}
		flags := map[string]bool{}
		for _, e := range idx.entries {
			flags[e.Name] = e.intentToAdd() || e.skipWorktree()
		}
		if !flags["new.yaml"] || !flags["na"] {
			t.Errorf("intent-to-add or skip-worktree not read: %v", flags)
		}
	})

	// WorktreeDiff of a version 3 index, and of the same as version 4 (read by go-git).
	diff := func() *WorktreeDiff {
		t.Helper()
		r, tree := openHead(t, dir)
		d, err := r.WorktreeDiff(tree)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	v3 := diff()
	if !slices.Contains(v3.Paths, "new.yaml") {
		t.Errorf("version 3: the intent-to-add file is not a change: %q", v3.Paths)
	}
	gitCmd(t, dir, "update-index", "--index-version", "4")
	t.Run("version 4", func(t *testing.T) {
		if _, err := readIndex(file, indexSums{}); !errors.Is(err, errIndexFormat) {
			t.Errorf("readIndex of version 4: %v, want errIndexFormat", err)
		}
		if v4 := diff(); !slices.Equal(v4.Paths, v3.Paths) || !slices.Equal(v4.Dirs, v3.Dirs) {
			t.Errorf("version 4: paths %q dirs %q, want version 3's %q and %q", v4.Paths, v4.Dirs, v3.Paths, v3.Dirs)
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
	if _, err := readIndex(file, indexSums{}); err == nil || errors.Is(err, errIndexFormat) {
		t.Errorf("readIndex of a damaged file: %v, want an error", err)
	}
	if idx, err := readIndex(filepath.Join(dir, "missing"), indexSums{}); err != nil || len(idx.entries) != 0 {
		t.Errorf("readIndex of no file: %v entries, %v", idx, err)
	}
}

// openHead opens the repository at dir (closed when the test ends) and returns it
// with its HEAD commit's tree.
func openHead(t *testing.T, dir string) (*Repo, plumbing.Hash) {
	t.Helper()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	head, err := r.Head()
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.CommitObject(head.Hash())
	if err != nil {
		t.Fatal(err)
	}
	return r, c.TreeHash
}

// gitOut runs the git command in dir and returns its output, trimmed.
func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// cacheTreeNode finds a folder's node in the index's cache-tree (-1: none).
func cacheTreeOf(tree *cacheTree, dir string) int {
	node := tree.root()
	if dir == "" {
		return node
	}
	for part := range strings.SplitSeq(dir, "/") {
		node = subNode(tree.children(node), part)
	}
	return node
}

// The index's cache-tree as Git writes it: after a commit every folder's tree name
// is the commit's; a staged edit leaves the folders above it invalid, the others not;
// and WorktreeDiff computes the tree names of the invalid folders only.
func TestCacheTree(t *testing.T) {
	dir := t.TempDir()
	gitCmd(t, dir, "init", "-q")
	files := []string{"a/b/c/f.yaml", "a/b/g.yaml", "a/h.yaml", "x/y/z.yaml", "x/y2/z.yaml", "top.yaml", "a-b/i.yaml"}
	for _, name := range files {
		writeFile(t, filepath.Join(dir, name), name+"\n")
	}
	gitCmd(t, dir, "add", ".")
	gitCmd(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "files")
	r, tree := openHead(t, dir)
	folders := map[string]int{"": 7, "a": 3, "a/b": 2, "a/b/c": 1, "x": 2, "x/y": 1, "x/y2": 1, "a-b": 1}
	check := func(invalid ...string) {
		t.Helper()
		idx, err := readIndex(filepath.Join(dir, ".git", "index"), indexSums{})
		if err != nil || idx.tree == nil {
			t.Fatalf("no cache-tree read: %v", err)
		}
		for folder, count := range folders {
			h, ok := idx.tree.valid(cacheTreeOf(idx.tree, folder), count)
			if slices.Contains(invalid, folder) {
				if ok {
					t.Errorf("folder %q: valid, want invalid", folder)
				}
				continue
			}
			if want := gitOut(t, dir, "rev-parse", "HEAD:"+folder); !ok || h.String() != want {
				t.Errorf("folder %q: %v %v, want %s", folder, h, ok, want)
			}
		}
	}
	check()
	d, err := r.WorktreeDiff(tree)
	if err != nil || d.TreesHashed != 0 || len(d.Paths) != 0 {
		t.Errorf("a clean index: %+v (%v), want no tree hashed and no path", d, err)
	}

	writeFile(t, filepath.Join(dir, "a/b/g.yaml"), "edited\n")
	gitCmd(t, dir, "add", "a/b/g.yaml")
	check("", "a", "a/b")
	d, err = r.WorktreeDiff(tree)
	if err != nil || d.TreesHashed != 3 || !slices.Equal(d.Paths, []string{"a/b/g.yaml"}) {
		t.Errorf("an edit staged: %+v (%v), want 3 trees hashed and a/b/g.yaml", d, err)
	}

	// A damaged extension is not used: every tree is hashed, with the same result.
	file := filepath.Join(dir, ".git", "index")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(data, []byte("TREE"))
	data[at+8] = 'q' // the root's name, which must be empty
	sum := sha1.Sum(data[:len(data)-20])
	copy(data[len(data)-20:], sum[:])
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err = r.WorktreeDiff(tree)
	if err != nil || d.TreesHashed != len(folders) || !slices.Equal(d.Paths, []string{"a/b/g.yaml"}) {
		t.Errorf("a damaged cache-tree: %+v (%v), want %d trees hashed and a/b/g.yaml", d, err, len(folders))
	}
}

// Every cut of a cache-tree extension is read whole or not at all, never past its end.
func TestCacheTreeCuts(t *testing.T) {
	var ext []byte
	ext = append(ext, "\x002 2\n"...)
	ext = append(ext, bytes.Repeat([]byte{1}, 20)...)
	ext = append(ext, "a\x00-1 1\n"...)
	ext = append(ext, "b\x001 0\n"...)
	ext = append(ext, bytes.Repeat([]byte{2}, 20)...)
	ext = append(ext, "c\x001 0\n"...)
	ext = append(ext, bytes.Repeat([]byte{3}, 20)...)
	whole := decodeCacheTree(string(ext))
	if whole == nil || len(whole.nodes) != 4 || cacheTreeOf(whole, "a/b") != 2 || cacheTreeOf(whole, "c") != 3 {
		t.Fatalf("the whole extension: %+v", whole)
	}
	if _, ok := whole.valid(cacheTreeOf(whole, "a"), 1); ok {
		t.Error("an invalid node (-1 entries) is valid")
	}
	for n := range len(ext) {
		if decodeCacheTree(string(ext[:n])) != nil {
			t.Errorf("the first %d bytes were read as a whole tree", n)
		}
	}
}

// The sum of the index's entries changes with an entry, not with an extension alone.
func TestIndexSumLeavesOutExtensions(t *testing.T) {
	dir := t.TempDir()
	gitCmd(t, dir, "init", "-q")
	writeFile(t, filepath.Join(dir, "a/b.yaml"), "b\n")
	gitCmd(t, dir, "add", ".")
	gitCmd(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "files")
	file := filepath.Join(dir, ".git", "index")
	read := func() (plumbing.Hash, []byte) {
		t.Helper()
		idx, err := readIndex(file, indexSums{})
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return idx.sum, data[len(data)-20:]
	}
	sum, trailer := read()
	gitCmd(t, dir, "update-index", "--untracked-cache")
	gitCmd(t, dir, "-c", "core.untrackedCache=true", "status", "--short")
	sum2, trailer2 := read()
	if bytes.Equal(trailer, trailer2) {
		t.Fatal("git wrote no untracked cache")
	}
	if sum2 != sum {
		t.Errorf("an extension added: sum %v, want %v as before", sum2, sum)
	}
	writeFile(t, filepath.Join(dir, "a/b.yaml"), "b2\n")
	gitCmd(t, dir, "add", ".")
	if sum3, _ := read(); sum3 == sum {
		t.Errorf("an entry changed: the same sum %v", sum3)
	}
}

// An index written with index.skipHash (zeros for its checksum) is read, with the
// same sum of its entries; one whose checksum is known is not hashed again.
func TestIndexChecksumSkipped(t *testing.T) {
	dir := t.TempDir()
	gitCmd(t, dir, "init", "-q")
	writeFile(t, filepath.Join(dir, "a/b.yaml"), "b\n")
	gitCmd(t, dir, "add", ".")
	file := filepath.Join(dir, ".git", "index")
	idx, err := readIndex(file, indexSums{})
	if err != nil {
		t.Fatal(err)
	}
	sums := indexSums{trailer: idx.trailer, entries: idx.sum}
	idx.close()
	if sums.trailer.IsZero() || sums.entries.IsZero() {
		t.Fatalf("sums %+v", sums)
	}
	// Known: the entries' sum is taken as given.
	told := indexSums{trailer: sums.trailer, entries: plumbing.NewHash("0123456789012345678901234567890123456789")}
	if idx, err = readIndex(file, told); err != nil {
		t.Fatal(err)
	}
	if idx.sum != told.entries {
		t.Errorf("a known file: sum %v, want the one given", idx.sum)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	copy(data[len(data)-20:], make([]byte, 20))
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if idx, err = readIndex(file, told); err != nil { // a zero checksum is never known
		t.Fatal(err)
	}
	if idx.sum != sums.entries || len(idx.entries) != 1 {
		t.Errorf("index.skipHash: %d entries, sum %v, want 1 and %v", len(idx.entries), idx.sum, sums.entries)
	}
}
