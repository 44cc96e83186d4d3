package gitrepo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"hash/fnv"
	"io"
	"os"
	"slices"

	"github.com/contractbot/contractbot/internal/atomicfile"
)

// A working tree's folders are listed to find the files the index does not track,
// and at 100,000 subjects listing 200,000 folders is most of what comparing the
// working tree costs. As Git's untracked cache does, the listings are kept between
// runs (Repo.ListingCache) with each folder's stat data: a folder whose entries were
// added, removed or renamed has a new modification and change time, so a folder
// whose stat data is what it was when it was listed has the same entries, and is not
// listed again.
//
// A listing is kept only when it cannot be racy: the folder's times must be older
// than the index's modification time read before the listing (both stamped by the
// file system). A folder changed later in the same clock tick as its listing would
// keep its time, so a folder whose time is not older is listed at every run until Git
// writes the index again. A file that cannot be read as a whole cache of this working
// tree (another version, another working tree, a bad checksum) is ignored, and so is
// the cache on a file system not known to keep folder times as local ones do
// (listingsTrusted: not on network or FUSE file systems): when in doubt, a folder is
// listed.

// trustedFS reports whether a working tree's folder times can be trusted (a variable:
// a test sees what happens on a file system that is not).
var trustedFS = listingsTrusted

// listingsHeader starts a listing cache file; a file that starts otherwise is ignored.
const listingsHeader = "contractbot folder-listings 1\n"

// maxListingsFile bounds the cache file read (about 12 MB at 100,000 subjects).
const maxListingsFile = 512 << 20

// dirStamp is what a listing is trusted on: a folder's modification and change times
// (nanoseconds since 1970) and inode.
type dirStamp struct {
	mtime, ctime int64
	ino          uint64
}

// dirEntry is a name in a folder's listing and whether it is a folder (not a link to
// one), as os.ReadDir says.
type dirEntry struct {
	name string
	dir  bool
}

// listing is a folder's listing kept in the cache: either exactly the index's
// children of the folder, with their kinds (tracked set: the children's digest, which
// must still be the index's), or the entries themselves.
type listing struct {
	stamp   dirStamp
	tracked bool
	digest  uint64
	entries []dirEntry
}

// listings is the cache of one WorktreeDiff: what was read from the file, and what
// this run listed or used (what the next file holds).
type listings struct {
	file  string
	root  string
	old   map[uint64]listing
	next  map[uint64]listing
	fresh bool // a listing was added that the file does not hold
}

// openListings reads the cache file of the working tree at root; a missing, foreign
// or damaged file is an empty cache.
func openListings(file, root string) *listings {
	l := &listings{file: file, root: root, old: map[uint64]listing{}, next: map[uint64]listing{}}
	data, err := readBounded(file, maxListingsFile)
	if err != nil {
		return l
	}
	if old, ok := decodeListings(data, root); ok {
		l.old = old
	}
	return l
}

// readBounded reads a file of at most limit bytes.
func readBounded(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, errors.New("too large")
	}
	return data, nil
}

// dirKey names a folder in the cache: a 64-bit hash of its path. Two folders whose
// paths share a hash cannot both pass the stamp check (one inode each).
func dirKey(dir string) uint64 {
	h := fnv.New64a()
	_, _ = io.WriteString(h, dir)
	return h.Sum64()
}

// childDigest is the digest of the index's children of a folder: their names and
// whether each is a folder.
func childDigest(children func(func(child) bool)) uint64 {
	h := fnv.New64a()
	var kind [1]byte
	for c := range children {
		_, _ = io.WriteString(h, c.name)
		kind[0] = 0
		if c.dir {
			kind[0] = 1
		}
		_, _ = h.Write(kind[:])
	}
	return h.Sum64()
}

// lookup returns the cached listing of dir when dir's stamp is still the one it was
// listed with, and keeps it for the next file.
func (l *listings) lookup(key uint64, stamp dirStamp) (listing, bool) {
	if l == nil {
		return listing{}, false
	}
	c, ok := l.old[key]
	if !ok || c.stamp != stamp {
		return listing{}, false
	}
	l.next[key] = c
	return c, true
}

