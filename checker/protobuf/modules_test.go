package protobuf

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
)

// Generated multi-file modules: 2 to 4 files, a package per file, imports between
// them in an order drawn per module (so one module has A importing B and another B
// importing A's package; never a cycle within a module), and edits of the kinds that
// only show across files: types moved between files, package renames, references to
// imported types, besides oneofs, maps, proto3 optional, reserved ranges, nested
// types, enums with aliases, json_name, services and well-known types.
//
// Type references are fully qualified with a leading dot (".orders.v1.Orders"), so a
// rename or a move is a rewrite of names; each file's imports are its layout edges
// plus the files defining the types it names.

// mfFile is one file of a module.
type mfFile struct {
	name string   // short name: the directory, and the stem of every type name
	path string   // import path
	deps []string // import paths of the module's layout, kept through edits
	p    *pFile
}

// mfModule is a generated module; root is the file checked (it imports every other
// file, directly or not).
type mfModule struct {
	root  string
	files []*mfFile
}

// wellKnown maps the well-known types the generator uses to their files.
var wellKnown = map[string]string{
	".google.protobuf.Timestamp":   "google/protobuf/timestamp.proto",
	".google.protobuf.Duration":    "google/protobuf/duration.proto",
	".google.protobuf.StringValue": "google/protobuf/wrappers.proto",
	".google.protobuf.Int64Value":  "google/protobuf/wrappers.proto",
	".google.protobuf.Any":         "google/protobuf/any.proto",
	".google.protobuf.Struct":      "google/protobuf/struct.proto",
	".google.protobuf.FieldMask":   "google/protobuf/field_mask.proto",
}

func (m *mfModule) clone() *mfModule {
	c := &mfModule{root: m.root}
	for _, f := range m.files {
		c.files = append(c.files, &mfFile{name: f.name, path: f.path, deps: slices.Clone(f.deps), p: f.p.clone()})
	}
	return c
}

func (m *mfModule) file(path string) *mfFile {
	for _, f := range m.files {
		if f.path == path {
			return f
		}
	}
	return nil
}

// defs maps every message and enum full name (with a leading dot) to its file.
func (m *mfModule) defs() map[string]string {
	out := map[string]string{}
	var walk func(prefix string, ms []*pMsg, es []*pEnum, path string)
	walk = func(prefix string, ms []*pMsg, es []*pEnum, path string) {
		for _, e := range es {
			out[prefix+"."+e.name] = path
		}
		for _, msg := range ms {
			out[prefix+"."+msg.name] = path
			walk(prefix+"."+msg.name, msg.nested, msg.enums, path)
		}
	}
	for _, f := range m.files {
		walk("."+f.p.pkg, f.p.msgs, f.p.enums, f.path)
	}
	return out
}

// refTypes returns the type names a file refers to (fields, map values, methods).
func refTypes(p *pFile) []string {
	var out []string
	var walk func(ms []*pMsg)
	walk = func(ms []*pMsg) {
		for _, msg := range ms {
			for _, f := range msg.fields {
				if t := refOf(f.typ); t != "" {
					out = append(out, t)
				}
			}
			walk(msg.nested)
		}
	}
	walk(p.msgs)
	for _, s := range p.svcs {
		for _, md := range s.methods {
			out = append(out, md.in, md.out)
		}
	}
	return out
}

// refOf returns the qualified type name in a field type ("" for a scalar); for a map,
// the value's.
func refOf(typ string) string {
	if strings.HasPrefix(typ, "map<") {
		_, v, _ := strings.Cut(strings.TrimSuffix(typ, ">"), ", ")
		typ = v
	}
	if strings.HasPrefix(typ, ".") {
		return typ
	}
	return ""
}

// imports returns each file's imports: layout edges, then the files of the types it
// names, sorted and without itself.
func (m *mfModule) imports() map[string][]string {
	defs := m.defs()
	out := map[string][]string{}
	for _, f := range m.files {
		set := map[string]bool{}
		for _, d := range f.deps {
			set[d] = true
		}
		for _, t := range refTypes(f.p) {
			if p, ok := defs[t]; ok {
				set[p] = true
			} else if p, ok := wellKnown[t]; ok {
				set[p] = true
			}
		}
		delete(set, f.path)
		out[f.path] = slices.Sorted(maps.Keys(set))
	}
	return out
}

