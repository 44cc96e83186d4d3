package avro

import (
	"strings"

	"github.com/hamba/avro/v2"

	"github.com/contractbot/contractbot/checker"
)

// DescribeFields lists the fields in declaration order, nested fields after their
// parent, as FieldPaths reaches them (unions, arrays and maps are transparent).
func (s *Schema) DescribeFields() []checker.FieldInfo {
	var out []checker.FieldInfo
	seen := map[string]bool{}
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
			for _, f := range t.Fields() {
				path := f.Name()
				if prefix != "" {
					path = prefix + "." + path
				}
				if _, ok := s.byPath[path]; !ok || seen[path] {
					continue
				}
				seen[path] = true
				nullable, core := splitNull(f.Type())
				fi := checker.FieldInfo{Path: path, Depth: depth, Type: fieldLabel(core), Nullable: nullable, Doc: f.Doc(), HasDefault: f.HasDefault()}
				if fi.HasDefault {
					fi.Default = renderValue(f.Default())
				}
				out = append(out, fi)
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
	return out
}

// fieldLabel writes the non-null branches of a field's type for a table: named types
// by their short name ("record LineItem"), logical types in brackets.
func fieldLabel(core []avro.Schema) string {
	parts := make([]string, len(core))
	for i, c := range core {
		parts[i] = shortLabel(deref(c), 0)
	}
	return strings.Join(parts, " or ")
}

func shortLabel(s avro.Schema, depth int) string {
	if depth > 3 {
		return "..."
	}
	switch t := s.(type) {
	case *avro.RecordSchema, *avro.EnumSchema, *avro.FixedSchema:
		n := t.(avro.NamedSchema)
		label := string(kindOf(s)) + " " + n.Name()
		if f, ok := t.(*avro.FixedSchema); ok && f.Logical() != nil {
			label += " (" + logicalString(f.Logical()) + ")"
		}
		return label
	case *avro.ArraySchema:
		return "array of " + shortLabel(deref(t.Items()), depth+1)
	case *avro.MapSchema:
		return "map of " + shortLabel(deref(t.Values()), depth+1)
	case *avro.UnionSchema:
		nullable, core := splitNull(t)
		l := fieldLabel(core)
		if nullable {
			l += " or null"
		}
		return l
	case avro.LogicalTypeSchema:
		if l := t.Logical(); l != nil {
			return string(s.Type()) + " (" + logicalString(l) + ")"
		}
	}
	return string(s.Type())
}
