package avro

import "strings"

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
func fillRecordDefaults(root *jnode) (text []byte, ok bool) {
	f := &defaultFiller{defs: map[string]*jnode{}, replaced: map[*jnode]*jnode{}}
	f.schema(root, "")
	if len(f.replaced) == 0 {
		return nil, false
	}
	var b strings.Builder
	f.write(&b, root)
	return []byte(b.String()), true
}

type defaultFiller struct {
	defs     map[string]*jnode // full name -> record definition
	replaced map[*jnode]*jnode // a field's default -> its completed copy
}

// schema walks a schema in document order, recording record definitions and
// completing the defaults of fields whose type is a record.
func (f *defaultFiller) schema(n *jnode, space string) {
	switch n.kind {
	case jArray:
		for _, e := range n.elems {
			f.schema(e, space)
		}
	case jObject:
		t := n.get("type")
		if t == nil {
			return
		}
		if t.kind != jString {
			f.schema(t, space)
			return
		}
		switch t.str {
		case "record", "error":
			s := f.define(n, space)
			fs := n.get("fields")
			if fs == nil || fs.kind != jArray {
				return
			}
			for _, fld := range fs.elems {
				ft := fld.get("type")
				if ft == nil {
					continue
				}
				f.schema(ft, s)
				d := fld.get("default")
				if rec := f.record(ft, s); rec != nil && d != nil && d.kind == jObject {
					if filled, changed := f.fill(rec, d); changed {
						f.replaced[d] = filled
					}
				}
			}
		case "enum", "fixed":
			f.define(n, space)
		case "array":
			if it := n.get("items"); it != nil {
				f.schema(it, space)
			}
		case "map":
			if v := n.get("values"); v != nil {
				f.schema(v, space)
			}
		}
	}
}

// define records a named type and returns its namespace.
func (f *defaultFiller) define(n *jnode, space string) string {
	nm := n.get("name")
	if nm == nil || nm.kind != jString {
		return space
	}
	ns := n.get("namespace")
	s, short := fullName(nm.str, stringOf(ns), ns != nil && ns.kind == jString, space)
	f.defs[join(s, short)] = n
	return s
}

func stringOf(n *jnode) string {
	if n == nil {
		return ""
	}
	return n.str
}

// record returns the record definition a field type denotes (a union's default
// belongs to its first branch), or nil.
func (f *defaultFiller) record(t *jnode, space string) *jnode {
	switch t.kind {
	case jArray:
		if len(t.elems) == 0 {
			return nil
		}
		return f.record(t.elems[0], space)
	case jString:
		if strings.Contains(t.str, ".") {
			return f.defs[t.str]
		}
		if d := f.defs[join(space, t.str)]; d != nil {
			return d
		}
		return f.defs[t.str]
	case jObject:
		tt := t.get("type")
		if tt == nil {
			return nil
		}
		if tt.kind != jString {
			return f.record(tt, space)
		}
		if tt.str == "record" || tt.str == "error" {
			return t
		}
		if !primitiveNames[tt.str] && tt.str != "enum" && tt.str != "fixed" && tt.str != "array" && tt.str != "map" {
			return f.record(tt, space)
		}
	}
	return nil
}

// fill returns a copy of the record default d with the fields it leaves out taken
// from their own defaults, nested record values completed too; changed is false when
// nothing was added.
func (f *defaultFiller) fill(rec, d *jnode) (*jnode, bool) {
	fs := rec.get("fields")
	if fs == nil || fs.kind != jArray {
		return d, false
	}
	space := f.namespaceOf(rec)
	out := &jnode{kind: jObject, off: d.off, members: append([]jmember(nil), d.members...)}
	changed := false
	for _, fld := range fs.elems {
		name := fld.get("name")
		ft := fld.get("type")
		if name == nil || ft == nil {
			continue
		}
		i := indexOf(out.members, name.str)
		var v *jnode
		if i >= 0 {
			v = out.members[i].val
		} else if own := fld.get("default"); own != nil {
			v, changed = own, true
		} else {
			continue // left out without a default: hamba/avro reports it
		}
		if inner := f.record(ft, space); inner != nil && v.kind == jObject {
			if filled, c := f.fill(inner, v); c {
				v, changed = filled, true
			}
		}
		if i >= 0 {
			out.members[i].val = v
		} else {
			out.members = append(out.members, jmember{key: name.str, keyOff: d.off, val: v})
		}
	}
	return out, changed
}

// namespaceOf is the namespace a record's own fields resolve names in.
func (f *defaultFiller) namespaceOf(rec *jnode) string {
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

func indexOf(ms []jmember, key string) int {
	for i := range ms {
		if ms[i].key == key {
			return i
		}
	}
	return -1
}

// write prints the tree as JSON with the completed defaults in place of the originals
// (numbers as written).
func (f *defaultFiller) write(b *strings.Builder, n *jnode) {
	if r, ok := f.replaced[n]; ok {
		n = r
	}
	switch n.kind {
	case jObject:
		b.WriteByte('{')
		for i, m := range n.members {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, m.key)
			b.WriteByte(':')
			f.write(b, m.val)
		}
		b.WriteByte('}')
	case jArray:
		b.WriteByte('[')
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			f.write(b, e)
		}
		b.WriteByte(']')
	case jString:
		writeJSONString(b, n.str)
	default:
		b.WriteString(n.str)
	}
}
