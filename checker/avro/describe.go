package avro

import (
	"strings"

	"github.com/hamba/avro/v2"

	"github.com/contractbot/contractbot/checker"
)

// DescribeFields lists the fields in declaration order, nested fields after their
// parent, as FieldPaths reaches them (unions, arrays and maps are transparent).
func (s *Schema) DescribeFields() []checker.FieldInfo {
	out := make([]checker.FieldInfo, 0, len(s.declared))
	for _, d := range s.declared {
		f := d.field
		nullable, core := splitNull(f.Type())
		fi := checker.FieldInfo{Path: d.path, Depth: d.depth, Type: fieldLabel(core), Nullable: nullable, Doc: f.Doc(), HasDefault: f.HasDefault()}
		if fi.HasDefault {
			fi.Default = renderValue(f.Default())
		}
		out = append(out, fi)
	}
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
