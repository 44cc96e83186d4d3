package contract

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/formats"
	"github.com/contractbot/contractbot/internal/atomicfile"
)

// Which subject folders import which (SubjectImports) is read from every schema that
// can import (a .proto file): at 100,000 subjects, 20,000 files for a change to one
// imported file. A domain tree's imports never change (a tree hash names its content),
// so they are kept per domain tree, as its subject names are (foldercache.go): in
// memory for the process, and in the cache folder LoadFolderCache names, as the file
// "subject-imports". A domain is kept by its tree alone, so what it keeps names the
// importing folders within the domain and the imported folders from the repository's
// root (an import path does not depend on the importer's domain).

const (
	importsFile   = "subject-imports"
	importsHeader = "contractbot subject-imports 1"
)

// folderImports is one subject folder of a domain whose schema files import, and the
// subject folders (contracts/<domain>/<subject>) those imports are in.
type folderImports struct {
	folder  string
	imports []string
}

// domainImports caches the imports of domain trees.
var domainImports = struct {
	sync.Mutex
	byTree map[plumbing.Hash][]folderImports
	used   map[plumbing.Hash]bool // looked up or added since the process started
	read   bool                   // a domain was read from the source, not the file
}{byTree: map[plumbing.Hash][]folderImports{}, used: map[plumbing.Hash]bool{}}

// ImporterOf is the engine that reads imports from a file of that name: the one its
// extension names when that format has imports (checker/formats); nil otherwise.
func ImporterOf(name string) checker.Engine {
	if e, ok := formats.ByExtension(name); ok && e.Describe().Imports {
		return e
	}
	return nil
}

// SubjectImports returns, for every subject folder of src whose schema files import
// (Protobuf), the subject folders holding the files they import, one entry per import
// (unsorted, repeats kept); import paths that are not valid repository paths, or name
// no folder, are left out. Domains whose Git tree is cached are not read.
func SubjectImports(src Source) (map[string][]string, error) {
	domains, err := src.ReadDir(ContractsDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	trees := subtrees(src, ContractsDir)
	out := map[string][]string{}
	for _, d := range domains {
		if !d.Dir || d.Symlink {
			continue
		}
		dir := ContractsDir + "/" + d.Name
		tree, cacheable := trees[d.Name]
		var list []folderImports
		hit := false
		if cacheable {
			list, hit = cachedImports(tree)
		}
		if !hit {
			if list, err = readDomainImports(src, dir); err != nil {
				return nil, err
			}
			if cacheable {
				cacheImports(tree, list)
			}
		}
		for _, f := range list {
			out[dir+"/"+f.folder] = append(out[dir+"/"+f.folder], f.imports...)
		}
	}
	return out, nil
}

// readDomainImports reads the imports of every schema file of the subject folders of
// the domain folder dir. An unreadable subject folder or file imports nothing.
func readDomainImports(src Source, dir string) ([]folderImports, error) {
	names, err := src.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []folderImports
	for _, n := range names {
		if !n.Dir || n.Symlink {
			continue
		}
		entries, err := src.ReadDir(dir + "/" + n.Name)
		if err != nil {
			continue
		}
		var imports []string
		for _, e := range entries {
			eng := ImporterOf(e.Name)
			if e.Dir || e.Symlink || eng == nil {
				continue
			}
			data, err := src.ReadFile(dir+"/"+n.Name+"/"+e.Name, MaxSchemaBytes)
			if err != nil {
				continue
			}
			for _, p := range eng.Imports(data) {
				if CheckPath(p) != nil {
					continue
				}
				if i := strings.LastIndexByte(p, '/'); i > 0 {
					imports = append(imports, ContractsDir+"/"+p[:i])
				}
			}
		}
		if len(imports) > 0 {
			out = append(out, folderImports{n.Name, imports})
		}
	}
	return out, nil
}

// trimCache makes room in a cache of domain trees past maxCachedDomains: the trees
// this process never looked up are dropped, and when that is not enough, all of them.
func trimCache[V any](byTree map[plumbing.Hash]V, used map[plumbing.Hash]bool) {
	if len(byTree) < maxCachedDomains {
		return
	}
	for k := range byTree {
		if !used[k] {
			delete(byTree, k)
		}
	}
	if len(byTree) >= maxCachedDomains {
		clear(byTree)
		clear(used)
	}
}

func cachedImports(h plumbing.Hash) ([]folderImports, bool) {
	domainImports.Lock()
	defer domainImports.Unlock()
	list, ok := domainImports.byTree[h]
	if ok {
		domainImports.used[h] = true
	}
	return list, ok
}

// cacheImports keeps a domain tree's imports, read from the source.
func cacheImports(h plumbing.Hash, list []folderImports) {
	domainImports.Lock()
	defer domainImports.Unlock()
	trimCache(domainImports.byTree, domainImports.used)
	domainImports.byTree[h] = list
	domainImports.used[h] = true
	domainImports.read = true
}

// loadImports adds to the cache the domain trees of the imports file in dir: its
// header line and the CRC-32C of the rest, then a "tree <hash>" line per domain and a
// "<folder>\t<imported>\t..." line per importing subject folder. A missing file,
// another version's or a damaged one is an empty cache (the domains are read again).
func loadImports(dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, importsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the subject imports cache in %s: %w", dir, err)
	}
	head, text, _ := bytes.Cut(data, []byte{'\n'})
	sum, ok := bytes.CutPrefix(head, []byte(importsHeader+" "))
	if !ok || string(sum) != fmt.Sprintf("%08x", crc32.Checksum(text, castagnoli)) {
		return nil
	}
	domainImports.Lock()
	defer domainImports.Unlock()
	var (
		tree    plumbing.Hash
		list    []folderImports
		have    bool // a tree line was read
		damaged bool
	)
	flush := func() {
		if _, in := domainImports.byTree[tree]; have && !damaged && !in {
			domainImports.byTree[tree] = list
		}
	}
	for line := range strings.Lines(string(text)) {
		line = strings.TrimSuffix(line, "\n")
		if h, ok := strings.CutPrefix(line, "tree "); ok {
			flush()
			tree, list, have = plumbing.NewHash(h), nil, len(h) == 40 && plumbing.IsHash(h)
			damaged = !have
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 2 || f[0] == "" {
			damaged = true
			continue
		}
		list = append(list, folderImports{f[0], f[1:]})
	}
	flush()
	return nil
}

// saveImports writes to dir the domain trees this process looked up or read, when
// one was read from a source.
func saveImports(dir string) error {
	domainImports.Lock()
	if !domainImports.read {
		domainImports.Unlock()
		return nil
	}
	var w bytes.Buffer
next:
	for h := range domainImports.used {
		list, ok := domainImports.byTree[h]
		if !ok {
			continue
		}
		var block bytes.Buffer
		fmt.Fprintf(&block, "tree %s\n", h)
		for _, f := range list {
			line := f.folder + "\t" + strings.Join(f.imports, "\t")
			if strings.ContainsAny(f.folder, "\t\n\r") || strings.ContainsAny(strings.Join(f.imports, ""), "\t\n\r") {
				continue next // a name the lines cannot hold: read again next time
			}
			block.WriteString(line + "\n")
		}
		w.Write(block.Bytes())
	}
	domainImports.Unlock()
	file := fmt.Appendf(nil, "%s %08x\n", importsHeader, crc32.Checksum(w.Bytes(), castagnoli))
	if err := atomicfile.Write(filepath.Join(dir, importsFile), append(file, w.Bytes()...)); err != nil {
		return fmt.Errorf("write the subject imports cache in %s: %w", dir, err)
	}
	return nil
}
