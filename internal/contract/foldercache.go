package contract

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/contractbot/contractbot/internal/atomicfile"
)

// The subject names of a revision (SubjectFolders) are read from every contract.yaml,
// which makes a partial load cost as much as the repository is large. Between two
// revisions most domain folders are the same Git tree, and a tree's subject lines
// never change (a tree hash names its content), so they are kept per domain tree:
// in memory for the process (the bot evaluates change after change on the same main),
// and in a file for the CLI (SaveFolderCache, LoadFolderCache; `check --cache-dir`).

// maxCachedDomains bounds the domain trees kept in memory (a domain of 50 subjects
// takes about 5 KB): past it, the trees this process never looked up are dropped, and
// when that is not enough, all of them.
const maxCachedDomains = 50000

// folderCacheHeader starts a cache file; a file that starts otherwise is ignored.
const folderCacheHeader = "contractbot subject-folders 1"

// domainListing is what the cache keeps of a domain tree: its subject folders, and
// whether its listing is clean (nothing LayoutDiagnostics would report in it).
type domainListing struct {
	folders []folderSubject
	clean   bool
}

// folderSubject is one subject folder of a domain and the subject its contract.yaml
// names ("" when it names none readable).
type folderSubject struct {
	folder, subject string
}

// domainFolders caches the subject folders of domain trees.
var domainFolders = struct {
	sync.Mutex
	byTree map[plumbing.Hash]domainListing
	used   map[plumbing.Hash]bool // looked up or added since the process started
	read   bool                   // a domain was read from the source, not the file
	// inFile holds the domains of the file LoadFolderCache read that were not looked
	// up yet: each tree's lines, parsed when it is (a check looks up a few domains of
	// the base and those of the head, not 100,000 subjects' lines).
	inFile map[plumbing.Hash][]byte
}{byTree: map[plumbing.Hash]domainListing{}, used: map[plumbing.Hash]bool{}, inFile: map[plumbing.Hash][]byte{}}

func cachedDomain(h plumbing.Hash) (domainListing, bool) {
	domainFolders.Lock()
	defer domainFolders.Unlock()
	d, ok := domainFolders.byTree[h]
	if !ok {
		var block []byte
		if block, ok = domainFolders.inFile[h]; ok {
			delete(domainFolders.inFile, h)
			if d, ok = parseDomain(block); ok {
				domainFolders.byTree[h] = d
			}
		}
	}
	if ok {
		domainFolders.used[h] = true
	}
	return d, ok
}

// cachedClean reports whether a domain tree is cached, and clean; a domain of the
// file is not parsed for it (LayoutDiagnostics asks it of every domain of a head).
func cachedClean(h plumbing.Hash) (clean, ok bool) {
	domainFolders.Lock()
	defer domainFolders.Unlock()
	if d, ok := domainFolders.byTree[h]; ok {
		domainFolders.used[h] = true
		return d.clean, true
	}
	if block, ok := domainFolders.inFile[h]; ok {
		domainFolders.used[h] = true
		head, _, _ := bytes.Cut(block, []byte{'\n'})
		return bytes.HasSuffix(head, []byte(" clean")), true
	}
	return false, false
}

// parseDomain reads one domain of the cache file: its "tree <hash> <state>" line and
// a "<folder>\t<subject>" line per subject folder; ok is false when it is damaged.
func parseDomain(block []byte) (domainListing, bool) {
	head, lines, _ := bytes.Cut(block, []byte{'\n'})
	d := domainListing{clean: bytes.HasSuffix(head, []byte(" clean"))}
	for line := range bytes.Lines(lines) {
		folder, subject, ok := bytes.Cut(bytes.TrimSuffix(line, []byte{'\n'}), []byte{'\t'})
		if !ok {
			return domainListing{}, false
		}
		d.folders = append(d.folders, folderSubject{string(folder), string(subject)})
	}
	return d, true
}

// cacheDomain keeps a domain tree's folders; used marks it as one this process needs
// (SaveFolderCache writes those only).
func cacheDomain(h plumbing.Hash, d domainListing, used bool) {
	domainFolders.Lock()
	defer domainFolders.Unlock()
	trimCache(domainFolders.byTree, domainFolders.used)
	domainFolders.byTree[h] = d
	if used {
		domainFolders.used[h] = true
		domainFolders.read = true
	}
}

