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
// pass over the file, into one slice of small entries (a name, the blob's name, the
// mode and flags; the stat data stay in the file's bytes until a file is compared)
// whose names are parts of the file's bytes; any other (version 4, a split index) is
// read by go-git and laid out again as version 3 (indexFromGoGit).

// maxIndexFile bounds the index file read whole (about 40 MB at 400,000 entries).
const maxIndexFile = 1 << 30

// errIndexFormat says the index is of a kind readIndex leaves to go-git.
var errIndexFormat = errors.New("an index readIndex does not read")

// indexFile is an index file read by readIndex.
type indexFile struct {
	version uint32
	entries []indexEntry // in the file's order (by name, Git's order)
	modTime time.Time    // the file's modification time (zero for no file)
	data    []byte       // the file's bytes: the stat data and names are read from them
	// sum is the SHA-1 of the file up to its extensions (zero for no file): the same
	// sum, the same entries with the same stat data. Git rewrites the extensions alone
	// (its own file system monitor's token, the untracked cache) more often.
	sum plumbing.Hash
	// trailer is the file's trailing checksum (zero for no file, or one written
	// with index.skipHash).
	trailer plumbing.Hash
	// summed is false for an index read by go-git (sum is not kept).
	summed bool
	// tree is the index's cache-tree (nil when it has none, or one not read).
	tree  *cacheTree
	unmap func() error // nil when data is not mapped
}

// indexEntry is an index entry: 48 bytes, where go-git's is 136 with a pointer to each.
type indexEntry struct {
	Name  string
	Hash  plumbing.Hash
	Mode  filemode.FileMode
	at    int32 // where the entry starts in indexFile.data (its stat data)
	flags uint16
}

// Flags of an entry (indexEntry.flags): its stage in the low bits.
const (
	entryStage        = 0x3
	entryIntentToAdd  = 0x4
	entrySkipWorktree = 0x8
)

func (e *indexEntry) stage() int         { return int(e.flags & entryStage) }
func (e *indexEntry) intentToAdd() bool  { return e.flags&entryIntentToAdd != 0 }
func (e *indexEntry) skipWorktree() bool { return e.flags&entrySkipWorktree != 0 }

// entryStat is what the index keeps of a file's stat data.
type entryStat struct {
	ctime, mtime             time.Time
	dev, ino, uid, gid, size uint32
}

// stat reads e's stat data from the file's bytes.
func (f *indexFile) stat(e *indexEntry) entryStat {
	b := f.data[e.at:]
	return entryStat{ctime: unixTime(b[0:], b[4:]), mtime: unixTime(b[8:], b[12:]),
		dev: binary.BigEndian.Uint32(b[16:]), ino: binary.BigEndian.Uint32(b[20:]),
		uid: binary.BigEndian.Uint32(b[28:]), gid: binary.BigEndian.Uint32(b[32:]),
		size: binary.BigEndian.Uint32(b[36:])}
}

// readIndex reads the Git index file at name (a missing file is an empty index), or
// returns errIndexFormat. The file is mapped where the system maps files: its 40 MB
// at 100,000 subjects were the largest allocation of a `check` of the working tree,
// and the collector's goal for the rest of the run grew with them. Then close must be
// called when the entries are no longer used, and no name may be kept past it
// (strings.Clone what is kept).
//
// When known.trailer is the file's trailing checksum, the file is the one known's sums
// were taken of: it is not hashed again (40 ms at 400,000 entries), and its entries'
// sum is known's. Git itself does not check the checksum when it reads the index.
func readIndex(name string, known indexSums) (*indexFile, error) {
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return &indexFile{version: 2, summed: true}, nil
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
	data, unmap, err := mapFile(name)
	if err != nil { // not mapped (an empty file, or no mapping on this system): read
		data, unmap = make([]byte, fi.Size()), nil
		if _, err := io.ReadFull(f, data); err != nil {
			return nil, err
		}
	}
	out, err := decodeIndex(data, known)
	if err != nil {
		if unmap != nil {
			_ = unmap()
		}
		return nil, err
	}
	out.modTime, out.unmap = fi.ModTime(), unmap
	return out, nil
}

// close unmaps the file: the entries and their names are unusable after.
func (f *indexFile) close() {
	if f.unmap != nil {
		_ = f.unmap()
		f.unmap, f.entries, f.data = nil, nil, nil
	}
}

// indexFromGoGit lays out an index go-git read (version 4, say) as version 3 and
// reads that: the same entries, no sum kept, no cache-tree.
func indexFromGoGit(idx *index.Index) (*indexFile, error) {
	v3 := *idx
	v3.Version, v3.Cache, v3.ResolveUndo, v3.EndOfIndexEntry = 3, nil, nil, nil
	var buf bytes.Buffer
	if err := index.NewEncoder(&buf).Encode(&v3); err != nil {
		return nil, err
	}
	out, err := decodeIndex(buf.Bytes(), indexSums{})
	if err != nil {
		return nil, err
	}
	out.modTime, out.summed, out.sum, out.trailer = idx.ModTime, false, plumbing.ZeroHash, plumbing.ZeroHash
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

// indexSums are an index file's trailing checksum and the SHA-1 of its entries.
type indexSums struct{ trailer, entries plumbing.Hash }

// decodeIndex decodes a whole index file of version 2 or 3 (see readIndex for
// known). The entries' names are parts of data, which must not change after.
func decodeIndex(data []byte, known indexSums) (*indexFile, error) {
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
	out := &indexFile{version: version, entries: make([]indexEntry, count), data: data, summed: true}
	at := 12
	for i := range out.entries {
		if at+indexEntryFixed > len(body) {
			return nil, errors.New("an entry runs past the end")
		}
		b := body[at:]
		e := &out.entries[i]
		e.at = int32(at) //nolint:gosec // the file is under 1 GiB
		e.Mode = filemode.FileMode(binary.BigEndian.Uint32(b[24:]))
		copy(e.Hash[:], b[40:60])
		flags := binary.BigEndian.Uint16(b[60:])
		e.flags = (flags >> 12) & entryStage
		fixed := indexEntryFixed
		if flags&indexExtended != 0 {
			if version < 3 || at+fixed+2 > len(body) {
				return nil, errors.New("extended flags in a version 2 index")
			}
			ext := binary.BigEndian.Uint16(b[62:])
			if ext&indexSkipWork != 0 {
				e.flags |= entrySkipWorktree
			}
			if ext&indexIntentAdd != 0 {
				e.flags |= entryIntentToAdd
			}
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
	}
	// The file's checksum, with the sum of its entries on the way. Git writes zeros
	// there with index.skipHash (Git 2.40 and later; feature.manyFiles sets it).
	copy(out.trailer[:], data[len(body):])
	if !known.trailer.IsZero() && known.trailer == out.trailer {
		out.sum = known.entries
	} else {
		h := sha1.New() //nolint:gosec // Git's checksum
		h.Write(body[:at])
		h.Sum(out.sum[:0])
		h.Write(body[at:])
		if !out.trailer.IsZero() && !bytes.Equal(h.Sum(nil), out.trailer[:]) {
			return nil, errors.New("its checksum does not match (a damaged file)")
		}
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
