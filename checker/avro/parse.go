package avro

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/hamba/avro/v2"
)

// Schema is one parsed Avro schema: hamba/avro's model of it, plus where every element
// stands in the text, so findings and changes can name a line and column.
type Schema struct {
	// File is the name used in messages.
	File string

	root  avro.Schema
	text  *jnode
	lines lineIndex
	// defs maps each named type to the JSON pointer of its definition.
	defs map[avro.NamedSchema]string

	fields []*fieldInfo
	byPath map[string]*fieldInfo
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

// maxFieldPaths bounds the flattened field list (a type reused at every level of a deep
// tree would otherwise expand exponentially).
const maxFieldPaths = 100_000

// Parse reads one Avro schema. Unusable input is a *checker.InputError with the line and
// column of the problem (1-based) and a sentence that says what to fix.
func Parse(in checker.Input) (s *Schema, err error) {
	if len(in.Data) > MaxSchemaBytes {
		return nil, &checker.InputError{File: in.Path, Line: 1, Column: 1, Message: fmt.Sprintf(
			"schema is %d bytes; the limit is %d bytes (8 MiB, avro.MaxSchemaBytes): split it into smaller subjects", len(in.Data), MaxSchemaBytes)}
	}
	lines := newLineIndex(in.Data)
	text, err := parseJSON(in.Data)
	if err != nil {
		var se *syntaxError
		if errors.As(err, &se) {
			line, col := lines.pos(se.off)
			return nil, &checker.InputError{File: in.Path, Line: line, Column: col, Message: "invalid JSON: " + se.msg}
		}
		return nil, &checker.InputError{File: in.Path, Line: 1, Column: 1, Message: err.Error()}
	}
	if ptr, msg := checkShape(text, ""); msg != "" {
		line, col := lines.pos(valueOffset(text, ptr))
		return nil, &checker.InputError{File: in.Path, Line: line, Column: col, Message: msg}
	}
	root, err := parseHamba(in.Data)
	if err != nil {
		ptr, msg := explainHambaError(text, err)
		line, col := lines.pos(valueOffset(text, ptr))
		return nil, &checker.InputError{File: in.Path, Line: line, Column: col, Message: msg}
	}
	s = &Schema{File: in.Path, root: root, text: text, lines: lines, defs: map[avro.NamedSchema]string{}, records: map[*avro.RecordSchema]*recordInfo{}}
	s.index(root, text, "")
	s.flatten()
	return s, nil
}

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
func valueOffset(root *jnode, ptr string) int {
	n, off, ok := resolvePointer(root, ptr)
	if ok && n != nil {
		return n.off
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
func typeNode(n *jnode, ptr string) (*jnode, string) {
	if n != nil && n.kind == jObject {
		if t := n.get("type"); t != nil && t.kind == jArray {
			return t, ptr + "/type"
		}
	}
	return n, ptr
}

// isDefinition reports whether n defines a named type (rather than referring to one).
func isDefinition(n *jnode) bool {
	if n == nil || n.kind != jObject {
		return false
	}
	t := n.get("type")
	if t == nil || t.kind != jString {
		return false
	}
	switch t.str {
	case "record", "error", "enum", "fixed":
		return true
	}
	return false
}

// index walks hamba's schema and the JSON text together and records where each named
// type is defined.
func (s *Schema) index(sch avro.Schema, n *jnode, ptr string) {
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
		fields := n.get("fields")
		for i, f := range t.Fields() {
			if fields == nil || i >= len(fields.elems) {
				return
			}
			fp := fmt.Sprintf("%s/fields/%d", ptr, i)
			s.index(f.Type(), fields.elems[i].get("type"), fp+"/type")
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
		s.index(t.Items(), n.get("items"), ptr+"/items")
	case *avro.MapSchema:
		s.index(t.Values(), n.get("values"), ptr+"/values")
	case *avro.UnionSchema:
		if n.kind != jArray {
			return
		}
		for i, b := range t.Types() {
			if i < len(n.elems) {
				s.index(b, n.elems[i], fmt.Sprintf("%s/%d", ptr, i))
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
	_, off, _ := resolvePointer(s.text, ptr)
	return s.lines.pos(off)
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

// flatten lists every field by dotted path. Unions, arrays and maps are transparent; a
// record already being expanded on the way down is not expanded again.
func (s *Schema) flatten() {
	s.byPath = map[string]*fieldInfo{}
	onPath := map[*avro.RecordSchema]bool{}
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
				if len(s.fields) >= maxFieldPaths {
					return
				}
				path := f.Name()
				if prefix != "" {
					path = prefix + "." + path
				}
				if _, dup := s.byPath[path]; !dup {
					fi := &fieldInfo{path: path, name: f.Name(), field: f, ptr: fmt.Sprintf("%s/fields/%d", base, i), record: t, depth: depth}
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
	sort.Slice(s.fields, func(i, j int) bool { return s.fields[i].path < s.fields[j].path })
}

// FieldPaths returns every field's dotted path, sorted. Nested records contribute
// their fields under the parent field's name; unions, arrays and maps are transparent
// (field `items` = array of record with field `sku` gives "items" and "items.sku");
// recursive types stop at the first repeat.
func (s *Schema) FieldPaths() []string {
	out := make([]string, len(s.fields))
	for i, f := range s.fields {
		out[i] = f.path
	}
	return out
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

// explainHambaError turns an error of hamba/avro's parser, which has no position, into
// a pointer to the most likely place and a sentence that says what to fix.
func explainHambaError(root *jnode, err error) (ptr, msg string) {
	raw := strings.TrimPrefix(err.Error(), "avro: ")
	quoted := firstQuoted(raw)
	switch {
	case strings.HasPrefix(raw, "unknown type: "):
		name := strings.TrimPrefix(raw, "unknown type: ")
		if p, ok := findTypeString(root, "", name); ok {
			return p, fmt.Sprintf("unknown type %q: use a primitive type (null, boolean, int, long, float, double, bytes, string) or a named type defined earlier in the file (check its spelling and namespace)", name)
		}
		return "", "unknown type: " + name + "; every \"type\" must be a primitive type name, a named type defined earlier, or a complex type object"
	case strings.HasPrefix(raw, "duplicate field name"):
		if p, ok := findDuplicateField(root, "", quoted); ok {
			return p, fmt.Sprintf("record has two fields named %q; rename or remove one", quoted)
		}
	case strings.HasPrefix(raw, "duplicate name"):
		short := quoted[strings.LastIndex(quoted, ".")+1:]
		if p, ok := findNthName(root, short, 2); ok {
			return p + "/name", fmt.Sprintf("type %q is defined twice; define it once and refer to it by name afterwards", quoted)
		}
	case strings.HasPrefix(raw, "invalid default for field "):
		name := strings.TrimPrefix(raw, "invalid default for field ")
		if i := strings.Index(name, ". "); i >= 0 {
			name = name[:i]
		}
		typ := ""
		if i := strings.LastIndex(raw, " not a "); i >= 0 {
			typ = " " + raw[i+len(" not a "):]
		}
		if p, ok := findFieldByName(root, "", name); ok {
			return p + "/default", fmt.Sprintf("default of field %q does not match its type%s; write a value of that type (a union's default matches its first branch; bytes and fixed defaults are strings)", name, typ)
		}
	case strings.HasPrefix(raw, "union type must be unique"):
		if p, ok := findDuplicateUnion(root, ""); ok {
			return p, "union lists the same type twice; keep one of each type (named types may repeat only under different names)"
		}
	}
	if quoted != "" {
		if p, ok := findString(root, "", quoted); ok {
			return p, raw
		}
	}
	return "", raw
}

func firstQuoted(s string) string {
	i := strings.IndexByte(s, '"')
	if i < 0 {
		return ""
	}
	j := strings.IndexByte(s[i+1:], '"')
	if j < 0 {
		return ""
	}
	return s[i+1 : i+1+j]
}

// walkJSON visits every node with its pointer, depth first, until fn returns true.
func walkJSON(n *jnode, ptr string, fn func(n *jnode, ptr string) bool) bool {
	if fn(n, ptr) {
		return true
	}
	switch n.kind {
	case jObject:
		for _, m := range n.members {
			if walkJSON(m.val, ptr+"/"+escapePointerToken(m.key), fn) {
				return true
			}
		}
	case jArray:
		for i, e := range n.elems {
			if walkJSON(e, fmt.Sprintf("%s/%d", ptr, i), fn) {
				return true
			}
		}
	}
	return false
}

func findTypeString(root *jnode, ptr, name string) (string, bool) {
	var found string
	ok := walkJSON(root, ptr, func(n *jnode, p string) bool {
		if n.kind != jString || n.str != name {
			return false
		}
		last := p[strings.LastIndex(p, "/")+1:]
		if p == "" || last == "type" || last == "items" || last == "values" || (last != "" && last[0] >= '0' && last[0] <= '9' && !strings.Contains(p, "/symbols/") && !strings.Contains(p, "/aliases/")) {
			found = p
			return true
		}
		return false
	})
	return found, ok
}

func findString(root *jnode, ptr, s string) (string, bool) {
	var found string
	ok := walkJSON(root, ptr, func(n *jnode, p string) bool {
		if n.kind == jString && n.str == s {
			found = p
			return true
		}
		return false
	})
	return found, ok
}

func findDuplicateField(root *jnode, ptr, name string) (string, bool) {
	var found string
	ok := walkJSON(root, ptr, func(n *jnode, p string) bool {
		fields := n.get("fields")
		if fields == nil || fields.kind != jArray {
			return false
		}
		seen := false
		for i, f := range fields.elems {
			if nm := f.get("name"); nm != nil && nm.str == name {
				if seen {
					found = fmt.Sprintf("%s/fields/%d", p, i)
					return true
				}
				seen = true
			}
		}
		return false
	})
	return found, ok
}

func findFieldByName(root *jnode, ptr, name string) (string, bool) {
	var found string
	ok := walkJSON(root, ptr, func(n *jnode, p string) bool {
		fields := n.get("fields")
		if fields == nil || fields.kind != jArray {
			return false
		}
		for i, f := range fields.elems {
			if nm := f.get("name"); nm != nil && nm.str == name && f.get("default") != nil {
				found = fmt.Sprintf("%s/fields/%d", p, i)
				return true
			}
		}
		return false
	})
	return found, ok
}

// findNthName finds the nth definition of a named type with that short name.
func findNthName(root *jnode, short string, nth int) (string, bool) {
	var found string
	count := 0
	ok := walkJSON(root, "", func(n *jnode, p string) bool {
		if !isDefinition(n) {
			return false
		}
		nm := n.get("name")
		if nm == nil || nm.str[strings.LastIndex(nm.str, ".")+1:] != short {
			return false
		}
		count++
		if count == nth {
			found = p
			return true
		}
		return false
	})
	return found, ok
}

func findDuplicateUnion(root *jnode, ptr string) (string, bool) {
	var found string
	ok := walkJSON(root, ptr, func(n *jnode, p string) bool {
		if n.kind != jArray || strings.HasSuffix(p, "/fields") || strings.HasSuffix(p, "/symbols") || strings.HasSuffix(p, "/aliases") {
			return false
		}
		seen := map[string]bool{}
		for i, e := range n.elems {
			key := ""
			switch e.kind {
			case jString:
				key = e.str
			case jObject:
				if t := e.get("type"); t != nil && t.kind == jString {
					key = t.str
					if nm := e.get("name"); nm != nil {
						key += ":" + nm.str
					}
				}
			}
			if key == "" {
				continue
			}
			if seen[key] {
				found = fmt.Sprintf("%s/%d", p, i)
				return true
			}
			seen[key] = true
		}
		return false
	})
	return found, ok
}
