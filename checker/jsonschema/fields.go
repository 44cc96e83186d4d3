package jsonschema

import (
	"fmt"
	"slices"
	"sort"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/jsontext"
	"github.com/contractbot/contractbot/checker/located"
)

// fieldInfo is one property reached by a dotted path.
type fieldInfo struct {
	path, name string
	// n is the property's schema; ptr the pointer of its entry under properties, in doc.
	n        *node
	ptr      string
	doc      *document
	required bool
	depth    int
}

// flatten lists every property by dotted path, up to checker.MaxFieldPaths of them.
// Objects nest their properties under the parent's name; arrays (items, prefixItems,
// additionalItems), combinations and $ref are transparent; a schema already being
// expanded on the way down is not expanded again. The walk stops at the first property
// past the budget (s.cut), or after 4 x the budget properties met (combinations of
// objects sharing property names meet the same path more than once).
func (s *Schema) flatten() {
	s.byPath = map[string]*fieldInfo{}
	onPath := map[*node]bool{}
	visits := 0
	var walk func(n *node, prefix string, depth int)
	walk = func(n *node, prefix string, depth int) {
		n = deref(n)
		if n == nil || onPath[n] || s.cut != nil {
			return
		}
		onPath[n] = true
		defer delete(onPath, n)
		switch n.kind {
		case kObject:
			for _, p := range n.props {
				if s.cut != nil {
					return
				}
				path := p.name
				if prefix != "" {
					path = prefix + "." + p.name
				}
				fi := &fieldInfo{path: path, name: p.name, n: p.n, ptr: n.ptr + "/properties/" + jsontext.EscapePointerToken(p.name),
					doc: n.doc, required: n.required[p.name], depth: depth}
				visits++
				if _, dup := s.byPath[path]; !dup && len(s.fields) >= checker.MaxFieldPaths || visits > 4*checker.MaxFieldPaths {
					s.cut = fi
					return
				}
				if _, dup := s.byPath[path]; !dup {
					s.fields = append(s.fields, fi)
					s.byPath[path] = fi
				}
				walk(p.n, path, depth+1)
			}
		case kArray:
			walk(n.items, prefix, depth)
			for _, it := range n.itemList {
				walk(it, prefix, depth)
			}
			walk(n.addlItems, prefix, depth)
		case kCombined:
			for _, sub := range n.subs {
				walk(sub, prefix, depth)
			}
		}
	}
	walk(s.root, "", 0)
	s.declared = slices.Clone(s.fields)
	sort.Slice(s.fields, func(i, j int) bool { return s.fields[i].path < s.fields[j].path })
}

// buildGraph walks the object schemas once each and returns their properties as a
// graph.
func buildGraph(root *node) *checker.FieldGraph {
	b := checker.NewGraphBuilder()
	ids := map[*node]int32{}
	var add func(n *node) int32
	add = func(n *node) int32 {
		if id, ok := ids[n]; ok {
			return id
		}
		id := b.Type()
		ids[n] = id
		for _, p := range n.props {
			var next []int32
			for _, o := range objectsOf(p.n, nil, map[*node]bool{}) {
				next = append(next, add(o))
			}
			b.Field(id, p.name, next...)
		}
		return id
	}
	for _, o := range objectsOf(root, nil, map[*node]bool{}) {
		b.Root(add(o))
	}
	return b.Build()
}

// objectsOf lists the object schemas a schema holds, seeing through $ref, arrays and
// combinations.
func objectsOf(n *node, out []*node, seen map[*node]bool) []*node {
	n = deref(n)
	if n == nil || seen[n] {
		return out
	}
	seen[n] = true
	switch n.kind {
	case kObject:
		return append(out, n)
	case kArray:
		out = objectsOf(n.items, out, seen)
		for _, it := range n.itemList {
			out = objectsOf(it, out, seen)
		}
		return objectsOf(n.addlItems, out, seen)
	case kCombined:
		for _, s := range n.subs {
			out = objectsOf(s, out, seen)
		}
	}
	return out
}

// FieldGraph returns the properties as a graph of the schema's objects, each once:
// a path past the FieldPaths listing still resolves.
func (s *Schema) FieldGraph() *checker.FieldGraph { return s.graph }

// FieldPathsCut says where the FieldPaths listing stopped; nil when it is whole.
func (s *Schema) FieldPathsCut() *checker.InputError {
	if s.cut == nil {
		return nil
	}
	line, col := s.cut.doc.position(s.cut.ptr)
	return &checker.InputError{Span: located.Span{File: s.cut.doc.file, Line: line, Column: col}, Message: fmt.Sprintf(
		"the schema has more than %d field paths (%s). Only the first %d are listed (on the subject's page and in suggestions); the list stops before %s. Consumers' reads and lineage are still checked against the objects, but a change to the schema is compared field by field only within the list, and counts as breaking for every consumer.",
		checker.MaxFieldPaths, s.graph.Why(), checker.MaxFieldPaths, s.cut.path)}
}

// FieldPaths returns every property's dotted path, sorted: nested objects contribute
// their properties under the parent's name, and arrays are transparent (a property
// `items` holding an array of objects with `sku` gives "items" and "items.sku").
func (s *Schema) FieldPaths() []string {
	out := make([]string, len(s.fields))
	for i, f := range s.fields {
		out[i] = f.path
	}
	return out
}

// Pos returns where the property with that dotted path is declared (its name under
// properties), 1-based.
func (s *Schema) Pos(fieldPath string) (line, col int, ok bool) {
	f, found := s.byPath[fieldPath]
	if !found {
		return 0, 0, false
	}
	line, col = f.doc.position(f.ptr)
	return line, col, true
}