// subtrees returns the Git tree hash of each folder in dir of a Git source, read from
// dir's own tree (the folders' trees are not read); for a working tree, those of its
// commit that it has unchanged; nil for other sources.
func subtrees(src Source, dir string) map[string]plumbing.Hash {
	switch s := src.(type) {
	case *GitSource:
		return s.subtrees(dir)
	case *WorkTree:
		return s.subtrees(dir)
	}
	return nil
}

func (g *GitSource) subtrees(dir string) map[string]plumbing.Hash {
	g.mu.Lock()
	defer g.mu.Unlock()
	t, err := g.tree(dir)
	if err != nil {
		return nil
	}
	out := make(map[string]plumbing.Hash, len(t.Entries))
	for _, e := range t.Entries {
		if e.Mode == filemode.Dir {
			out[e.Name] = e.Hash
		}
	}
	return out
}

// LoadFolderCache adds to the process's cache of subject folders the domain trees
// saved in dir by SaveFolderCache; a domain's lines are parsed when it is looked up. A
// missing or unreadable file is an empty cache. It also names dir as where the subject
// names of a base are kept (SubjectNames, names.go), and loads the imports of domain
// trees saved there (importidx.go).
func LoadFolderCache(dir string) error {
	setNamesDir(dir)
	if err := loadImports(dir); err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(dir, "subject-folders"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the subject folder cache in %s: %w", dir, err)
	}
	text, ok := bytes.CutPrefix(data, []byte(folderCacheHeader+"\n"))
	if !ok {
		return nil // another version's file: rebuilt on save
	}
	domainFolders.Lock()
	defer domainFolders.Unlock()
	// Each domain runs from its "tree " line to the next one.
	start := 0
	if !bytes.HasPrefix(text, []byte("tree ")) {
		if start = bytes.Index(text, []byte("\ntree ")); start >= 0 {
			start++
		}
	}
	for start >= 0 {
		end := bytes.Index(text[start:], []byte("\ntree "))
		block := text[start:]
		if end >= 0 {
			block = text[start : start+end+1]
		}
		if len(block) > len("tree ")+40 && block[len("tree ")+40] == ' ' {
			h := plumbing.NewHash(string(block[len("tree ") : len("tree ")+40]))
			if _, have := domainFolders.byTree[h]; !have {
				domainFolders.inFile[h] = block
			}
		}
		if end < 0 {
			break
		}
		start += end + 1
	}
	return nil
}

// SaveFolderCache writes to dir the domain trees this process looked up or read, for
// LoadFolderCache in a later process; when every domain came from the file, the file
// stays as it is. It also writes the subject names of a base SubjectNames gathered
// (names.go), and the imports of domain trees (importidx.go). The files are replaced
// atomically.
func SaveFolderCache(dir string) error {
	if err := saveNames(dir); err != nil {
		return err
	}
	if err := saveImports(dir); err != nil {
		return err
	}
	domainFolders.Lock()
	read := domainFolders.read
	domainFolders.Unlock()
	if !read {
		return nil
	}
	var w bytes.Buffer
	fmt.Fprintln(&w, folderCacheHeader)
	domainFolders.Lock()
	for h := range domainFolders.used {
		d, parsed := domainFolders.byTree[h]
		if block, ok := domainFolders.inFile[h]; ok && !parsed {
			w.Write(block) // as the file had it
			if !bytes.HasSuffix(block, []byte{'\n'}) {
				w.WriteByte('\n')
			}
			continue
		}
		if slices.ContainsFunc(d.folders, func(f folderSubject) bool { return strings.ContainsAny(f.folder, "\t\n\r") }) {
			continue // a folder name the file's lines cannot hold: read again next time
		}
		state := "mixed"
		if d.clean {
			state = "clean"
		}
		fmt.Fprintf(&w, "tree %s %s\n", h, state)
		for _, f := range d.folders {
			fmt.Fprintf(&w, "%s\t%s\n", f.folder, f.subject)
		}
	}
	domainFolders.Unlock()
	// atomicfile syncs the file and its folder before and after the rename: a crash or a
	// full disk leaves the old cache or the new one, never a torn file.
	if err := atomicfile.Write(filepath.Join(dir, "subject-folders"), w.Bytes()); err != nil {
		return fmt.Errorf("write the subject folder cache in %s: %w", dir, err)
	}
	return nil
}
