package avro

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/contractbot/contractbot/checker/jsontext"
)

// checkShape checks, before hamba/avro sees the text, the structure hamba reports
// without a place (or with a message a person cannot act on): what a type position
// may hold, the members each complex type needs, names, symbols, sizes and unions
// directly inside unions. It returns the pointer of the first problem and a message,
// or "" when the shape is sound. Type positions only are visited: a default value may
// well be an array of arrays.
func checkShape(n *jsontext.Node, ptr string) (string, string) {
	if n == nil {
		return ptr, "missing type"
	}
	switch n.Kind {
	case jsontext.String, jsontext.Null:
		return "", ""
	case jsontext.Array:
		for i, e := range n.Elems {
			p := ptr + "/" + strconv.Itoa(i)
			if e.Kind == jsontext.Array {
				return p, "a union cannot hold another union directly; list the inner union's types in the outer one"
			}
			if q, msg := checkShape(e, p); msg != "" {
				return q, msg
			}
		}
		return "", ""
	case jsontext.Object:
		return checkTypeObject(n, ptr)
	}
	return ptr, "expected a type here: a type name such as \"string\" or a named type, a type object such as {\"type\": \"array\", \"items\": \"int\"}, or a union array"
}

func checkTypeObject(n *jsontext.Node, ptr string) (string, string) {
	t := n.Get("type")
	switch {
	case t == nil:
		return ptr, "type object has no \"type\" member; add one, e.g. \"type\": \"record\""
	case t.Kind == jsontext.Array:
		return checkShape(t, ptr+"/type")
	case t.Kind != jsontext.String:
		return ptr + "/type", "\"type\" must be a string naming a type (\"record\", \"enum\", \"array\", \"string\", a named type, ...)"
	}
	switch t.Str {
	case "record", "error":
		if q, msg := checkName(n, ptr, t.Str); msg != "" {
			return q, msg
		}
		fields := n.Get("fields")
		if fields == nil {
			return ptr, fmt.Sprintf("%s has no \"fields\"; add \"fields\": [] with one object per field", t.Str)
		}
		if fields.Kind != jsontext.Array {
			return ptr + "/fields", "\"fields\" must be an array of field objects, e.g. [{\"name\": \"id\", \"type\": \"string\"}]"
		}
		for i, f := range fields.Elems {
			fp := ptr + "/fields/" + strconv.Itoa(i)
			if f.Kind != jsontext.Object {
				return fp, "a field must be an object with \"name\" and \"type\", e.g. {\"name\": \"id\", \"type\": \"string\"}"
			}
			name := f.Get("name")
			if name == nil || name.Kind != jsontext.String {
				return fp, "field has no \"name\" string; add one, e.g. \"name\": \"id\""
			}
			if !validName(name.Str) {
				return fp + "/name", fmt.Sprintf("field name %q is not a valid Avro name: start with a letter or _, then letters, digits or _", name.Str)
			}
			ft := f.Get("type")
			if ft == nil {
				return fp, fmt.Sprintf("field %q has no \"type\"; add one, e.g. \"type\": \"string\"", name.Str)
			}
			if q, msg := checkShape(ft, fp+"/type"); msg != "" {
				return q, msg
			}
		}
	case "enum":
		if q, msg := checkName(n, ptr, "enum"); msg != "" {
			return q, msg
		}
		syms := n.Get("symbols")
		if syms == nil || syms.Kind != jsontext.Array {
			return ptr, "enum needs \"symbols\": an array of symbol names, e.g. [\"NEW\", \"PAID\"]"
		}
		for i, sym := range syms.Elems {
			if sym.Kind != jsontext.String || !validName(sym.Str) {
				return fmt.Sprintf("%s/symbols/%d", ptr, i), "an enum symbol must be a string that starts with a letter or _, then letters, digits or _"
			}
		}
	case "fixed":
		if q, msg := checkName(n, ptr, "fixed"); msg != "" {
			return q, msg
		}
		size := n.Get("size")
		if size == nil {
			return ptr, "fixed needs \"size\": the number of bytes, e.g. \"size\": 16"
		}
		if v, err := strconv.Atoi(size.Str); size.Kind != jsontext.Number || err != nil || v < 0 {
			return ptr + "/size", "\"size\" must be a non-negative whole number of bytes, e.g. 16"
		}
	case "array":
		items := n.Get("items")
		if items == nil {
			return ptr, "array needs \"items\": the type of its elements, e.g. \"items\": \"string\""
		}
		return checkShape(items, ptr+"/items")
	case "map":
		values := n.Get("values")
		if values == nil {
			return ptr, "map needs \"values\": the type of its values, e.g. \"values\": \"long\""
		}
		return checkShape(values, ptr+"/values")
	}
	return "", ""
}

// checkName checks the "name" (and "aliases") of a named type definition.
func checkName(n *jsontext.Node, ptr, kind string) (string, string) {
	name := n.Get("name")
	if name == nil || name.Kind != jsontext.String || name.Str == "" {
		return ptr, fmt.Sprintf("%s needs a \"name\", e.g. \"name\": \"Order\"", kind)
	}
	if !validFullName(name.Str) {
		return ptr + "/name", fmt.Sprintf("%q is not a valid Avro name: each dot-separated part starts with a letter or _, then letters, digits or _", name.Str)
	}
	if ns := n.Get("namespace"); ns != nil && ns.Kind == jsontext.String && ns.Str != "" && !validFullName(ns.Str) {
		return ptr + "/namespace", fmt.Sprintf("namespace %q is not valid: each dot-separated part starts with a letter or _, then letters, digits or _", ns.Str)
	}
	return "", ""
}

func validFullName(s string) bool {
	for part := range strings.SplitSeq(s, ".") {
		if !validName(part) {
			return false
		}
	}
	return true
}

// validName reports whether s is an Avro name: [A-Za-z_][A-Za-z0-9_]*.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'):
		case i > 0 && c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return true
}
