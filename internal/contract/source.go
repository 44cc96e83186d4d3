package contract

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/contractbot/contractbot/internal/gitrepo"
	gitobject "github.com/go-git/go-git/v5/plumbing/object"
)

// Size limits: a file over its limit is reported, never read whole.
const (
	MaxYAMLBytes   = 1 << 20 // 1 MiB for a YAML file
	MaxSchemaBytes = 8 << 20 // 8 MiB for a schema file
)

// ErrTooLarge is returned by a Source for a file over the limit it was asked to honour
// (the same error as gitrepo's, so either is recognised by errors.Is).
var ErrTooLarge = gitrepo.ErrTooLarge

// ErrSymlink is returned for a symbolic link: the loader never follows links.
var ErrSymlink = errors.New("symbolic link")

// DirEntry is one item of a directory listing.
type DirEntry struct {
	Name    string
	Dir     bool
	Symlink bool
}

// Source is a read-only view of a repository tree: a working directory or a Git
// revision. Paths are slash-separated and relative to the repository root.
type Source interface {
	// ReadDir lists a directory, sorted by name; fs.ErrNotExist when it is absent.
	ReadDir(dir string) ([]DirEntry, error)
	// ReadFile reads a regular file of at most limit bytes: fs.ErrNotExist,
	// ErrSymlink and ErrTooLarge (wrapped) tell the caller what went wrong.
	ReadFile(name string, limit int64) ([]byte, error)
	// Describe names the source in messages ("directory /x", "revision abc123").
	Describe() string
}

// cleanRel checks that name is a clean relative path inside the repository.
func cleanRel(name string) error {
	if name == "" || path.IsAbs(name) || strings.HasPrefix(name, "/") || filepath.IsAbs(name) {
		return fmt.Errorf("%q is not a path relative to the repository", name)
	}
	if c := path.Clean(name); c != name && c+"/" != name || c == ".." || strings.HasPrefix(c, "../") {
		return fmt.Errorf("%q leaves the repository or is not a clean path", name)
	}
	return nil
}

// DirSource reads a working directory. It refuses symbolic links and paths that
// leave the root.
type DirSource struct {
	Root string
	// checked holds the directories already known to be real directories (no link
	// on the way), so a file read costs one Lstat, not one per path component.
	checked sync.Map
}

// NewDirSource returns a Source over the directory root.
func NewDirSource(root string) *DirSource { return &DirSource{Root: root} }

// Describe names the directory.
func (d *DirSource) Describe() string { return "directory " + d.Root }

func (d *DirSource) abs(name string) (string, error) { return d.absOf(name, true) }

// absOf is abs that checks the last component only when last is set: a caller that
// opens it with openNoFollow learns of a link from the open itself.
func (d *DirSource) absOf(name string, last bool) (string, error) {
	if name == "." || name == "" {
		return d.Root, nil
	}
	if err := cleanRel(name); err != nil {
		return "", err
	}
	// Refuse a link anywhere on the way, not only at the end.
	cur := d.Root
	parts := strings.Split(name, "/")
	for i, part := range parts {
		cur = filepath.Join(cur, part)
		if i < len(parts)-1 {
			if _, ok := d.checked.Load(cur); ok {
				continue
			}
		} else if !last {
			break
		}
		fi, err := os.Lstat(cur)
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("%s: %w", name, ErrSymlink)
		}
		if fi.IsDir() {
			d.checked.Store(cur, true)
		}
	}
	return cur, nil
}

// ReadDir lists a directory.
func (d *DirSource) ReadDir(dir string) ([]DirEntry, error) {
	p, err := d.abs(dir)
	if err != nil {
		return nil, err
	}
	des, err := os.ReadDir(p)
	if err != nil {
		return nil, err
	}
	out := make([]DirEntry, 0, len(des))
	for _, de := range des {
		out = append(out, DirEntry{Name: de.Name(), Dir: de.IsDir(), Symlink: de.Type()&fs.ModeSymlink != 0})
	}
	return out, nil
}

// ReadFile reads a file of at most limit bytes.
func (d *DirSource) ReadFile(name string, limit int64) ([]byte, error) {
	// The file itself is opened without following a link where the system can
	// (openNoFollow): an Lstat per file was 400,000 system calls of a 100,000-subject
	// lint that the parse-only floor does not make.
	p, err := d.absOf(name, openNoFollow == 0)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_RDONLY|openNoFollow, 0)
	if isLinkRefused(err) {
		return nil, fmt.Errorf("%s: %w", name, ErrSymlink)
	}
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only: nothing to flush
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory: %w", name, fs.ErrInvalid)
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes: %w", name, fi.Size(), ErrTooLarge)
	}
	// One allocation of the stat's size (a bytes.Buffer doubled it: half of a
	// 50,000-subject tree's live heap was spare capacity); the file may still grow
	// while it is read.
	data, n, err := gitrepo.ReadSized(f, fi.Size(), limit)
	if err != nil {
		return nil, err
	}
	if n > limit {
		return nil, fmt.Errorf("%s: %w", name, ErrTooLarge)
	}
	return data, nil
}

