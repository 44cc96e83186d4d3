package checker

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// FieldGraph is a schema's fields as a graph of its types: each record or message
// once, each of its fields leading to the types of its value (several for an Avro union
// of records; none for a scalar). Unions, arrays, maps and oneofs are transparent, as in
// dotted field paths. A path is resolved by walking it through the graph, so checking a
// consumer's `reads` costs the length of the path, however many paths the schema has.
type FieldGraph struct {
	// Every slice below holds plain numbers and the names are one string, so the
	// collector marks a graph's five blocks without scanning them: a loaded tree
	// keeps one graph per subject (contract.LoadForLint), and at 100,000 subjects a
	// string and a slice header per field were a fifth of the heap it scanned on
	// every cycle (issue 31).
	text   string       // every field name, one after the other
	fields []graphField // each type's fields, sorted by name, type after type
	types  []int32      // type i's fields are fields[types[i]:types[i+1]]
	next   []int32      // a field's value types are next[f.next:f.nextEnd]
	root   []int32
}

// graphField is one field of a type: its name text[name:nameEnd] and the types its
// value leads to.
type graphField struct {
	name, nameEnd, next, nextEnd int32
}

// GraphBuilder builds a FieldGraph; the engines call it while walking their types once.
type GraphBuilder struct {
	open []map[string][]int32 // per type: its fields and the types each leads to
	root []int32
}

// NewGraphBuilder starts a graph.
func NewGraphBuilder() *GraphBuilder { return &GraphBuilder{} }

// Type adds a type and returns its id; call it once per type.
func (b *GraphBuilder) Type() int32 {
	b.open = append(b.open, map[string][]int32{})
	return int32(len(b.open) - 1)
}

// Field adds a field of type t leading to the types next (none for a scalar). A field
// name given twice (an Avro union of records sharing a field name) leads to all of
// their types.
func (b *GraphBuilder) Field(t int32, name string, next ...int32) {
	m := b.open[t]
	m[name] = append(m[name], next...)
}

// Root sets the types at the top of every path (the record message, or an Avro
// schema's record or the records of its top-level union).
func (b *GraphBuilder) Root(types ...int32) { b.root = append(b.root, types...) }

// Build returns the graph; the builder must not be used afterwards. The graph is a
// few allocations whatever its size, none of them holding pointers: the field names
// are windows on one string, every type's fields and every field's next types
// windows on one slice each.
func (b *GraphBuilder) Build() *FieldGraph {
	fields, targets, text := 0, 0, 0
	for _, m := range b.open {
		for n, next := range m {
			fields++
			targets += len(next)
			text += len(n)
		}
	}
	g := &FieldGraph{
		fields: make([]graphField, 0, fields),
		types:  make([]int32, 0, len(b.open)+1),
		next:   make([]int32, 0, targets), // never grown: the windows stay on it
		root:   b.root,
	}
	var blob strings.Builder
	blob.Grow(text)
	names := make([]string, 0, fields)
	for _, m := range b.open {
		g.types = append(g.types, int32(len(g.fields)))
		names = names[:0]
		for n := range m {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			f := graphField{name: int32(blob.Len()), nameEnd: int32(blob.Len() + len(n)), next: int32(len(g.next))}
			blob.WriteString(n)
			g.next = append(g.next, m[n]...)
			slices.Sort(g.next[f.next:])
			g.next = g.next[:int(f.next)+len(slices.Compact(g.next[f.next:]))]
			f.nextEnd = int32(len(g.next))
			g.fields = append(g.fields, f)
		}
	}
	g.types = append(g.types, int32(len(g.fields)))
	g.text = blob.String()
	b.open, b.root = nil, nil
	return g
}

// GraphOfPaths builds the graph of a schema known only by its dotted field paths (each
// path's parent a type of its own): for engines whose schemas reuse no types.
func GraphOfPaths(paths []string) *FieldGraph {
	b := NewGraphBuilder()
	root := b.Type()
	b.Root(root)
	types := map[string]int32{"": root}
	var typeOf func(prefix string) int32
	typeOf = func(prefix string) int32 {
		if id, ok := types[prefix]; ok {
			return id
		}
		parent, name := "", prefix
		if i := strings.LastIndexByte(prefix, '.'); i >= 0 {
			parent, name = prefix[:i], prefix[i+1:]
		}
		id := b.Type()
		types[prefix] = id
		b.Field(typeOf(parent), name, id)
		return id
	}
	for _, p := range paths {
		parent, name := "", p
		if i := strings.LastIndexByte(p, '.'); i >= 0 {
			parent, name = p[:i], p[i+1:]
		}
		b.Field(typeOf(parent), name)
	}
	return b.Build()
}

// Types is the number of types in the graph.
func (g *FieldGraph) Types() int { return len(g.types) - 1 }

// Fields is the number of fields of all its types, each type counted once.
func (g *FieldGraph) Fields() int { return len(g.fields) }

// Why says, for a message that a listing was cut, why the paths are so many.
func (g *FieldGraph) Why() string {
	if g.Fields() > MaxFieldPaths {
		return fmt.Sprintf("its %d types hold %d fields", g.Types(), g.Fields())
	}
	return fmt.Sprintf("its %d types hold only %d fields, but a type used by more than one field repeats its fields under each, level after level", g.Types(), g.Fields())
}

