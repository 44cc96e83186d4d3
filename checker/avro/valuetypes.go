package avro

import (
	"github.com/hamba/avro/v2"

	"github.com/contractbot/contractbot/checker"
)

// ValueTypes gives the records of the schema with the types data rules see (Confluent's
// CEL executors): int and long are int, float and double double, boolean bool, string
// and enum string, bytes and fixed bytes, an array a list of its items, a map a map from
// string, a record an object of its fields, a union with null the other branch made
// nullable, any other union dyn. Logical types other than uuid are dyn: the Java
// executor sees the underlying long, int or bytes, the Go executor a timestamp or a
// decimal, so a rule written for either must type-check.
func (s *Schema) ValueTypes() checker.ValueTypes {
	vt := checker.ValueTypes{Records: map[string][]checker.RecordField{}}
	vt.Root = valueType(s.root, vt.Records)
	return vt
}

// valueType is the type of values of schema t; records are added to recs, once each.
func valueType(t avro.Schema, recs map[string][]checker.RecordField) checker.ValueType {
	t = deref(t)
	if l, ok := t.(avro.LogicalTypeSchema); ok && l.Logical() != nil {
		if l.Logical().Type() == avro.UUID {
			return checker.ValueType{Kind: checker.ValueString}
		}
		return checker.ValueType{Kind: checker.ValueDyn}
	}
	switch t := t.(type) {
	case *avro.RecordSchema:
		name := t.FullName()
		if _, done := recs[name]; !done {
			recs[name] = nil // a recursive record refers to itself by name
			fields := make([]checker.RecordField, len(t.Fields()))
			for i, f := range t.Fields() {
				fields[i] = checker.RecordField{Name: f.Name(), Type: valueType(f.Type(), recs)}
			}
			recs[name] = fields
		}
		return checker.ValueType{Kind: checker.ValueRecord, Record: name}
	case *avro.ArraySchema:
		items := valueType(t.Items(), recs)
		return checker.ValueType{Kind: checker.ValueList, Elem: &items}
	case *avro.MapSchema:
		values := valueType(t.Values(), recs)
		return checker.ValueType{Kind: checker.ValueMap, Key: &checker.ValueType{Kind: checker.ValueString}, Elem: &values}
	case *avro.UnionSchema:
		nullable, core := splitNull(t)
		if len(core) != 1 {
			if len(core) == 0 {
				return checker.ValueType{Kind: checker.ValueNull}
			}
			return checker.ValueType{Kind: checker.ValueDyn, Nullable: nullable}
		}
		v := valueType(core[0], recs)
		v.Nullable = nullable
		return v
	}
	switch t.Type() {
	case avro.Boolean:
		return checker.ValueType{Kind: checker.ValueBool}
	case avro.Int, avro.Long:
		return checker.ValueType{Kind: checker.ValueInt}
	case avro.Float, avro.Double:
		return checker.ValueType{Kind: checker.ValueDouble}
	case avro.String, avro.Enum:
		return checker.ValueType{Kind: checker.ValueString}
	case avro.Bytes, avro.Fixed:
		return checker.ValueType{Kind: checker.ValueBytes}
	case avro.Null:
		return checker.ValueType{Kind: checker.ValueNull}
	}
	return checker.ValueType{Kind: checker.ValueDyn}
}
