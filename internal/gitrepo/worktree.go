package gitrepo

import (
	"crypto/sha1" //nolint:gosec // Git's object names are SHA-1
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// WorktreeDiff is what differs between a working tree and a commit, found as `git
// status` finds it: the index's stat data says which files may have changed since
// they were staged (only those are hashed), the index's tree is compared with the
// commit's by tree hash (only the trees that differ are read), and the folders are
// listed for files the index does not know.
type WorktreeDiff struct {
	// Paths are the slash-separated paths, sorted, whose content or kind differs
	// between the working tree and the commit: files edited, added (staged or not,
	// ignored ones too), deleted, turned into links or folders, and whatever the
	// index holds in a merge conflict or as intent-to-add.
	Paths []string
	// Dirs are the folders, sorted, that are new or gone as a whole: folders of the
	// working tree that hold nothing the index tracks (empty ones too, and the Git
	// folder itself), links or files where the index has a folder, and folders of
	// the commit the index no longer has.
	Dirs []string
	// Hashed counts the files read because their stat data did not show them clean.
	Hashed int
	// Listed counts the folders listed (not taken from Repo.ListingCache).
	Listed int
	// TreesHashed counts the index's folders whose tree name was computed from their
	// entries, not taken from the index's cache-tree.
	TreesHashed int
	// Monitor says how the file system monitor was used: "" (none: core.fsmonitor
	// names no hook, or Repo.FSMonitorBaseline is not set), "incremental" (only what
	// the hook reported and the baseline's differing files were looked at), or "full
	// scan: " and why (fsmonitor.go).
	Monitor string
}

// maxHashed is the size above which a file whose stat data changed counts as changed
// without being read: no reader of a contract tree reads files that large.
const maxHashed = 64 << 20

// WorktreeDiff compares r's working tree with the commit whose root tree is tree
// (usually HEAD's). It reads the index but never writes it: a file whose stat data
// is stale is hashed at every call until Git refreshes the index (`git status`).
// With r.ListingCache set, a folder unchanged since an earlier call is not listed
// again (listings.go). With r.FSMonitorBaseline set and a core.fsmonitor hook in the
// repository's config, only what the hook reports changed since the last call is
// looked at (fsmonitor.go).
func (r *Repo) WorktreeDiff(tree plumbing.Hash) (*WorktreeDiff, error) {
	if r.Root == "" {
		return nil, errors.New("a bare repository has no working tree")
	}
	mon := r.openMonitor()
	idx, err := readIndex(filepath.Join(r.GitDir, "index"), mon.known())
	if errors.Is(err, errIndexFormat) {
		var gi *index.Index
		if gi, err = r.Storer.Index(); err == nil {
			idx, err = indexFromGoGit(gi)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read the Git index: %w", err)
	}
	defer idx.close() // every name of it kept is a copy
	w := &worktreeDiffer{root: r.Root, trees: NewTrees(r.Storer), index: idx, indexTime: idx.modTime,
		paths: map[string]bool{}, dirs: map[string]bool{},
		stale: map[string]bool{}, wpaths: map[string]bool{}, wdirs: map[string]bool{},
		treeNames: map[string]plumbing.Hash{}}
	// Entries the index holds at stage 0 and not as intent-to-add, in path order: the
	// tree the next commit would have (the index's own slice when that is all of it).
	entries := idx.entries
	if slices.ContainsFunc(entries, func(e indexEntry) bool { return e.stage() != 0 || e.intentToAdd() }) {
		entries = make([]indexEntry, 0, len(idx.entries))
		for _, e := range idx.entries {
			if e.stage() != 0 || e.intentToAdd() {
				w.paths[e.Name] = true
				continue
			}
			entries = append(entries, e)
		}
	}
	if !slices.IsSortedFunc(entries, byName) {
		slices.SortStableFunc(entries, byName)
	}
	mon.start(idx, len(entries))
	if mon != nil && mon.base != nil {
		if err := w.examine(entries, mon.base, mon.answer); err != nil {
			return nil, err
		}
	} else if err := r.scan(w, entries); err != nil {
		return nil, err
	}
	if len(entries) == len(idx.entries) {
		// The cache-tree counts every entry: with conflicts or intent-to-add entries
		// left out, its counts are not the tree's (and Git keeps such folders invalid).
		w.ctree = idx.tree
	}
	if err := w.compareTree("", entries, tree, w.ctree.root()); err != nil {
		return nil, err
	}
	mon.save(w)
	out := &WorktreeDiff{Hashed: w.hashed, Listed: w.listed, TreesHashed: w.treesHashed}
	if mon != nil {
		out.Monitor = mon.reason
	}
	// Copies: an index entry's name is a part of the index file, unmapped on return.
	for _, set := range []map[string]bool{w.paths, w.stale, w.wpaths} {
		for p := range set {
			out.Paths = append(out.Paths, strings.Clone(p))
		}
	}
	for _, set := range []map[string]bool{w.dirs, w.wdirs} {
		for d := range set {
			out.Dirs = append(out.Dirs, strings.Clone(d))
		}
	}
	slices.Sort(out.Paths)
	out.Paths = slices.Compact(out.Paths)
	slices.Sort(out.Dirs)
	out.Dirs = slices.Compact(out.Dirs)
	return out, nil
}

// scan compares every entry's stat data with its file's and lists every folder (those
// unchanged since r.ListingCache's listing from the cache).
func (r *Repo) scan(w *worktreeDiffer, entries []indexEntry) error {
	if r.ListingCache != "" && trustedFS(r.Root) {
		w.cache = openListings(r.ListingCache, r.Root)
	}
	for i := range entries {
		w.stat(&entries[i])
	}
	if err := w.walk("", entries, true); err != nil {
		return err
	}
	w.cache.save()
	return nil
}

func byName(a, b indexEntry) int { return strings.Compare(a.Name, b.Name) }

type worktreeDiffer struct {
	root      string
	trees     *Trees
	index     *indexFile
	indexTime time.Time
	// paths and dirs are what the index alone says (its tree against the commit's,
	// conflicts, intent-to-add); stale are the entries whose file differs, wpaths and
	// wdirs what the folder listings found: the part a file system monitor's baseline
	// keeps.
	paths, dirs          map[string]bool
	stale, wpaths, wdirs map[string]bool
	hashed               int
	listed               int
	treesHashed          int
	cache                *listings  // nil: every folder is listed
	ctree                *cacheTree // nil: every folder's tree name is computed
	treeNames            map[string]plumbing.Hash
}

// stat compares one entry of the index with the working tree's file: the same stat
// data means the same content, unless the file was written in the same instant as the
// index (racy Git: then it is hashed, as Git hashes it).
func (w *worktreeDiffer) stat(e *indexEntry) {
	name := w.abs(e.Name)
	fi, err := os.Lstat(name)
	if err != nil {
		w.stale[e.Name] = true // deleted, or a parent is no longer a folder
		return
	}
	switch e.Mode {
	case filemode.Regular, filemode.Executable:
		if !fi.Mode().IsRegular() || (fi.Mode()&0o111 != 0) != (e.Mode == filemode.Executable) {
			w.stale[e.Name] = true
			return
		}
	case filemode.Symlink:
		if fi.Mode()&fs.ModeSymlink == 0 {
			w.stale[e.Name] = true
			return
		}
	default: // a submodule, or a mode no tree holds: read from the working tree
		w.stale[e.Name] = true
		return
	}
	if sameStat(w.index.stat(e), fi) && fi.ModTime().Before(w.indexTime) {
		return
	}
	if fi.Size() > maxHashed {
		w.stale[e.Name] = true
		return
	}
	w.hashed++
	h, err := w.hash(name, fi)
	if err != nil {
		w.stale[e.Name] = true // unreadable: the working tree's reader reports it
		return
	}
	if h != e.Hash {
		w.stale[e.Name] = true
	}
}

// sameStat compares what Git's index keeps of a file with the file: modification
// time, size, and the inode and change time where the index holds them (go-git's
// and Git's do; an index written without them is compared on the rest).
func sameStat(e entryStat, fi fs.FileInfo) bool {
	if !e.mtime.Equal(fi.ModTime()) || e.size != uint32(fi.Size()) { //nolint:gosec // the index keeps the size modulo 2^32, as Git does
		return false
	}
	ino, ctime := inodeAndCtime(fi)
	if e.ino != 0 && ino != 0 && e.ino != ino {
		return false
	}
	if !e.ctime.IsZero() && !ctime.IsZero() && !e.ctime.Equal(ctime) {
		return false
	}
	return true
}

// hash returns the Git blob name of a file (or of a link's target).
func (w *worktreeDiffer) hash(name string, fi fs.FileInfo) (plumbing.Hash, error) {
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(name)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		return plumbing.ComputeHash(plumbing.BlobObject, []byte(target)), nil
	}
	f, err := os.Open(name)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer func() { _ = f.Close() }() // read only
	data, err := io.ReadAll(io.LimitReader(f, maxHashed+1))
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return plumbing.ComputeHash(plumbing.BlobObject, data), nil
}

// compareTree compares the index's entries under dir (entries, all of them under dir)
// with the commit's tree of dir (ZeroHash when the commit has none), reading only the
// commit's trees whose hash differs from the index's. node is dir's in the index's
// cache-tree (-1: none).
func (w *worktreeDiffer) compareTree(dir string, entries []indexEntry, tree plumbing.Hash, node int) error {
	if tree.IsZero() {
		for _, e := range entries {
			w.paths[e.Name] = true
		}
		return nil
	}
	if w.treeHash(dir, entries, node) == tree {
		return nil
	}
	subs := w.ctree.children(node)
	head, err := w.trees.Entries(tree)
	if err != nil {
		return err
	}
	seen := make(map[string]bool, len(head))
	byName := make(map[string]object.TreeEntry, len(head))
	for _, he := range head {
		byName[he.Name] = he
	}
	for child := range children(dir, entries) {
		seen[child.name] = true
		he, ok := byName[child.name]
		p := join(dir, child.name)
		if !child.dir {
			e := child.entries[0]
			if !ok || he.Hash != e.Hash || he.Mode != e.Mode {
				w.paths[p] = true
			}
			continue
		}
		sub := plumbing.ZeroHash
		if ok && he.Mode == filemode.Dir {
			sub = he.Hash
		} else if ok {
			w.paths[p] = true // a file or link of the commit's is a folder in the index
		}
		if err := w.compareTree(p, child.entries, sub, subNode(subs, child.name)); err != nil {
			return err
		}
	}
	for _, he := range head {
		if seen[he.Name] {
			continue
		}
		p := join(dir, he.Name)
		w.paths[p] = true
		if he.Mode == filemode.Dir {
			w.dirs[p] = true
			if err := w.commitFiles(p, he.Hash); err != nil {
				return err
			}
		}
	}
	return nil
}

// commitFiles adds every path of the commit's tree of dir: a folder the index no
// longer has.
func (w *worktreeDiffer) commitFiles(dir string, tree plumbing.Hash) error {
	es, err := w.trees.Entries(tree)
	if err != nil {
		return err
	}
	for _, e := range es {
		p := dir + "/" + e.Name
		w.paths[p] = true
		if e.Mode == filemode.Dir {
			if err := w.commitFiles(p, e.Hash); err != nil {
				return err
			}
		}
	}
	return nil
}

// child is one name in a folder of the index: a file (one entry) or a folder (the
// entries under it).
type child struct {
	name    string
	dir     bool
	entries []indexEntry
}

// children yields the names directly in dir of entries (all under dir, in path
// order, where a folder's entries are consecutive).
func children(dir string, entries []indexEntry) func(func(child) bool) {
	skip := 0
	if dir != "" {
		skip = len(dir) + 1
	}
	return func(yield func(child) bool) {
		for i := 0; i < len(entries); {
			rest := entries[i].Name[skip:]
			slash := strings.IndexByte(rest, '/')
			if slash < 0 {
				if !yield(child{name: rest, entries: entries[i : i+1]}) {
					return
				}
				i++
				continue
			}
			j := runEnd(entries, i, entries[i].Name[:skip+slash+1])
			if !yield(child{name: rest[:slash], dir: true, entries: entries[i:j]}) {
				return
			}
			i = j
		}
	}
}

// runEnd returns the end of the run of entries from i (sorted, the first of them
// under prefix) whose names start with prefix: by steps that double, then a binary
// search, so that a folder of the root is not scanned entry by entry to find its end
// (400,000 entries at 100,000 subjects).
func runEnd(entries []indexEntry, i int, prefix string) int {
	in := func(j int) bool { return j < len(entries) && strings.HasPrefix(entries[j].Name, prefix) }
	lo, step := i, 1 // in(lo) holds
	for in(lo + step) {
		lo += step
		step *= 2
	}
	hi := min(lo+step, len(entries)) // !in(hi), or the end
	return lo + 1 + sort.Search(hi-lo-1, func(k int) bool { return !in(lo + 1 + k) })
}

// treeHash is the name of the tree object Git would write for the entries under dir:
// the cache-tree's when its node for dir (-1: none) is valid and covers as many
// entries.
func (w *worktreeDiffer) treeHash(dir string, entries []indexEntry, node int) plumbing.Hash {
	if h, ok := w.ctree.valid(node, len(entries)); ok {
		return h
	}
	if h, ok := w.treeNames[dir]; ok {
		return h
	}
	w.treesHashed++
	subs := w.ctree.children(node)
	var buf []byte
	for c := range children(dir, entries) {
		mode, h := filemode.Dir, plumbing.ZeroHash
		if c.dir {
			h = w.treeHash(join(dir, c.name), c.entries, subNode(subs, c.name))
		} else {
			mode, h = c.entries[0].Mode, c.entries[0].Hash
		}
		buf = strconv.AppendUint(buf, uint64(mode), 8)
		buf = append(buf, ' ')
		buf = append(buf, c.name...)
		buf = append(buf, 0)
		buf = append(buf, h[:]...)
	}
	h := objectName(plumbing.TreeObject, buf)
	w.treeNames[dir] = h // compareTree asks again for the folders below a tree that differs
	return h
}

// subNode is the cache-tree node of a subfolder (-1: none).
func subNode(subs map[string]int, name string) int {
	if i, ok := subs[name]; ok {
		return i
	}
	return -1
}

// objectName is Git's name of an object: the SHA-1 of its header and content.
func objectName(t plumbing.ObjectType, content []byte) plumbing.Hash {
	h := sha1.New() //nolint:gosec // Git's object names are SHA-1
	h.Write(t.Bytes())
	h.Write([]byte{' '})
	h.Write(strconv.AppendInt(nil, int64(len(content)), 10))
	h.Write([]byte{0})
	h.Write(content)
	var out plumbing.Hash
	copy(out[:], h.Sum(nil))
	return out
}

// walk lists the working tree's folder dir for what the index does not track under
// it (entries: the index's entries under dir), and with deep the tracked folders
// below it.
func (w *worktreeDiffer) walk(dir string, entries []indexEntry, deep bool) error {
	kids := children(dir, entries)
	des, exact, err := w.list(dir, kids)
	if err != nil || des == nil {
		return err // nil when the folder is gone: the stat of its files saw them gone
	}
	if exact { // nothing untracked here: only the folders below to walk
		for c := range kids {
			if c.dir && deep {
				if err := w.walk(join(dir, c.name), c.entries, true); err != nil {
					return err
				}
			}
		}
		return nil
	}
	tracked := map[string]child{}
	for c := range kids {
		tracked[c.name] = c
	}
	for _, de := range des {
		p := join(dir, de.name)
		if dir == "" && de.name == ".git" {
			w.wdirs[p] = true // never tracked: read from the working tree, as it is
			continue
		}
		c, known := tracked[de.name]
		switch {
		case de.dir && known && c.dir:
			if !deep {
				continue
			}
			if err := w.walk(p, c.entries, true); err != nil {
				return err
			}
		case de.dir:
			w.wdirs[p] = true
			if err := w.untracked(p); err != nil {
				return err
			}
		case known && c.dir:
			w.wdirs[p] = true // a link or a file where the index has a folder
			w.wpaths[p] = true
		case !known:
			w.wpaths[p] = true
		}
	}
	return nil
}

// list returns the entries of the working tree's folder dir (nil when it is gone or
// cannot be read), from the listing cache when dir is unchanged since it was listed.
// kids are the index's children of dir (nil for a folder the index does not track);
// exact says the entries are exactly those, each of the same kind (then the cache
// keeps only their digest).
func (w *worktreeDiffer) list(dir string, kids func(func(child) bool)) (des []dirEntry, exact bool, err error) {
	abs := w.abs(dir)
	stamp, stamped := stampDir(abs)
	key := dirKey(dir)
	if stamped && w.cache != nil {
		if c, ok := w.cache.lookup(key, stamp); ok {
			switch {
			case !c.tracked:
				return c.entries, false, nil
			case kids != nil && c.digest == childDigest(kids):
				return []dirEntry{}, true, nil
			}
		}
	}
	w.listed++
	read, err := os.ReadDir(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.ENOTDIR) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("list %s: %w", abs, err)
	}
	des = make([]dirEntry, len(read))
	for i, de := range read {
		des[i] = dirEntry{name: de.Name(), dir: de.IsDir()}
	}
	exact = kids != nil && sameChildren(des, kids)
	if stamped && w.cache != nil {
		c := listing{stamp: stamp, entries: des}
		if exact {
			c = listing{stamp: stamp, tracked: true, digest: childDigest(kids)}
		}
		w.cache.keep(key, c, w.indexTime.UnixNano())
	}
	return des, exact, nil
}

// sameChildren reports whether a folder's entries are the index's children of it,
// each of the same kind (folder or not).
func sameChildren(des []dirEntry, kids func(func(child) bool)) bool {
	n := 0
	for k := range kids {
		i, ok := slices.BinarySearchFunc(des, k.name, func(e dirEntry, name string) int { return strings.Compare(e.name, name) })
		if !ok || des[i].dir != k.dir {
			return false
		}
		n++
	}
	return n == len(des)
}

// untracked adds every path under the folder dir, which the index does not track.
func (w *worktreeDiffer) untracked(dir string) error {
	des, _, err := w.list(dir, nil)
	if err != nil || des == nil {
		return nil //nolint:nilerr // the folder is in Dirs: its reader reports what it cannot read
	}
	for _, de := range des {
		p := dir + "/" + de.name
		w.wpaths[p] = true
		if de.dir {
			w.wdirs[p] = true
			if err := w.untracked(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// abs is the file name of the working tree's path p ("" for the root): index paths are
// clean, so joining them needs no filepath.Clean (a tenth of the stat pass's time at
// 400,000 entries).
func (w *worktreeDiffer) abs(p string) string {
	if p == "" {
		return w.root
	}
	return w.root + string(filepath.Separator) + filepath.FromSlash(p)
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
