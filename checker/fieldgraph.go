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
	types []graphType
	root  []int32
}

type graphType struct {
	names []string  // sorted field names
	next  [][]int32 // per field: the types its value leads to
}

// GraphBuilder builds a FieldGraph; the engines call it while walking their types once.
type GraphBuilder struct {
	g    FieldGraph
	open map[int32]map[string][]int32
}

// NewGraphBuilder starts a graph.
func NewGraphBuilder() *GraphBuilder { return &GraphBuilder{open: map[int32]map[string][]int32{}} }

// Type adds a type and returns its id; call it once per type.
func (b *GraphBuilder) Type() int32 {
	b.g.types = append(b.g.types, graphType{})
	id := int32(len(b.g.types) - 1)
	b.open[id] = map[string][]int32{}
	return id
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
func (b *GraphBuilder) Root(types ...int32) { b.g.root = append(b.g.root, types...) }

// Build returns the graph; the builder must not be used afterwards. The graph is a
// few allocations whatever its size: the field names are substrings of one string,
// and every type's names and every field's next types are windows on one slice each.
// A loaded tree keeps the graph of every subject (contract.LoadForLint), and the
// collector visits each object it holds on every cycle.
func (b *GraphBuilder) Build() *FieldGraph {
	fields, targets, text := 0, 0, 0
	for _, m := range b.open {
		for n, next := range m {
			fields++
			targets += len(next)
			text += len(n)
		}
	}
	// Each type's field names, sorted, as a window on one slice.
	keys := make([]string, 0, fields)
	ends := make([]int, len(b.g.types))
	for id := range b.g.types {
		start := len(keys)
		for n := range b.open[int32(id)] {
			keys = append(keys, n)
		}
		sort.Strings(keys[start:])
		ends[id] = len(keys)
	}
	var blob strings.Builder
	blob.Grow(text)
	for _, n := range keys {
		blob.WriteString(n)
	}
	all := blob.String()
	names := make([]string, 0, fields)
	nexts := make([][]int32, 0, fields)
	flat := make([]int32, 0, targets) // never grown: the windows stay on it
	at := 0
	for id := range b.g.types {
		first := len(names)
		for _, n := range keys[first:ends[id]] {
			names = append(names, all[at:at+len(n)])
			at += len(n)
			start := len(flat)
			flat = append(flat, b.open[int32(id)][n]...)
			slices.Sort(flat[start:])
			flat = flat[:start+len(slices.Compact(flat[start:]))]
			var next []int32
			if len(flat) > start {
				next = flat[start:len(flat):len(flat)]
			}
			nexts = append(nexts, next)
		}
		b.g.types[id].names = names[first:len(names):len(names)]
		b.g.types[id].next = nexts[first:len(nexts):len(nexts)]
	}
	b.open = nil
	return &b.g
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
func (g *FieldGraph) Types() int { return len(g.types) }

// Fields is the number of fields of all its types, each type counted once.
func (g *FieldGraph) Fields() int {
	n := 0
	for _, t := range g.types {
		n += len(t.names)
	}
	return n
}

// Why says, for a message that a listing was cut, why the paths are so many.
func (g *FieldGraph) Why() string {
	if g.Fields() > MaxFieldPaths {
		return fmt.Sprintf("its %d types hold %d fields", len(g.types), g.Fields())
	}
	return fmt.Sprintf("its %d types hold only %d fields, but a type used by more than one field repeats its fields under each, level after level", len(g.types), g.Fields())
}

func (t *graphType) field(name string) (int, bool) {
	return slices.BinarySearch(t.names, name)
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
			t := &g.types[id]
			if j, ok := t.field(parts[i]); ok {
				if i == len(parts)-1 || walk(t.next[j], i+1, append(onPath, id)) {
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
			t := &g.types[id]
			for j, name := range t.names {
				p := name
				if prefix != "" {
					p = prefix + "." + name
				}
				if visits++; visits > 4*limit || !seen[p] && len(paths) >= limit {
					complete, cutAt = false, p
					break
				}
				if !seen[p] {
					seen[p] = true
					paths = append(paths, p)
				}
				walk(t.next[j], p)
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

// Data returns the graph as plain data; it shares the graph's slices.
func (g *FieldGraph) Data() FieldGraphData {
	d := FieldGraphData{Root: g.root, Names: make([][]string, len(g.types)), Next: make([][][]int32, len(g.types))}
	for i, t := range g.types {
		d.Names[i], d.Next[i] = t.names, t.next
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
	g := &FieldGraph{types: make([]graphType, len(d.Names)), root: d.Root}
	for i := range d.Names {
		if len(d.Names[i]) != len(d.Next[i]) || !slices.IsSorted(d.Names[i]) || slices.ContainsFunc(d.Next[i], func(n []int32) bool { return !valid(n) }) {
			return nil, fmt.Errorf("field graph data: type %d is inconsistent", i)
		}
		g.types[i] = graphType{names: d.Names[i], next: d.Next[i]}
	}
	return g, nil
}
