package checker

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// deepGraph is M(depth) with fields a and b of type M(depth-1), M0 with field x:
// 2^(depth+1)-1 paths from depth+1 types.
func deepGraph(depth int) *FieldGraph {
	b := NewGraphBuilder()
	prev := b.Type()
	b.Field(prev, "x")
	for i := 1; i <= depth; i++ {
		t := b.Type()
		b.Field(t, "a", prev)
		b.Field(t, "b", prev)
		prev = t
	}
	b.Root(prev)
	return b.Build()
}

func TestFieldGraphResolvesPathsWithoutListingThem(t *testing.T) {
	g := deepGraph(60) // 2^61 paths
	for path, want := range map[string]bool{
		strings.Repeat("a.", 60) + "x":   true,
		strings.Repeat("b.a.", 30) + "x": true,
		strings.Repeat("a.", 59) + "x":   false,
		strings.Repeat("a.", 61) + "x":   false,
		"a":                              true,
		"c":                              false,
		"":                               false,
	} {
		if got := g.Has(path); got != want {
			t.Errorf("Has(%q) = %v, want %v", path, got, want)
		}
	}
	paths, cutAt := g.Paths(1000)
	if len(paths) != 1000 || cutAt == "" || !g.Has(cutAt) {
		t.Errorf("Paths(1000) = %d paths, cut at %q", len(paths), cutAt)
	}
	small, cutAt := deepGraph(3).Paths(1000)
	if len(small) != 2+4+8+8 || cutAt != "" { // a, b; a.a ... b.b; three levels; then x under each of the 8
		t.Errorf("Paths of a small graph = %d paths %v, cut at %q", len(small), small, cutAt)
	}
}

// A type met again on the way down lists its field but not what is under it, as the
// engines' listings always did; Has agrees with Paths.
func TestFieldGraphRecursion(t *testing.T) {
	b := NewGraphBuilder()
	node := b.Type()
	b.Field(node, "value")
	b.Field(node, "next", node)
	b.Root(node)
	g := b.Build()
	paths, cutAt := g.Paths(100)
	if strings.Join(paths, ",") != "next,value" || cutAt != "" {
		t.Errorf("Paths = %v (cut at %q)", paths, cutAt)
	}
	for _, p := range []string{"next", "value"} {
		if !g.Has(p) {
			t.Errorf("Has(%q) = false", p)
		}
	}
	if g.Has("next.value") {
		t.Error("Has(next.value) = true; the recursion stops at the first repeat")
	}
}

// Two records of a union sharing field names: each path is listed once, and the walk
// stops after a bounded number of fields even when none of them is new.
func TestFieldGraphUnionOfRecords(t *testing.T) {
	b := NewGraphBuilder()
	var prev []int32
	for i := 0; i < 40; i++ {
		r1, r2 := b.Type(), b.Type()
		b.Field(r1, "v", prev...)
		b.Field(r2, "v", prev...)
		prev = []int32{r1, r2}
	}
	b.Root(prev...)
	g := b.Build()
	paths, cutAt := g.Paths(100)
	if len(paths) > 100 || cutAt == "" {
		t.Errorf("Paths = %d paths, cut at %q", len(paths), cutAt)
	}
	if !g.Has(strings.Repeat("v.", 39) + "v") {
		t.Error("the deepest path does not resolve")
	}
}

func TestGraphOfPaths(t *testing.T) {
	g := GraphOfPaths([]string{"a", "b.c", "b.d.e", "b"})
	paths, cutAt := g.Paths(100)
	if strings.Join(paths, ",") != "a,b,b.c,b.d,b.d.e" || cutAt != "" {
		t.Errorf("Paths = %v, cut at %q", paths, cutAt)
	}
	if !g.Has("b.d.e") || g.Has("a.c") {
		t.Error("Has disagrees with the paths")
	}
}

// TestGraphBuildAllocationsDoNotGrowWithFields: a loaded tree keeps every subject's
// graph, and the collector visits each object it holds, so Build makes as many
// allocations for 400 fields as for 4 (the builder's maps are garbage after it).
func TestGraphBuildAllocationsDoNotGrowWithFields(t *testing.T) {
	allocs := func(fields int) uint64 {
		b := NewGraphBuilder()
		root := b.Type()
		for i := 0; i < fields; i++ {
			sub := b.Type()
			b.Field(root, fmt.Sprintf("field_%d", i), sub)
			b.Field(sub, "leaf")
		}
		b.Root(root)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		g := b.Build()
		runtime.ReadMemStats(&after)
		if !g.Has(fmt.Sprintf("field_%d.leaf", fields-1)) {
			t.Fatalf("the graph of %d fields lost a field", fields)
		}
		return after.Mallocs - before.Mallocs
	}
	small, large := allocs(4), allocs(400)
	if large > small+4 {
		t.Errorf("Build of 400 fields made %d allocations, of 4 fields %d: want about as many", large, small)
	}
}

// TestGraphHoldsNoPointersPerField: a loaded tree keeps one graph per subject, and the
// collector scans every block that may hold pointers on every cycle. A graph's
// blocks (its name text and its slices) hold plain numbers only, so it is marked in
// a handful of steps however many fields it has.
func TestGraphHoldsNoPointersPerField(t *testing.T) {
	var pointers func(reflect.Type) bool
	pointers = func(typ reflect.Type) bool {
		switch typ.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.String, reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer:
			return true
		case reflect.Array:
			return pointers(typ.Elem())
		case reflect.Struct:
			for i := 0; i < typ.NumField(); i++ {
				if pointers(typ.Field(i).Type) {
					return true
				}
			}
		}
		return false
	}
	graph := reflect.TypeFor[FieldGraph]()
	for i := 0; i < graph.NumField(); i++ {
		f := graph.Field(i)
		switch f.Type.Kind() {
		case reflect.String:
		case reflect.Slice:
			if pointers(f.Type.Elem()) {
				t.Errorf("FieldGraph.%s is a %s: its elements hold pointers the collector scans", f.Name, f.Type)
			}
		default:
			t.Errorf("FieldGraph.%s is a %s, want a string or a slice of plain values", f.Name, f.Type)
		}
	}
}
