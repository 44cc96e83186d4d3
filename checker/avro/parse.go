package avro

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/jsontext"
	"github.com/contractbot/contractbot/checker/located"
	"github.com/hamba/avro/v2"
)

// Schema is one parsed Avro schema: hamba/avro's model of it, plus where every element
// stands in the text, so findings and changes can name a line and column.
type Schema struct {
	// File is the name used in messages.
	File string

	root  avro.Schema
	text  *jsontext.Node
	lines jsontext.LineIndex
	// defs maps each named type to the JSON pointer of its definition.
	defs map[avro.NamedSchema]string

	fields []*fieldInfo // sorted by path
	// declared are the same fields in declaration order, nested fields after their
	// parent (the order DescribeFields shows).
	declared []*fieldInfo
	byPath   map[string]*fieldInfo
	// cut is the field the listing stopped before (nil when it holds every path);
	// graph is the fields as a graph of records, each once.
	cut   *fieldInfo
	graph *checker.FieldGraph
	// records holds a compact summary of each record's fields, for pairing reader
	// and writer fields without touching hamba's scattered Field values.
	records map[*avro.RecordSchema]*recordInfo
}

// recordInfo summarises a record's fields: names, primitive types ("" for any other
// type) and, for records of more than a few fields, an index by name.
type recordInfo struct {
	names  []string
	prims  []primCode
	byName map[string]int
}

func newRecordInfo(t *avro.RecordSchema) *recordInfo {
	fs := t.Fields()
	ri := &recordInfo{names: make([]string, len(fs)), prims: make([]primCode, len(fs))}
	for j, f := range fs {
		ri.names[j] = f.Name()
		if p, ok := f.Type().(*avro.PrimitiveSchema); ok {
			ri.prims[j] = primCodeOf(p.Type())
		}
	}
	if len(fs) > 8 {
		ri.byName = make(map[string]int, len(fs))
		for j, f := range fs {
			if _, dup := ri.byName[f.Name()]; !dup {
				ri.byName[f.Name()] = j
			}
		}
	}
	return ri
}

// Avro returns hamba/avro's parsed schema.
func (s *Schema) Avro() avro.Schema { return s.root }

// Parse reads one Avro schema. Unusable input is a *checker.InputError with the line and
// column of the problem (1-based) and a sentence that says what to fix.
func Parse(in checker.Input) (s *Schema, err error) {
	if len(in.Data) > MaxSchemaBytes {
		return nil, &checker.InputError{Span: located.Span{File: in.Path, Line: 1, Column: 1}, Message: fmt.Sprintf(
			"schema is %d bytes; the limit is %d bytes (8 MiB, avro.MaxSchemaBytes): split it into smaller subjects", len(in.Data), MaxSchemaBytes)}
	}
	lines := jsontext.NewLineIndex(in.Data)
	if _, off := countValues(in.Data, MaxValues+1); off >= 0 {
		line, col := lines.Pos(off)
		return nil, &checker.InputError{Span: located.Span{File: in.Path, Line: line, Column: col}, Message: tooWide()}
	}
	text, err := parseJSON(in.Data)
	if err != nil {
		var se *jsontext.SyntaxError
		if errors.As(err, &se) {
			line, col := lines.Pos(se.Off)
			return nil, &checker.InputError{Span: located.Span{File: in.Path, Line: line, Column: col}, Message: "invalid JSON: " + se.Msg}
		}
		return nil, &checker.InputError{Span: located.Span{File: in.Path, Line: 1, Column: 1}, Message: err.Error()}
	}
	if ptr, msg := checkShape(text, ""); msg != "" {
		line, col := lines.Pos(valueOffset(text, ptr))
		return nil, &checker.InputError{Span: located.Span{File: in.Path, Line: line, Column: col}, Message: msg}
	}
	var root avro.Schema
	if filled, ok := fillRecordDefaults(text); ok {
		root, err = parseHamba(filled)
	} else if root, err = buildHamba(text); err != nil {
		root, err = parseHamba(in.Data)
	} else if checkBuild != nil {
		checkBuild(in.Data, root)
	}
	if err != nil {
		ptr, msg := explainHambaError(text, err)
		line, col := lines.Pos(valueOffset(text, ptr))
		return nil, &checker.InputError{Span: located.Span{File: in.Path, Line: line, Column: col}, Message: msg}
	}
	s = &Schema{File: in.Path, root: root, text: text, lines: lines, defs: map[avro.NamedSchema]string{}, records: map[*avro.RecordSchema]*recordInfo{}}
	s.index(root, text, "")
	s.flatten()
	s.graph = buildGraph(root)
	return s, nil
}

