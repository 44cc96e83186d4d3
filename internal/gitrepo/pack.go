package gitrepo

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// packs reads the objects of a repository's pack files, read-only, without go-git.
// go-git builds a map from offset to hash of a whole pack the first time it reads any
// packed object (0.17 s and 40 MB for 570,000 objects) and loads each .idx whole;
// here the .idx and the pack are mapped into memory and an object costs a binary
// search of the idx's hash table, its entry's header and its inflation. A delta's
// base is found by its offset (OFS_DELTA) or by its hash through the idx (REF_DELTA),
// so no reverse table is needed. Bases are kept in a bounded cache.
//
// Only what is ordinary is read here: version 2 .idx files of SHA-1 packs. Anything
// else (loose objects, alternates, a version 1 idx, a REF_DELTA whose base is in no
// pack) gives errNotInPacks and is left to go-git. A corrupt pack gives an error, never
// a panic or an allocation its data cannot back. It is safe for concurrent use.
type packs struct {
	dir   string // the objects/pack folder
	bases *baseCache

	mu      sync.Mutex
	loaded  bool
	list    []*packFile
	retired []*packFile // packs forgotten by reset, unmapped at close
	// listed is the pack folder's modification time when list was made: another
	// process (git fetch, git gc) that adds or removes a pack changes it.
	listed time.Time
}

// errNotInPacks is an object this reader does not have or will not read: the caller
// asks go-git.
var errNotInPacks = errors.New("not in the mapped packs")

// maxResolve bounds an object resolved in memory (a delta base, or a large object's
// content read through a delta): past it the pack is treated as corrupt. A delta of a
// few bytes can claim gigabytes by copying its base again and again.
const maxResolve = 1 << 30

// maxChain bounds a chain of deltas (git's aggressive repack makes chains of 250).
const maxChain = 10_000

func newPacks(objectsDir string, cacheBytes int64) *packs {
	return &packs{dir: filepath.Join(objectsDir, "pack"), bases: newBaseCache(cacheBytes)}
}

// packList maps the pack folder's packs on first use.
func (s *packs) packList() []*packFile {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loaded {
		return s.list
	}
	s.loaded = true
	if fi, err := os.Stat(s.dir); err == nil {
		s.listed = fi.ModTime()
	}
	names, _ := filepath.Glob(filepath.Join(s.dir, "pack-*.idx"))
	for _, name := range names {
		if p := s.unretire(filepath.Base(strings.TrimSuffix(name, ".idx"))); p != nil {
			s.list = append(s.list, p) // its name is its content's hash: the same pack
			continue
		}
		p, err := openPack(strings.TrimSuffix(name, ".idx"))
		if err != nil {
			continue // left to go-git, which reports what is wrong with it
		}
		s.list = append(s.list, p)
	}
	return s.list
}

// unretire takes back a pack forgotten by reset whose name is name, if there is one,
// so that a pack still in the folder is not mapped twice.
func (s *packs) unretire(name string) *packFile {
	for i, p := range s.retired {
		if p.name == name {
			s.retired = append(s.retired[:i], s.retired[i+1:]...)
			return p
		}
	}
	return nil
}

// reset forgets the packs (a fetch wrote one, or go-git was told to reindex): they
// are mapped again at the next read. The old mappings stay until close, as an
// object's reader may still be reading one.
func (s *packs) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resetLocked()
}

func (s *packs) resetLocked() {
	s.retired = append(s.retired, s.list...)
	s.list, s.loaded = nil, false
	s.bases.clear()
}

// changed forgets the packs, and reports true, when the pack folder changed since
// they were listed: another process wrote or removed a pack (a long-running serve
// beside a git fetch or a git gc), and an object missing from the packs listed may be
// in a new one. One stat of the folder, on a miss only.
func (s *packs) changed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.loaded {
		return false
	}
	fi, err := os.Stat(s.dir)
	if err != nil || fi.ModTime().Equal(s.listed) {
		return false
	}
	s.resetLocked()
	return true
}

func (s *packs) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, p := range append(s.retired, s.list...) {
		errs = append(errs, p.close())
	}
	s.list, s.retired, s.loaded = nil, nil, false
	s.bases.clear()
	return errors.Join(errs...)
}

