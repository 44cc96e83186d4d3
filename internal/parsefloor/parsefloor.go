// Package parsefloor is the floor lint is measured against (issue 31): it reads every
// file of a contract tree and parses each with the library lint uses for its kind,
// once, on every core, and checks nothing. YAML files become yaml/v3 nodes, Avro
// schemas are parsed by hamba/avro's own parser, Protobuf files are compiled by
// protocompile with source info, each once: a compiled import that imports only the
// well-known types is handed to the files that import it, as lint does. Nothing
// parsed is kept. cmd/parsefloor runs it as a process beside `contractbot lint`;
// BenchmarkLintVsParseOnly (internal/contract) runs it in one process with the load.
package parsefloor

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/linker"
	"github.com/hamba/avro/v2"
	"go.yaml.in/yaml/v3"
)

// Run reads and parses every file of the tree under dir (.git left out) and returns
// how many files it read. The first file that does not parse is the error.
func Run(dir string) (files int, err error) {
	var paths []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	p := &parser{contracts: filepath.Join(dir, "contracts"), imports: map[string]linker.File{}}
	work := make(chan string)
	errs := make(chan error, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var first error
			for f := range work {
				if err := p.file(f); err != nil && first == nil {
					first = fmt.Errorf("%s: %w", f, err)
				}
			}
			errs <- first
		}()
	}
	for _, f := range paths {
		work <- f
	}
	close(work)
	wg.Wait()
	close(errs)
	for e := range errs {
		if e != nil {
			return 0, e
		}
	}
	return len(paths), nil
}

// parser parses the files of one tree; imports keeps the compiled Protobuf imports
// that later files take already linked.
type parser struct {
	contracts string
	mu        sync.Mutex
	imports   map[string]linker.File
}

func (p *parser) file(name string) error {
	data, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	switch filepath.Ext(name) {
	case ".yaml", ".yml":
		var n yaml.Node
		return yaml.Unmarshal(data, &n)
	case ".avsc":
		_, err := avro.ParseBytesWithCache(data, "", &avro.SchemaCache{})
		return err
	case ".proto":
		return p.proto(name)
	}
	return nil
}

// proto compiles one Protobuf file, its imports from contracts/.
func (p *parser) proto(name string) error {
	rel, err := filepath.Rel(p.contracts, name)
	if err != nil {
		return err
	}
	rel = filepath.ToSlash(rel)
	source := protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: []string{p.contracts}})
	comp := protocompile.Compiler{
		Resolver: protocompile.ResolverFunc(func(path string) (protocompile.SearchResult, error) {
			if path != rel {
				p.mu.Lock()
				f, ok := p.imports[path]
				p.mu.Unlock()
				if ok {
					return protocompile.SearchResult{Desc: f}, nil
				}
			}
			return source.FindFileByPath(path)
		}),
		SourceInfoMode: protocompile.SourceInfoStandard,
	}
	files, err := comp.Compile(context.Background(), rel)
	if err != nil {
		return err
	}
	imps := files[0].Imports()
	for i := 0; i < imps.Len(); i++ {
		if lf, ok := imps.Get(i).FileDescriptor.(linker.File); ok && importsOnlyWellKnown(lf) {
			p.mu.Lock()
			p.imports[lf.Path()] = lf
			p.mu.Unlock()
		}
	}
	return nil
}

// importsOnlyWellKnown reports whether a file imports nothing but google/protobuf/
// files: only those are shared (every compilation takes the same linked copies).
func importsOnlyWellKnown(f linker.File) bool {
	if strings.HasPrefix(f.Path(), "google/protobuf/") {
		return false
	}
	imps := f.Imports()
	for i := 0; i < imps.Len(); i++ {
		if !strings.HasPrefix(imps.Get(i).Path(), "google/protobuf/") {
			return false
		}
	}
	return true
}
