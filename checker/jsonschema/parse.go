package jsonschema

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/jsontext"
	"github.com/contractbot/contractbot/checker/located"
)

// Schema is one parsed JSON Schema: the model the registry compares, built from the
// text with the position of every schema, plus the documents it refers to.
type Schema struct {
	// File is the name used in messages.
	File string

	root   *node
	doc    *document
	deps   []string
	fields []*fieldInfo // sorted by path
	// declared are the same properties in declaration order, nested ones after their
	// parent (the order DescribeFields shows).
	declared []*fieldInfo
	byPath   map[string]*fieldInfo
	// cut is the property the listing stopped before (nil when it holds every path);
	// graph is the properties as a graph of objects, each once.
	cut   *fieldInfo
	graph *checker.FieldGraph
}

// document is one schema file: the main one or one a $ref names.
type document struct {
	// file names it in messages; name is how the tree names it (ParseInput.Resolve).
	file, name string
	text       *jsontext.Node
	lines      jsontext.LineIndex
	draft      int // 4, 6, 7, 2019 or 2020
	id         string
}

// position returns the line and column a pointer names (1-based), using the deepest
// part of it that exists.
func (d *document) position(ptr string) (line, col int) {
	_, off, _ := jsontext.ResolvePointer(d.text, ptr)
	return d.lines.Pos(off)
}

// drafts maps the $schema URLs (without scheme and trailing #) to drafts.
var drafts = map[string]int{
	"json-schema.org/draft-04/schema":      4,
	"json-schema.org/draft-06/schema":      6,
	"json-schema.org/draft-07/schema":      7,
	"json-schema.org/draft/2019-09/schema": 2019,
	"json-schema.org/draft/2020-12/schema": 2020,
}

// defaultDraft is the draft of a schema without $schema, as the registry assumes.
const defaultDraft = 7

// builder holds what one Parse reads: its documents and the nodes built so far.
type builder struct {
	src     checker.ParseInput
	docs    map[string]*document
	order   []*document
	nodes   map[nodeKey]*node
	pending []*node
	errs    []error
}

func (b *builder) fail(doc *document, off int, format string, args ...any) {
	line, col := doc.lines.Pos(off)
	b.errs = append(b.errs, &checker.InputError{Span: located.Span{File: doc.file, Line: line, Column: col}, Message: fmt.Sprintf(format, args...)})
}

// Parse reads one JSON Schema file and the files its $ref values name (through
// src.Resolve; the part before '#' names the file from contracts/, as a registry
// schema reference's name and a Protobuf import do). Unusable input (invalid
// JSON, an unknown $schema, a schema the draft's meta-schema refuses, a $ref to
// nothing, a cycle of bare $ref, nesting past MaxNestingDepth) is a
// *checker.InputError with the file, line and column, or several joined.
func Parse(src checker.ParseInput) (*Schema, error) {
	b := &builder{src: src, docs: map[string]*document{}, nodes: map[nodeKey]*node{}}
	doc, err := b.document(src.FileName(), src.Data, defaultDraft, true)
	if err != nil {
		return nil, err
	}
	root := b.load(doc, doc.text, "")
	b.resolveAll()
	if len(b.errs) == 0 {
		b.checkCycles()
	}
	if len(b.errs) == 0 {
		b.validate(doc)
	}
	if len(b.errs) > 0 {
		return nil, errors.Join(b.errs...)
	}
	s := &Schema{File: doc.file, root: root, doc: doc}
	for _, d := range b.order[1:] {
		s.deps = append(s.deps, d.name)
	}
	slices.Sort(s.deps)
	s.flatten()
	s.graph = buildGraph(root)
	return s, nil
}

// document reads one file's text: JSON with positions, its draft and $id.
func (b *builder) document(name string, data []byte, inherited int, main bool) (*document, error) {
	lines := jsontext.NewLineIndex(data)
	in := func(off int, format string, args ...any) error {
		line, col := lines.Pos(off)
		return &checker.InputError{Span: located.Span{File: name, Line: line, Column: col}, Message: fmt.Sprintf(format, args...)}
	}
	if len(data) > MaxSchemaBytes {
		return nil, in(0, "schema is %d bytes; the limit is %d bytes (8 MiB, jsonschema.MaxSchemaBytes): split it into smaller subjects", len(data), MaxSchemaBytes)
	}
	text, err := parseJSON(data)
	if err != nil {
		var se *jsontext.SyntaxError
		if errors.As(err, &se) {
			return nil, in(se.Off, "invalid JSON: %s", se.Msg)
		}
		return nil, in(0, "%v", err)
	}
	if text.Kind != jsontext.Object && text.Kind != jsontext.Bool {
		return nil, in(text.Off, "a JSON Schema is an object (or true or false), not %s", describeKind(text.Kind))
	}
	d := &document{file: name, name: name, text: text, lines: lines, draft: inherited}
	if s := text.Get("$schema"); s != nil {
		key := strings.TrimSuffix(s.Str, "#")
		key = strings.TrimPrefix(strings.TrimPrefix(key, "https://"), "http://")
		dr, ok := drafts[key]
		if s.Kind != jsontext.String || !ok {
			return nil, in(s.Off, "unknown JSON Schema draft %s in $schema: use one of http://json-schema.org/draft-04/schema#, draft-06, draft-07, https://json-schema.org/draft/2019-09/schema or https://json-schema.org/draft/2020-12/schema", canonical(s))
		}
		d.draft = dr
	}
	idKey := "$id"
	if d.draft == 4 {
		idKey = "id"
	}
	if id := text.Get(idKey); id != nil && id.Kind == jsontext.String {
		d.id = id.Str
	}
	b.docs[name] = d
	b.order = append(b.order, d)
	return d, nil
}