// find returns the pack holding h and the offset of its entry.
func (s *packs) find(h plumbing.Hash) (*packFile, int64, bool) {
	for range 2 {
		for _, p := range s.packList() {
			if off, ok := p.find(h); ok {
				return p, off, true
			}
		}
		if !s.changed() {
			break
		}
	}
	return nil, 0, false
}

// has reports whether h is in a pack.
func (s *packs) has(h plumbing.Hash) bool {
	_, _, ok := s.find(h)
	return ok
}

// size returns an object's size from its entry's header: for a delta, from the head
// of the delta, of which only a few bytes are inflated.
func (s *packs) size(h plumbing.Hash) (int64, error) {
	p, off, ok := s.find(h)
	if !ok {
		return 0, errNotInPacks
	}
	e, err := p.entry(off)
	if err != nil {
		return 0, err
	}
	if !e.isDelta() {
		return e.size, nil
	}
	return p.deltaTargetSize(e)
}

// object reads h. An object over LargeObject bytes is not inflated here: its size and
// type come from the headers, its content is read when its Reader is opened.
func (s *packs) object(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	p, off, ok := s.find(h)
	if !ok {
		return nil, errNotInPacks
	}
	e, err := p.entry(off)
	if err != nil {
		return nil, err
	}
	size := e.size
	if e.isDelta() {
		if size, err = p.deltaTargetSize(e); err != nil {
			return nil, err
		}
	}
	if size > LargeObject {
		typ, err := s.baseType(p, e)
		if err != nil {
			return nil, err
		}
		if t != plumbing.AnyObject && typ != t {
			return nil, plumbing.ErrObjectNotFound
		}
		return &packObject{hash: h, typ: typ, size: size, packs: s, pack: p, entry: e}, nil
	}
	typ, data, err := s.resolve(p, e)
	if err != nil {
		return nil, err
	}
	if t != plumbing.AnyObject && typ != t {
		return nil, plumbing.ErrObjectNotFound
	}
	return &packObject{hash: h, typ: typ, size: int64(len(data)), data: data}, nil
}

// baseType follows a delta chain's headers to the type of its base.
func (s *packs) baseType(p *packFile, e entry) (plumbing.ObjectType, error) {
	for range maxChain {
		if !e.isDelta() {
			return e.typ, nil
		}
		var err error
		if p, e, err = s.base(p, e); err != nil {
			return 0, err
		}
	}
	return 0, fmt.Errorf("pack %s: a delta chain longer than %d at offset %d", p.name, maxChain, e.off)
}

// base returns the entry a delta applies to.
func (s *packs) base(p *packFile, e entry) (*packFile, entry, error) {
	if e.typ == plumbing.OFSDeltaObject {
		b, err := p.entry(e.baseOff)
		return p, b, err
	}
	if off, ok := p.find(e.baseHash); ok {
		b, err := p.entry(off)
		return p, b, err
	}
	bp, off, ok := s.find(e.baseHash)
	if !ok {
		return nil, entry{}, errNotInPacks
	}
	b, err := bp.entry(off)
	return bp, b, err
}

