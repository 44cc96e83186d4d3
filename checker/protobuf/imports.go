package protobuf

import (
	"crypto/sha256"
	"sync"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/linker"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Compiled imports are shared between compilations: in a tree of 2,000 Protobuf
// subjects that all import common/types/common.proto, that file was parsed and linked
// 2,000 times (a fifth of the compiler's time). The compiler takes an already linked
// file from its resolver (SearchResult.Desc), so an import that compiled is kept under
// its import path and the hash of its content, and handed to later compilations that
// read the same content. Only imports that import nothing but the well-known types
// (which every compilation takes from the same linked files) are kept: a shared file
// importing others could meet, in a later compilation, a second linked copy of one of
// them. The checked file itself is always compiled.

// maxSharedImports bounds the compiled imports kept; past it the cache starts over.
const maxSharedImports = 256

type importKey struct {
	path string
	hash [32]byte
}

var sharedImports = struct {
	sync.Mutex
	m map[importKey]linker.File
}{m: map[importKey]linker.File{}}

// compilation records the content hash of each import one compilation's resolver read,
// so its imports can be shared afterwards; the compiler resolves imports from several
// goroutines.
type compilation struct {
	mu   sync.Mutex
	read map[string][32]byte
}

// shared returns the linked import kept for path with content data; ok is false when
// the import must be compiled.
func (c *compilation) shared(path string, data []byte) (protocompile.SearchResult, bool) {
	key := importKey{path, sha256.Sum256(data)}
	sharedImports.Lock()
	f, ok := sharedImports.m[key]
	sharedImports.Unlock()
	if ok {
		return protocompile.SearchResult{Desc: f}, true
	}
	c.mu.Lock()
	if c.read == nil {
		c.read = map[string][32]byte{}
	}
	c.read[path] = key.hash
	c.mu.Unlock()
	return protocompile.SearchResult{}, false
}

// keep shares the direct imports of a file that compiled without error, those this
// compilation read and linked that import only well-known types.
func (c *compilation) keep(f linker.File) {
	c.mu.Lock()
	defer c.mu.Unlock()
	imps := f.Imports()
	for i := 0; i < imps.Len(); i++ {
		imp := imps.Get(i).FileDescriptor
		lf, linked := imp.(linker.File)
		hash, read := c.read[imp.Path()]
		if !linked || !read || !leaf(imp) {
			continue
		}
		sharedImports.Lock()
		if len(sharedImports.m) >= maxSharedImports {
			clear(sharedImports.m)
		}
		sharedImports.m[importKey{imp.Path(), hash}] = lf
		sharedImports.Unlock()
	}
}

// leaf reports whether a file imports nothing but the well-known types.
func leaf(fd protoreflect.FileDescriptor) bool {
	imps := fd.Imports()
	for i := 0; i < imps.Len(); i++ {
		if !isWellKnown(imps.Get(i).Path()) {
			return false
		}
	}
	return true
}
