package avro

import (
	"strings"

	"github.com/contractbot/contractbot/checker/jsontext"
)

// The Avro specification says a record's default is a JSON object whose members are
// the record's fields; a field left out takes its own default (and is an error only
// when it has none). hamba/avro fills such a field with its default already decoded
// (bytes and fixed defaults become []byte) and then refuses the record default as
// not matching its type, though Avro Java accepts it. fillRecordDefaults writes the
// omitted fields into a copy of the text before hamba/avro reads it, so it sees the
// complete default the specification describes; positions still come from the
// original text.

// fillRecordDefaults returns the schema text with every record-typed field default
// made complete from the record's fields' own defaults (nested records too); ok is
// false when no default leaves a field out (the text is then used as it is).
func fillRecordDefaults(root *jsontext.Node) (text []byte, ok bool) {
	f := &defaultFiller{defs: map[string]*jsontext.Node{}, replaced: map[*jsontext.Node]*jsontext.Node{}}
	f.schema(root, "")
	if len(f.replaced) == 0 {
		return nil, false
	}
	var b strings.Builder
	f.write(&b, root)
	return []byte(b.String()), true
}

type defaultFiller struct {
	defs     map[string]*jsontext.Node         // full name -> record definition
	replaced map[*jsontext.Node]*jsontext.Node // a field's default -> its completed copy
}

// schema walks a schema in document order, recording record definitions and
// completing the defaults of fields whose type is a record.
func (f *defaultFiller) schema(n *jsontext.Node, space string) {
	switch n.Kind {
	case jsontext.Array:
		for _, e := range n.Elems {
			f.schema(e, space)
		}
	case jsontext.Object:
		t := n.Get("type")
		if t == nil {
			return
		}
		if t.Kind != jsontext.String {
			f.schema(t, space)
			return
		}
		switch t.Str {
		case "record", "error":
			s := f.define(n, space)
			fs := n.Get("fields")
			if fs == nil || fs.Kind != jsontext.Array {
				return
			}
			for _, fld := range fs.Elems {
				ft := fld.Get("type")
				if ft == nil {
					continue
				}
				f.schema(ft, s)
				d := fld.Get("default")
				if rec := f.record(ft, s); rec != nil && d != nil && d.Kind == jsontext.Object {
					if filled, changed := f.fill(rec, d); changed {
						f.replaced[d] = filled
					}
				}
			}
		case "enum", "fixed":
			f.define(n, space)
		case "array":
			if it := n.Get("items"); it != nil {
				f.schema(it, space)
			}
		case "map":
			if v := n.Get("values"); v != nil {
				f.schema(v, space)
			}
		}
	}
}

// define records a named type and returns its namespace.
func (f *defaultFiller) define(n *jsontext.Node, space string) string {
	nm := n.Get("name")
	if nm == nil || nm.Kind != jsontext.String {
		return space
	}
	ns := n.Get("namespace")
	s, short := fullName(nm.Str, stringOf(ns), ns != nil && ns.Kind == jsontext.String, space)
	f.defs[join(s, short)] = n
	return s
}

func stringOf(n *jsontext.Node) string {
	if n == nil {
		return ""
	}
	return n.Str
}

// record returns the record definition a field type denotes (a union's default
// belongs to its first branch), or nil.
func (f *defaultFiller) record(t *jsontext.Node, space string) *jsontext.Node {
	switch t.Kind {
	case jsontext.Array:
		if len(t.Elems) == 0 {
			return nil
		}
		return f.record(t.Elems[0], space)
	case jsontext.String:
		if strings.Contains(t.Str, ".") {
			return f.defs[t.Str]
		}
		if d := f.defs[join(space, t.Str)]; d != nil {
			return d
		}
		return f.defs[t.Str]
	case jsontext.Object:
		tt := t.Get("type")
		if tt == nil {
			return nil
		}
		if tt.Kind != jsontext.String {
			return f.record(tt, space)
		}
		if tt.Str == "record" || tt.Str == "error" {
			return t
		}
		if !primitiveNames[tt.Str] && tt.Str != "enum" && tt.Str != "fixed" && tt.Str != "array" && tt.Str != "map" {
			return f.record(tt, space)
		}
	}
	return nil
}

// fill returns a copy of the record default d with the fields it leaves out taken
// from their own defaults, nested record values completed too; changed is false when
// nothing was added.
func (f *defaultFiller) fill(rec, d *jsontext.Node) (*jsontext.Node, bool) {
	fs := rec.Get("fields")
	if fs == nil || fs.Kind != jsontext.Array {
		return d, false
	}
	space := f.namespaceOf(rec)
	out := &jsontext.Node{Kind: jsontext.Object, Off: d.Off, Members: append([]jsontext.Member(nil), d.Members...)}
	changed := false
	for _, fld := range fs.Elems {
		name := fld.Get("name")
		ft := fld.Get("type")
		if name == nil || ft == nil {
			continue
		}
		i := indexOf(out.Members, name.Str)
		var v *jsontext.Node
		if i >= 0 {
			v = out.Members[i].Val
		} else if own := fld.Get("default"); own != nil {
			v, changed = own, true
		} else {
			continue // left out without a default: hamba/avro reports it
		}
		if inner := f.record(ft, space); inner != nil && v.Kind == jsontext.Object {
			if filled, c := f.fill(inner, v); c {
				v, changed = filled, true
			}
		}
		if i >= 0 {
			out.Members[i].Val = v
		} else {
			out.Members = append(out.Members, jsontext.Member{Key: name.Str, KeyOff: d.Off, Val: v})
		}
	}
	return out, changed
}

// namespaceOf is the namespace a record's own fields resolve names in.
func (f *defaultFiller) namespaceOf(rec *jsontext.Node) string {
	for full, n := range f.defs {
		if n == rec {
			if i := strings.LastIndexByte(full, '.'); i >= 0 {
				return full[:i]
			}
			return ""
		}
	}
	return ""
}

func indexOf(ms []jsontext.Member, key string) int {
	for i := range ms {
		if ms[i].Key == key {
			return i
		}
	}
	return -1
}

// write prints the tree as JSON with the completed defaults in place of the originals
// (numbers as written).
func (f *defaultFiller) write(b *strings.Builder, n *jsontext.Node) {
	if r, ok := f.replaced[n]; ok {
		n = r
	}
	switch n.Kind {
	case jsontext.Object:
		b.WriteByte('{')
		for i, m := range n.Members {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, m.Key)
			b.WriteByte(':')
			f.write(b, m.Val)
		}
		b.WriteByte('}')
	case jsontext.Array:
		b.WriteByte('[')
		for i, e := range n.Elems {
			if i > 0 {
				b.WriteByte(',')
			}
			f.write(b, e)
		}
		b.WriteByte(']')
	case jsontext.String:
		writeJSONString(b, n.Str)
	default:
		b.WriteString(n.Str)
	}
}