// resolve returns the type and content of the object at entry e, applying its
// deltas. The chain is walked down to a base that is not a delta or is cached; the
// bases met on the way back up are cached.
func (s *packs) resolve(p *packFile, e entry) (plumbing.ObjectType, []byte, error) {
	type link struct {
		p *packFile
		e entry
	}
	var chain []link
	var typ plumbing.ObjectType
	var data []byte
	for {
		if b, ok := s.bases.get(p, e.off); ok {
			typ, data = b.typ, b.data
			break
		}
		if !e.isDelta() {
			var err error
			if data, err = p.inflate(e, maxResolve); err != nil {
				return 0, nil, err
			}
			typ = e.typ
			if len(chain) > 0 {
				s.bases.add(p, e.off, typ, data)
			}
			break
		}
		if len(chain) == maxChain {
			return 0, nil, fmt.Errorf("pack %s: a delta chain longer than %d at offset %d", p.name, maxChain, e.off)
		}
		chain = append(chain, link{p, e})
		var err error
		if p, e, err = s.base(p, e); err != nil {
			return 0, nil, err
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		l := chain[i]
		delta, err := l.p.inflate(l.e, maxResolve)
		if err != nil {
			return 0, nil, err
		}
		if data, err = applyDelta(data, delta, maxResolve); err != nil {
			return 0, nil, fmt.Errorf("pack %s: delta at offset %d: %w", l.p.name, l.e.off, err)
		}
		if i > 0 {
			s.bases.add(l.p, l.e.off, typ, data)
		}
	}
	return typ, data, nil
}

// packFile is one mapped pack and its mapped version 2 idx.
type packFile struct {
	name      string // the path without .idx/.pack
	idx, data []byte
	n         int // objects
	unmap     func() error
}

const (
	idxHeader  = 8
	fanoutSize = 256 * 4
)

func openPack(base string) (*packFile, error) {
	idx, unmapIdx, err := mapFile(base + ".idx")
	if err != nil {
		return nil, err
	}
	data, unmapData, err := mapFile(base + ".pack")
	if err != nil {
		_ = unmapIdx()
		return nil, err
	}
	p := &packFile{name: filepath.Base(base), idx: idx, data: data,
		unmap: func() error { return errors.Join(unmapIdx(), unmapData()) }}
	if err := p.check(); err != nil {
		_ = p.close()
		return nil, err
	}
	return p, nil
}

func (p *packFile) close() error { return p.unmap() }

// check validates the idx's header and fanout and the pack's header, so that every
// later read of a table is within bounds.
func (p *packFile) check() error {
	if len(p.idx) < idxHeader+fanoutSize+40 || string(p.idx[:4]) != "\xfftOc" || binary.BigEndian.Uint32(p.idx[4:]) != 2 {
		return fmt.Errorf("%s.idx: not a version 2 pack index", p.name)
	}
	prev := uint32(0)
	for i := range 256 {
		v := binary.BigEndian.Uint32(p.idx[idxHeader+4*i:])
		if v < prev {
			return fmt.Errorf("%s.idx: fanout not sorted", p.name)
		}
		prev = v
	}
	n := int64(prev)
	min := idxHeader + fanoutSize + 28*n + 40
	if int64(len(p.idx)) < min || (int64(len(p.idx))-min)%8 != 0 {
		return fmt.Errorf("%s.idx: %d bytes, not the size of %d entries", p.name, len(p.idx), n)
	}
	if len(p.data) < 32 || string(p.data[:4]) != "PACK" {
		return fmt.Errorf("%s.pack: not a pack", p.name)
	}
	if v := binary.BigEndian.Uint32(p.data[4:]); v != 2 && v != 3 {
		return fmt.Errorf("%s.pack: version %d", p.name, v)
	}
	if int64(binary.BigEndian.Uint32(p.data[8:])) != n {
		return fmt.Errorf("%s.pack: %d objects, its idx %d", p.name, binary.BigEndian.Uint32(p.data[8:]), n)
	}
	p.n = int(n)
	return nil
}

func (p *packFile) fanout(i int) int {
	return int(binary.BigEndian.Uint32(p.idx[idxHeader+4*i:]))
}

// find looks h up in the idx: the fanout narrows the hash table to the hashes sharing
// h's first byte, then a binary search.
func (p *packFile) find(h plumbing.Hash) (int64, bool) {
	lo, hi := 0, p.fanout(int(h[0]))
	if h[0] > 0 {
		lo = p.fanout(int(h[0]) - 1)
	}
	hashes := p.idx[idxHeader+fanoutSize:]
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		switch c := bytes.Compare(hashes[20*mid:20*mid+20], h[:]); {
		case c == 0:
			off, ok := p.offset(mid)
			return off, ok
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false
}

// offset is the pack offset of the idx's i-th object: a 31-bit offset, or with the
// top bit set an index into the table of 64-bit ones.
func (p *packFile) offset(i int) (int64, bool) {
	off32 := idxHeader + fanoutSize + 24*p.n
	v := binary.BigEndian.Uint32(p.idx[off32+4*i:])
	if v&0x80000000 == 0 {
		return int64(v), true
	}
	at := off32 + 4*p.n + 8*int(v&0x7fffffff)
	if at+8 > len(p.idx)-40 {
		return 0, false
	}
	off := binary.BigEndian.Uint64(p.idx[at:])
	if off > uint64(len(p.data)) {
		return 0, false
	}
	return int64(off), true
}

// entry is a pack entry's header.
type entry struct {
	off      int64 // where the header starts
	data     int64 // where the compressed data starts
	typ      plumbing.ObjectType
	size     int64 // inflated size: the object's, or the delta's
	baseOff  int64 // OFS_DELTA
	baseHash plumbing.Hash
}

func (e entry) isDelta() bool {
	return e.typ == plumbing.OFSDeltaObject || e.typ == plumbing.REFDeltaObject
}

// entry parses the header of the entry at off.
func (p *packFile) entry(off int64) (entry, error) {
	bad := func(what string) (entry, error) {
		return entry{}, fmt.Errorf("pack %s: entry at offset %d: %s", p.name, off, what)
	}
	end := int64(len(p.data)) - 20 // the trailing checksum
	if off < 12 || off >= end {
		return bad("offset outside the pack")
	}
	at := off
	c := p.data[at]
	at++
	e := entry{off: off, typ: plumbing.ObjectType(c >> 4 & 7), size: int64(c & 15)}
	for shift := uint(4); c&0x80 != 0; shift += 7 {
		if at >= end || shift > 56 {
			return bad("bad size")
		}
		c = p.data[at]
		at++
		e.size |= int64(c&0x7f) << shift
	}
	switch e.typ {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
	case plumbing.OFSDeltaObject:
		if at >= end {
			return bad("truncated")
		}
		c = p.data[at]
		at++
		rel := int64(c & 0x7f)
		for c&0x80 != 0 {
			if at >= end || rel >= 1<<55 {
				return bad("bad base offset")
			}
			c = p.data[at]
			at++
			rel = (rel+1)<<7 | int64(c&0x7f)
		}
		if rel <= 0 || rel > off-12 {
			return bad("base offset outside the pack")
		}
		e.baseOff = off - rel
	case plumbing.REFDeltaObject:
		if at+20 > end {
			return bad("truncated")
		}
		copy(e.baseHash[:], p.data[at:at+20])
		at += 20
	default:
		return bad(fmt.Sprintf("type %d", e.typ))
	}
	e.data = at
	return e, nil
}

// maxInflation is the most bytes deflate makes of one compressed byte (a run of a
// repeated byte: 258 bytes a 2-bit code, 1032 a byte).
const maxInflation = 1032

// zlibs keeps inflaters for reuse: each holds a 32 KiB window.
var zlibs sync.Pool

// inflater returns a zlib reader of the compressed data of e; put it back with
// release.
func (p *packFile) inflater(e entry) (io.ReadCloser, error) {
	src := bytes.NewReader(p.data[e.data : len(p.data)-20])
	if z, ok := zlibs.Get().(io.ReadCloser); ok {
		if err := z.(zlib.Resetter).Reset(src, nil); err != nil {
			return nil, fmt.Errorf("pack %s: entry at offset %d: %w", p.name, e.off, err)
		}
		return z, nil
	}
	z, err := zlib.NewReader(src)
	if err != nil {
		return nil, fmt.Errorf("pack %s: entry at offset %d: %w", p.name, e.off, err)
	}
	return z, nil
}

func release(z io.ReadCloser) { zlibs.Put(z) }

// inflate returns the e.size bytes of e's data. Up to LargeObject bytes the buffer is
// made at the size the header gives; past it, it grows as data comes, so a header that
// lies costs what the data backs, never more than limit.
func (p *packFile) inflate(e entry, limit int64) ([]byte, error) {
	if e.size > limit {
		return nil, fmt.Errorf("pack %s: entry at offset %d: %d bytes, over the limit of %d", p.name, e.off, e.size, limit)
	}
	if e.size > maxInflation*(int64(len(p.data))-20-e.data)+64 {
		return nil, fmt.Errorf("pack %s: entry at offset %d: %d bytes, more than the rest of the pack inflates to", p.name, e.off, e.size)
	}
	z, err := p.inflater(e)
	if err != nil {
		return nil, err
	}
	defer release(z)
	var data []byte
	if e.size <= LargeObject {
		data = make([]byte, e.size)
		_, err = io.ReadFull(z, data)
	} else {
		var b bytes.Buffer
		_, err = b.ReadFrom(io.LimitReader(z, e.size))
		data = b.Bytes()
		if err == nil && int64(len(data)) < e.size {
			err = io.ErrUnexpectedEOF
		}
	}
	if err == nil {
		// The stream must end here, and its checksum match.
		var one [1]byte
		if n, err2 := z.Read(one[:]); n != 0 {
			err = errors.New("more data than its header says")
		} else if !errors.Is(err2, io.EOF) {
			err = err2
		}
	}
	if err != nil {
		return nil, fmt.Errorf("pack %s: entry at offset %d: %w", p.name, e.off, err)
	}
	return data, nil
}

// deltaTargetSize reads the size of the object a delta makes from the head of the
// delta (its base's size, then its own, as varints), inflating only those bytes.
func (p *packFile) deltaTargetSize(e entry) (int64, error) {
	z, err := p.inflater(e)
	if err != nil {
		return 0, err
	}
	defer release(z)
	var head [20]byte
	n, err := io.ReadFull(z, head[:min(e.size, int64(len(head)))])
	if err != nil {
		return 0, fmt.Errorf("pack %s: entry at offset %d: %w", p.name, e.off, err)
	}
	b := head[:n]
	if _, b, err = deltaSize(b); err == nil {
		var size int64
		if size, _, err = deltaSize(b); err == nil {
			return size, nil
		}
	}
	return 0, fmt.Errorf("pack %s: delta at offset %d: %w", p.name, e.off, err)
}

// deltaSize reads one of a delta's two leading sizes.
func deltaSize(b []byte) (int64, []byte, error) {
	var v int64
	for i, shift := 0, uint(0); i < len(b) && shift <= 56; i, shift = i+1, shift+7 {
		v |= int64(b[i]&0x7f) << shift
		if b[i]&0x80 == 0 {
			return v, b[i+1:], nil
		}
	}
	return 0, nil, errors.New("bad size")
}

// applyDelta applies a Git delta to base. The instructions are checked first (each
// copy within the base, each insert within the delta, the total the size the delta
// announces, at most limit), so the result is allocated once at its exact size.
func applyDelta(base, delta []byte, limit int64) ([]byte, error) {
	src, delta, err := deltaSize(delta)
	if err != nil {
		return nil, err
	}
	if src != int64(len(base)) {
		return nil, fmt.Errorf("for a base of %d bytes, applied to one of %d", src, len(base))
	}
	dst, ops, err := deltaSize(delta)
	if err != nil {
		return nil, err
	}
	if dst > limit {
		return nil, fmt.Errorf("makes %d bytes, over the limit of %d", dst, limit)
	}
	var total int64
	if err := deltaOps(ops, len(base), func(off, n int, ins []byte) bool {
		total += int64(n)
		return total <= dst
	}); err != nil {
		return nil, err
	}
	if total != dst {
		return nil, fmt.Errorf("makes %d bytes, announces %d", total, dst)
	}
	out := make([]byte, 0, dst)
	_ = deltaOps(ops, len(base), func(off, n int, ins []byte) bool { // checked above
		if ins != nil {
			out = append(out, ins...)
		} else {
			out = append(out, base[off:off+n]...)
		}
		return true
	})
	return out, nil
}

// deltaOps decodes a delta's instructions, calling fn with a copy from the base
// (off, n) or an insert (ins, n bytes), each checked against the base's size and
// the delta's end. fn returning false stops with an error.
func deltaOps(ops []byte, baseLen int, fn func(off, n int, ins []byte) bool) error {
	for i := 0; i < len(ops); {
		c := ops[i]
		i++
		switch {
		case c&0x80 != 0:
			var off, n uint64
			for bit := range 4 {
				if c&(1<<bit) != 0 {
					if i >= len(ops) {
						return errors.New("truncated copy")
					}
					off |= uint64(ops[i]) << (8 * bit)
					i++
				}
			}
			for bit := range 3 {
				if c&(0x10<<bit) != 0 {
					if i >= len(ops) {
						return errors.New("truncated copy")
					}
					n |= uint64(ops[i]) << (8 * bit)
					i++
				}
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > uint64(baseLen) {
				return fmt.Errorf("copies %d bytes at %d of a base of %d", n, off, baseLen)
			}
			if !fn(int(off), int(n), nil) {
				return errors.New("makes more than it announces")
			}
		case c != 0:
			n := int(c)
			if i+n > len(ops) {
				return errors.New("truncated insert")
			}
			if !fn(0, n, ops[i:i+n]) {
				return errors.New("makes more than it announces")
			}
			i += n
		default:
			return errors.New("reserved instruction 0")
		}
	}
	return nil
}

// packObject is an object read from a pack: its content, or for one over LargeObject
// bytes where to read it when asked.
type packObject struct {
	hash plumbing.Hash
	typ  plumbing.ObjectType
	size int64
	data []byte

	packs *packs
	pack  *packFile
	entry entry
}

func (o *packObject) Hash() plumbing.Hash           { return o.hash }
func (o *packObject) Type() plumbing.ObjectType     { return o.typ }
func (o *packObject) SetType(t plumbing.ObjectType) { o.typ = t }
func (o *packObject) Size() int64                   { return o.size }
func (o *packObject) SetSize(n int64)               { o.size = n }
func (o *packObject) Writer() (io.WriteCloser, error) {
	return nil, errors.New("a packed object is read-only")
}

// Reader returns the content. A large object that is not a delta is inflated as it is
// read; a large delta is resolved in memory (as go-git does).
func (o *packObject) Reader() (io.ReadCloser, error) {
	if o.pack == nil {
		return io.NopCloser(bytes.NewReader(o.data)), nil
	}
	if o.entry.isDelta() {
		_, data, err := o.packs.resolve(o.pack, o.entry)
		if err != nil {
			return nil, err
		}
		return io.NopCloser(bytes.NewReader(data)), nil
	}
	z, err := o.pack.inflater(o.entry)
	if err != nil {
		return nil, err
	}
	return &largeReader{Reader: io.LimitReader(z, o.size), z: z}, nil
}

type largeReader struct {
	io.Reader
	z io.ReadCloser
}

func (r *largeReader) Close() error { return r.z.Close() }

// baseCache keeps delta bases, least recently used first out, up to a number of
// bytes of content.
type baseCache struct {
	mu         sync.Mutex
	max, bytes int64
	m          map[baseKey]*baseEntry
	head       baseEntry // sentinel of the list, most recent next
}

type baseKey struct {
	p   *packFile
	off int64
}

type baseEntry struct {
	key        baseKey
	typ        plumbing.ObjectType
	data       []byte
	prev, next *baseEntry
}

func newBaseCache(max int64) *baseCache {
	c := &baseCache{max: max, m: map[baseKey]*baseEntry{}}
	c.head.prev, c.head.next = &c.head, &c.head
	return c
}

func (c *baseCache) unlink(e *baseEntry) { e.prev.next, e.next.prev = e.next, e.prev }

func (c *baseCache) front(e *baseEntry) {
	e.prev, e.next = &c.head, c.head.next
	c.head.next.prev = e
	c.head.next = e
}

func (c *baseCache) get(p *packFile, off int64) (*baseEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[baseKey{p, off}]
	if ok {
		c.unlink(e)
		c.front(e)
	}
	return e, ok
}

func (c *baseCache) add(p *packFile, off int64, typ plumbing.ObjectType, data []byte) {
	n := int64(len(data))
	if n > c.max/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := baseKey{p, off}
	if _, ok := c.m[k]; ok {
		return
	}
	e := &baseEntry{key: k, typ: typ, data: data}
	c.m[k] = e
	c.front(e)
	c.bytes += n
	for c.bytes > c.max {
		last := c.head.prev
		c.unlink(last)
		delete(c.m, last.key)
		c.bytes -= int64(len(last.data))
	}
}

func (c *baseCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.m)
	c.head.prev, c.head.next = &c.head, &c.head
	c.bytes = 0
}