// GitSource reads one commit of a Git repository through go-git: no checkout, and
// only the trees and blobs that are asked for are read.
type GitSource struct {
	repo   *git.Repository
	commit *gitobject.Commit
	root   *gitobject.Tree

	// go-git trees and object storage are not safe for concurrent use: every read
	// holds mu. Parsing, the expensive part of a load, runs outside it.
	mu     sync.Mutex
	trees  map[string]*gitobject.Tree
	closer func() error
}

// OpenRevision resolves rev ("HEAD~1", a branch, a hash) in the repository that holds
// dir. Close the source when done: it keeps the pack files open for fast reads.
func OpenRevision(dir, rev string) (*GitSource, error) {
	repo, err := gitrepo.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("open git repository %s: %w", dir, err)
	}
	g, err := NewGitSource(repo.Repository, rev)
	if err != nil {
		repo.Close()
		return nil, err
	}
	g.closer = repo.Close
	return g, nil
}

// Close releases what OpenRevision opened; it does nothing for NewGitSource's.
func (g *GitSource) Close() error {
	if g.closer == nil {
		return nil
	}
	return g.closer()
}

// NewGitSource resolves rev in an open repository.
func NewGitSource(repo *git.Repository, rev string) (*GitSource, error) {
	h, err := repo.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return nil, fmt.Errorf("resolve revision %q: %w", rev, err)
	}
	c, err := repo.CommitObject(*h)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", h, err)
	}
	t, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("read tree of %s: %w", h, err)
	}
	return &GitSource{repo: repo, commit: c, root: t, trees: map[string]*gitobject.Tree{}}, nil
}

// forget lets go of the folders' trees read so far but contracts/ and its domains':
// a pass over every subject folder (EachSubjectWithoutSchemas) would otherwise keep
// them all (at 100,000 subjects about 250 MB, docs/performance.md).
func (g *GitSource) forget() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for dir := range g.trees {
		if strings.Count(dir, "/") > 1 {
			delete(g.trees, dir)
		}
	}
}

// Commit returns the commit the source reads.
func (g *GitSource) Commit() *gitobject.Commit { return g.commit }

// Describe names the revision.
func (g *GitSource) Describe() string { return "revision " + g.commit.Hash.String()[:12] }

// tree returns the tree at dir, walking down from the nearest cached parent. The
// caller holds g.mu.
func (g *GitSource) tree(dir string) (*gitobject.Tree, error) {
	if dir == "." || dir == "" {
		return g.root, nil
	}
	if err := cleanRel(dir); err != nil {
		return nil, err
	}
	if t, ok := g.trees[dir]; ok {
		return t, nil
	}
	parentDir, base := path.Split(dir)
	parent, err := g.tree(strings.TrimSuffix(parentDir, "/"))
	if err != nil {
		return nil, err
	}
	var entry *gitobject.TreeEntry
	for i := range parent.Entries {
		if parent.Entries[i].Name == base {
			entry = &parent.Entries[i]
			break
		}
	}
	if entry == nil || entry.Mode != filemode.Dir {
		if entry != nil && entry.Mode == filemode.Symlink {
			return nil, fmt.Errorf("%s: %w", dir, ErrSymlink)
		}
		return nil, fmt.Errorf("%s: %w", dir, fs.ErrNotExist)
	}
	t, err := g.repo.TreeObject(entry.Hash)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", dir, err)
	}
	g.trees[dir] = t
	return t, nil
}