// typeFields returns type id's fields.
func (g *FieldGraph) typeFields(id int32) []graphField {
	return g.fields[g.types[id]:g.types[id+1]]
}

// name returns a field's name.
func (g *FieldGraph) name(f graphField) string { return g.text[f.name:f.nameEnd] }

// targets returns the types a field's value leads to.
func (g *FieldGraph) targets(f graphField) []int32 { return g.next[f.next:f.nextEnd:f.nextEnd] }

// field finds a field of type id by name.
func (g *FieldGraph) field(id int32, name string) (graphField, bool) {
	fs := g.typeFields(id)
	i, ok := slices.BinarySearchFunc(fs, name, func(f graphField, name string) int { return strings.Compare(g.name(f), name) })
	if !ok {
		return graphField{}, false
	}
	return fs[i], true
}

// Has reports whether a dotted path names a field: each part a field of one of the
// types reached so far. A type met again on the way down is not expanded (a recursive
// type stops at its first repeat), as in Paths.
func (g *FieldGraph) Has(path string) bool {
	if g == nil || path == "" {
		return false
	}
	parts := strings.Split(path, ".")
	// failed memoises (type, depth) pairs from which the rest of the path does not
	// resolve, so a union of records sharing field names costs types x depth at most.
	failed := map[[2]int32]bool{}
	var walk func(types []int32, i int, onPath []int32) bool
	walk = func(types []int32, i int, onPath []int32) bool {
		for _, id := range types {
			if slices.Contains(onPath, id) || failed[[2]int32{id, int32(i)}] {
				continue
			}
			if f, ok := g.field(id, parts[i]); ok {
				if i == len(parts)-1 || walk(g.targets(f), i+1, append(onPath, id)) {
					return true
				}
			}
			failed[[2]int32{id, int32(i)}] = true
		}
		return false
	}
	return walk(g.root, 0, nil)
}

// Paths lists dotted field paths, depth first in field-name order, at most limit of
// them (then sorted), and the first path left out ("" when that is all of them). A
// type met again on the way down lists its field but not the fields under it. The
// walk itself stops after 4 x limit fields too (Avro unions of records sharing field
// names meet the same path more than once).
func (g *FieldGraph) Paths(limit int) (paths []string, cutAt string) {
	if g == nil {
		return nil, ""
	}
	seen := map[string]bool{}
	complete := true
	visits := 0
	var onPath []int32
	var walk func(types []int32, prefix string)
	walk = func(types []int32, prefix string) {
		for _, id := range types {
			if !complete {
				return
			}
			if slices.Contains(onPath, id) {
				continue
			}
			onPath = append(onPath, id)
			for _, f := range g.typeFields(id) {
				p := g.name(f)
				if prefix != "" {
					p = prefix + "." + p
				}
				if visits++; visits > 4*limit || !seen[p] && len(paths) >= limit {
					complete, cutAt = false, p
					break
				}
				if !seen[p] {
					seen[p] = true
					paths = append(paths, p)
				}
				walk(g.targets(f), p)
				if !complete {
					break
				}
			}
			onPath = onPath[:len(onPath)-1]
		}
	}
	walk(g.root, "")
	sort.Strings(paths)
	return paths, cutAt
}

// FieldGraphData is a FieldGraph as plain data (FieldGraph.Data), for a cache of parse
// results that keeps the graph instead of parsing the schema again.
type FieldGraphData struct {
	Names [][]string  // per type: its field names, sorted
	Next  [][][]int32 // per type and field: the types the field leads to
	Root  []int32
}

// Data returns the graph as plain data.
func (g *FieldGraph) Data() FieldGraphData {
	d := FieldGraphData{Root: g.root, Names: make([][]string, g.Types()), Next: make([][][]int32, g.Types())}
	for i := range d.Names {
		for _, f := range g.typeFields(int32(i)) {
			d.Names[i] = append(d.Names[i], g.name(f))
			d.Next[i] = append(d.Next[i], g.targets(f))
		}
	}
	return d
}

// Graph rebuilds the graph Data returned, refusing data whose fields lead to types it
// does not have.
func (d FieldGraphData) Graph() (*FieldGraph, error) {
	if len(d.Names) != len(d.Next) {
		return nil, fmt.Errorf("field graph data: %d types with names, %d with fields", len(d.Names), len(d.Next))
	}
	valid := func(ids []int32) bool {
		return !slices.ContainsFunc(ids, func(id int32) bool { return id < 0 || int(id) >= len(d.Names) })
	}
	if !valid(d.Root) {
		return nil, fmt.Errorf("field graph data: a root type out of range")
	}
	b := NewGraphBuilder()
	for i := range d.Names {
		if len(d.Names[i]) != len(d.Next[i]) || !slices.IsSorted(d.Names[i]) || slices.ContainsFunc(d.Next[i], func(n []int32) bool { return !valid(n) }) {
			return nil, fmt.Errorf("field graph data: type %d is inconsistent", i)
		}
		t := b.Type()
		for j, n := range d.Names[i] {
			b.Field(t, n, d.Next[i][j]...)
		}
	}
	b.Root(d.Root...)
	return b.Build(), nil
}