// checkBuild, set by the package's tests, compares every schema buildHamba built
// with hamba's own parse of the same text.
var checkBuild func(data []byte, built avro.Schema)

// parseHamba parses with a fresh cache, so names never leak between schemas, and turns
// a panic inside the library into an error.
func parseHamba(data []byte) (sch avro.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			sch, err = nil, fmt.Errorf("avro: schema could not be parsed (%v)", r)
		}
	}()
	return avro.ParseBytesWithCache(data, "", &avro.SchemaCache{})
}

// valueOffset is where the value a pointer names starts (for errors, which are about
// the value rather than its key).
func valueOffset(root *jsontext.Node, ptr string) int {
	n, off, ok := jsontext.ResolvePointer(root, ptr)
	if ok && n != nil {
		return n.Off
	}
	return off
}

// deref follows a named-type reference to its definition.
func deref(s avro.Schema) avro.Schema {
	if r, ok := s.(*avro.RefSchema); ok {
		return r.Schema()
	}
	return s
}

// typeNode returns the node that holds a type written at n: the array of a union
// written as {"type": [...]}, n itself otherwise.
func typeNode(n *jsontext.Node, ptr string) (*jsontext.Node, string) {
	if n != nil && n.Kind == jsontext.Object {
		if t := n.Get("type"); t != nil && t.Kind == jsontext.Array {
			return t, ptr + "/type"
		}
	}
	return n, ptr
}

// isDefinition reports whether n defines a named type (rather than referring to one).
func isDefinition(n *jsontext.Node) bool {
	if n == nil || n.Kind != jsontext.Object {
		return false
	}
	t := n.Get("type")
	if t == nil || t.Kind != jsontext.String {
		return false
	}
	switch t.Str {
	case "record", "error", "enum", "fixed":
		return true
	}
	return false
}

// index walks hamba's schema and the JSON text together and records where each named
// type is defined.
func (s *Schema) index(sch avro.Schema, n *jsontext.Node, ptr string) {
	n, ptr = typeNode(n, ptr)
	if n == nil {
		return
	}
	switch t := sch.(type) {
	case *avro.RecordSchema:
		if !isDefinition(n) {
			return
		}
		s.defs[t] = ptr
		s.records[t] = newRecordInfo(t)
		fields := n.Get("fields")
		for i, f := range t.Fields() {
			if fields == nil || i >= len(fields.Elems) {
				return
			}
			fp := fmt.Sprintf("%s/fields/%d", ptr, i)
			s.index(f.Type(), fields.Elems[i].Get("type"), fp+"/type")
		}
	case *avro.EnumSchema:
		if isDefinition(n) {
			s.defs[t] = ptr
		}
	case *avro.FixedSchema:
		if isDefinition(n) {
			s.defs[t] = ptr
		}
	case *avro.ArraySchema:
		s.index(t.Items(), n.Get("items"), ptr+"/items")
	case *avro.MapSchema:
		s.index(t.Values(), n.Get("values"), ptr+"/values")
	case *avro.UnionSchema:
		if n.Kind != jsontext.Array {
			return
		}
		for i, b := range t.Types() {
			if i < len(n.Elems) {
				s.index(b, n.Elems[i], fmt.Sprintf("%s/%d", ptr, i))
			}
		}
	}
}

// pointerOf returns the pointer of a type reached at ptr: a named type's definition,
// wherever it is referred to from; ptr itself for anything else.
func (s *Schema) pointerOf(sch avro.Schema, ptr string) string {
	if ns, ok := deref(sch).(avro.NamedSchema); ok {
		if p, ok := s.defs[ns]; ok {
			return p
		}
	}
	return ptr
}

// position returns the line and column a pointer names, using the deepest part of it
// that exists in the text.
func (s *Schema) position(ptr string) (line, col int) {
	_, off, _ := jsontext.ResolvePointer(s.text, ptr)
	return s.lines.Pos(off)
}

// fieldInfo is one field reached by a dotted path.
type fieldInfo struct {
	path   string
	name   string
	field  *avro.Field
	ptr    string // pointer of the field's object
	record *avro.RecordSchema
	depth  int
}

