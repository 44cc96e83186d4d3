package gitrepo

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// cachedRepo is worktreeRepo with a listing cache, and the index's time an hour
// ahead (as if Git wrote it after every folder's last change: no folder is racy).
func cachedRepo(t *testing.T) (*Repo, plumbing.Hash) {
	t.Helper()
	r, tree := worktreeRepo(t, worktreeFiles)
	r.ListingCache = filepath.Join(t.TempDir(), "listings")
	setIndexTime(t, r, time.Now().Add(time.Hour))
	return r, tree
}

func setIndexTime(t *testing.T, r *Repo, at time.Time) {
	t.Helper()
	if err := os.Chtimes(filepath.Join(r.Root, ".git", "index"), at, at); err != nil {
		t.Fatal(err)
	}
}

// worktreeFolders is how many folders worktreeFiles makes, the root among them.
const worktreeFolders = 10

// listed runs WorktreeDiff and checks how many folders it listed and that its answer
// is the one without a cache.
func listed(t *testing.T, r *Repo, tree plumbing.Hash, want int) *WorktreeDiff {
	t.Helper()
	d, err := r.WorktreeDiff(tree)
	if err != nil {
		t.Fatal(err)
	}
	if d.Listed != want {
		t.Errorf("listed %d folders, want %d", d.Listed, want)
	}
	file := r.ListingCache
	r.ListingCache = ""
	defer func() { r.ListingCache = file }()
	u, err := r.WorktreeDiff(tree)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Paths, u.Paths) || !slices.Equal(d.Dirs, u.Dirs) {
		t.Errorf("with the cache: paths %q dirs %q; without: %q and %q", d.Paths, d.Dirs, u.Paths, u.Dirs)
	}
	return d
}

func TestListingCacheLeavesUnchangedFoldersUnlisted(t *testing.T) {
	r, tree := cachedRepo(t)
	listed(t, r, tree, worktreeFolders)
	listed(t, r, tree, 0)

	// A new file changes its folder's times: that folder alone is listed again, and its
	// listing (with the untracked file) is what the next run uses.
	writeFile(t, filepath.Join(r.Root, "contracts/orders/paid/notes.md"), "notes\n")
	wantDiff(t, listed(t, r, tree, 1), []string{"contracts/orders/paid/notes.md"}, nil)
	wantDiff(t, listed(t, r, tree, 0), []string{"contracts/orders/paid/notes.md"}, nil)

	// An untracked folder's listings are kept too; a file removed from one is seen.
	writeFile(t, filepath.Join(r.Root, "contracts/new/a/contract.yaml"), "subject: a\n")
	writeFile(t, filepath.Join(r.Root, "contracts/new/b.txt"), "b\n")
	want := []string{"contracts/new/a", "contracts/new/a/contract.yaml", "contracts/new/b.txt", "contracts/orders/paid/notes.md"}
	wantDiff(t, listed(t, r, tree, 3), want, []string{"contracts/new", "contracts/new/a"})
	wantDiff(t, listed(t, r, tree, 0), want, []string{"contracts/new", "contracts/new/a"})
	if err := os.Remove(filepath.Join(r.Root, "contracts/new/b.txt")); err != nil {
		t.Fatal(err)
	}
	wantDiff(t, listed(t, r, tree, 1), slices.Delete(want, 2, 3), []string{"contracts/new", "contracts/new/a"})
}

// A file taken out of the index (git rm --cached) leaves its folder's times as they
// were: the index's children of the folder are not those it was listed with, so it
// is listed again.
func TestListingCacheFollowsTheIndex(t *testing.T) {
	r, tree := cachedRepo(t)
	listed(t, r, tree, worktreeFolders)
	idx, err := r.Storer.Index()
	if err != nil {
		t.Fatal(err)
	}
	name := "contracts/orders/created/created.avsc"
	if _, err := idx.Remove(name); err != nil {
		t.Fatal(err)
	}
	if err := r.Storer.SetIndex(idx); err != nil {
		t.Fatal(err)
	}
	setIndexTime(t, r, time.Now().Add(time.Hour))
	wantDiff(t, listed(t, r, tree, 1), []string{name}, nil)
}

// A folder whose times are not older than the index's may change again within the
// same clock tick without its times changing: it is listed at every run.
func TestListingCacheRelistsRacyFolders(t *testing.T) {
	r, tree := cachedRepo(t)
	listed(t, r, tree, worktreeFolders)
	paid := filepath.Join(r.Root, "contracts/orders/paid")
	writeFile(t, filepath.Join(paid, "notes.md"), "notes\n")
	fi, err := os.Lstat(paid)
	if err != nil {
		t.Fatal(err)
	}
	setIndexTime(t, r, fi.ModTime())
	for range 2 {
		listed(t, r, tree, 1)
	}
	setIndexTime(t, r, fi.ModTime().Add(time.Second))
	listed(t, r, tree, 1) // listed once more, now kept
	listed(t, r, tree, 0)
}

// A cache file that is missing, damaged, of another working tree or of another
// version is not used: every folder is listed, and the file is written anew.
func TestListingCacheIgnoresABadFile(t *testing.T) {
	r, tree := cachedRepo(t)
	listed(t, r, tree, worktreeFolders)
	good, err := os.ReadFile(r.ListingCache)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := cachedRepo(t)
	listed(t, other, tree, worktreeFolders) // another working tree's file
	foreign, err := os.ReadFile(other.ListingCache)
	if err != nil {
		t.Fatal(err)
	}
	flipped := slices.Clone(good)
	flipped[len(flipped)/2] ^= 1
	for name, data := range map[string][]byte{
		"missing":   nil,
		"empty":     {},
		"truncated": good[:len(good)-9],
		"flipped":   flipped,
		"foreign":   foreign,
		"version":   append([]byte("contractbot folder-listings 0\n"), good[len(listingsHeader):]...),
	} {
		t.Run(name, func(t *testing.T) {
			if data == nil {
				if err := os.Remove(r.ListingCache); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(r.ListingCache, data, 0o600); err != nil {
				t.Fatal(err)
			}
			listed(t, r, tree, worktreeFolders)
			listed(t, r, tree, 0)
		})
	}
}

// On a file system whose folder times are not known to be kept (network, FUSE), no
// listing is kept or read: every folder is listed at every run.
func TestListingCacheOnlyOnKnownFileSystems(t *testing.T) {
	r, tree := cachedRepo(t)
	listed(t, r, tree, worktreeFolders) // kept
	trustedFS = func(string) bool { return false }
	t.Cleanup(func() { trustedFS = listingsTrusted })
	listed(t, r, tree, worktreeFolders) // not read
	if err := os.Remove(r.ListingCache); err != nil {
		t.Fatal(err)
	}
	listed(t, r, tree, worktreeFolders)
	if _, err := os.Stat(r.ListingCache); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a listing cache was written: %v", err)
	}
}
