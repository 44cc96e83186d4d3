package gitrepo

import (
	"bytes"
	"crypto/sha1" //nolint:gosec // Git's index checksum is SHA-1
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// go-git's index decoder reads every field of every entry through encoding/binary's
// reflection and allocates each entry and name on its own: at 400,000 entries (100,000
// subjects) that was 0.8 s, a sixth of comparing the working tree. readIndex reads the
// versions Git writes by default (2, and 3 when an entry has extended flags) in one
// pass over the file, the entries in one slice and their names in one string; any
// other (version 4, a split index) is left to go-git.

// maxIndexFile bounds the index file read whole (about 40 MB at 400,000 entries).
const maxIndexFile = 1 << 30

// errIndexFormat says the index is of a kind readIndex leaves to go-git.
var errIndexFormat = errors.New("an index readIndex does not read")

// indexFile is an index file read by readIndex.
type indexFile struct {
	*index.Index
	// sum is the SHA-1 of the file up to its extensions (zero for no file): the same
	// sum, the same entries with the same stat data. Git rewrites the extensions alone
	// (its own file system monitor's token, the untracked cache) more often.
	sum plumbing.Hash
	// summed is false for an index read by go-git (sum is not kept).
	summed bool
	// tree is the index's cache-tree (nil when it has none, or one not read).
	tree *cacheTree
}

// readIndex reads the Git index file at name as go-git's storage does (a missing file
// is an empty index; ModTime is the file's), or returns errIndexFormat.
func readIndex(name string) (*indexFile, error) {
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return &indexFile{Index: &index.Index{Version: 2}, summed: true}, nil
	}
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxIndexFile {
		return nil, errIndexFormat
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	out, err := decodeIndex(data)
	if err != nil {
		return nil, err
	}
	out.ModTime = fi.ModTime()
	return out, nil
}

// Sizes and flags of the index format (Documentation/gitformat-index.txt).
const (
	indexEntryFixed = 62 // times, dev, ino, mode, uid, gid, size, hash, flags
	indexNameMask   = 0x0fff
	indexExtended   = 0x4000
	indexSkipWork   = 0x4000 // in the extended flags
	indexIntentAdd  = 0x2000 // in the extended flags
)

// decodeIndex decodes a whole index file of version 2 or 3. The entries' names are
// parts of data, which must not change after.
func decodeIndex(data []byte) (*indexFile, error) {
	if len(data) < 12+sha1.Size || string(data[:4]) != "DIRC" {
		return nil, errors.New("not an index file")
	}
	body := data[:len(data)-sha1.Size]
	version := binary.BigEndian.Uint32(data[4:])
	if version != 2 && version != 3 {
		return nil, errIndexFormat
	}
	count := binary.BigEndian.Uint32(data[8:])
	if uint64(count) > uint64(len(body))/indexEntryFixed {
		return nil, errors.New("more entries than the file holds")
	}
	// Every name is a part of one string of the file's bytes, which nothing writes
	// to after: a copy of 40 MB at 400,000 entries was a third of reading them.
	names := unsafe.String(unsafe.SliceData(body), len(body))
	entries := make([]index.Entry, count)
	idx := &index.Index{Version: version, Entries: make([]*index.Entry, count)}
	at := 12
	for i := range entries {
		if at+indexEntryFixed > len(body) {
			return nil, errors.New("an entry runs past the end")
		}
		b := body[at:]
		e := &entries[i]
		e.CreatedAt = unixTime(b[0:], b[4:])
		e.ModifiedAt = unixTime(b[8:], b[12:])
		e.Dev = binary.BigEndian.Uint32(b[16:])
		e.Inode = binary.BigEndian.Uint32(b[20:])
		e.Mode = filemode.FileMode(binary.BigEndian.Uint32(b[24:]))
		e.UID = binary.BigEndian.Uint32(b[28:])
		e.GID = binary.BigEndian.Uint32(b[32:])
		e.Size = binary.BigEndian.Uint32(b[36:])
		copy(e.Hash[:], b[40:60])
		flags := binary.BigEndian.Uint16(b[60:])
		e.Stage = index.Stage(flags>>12) & 0x3
		fixed := indexEntryFixed
		if flags&indexExtended != 0 {
			if version < 3 || at+fixed+2 > len(body) {
				return nil, errors.New("extended flags in a version 2 index")
			}
			ext := binary.BigEndian.Uint16(b[62:])
			e.SkipWorktree, e.IntentToAdd = ext&indexSkipWork != 0, ext&indexIntentAdd != 0
			fixed += 2
		}
		start := at + fixed
		end := bytes.IndexByte(body[start:], 0)
		if end < 0 {
			return nil, errors.New("a name runs past the end")
		}
		end += start
		if n := int(flags & indexNameMask); n != indexNameMask && n != end-start {
			return nil, errors.New("a name's length is not its flags'")
		}
		e.Name = names[start:end]
		// Entries are padded with 1 to 8 NUL bytes to a multiple of 8 bytes.
		at += (fixed + end - start + 8) &^ 7
		idx.Entries[i] = e
	}
	// The file's checksum, with the sum of its entries on the way.
	h := sha1.New() //nolint:gosec // Git's checksum
	h.Write(body[:at])
	out := &indexFile{Index: idx, summed: true}
	h.Sum(out.sum[:0])
	h.Write(body[at:])
	if !bytes.Equal(h.Sum(nil), data[len(body):]) {
		return nil, errors.New("its checksum does not match (a damaged file)")
	}
	// Extensions: a split index keeps its entries in another file; the cache-tree
	// is read, the others skipped.
	for at+8 <= len(body) {
		sig, size := string(body[at:at+4]), int(binary.BigEndian.Uint32(body[at+4:]))
		if sig == "link" {
			return nil, errIndexFormat
		}
		if size < 0 || at+8+size > len(body) {
			return nil, fmt.Errorf("extension %q runs past the end", sig)
		}
		if sig == "TREE" {
			out.tree = decodeCacheTree(names[at+8 : at+8+size]) // nil when damaged: not used
		}
		at += 8 + size
	}
	return out, nil
}

// cacheTree is the index's cache-tree extension ("TREE"): for the root and each
// folder, how many index entries it covers and the name of the tree they make, kept
// by Git until an entry under the folder changes (then the count is -1, and there is
// no name). The folders are in the order Git writes them: depth first, each folder
// followed by its subfolders (Documentation/gitformat-index.txt).
type cacheTree struct {
	nodes []cacheTreeNode // nodes[0] is the root
	ext   string          // the extension's bytes: names and hashes are parts of it
}

type cacheTreeNode struct {
	name, hash int32 // offsets in ext: the name (up to a NUL) and the tree's hash
	nameLen    int32
	count      int32 // the entries covered; negative when the node is invalid
	end        int32 // the index in nodes after this folder's subfolders
}

// maxCacheTreeDepth bounds the folders' nesting read.
const maxCacheTreeDepth = 4096

// decodeCacheTree reads the extension's bytes; nil when they are not one whole tree.
func decodeCacheTree(ext string) *cacheTree {
	t := &cacheTree{ext: ext, nodes: make([]cacheTreeNode, 0, len(ext)/32)}
	at := 0
	// field reads up to the byte stop and returns what it read.
	field := func(stop byte) (string, bool) {
		i := strings.IndexByte(ext[at:], stop)
		if i < 0 {
			return "", false
		}
		f := ext[at : at+i]
		at += i + 1
		return f, true
	}
	var node func(depth int) bool
	node = func(depth int) bool {
		start := at
		name, ok := field(0)
		if !ok || depth > maxCacheTreeDepth || (depth == 0) != (name == "") {
			return false
		}
		countText, ok1 := field(' ')
		subsText, ok2 := field('\n')
		count, err1 := strconv.ParseInt(countText, 10, 32)
		subs, err2 := strconv.ParseUint(subsText, 10, 31)
		if !ok1 || !ok2 || err1 != nil || err2 != nil || subs > uint64(len(ext)-at) {
			return false
		}
		n := cacheTreeNode{name: int32(start), nameLen: int32(len(name)), count: int32(count)} //nolint:gosec // the index is under 1 GiB; ParseInt bounds count
		if count >= 0 {
			if at+sha1.Size > len(ext) {
				return false
			}
			n.hash, at = int32(at), at+sha1.Size //nolint:gosec // under 1 GiB
		}
		i := len(t.nodes)
		t.nodes = append(t.nodes, n)
		for range subs {
			if !node(depth + 1) {
				return false
			}
		}
		t.nodes[i].end = int32(len(t.nodes)) //nolint:gosec // fewer nodes than bytes
		return true
	}
	if !node(0) || at != len(ext) {
		return nil
	}
	return t
}

// root is the root's node (-1 for no cache-tree).
func (t *cacheTree) root() int {
	if t == nil {
		return -1
	}
	return 0
}

// valid returns the tree name of node i when the node is valid and covers count
// entries (the index's entries under its folder).
func (t *cacheTree) valid(i, count int) (plumbing.Hash, bool) {
	if i < 0 || int(t.nodes[i].count) != count {
		return plumbing.ZeroHash, false
	}
	var h plumbing.Hash
	copy(h[:], t.ext[t.nodes[i].hash:])
	return h, true
}

// children maps the names of node i's subfolders to their nodes (nil for -1).
func (t *cacheTree) children(i int) map[string]int {
	if i < 0 {
		return nil
	}
	out := map[string]int{}
	for j := i + 1; j < int(t.nodes[i].end); j = int(t.nodes[j].end) {
		n := t.nodes[j]
		out[t.ext[n.name:n.name+n.nameLen]] = j
	}
	return out
}

// unixTime is an index time (seconds and nanoseconds, big-endian); zero when both are.
func unixTime(sec, nsec []byte) time.Time {
	s, ns := binary.BigEndian.Uint32(sec), binary.BigEndian.Uint32(nsec)
	if s == 0 && ns == 0 {
		return time.Time{}
	}
	return time.Unix(int64(s), int64(ns))
}
