package jsonschema

import (
	"slices"
	"strings"

	"github.com/contractbot/contractbot/checker"
)

// ValueTypes gives the objects of the schema with the types data rules see (Confluent's
// CEL executors read a JSON document as maps, lists and scalars): an object with
// properties is a record of them (a nested object one of its own), an object with
// additionalProperties only a map from string, an array a list of its items, a string
// a string, an integer an int, a boolean a bool, an enum or const of strings a string,
// a type list of one type and null that type made nullable. A number is dyn (a JSON
// number reads as an int or a double depending on its text), and so is a combination
// (allOf, anyOf, oneOf, if/then/else, not).
func (s *Schema) ValueTypes() checker.ValueTypes {
	vt := checker.ValueTypes{Records: map[string][]checker.RecordField{}}
	vt.Root = valueType(s.root, vt.Records, 0)
	return vt
}

// valueType is the type of the values of n; objects are added to recs, once each.
func valueType(n *node, recs map[string][]checker.RecordField, depth int) checker.ValueType {
	n = deref(n)
	if n == nil || depth > 64 {
		return checker.ValueType{Kind: checker.ValueDyn}
	}
	switch n.kind {
	case kBoolean:
		return checker.ValueType{Kind: checker.ValueBool}
	case kNull:
		return checker.ValueType{Kind: checker.ValueNull}
	case kString:
		return checker.ValueType{Kind: checker.ValueString}
	case kNumber:
		if n.integer {
			return checker.ValueType{Kind: checker.ValueInt}
		}
	case kEnum, kConst:
		vals := n.values
		if n.kind == kConst {
			vals = []string{n.constVal}
		}
		if len(vals) > 0 && !slices.ContainsFunc(vals, func(v string) bool { return !strings.HasPrefix(v, `"`) }) {
			return checker.ValueType{Kind: checker.ValueString}
		}
	case kArray:
		items := checker.ValueType{Kind: checker.ValueDyn}
		if n.items != nil {
			items = valueType(n.items, recs, depth+1)
		}
		return checker.ValueType{Kind: checker.ValueList, Elem: &items}
	case kObject:
		if len(n.props) == 0 {
			values := checker.ValueType{Kind: checker.ValueDyn}
			if n.addl != nil {
				values = valueType(n.addl, recs, depth+1)
			}
			return checker.ValueType{Kind: checker.ValueMap, Key: &checker.ValueType{Kind: checker.ValueString}, Elem: &values}
		}
		name := n.doc.name + "#" + n.ptr
		if _, done := recs[name]; !done {
			recs[name] = nil // a recursive object refers to itself by name
			fields := make([]checker.RecordField, len(n.props))
			for i, p := range n.props {
				fields[i] = checker.RecordField{Name: p.name, Type: valueType(p.n, recs, depth+1)}
			}
			recs[name] = fields
		}
		return checker.ValueType{Kind: checker.ValueRecord, Record: name}
	case kCombined:
		return nullableOf(n, recs, depth)
	}
	return checker.ValueType{Kind: checker.ValueDyn}
}

// nullableOf is the type of a type list of one type and null ({"type": ["string",
// "null"]}, or the same as anyOf/oneOf): that type, nullable; dyn for anything else.
func nullableOf(n *node, recs map[string][]checker.RecordField, depth int) checker.ValueType {
	if n.crit == "allOf" {
		return checker.ValueType{Kind: checker.ValueDyn}
	}
	var core []*node
	null := false
	for _, s := range n.subs {
		switch d := deref(s); {
		case d != nil && d.kind == kNull:
			null = true
		default:
			core = append(core, s)
		}
	}
	if len(core) != 1 || !null {
		return checker.ValueType{Kind: checker.ValueDyn}
	}
	v := valueType(core[0], recs, depth+1)
	v.Nullable = true
	return v
}