// valid reports whether the module's imports have no cycle, every file is reached
// from the root, and every named type exists.
func (m *mfModule) valid() bool {
	imps, defs := m.imports(), m.defs()
	for _, f := range m.files {
		for _, t := range refTypes(f.p) {
			if _, ok := defs[t]; !ok && wellKnown[t] == "" {
				return false
			}
		}
	}
	state := map[string]int{} // 1: on the path, 2: done
	var acyclic func(p string) bool
	acyclic = func(p string) bool {
		switch state[p] {
		case 1:
			return false
		case 2:
			return true
		}
		state[p] = 1
		for _, q := range imps[p] {
			if m.file(q) != nil && !acyclic(q) {
				return false
			}
		}
		state[p] = 2
		return true
	}
	if !acyclic(m.root) {
		return false
	}
	return len(state) == len(m.files) // every file reached from the root
}

// render returns every file of the module by import path.
func (m *mfModule) render() map[string]string {
	imps := m.imports()
	out := map[string]string{}
	for _, f := range m.files {
		p := f.p.clone()
		p.imports = imps[f.path]
		out[f.path] = p.render()
	}
	return out
}

// rewriteRefs renames a type (and the types nested in it) wherever it is named.
func (m *mfModule) rewriteRefs(old, new string) {
	re := func(t string) string {
		if t == old || strings.HasPrefix(t, old+".") {
			return new + strings.TrimPrefix(t, old)
		}
		return t
	}
	var walk func(ms []*pMsg)
	walk = func(ms []*pMsg) {
		for _, msg := range ms {
			for _, f := range msg.fields {
				if r := refOf(f.typ); r != "" {
					f.typ = strings.Replace(f.typ, r, re(r), 1)
				}
			}
			walk(msg.nested)
		}
	}
	for _, f := range m.files {
		walk(f.p.msgs)
		for _, s := range f.p.svcs {
			for i := range s.methods {
				s.methods[i].in, s.methods[i].out = re(s.methods[i].in), re(s.methods[i].out)
			}
		}
	}
}

var mfNames = []string{"orders", "items", "money", "users", "events", "stock"}

