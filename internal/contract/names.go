package contract

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/atomicfile"
)

// The subject names of a base (SubjectNames) are the same from one check to the next
// as long as its contracts/ tree is: `check` against main asks for the same 100,000
// names again and again. They are kept in the cache folder LoadFolderCache names, as
// a table keyed by the contracts/ tree's hash, sorted by name, and searched in place:
// a check looks up the names of the folders it loads, and the table is never made
// into a map. A table for another tree, or damaged (its CRC-32C), is not read; the
// names are then gathered from the domains (foldercache.go) and the table written
// again by SaveFolderCache.

const (
	namesFile   = "subject-names"
	namesHeader = "contractbot subject-names 1"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// baseNames is where the table is kept, and one to write.
var baseNames = struct {
	sync.Mutex
	dir     string // "": no table
	pending []byte // the file SaveFolderCache writes (nil: none)
}{}

func setNamesDir(dir string) {
	baseNames.Lock()
	defer baseNames.Unlock()
	baseNames.dir = dir
}

// NameTable is an Index held as the lines "<name>\t<folder>\n" of the names file,
// sorted by name, found by a binary search of the lines.
type NameTable struct{ lines []byte }

// Folder returns the folder of the subject name, if any.
func (t NameTable) Folder(name string) (string, bool) {
	b := t.lines
	for len(b) > 0 {
		start := bytes.LastIndexByte(b[:len(b)/2], '\n') + 1
		end := start + bytes.IndexByte(b[start:], '\n')
		n, dir, _ := bytes.Cut(b[start:end], []byte{'\t'})
		switch c := strings.Compare(name, string(n)); {
		case c == 0:
			return string(dir), true
		case c < 0:
			b = b[:start]
		default:
			b = b[end+1:]
		}
	}
	return "", false
}

// All yields every name and its folder, in name order.
func (t NameTable) All() iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for line := range bytes.Lines(t.lines) {
			n, dir, _ := bytes.Cut(bytes.TrimSuffix(line, []byte{'\n'}), []byte{'\t'})
			if !yield(string(n), string(dir)) {
				return
			}
		}
	}
}

// contractsTree is the hash of src's contracts/ tree, for a revision.
func contractsTree(src Source) (plumbing.Hash, bool) {
	g, ok := src.(*GitSource)
	if !ok {
		return plumbing.ZeroHash, false
	}
	h, ok := g.subtrees(".")[ContractsDir]
	return h, ok
}

// cachedNames returns the table kept for the contracts/ tree h, if it is the one.
func cachedNames(h plumbing.Hash) (Index, map[string][]string, bool) {
	baseNames.Lock()
	dir := baseNames.dir
	baseNames.Unlock()
	if dir == "" {
		return nil, nil, false
	}
	data, err := os.ReadFile(filepath.Join(dir, namesFile))
	if err != nil {
		return nil, nil, false
	}
	head, body, ok := bytes.Cut(data, []byte{'\n'})
	f := strings.Fields(string(head))
	if !ok || len(f) != 6 || strings.Join(f[:3], " ") != namesHeader || f[3] != h.String() {
		return nil, nil, false
	}
	sum, err1 := strconv.ParseUint(f[4], 16, 32)
	n, err2 := strconv.Atoi(f[5])
	if err1 != nil || err2 != nil || n < 0 || n > len(body) || uint32(sum) != crc32.Checksum(body, castagnoli) {
		return nil, nil, false
	}
	table := body[:n]
	if n > 0 && table[n-1] != '\n' {
		return nil, nil, false
	}
	dups := map[string][]string{}
	for line := range strings.Lines(string(body[n:])) {
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(f) < 3 {
			return nil, nil, false
		}
		dups[f[0]] = f[1:]
	}
	return NameTable{table}, dups, true
}

// keepNames makes the names file of the contracts/ tree h, for SaveFolderCache; a
// name or folder the lines cannot hold leaves the table unwritten.
func keepNames(h plumbing.Hash, index map[string]string, dups map[string][]string) {
	baseNames.Lock()
	defer baseNames.Unlock()
	if baseNames.dir == "" {
		return
	}
	var body bytes.Buffer
	for _, name := range slices.Sorted(maps.Keys(index)) {
		if strings.ContainsAny(name+index[name], "\t\n") {
			return
		}
		fmt.Fprintf(&body, "%s\t%s\n", name, index[name])
	}
	n := body.Len()
	for _, name := range slices.Sorted(maps.Keys(dups)) {
		if strings.ContainsAny(strings.Join(dups[name], ""), "\t\n") {
			return
		}
		fmt.Fprintf(&body, "%s\t%s\n", name, strings.Join(dups[name], "\t"))
	}
	file := fmt.Appendf(nil, "%s %s %08x %d\n", namesHeader, h, crc32.Checksum(body.Bytes(), castagnoli), n)
	baseNames.pending = append(file, body.Bytes()...)
}

// saveNames writes to dir the names file made since the last save, if any.
func saveNames(dir string) error {
	baseNames.Lock()
	defer baseNames.Unlock()
	if baseNames.pending == nil {
		return nil
	}
	data := baseNames.pending
	baseNames.pending = nil
	if err := atomicfile.Write(filepath.Join(dir, namesFile), data); err != nil {
		return fmt.Errorf("write the subject names in %s: %w", dir, err)
	}
	return nil
}
