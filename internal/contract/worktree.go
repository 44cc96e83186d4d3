package contract

import (
	"path"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// WorkTree is a Git working tree read as the commit it was checked out from, except
// for the paths that differ from that commit (gitrepo's WorktreeDiff): those, and
// every folder above them, are read from the working directory. It answers every
// read exactly as a DirSource over the working directory would, while a check of a
// change reads only what the change touched: the commit's trees name what did not
// change (its subject names are cached per domain tree, folder listings compared by
// tree hash).
type WorkTree struct {
	commit *GitSource
	dir    *DirSource
	// changed holds the paths that differ (files, links, folders new or gone as a
	// whole): they and everything under them are read from the working directory.
	changed map[string]bool
	// above holds the folders above a changed path ("." for the root): listed from
	// the working directory.
	above map[string]bool
}

// NewWorkTree returns the working tree at root, checked out from commit, where paths
// and dirs (WorktreeDiff's Paths and Dirs) differ from the commit.
func NewWorkTree(commit *GitSource, root string, paths, dirs []string) *WorkTree {
	w := &WorkTree{commit: commit, dir: NewDirSource(root),
		changed: make(map[string]bool, len(paths)+len(dirs)), above: map[string]bool{}}
	for _, p := range append(paths, dirs...) {
		w.changed[p] = true
		for d := path.Dir(p); !w.above[d]; d = path.Dir(d) {
			w.above[d] = true
			if d == "." {
				break
			}
		}
	}
	return w
}

// Describe names the working directory, as a DirSource does.
func (w *WorkTree) Describe() string { return w.dir.Describe() }

// Commit is the commit the working tree was checked out from.
func (w *WorkTree) Commit() *GitSource { return w.commit }

// Repository is the repository a revision is read from.
func (g *GitSource) Repository() *git.Repository { return g.repo }

// CheckPath returns an error when name is not a clean slash-separated path inside the
// repository (what every Source refuses to read).
func CheckPath(name string) error { return cleanRel(name) }

// live reports whether name or a folder above it changed.
func (w *WorkTree) live(name string) bool {
	for p := name; ; {
		if w.changed[p] {
			return true
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return false
		}
		p = p[:i]
	}
}

// ReadDir lists a folder: from the working directory when something in it changed,
// else from the commit. What the commit cannot list is asked of the working directory,
// whose error is the one to report (a DirSource's).
func (w *WorkTree) ReadDir(dir string) ([]DirEntry, error) {
	if dir == "" || dir == "." {
		if w.above["."] {
			return w.dir.ReadDir(dir)
		}
	} else if cleanRel(dir) != nil || w.above[dir] || w.live(dir) {
		return w.dir.ReadDir(dir)
	}
	if es, err := w.commit.ReadDir(dir); err == nil {
		return es, nil
	}
	return w.dir.ReadDir(dir)
}

// ReadFile reads a file: from the working directory when it changed, else from the
// commit (what the commit cannot read is asked of the working directory, as ReadDir).
func (w *WorkTree) ReadFile(name string, limit int64) ([]byte, error) {
	if cleanRel(name) != nil || w.live(name) {
		return w.dir.ReadFile(name, limit)
	}
	if data, err := w.commit.ReadFile(name, limit); err == nil {
		return data, nil
	}
	return w.dir.ReadFile(name, limit)
}

// ChangedSubjectDirs lists the subject folders contracts/<domain>/<name> under which
// something differs from the commit.
func (w *WorkTree) ChangedSubjectDirs() []string {
	seen := map[string]bool{}
	var out []string
	for p := range w.changed {
		parts := strings.SplitN(p, "/", 4)
		if len(parts) < 3 || parts[0] != ContractsDir {
			continue
		}
		d := strings.Join(parts[:3], "/")
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// subtrees returns the commit's tree hash of each folder in dir that the working tree
// has as the commit has it (nil when dir itself changed).
func (w *WorkTree) subtrees(dir string) map[string]plumbing.Hash {
	if w.live(dir) {
		return nil
	}
	out := w.commit.subtrees(dir)
	for name := range out {
		p := dir + "/" + name
		if w.above[p] || w.changed[p] {
			delete(out, name)
		}
	}
	return out
}