func upper(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// newModule draws a module: 2 to 4 files, the first the root, each later file imported
// by an earlier one (and sometimes by a second), each import used by a field.
func newModule(r *rand.Rand) *mfModule {
	n := 2 + r.IntN(3)
	names := slices.Clone(mfNames)
	r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	m := &mfModule{}
	for _, name := range names[:n] {
		m.files = append(m.files, &mfFile{name: name, path: name + "/v1/" + name + ".proto", p: baseModuleFile(r, name)})
	}
	m.root = m.files[0].path
	link := func(from, to *mfFile) {
		if slices.Contains(from.deps, to.path) {
			return
		}
		from.deps = append(from.deps, to.path)
		main := from.p.msgs[0]
		target := []string{upper(to.name), upper(to.name) + "Part", upper(to.name) + "State"}[r.IntN(3)]
		typ := "." + to.p.pkg + "." + target
		f := &pField{typ: typ, name: "ref_" + to.name, num: 30 + len(from.deps)}
		switch r.IntN(3) {
		case 1:
			f.label = "repeated"
		case 2:
			f.typ = "map<string, " + typ + ">"
		}
		main.fields = append(main.fields, f)
	}
	for k := 1; k < n; k++ {
		link(m.files[r.IntN(k)], m.files[k])
	}
	if n > 2 && r.IntN(2) == 0 {
		j := 2 + r.IntN(n-2)
		link(m.files[r.IntN(j)], m.files[j])
	}
	// services use imported messages too
	for _, f := range m.files {
		if len(f.p.svcs) > 0 && len(f.deps) > 0 && r.IntN(2) == 0 {
			to := m.file(f.deps[0])
			f.p.svcs[0].methods = append(f.p.svcs[0].methods, pMethod{name: "Lookup", in: "." + to.p.pkg + "." + upper(to.name) + "Part", out: "." + f.p.pkg + "." + upper(f.name)})
		}
	}
	return m
}

// baseModuleFile is one file of a module: a main message with a oneof, a map, a proto3
// optional field, json_name, a well-known type, a nested message and enum and
// reserved ranges; a leaf message (moved between files by edits); an enum, sometimes
// with an alias; sometimes a service.
func baseModuleFile(r *rand.Rand, name string) *pFile {
	pkg := name + ".v1"
	main := upper(name)
	scalars := []string{"int32", "int64", "uint32", "sint64", "fixed32", "string", "bytes", "bool", "double"}
	wkts := slices.Sorted(maps.Keys(wellKnown))
	fields := []*pField{
		{typ: "string", name: "id", num: 1},
		{typ: scalars[r.IntN(len(scalars))], name: "count", num: 2},
		{label: "optional", typ: scalars[r.IntN(len(scalars))], name: "note", num: 3},
		{typ: "string", name: "email", num: 4, oneof: "choice"},
		{typ: []string{"int32", "string", "." + pkg + "." + main + "Part"}[r.IntN(3)], name: "code", num: 5, oneof: "choice"},
		{typ: "map<string, " + []string{"int32", "string", "." + pkg + "." + main + ".Kind"}[r.IntN(3)] + ">", name: "labels", num: 6},
		{label: "repeated", typ: "string", name: "tags", num: 7},
		{typ: wkts[r.IntN(len(wkts))], name: "at", num: 8},
		{typ: "." + pkg + "." + main + ".Detail", name: "detail", num: 9},
		{typ: "." + pkg + "." + main + ".Kind", name: "kind", num: 10},
	}
	if r.IntN(2) == 0 {
		fields[6].jsonName = "tagList"
	}
	// leave some fields out, never id nor the oneof's first
	for i := len(fields) - 1; i > 0; i-- {
		if i != 3 && r.IntN(6) == 0 {
			fields = slices.Delete(fields, i, i+1)
		}
	}
	prefix := strings.ToUpper(name) + "_STATE_"
	state := &pEnum{name: main + "State", values: []pValue{{prefix + "UNSPECIFIED", 0}, {prefix + "ACTIVE", 1}, {prefix + "DONE", 2}}, reserved: []string{"10 to 12"}}
	if r.IntN(2) == 0 {
		state.allowAlias = true
		state.values = slices.Insert(state.values, 2, pValue{prefix + "ON", 1})
	}
	f := &pFile{syntax: "proto3", pkg: pkg,
		msgs: []*pMsg{
			{name: main, fields: fields, reserved: []string{"20 to 25", `"legacy"`},
				nested: []*pMsg{{name: "Detail", fields: []*pField{{typ: "string", name: "text", num: 1}, {typ: "int32", name: "size", num: 2}}}},
				enums:  []*pEnum{{name: "Kind", values: []pValue{{"KIND_UNSPECIFIED", 0}, {"KIND_A", 1}, {"KIND_B", 2}}}},
			},
			{name: main + "Part", fields: []*pField{{typ: "string", name: "name", num: 1}, {typ: "uint32", name: "qty", num: 2}}},
		},
		enums: []*pEnum{state},
	}
	if r.IntN(3) > 0 {
		self := "." + pkg + "."
		f.svcs = []*pSvc{{name: main + "Service", methods: []pMethod{
			{name: "Get", in: self + main + "Part", out: self + main},
			{name: "Watch", in: self + main + "Part", out: self + main, ss: true},
		}}}
	}
	return f
}

// mfCase is a generated module and an edit of it.
type mfCase struct {
	name       string
	root       string
	prev, next map[string]string
	edges      [][2]string // package imports package, in the previous module
}

// moduleEdit changes one file of a module (the module is there for references);
// false means it does not apply to that file.
type moduleEdit struct {
	name  string
	apply func(m *mfModule, f *mfFile, r *rand.Rand) bool
}

// generatedModuleEdits draws modules with a fixed seed and applies every module edit
// to each of them in turns (a third of the cases get a second, random edit), until
// there are n cases whose text changed.
func generatedModuleEdits(n int) []mfCase {
	r := rand.New(rand.NewPCG(21, 1))
	var out []mfCase
	for i := 0; len(out) < n; i++ {
		m := newModule(r)
		if !m.valid() {
			panic("generated module is not valid: " + fmt.Sprint(m.render()))
		}
		next := m.clone()
		var names []string
		edits := 1 + boolInt(r.IntN(3) == 0)
		for k := range edits {
			e := moduleEdits[(i+k*7)%len(moduleEdits)]
			if k > 0 {
				e = moduleEdits[r.IntN(len(moduleEdits))]
			}
			if applyModuleEdit(next, e, r) {
				names = append(names, e.name)
			}
		}
		prevText, nextText := m.render(), next.render()
		if len(names) == 0 || maps.Equal(prevText, nextText) {
			continue
		}
		c := mfCase{name: fmt.Sprintf("module%d/%s", i, strings.Join(names, "+")), root: m.root, prev: prevText, next: nextText}
		imps := m.imports()
		for _, f := range m.files {
			for _, q := range imps[f.path] {
				if t := m.file(q); t != nil {
					c.edges = append(c.edges, [2]string{f.p.pkg, t.p.pkg})
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// applyModuleEdit applies e to the first file (in a drawn order) it applies to and
// keeps the result when the module stays valid.
func applyModuleEdit(m *mfModule, e moduleEdit, r *rand.Rand) bool {
	for _, i := range r.Perm(len(m.files)) {
		c := m.clone()
		if e.apply(c, c.files[i], r) && c.valid() {
			*m = *c
			return true
		}
	}
	return false
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
