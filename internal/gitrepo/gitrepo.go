// Package gitrepo owns the project's use of Git: opening repositories for fast and
// bounded object reads, resolving branches and merge bases, reading blobs with a size
// limit, and the one raw tree differ (Trees) used by the versions index and partial
// loads.
//
// A repository opened here reads the objects of its pack files with a reader of its
// own (pack.go): the .idx and the pack are mapped, an object is found by a binary
// search of the idx and its deltas by offset, where go-git builds a table of the whole
// pack (offset to hash) before its first read. Loose objects, alternates and anything
// unusual are read by go-git, with its pack file descriptors kept open until Close
// (go-git's PlainOpen reopens the pack for every object). Neither inflates an object
// over LargeObject bytes to learn its size (go-git's LargeObjectThreshold): the size
// comes from the object's header, so a blob over a limit is refused for the cost of a
// header. go-git's reads go through one lock per repository (its storage fills plain
// maps on first use and is not safe for concurrent use); the pack reader is safe for
// concurrent use. So a repository opened here may be shared between goroutines.
package gitrepo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// LargeObject is the size above which an object is streamed from disk when read,
// never held whole in memory by the storage (nor inflated to learn its size).
const LargeObject = 1 << 20

// Repo is an open repository; Root is its working tree ("" for a bare repository),
// GitDir the folder that holds its HEAD and index (a linked worktree's own).
type Repo struct {
	*git.Repository
	Root, GitDir string
	// ListingCache is the file where WorktreeDiff keeps the working tree's folder
	// listings between runs ("": none; see listings.go).
	ListingCache string
	// FSMonitorBaseline is the file where WorktreeDiff keeps what it found, with the
	// token of the file system monitor hook that core.fsmonitor names ("": the hook
	// is not used; see fsmonitor.go).
	FSMonitorBaseline string
	close             func() error
}

// Close releases the pack file descriptors.
func (r *Repo) Close() error { return r.close() }

// CommonDir is the Git folder the repository's worktrees share (its objects and
// refs): GitDir itself, or for a linked worktree the folder its commondir names.
func (r *Repo) CommonDir() string { return commonDir(r.GitDir) }

// Open opens the repository that contains path: a working tree (its .git folder is
// found in path or a parent) or a bare repository.
func Open(path string) (*Repo, error) { return OpenWithCache(path, DefaultObjectCache) }

// DefaultObjectCache is the size of the cache of inflated objects (delta bases,
// trees, blobs) a repository opened with Open keeps: go-git's default.
const DefaultObjectCache = 96 * cache.MiByte

// PassObjectCache is the object cache for a pass that reads each object about once:
// a history walk (the versions index and its audit) or the load of one tree. There
// the cache serves delta bases only; go-git's default (96 MiB of content, about
// 140 MB of heap) stays full to the end of the pass, and a report held two. 32 MiB
// costs no CPU on a packed history (docs/performance.md, "Health report").
const PassObjectCache = 32 * cache.MiByte

// OpenWithCache is Open with an object cache of cacheBytes: a long-running process
// that reads each object about once (serve) keeps memory with a smaller one.
func OpenWithCache(path string, cacheBytes cache.FileSize) (*Repo, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	for dir := abs; ; dir = filepath.Dir(dir) {
		gitDir := filepath.Join(dir, ".git")
		if fi, err := os.Stat(gitDir); err == nil && fi.IsDir() {
			return open(gitDir, dir, cacheBytes)
		} else if err == nil && fi.Mode().IsRegular() {
			// A linked worktree (git worktree add) or a submodule: .git is a file
			// naming the real git folder.
			target, err := gitFileTarget(gitDir)
			if err != nil {
				return nil, err
			}
			return open(target, dir, cacheBytes)
		}
		if isBare(dir) {
			return open(dir, "", cacheBytes)
		}
		if filepath.Dir(dir) == dir {
			return nil, fmt.Errorf("%s is not inside a Git repository: %w", path, git.ErrRepositoryNotExists)
		}
	}
}

func isBare(dir string) bool {
	for _, p := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			return false
		}
	}
	return true
}

// gitFileTarget reads a .git file ("gitdir: <path>", the path relative to the file's
// folder when not absolute).
func gitFileTarget(file string) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", file, err)
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return "", fmt.Errorf("%s is a file but not a gitdir link (\"gitdir: <path>\"); it is not a Git repository", file)
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(file), target)
	}
	return target, nil
}

// gitFS is the file system of a git folder: a linked worktree's folder holds its own
// HEAD and index and names, in its commondir file, the folder that holds the objects
// and refs it shares with the main worktree.
func gitFS(gitDir string) billy.Filesystem {
	common := commonDir(gitDir)
	if common == gitDir {
		return osfs.New(gitDir)
	}
	return dotgit.NewRepositoryFilesystem(osfs.New(gitDir), osfs.New(common))
}

// commonDir is the folder that holds a git folder's objects and refs: the folder
// itself, or the one its commondir file names (a linked worktree's).
func commonDir(gitDir string) string {
	data, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	common := strings.TrimSpace(string(data))
	if !filepath.IsAbs(common) {
		common = filepath.Join(gitDir, common)
	}
	return common
}

func open(gitDir, root string, cacheBytes cache.FileSize) (*Repo, error) {
	st := &lockedStorage{Storage: filesystem.NewStorageWithOptions(gitFS(gitDir), cache.NewObjectLRU(cacheBytes),
		filesystem.Options{KeepDescriptors: true, LargeObjectThreshold: LargeObject}),
		packs: newPacks(filepath.Join(commonDir(gitDir), "objects"), int64(cacheBytes))}
	var wt = osfs.New(root)
	if root == "" {
		wt = nil
	}
	repo, err := git.Open(st, wt)
	if err != nil {
		st.Close()
		if errors.Is(err, git.ErrRepositoryNotExists) {
			return nil, fmt.Errorf("open %s: %w", gitDir, err)
		}
		return nil, err
	}
	return &Repo{Repository: repo, Root: root, GitDir: gitDir, close: st.Close}, nil
}
