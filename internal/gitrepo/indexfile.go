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
	"time"

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
	// sum is the file's trailing checksum (zero for no file): the same sum, the same
	// entries, stat data and extensions.
	sum plumbing.Hash
	// summed is false for an index read by go-git (sum is not kept).
	summed bool
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
	idx, err := decodeIndex(data)
	if err != nil {
		return nil, err
	}
	idx.ModTime = fi.ModTime()
	out := &indexFile{Index: idx, summed: true}
	copy(out.sum[:], data[len(data)-sha1.Size:])
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

// decodeIndex decodes a whole index file of version 2 or 3.
func decodeIndex(data []byte) (*index.Index, error) {
	if len(data) < 12+sha1.Size || string(data[:4]) != "DIRC" {
		return nil, errors.New("not an index file")
	}
	body := data[:len(data)-sha1.Size]
	if sum := sha1.Sum(body); !bytes.Equal(sum[:], data[len(body):]) { //nolint:gosec // Git's checksum
		return nil, errors.New("its checksum does not match (a damaged file)")
	}
	version := binary.BigEndian.Uint32(data[4:])
	if version != 2 && version != 3 {
		return nil, errIndexFormat
	}
	count := binary.BigEndian.Uint32(data[8:])
	if uint64(count) > uint64(len(body))/indexEntryFixed {
		return nil, errors.New("more entries than the file holds")
	}
	names := string(body) // one copy: every name is a part of it
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
	// Extensions: a split index keeps its entries in another file.
	for at+8 <= len(body) {
		sig, size := string(body[at:at+4]), int(binary.BigEndian.Uint32(body[at+4:]))
		if sig == "link" {
			return nil, errIndexFormat
		}
		if size < 0 || at+8+size > len(body) {
			return nil, fmt.Errorf("extension %q runs past the end", sig)
		}
		at += 8 + size
	}
	return idx, nil
}

// unixTime is an index time (seconds and nanoseconds, big-endian); zero when both are.
func unixTime(sec, nsec []byte) time.Time {
	s, ns := binary.BigEndian.Uint32(sec), binary.BigEndian.Uint32(nsec)
	if s == 0 && ns == 0 {
		return time.Time{}
	}
	return time.Unix(int64(s), int64(ns))
}