// resolveAll points every $ref at its target, loading the documents they name.
func (b *builder) resolveAll() {
	for len(b.pending) > 0 {
		n := b.pending[len(b.pending)-1]
		b.pending = b.pending[:len(b.pending)-1]
		n.target = b.resolve(n)
	}
}

// refOffset is where a $ref value stands, for messages.
func refOffset(n *node) int {
	if n.src != nil {
		if r := n.src.Get("$ref"); r != nil {
			return r.Off
		}
		return n.src.Off
	}
	return 0
}

// resolve finds the schema a $ref names; nil (with an error recorded) when there is
// none.
func (b *builder) resolve(n *node) *node {
	docPart, frag, _ := strings.Cut(n.ref, "#")
	doc := n.doc
	if docPart != "" {
		if doc = b.refDoc(n, docPart); doc == nil {
			return nil
		}
	}
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	switch {
	case frag == "" || frag == "/":
		return b.load(doc, doc.text, "")
	case strings.HasPrefix(frag, "/"):
		v, _, ok := jsontext.ResolvePointer(doc.text, frag)
		if !ok {
			b.fail(n.doc, refOffset(n), "$ref %q names nothing: %s has no %s; point it at an existing schema (under $defs or definitions)", n.ref, doc.file, frag)
			return nil
		}
		return b.load(doc, v, frag)
	}
	if v, ptr := findAnchor(doc.text, frag, ""); v != nil {
		return b.load(doc, v, ptr)
	}
	b.fail(n.doc, refOffset(n), "$ref %q names the anchor %q, which %s does not define; add \"$anchor\": %q to the schema it means", n.ref, frag, doc.file, frag)
	return nil
}

// refDoc finds or loads the document a $ref's URI part names.
func (b *builder) refDoc(n *node, docPart string) *document {
	for _, d := range b.order {
		if d.id != "" && (d.id == docPart || strings.TrimSuffix(d.id, "#") == docPart) {
			return d
		}
	}
	if n.doc.id != "" {
		if base, err := url.Parse(n.doc.id); err == nil && base.IsAbs() {
			if ref, err := url.Parse(docPart); err == nil {
				abs := base.ResolveReference(ref).String()
				for _, d := range b.order {
					if d.id == abs {
						return d
					}
				}
			}
		}
	}
	if strings.Contains(docPart, "://") {
		b.fail(n.doc, refOffset(n), "$ref %q points outside the repository; add that schema as a file of the tree and refer to it by its file name", n.ref)
		return nil
	}
	name := path.Clean(docPart)
	if path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
		b.fail(n.doc, refOffset(n), "$ref %q reaches outside contracts/; name the other file from contracts/ (domain/subject/file.json), as the registry's schema references name it", n.ref)
		return nil
	}
	if d := b.docs[name]; d != nil {
		return d
	}
	if b.src.Resolve == nil {
		b.fail(n.doc, refOffset(n), "$ref %q names another file (%s), which cannot be read here; check the subject from its contract folder", n.ref, name)
		return nil
	}
	data, err := b.src.Resolve(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			b.fail(n.doc, refOffset(n), "$ref %q names %s, which does not exist; add the file or correct the reference", n.ref, name)
		} else {
			b.fail(n.doc, refOffset(n), "$ref %q names %s, which cannot be read: %v", n.ref, name, err)
		}
		return nil
	}
	d, err := b.document(name, data, n.doc.draft, false)
	if err != nil {
		b.errs = append(b.errs, err)
		return nil
	}
	b.load(d, d.text, "")
	return d
}

// findAnchor finds the schema that declares a plain-name anchor ($anchor, or an $id of
// "#name" in drafts 6 and 7).
func findAnchor(v *jsontext.Node, name, ptr string) (*jsontext.Node, string) {
	if v == nil {
		return nil, ""
	}
	switch v.Kind {
	case jsontext.Object:
		if a := v.Get("$anchor"); a != nil && a.Str == name {
			return v, ptr
		}
		for _, k := range []string{"$id", "id"} {
			if a := v.Get(k); a != nil && a.Kind == jsontext.String && a.Str == "#"+name {
				return v, ptr
			}
		}
		for _, m := range v.Members {
			if r, p := findAnchor(m.Val, name, ptr+"/"+jsontext.EscapePointerToken(m.Key)); r != nil {
				return r, p
			}
		}
	case jsontext.Array:
		for i, el := range v.Elems {
			if r, p := findAnchor(el, name, fmt.Sprintf("%s/%d", ptr, i)); r != nil {
				return r, p
			}
		}
	}
	return nil, ""
}

// checkCycles refuses a $ref that leads, through $ref alone, back to itself: such a
// schema names no schema at all.
func (b *builder) checkCycles() {
	keys := make([]nodeKey, 0)
	for k, n := range b.nodes {
		if n.kind == kRef {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, c nodeKey) int {
		if a.doc.name != c.doc.name {
			return strings.Compare(a.doc.name, c.doc.name)
		}
		return strings.Compare(a.ptr, c.ptr)
	})
	reported := map[*node]bool{}
	for _, k := range keys {
		start := b.nodes[k]
		seen := map[*node]bool{start: true}
		chain := []string{start.ref}
		for cur := start.target; cur != nil && cur.kind == kRef; cur = cur.target {
			if seen[cur] {
				if cur == start && !reported[start] {
					for c := range seen {
						reported[c] = true
					}
					b.fail(start.doc, refOffset(start), "$ref %q is part of a cycle of references (%s) that never reaches a schema; make one of them a schema", start.ref, strings.Join(chain, " -> "))
				}
				break
			}
			seen[cur] = true
			chain = append(chain, cur.ref)
		}
	}
}
