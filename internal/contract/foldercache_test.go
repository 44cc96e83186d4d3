package contract

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/testutil"
)

// resetFolderCache empties the process's cache of domain trees, and forgets the
// folder of the names table, for one test.
func resetFolderCache(t *testing.T) {
	t.Helper()
	clearCache := func() {
		domainFolders.Lock()
		clear(domainFolders.byTree)
		clear(domainFolders.used)
		clear(domainFolders.inFile)
		domainFolders.read = false
		domainFolders.Unlock()
		baseNames.Lock()
		baseNames.dir, baseNames.pending = "", nil
		baseNames.Unlock()
	}
	clearCache()
	t.Cleanup(clearCache)
}

// uncachedFolders is SubjectFolders as it was before the cache: every subject line read.
func uncachedFolders(t *testing.T, src Source) map[string][]string {
	t.Helper()
	dirs, err := SubjectDirs(src)
	must(t, err)
	out := map[string][]string{}
	for _, dir := range dirs {
		name, _, ok, err := SubjectLine(src, dir)
		must(t, err)
		if ok {
			out[name] = append(out[name], dir)
		}
	}
	return out
}

// twoRevisions commits the example tree, then a head that renames a subject, adds a
// domain with a duplicate subject and a stray file, and returns both revisions.
func twoRevisions(t *testing.T) (base, head *GitSource) {
	t.Helper()
	root := testutil.RepoRoot(t)
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	must(t, err)
	testutil.CopyTree(t, filepath.Join(root, "contracts"), filepath.Join(dir, "contracts"))
	commitAll(t, repo, "base")
	f := filepath.Join(dir, "contracts", "orders", "order-created", "contract.yaml")
	data, err := os.ReadFile(f)
	must(t, err)
	must(t, os.WriteFile(f, []byte(strings.Replace(string(data), "subject: orders.order-created-value", "subject: orders.order-made-value", 1)), 0o644))
	testutil.CopyTree(t, filepath.Join(root, "contracts", "dws", "gmv-1min"), filepath.Join(dir, "contracts", "zzz", "gmv-copy"))
	must(t, os.WriteFile(filepath.Join(dir, "contracts", "zzz", "notes.txt"), []byte("stray\n"), 0o644))
	commitAll(t, repo, "head")
	base, err = OpenRevision(dir, "HEAD~1")
	must(t, err)
	head, err = OpenRevision(dir, "HEAD")
	must(t, err)
	t.Cleanup(func() { base.Close(); head.Close() })
	return base, head
}

// TestSubjectFoldersCache checks that the cached index of each revision is the one
// read from every contract.yaml, that the cache is what a second call reads, and that
// it survives a round trip through SaveFolderCache and LoadFolderCache.
func TestSubjectFoldersCache(t *testing.T) {
	resetFolderCache(t)
	base, head := twoRevisions(t)
	for _, src := range []*GitSource{base, head, base, head} {
		got, err := SubjectFolders(src)
		must(t, err)
		if want := uncachedFolders(t, src); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: cached index %v, want %v", src.Describe(), got, want)
		}
	}
	head2, err := SubjectFolders(head)
	must(t, err)
	if len(head2["dws.gmv-1min-value"]) != 2 || head2["orders.order-made-value"] == nil || head2["orders.order-created-value"] != nil {
		t.Errorf("head index does not show the change: %v", head2)
	}

	// Saved and loaded in a fresh cache, the domains are not read again: a subject
	// name put in the file is what SubjectFolders returns.
	cacheDir := t.TempDir()
	must(t, SaveFolderCache(cacheDir))
	file := filepath.Join(cacheDir, "subject-folders")
	data, err := os.ReadFile(file)
	must(t, err)
	if !strings.HasPrefix(string(data), folderCacheHeader+"\n") || !strings.Contains(string(data), "order-created\torders.order-made-value\n") {
		t.Fatalf("cache file:\n%s", data)
	}
	must(t, os.WriteFile(file, []byte(strings.Replace(string(data), "\torders.order-made-value\n", "\tfrom.the-cache-value\n", 1)), 0o644))
	resetFolderCache(t)
	must(t, LoadFolderCache(cacheDir))
	got, err := SubjectFolders(head)
	must(t, err)
	if got["from.the-cache-value"] == nil || got["orders.order-made-value"] != nil {
		t.Errorf("after LoadFolderCache the index was read from the tree again: %v", got)
	}
	// Nothing new was read: the file stays as it was.
	must(t, SaveFolderCache(cacheDir))
	if after, _ := os.ReadFile(file); !strings.Contains(string(after), "from.the-cache-value") {
		t.Errorf("the cache file was rewritten though nothing was read")
	}
}

// TestFolderCacheFileDamaged checks that a cache file of another version or damaged
// is an empty cache, not an error.
func TestFolderCacheFileDamaged(t *testing.T) {
	resetFolderCache(t)
	for _, text := range []string{"contractbot subject-folders 0\ntree " + plumbing.ZeroHash.String() + " clean\nx\ty\n", folderCacheHeader + "\nno tree line\n", ""} {
		dir := t.TempDir()
		must(t, os.WriteFile(filepath.Join(dir, "subject-folders"), []byte(text), 0o644))
		must(t, LoadFolderCache(dir))
	}
	domainFolders.Lock()
	n := len(domainFolders.byTree)
	domainFolders.Unlock()
	if n != 0 {
		t.Errorf("%d domain trees loaded from damaged files", n)
	}
	must(t, LoadFolderCache(filepath.Join(t.TempDir(), "missing")))
}

// TestLayoutDiagnosticsWithCache checks that the layout of a domain whose tree is
// cached as clean is skipped, and a domain with a stray file is still reported
// whether or not its tree is cached.
func TestLayoutDiagnosticsWithCache(t *testing.T) {
	resetFolderCache(t)
	base, head := twoRevisions(t)
	want, err := LayoutDiagnostics(head)
	must(t, err)
	if len(want) != 1 || want[0].File != "contracts/zzz/notes.txt" {
		t.Fatalf("uncached layout diagnostics: %s", formatDiagnostics(want))
	}
	for _, src := range []*GitSource{base, head} {
		_, err := SubjectFolders(src)
		must(t, err)
		got, err := LayoutDiagnostics(head)
		must(t, err)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("after indexing %s: %s, want %s", src.Describe(), formatDiagnostics(got), formatDiagnostics(want))
		}
	}
}