// flatten lists every field by dotted path, up to checker.MaxFieldPaths of them.
// Unions, arrays and maps are transparent; a record already being expanded on the way
// down is not expanded again. The walk stops at the first field past the budget (s.cut)
// or after 4 x the budget fields met (a union of records sharing field names meets the
// same path more than once).
func (s *Schema) flatten() {
	s.byPath = map[string]*fieldInfo{}
	onPath := map[*avro.RecordSchema]bool{}
	visits := 0
	var walk func(t avro.Schema, prefix string, depth int)
	walk = func(t avro.Schema, prefix string, depth int) {
		switch t := deref(t).(type) {
		case *avro.RecordSchema:
			if onPath[t] {
				return
			}
			onPath[t] = true
			defer delete(onPath, t)
			base := s.defs[t]
			for i, f := range t.Fields() {
				if s.cut != nil {
					return
				}
				path := f.Name()
				if prefix != "" {
					path = prefix + "." + path
				}
				fi := &fieldInfo{path: path, name: f.Name(), field: f, ptr: fmt.Sprintf("%s/fields/%d", base, i), record: t, depth: depth}
				visits++
				if _, dup := s.byPath[path]; !dup && len(s.fields) >= checker.MaxFieldPaths || visits > 4*checker.MaxFieldPaths {
					s.cut = fi
					return
				}
				if _, dup := s.byPath[path]; !dup {
					s.fields = append(s.fields, fi)
					s.byPath[path] = fi
				}
				walk(f.Type(), path, depth+1)
			}
		case *avro.ArraySchema:
			walk(t.Items(), prefix, depth)
		case *avro.MapSchema:
			walk(t.Values(), prefix, depth)
		case *avro.UnionSchema:
			for _, b := range t.Types() {
				walk(b, prefix, depth)
			}
		}
	}
	walk(s.root, "", 0)
	s.declared = slices.Clone(s.fields)
	sort.Slice(s.fields, func(i, j int) bool { return s.fields[i].path < s.fields[j].path })
}

// buildGraph walks the records of a schema once each and returns their fields as a
// graph.
func buildGraph(root avro.Schema) *checker.FieldGraph {
	b := checker.NewGraphBuilder()
	ids := map[*avro.RecordSchema]int32{}
	var add func(r *avro.RecordSchema) int32
	add = func(r *avro.RecordSchema) int32 {
		if id, ok := ids[r]; ok {
			return id
		}
		id := b.Type()
		ids[r] = id
		for _, f := range r.Fields() {
			var next []int32
			for _, sub := range recordsOf(f.Type(), nil) {
				next = append(next, add(sub))
			}
			b.Field(id, f.Name(), next...)
		}
		return id
	}
	for _, r := range recordsOf(root, nil) {
		b.Root(add(r))
	}
	return b.Build()
}

// recordsOf lists the records a type holds, seeing through unions, arrays and maps.
func recordsOf(t avro.Schema, out []*avro.RecordSchema) []*avro.RecordSchema {
	switch t := deref(t).(type) {
	case *avro.RecordSchema:
		return append(out, t)
	case *avro.ArraySchema:
		return recordsOf(t.Items(), out)
	case *avro.MapSchema:
		return recordsOf(t.Values(), out)
	case *avro.UnionSchema:
		for _, b := range t.Types() {
			out = recordsOf(b, out)
		}
	}
	return out
}

// FieldPaths returns the fields' dotted paths, at most checker.MaxFieldPaths of them,
// sorted. Nested records contribute their fields under the parent field's name;
// unions, arrays and maps are transparent (field `items` = array of record with field
// `sku` gives "items" and "items.sku"); recursive types stop at the first repeat.
// FieldPathsCut says when the list is cut.
func (s *Schema) FieldPaths() []string {
	out := make([]string, len(s.fields))
	for i, f := range s.fields {
		out[i] = f.path
	}
	return out
}

// FieldGraph returns the fields as a graph of the schema's records, each once:
// FieldGraph().Has(path) resolves a dotted path however many paths the schema has.
func (s *Schema) FieldGraph() *checker.FieldGraph { return s.graph }

// FieldPathsCut returns, when FieldPaths stops at checker.MaxFieldPaths, where and why
// (at the first field left out); nil when the list is whole.
func (s *Schema) FieldPathsCut() *checker.InputError {
	if s.cut == nil {
		return nil
	}
	line, col := s.position(s.cut.ptr)
	return &checker.InputError{Span: located.Span{File: s.File, Line: line, Column: col}, Message: fmt.Sprintf(
		"the schema has more than %d field paths (%s). Only the first %d are listed (on the subject's page and in suggestions); the list stops before %s (a field of record %s). Consumers' reads and lineage are still checked against the records, but a change to the schema is compared field by field only within the list, and counts as breaking for every consumer.",
		checker.MaxFieldPaths, s.graph.Why(), checker.MaxFieldPaths, s.cut.path, s.cut.record.FullName())}
}

// Pos returns where the field with that dotted path is defined in the text (the start
// of its JSON object), 1-based.
func (s *Schema) Pos(fieldPath string) (line, col int, ok bool) {
	f, found := s.byPath[fieldPath]
	if !found {
		return 0, 0, false
	}
	line, col = s.position(f.ptr)
	return line, col, true
}
