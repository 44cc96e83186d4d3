package contract

import (
	"bufio"
	"crypto/sha256"
	"encoding/gob"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/atomicfile"
)

// ParseCache keeps what Load learns from each schema it parses (the field paths and
// graph, the undocumented top-level fields, where a long listing is cut, the files it
// imports), keyed by a hash of the schema's content, name, format and record message,
// so that a later lint parses only the schemas that changed (`lint --cache-dir`). An
// entry holds the hash of every file the schema imported and is used only while they
// are unchanged. Schemas that do not parse, and subjects with data rules (which need
// the parsed types), are parsed every time.
type ParseCache struct {
	file, salt string

	mu      sync.Mutex
	entries map[[32]byte]*parsedSchema
	used    map[[32]byte]bool
	added   bool
}

// parsedSchema is what Load keeps of a parsed schema.
type parsedSchema struct {
	Deps  []parsedDep // the files the schema imports (Protobuf), in its order
	Paths []string
	Graph checker.FieldGraphData
	Undoc []parsedField
	Cut   *checker.InputError
}

type parsedDep struct {
	Path string
	Hash [32]byte
}

type parsedField struct {
	Path      string
	Line, Col int
}

// parseCacheFile is the file in the cache folder; parseCacheHead starts it.
const parseCacheFile = "lint-parses"

type parseCacheHead struct {
	Format string // "contractbot lint parses 1"
	Salt   string
}

// OpenParseCache reads the cache kept in dir by an earlier Save. salt names the build
// of contractbot (its version, or a hash of the executable): a file written by another
// build, or unreadable, is an empty cache (rewritten on Save).
func OpenParseCache(dir, salt string) *ParseCache {
	c := &ParseCache{file: filepath.Join(dir, parseCacheFile), salt: salt,
		entries: map[[32]byte]*parsedSchema{}, used: map[[32]byte]bool{}}
	f, err := os.Open(c.file)
	if err != nil {
		return c
	}
	defer func() { _ = f.Close() }() // read only
	dec := gob.NewDecoder(bufio.NewReader(f))
	var head parseCacheHead
	if dec.Decode(&head) != nil || head.Format != "contractbot lint parses 1" || head.Salt != salt {
		return c
	}
	var entries map[[32]byte]*parsedSchema
	if dec.Decode(&entries) == nil {
		c.entries = entries
	}
	return c
}

// Save writes the entries this process used or added, replacing the file atomically;
// when nothing was parsed, the file stays as it is.
func (c *ParseCache) Save() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.added {
		return nil
	}
	keep := make(map[[32]byte]*parsedSchema, len(c.used))
	for k := range c.used {
		keep[k] = c.entries[k]
	}
	err := atomicfile.WriteTo(c.file, func(w io.Writer) error {
		enc := gob.NewEncoder(w)
		if err := enc.Encode(parseCacheHead{"contractbot lint parses 1", c.salt}); err != nil {
			return err
		}
		return enc.Encode(keep)
	})
	if err != nil {
		return fmt.Errorf("write the parse cache in %s: %w", filepath.Dir(c.file), err)
	}
	return nil
}

// parseKey is the cache key of a schema file's content read as format with record
// message msg.
func (c *ParseCache) parseKey(path, format, msg string, data []byte) [32]byte {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%d\x00", c.salt, path, format, msg, len(data))
	h.Write(data)
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// get returns the entry for key when every file it imported still has the content it
// had (read through resolve).
func (c *ParseCache) get(key [32]byte, resolve func(string) ([]byte, error)) (*parsedSchema, bool) {
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	for _, d := range e.Deps {
		text, err := resolve(d.Path)
		if err != nil || sha256.Sum256(text) != d.Hash {
			return nil, false
		}
	}
	c.mu.Lock()
	c.used[key] = true
	c.mu.Unlock()
	return e, true
}

// put keeps what was learnt from a schema that parsed.
func (c *ParseCache) put(key [32]byte, f schemaFacts, resolve func(string) ([]byte, error)) {
	e := &parsedSchema{Paths: f.paths, Cut: f.cut}
	if f.graph != nil {
		e.Graph = f.graph.Data()
	}
	for _, u := range f.undocumented {
		e.Undoc = append(e.Undoc, parsedField{u.val, u.pos.Line, u.pos.Column})
	}
	for _, p := range f.deps {
		text, err := resolve(p)
		if err != nil {
			return // an import that cannot be read: not kept
		}
		e.Deps = append(e.Deps, parsedDep{p, sha256.Sum256(text)})
	}
	c.mu.Lock()
	c.entries[key], c.used[key], c.added = e, true, true
	c.mu.Unlock()
}

// facts turns an entry back into what loadSchema records; ok is false for an entry
// whose graph does not hold together (a damaged file).
func (e *parsedSchema) facts() (schemaFacts, bool) {
	g, err := e.Graph.Graph()
	if err != nil {
		return schemaFacts{}, false
	}
	f := schemaFacts{paths: e.Paths, graph: g, cut: e.Cut}
	for _, d := range e.Deps {
		f.deps = append(f.deps, d.Path)
	}
	for _, u := range e.Undoc {
		f.undocumented = append(f.undocumented, item{u.Path, Pos{u.Line, u.Col}})
	}
	return f, true
}

// LoadCached is Load with a parse cache: schemas whose entry is in c are not parsed,
// and the ones parsed are added to it (call c.Save afterwards).
func LoadCached(src Source, c *ParseCache) (*Tree, error) {
	return (&loader{src: src, parses: c}).load()
}