// ReadDir lists a tree.
func (g *GitSource) ReadDir(dir string) ([]DirEntry, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	t, err := g.tree(dir)
	if err != nil {
		return nil, err
	}
	out := make([]DirEntry, 0, len(t.Entries))
	for _, e := range t.Entries {
		out = append(out, DirEntry{Name: e.Name, Dir: e.Mode == filemode.Dir, Symlink: e.Mode == filemode.Symlink})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ReadFile reads a blob of at most limit bytes. The size comes from the object's
// header before anything is inflated (gitrepo.ReadBlob), and the content is read
// through an io.LimitReader.
func (g *GitSource) ReadFile(name string, limit int64) ([]byte, error) {
	if err := cleanRel(name); err != nil {
		return nil, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	dir, base := path.Split(name)
	t, err := g.tree(strings.TrimSuffix(dir, "/"))
	if err != nil {
		return nil, err
	}
	var entry *gitobject.TreeEntry
	for i := range t.Entries {
		if t.Entries[i].Name == base {
			entry = &t.Entries[i]
			break
		}
	}
	if entry == nil {
		return nil, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
	}
	switch entry.Mode {
	case filemode.Symlink:
		return nil, fmt.Errorf("%s: %w", name, ErrSymlink)
	case filemode.Dir, filemode.Submodule:
		return nil, fmt.Errorf("%s is a directory: %w", name, fs.ErrInvalid)
	}
	data, err := gitrepo.ReadBlob(g.repo.Storer, entry.Hash, limit)
	var tl *gitrepo.TooLargeError
	if errors.As(err, &tl) {
		return nil, fmt.Errorf("%s is %d bytes: %w", name, tl.Size, ErrTooLarge)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return data, nil
}

// MemSource is a tree held in memory, for tests and for trees assembled from API
// responses. Keys are slash-separated paths; a value of nil is a symbolic link.
type MemSource map[string][]byte

// Describe names the source.
func (m MemSource) Describe() string { return "in-memory tree" }

// ReadDir lists the direct children of dir.
func (m MemSource) ReadDir(dir string) ([]DirEntry, error) {
	prefix := dir + "/"
	if dir == "." || dir == "" {
		prefix = ""
	}
	seen := map[string]DirEntry{}
	for p, v := range m {
		if !strings.HasPrefix(p, prefix) {
			continue
		}
		rest := p[len(prefix):]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			seen[rest[:i]] = DirEntry{Name: rest[:i], Dir: true}
		} else if rest != "" {
			seen[rest] = DirEntry{Name: rest, Symlink: v == nil}
		}
	}
	if len(seen) == 0 {
		return nil, fmt.Errorf("%s: %w", dir, fs.ErrNotExist)
	}
	out := make([]DirEntry, 0, len(seen))
	for _, e := range seen {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ReadFile returns a file's content.
func (m MemSource) ReadFile(name string, limit int64) ([]byte, error) {
	if err := cleanRel(name); err != nil {
		return nil, err
	}
	v, ok := m[name]
	switch {
	case !ok:
		if _, err := m.ReadDir(name); err == nil {
			return nil, fmt.Errorf("%s is a directory: %w", name, fs.ErrInvalid)
		}
		return nil, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
	case v == nil:
		return nil, fmt.Errorf("%s: %w", name, ErrSymlink)
	case int64(len(v)) > limit:
		return nil, fmt.Errorf("%s is %d bytes: %w", name, len(v), ErrTooLarge)
	}
	return v, nil
}

// Overlay is a tree with some files replaced or added: what a change would make of
// Base. It lets a proposed change be evaluated without committing it.
type Overlay struct {
	Base  Source
	Files map[string][]byte
}

// Describe names the overlay.
func (o *Overlay) Describe() string { return o.Base.Describe() + " with changes" }

// ReadDir lists the base directory merged with the overlay's files.
func (o *Overlay) ReadDir(dir string) ([]DirEntry, error) {
	entries, err := o.Base.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	extra, _ := MemSource(o.Files).ReadDir(dir)
	if err != nil && len(extra) == 0 {
		return nil, err
	}
	seen := map[string]bool{}
	for _, e := range entries {
		seen[e.Name] = true
	}
	for _, e := range extra {
		if !seen[e.Name] {
			entries = append(entries, e)
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return entries, nil
}

// ReadFile reads the overlay's version of a file, or the base's.
func (o *Overlay) ReadFile(name string, limit int64) ([]byte, error) {
	if _, ok := o.Files[name]; ok {
		return MemSource(o.Files).ReadFile(name, limit)
	}
	return o.Base.ReadFile(name, limit)
}

// Releasable is a source that lets go of the one it reads once a load is done
// (Release); a read after it fails with ErrReleased. A loaded tree keeps its source to
// read imports and schemas again on demand, and a Git source keeps every tree it read
// and the repository with its pack index and object cache: at 100,000 subjects about
// 250 MB that stayed live beside a tree that reads nothing after its load (one loaded
// without schemas, for a report or serve's pages).
type Releasable struct {
	src  atomic.Pointer[Source] // nil once released
	desc string
}

// ErrReleased is what a Releasable answers once released.
var ErrReleased = errors.New("the repository was let go after the tree was loaded")

// NewReleasable reads src until Release.
func NewReleasable(src Source) *Releasable {
	r := &Releasable{desc: src.Describe()}
	r.src.Store(&src)
	return r
}

// Release lets the source go.
func (r *Releasable) Release() { r.src.Store(nil) }

// ReadDir is the source's, until Release.
func (r *Releasable) ReadDir(dir string) ([]DirEntry, error) {
	src := r.src.Load()
	if src == nil {
		return nil, fmt.Errorf("list %s: %w", dir, ErrReleased)
	}
	return (*src).ReadDir(dir)
}

// ReadFile is the source's, until Release.
func (r *Releasable) ReadFile(name string, limit int64) ([]byte, error) {
	src := r.src.Load()
	if src == nil {
		return nil, fmt.Errorf("read %s: %w", name, ErrReleased)
	}
	return (*src).ReadFile(name, limit)
}

// Describe names what the source read.
func (r *Releasable) Describe() string { return r.desc }