// keep records a new listing of a folder for the next file, unless it may be racy
// (the folder's times are not older than since, the index's time).
func (l *listings) keep(key uint64, c listing, since int64) {
	if l == nil || c.stamp.mtime >= since || c.stamp.ctime >= since {
		return
	}
	l.next[key] = c
	l.fresh = true
}

// save writes the listings this run used or made, when they differ from the file's.
// A failure leaves the old file or none: the next run lists more.
func (l *listings) save() {
	if l == nil || (!l.fresh && len(l.next) == len(l.old)) {
		return
	}
	_ = atomicfile.Write(l.file, encodeListings(l.next, l.root))
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// encodeListings lays out the cache file: the header, the working tree's path, the
// listings in key order, and a CRC-32C of all that.
func encodeListings(m map[uint64]listing, root string) []byte {
	b := []byte(listingsHeader)
	b = binary.AppendUvarint(b, uint64(len(root)))
	b = append(b, root...)
	b = binary.AppendUvarint(b, uint64(len(m)))
	keys := make([]uint64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		c := m[k]
		b = binary.LittleEndian.AppendUint64(b, k)
		b = binary.LittleEndian.AppendUint64(b, uint64(c.stamp.mtime)) //nolint:gosec // kept as bits
		b = binary.LittleEndian.AppendUint64(b, uint64(c.stamp.ctime)) //nolint:gosec // kept as bits
		b = binary.LittleEndian.AppendUint64(b, c.stamp.ino)
		if c.tracked {
			b = append(b, 1)
			b = binary.LittleEndian.AppendUint64(b, c.digest)
			continue
		}
		b = append(b, 0)
		b = binary.AppendUvarint(b, uint64(len(c.entries)))
		for _, e := range c.entries {
			kind := byte(0)
			if e.dir {
				kind = 1
			}
			b = append(b, kind)
			b = binary.AppendUvarint(b, uint64(len(e.name)))
			b = append(b, e.name...)
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// decodeListings reads a cache file of the working tree at root; ok is false when it
// is not one whole (another version's, another working tree's, damaged).
func decodeListings(data []byte, root string) (map[uint64]listing, bool) {
	if len(data) < len(listingsHeader)+4 || !bytes.HasPrefix(data, []byte(listingsHeader)) {
		return nil, false
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, false
	}
	d := decoder{b: body[len(listingsHeader):]}
	if string(d.bytes(d.uvarint())) != root {
		return nil, false
	}
	n := d.uvarint()
	if n > uint64(len(d.b))/33 { // every listing takes at least 33 bytes
		return nil, false
	}
	m := make(map[uint64]listing, n)
	for range n {
		k := d.u64()
		c := listing{stamp: dirStamp{mtime: int64(d.u64()), ctime: int64(d.u64()), ino: d.u64()}} //nolint:gosec // kept as bits
		switch d.byte() {
		case 1:
			c.tracked, c.digest = true, d.u64()
		case 0:
			entries := d.uvarint()
			if entries > uint64(len(d.b)) {
				return nil, false
			}
			c.entries = make([]dirEntry, 0, entries)
			for range entries {
				dir := d.byte() == 1
				c.entries = append(c.entries, dirEntry{dir: dir, name: string(d.bytes(d.uvarint()))})
			}
		default:
			return nil, false
		}
		if d.bad {
			return nil, false
		}
		m[k] = c
	}
	if d.bad || len(d.b) != 0 {
		return nil, false
	}
	return m, true
}

// decoder reads the cache file's fields; past the end it reads zeros and sets bad.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes(n uint64) []byte {
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) u64() uint64 {
	b := d.bytes(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

func (d *decoder) byte() byte {
	b := d.bytes(1)
	if b == nil {
		return 0xff
	}
	return b[0]
}
